package turtleenc_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/turtle"
	"github.com/ldhub/ldhub/content/rdf/turtleenc"
)

func streamQuads() []rdf.Quad {
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	g := ex("g")
	return []rdf.Quad{
		rdf.Triple(ex("s"), rdf.IRI(rdf.RDFType), ex("T")),
		rdf.Triple(ex("s"), ex("p"), rdf.String("one")),
		rdf.Triple(ex("s"), ex("p"), rdf.String("two\nlines \"quoted\"")),
		rdf.Triple(ex("s"), ex("q"), rdf.Literal("42", rdf.XSDInteger)),
		rdf.Triple(ex("s"), ex("q"), rdf.Literal("01", rdf.XSDInteger)),
		rdf.Triple(ex("s"), ex("r"), rdf.LangString("chat", "fr")),
		rdf.Triple(rdf.Blank("b1"), ex("p"), rdf.Blank("weird.label-")),
		rdf.Triple(rdf.IRI("http://other.example/x#y"), ex("a/b"), rdf.IRI("urn:x:1")),
		{S: ex("s"), P: ex("p"), O: rdf.String("in g"), G: g},
		{S: ex("t"), P: ex("p"), O: ex("s"), G: g},
		{S: rdf.Blank("b1"), P: ex("p"), O: rdf.String("in a blank graph"), G: rdf.Blank("gb")},
		rdf.Triple(ex("s"), ex("p"), rdf.String("subject again, ungrouped")),
	}
}

// TestStreamEncoderRoundTrip: what the streaming encoders write reads back as the same dataset, with the prefixes
// used and declared up front.
func TestStreamEncoderRoundTrip(t *testing.T) {
	ps := []rdf.Prefix{{Name: "ex", IRI: "http://ex.org/"}}
	for _, trig := range []bool{false, true} {
		var in []rdf.Quad
		for _, q := range streamQuads() {
			if trig || q.G.IsZero() {
				in = append(in, q)
			}
		}
		var buf bytes.Buffer
		var enc rdf.Encoder = turtleenc.NewStreamEncoder(&buf, rdf.EncodeOptions{Prefixes: ps})
		var dec rdf.Decoder
		if trig {
			enc = turtleenc.NewTriGStreamEncoder(&buf, rdf.EncodeOptions{Prefixes: ps})
		}
		for _, q := range in {
			if err := enc.Encode(q); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.HasPrefix(out, "@prefix ex: <http://ex.org/> .\n") || !strings.Contains(out, "ex:s a ex:T ;") {
			t.Errorf("trig=%v: prefixes not used:\n%s", trig, out)
		}
		if trig {
			dec = turtle.NewTriGDecoder(strings.NewReader(out), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("r")})
		} else {
			dec = turtle.NewDecoder(strings.NewReader(out), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("r")})
		}
		var got []rdf.Quad
		for {
			q, err := dec.Next()
			if err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("trig=%v: %v\n%s", trig, err, out)
				}
				break
			}
			got = append(got, q)
		}
		if !iso.Isomorphic(got, in) {
			t.Errorf("trig=%v:\n%s\n%s", trig, iso.Diff(got, in), out)
		}
	}
}

func TestStreamEncoderRejects(t *testing.T) {
	var buf bytes.Buffer
	enc := turtleenc.NewStreamEncoder(&buf, rdf.EncodeOptions{})
	if err := enc.Encode(rdf.Quad{S: rdf.IRI("http://ex/s"), P: rdf.IRI("http://ex/p"), O: rdf.String("x"), G: rdf.IRI("http://ex/g")}); err == nil {
		t.Error("Turtle accepted a named graph")
	}
	if err := enc.Encode(rdf.Triple(rdf.IRI("http://ex/s p"), rdf.IRI("http://ex/p"), rdf.String("x"))); err == nil {
		t.Error("accepted an IRI with a space")
	}
}

func TestStreamEncoderReadsBack(t *testing.T) {
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
			enc := turtleenc.NewStreamEncoder(&buf, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "x", IRI: "http://x/"}}})
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
	if err := turtleenc.NewStreamEncoder(io.Discard, rdf.EncodeOptions{}).Encode(rdf.Quad{S: s, P: p, O: s, G: s}); err == nil {
		t.Error("a named graph was accepted")
	}
}
