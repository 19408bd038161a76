package jsonld_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// suiteBase is where the JSON-LD test suite is published; remote contexts under it load from the local copy.
const suiteBase = "https://w3c.github.io/json-ld-api/tests/"

type manifestEntry struct {
	ID      string         `json:"@id"`
	Types   []string       `json:"@type"`
	Name    string         `json:"name"`
	Input   string         `json:"input"`
	Expect  string         `json:"expect"`
	ErrCode string         `json:"expectErrorCode"`
	Option  map[string]any `json:"option"`
}

func (e manifestEntry) is(typ string) bool { return slices.Contains(e.Types, typ) }

func (e manifestEntry) str(opt string) string { s, _ := e.Option[opt].(string); return s }

func (e manifestEntry) flag(opt string) bool { b, _ := e.Option[opt].(bool); return b }

func loadManifest(t *testing.T, path string) []manifestEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Sequence []manifestEntry `json:"sequence"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(m.Sequence) == 0 {
		t.Fatalf("%s: no tests", path)
	}
	return m.Sequence
}

// processingMode is the mode a test runs in: its processingMode option, or json-ld-1.0 for a test written for
// JSON-LD 1.0 (specVersion json-ld-1.0), whose expected result differs under 1.1. The decoder offers both modes.
func processingMode(e manifestEntry) string {
	if e.str("specVersion") == jsonld.JSONLD10 {
		return jsonld.JSONLD10
	}
	return e.str("processingMode")
}

// knownToRDF lists the toRdf tests that still fail, with the reason (docs/conformance.md).
var knownToRDF = map[string]string{}

// knownFromRDF lists the fromRdf tests that still fail, with the reason.
var knownFromRDF = map[string]string{}

func TestW3CJSONLDToRDF(t *testing.T) {
	dir := filepath.Join(conformance.SuitesDir(t), "json-ld")
	entries := loadManifest(t, filepath.Join(dir, "toRdf-manifest.jsonld"))
	res := conformance.Result{Suite: "json-ld/toRdf", Known: knownToRDF}
	for _, e := range entries {
		if why := runToRDF(dir, e); why != "" {
			res.Fail(e.ID, why)
		} else {
			res.Passed++
		}
	}
	conformance.Report(t, res)
}

func decodeConfig(dir string, e manifestEntry) (jsonld.Config, error) {
	c := jsonld.Config{
		Loader:                jsonld.DirLoader(suiteBase, dir),
		ProcessingMode:        processingMode(e),
		ProduceGeneralizedRDF: e.flag("produceGeneralizedRdf"),
		RDFDirection:          e.str("rdfDirection"),
	}
	if ec := e.str("expandContext"); ec != "" {
		b, err := os.ReadFile(filepath.Join(dir, ec))
		if err != nil {
			return c, err
		}
		c.ExpandContext = b
	}
	return c, nil
}

// runToRDF returns why the test failed, or "".
func runToRDF(dir string, e manifestEntry) (why string) {
	defer func() {
		if p := recover(); p != nil {
			why = fmt.Sprintf("panic: %v", p)
		}
	}()
	cfg, err := decodeConfig(dir, e)
	if err != nil {
		return err.Error()
	}
	base := suiteBase + e.Input
	if b := e.str("base"); b != "" {
		base = b
	}
	in, err := os.ReadFile(filepath.Join(dir, e.Input))
	if err != nil {
		return err.Error()
	}
	got, err := readAll(jsonld.NewDecoderWith(bytes.NewReader(in), rdf.DecodeOptions{Base: base, Blanks: rdf.NewBlankNodes("g")}, cfg))
	switch {
	case e.is("jld:NegativeEvaluationTest"):
		if err == nil {
			return fmt.Sprintf("expected error %q, got %d quads", e.ErrCode, len(got))
		}
		if code := jsonld.ErrorCode(err); code != e.ErrCode {
			return fmt.Sprintf("expected error %q, got %v", e.ErrCode, err)
		}
		return ""
	case err != nil:
		return "unexpected error: " + err.Error()
	case e.is("jld:PositiveSyntaxTest"):
		return ""
	}
	want, err := readNQuads(filepath.Join(dir, e.Expect))
	if err != nil {
		return "reading expected result: " + err.Error()
	}
	if ok, diff := sameDataset(got, want); !ok {
		return "result differs from " + e.Expect + ": " + diff
	}
	return ""
}

func readAll(d rdf.Decoder) ([]rdf.Quad, error) {
	var out []rdf.Quad
	for {
		q, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q)
	}
}

// generalizedPredicate matches a blank node in predicate position, which only generalized RDF allows and the
// strict N-Quads decoder rejects.
var generalizedPredicate = regexp.MustCompile(`^(\S+\s+)_:(\S+)`)

const bnodePredicate = "urn:x-ldhub-test:bnode-predicate:"

// readNQuads reads an expected result. Expected files of generalized-RDF tests have blank-node predicates: they
// are read through an IRI placeholder and turned back into blank nodes sharing the decoder's labels.
func readNQuads(path string) ([]rdf.Quad, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = generalizedPredicate.ReplaceAllString(l, "$1<"+bnodePredicate+"$2>")
	}
	blanks := rdf.NewBlankNodes("w")
	quads, err := readAll(ntriples.NewQuadDecoder(strings.NewReader(strings.Join(lines, "\n")), rdf.DecodeOptions{Blanks: blanks}))
	if err != nil {
		return nil, err
	}
	for i, q := range quads {
		if l, ok := strings.CutPrefix(q.P.Value, bnodePredicate); ok && q.P.IsIRI() {
			quads[i].P = rdf.Blank(blanks.Label(l))
		}
	}
	return quads, nil
}

// sameDataset compares datasets by blank-node aware isomorphism, graph names included.
func sameDataset(got, want []rdf.Quad) (bool, string) {
	if iso.Isomorphic(got, want) {
		return true, ""
	}
	return false, iso.Diff(got, want)
}
