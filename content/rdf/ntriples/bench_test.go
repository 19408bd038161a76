package ntriples_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// benchInput returns an opener for the N-Triples file named by $LDHUB_BENCH_NT (e.g. the 1 M-triple file of
// bench/parse.sh), streamed from disk so that a huge buffer on the heap does not distort the collector's pacing,
// or for a small synthetic document with the same mix of terms, and the document's size and statement count.
func benchInput(b *testing.B) (open func() io.ReadCloser, size, n int64) {
	b.Helper()
	if f := os.Getenv("LDHUB_BENCH_NT"); f != "" {
		in, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 1<<20)
		for {
			k, err := in.Read(buf)
			size += int64(k)
			n += countLines(buf[:k])
			if err != nil {
				break
			}
		}
		in.Close()
		return func() io.ReadCloser {
			in, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			return in
		}, size, n
	}
	data := synthetic()
	return func() io.ReadCloser { return io.NopCloser(bytes.NewReader(data)) }, int64(len(data)), countLines(data)
}

func synthetic() []byte {
	var buf bytes.Buffer
	for i := 0; i < 20000; i++ {
		s := fmt.Sprintf("<http://example.org/bsbm/instances/Offer%d>", i/10)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&buf, "%s <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/bsbm/vocabulary/Offer> .\n", s)
		case 1:
			fmt.Fprintf(&buf, "%s <http://www.w3.org/2000/01/rdf-schema#label> \"offer number %d\"@en .\n", s, i)
		case 2:
			fmt.Fprintf(&buf, "%s <http://example.org/bsbm/vocabulary/price> \"%d.50\"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n", s, i)
		case 3:
			fmt.Fprintf(&buf, "%s <http://example.org/bsbm/vocabulary/dimensions> _:d%d .\n", s, i)
		case 4:
			fmt.Fprintf(&buf, "%s <http://www.w3.org/2000/01/rdf-schema#comment> \"a \\\"quoted\\\" comment\\nover two lines about item %d\" .\n", s, i)
		}
	}
	return buf.Bytes()
}

func countLines(data []byte) int64 { return int64(bytes.Count(data, []byte{'\n'})) }

// BenchmarkDecode is parse only; the metric triples/s is what bench/parse.sh reports.
func BenchmarkDecode(b *testing.B) {
	open, size, n := benchInput(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		in := open()
		d := ntriples.NewDecoder(in, rdf.DecodeOptions{})
		for {
			if _, err := d.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		in.Close()
	}
	b.ReportMetric(float64(n*int64(b.N))/b.Elapsed().Seconds(), "triples/s")
}

// BenchmarkDecodeEncode is N-Triples to N-Triples in one goroutine.
func BenchmarkDecodeEncode(b *testing.B) {
	open, size, n := benchInput(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		in := open()
		d := ntriples.NewDecoder(in, rdf.DecodeOptions{})
		e := ntriples.NewEncoder(io.Discard, rdf.EncodeOptions{})
		for {
			q, err := d.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			if err := e.Encode(q); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
		in.Close()
	}
	b.ReportMetric(float64(n*int64(b.N))/b.Elapsed().Seconds(), "triples/s")
}
