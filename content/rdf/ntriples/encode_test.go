package ntriples_test

import (
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

func encodeAll(t *testing.T, quads bool, qs []rdf.Quad) (string, error) {
	t.Helper()
	var b strings.Builder
	var e rdf.Encoder
	if quads {
		e = ntriples.NewQuadEncoder(&b, rdf.EncodeOptions{})
	} else {
		e = ntriples.NewEncoder(&b, rdf.EncodeOptions{})
	}
	for _, q := range qs {
		if err := e.Encode(q); err != nil {
			return b.String(), err
		}
	}
	err := e.Close()
	return b.String(), err
}

func TestEncodeCanonical(t *testing.T) {
	tests := []struct {
		name string
		q    rdf.Quad
		want string
	}{
		{"IRIs", rdf.Triple(s, p, o), "<http://ex/s> <http://ex/p> <http://ex/o> .\n"},
		{"blank nodes", rdf.Triple(rdf.Blank("a"), p, rdf.Blank("b.c")), "_:a <http://ex/p> _:b.c .\n"},
		{"simple literal", rdf.Triple(s, p, rdf.String("x")), "<http://ex/s> <http://ex/p> \"x\" .\n"},
		{"literal with empty datatype", rdf.Triple(s, p, rdf.Term{Kind: rdf.KindLiteral, Value: "x"}), "<http://ex/s> <http://ex/p> \"x\" .\n"},
		{"lang literal", rdf.Triple(s, p, rdf.LangString("x", "en-GB")), "<http://ex/s> <http://ex/p> \"x\"@en-GB .\n"},
		{"typed literal", rdf.Triple(s, p, rdf.Literal("1", rdf.XSDInteger)), "<http://ex/s> <http://ex/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"},
		{"escaped literal", rdf.Triple(s, p, rdf.String("a\"b\\c\nd\re\tf\bg\fh\x01\x7fé")),
			"<http://ex/s> <http://ex/p> \"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001\\u007Fé\" .\n"},
		{"escaped IRI", rdf.Triple(rdf.IRI("http://ex/a b<>"), p, o), "<http://ex/a\\u0020b\\u003C\\u003E> <http://ex/p> <http://ex/o> .\n"},
		{"escaped datatype", rdf.Triple(s, p, rdf.Literal("x", "http://ex/d t")), "<http://ex/s> <http://ex/p> \"x\"^^<http://ex/d\\u0020t> .\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeAll(t, false, []rdf.Quad{tt.q})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestEncodeQuads(t *testing.T) {
	got, err := encodeAll(t, true, []rdf.Quad{{S: s, P: p, O: o, G: g}, rdf.Triple(s, p, o), {S: s, P: p, O: o, G: rdf.Blank("g")}})
	if err != nil {
		t.Fatal(err)
	}
	want := "<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> .\n<http://ex/s> <http://ex/p> <http://ex/o> .\n<http://ex/s> <http://ex/p> <http://ex/o> _:g .\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEncodeRejects(t *testing.T) {
	tests := []struct {
		name  string
		quads bool
		q     rdf.Quad
		msg   string
	}{
		{"named graph in N-Triples", false, rdf.Quad{S: s, P: p, O: o, G: g}, "named graph"},
		{"literal subject", false, rdf.Triple(rdf.String("x"), p, o), "subject"},
		{"blank predicate", false, rdf.Triple(s, rdf.Blank("p"), o), "predicate"},
		{"missing object", false, rdf.Quad{S: s, P: p}, "without object"},
		{"literal graph", true, rdf.Quad{S: s, P: p, O: o, G: rdf.String("g")}, "graph name"},
		{"invalid blank label", false, rdf.Triple(rdf.Blank("a b"), p, o), "blank node label"},
		{"blank label ending in dot", true, rdf.Quad{S: s, P: p, O: o, G: rdf.Blank("g.")}, "blank node label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := encodeAll(t, tt.quads, []rdf.Quad{tt.q})
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.msg)
			}
		})
	}
}

// Everything the encoder writes reads back as the same statements.
func TestRoundTrip(t *testing.T) {
	in := []rdf.Quad{
		rdf.Triple(s, p, rdf.String("tab\there \"q\" \\ é 😀 \x00")),
		rdf.Triple(rdf.IRI("http://ex/é{}|^`"), p, rdf.LangString("x", "en")),
		{S: rdf.Blank("xb1"), P: p, O: rdf.Literal("1", rdf.XSDInteger), G: g},
	}
	text, err := encodeAll(t, true, in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeAll(t, true, text)
	if err != nil {
		t.Fatalf("re-reading %q: %v", text, err)
	}
	if len(got) != len(in) {
		t.Fatalf("got %d statements, want %d", len(got), len(in))
	}
	for i := range in {
		if got[i] != in[i] {
			t.Errorf("statement %d: got %v, want %v", i, got[i], in[i])
		}
	}
}
