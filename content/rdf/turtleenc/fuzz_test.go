package turtleenc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

// FuzzRoundTrip parses arbitrary TriG with our decoder and requires whatever it yields to survive encoding and
// decoding unchanged, with the document's own prefixes and base. The seeds are the W3C Turtle and TriG inputs.
func FuzzRoundTrip(f *testing.F) {
	dir := conformance.SuitesDir(f)
	for _, glob := range []string{"rdf/rdf11/rdf-turtle/*.ttl", "rdf/rdf11/rdf-trig/*.trig"} {
		files, _ := filepath.Glob(filepath.Join(dir, glob))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil && len(data) < 4096 {
				f.Add(string(data))
			}
		}
	}
	f.Add("@prefix : <http://ex/> . :s :p [ :q ( 1 [ :r _:x ] ) ] . _:x :p _:x .")
	f.Fuzz(func(t *testing.T, doc string) {
		// Turtle is UTF-8; what the decoder makes of other bytes is its business, and Encode rejects it anyway.
		if len(doc) > 4096 || !utf8.ValidString(doc) {
			return
		}
		d := turtle.NewTriGDecoder(strings.NewReader(doc), rdf.DecodeOptions{
			Base: "http://fuzz.example/dir/doc", Blanks: rdf.NewBlankNodes(""), Limits: rdf.Limits{MaxDepth: 64}})
		qs, err := conformance.ReadAll(d)
		if err != nil || len(qs) > 200 {
			return
		}
		named := false
		for _, q := range qs {
			for _, term := range []rdf.Term{q.S, q.P, q.O, q.G, rdf.IRI(q.O.Datatype)} {
				// Dot segments in an absolute IRI are normalised by resolving readers; see TestDotSegments.
				if term.IsIRI() && term.Value != "" {
					if r, err := iri.Resolve(term.Value, term.Value); err != nil || r != term.Value {
						return
					}
				}
			}
			named = named || !q.G.IsZero()
		}
		o := rdf.EncodeOptions{Prefixes: d.Prefixes(), Base: d.Base()}
		if _, why := roundTrip(qs, true, o); why != "" {
			t.Fatalf("TriG: %s", why)
		}
		if !named {
			if _, why := roundTrip(qs, false, o); why != "" {
				t.Fatalf("Turtle: %s", why)
			}
		}
	})
}
