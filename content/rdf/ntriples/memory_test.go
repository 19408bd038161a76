package ntriples_test

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// lineSource produces n distinct N-Triples lines on demand, so the input itself never sits in memory.
type lineSource struct {
	i, n    int
	pending []byte
}

func (s *lineSource) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.i == s.n {
			return 0, io.EOF
		}
		s.pending = fmt.Appendf(s.pending[:0], "<http://ex/s%d> <http://ex/p%d> \"value %d with a \\\"quote\\\"\"@en .\n", s.i, s.i%7, s.i)
		s.i++
	}
	k := copy(p, s.pending)
	s.pending = s.pending[k:]
	return k, nil
}

// Decoding and re-encoding keeps the live heap flat: what is live after 50 k statements is what is live after
// 400 k (no blank nodes, so the only per-document table stays empty).
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 400 k statements")
	}
	const n, every = 400000, 50000
	d := ntriples.NewDecoder(&lineSource{n: n}, rdf.DecodeOptions{})
	e := ntriples.NewEncoder(io.Discard, rdf.EncodeOptions{})
	var samples []uint64
	for i := 1; ; i++ {
		q, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Encode(q); err != nil {
			t.Fatal(err)
		}
		if i%every == 0 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			samples = append(samples, ms.HeapAlloc)
		}
	}
	if len(samples) != n/every {
		t.Fatalf("took %d samples, want %d", len(samples), n/every)
	}
	first, last := samples[0], samples[len(samples)-1]
	if last > first+(1<<20) {
		t.Errorf("live heap grew from %d to %d bytes over %d statements (samples %v)", first, last, n, samples)
	}
}
