package codec_test

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// copyInput opens $LDHUB_BENCH_NT (e.g. bench/parse.sh's 1 M-triple file) or a synthetic 100 k-line document.
func copyInput(b *testing.B) func() io.ReadCloser {
	if f := os.Getenv("LDHUB_BENCH_NT"); f != "" {
		return func() io.ReadCloser {
			in, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			return in
		}
	}
	doc := ntDoc(100000)
	return func() io.ReadCloser { return io.NopCloser(strings.NewReader(doc)) }
}

// BenchmarkCopy compares the pipelined codec.Copy with a plain decode/encode loop on one goroutine, N-Triples to
// N-Triples; on two idle cores the pipelined one should approach the slower of decoding and encoding alone.
func BenchmarkCopy(b *testing.B) {
	open := copyInput(b)
	b.Run("pipelined", func(b *testing.B) {
		for b.Loop() {
			in := open()
			enc := ntriples.NewEncoder(io.Discard, rdf.EncodeOptions{})
			if _, err := codec.Copy(context.Background(), enc, ntriples.NewDecoder(in, rdf.DecodeOptions{})); err != nil {
				b.Fatal(err)
			}
			if err := enc.Close(); err != nil {
				b.Fatal(err)
			}
			in.Close()
		}
	})
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			in := open()
			enc := ntriples.NewEncoder(io.Discard, rdf.EncodeOptions{})
			dec := ntriples.NewDecoder(in, rdf.DecodeOptions{})
			for {
				q, err := dec.Next()
				if err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
				if err := enc.Encode(q); err != nil {
					b.Fatal(err)
				}
			}
			if err := enc.Close(); err != nil {
				b.Fatal(err)
			}
			in.Close()
		}
	})
}
