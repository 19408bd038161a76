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

// benchInput returns the N-Triples document named by $LDHUB_BENCH_NT (bench/parse.sh sets it to the generated
// 1 M-triple file), or a synthetic document with the same mix of terms.
func benchInput(b *testing.B) []byte {
	b.Helper()
	if f := os.Getenv("LDHUB_BENCH_NT"); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
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
	data := benchInput(b)
	n := countLines(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := ntriples.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{})
		for {
			if _, err := d.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n*int64(b.N))/b.Elapsed().Seconds(), "triples/s")
}

// BenchmarkDecodeEncode is N-Triples to N-Triples in one goroutine.
func BenchmarkDecodeEncode(b *testing.B) {
	data := benchInput(b)
	n := countLines(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := ntriples.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{})
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
	}
	b.ReportMetric(float64(n*int64(b.N))/b.Elapsed().Seconds(), "triples/s")
}
