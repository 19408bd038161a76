// Package bench holds whole-system benchmarks that need generated data; bench/parse.sh runs them.
package bench

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
)

// BenchmarkParse decodes each file named in $LDHUB_BENCH_FILES (a list like PATH; syntax from the extension), parse
// only, and reports triples/s. It streams from the file (in the page cache after the first run) rather than from a
// copy in memory: a 180 MB buffer on the heap would make the collector let garbage pile up far beyond what the
// streaming decoders ever keep live, and measure cache misses instead of parsing. Without the variable there is
// nothing to measure and it skips.
func BenchmarkParse(b *testing.B) {
	files := filepath.SplitList(os.Getenv("LDHUB_BENCH_FILES"))
	if len(files) == 0 {
		b.Skip("set LDHUB_BENCH_FILES (bench/parse.sh does)")
	}
	reg := codec.Default()
	for _, f := range files {
		syn, ok := reg.ByPath(f)
		if !ok {
			b.Fatalf("%s: unknown extension", f)
		}
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(syn.Name, func(b *testing.B) {
			b.SetBytes(st.Size())
			var n int64
			for b.Loop() {
				n = 0
				in, err := os.Open(f)
				if err != nil {
					b.Fatal(err)
				}
				d := syn.NewDecoder(in, rdf.DecodeOptions{Base: "http://example.org/"})
				for {
					if _, err := d.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					n++
				}
				in.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
		})
	}
}
