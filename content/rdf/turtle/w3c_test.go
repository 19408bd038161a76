package turtle_test

import (
	"io"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

func TestW3CTurtle(t *testing.T) {
	conformance.RunSyntaxSuite(t, conformance.SyntaxSuite{
		Suite: "rdf-turtle", Manifest: "rdf/rdf11/rdf-turtle/manifest.ttl", TypePrefix: "TestTurtle",
		Decode: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewDecoder(r, o) },
		Expect: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewDecoder(r, o) },
	})
}

func TestW3CTriG(t *testing.T) {
	conformance.RunSyntaxSuite(t, conformance.SyntaxSuite{
		Suite: "rdf-trig", Manifest: "rdf/rdf11/rdf-trig/manifest.ttl", TypePrefix: "TestTrig",
		Decode: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewTriGDecoder(r, o) },
		Expect: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewQuadDecoder(r, o) },
	})
}
