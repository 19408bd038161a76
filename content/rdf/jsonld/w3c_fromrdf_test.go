package jsonld_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

func TestW3CJSONLDFromRDF(t *testing.T) {
	runSuite(t, "fromRdf-manifest.jsonld", "json-ld/fromRdf", knownFromRDF, runFromRDF)
}

func runFromRDF(dir string, e manifestEntry) string {
	quads, err := readLabelledNQuads(filepath.Join(dir, e.Input))
	if err != nil {
		return "reading input: " + err.Error()
	}
	var out bytes.Buffer
	enc := jsonld.NewEncoderWith(&out, rdf.EncodeOptions{}, jsonld.EncodeConfig{
		Expanded:       true,
		UseNativeTypes: e.flag("useNativeTypes"),
		UseRDFType:     e.flag("useRdfType"),
		RDFDirection:   e.str("rdfDirection"),
		ProcessingMode: processingMode(e),
	})
	for _, q := range quads {
		if err = enc.Encode(q); err != nil {
			break
		}
	}
	if err == nil {
		err = enc.Close()
	}
	if e.is("jld:NegativeEvaluationTest") {
		if err == nil {
			return fmt.Sprintf("expected error %q, got %s", e.ErrCode, out.String())
		}
		if code := jsonld.ErrorCode(err); code != e.ErrCode {
			return fmt.Sprintf("expected error %q, got %v", e.ErrCode, err)
		}
		return ""
	}
	if err != nil {
		return "unexpected error: " + err.Error()
	}
	var got, want any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		return "output is not JSON: " + err.Error()
	}
	b, err := os.ReadFile(filepath.Join(dir, e.Expect))
	if err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(b, &want); err != nil {
		return "expected result: " + err.Error()
	}
	if !jsonLDEqual(got, want, false) {
		return "result differs from " + e.Expect + ": got " + strings.Join(strings.Fields(out.String()), " ")
	}
	return ""
}

// readLabelledNQuads reads N-Quads keeping the blank-node labels as written, since the fromRdf algorithm keeps
// them and the expected documents name them. The decoder relabels in order of first use, which is the order in
// which labels first occur in the text, so the two are matched up by a scan.
func readLabelledNQuads(path string) ([]rdf.Quad, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	quads, err := readAll(ntriples.NewQuadDecoder(bytes.NewReader(b), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")}))
	if err != nil {
		return nil, err
	}
	original := map[string]string{}
	for i, l := range blankLabelsInOrder(string(b)) {
		original[fmt.Sprintf("b%d", i+1)] = l
	}
	fix := func(t rdf.Term) rdf.Term {
		if t.IsBlank() {
			t.Value = original[t.Value]
		}
		return t
	}
	for i, q := range quads {
		quads[i] = rdf.Quad{S: fix(q.S), P: fix(q.P), O: fix(q.O), G: fix(q.G)}
	}
	return quads, nil
}

// blankLabelsInOrder lists the distinct blank-node labels of an N-Quads text in order of first occurrence,
// skipping IRIs and literals.
func blankLabelsInOrder(s string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			for i < len(s) && s[i] != '>' {
				i++
			}
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case '_':
			if i+1 < len(s) && s[i+1] == ':' {
				j := i + 2
				for j < len(s) && !strings.ContainsRune(" \t\r\n", rune(s[j])) {
					j++
				}
				l := strings.TrimSuffix(s[i+2:j], ".")
				if !seen[l] {
					seen[l] = true
					out = append(out, l)
				}
				i = j
			}
		}
	}
	return out
}

// jsonLDEqual is JSON-LD object comparison: arrays are unordered except the value of @list; numbers compare by
// value.
func jsonLDEqual(a, b any, ordered bool) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonLDEqual(v, w, k == "@list") {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if ordered {
			for i := range x {
				if !jsonLDEqual(x[i], y[i], false) {
					return false
				}
			}
			return true
		}
		return matchUnordered(x, y, make([]bool, len(y)))
	default:
		return reflect.DeepEqual(a, b)
	}
}

// matchUnordered finds a one-to-one matching of x onto y by backtracking (test documents are small).
func matchUnordered(x, y []any, used []bool) bool {
	if len(x) == 0 {
		return true
	}
	for j := range y {
		if !used[j] && jsonLDEqual(x[0], y[j], false) {
			used[j] = true
			if matchUnordered(x[1:], y, used) {
				return true
			}
			used[j] = false
		}
	}
	return false
}
