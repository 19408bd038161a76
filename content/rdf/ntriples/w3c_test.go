package ntriples_test

import (
	"io"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// knownFailures lists W3C tests expected to fail, with the reason (docs/conformance.md). None today.
var knownFailures = map[string]string{}

// TestW3CNTriples runs the RDF 1.1 N-Triples suite: positive syntax tests must parse, negative ones must fail with
// a positioned *rdf.SyntaxError.
func TestW3CNTriples(t *testing.T) {
	conformance.RunSyntaxSuite(t, conformance.SyntaxSuite{
		Suite: "n-triples", Manifest: "rdf/rdf11/rdf-n-triples/manifest.ttl", TypePrefix: "TestNTriples",
		Decode: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewDecoder(r, o) },
		Known:  knownFailures, Total: 70,
	})
}

// TestW3CNQuads runs the RDF 1.1 N-Quads suite.
func TestW3CNQuads(t *testing.T) {
	conformance.RunSyntaxSuite(t, conformance.SyntaxSuite{
		Suite: "n-quads", Manifest: "rdf/rdf11/rdf-n-quads/manifest.ttl", TypePrefix: "TestNQuads",
		Decode: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewQuadDecoder(r, o) },
		Known:  knownFailures, Total: 87,
	})
}
