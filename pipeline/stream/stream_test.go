package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

func TestStreamJSONLDReadsBack(t *testing.T) {
	s, p, q := rdf.IRI("http://x/s"), rdf.IRI("http://x/p"), rdf.IRI("http://x/q")
	g := rdf.IRI("http://x/g")
	cases := []struct {
		name  string
		quads []rdf.Quad
	}{
		{"empty", nil},
		{"one", []rdf.Quad{rdf.Triple(s, p, rdf.String("v"))}},
		{"runs and repeats", []rdf.Quad{
			rdf.Triple(s, p, rdf.IRI("http://x/o1")), rdf.Triple(s, p, rdf.Blank("b1")),
			rdf.Triple(s, q, rdf.LangString("hallo", "nl")), rdf.Triple(s, p, rdf.Literal("3", rdf.XSDInteger)),
			rdf.Triple(rdf.Blank("b1"), q, rdf.String("quote \" and \u2028")),
			rdf.Triple(s, rdf.IRI(rdf.RDFType), rdf.IRI("http://x/C")),
		}},
		{"a node with more predicates than the short list holds, one repeated apart", func() []rdf.Quad {
			var qs []rdf.Quad
			for _, i := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
				23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 3, 40, 3, 39, 41} {
				qs = append(qs, rdf.Triple(s, rdf.IRI(fmt.Sprintf("http://x/p%d", i)), rdf.String(fmt.Sprint(len(qs)))))
			}
			return qs
		}()},
		{"named graphs", []rdf.Quad{
			{S: s, P: p, O: rdf.String("a"), G: g}, {S: s, P: p, O: rdf.String("b"), G: g},
			rdf.Triple(s, p, rdf.String("default")), {S: s, P: q, O: rdf.Blank("b2"), G: rdf.Blank("gb")},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := NewJSONLD(&buf)
			for _, q := range tc.quads {
				if err := enc.Encode(q); err != nil {
					t.Fatal(err)
				}
			}
			if err := enc.Close(); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("not JSON:\n%s", buf.String())
			}
			dec := jsonld.NewDecoder(bytes.NewReader(buf.Bytes()), rdf.DecodeOptions{})
			var got []rdf.Quad
			for {
				q, err := dec.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%v\n%s", err, buf.String())
				}
				got = append(got, q)
			}
			if !iso.Isomorphic(got, tc.quads) {
				t.Errorf("%s\n%s", iso.Diff(tc.quads, got), buf.String())
			}
		})
	}
}

func TestStreamTurtleReadsBack(t *testing.T) {
	s, p, q := rdf.IRI("http://x/s"), rdf.IRI("http://x/p"), rdf.IRI("http://x/q")
	cases := []struct {
		name  string
		quads []rdf.Quad
	}{
		{"empty", nil},
		{"runs", []rdf.Quad{
			rdf.Triple(s, p, rdf.IRI("http://x/o1")), rdf.Triple(s, p, rdf.Blank("b1")),
			rdf.Triple(s, q, rdf.LangString("hallo", "nl")), rdf.Triple(s, p, rdf.Literal("3", rdf.XSDInteger)),
			rdf.Triple(rdf.Blank("b1"), q, rdf.String("quote \" and \n newline")),
			rdf.Triple(s, rdf.IRI(rdf.RDFType), rdf.IRI("http://x/C")),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := NewTurtle(&buf)
			for _, q := range tc.quads {
				if err := enc.Encode(q); err != nil {
					t.Fatal(err)
				}
			}
			if err := enc.Close(); err != nil {
				t.Fatal(err)
			}
			dec := turtle.NewDecoder(bytes.NewReader(buf.Bytes()), rdf.DecodeOptions{})
			var got []rdf.Quad
			for {
				q, err := dec.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%v\n%s", err, buf.String())
				}
				got = append(got, q)
			}
			if !iso.Isomorphic(got, tc.quads) {
				t.Errorf("%s\n%s", iso.Diff(tc.quads, got), buf.String())
			}
		})
	}
	if err := NewTurtle(io.Discard).Encode(rdf.Quad{S: s, P: p, O: s, G: s}); err == nil {
		t.Error("a named graph was accepted")
	}
}

// TestAppendJSONStringIsEncodingJSON pins the hand-written quoting to encoding/json's, byte for byte, so that the
// JSON-LD dumps did not change when it replaced json.Marshal.
func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `quote " backslash \ slash /`, "tab\tnl\ncr\rbs\bff\f", "nul\x00 esc\x1b del\x7f",
		"<script>&amp;</script>", "line\u2028para\u2029", "bad \xff utf8 \xc3", "é ünïcödé 😀", "\xed\xa0\x80 surrogate"}
	for i := range 256 {
		cases = append(cases, string([]byte{byte(i), 'x', byte(255 - i)}))
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("keep"), s); string(got) != "keep"+string(want) {
			t.Errorf("%q: got %s, want %s", s, got[4:], want)
		}
	}
}

// TestAppendNTriplesIsRDFs pins the byte-slice term writer of the streaming Turtle encoder to rdf.AppendNTriples.
func TestAppendNTriplesIsRDFs(t *testing.T) {
	var odd []byte
	for c := range 256 {
		odd = append(odd, byte(c))
	}
	values := []string{"", "plain", string(odd), "é 😀 \u2028", `q"b\`, "\xff"}
	var terms []rdf.Term
	for _, v := range values {
		terms = append(terms, rdf.IRI("http://x/"+v), rdf.Blank("b"+v), rdf.String(v), rdf.LangString(v, "en-GB"),
			rdf.Literal(v, "http://x/dt "+v), rdf.Term{})
	}
	for _, term := range terms {
		var sb strings.Builder
		rdf.AppendNTriples(&sb, term)
		if got := ntriples.AppendTerm([]byte("keep"), term); string(got) != "keep"+sb.String() {
			t.Errorf("%#v: got %q, want %q", term, got[4:], sb.String())
		}
	}
}

// TestStreamNTriplesIsEncoder: the N-Triples/N-Quads stream writes what ntriples' encoder writes, byte for byte,
// for statements of an N-Quads upload (escapes, blank nodes, graphs, more subjects and predicates than its cache
// has slots, equal terms as shared and as separate strings).
func TestStreamNTriplesIsEncoder(t *testing.T) {
	doc := rawQuadsDoc(rand.New(rand.NewPCG(7, 8)), 20000)
	dec := ntriples.NewQuadDecoder(strings.NewReader(doc), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("b")})
	var want, got bytes.Buffer
	enc := ntriples.NewQuadEncoder(&want, rdf.EncodeOptions{})
	stream := NewNTriples(&got)
	for i := 0; ; i++ {
		q, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			q.S.Value, q.P.Value = strings.Clone(q.S.Value), strings.Clone(q.P.Value)
		}
		if i%1000 == 0 {
			q.P.Value = fmt.Sprintf("http://ex.org/many/p%d", i) // past the cache's slots
		}
		if err := enc.Encode(q); err != nil {
			t.Fatal(err)
		}
		if err := stream.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	if want.Len() < len(doc)/2 || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("stream wrote %d bytes, the encoder %d; they differ", got.Len(), want.Len())
	}
}
