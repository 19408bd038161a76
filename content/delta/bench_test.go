//go:build unix

package delta_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/delta"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// benchFiles returns the directory made by testdata/make-bench-data.sh ($LDHUB_DELTA_BENCH, default
// /tmp/ldhub-delta-bench), skipping when it has not been generated.
func benchFiles(b *testing.B) string {
	dir := os.Getenv("LDHUB_DELTA_BENCH")
	if dir == "" {
		dir = "/tmp/ldhub-delta-bench"
	}
	for _, f := range []string{"a.nt", "b.nt", "ab.nt", "bb.nt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			b.Skipf("%v: run content/delta/testdata/make-bench-data.sh first", err)
		}
	}
	return dir
}

func decoder(b *testing.B, path string) (rdf.Decoder, func()) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	return ntriples.NewDecoder(f, rdf.DecodeOptions{}), func() { f.Close() }
}

// diffFiles is the whole job: parse both versions (concurrently) and diff them.
func diffFiles(b *testing.B, pa, pb string, o delta.Options) (added, removed int) {
	da, ca := decoder(b, pa)
	defer ca()
	db, cb := decoder(b, pb)
	defer cb()
	add, rem, err := delta.ComputeDecoders(context.Background(), da, db, o)
	if err != nil {
		b.Fatal(err)
	}
	return len(add), len(rem)
}

// BenchmarkDelta1M compares parse+diff of two 1 M-triple versions differing in 1% of their triples with the
// shell reference `LC_ALL=C sort` of both files + `comm -3`. Every iteration runs both, one right after the other,
// so each ratio compares runs under the same load on a shared machine; the metrics are medians over iterations.
// Run: go test -run '^$' -bench Delta1M -benchtime 5x ./content/delta
func BenchmarkDelta1M(b *testing.B) {
	dir := benchFiles(b)
	tmp := b.TempDir()
	script := `LC_ALL=C sort "$1" >"$3/a" && LC_ALL=C sort "$2" >"$3/b" && LC_ALL=C comm -3 "$3/a" "$3/b" | wc -l`
	sortComm := func(pa, pb string) int {
		out, err := exec.Command("sh", "-c", script, "sh", pa, pb, tmp).Output()
		if err != nil {
			b.Fatal(err)
		}
		return atoi(b, out)
	}
	for _, tc := range []struct {
		name, a, b string
		o          delta.Options
	}{
		{"ground", "a.nt", "b.nt", delta.Options{}},
		{"blank", "ab.nt", "bb.nt", delta.Options{}},
		{"blank-hashlabels", "ab.nt", "bb.nt", delta.Options{HashLabels: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			pa, pb := filepath.Join(dir, tc.a), filepath.Join(dir, tc.b)
			var ref, ours, ratio, refCPU, oursCPU, ratioCPU []float64
			var changed, lines int
			for b.Loop() {
				start, cpu := time.Now(), conformance.ChildrenCPUTime().Seconds()
				lines = sortComm(pa, pb)
				ref = append(ref, time.Since(start).Seconds())
				refCPU = append(refCPU, conformance.ChildrenCPUTime().Seconds()-cpu)
				start, cpu = time.Now(), conformance.CPUTime().Seconds()
				add, rem := diffFiles(b, pa, pb, tc.o)
				ours = append(ours, time.Since(start).Seconds())
				oursCPU = append(oursCPU, conformance.CPUTime().Seconds()-cpu)
				ratio = append(ratio, ours[len(ours)-1]/ref[len(ref)-1])
				ratioCPU = append(ratioCPU, oursCPU[len(oursCPU)-1]/refCPU[len(refCPU)-1])
				changed = add + rem
			}
			b.ReportMetric(median(ref), "sort+comm-s")
			b.ReportMetric(median(ours), "delta-s")
			b.ReportMetric(median(ratio), "delta/sort+comm")
			// CPU time (user+system, children for the shell tools) moves less with the load on a shared machine.
			b.ReportMetric(median(refCPU), "sort+comm-cpu-s")
			b.ReportMetric(median(oursCPU), "delta-cpu-s")
			b.ReportMetric(median(ratioCPU), "cpu-delta/sort+comm")
			b.ReportMetric(float64(changed), "changed")
			b.ReportMetric(float64(lines), "comm-lines")
		})
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// BenchmarkDiffOnly1M separates the diff from parsing: both versions are parsed once, outside the timer.
func BenchmarkDiffOnly1M(b *testing.B) {
	dir := benchFiles(b)
	for _, tc := range []struct{ name, a, b string }{{"ground", "a.nt", "b.nt"}, {"blank", "ab.nt", "bb.nt"}} {
		b.Run(tc.name, func(b *testing.B) {
			qa, qb := readFile(b, filepath.Join(dir, tc.a)), readFile(b, filepath.Join(dir, tc.b))
			for b.Loop() {
				if _, _, err := delta.Compute(context.Background(), qa, qb, delta.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func readFile(b *testing.B, path string) []rdf.Quad {
	dec, done := decoder(b, path)
	defer done()
	var qs []rdf.Quad
	for {
		q, err := dec.Next()
		if err != nil {
			if err.Error() == "EOF" {
				return qs
			}
			b.Fatal(err)
		}
		qs = append(qs, q)
	}
}

func atoi(b *testing.B, out []byte) int {
	n := 0
	for _, c := range out {
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		}
	}
	return n
}
