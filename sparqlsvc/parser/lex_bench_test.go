package parser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
)

// BenchmarkLex only tokenizes the benchmark queries: the floor that BenchmarkParse (in parser_test) is compared
// against.
func BenchmarkLex(b *testing.B) {
	dir := conformance.BenchQueriesDir(b)
	files, _ := filepath.Glob(filepath.Join(dir, "*.rq"))
	if len(files) == 0 {
		b.Skipf("no benchmark queries in %s", dir)
	}
	var texts []string
	var size int64
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(text))
		size += int64(len(text))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	defer ReportCPU(b)()
	for b.Loop() {
		for _, q := range texts {
			l := lexer{src: q, line: 1, col: 1}
			for {
				t, err := l.next()
				if err != nil {
					b.Fatal(err)
				}
				if t.kind == tEOF {
					break
				}
			}
		}
	}
}
