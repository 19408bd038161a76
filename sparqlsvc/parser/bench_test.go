package parser_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// benchQueries loads the benchmark queries of ../shared/bench/queries (not in the repository).
func benchQueries(b *testing.B) (names []string, texts []string, size int64) {
	b.Helper()
	dir := conformance.BenchQueriesDir(b)
	files, err := filepath.Glob(filepath.Join(dir, "*.rq"))
	if err != nil || len(files) == 0 {
		b.Skipf("no benchmark queries in %s", dir)
	}
	sort.Strings(files)
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		names = append(names, filepath.Base(f))
		texts = append(texts, string(text))
		size += int64(len(text))
	}
	return names, texts, size
}

// BenchmarkParse parses and translates all benchmark queries per iteration; BenchmarkParseSyntax stops at the
// syntax tree, so the two together show what the translation costs.
func BenchmarkParse(b *testing.B) {
	_, texts, size := benchQueries(b)
	b.SetBytes(size)
	b.ReportAllocs()
	defer parser.ReportCPU(b)()
	for b.Loop() {
		for _, q := range texts {
			if _, err := parser.Parse(q, parser.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkParseSyntax(b *testing.B) {
	_, texts, size := benchQueries(b)
	b.SetBytes(size)
	b.ReportAllocs()
	defer parser.ReportCPU(b)()
	for b.Loop() {
		for _, q := range texts {
			if _, err := parser.ParseSyntax(q, parser.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParseEach reports each query on its own.
func BenchmarkParseEach(b *testing.B) {
	names, texts, _ := benchQueries(b)
	for i, name := range names {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(texts[i])))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parser.Parse(texts[i], parser.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
