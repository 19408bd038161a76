package rdfxml_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

func streamEncode(t *testing.T, o rdf.EncodeOptions, qs []rdf.Quad) string {
	t.Helper()
	var buf bytes.Buffer
	e := rdfxml.NewStreamEncoder(&buf, o)
	for _, q := range qs {
		if err := e.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestStreamEncodeGolden(t *testing.T) {
	qs := mustNTriples(t, `
<http://example.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/name> "Alice & <Bob>"@en .
<http://example.org/alice> <http://example.org/vocab#age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/knows> _:b .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/name> "Alice & <Bob>"@en .
_:b <http://xmlns.com/foaf/0.1/name> "" .
_:b <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/vocab#Agent> .
<http://example.org/alice> <http://example.org/vocab#lit> "<br></br>"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .
<http://example.org/bob> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/vocab#Agent> .
`)
	got := streamEncode(t, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "foaf", IRI: "http://xmlns.com/foaf/0.1/"}, {Name: "ns1", IRI: "http://taken/"}}}, qs)
	want := `<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF
    xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    xmlns:foaf="http://xmlns.com/foaf/0.1/"
    xmlns:ns1="http://taken/">
  <foaf:Person rdf:about="http://example.org/alice" xmlns:ns2="http://example.org/vocab#">
    <foaf:name xml:lang="en">Alice &amp; &lt;Bob&gt;</foaf:name>
    <ns2:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">42</ns2:age>
    <foaf:knows rdf:nodeID="b1"/>
  </foaf:Person>
  <ns2:Agent rdf:nodeID="b1" xmlns:ns2="http://example.org/vocab#">
    <foaf:name/>
  </ns2:Agent>
  <rdf:Description rdf:about="http://example.org/alice" xmlns:ns2="http://example.org/vocab#">
    <ns2:lit rdf:parseType="Literal"><br></br></ns2:lit>
  </rdf:Description>
  <ns2:Agent rdf:about="http://example.org/bob" xmlns:ns2="http://example.org/vocab#"/>
</rdf:RDF>
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	back, err := decodeString(got, rdf.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertIso(t, back, append(qs[:4:4], qs[5:]...))
}

// TestStreamRoundTripW3C is TestRoundTripW3C for the streaming encoder: the expected graph of every W3C RDF/XML
// eval test, written and read back, must be isomorphic.
func TestStreamRoundTripW3C(t *testing.T) {
	m := loadSuite(t)
	n := 0
	for _, tc := range m.Tests {
		if !tc.HasType(conformance.RDFT + "TestXMLEval") {
			continue
		}
		t.Run(tc.Name, func(t *testing.T) {
			want, err := parseFile(conformance.LocalPath(tc.Result), decodeNTriples)
			if err != nil {
				t.Fatal(err)
			}
			doc := streamEncode(t, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: "http://example.org/"}}}, want)
			got, err := decodeString(doc, rdf.DecodeOptions{})
			if err != nil {
				t.Fatalf("re-reading failed: %v\n%s", err, doc)
			}
			if !iso.Isomorphic(got, want) {
				t.Errorf("round trip differs:\n%s\n%s", iso.Diff(got, want), doc)
			}
		})
		n++
	}
	if n != 126 {
		t.Errorf("round-tripped %d eval tests, the suite has 126", n)
	}
}

// TestStreamEncodeErrors checks the statements RDF/XML cannot hold are refused whether or not their predicate was
// seen before (the encoder checks a known predicate only once).
func TestStreamEncodeErrors(t *testing.T) {
	ex := rdf.IRI("http://example.org/s")
	tests := []struct {
		name string
		q    rdf.Quad
		msg  string
	}{
		{"named graph", rdf.Quad{S: ex, P: ex, O: ex, G: rdf.IRI("http://example.org/g")}, "single graph"},
		{"predicate without an XML name", rdf.Triple(ex, rdf.IRI("http://example.org/123"), ex), "no suffix that is an XML name"},
		{"rdf:li as predicate", rdf.Triple(ex, rdf.IRI(rdf.RDFNS+"li"), ex), "rdf:li cannot be a property element"},
		{"relative IRI", rdf.Triple(ex, ex, rdf.IRI("rel/x")), "not an absolute IRI"},
		{"space in an IRI", rdf.Triple(ex, ex, rdf.IRI("http://example.org/a b")), "IRIs cannot contain"},
		{"literal subject", rdf.Triple(rdf.String("x"), ex, ex), "subject must be"},
		{"blank predicate", rdf.Triple(ex, rdf.Blank("p"), ex), "predicate must be an IRI"},
		{"control character", rdf.Triple(ex, ex, rdf.String("bell\x07")), "cannot be represented in XML 1.0"},
		{"invalid UTF-8", rdf.Triple(ex, ex, rdf.String("\xff")), "invalid UTF-8"},
		{"invalid UTF-8 after text", rdf.Triple(ex, ex, rdf.String("abc é \xe2\x82")), "invalid UTF-8"},
		{"U+FFFE after text", rdf.Triple(ex, ex, rdf.String("abc é \uFFFE")), "U+FFFE cannot be represented"},
		{"bad datatype", rdf.Triple(ex, ex, rdf.Literal("1", "rel")), "not an absolute IRI"},
		{"datatype with a control character", rdf.Triple(ex, ex, rdf.Literal("1", "http://example.org/\x07")), "IRIs cannot contain"},
		{"language tag with a control character", rdf.Triple(ex, ex, rdf.LangString("x", "en\x07")), "cannot be represented in XML 1.0"},
		// A new subject after statements about ex: the subject is checked again.
		{"relative subject IRI", rdf.Triple(rdf.IRI("rel/s"), ex, ex), "not an absolute IRI"},
		{"blank subject with a control character", rdf.Triple(rdf.Blank("b\x07"), ex, ex), "cannot be represented in XML 1.0"},
	}
	for _, seen := range []bool{false, true} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/seen=%v", tc.name, seen), func(t *testing.T) {
				var buf bytes.Buffer
				e := rdfxml.NewStreamEncoder(&buf, rdf.EncodeOptions{})
				var good []rdf.Quad
				if seen {
					// The predicate (or the object, as a type) went through once already.
					// A datatype and a language tag passed too, which the encoder then need not check again.
					lit := rdf.IRI("http://example.org/v#lit")
					good = []rdf.Quad{rdf.Triple(ex, rdf.IRI(rdf.RDFType), tc.q.P),
						rdf.Triple(ex, lit, rdf.Literal("1", rdf.XSDInteger)), rdf.Triple(ex, lit, rdf.LangString("x", "en")),
						rdf.Triple(ex, tc.q.P, ex)}
					for _, q := range good[:3] {
						if err := e.Encode(q); err != nil {
							t.Fatal(err)
						}
					}
					if err := e.Encode(good[3]); err != nil {
						good = good[:3] // a predicate that is refused anyway
					}
				}
				err := e.Encode(tc.q)
				if err == nil || !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("Encode(%v) = %v, want an error mentioning %q", tc.q, err, tc.msg)
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				got, err := decodeString(buf.String(), rdf.DecodeOptions{})
				if err != nil {
					t.Fatalf("after a rejected triple the document should be valid: %v\n%s", err, buf.String())
				}
				assertIso(t, got, good)
			})
		}
	}
}

// TestStreamEncodeMatchesEncoder compares both encoders on a generated graph with many subjects, interleaved
// runs, blank nodes and namespaces the prefixes do not cover: they must write the same graph.
func TestStreamEncodeMatchesEncoder(t *testing.T) {
	var qs []rdf.Quad
	for i := range 300 {
		s := rdf.IRI(fmt.Sprintf("http://example.org/r/%d", i%120))
		if i%7 == 0 {
			s = rdf.Blank(fmt.Sprintf("x%d", i%5))
		}
		p := rdf.IRI(fmt.Sprintf("http://example.org/v%d#p%d", i%3, i%4))
		var o rdf.Term
		switch i % 4 {
		case 0:
			o = rdf.IRI(fmt.Sprintf("http://example.org/r/%d", i))
		case 1:
			o = rdf.Blank(fmt.Sprintf("x%d", i%6))
		case 2:
			o = rdf.LangString(fmt.Sprintf("v <%d> &", i), "en")
		default:
			o = rdf.Literal(fmt.Sprint(i), "http://www.w3.org/2001/XMLSchema#integer")
		}
		qs = append(qs, rdf.Triple(s, p, o))
		if i%11 == 0 {
			qs = append(qs, rdf.Triple(s, rdf.IRI(rdf.RDFType), rdf.IRI(fmt.Sprintf("http://example.org/c%d/T", i%2))))
		}
	}
	o := rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "v0", IRI: "http://example.org/v0#"}}}
	want, err := decodeString(encode(t, o, qs), rdf.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeString(streamEncode(t, o, qs), rdf.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertIso(t, got, want)
}

// TestStreamEncodeManyPredicates: with more predicates and namespaces than the encoder's lookup caches have
// slots, shared or copied strings, the document holds the same graph as Encoder's and its bytes do not depend on
// whether equal IRIs are the same string.
func TestStreamEncodeManyPredicates(t *testing.T) {
	preds := make([]string, 400)
	for i := range preds {
		preds[i] = fmt.Sprintf("http://example.org/ns%d/p%d", i%37, i)
	}
	var shared, copied []rdf.Quad
	for i := range 5000 {
		s := rdf.IRI(fmt.Sprintf("http://example.org/r/%d", i/9))
		p := preds[(i*7)%len(preds)]
		o := rdf.LangString(fmt.Sprintf("v%d", i%13), "en")
		if i%3 == 0 {
			o = rdf.IRI(preds[i%len(preds)])
		}
		shared = append(shared, rdf.Triple(s, rdf.IRI(p), o))
		copied = append(copied, rdf.Triple(s, rdf.IRI(strings.Clone(p)), o))
		if i%50 == 0 {
			typ := rdf.IRI(fmt.Sprintf("http://example.org/c%d/T", i%70))
			shared = append(shared, rdf.Triple(s, rdf.IRI(rdf.RDFType), typ))
			copied = append(copied, rdf.Triple(s, rdf.IRI(rdf.RDFType), typ))
		}
	}
	o := rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "n1", IRI: "http://example.org/ns1/"}}}
	doc := streamEncode(t, o, shared)
	if again := streamEncode(t, o, copied); again != doc {
		t.Fatal("the document depends on whether equal predicate IRIs are the same string")
	}
	want, err := decodeString(encode(t, o, shared), rdf.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeString(doc, rdf.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertIso(t, got, want)
	// Every cache slot now holds a predicate that passed: one that cannot pass is still refused.
	e := rdfxml.NewStreamEncoder(io.Discard, o)
	for _, q := range shared {
		if err := e.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		bad := rdf.Triple(rdf.IRI("http://example.org/s"), rdf.IRI(fmt.Sprintf("http://example.org/%d", i)), rdf.String("x"))
		if err := e.Encode(bad); err == nil || !strings.Contains(err.Error(), "no suffix that is an XML name") {
			t.Fatalf("Encode(%v) = %v, want it refused", bad, err)
		}
	}
}
