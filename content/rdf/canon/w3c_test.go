package canon_test

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/canon"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

const rdfc = "https://w3c.github.io/rdf-canon/tests/vocab#"

// TestW3CRDFCanon runs the RDFC-1.0 suite: eval tests compare canonical N-Quads as exact text, map tests the
// issued-identifier map, and the negative test (a poison graph) must fail with the work-limit error.
func TestW3CRDFCanon(t *testing.T) {
	m, err := conformance.LoadManifest(filepath.Join(conformance.SuitesDir(t), "rdf-canon", "manifest.ttl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tests) != 86 {
		t.Errorf("manifest has %d tests, the suite README says 86", len(m.Tests))
	}
	res := conformance.Result{Suite: "rdf-canon"}
	for _, tc := range m.Tests {
		name := tc.IRI[strings.LastIndexByte(tc.IRI, '#')+1:]
		if why := runCanonTest(m, tc); why != "" {
			res.Fail(name, why)
		} else {
			res.Passed++
		}
	}
	conformance.Report(t, res)
}

func runCanonTest(m *conformance.Manifest, tc conformance.Test) string {
	opts := canon.Options{}
	switch alg := m.Object(rdf.IRI(tc.IRI), rdfc+"hashAlgorithm"); alg.Value {
	case "", "SHA256":
	case "SHA384":
		opts.Hash = crypto.SHA384
	default:
		return fmt.Sprintf("unknown hash algorithm %q", alg.Value)
	}
	// A fixed, empty prefix keeps the input's labels recoverable: after decoding, blanks.Label(written) returns
	// the label the decoder gave the node written as _:written.
	blanks := rdf.NewBlankNodes("")
	in, err := readNQuads(conformance.LocalPath(tc.Action), blanks)
	if err != nil {
		return err.Error()
	}
	start := time.Now()
	got, err := canon.Canonicalize(context.Background(), in, opts)
	elapsed := time.Since(start)
	switch {
	case tc.HasType(rdfc + "RDFC10NegativeEvalTest"):
		if !errors.Is(err, canon.ErrWorkLimit) {
			return fmt.Sprintf("want the work-limit error, got %v after %v", err, elapsed)
		}
		return ""
	case err != nil:
		return err.Error()
	case tc.HasType(rdfc + "RDFC10EvalTest"):
		want, err := os.ReadFile(conformance.LocalPath(tc.Result))
		if err != nil {
			return err.Error()
		}
		if !bytes.Equal(got.NQuads(), want) {
			return fmt.Sprintf("canonical N-Quads differ:\n%s\nwant\n%s", got.NQuads(), want)
		}
		return ""
	case tc.HasType(rdfc + "RDFC10MapTest"):
		data, err := os.ReadFile(conformance.LocalPath(tc.Result))
		if err != nil {
			return err.Error()
		}
		var want map[string]string
		if err := json.Unmarshal(data, &want); err != nil {
			return fmt.Sprintf("expected map: %v", err)
		}
		written := map[string]string{}
		for w := range want {
			written[w] = got.IssuedIdentifiers[blanks.Label(w)]
		}
		if len(got.IssuedIdentifiers) != len(want) || fmt.Sprint(written) != fmt.Sprint(want) {
			return fmt.Sprintf("issued identifiers %v (decoder labels %v), want %v", written, got.IssuedIdentifiers, want)
		}
		return ""
	}
	return fmt.Sprintf("unknown test type %v", tc.Types)
}

func readNQuads(path string, blanks *rdf.BlankNodes) ([]rdf.Quad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := ntriples.NewQuadDecoder(f, rdf.DecodeOptions{Blanks: blanks})
	var qs []rdf.Quad
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return qs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		qs = append(qs, q)
	}
}
