package rdfjson_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/rdfjson"
)

func benchData(b *testing.B, n int) (rj, nt []byte, quads []rdf.Quad) {
	b.Helper()
	for i := 0; i < n; i++ {
		s := rdf.IRI(fmt.Sprintf("http://data.example/item/%d", i))
		quads = append(quads,
			rdf.Triple(s, rdf.IRI(rdf.RDFType), rdf.IRI("http://schema.org/Thing")),
			rdf.Triple(s, rdf.IRI("http://schema.org/name"), rdf.LangString(fmt.Sprintf("Item number %d", i), "en")),
			rdf.Triple(s, rdf.IRI("http://schema.org/position"), rdf.Literal(fmt.Sprint(i), rdf.XSDInteger)),
			rdf.Triple(s, rdf.IRI("http://schema.org/address"), rdf.Blank(fmt.Sprintf("a%d", i))),
		)
	}
	var rb, nb bytes.Buffer
	re, ne := rdfjson.NewEncoder(&rb, rdf.EncodeOptions{}), ntriples.NewEncoder(&nb, rdf.EncodeOptions{})
	for _, q := range quads {
		if err := re.Encode(q); err != nil {
			b.Fatal(err)
		}
		if err := ne.Encode(q); err != nil {
			b.Fatal(err)
		}
	}
	if err := re.Close(); err != nil {
		b.Fatal(err)
	}
	if err := ne.Close(); err != nil {
		b.Fatal(err)
	}
	return rb.Bytes(), nb.Bytes(), quads
}

func drain(b *testing.B, d rdf.Decoder) {
	if _, err := conformance.Drain(d); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDecode compares the streaming RDF/JSON decoder with encoding/json building a tree of the same bytes
// and with N-Triples decoding of the same graph.
func BenchmarkDecode(b *testing.B) {
	rj, nt, _ := benchData(b, 5000)
	b.Run("rdfjson", func(b *testing.B) {
		b.SetBytes(int64(len(rj)))
		for i := 0; i < b.N; i++ {
			drain(b, rdfjson.NewDecoder(bytes.NewReader(rj), rdf.DecodeOptions{}))
		}
	})
	b.Run("ref-encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(rj)))
		for i := 0; i < b.N; i++ {
			var v any
			if err := json.Unmarshal(rj, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ref-ntriples", func(b *testing.B) {
		b.SetBytes(int64(len(nt)))
		for i := 0; i < b.N; i++ {
			drain(b, ntriples.NewDecoder(bytes.NewReader(nt), rdf.DecodeOptions{}))
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	rj, _, quads := benchData(b, 5000)
	b.SetBytes(int64(len(rj)))
	for i := 0; i < b.N; i++ {
		e := rdfjson.NewEncoder(io.Discard, rdf.EncodeOptions{})
		for _, q := range quads {
			if err := e.Encode(q); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
