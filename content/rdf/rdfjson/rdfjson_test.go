package rdfjson_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/rdfjson"
)

func decodeAll(t *testing.T, doc string, o rdf.DecodeOptions) ([]rdf.Quad, error) {
	t.Helper()
	if o.Blanks == nil {
		o.Blanks = rdf.NewBlankNodes("")
	}
	return conformance.ReadAll(rdfjson.NewDecoder(strings.NewReader(doc), o))
}

func TestDecode(t *testing.T) {
	s, p := rdf.IRI("http://ex/s"), rdf.IRI("http://ex/p")
	tests := []struct {
		name string
		doc  string
		base string
		want []rdf.Quad
	}{
		{"empty", `{}`, "", nil},
		{"byte order mark", "\uFEFF" + `{"http://ex/s": {"http://ex/p": [{"type": "uri", "value": "http://ex/o"}]}}`, "",
			[]rdf.Quad{rdf.Triple(s, p, rdf.IRI("http://ex/o"))}},
		{"iri", `{"http://ex/s": {"http://ex/p": [{"type": "uri", "value": "http://ex/o"}]}}`, "",
			[]rdf.Quad{rdf.Triple(s, p, rdf.IRI("http://ex/o"))}},
		{"plain literal", `{"http://ex/s": {"http://ex/p": [{"value": "x", "type": "literal"}]}}`, "",
			[]rdf.Quad{rdf.Triple(s, p, rdf.String("x"))}},
		{"language", `{"http://ex/s": {"http://ex/p": [{"type": "literal", "value": "chat", "lang": "fr-BE"}]}}`, "",
			[]rdf.Quad{rdf.Triple(s, p, rdf.LangString("chat", "fr-BE"))}},
		{"datatype", `{"http://ex/s": {"http://ex/p": [{"type": "literal", "value": "1", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}]}}`, "",
			[]rdf.Quad{rdf.Triple(s, p, rdf.Literal("1", rdf.XSDInteger))}},
		{"blank nodes share labels", `{"_:a": {"http://ex/p": [{"type": "bnode", "value": "_:b"}]}, "_:b": {"http://ex/p": [{"type": "bnode", "value": "_:a"}]}}`, "",
			[]rdf.Quad{rdf.Triple(rdf.Blank("b1"), p, rdf.Blank("b2")), rdf.Triple(rdf.Blank("b2"), p, rdf.Blank("b1"))}},
		{"several objects and predicates in order", `{"http://ex/s": {"http://ex/p": [{"type": "literal", "value": "1"}, {"type": "literal", "value": "2"}], "http://ex/q": [{"type": "literal", "value": "3"}]}}`, "",
			[]rdf.Quad{rdf.Triple(s, p, rdf.String("1")), rdf.Triple(s, p, rdf.String("2")), rdf.Triple(s, rdf.IRI("http://ex/q"), rdf.String("3"))}},
		{"relative IRIs against the base", `{"s": {"http://ex/p": [{"type": "uri", "value": "../o"}]}}`, "http://ex/a/b",
			[]rdf.Quad{rdf.Triple(rdf.IRI("http://ex/a/s"), p, rdf.IRI("http://ex/o"))}},
		{"escapes and non-ASCII", `{"http://ex/s": {"http://ex/p": [{"type": "literal", "value": "a\"\\\n\u00e9€"}]}}`, "",
			[]rdf.Quad{rdf.Triple(s, p, rdf.String("a\"\\\né€"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeAll(t, tt.doc, rdf.DecodeOptions{Base: tt.base})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d triples %v, want %v", len(got), got, tt.want)
			}
			for i := range got {
				if !got[i].Equal(tt.want[i]) {
					t.Errorf("triple %d: got %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		line, col int
		msg       string
	}{
		{"not an object", `[1]`, 1, 1, "a JSON object"},
		{"bad JSON", "{\n  \"http://ex/s\": {\"http://ex/p\": [}\n}", 2, 35, "invalid character"},
		{"truncated", "{\"http://ex/s\": {", 1, 18, "unexpected end"},
		{"subject value not object", "{\n\"http://ex/s\": []}", 2, 16, "object of predicates"},
		{"blank predicate", `{"http://ex/s": {"_:p": []}}`, 1, 18, "must be an IRI"},
		{"missing type", `{"http://ex/s": {"http://ex/p": [{"value": "x"}]}}`, 1, 34, `without "type"`},
		{"bad type", `{"http://ex/s": {"http://ex/p": [{"type": "iri", "value": "x"}]}}`, 1, 34, `"type" must be`},
		{"missing value", `{"http://ex/s": {"http://ex/p": [{"type": "uri"}]}}`, 1, 34, `without "value"`},
		{"unknown key", `{"http://ex/s": {"http://ex/p": [{"type": "uri", "val": "x"}]}}`, 1, 50, "unknown key"},
		{"number value", `{"http://ex/s": {"http://ex/p": [{"type": "literal", "value": 1}]}}`, 1, 63, "must be a string"},
		{"lang on uri", `{"http://ex/s": {"http://ex/p": [{"type": "uri", "value": "http://ex/o", "lang": "en"}]}}`, 1, 34, "only allowed on literals"},
		{"lang and datatype", `{"http://ex/s": {"http://ex/p": [{"type": "literal", "value": "x", "lang": "en", "datatype": "http://ex/d"}]}}`, 1, 34, "not both"},
		{"bad language", `{"http://ex/s": {"http://ex/p": [{"type": "literal", "value": "x", "lang": "en us"}]}}`, 1, 34, "invalid language"},
		{"bnode without prefix", `{"http://ex/s": {"http://ex/p": [{"type": "bnode", "value": "b"}]}}`, 1, 34, "_:label"},
		{"relative without base", `{"s": {}}`, 1, 2, "no base IRI"},
		{"space in IRI", `{"http://ex/a b": {}}`, 1, 2, "not allowed in an IRI"},
		{"trailing data", `{} {}`, 1, 4, "after the document"},
		{"column counts runes", "{\"http://ex/s\": {\"http://ex/p\": [{\"type\": \"literal\", \"value\": \"é€\", \"x\": \"\"}]}}", 1, 69, "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeAll(t, tt.doc, rdf.DecodeOptions{})
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a SyntaxError", err)
			}
			if se.Syntax != "rdf-json" || se.Line != tt.line || se.Column != tt.col || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("got %v (line %d, column %d), want line %d, column %d, containing %q", err, se.Line, se.Column, tt.line, tt.col, tt.msg)
			}
		})
	}
}

func TestDecodeLiteralLimit(t *testing.T) {
	doc := `{"http://ex/s": {"http://ex/p": [{"type": "literal", "value": "` + strings.Repeat("x", 200000) + `"}]}}`
	_, err := decodeAll(t, doc, rdf.DecodeOptions{Limits: rdf.Limits{MaxLiteralSize: 1000}})
	var se *rdf.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "longer than") {
		t.Fatalf("got %v, want a size error", err)
	}
}

func TestEncode(t *testing.T) {
	s, p := rdf.IRI("http://ex/s?a=1&b=<2>"), rdf.IRI("http://ex/p")
	quads := []rdf.Quad{
		rdf.Triple(s, p, rdf.IRI("http://ex/o")),
		rdf.Triple(s, p, rdf.String("x\n\"y\"")),
		rdf.Triple(s, p, rdf.String("x\n\"y\"")), // duplicate: written once
		rdf.Triple(rdf.Blank("b1"), rdf.IRI("http://ex/q"), rdf.LangString("chat", "fr")),
		rdf.Triple(s, rdf.IRI("http://ex/q"), rdf.Literal("1", rdf.XSDInteger)),
		rdf.Triple(s, p, rdf.Blank("b1")),
	}
	var buf bytes.Buffer
	enc := rdfjson.NewEncoder(&buf, rdf.EncodeOptions{})
	for _, q := range quads {
		if err := enc.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	want := `{
  "http://ex/s?a=1&b=<2>": {
    "http://ex/p": [
      {"type": "uri", "value": "http://ex/o"},
      {"type": "literal", "value": "x\n\"y\""},
      {"type": "bnode", "value": "_:b1"}
    ],
    "http://ex/q": [
      {"type": "literal", "value": "1", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}
    ]
  },
  "_:b1": {
    "http://ex/q": [
      {"type": "literal", "value": "chat", "lang": "fr"}
    ]
  }
}
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestEncodeRejects(t *testing.T) {
	tests := []struct {
		name string
		q    rdf.Quad
	}{
		{"named graph", rdf.Quad{S: rdf.IRI("http://ex/s"), P: rdf.IRI("http://ex/p"), O: rdf.String("x"), G: rdf.IRI("http://ex/g")}},
		{"literal subject", rdf.Triple(rdf.String("s"), rdf.IRI("http://ex/p"), rdf.String("x"))},
		{"blank predicate", rdf.Triple(rdf.IRI("http://ex/s"), rdf.Blank("p"), rdf.String("x"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := rdfjson.NewEncoder(io.Discard, rdf.EncodeOptions{}).Encode(tt.q); err == nil {
				t.Errorf("Encode(%v) succeeded", tt.q)
			}
		})
	}
}

func TestEncodeEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := rdfjson.NewEncoder(&buf, rdf.EncodeOptions{}).Close(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "{}\n" {
		t.Errorf("got %q", buf.String())
	}
}

func TestRoundTrip(t *testing.T) {
	quads := []rdf.Quad{
		rdf.Triple(rdf.IRI("http://ex/s"), rdf.IRI("http://ex/p"), rdf.Blank("x")),
		rdf.Triple(rdf.Blank("x"), rdf.IRI("http://ex/p"), rdf.LangString("é\u2028\t", "en-GB")),
		rdf.Triple(rdf.Blank("x"), rdf.IRI("http://ex/p"), rdf.Literal("2024-01-01", "http://www.w3.org/2001/XMLSchema#date")),
		rdf.Triple(rdf.Blank("y"), rdf.IRI("http://ex/p"), rdf.String("")),
		rdf.Triple(rdf.IRI("http://ex/s"), rdf.IRI("http://ex/q"), rdf.IRI("urn:x:y")),
	}
	var buf bytes.Buffer
	enc := rdfjson.NewEncoder(&buf, rdf.EncodeOptions{})
	for _, q := range quads {
		if err := enc.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := decodeAll(t, buf.String(), rdf.DecodeOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !iso.Isomorphic(got, quads) {
		t.Errorf("round trip differs:\n%s", iso.Diff(got, quads))
	}
}
