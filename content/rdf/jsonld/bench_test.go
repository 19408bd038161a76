package jsonld_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// benchQuads is a publication-like graph: typed resources with labels, numbers, links and a blank node each.
func benchQuads(n int) []rdf.Quad {
	var qs []rdf.Quad
	for i := 0; i < n; i++ {
		s := rdf.IRI(fmt.Sprintf("http://data.example/item/%d", i))
		b := rdf.Blank(fmt.Sprintf("a%d", i))
		qs = append(qs,
			rdf.Triple(s, rdf.IRI(rdf.RDFType), rdf.IRI("http://schema.org/Thing")),
			rdf.Triple(s, rdf.IRI("http://schema.org/name"), rdf.LangString(fmt.Sprintf("Item number %d", i), "en")),
			rdf.Triple(s, rdf.IRI("http://schema.org/position"), rdf.Literal(fmt.Sprint(i), rdf.XSDInteger)),
			rdf.Triple(s, rdf.IRI("http://schema.org/isRelatedTo"), rdf.IRI(fmt.Sprintf("http://data.example/item/%d", (i+1)%n))),
			rdf.Triple(s, rdf.IRI("http://schema.org/address"), b),
			rdf.Triple(b, rdf.IRI("http://schema.org/streetAddress"), rdf.String(fmt.Sprintf("%d Main Street", i))),
		)
	}
	return qs
}

func benchDocs(b *testing.B, n int) (jsonLD, nquads []byte) {
	b.Helper()
	qs := benchQuads(n)
	var jl, nq bytes.Buffer
	enc := jsonld.NewEncoder(&jl, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "schema", IRI: "http://schema.org/"}}})
	nenc := ntriples.NewQuadEncoder(&nq, rdf.EncodeOptions{})
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			b.Fatal(err)
		}
		if err := nenc.Encode(q); err != nil {
			b.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		b.Fatal(err)
	}
	if err := nenc.Close(); err != nil {
		b.Fatal(err)
	}
	return jl.Bytes(), nq.Bytes()
}

func drain(b *testing.B, d rdf.Decoder) {
	if _, err := conformance.Drain(d); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDecode compares JSON-LD decoding with two references on the same graph: encoding/json alone (the
// floor every JSON-LD processor pays) and N-Quads decoding.
func BenchmarkDecode(b *testing.B) {
	jl, nq := benchDocs(b, 2000)
	b.Run("jsonld", func(b *testing.B) {
		b.SetBytes(int64(len(jl)))
		for i := 0; i < b.N; i++ {
			drain(b, jsonld.NewDecoder(bytes.NewReader(jl), rdf.DecodeOptions{Base: "http://data.example/"}))
		}
	})
	b.Run("ref-encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(jl)))
		for i := 0; i < b.N; i++ {
			var v any
			if err := json.Unmarshal(jl, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ref-nquads", func(b *testing.B) {
		b.SetBytes(int64(len(nq)))
		for i := 0; i < b.N; i++ {
			drain(b, ntriples.NewQuadDecoder(bytes.NewReader(nq), rdf.DecodeOptions{}))
		}
	})
}

// BenchmarkEncode compares compacted JSON-LD output with N-Quads output of the same graph.
func BenchmarkEncode(b *testing.B) {
	qs := benchQuads(2000)
	prefixes := []rdf.Prefix{{Name: "schema", IRI: "http://schema.org/"}}
	for _, tc := range []struct {
		name string
		enc  func(w io.Writer) rdf.Encoder
	}{
		{"jsonld-compact", func(w io.Writer) rdf.Encoder { return jsonld.NewEncoder(w, rdf.EncodeOptions{Prefixes: prefixes}) }},
		{"jsonld-expanded", func(w io.Writer) rdf.Encoder {
			return jsonld.NewEncoderWith(w, rdf.EncodeOptions{}, jsonld.EncodeConfig{Expanded: true})
		}},
		{"ref-nquads", func(w io.Writer) rdf.Encoder { return ntriples.NewQuadEncoder(w, rdf.EncodeOptions{}) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var sb strings.Builder
			for i := 0; i < b.N; i++ {
				sb.Reset()
				e := tc.enc(&sb)
				for _, q := range qs {
					if err := e.Encode(q); err != nil {
						b.Fatal(err)
					}
				}
				if err := e.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(sb.Len()))
		})
	}
}
