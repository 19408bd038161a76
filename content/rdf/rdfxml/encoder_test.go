package rdfxml_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

func encode(t *testing.T, o rdf.EncodeOptions, qs []rdf.Quad) string {
	t.Helper()
	var buf bytes.Buffer
	e := rdfxml.NewEncoder(&buf, o)
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

func TestEncodeGolden(t *testing.T) {
	qs := mustNTriples(t, `
<http://example.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/name> "Alice & <Bob>"@en .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/knows> _:b .
<http://example.org/alice> <http://example.org/vocab#note> "line1\nline2\r" .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/homepage> <http://example.org/alice/home> .
_:b <http://xmlns.com/foaf/0.1/name> "" .
_:c <http://xmlns.com/foaf/0.1/knows> _:d .
_:d <http://xmlns.com/foaf/0.1/knows> _:c .
_:e <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .
_:e <http://example.org/vocab#list> _:l1 .
_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://example.org/a> .
_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l2 .
_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> _:f .
_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .
_:f <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .
_:e <http://example.org/vocab#lit> "<p xmlns=\"http://www.w3.org/1999/xhtml\">a<br></br></p>"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .
_:e <http://example.org/vocab#lit> "<br/>"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .
_:e <http://example.org/vocab#lit> "<a xmlns:u=\"http://u/\"><u:b></u:b></a>"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .
`)
	got := encode(t, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "foaf", IRI: "http://xmlns.com/foaf/0.1/"}, {Name: "unused", IRI: "http://unused/"}}}, qs)
	want := `<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF
    xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    xmlns:foaf="http://xmlns.com/foaf/0.1/"
    xmlns:ns1="http://example.org/vocab#">
  <foaf:Person rdf:about="http://example.org/alice">
    <foaf:name xml:lang="en">Alice &amp; &lt;Bob&gt;</foaf:name>
    <foaf:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">42</foaf:age>
    <foaf:knows rdf:parseType="Resource">
      <foaf:name/>
    </foaf:knows>
    <ns1:note>line1
line2&#xD;</ns1:note>
    <foaf:homepage rdf:resource="http://example.org/alice/home"/>
  </foaf:Person>
  <foaf:Person>
    <ns1:list rdf:parseType="Collection">
      <rdf:Description rdf:about="http://example.org/a"/>
      <foaf:Person/>
    </ns1:list>
    <ns1:lit rdf:parseType="Literal"><p xmlns="http://www.w3.org/1999/xhtml">a<br></br></p></ns1:lit>
    <ns1:lit rdf:datatype="http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral">&lt;br/&gt;</ns1:lit>
    <ns1:lit rdf:datatype="http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral">&lt;a xmlns:u="http://u/"&gt;&lt;u:b&gt;&lt;/u:b&gt;&lt;/a&gt;</ns1:lit>
  </foaf:Person>
  <rdf:Description rdf:nodeID="b1">
    <foaf:knows rdf:parseType="Resource">
      <foaf:knows rdf:nodeID="b1"/>
    </foaf:knows>
  </rdf:Description>
</rdf:RDF>
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	back, err := decodeString(got, rdf.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertIso(t, back, qs)
}

func TestEncodeErrors(t *testing.T) {
	ex := rdf.IRI("http://example.org/s")
	tests := []struct {
		name string
		q    rdf.Quad
		msg  string
	}{
		{"named graph", rdf.Quad{S: ex, P: ex, O: ex, G: rdf.IRI("http://example.org/g")}, "single graph"},
		{"predicate without an XML name", rdf.Triple(ex, rdf.IRI("http://example.org/123"), ex), "no suffix that is an XML name"},
		{"rdf:li as predicate", rdf.Triple(ex, rdf.IRI(rdf.RDFNS+"li"), ex), "rdf:li cannot be a property element"},
		{"rdf:about as predicate", rdf.Triple(ex, rdf.IRI(rdf.RDFNS+"about"), ex), "rdf:about cannot be a property element"},
		{"relative IRI", rdf.Triple(ex, ex, rdf.IRI("rel/x")), "not an absolute IRI"},
		{"space in an IRI", rdf.Triple(ex, ex, rdf.IRI("http://example.org/a b")), "IRIs cannot contain"},
		{"literal subject", rdf.Triple(rdf.String("x"), ex, ex), "subject must be"},
		{"blank predicate", rdf.Triple(ex, rdf.Blank("p"), ex), "predicate must be an IRI"},
		{"control character", rdf.Triple(ex, ex, rdf.String("bell\x07")), "cannot be represented in XML 1.0"},
		{"invalid UTF-8", rdf.Triple(ex, ex, rdf.String("\xff")), "invalid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			e := rdfxml.NewEncoder(&buf, rdf.EncodeOptions{})
			err := e.Encode(tc.q)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Encode(%v) = %v, want an error mentioning %q", tc.q, err, tc.msg)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if got, err := decodeString(buf.String(), rdf.DecodeOptions{}); err != nil || len(got) != 0 {
				t.Errorf("after a rejected triple the document should be empty and valid: %v, %v", got, err)
			}
		})
	}
}

// TestRoundTripW3C writes the expected graph of every W3C RDF/XML eval test with the encoder and reads it back with
// the decoder; the result must be isomorphic. It covers XML literals, language tags, datatypes, containers, odd
// IRIs and many blank-node shapes that hand-written cases would miss.
func TestRoundTripW3C(t *testing.T) {
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
			for _, base := range []string{"", conformance.W3CBase(conformance.LocalPath(tc.Action))} {
				doc := encode(t, rdf.EncodeOptions{Base: base, Prefixes: []rdf.Prefix{{Name: "ex", IRI: "http://example.org/"}}}, want)
				got, err := decodeString(doc, rdf.DecodeOptions{})
				if err != nil {
					t.Fatalf("base %q: re-reading failed: %v\n%s", base, err, doc)
				}
				if !iso.Isomorphic(got, want) {
					t.Errorf("base %q: round trip differs:\n%s\n%s", base, iso.Diff(got, want), doc)
				}
			}
		})
		n++
	}
	if n != 126 {
		t.Errorf("round-tripped %d eval tests, the suite has 126", n)
	}
}

// TestEncodeDropsDuplicates covers both ways a subject's triples are deduplicated (small groups by comparison,
// large ones with a map) and checks that order and interleaving of subjects do not matter.
func TestEncodeDropsDuplicates(t *testing.T) {
	for _, n := range []int{3, 40} {
		t.Run(fmt.Sprint(n, " triples per subject"), func(t *testing.T) {
			var in, distinct []rdf.Quad
			for i := range n {
				for _, s := range []string{"http://example.org/a", "http://example.org/b"} {
					q := rdf.Triple(rdf.IRI(s), rdf.IRI("http://example.org/p"), rdf.String(fmt.Sprint(i)))
					distinct = append(distinct, q)
					in = append(in, q, q)
				}
			}
			got, err := decodeString(encode(t, rdf.EncodeOptions{}, in), rdf.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(distinct) {
				t.Errorf("wrote %d triples, want the %d distinct ones", len(got), len(distinct))
			}
			assertIso(t, got, distinct)
		})
	}
}

func TestEncodeIgnoresUnusableBase(t *testing.T) {
	qs := []rdf.Quad{rdf.Triple(rdf.IRI("http://example.org/dir/a"), rdf.IRI("http://example.org/p"), rdf.IRI("http://example.org/dir/b"))}
	for _, base := range []string{"dir/", "http://example.org/a dir/"} {
		doc := encode(t, rdf.EncodeOptions{Base: base}, qs)
		if strings.Contains(doc, "xml:base") {
			t.Errorf("base %q was written:\n%s", base, doc)
		}
		got, err := decodeString(doc, rdf.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		assertIso(t, got, qs)
	}
}
