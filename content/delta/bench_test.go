package delta_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
func diffFiles(b *testing.B, pa, pb string) (added, removed int) {
	da, ca := decoder(b, pa)
	defer ca()
	db, cb := decoder(b, pb)
	defer cb()
	add, rem, err := delta.ComputeDecoders(context.Background(), da, db, delta.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return len(add), len(rem)
}

// BenchmarkDelta1M compares parse+diff of two 1 M-triple versions differing in 1% of their triples with the
// shell reference `LC_ALL=C sort` of both files + `comm -3`, in the same run so the ratio is meaningful on a shared
// machine. Run: go test -run '^$' -bench Delta1M -benchtime 1x -count 5 ./content/delta
func BenchmarkDelta1M(b *testing.B) {
	dir := benchFiles(b)
	a, v2 := filepath.Join(dir, "a.nt"), filepath.Join(dir, "b.nt")
	b.Run("ground/sort+comm", func(b *testing.B) {
		tmp := b.TempDir()
		script := `LC_ALL=C sort "$1" >"$3/a" && LC_ALL=C sort "$2" >"$3/b" && LC_ALL=C comm -3 "$3/a" "$3/b" | wc -l`
		for b.Loop() {
			out, err := exec.Command("sh", "-c", script, "sh", a, v2, tmp).Output()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(atoi(b, out)), "changed")
		}
	})
	b.Run("ground/parse+diff", func(b *testing.B) {
		for b.Loop() {
			add, rem := diffFiles(b, a, v2)
			b.ReportMetric(float64(add+rem), "changed")
		}
	})
	b.Run("blank/parse+canon+diff", func(b *testing.B) {
		for b.Loop() {
			add, rem := diffFiles(b, filepath.Join(dir, "ab.nt"), filepath.Join(dir, "bb.nt"))
			b.ReportMetric(float64(add+rem), "changed")
		}
	})
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
