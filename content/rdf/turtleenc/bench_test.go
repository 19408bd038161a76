package turtleenc_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/turtleenc"
)

// benchQuads decodes the N-Triples document named by $LDHUB_BENCH_NT (the 1 M-triple file from
// /work/shared/bench/gen-data.py), or a synthetic BSBM-like graph of 100 k triples when it is not set.
func benchQuads(b *testing.B) []rdf.Quad {
	b.Helper()
	var data []byte
	if f := os.Getenv("LDHUB_BENCH_NT"); f != "" {
		var err error
		if data, err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
	} else {
		var buf bytes.Buffer
		for i := range 100000 {
			s := fmt.Sprintf("<http://example.org/bsbm/instances/Offer%d>", i/10)
			switch i % 5 {
			case 0:
				fmt.Fprintf(&buf, "%s <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/bsbm/vocabulary/Offer> .\n", s)
			case 1:
				fmt.Fprintf(&buf, "%s <http://www.w3.org/2000/01/rdf-schema#label> \"offer number %d\"@en .\n", s, i)
			case 2:
				fmt.Fprintf(&buf, "%s <http://example.org/bsbm/vocabulary/price> \"%d.50\"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n", s, i)
			case 3:
				fmt.Fprintf(&buf, "%s <http://example.org/bsbm/vocabulary/dimensions> _:d%d .\n_:d%d <http://example.org/bsbm/vocabulary/width> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n", s, i, i, i)
			case 4:
				fmt.Fprintf(&buf, "%s <http://www.w3.org/2000/01/rdf-schema#comment> \"a \\\"quoted\\\" comment\\nover two lines about item %d\" .\n", s, i)
			}
		}
		data = buf.Bytes()
	}
	d := ntriples.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")})
	var qs []rdf.Quad
	for {
		q, err := d.Next()
		if err == io.EOF {
			return qs
		}
		if err != nil {
			b.Fatal(err)
		}
		qs = append(qs, q)
	}
}

var benchPrefixes = []rdf.Prefix{
	{Name: "bsbm", IRI: "http://example.org/bsbm/vocabulary/"},
	{Name: "inst", IRI: "http://example.org/bsbm/instances/"},
	{Name: "rdf", IRI: rdf.RDFNS},
	{Name: "rdfs", IRI: "http://www.w3.org/2000/01/rdf-schema#"},
	{Name: "xsd", IRI: rdf.XSDNS},
	{Name: "dc", IRI: "http://purl.org/dc/elements/1.1/"},
	{Name: "foaf", IRI: "http://xmlns.com/foaf/0.1/"},
	{Name: "rev", IRI: "http://purl.org/stuff/rev#"},
}

func benchEncode(b *testing.B, newEnc func(io.Writer, rdf.EncodeOptions) rdf.Encoder) {
	qs := benchQuads(b)
	o := rdf.EncodeOptions{Prefixes: benchPrefixes}
	var out countWriter
	b.ReportAllocs()
	cpu := conformance.CPUTime()
	for b.Loop() {
		out = 0
		e := newEnc(&out, o)
		for _, q := range qs {
			if err := e.Encode(q); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	cpu = conformance.CPUTime() - cpu
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
	b.ReportMetric(float64(len(qs))*float64(b.N)/cpu.Seconds(), "triples/cpu-s")
	b.ReportMetric(float64(out), "outbytes")
}

type countWriter int64

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }

// BenchmarkEncodeTurtle is the pretty Turtle encoder over the whole graph (buffering, analysis, writing).
func BenchmarkEncodeTurtle(b *testing.B) {
	benchEncode(b, func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return turtleenc.NewEncoder(w, o) })
}

// BenchmarkEncodeNTriples is the reference: the streaming N-Triples encoder on the same quads in the same run.
func BenchmarkEncodeNTriples(b *testing.B) {
	benchEncode(b, func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return ntriples.NewEncoder(w, o) })
}
