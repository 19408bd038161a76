package stream

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

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
