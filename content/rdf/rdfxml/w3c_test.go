package rdfxml_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

const manifestPath = "rdf/rdf11/rdf-xml/manifest.ttl"

// knownFailures lists W3C tests expected to fail, with the reason (docs/conformance.md).
var knownFailures = map[string]string{}

// TestW3CRDFXML runs the RDF/XML suite: eval tests must give a graph isomorphic to the expected N-Triples, negative
// syntax tests must fail with a *rdf.SyntaxError.
func TestW3CRDFXML(t *testing.T) {
	m := loadSuite(t)
	res := conformance.Result{Suite: "rdf-xml", Known: knownFailures}
	for _, tc := range m.Tests {
		var why string
		switch {
		case tc.HasType(conformance.RDFT + "TestXMLNegativeSyntax"):
			_, err := parseFile(conformance.LocalPath(tc.Action), decodeRDFXML)
			var se *rdf.SyntaxError
			switch {
			case err == nil:
				why = "parsed, but should be rejected"
			case !errors.As(err, &se):
				why = fmt.Sprintf("rejected without a *rdf.SyntaxError: %v", err)
			}
		case tc.HasType(conformance.RDFT + "TestXMLEval"):
			got, err := parseFile(conformance.LocalPath(tc.Action), decodeRDFXML)
			if err != nil {
				why = fmt.Sprintf("should parse: %v", err)
				break
			}
			want, err := parseFile(conformance.LocalPath(tc.Result), decodeNTriples)
			if err != nil {
				why = fmt.Sprintf("expected result unreadable: %v", err)
				break
			}
			if !iso.Isomorphic(got, want) {
				why = "not isomorphic to the expected result:\n" + iso.Diff(got, want)
			}
		default:
			why = fmt.Sprintf("unknown test type %v", tc.Types)
		}
		if why != "" {
			res.Fail(tc.Name, why)
		} else {
			res.Passed++
		}
	}
	if total := res.Passed + len(res.Failed); total != 166 {
		t.Errorf("ran %d tests, the manifest has 166", total)
	}
	conformance.Report(t, res)
}

func loadSuite(t testing.TB) *conformance.Manifest {
	t.Helper()
	m, err := conformance.LoadManifest(filepath.Join(conformance.SuitesDir(t), manifestPath))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type newDecoder func(io.Reader, rdf.DecodeOptions) rdf.Decoder

func decodeRDFXML(r io.Reader, o rdf.DecodeOptions) rdf.Decoder   { return rdfxml.NewDecoder(r, o) }
func decodeNTriples(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewDecoder(r, o) }

// parseFile decodes a suite file with its published IRI as base (mf:assumedTestBase plus the file's path).
func parseFile(path string, dec newDecoder) ([]rdf.Quad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(dec(f, rdf.DecodeOptions{Base: conformance.W3CBase(path), Blanks: rdf.NewBlankNodes("")}))
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
