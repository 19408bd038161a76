package index_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// benchQuads reads $LDHUB_BENCH_NT (default /tmp/bsbm-1m.nt from ../shared/bench/gen-data.py).
func benchQuads(b *testing.B) []rdf.Quad {
	path := os.Getenv("LDHUB_BENCH_NT")
	if path == "" {
		path = "/tmp/bsbm-1m.nt"
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("benchmark data missing: %v (generate with gen-data.py 1000000 -o %s)", err, path)
	}
	defer f.Close()
	dec := ntriples.NewDecoder(f, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")})
	var qs []rdf.Quad
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return qs
		}
		if err != nil {
			b.Fatal(err)
		}
		qs = append(qs, q)
	}
}

// BenchmarkBuild measures dictionary encoding plus the three sorted permutations (parsing excluded).
func BenchmarkBuild(b *testing.B) {
	qs := benchQuads(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bl := index.NewBuilder()
		for _, q := range qs {
			if err := bl.Add(q); err != nil {
				b.Fatal(err)
			}
		}
		bl.Build()
	}
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
}

// BenchmarkOpen measures opening a saved index and the heap it costs.
func BenchmarkOpen(b *testing.B) {
	qs := benchQuads(b)
	bl := index.NewBuilder()
	for _, q := range qs {
		_ = bl.Add(q)
	}
	path := filepath.Join(b.TempDir(), "bench.idx")
	if err := bl.Build().Save(path); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(path)
	qs = nil
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := index.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MiB")
}

// BenchmarkBuildFromNTriples is the pipeline's path: parse N-Triples and build the index in one pass. Compare with
// Oxigraph's load of the same file (../shared/bench/oxigraph-bench.mjs; ~7.8 s for 1 M triples here).
func BenchmarkBuildFromNTriples(b *testing.B) {
	path := os.Getenv("LDHUB_BENCH_NT")
	if path == "" {
		path = "/tmp/bsbm-1m.nt"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("benchmark data missing: %v", err)
	}
	var n int
	cpu0 := conformance.CPUTime()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		d, err := index.BuildFrom(b.Context(), ntriples.NewDecoder(f, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")}))
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		n = d.Default.Len()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
	// On the shared machine wall time follows the load; CPU time (both cores) shows what a change saved.
	b.ReportMetric((conformance.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
