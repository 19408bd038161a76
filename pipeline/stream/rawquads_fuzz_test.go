package stream

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// FuzzRawQuadsStream: for any input, the fan-out's raw reading gives the statements and the error the decoder's
// Next gives, and the N-Quads dump written from them by the unchecked stream is byte for byte the encoder's.
// These two shortcuts are what an N-Triples upload goes through on its way to its dump.
func FuzzRawQuadsStream(f *testing.F) {
	f.Add(rawQuadsDoc(rand.New(rand.NewPCG(3, 4)), 40))
	f.Add("<http://ex.org/s> <http://ex.org/p> \"caf\\u00E9\\n\\\"q\\\"\"@fr-BE <http://ex.org/g> .\n_:b0 <http://ex.org/p> _:b0 .\n")
	f.Add("<http://ex.org/s> <http://ex.org/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> . # c\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		opts := func() rdf.DecodeOptions { return rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("b")} }
		want := ntriples.NewQuadDecoder(bytes.NewReader([]byte(in)), opts())
		raw := NewRawQuads(ntriples.NewQuadDecoder(bytes.NewReader([]byte(in)), opts()))
		var wantOut, gotOut bytes.Buffer
		enc := ntriples.NewQuadEncoder(&wantOut, rdf.EncodeOptions{})
		stream := NewNTriples(&gotOut)
		for i := 0; ; i++ {
			wq, werr := want.Next()
			var got rdf.Quad
			gerr := raw.Read(&got)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Fatalf("statement %d: error %v, want %v", i+1, gerr, werr)
			}
			if werr != nil {
				break
			}
			if got != wq {
				t.Fatalf("statement %d: got %v, want %v", i+1, got, wq)
			}
			if err := enc.Encode(wq); err != nil {
				t.Fatalf("encoder refused statement %d (%v): %v", i+1, wq, err)
			}
			if err := stream.Encode(got); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		if err := stream.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotOut.Bytes(), wantOut.Bytes()) {
			t.Fatalf("stream wrote\n%q\nthe encoder\n%q", gotOut.Bytes(), wantOut.Bytes())
		}
	})
}
