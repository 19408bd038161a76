package jsonld_test

import (
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
)

// TestRoundTripEdgeCases covers what compaction could get wrong: IRIs whose scheme is a prefix name, strings
// that look like keywords, list sharing and nesting, graph names that are also subjects, relative IRIs.
func TestRoundTripEdgeCases(t *testing.T) {
	s, p := rdf.IRI("http://ex/s"), rdf.IRI("http://ex/p")
	cases := []struct {
		name  string
		quads []rdf.Quad
	}{
		{"scheme equals prefix", []rdf.Quad{rdf.Triple(s, p, rdf.IRI("ex:foo")), rdf.Triple(rdf.IRI("ex:bar"), rdf.IRI("ex:baz"), rdf.String("x"))}},
		{"at literal", []rdf.Quad{rdf.Triple(s, p, rdf.String("@id")), rdf.Triple(s, p, rdf.String("@value"))}},
		{"namespace IRI", []rdf.Quad{rdf.Triple(s, p, rdf.IRI("http://ex/")), rdf.Triple(rdf.IRI("http://ex/"), p, rdf.String("x"))}},
		{"empty list", []rdf.Quad{rdf.Triple(s, p, rdf.IRI(rdf.RDFNil))}},
		{"type literal", []rdf.Quad{rdf.Triple(s, rdf.IRI(rdf.RDFType), rdf.String("T")), rdf.Triple(s, rdf.IRI(rdf.RDFType), rdf.Blank("t"))}},
		{"lang case", []rdf.Quad{rdf.Triple(s, p, rdf.LangString("x", "en-US")), rdf.Triple(s, p, rdf.LangString("x", "EN-us"))}},
		{"datatype prefix", []rdf.Quad{rdf.Triple(s, p, rdf.Literal("1", "http://ex/dt"))}},
		{"list shared", []rdf.Quad{rdf.Triple(s, p, rdf.Blank("l")), rdf.Triple(rdf.IRI("http://ex/t"), p, rdf.Blank("l")), rdf.Triple(rdf.Blank("l"), rdf.IRI(rdf.RDFFirst), rdf.String("a")), rdf.Triple(rdf.Blank("l"), rdf.IRI(rdf.RDFRest), rdf.IRI(rdf.RDFNil))}},
		{"list in list", []rdf.Quad{rdf.Triple(s, p, rdf.Blank("l")), rdf.Triple(rdf.Blank("l"), rdf.IRI(rdf.RDFFirst), rdf.Blank("m")), rdf.Triple(rdf.Blank("l"), rdf.IRI(rdf.RDFRest), rdf.IRI(rdf.RDFNil)), rdf.Triple(rdf.Blank("m"), rdf.IRI(rdf.RDFFirst), rdf.String("a")), rdf.Triple(rdf.Blank("m"), rdf.IRI(rdf.RDFRest), rdf.IRI(rdf.RDFNil))}},
		{"relative-looking IRI", []rdf.Quad{rdf.Triple(s, p, rdf.IRI("urn:x"))}},
		{"graph name is subject", []rdf.Quad{{S: rdf.IRI("http://ex/g"), P: p, O: rdf.String("meta")}, {S: s, P: p, O: rdf.String("in"), G: rdf.IRI("http://ex/g")}}},
		{"xsd string explicit", []rdf.Quad{rdf.Triple(s, p, rdf.Literal("x", rdf.XSDString))}},
		{"json literal", []rdf.Quad{rdf.Triple(s, p, rdf.Literal(`[1,"a",{"b":null}]`, rdf.RDFJSON))}},
		{"prefix term looks like", []rdf.Quad{rdf.Triple(s, rdf.IRI("http://ex/"), rdf.String("x"))}},
		{"blank node label weird", []rdf.Quad{rdf.Triple(rdf.Blank("a.b-c"), p, rdf.String("x"))}},
		{"double", []rdf.Quad{rdf.Triple(s, p, rdf.Literal("1.5E0", rdf.XSDDouble)), rdf.Triple(s, p, rdf.Literal("5", rdf.XSDInteger))}},
		{"iri with base", []rdf.Quad{rdf.Triple(rdf.IRI("http://ex/doc/a"), p, rdf.IRI("http://ex/doc/?q"))}},
	}
	for _, c := range cases {
		name, quads := c.name, c.quads
		for _, cfg := range []jsonld.EncodeConfig{{}, {UseNativeTypes: true}, {UseRDFType: true}} {
			out := encode(t, quads, rdf.EncodeOptions{Base: "http://ex/doc/", Prefixes: []rdf.Prefix{{Name: "ex", IRI: "http://ex/"}, {Name: "urn", IRI: "http://urn/"}}}, cfg)
			got, _, err := decode(t, out, rdf.DecodeOptions{Base: "http://ex/doc/"}, jsonld.Config{})
			if err != nil {
				t.Errorf("%s %+v: %v\n%s", name, cfg, err, out)
				continue
			}
			if !iso.Isomorphic(got, quads) {
				t.Errorf("%s %+v:\n%s\n%s", name, cfg, iso.Diff(got, quads), out)
			}
		}
	}
}
