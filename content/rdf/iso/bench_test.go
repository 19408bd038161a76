package iso_test

import (
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// BenchmarkIsomorphic compares a graph with a shuffled, relabelled copy of itself: the N-Triples file named by
// $LDHUB_BENCH_NT (e.g. BSBM data from bench/parse.sh), or else a synthetic graph of 20 k blank-node records.
func BenchmarkIsomorphic(b *testing.B) {
	a, c := benchGraphs(b)
	b.ReportMetric(float64(len(a)), "statements")
	for b.Loop() {
		if !iso.Isomorphic(a, c) {
			b.Fatal("copies reported different")
		}
	}
}

func benchGraphs(b *testing.B) (x, y []rdf.Quad) {
	read := func(r io.Reader, prefix string) []rdf.Quad {
		d := ntriples.NewDecoder(r, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes(prefix)})
		var out []rdf.Quad
		for {
			q, err := d.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, q)
		}
	}
	open := func() io.ReadCloser {
		if f := os.Getenv("LDHUB_BENCH_NT"); f != "" {
			in, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			return in
		}
		return io.NopCloser(&records{n: 20000})
	}
	in := open()
	x = read(in, "x")
	in.Close()
	in = open()
	y = read(in, "y")
	in.Close()
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
	return x, y
}

// records writes n blank-node records of three statements each, many of them alike.
type records struct {
	i, n    int
	pending []byte
}

func (r *records) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.i == r.n {
			return 0, io.EOF
		}
		k := r.i % 50
		r.pending = append(r.pending[:0], "_:r"...)
		r.pending = append(r.pending, itoa(r.i)...)
		r.pending = append(r.pending, " <http://ex/kind> \"k"...)
		r.pending = append(r.pending, itoa(k)...)
		r.pending = append(r.pending, "\" .\n_:r"...)
		r.pending = append(r.pending, itoa(r.i)...)
		r.pending = append(r.pending, " <http://ex/next> _:r"...)
		r.pending = append(r.pending, itoa((r.i+1)%r.n)...)
		r.pending = append(r.pending, " .\n"...)
		r.i++
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for ; i > 0; i /= 10 {
		n--
		b[n] = byte('0' + i%10)
	}
	return string(b[n:])
}
