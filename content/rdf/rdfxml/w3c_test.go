package rdfxml_test

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

const manifestPath = "rdf/rdf11/rdf-xml/manifest.ttl"

// knownFailures lists W3C tests expected to fail, with the reason (docs/conformance.md).
var knownFailures = map[string]string{}

// TestW3CRDFXML runs the RDF/XML suite: eval tests must give a graph isomorphic to the expected N-Triples, negative
// syntax tests must fail with a positioned *rdf.SyntaxError.
func TestW3CRDFXML(t *testing.T) {
	conformance.RunSyntaxSuite(t, conformance.SyntaxSuite{
		Suite: "rdf-xml", Manifest: manifestPath, TypePrefix: "TestXML",
		Decode: decodeRDFXML, Expect: decodeNTriples, Known: knownFailures, Total: 166,
	})
}

func loadSuite(t testing.TB) *conformance.Manifest {
	t.Helper()
	m, err := conformance.LoadManifest(filepath.Join(conformance.SuitesDir(t), manifestPath))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type newDecoder = conformance.NewDecoder

func decodeRDFXML(r io.Reader, o rdf.DecodeOptions) rdf.Decoder   { return rdfxml.NewDecoder(r, o) }
func decodeNTriples(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewDecoder(r, o) }

// parseFile decodes a suite file with its published IRI as base (mf:assumedTestBase plus the file's path).
func parseFile(path string, dec newDecoder) ([]rdf.Quad, error) {
	return conformance.ParseFile(path, dec)
}

func readAll(d rdf.Decoder) ([]rdf.Quad, error) { return conformance.ReadAll(d) }
