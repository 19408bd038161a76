package jsonld_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
)

// TestStreamEncoderRoundTrip: the streaming encoder's output is JSON, uses the prefixes, and reads back as the
// same dataset, grouped or not.
func TestStreamEncoderRoundTrip(t *testing.T) {
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	quads := []rdf.Quad{
		rdf.Triple(ex("s"), rdf.IRI(rdf.RDFType), ex("T")),
		rdf.Triple(ex("s"), rdf.IRI(rdf.RDFType), rdf.String("a literal type")),
		rdf.Triple(ex("s"), ex("p"), rdf.String("one")),
		rdf.Triple(ex("s"), ex("p"), rdf.String("two \"<&>\"\n\u2028")),
		rdf.Triple(ex("s"), ex("q"), rdf.Literal("01", rdf.XSDInteger)),
		rdf.Triple(ex("s"), ex("r"), rdf.LangString("chat", "fr")),
		rdf.Triple(ex("s"), ex("p"), rdf.String("p again, ungrouped")),
		rdf.Triple(rdf.Blank("b1"), ex("p"), rdf.Blank("b2")),
		rdf.Triple(rdf.IRI("http://other.example/x#y"), ex("//odd"), rdf.IRI("urn:x:1")),
		{S: ex("s"), P: ex("p"), O: rdf.String("in g"), G: ex("g")},
		{S: ex("t"), P: ex("p"), O: ex("s"), G: ex("g")},
		{S: rdf.Blank("b1"), P: ex("p"), O: rdf.String("in a blank graph"), G: rdf.Blank("gb")},
	}
	var buf bytes.Buffer
	enc := jsonld.NewStreamEncoder(&buf, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: "http://ex.org/"},
		{Name: "urn", IRI: "urn:x:"}}})
	for _, q := range quads {
		if err := enc.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !json.Valid(buf.Bytes()) {
		t.Fatalf("not JSON:\n%s", out)
	}
	if !strings.Contains(out, `{"@id":"ex:s","@type":["ex:T"]`) || strings.Contains(out, `"urn"`) {
		t.Errorf("prefixes not used as expected:\n%s", out)
	}
	got, _, err := decode(t, out, rdf.DecodeOptions{}, jsonld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !iso.Isomorphic(got, quads) {
		t.Errorf("%s\n%s", iso.Diff(got, quads), out)
	}
}

func TestStreamEncoderRefusesConfusableIRI(t *testing.T) {
	enc := jsonld.NewStreamEncoder(&bytes.Buffer{}, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "x", IRI: "http://x.org/"}}})
	if err := enc.Encode(rdf.Triple(rdf.IRI("x:y"), rdf.IRI("http://ex/p"), rdf.String("v"))); err == nil {
		t.Error("wrote x:y, which reads as http://x.org/y")
	}
}

func TestStreamEncoderReadsBack(t *testing.T) {
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
			enc := jsonld.NewStreamEncoder(&buf, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "x", IRI: "http://x/"}}})
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
