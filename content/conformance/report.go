// Package conformance holds what the W3C suite runners share: reading manifests, and reporting scores in the
// one format every runner prints (`<suite>: N passed, N failed` plus the failing test names).
package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf/rdftest"
)

// Result is the outcome of one suite run.
type Result struct {
	Suite  string
	Passed int
	// Failed maps a failing test's name to why it failed.
	Failed map[string]string
	// Known maps test names to the documented reason they are expected to fail (docs/conformance.md). A known
	// failure still counts as failed in the score, but does not fail the Go test.
	Known map[string]string
}

// Fail records a failing test.
func (r *Result) Fail(name, why string) {
	if r.Failed == nil {
		r.Failed = map[string]string{}
	}
	r.Failed[name] = why
}

// Report prints the score line and the failing names, writes them to $LDHUB_REPORT_DIR/<suite>.txt when that is
// set (so `make test` can print every suite's score at the end), and fails t for every failure that is not known.
// A known failure that now passes is also reported, so the list in docs/conformance.md stays true.
func Report(t testing.TB, r Result) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d passed, %d failed\n", r.Suite, r.Passed, len(r.Failed))
	names := make([]string, 0, len(r.Failed))
	for n := range r.Failed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tag := "FAIL"
		if _, ok := r.Known[n]; ok {
			tag = "known"
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", tag, n, oneLine(r.Failed[n]))
	}
	fmt.Print(b.String())
	if dir := os.Getenv("LDHUB_REPORT_DIR"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err == nil {
			name := strings.Map(func(c rune) rune {
				if c == '/' || c == ' ' {
					return '_'
				}
				return c
			}, r.Suite)
			_ = os.WriteFile(filepath.Join(dir, name+".txt"), []byte(b.String()), 0o644)
		}
	}
	for _, n := range names {
		if _, ok := r.Known[n]; !ok {
			t.Errorf("%s: %s failed: %s", r.Suite, n, oneLine(r.Failed[n]))
		}
	}
	for n := range r.Known {
		if _, failed := r.Failed[n]; !failed {
			t.Errorf("%s: %s is listed as a known failure but passes now; remove it from the list", r.Suite, n)
		}
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// SuitesDir returns the folder of the W3C suites: $LDHUB_TESTSUITES, else testdata/w3c below the module root (an
// unmodified copy kept in the repository, so a fresh clone runs every suite). A missing folder fails the test: a
// skipped runner would pass having checked nothing.
func SuitesDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("LDHUB_TESTSUITES")
	if d == "" {
		d = filepath.Join(rdftest.ModuleRoot(t), "testdata", "w3c")
	}
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("W3C test suites not found at %s (set LDHUB_TESTSUITES or restore testdata/w3c)", d)
	}
	return d
}

// BenchQueriesDir returns the folder of the SPARQL benchmark queries, which are not part of the repository:
// ../shared/bench/queries beside the module root, or bench/queries beside $LDHUB_TESTSUITES when that is set.
func BenchQueriesDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("LDHUB_TESTSUITES"); d != "" {
		return filepath.Join(filepath.Dir(d), "bench", "queries")
	}
	return filepath.Join(filepath.Dir(rdftest.ModuleRoot(t)), "shared", "bench", "queries")
}

// Missing reports that a tool a test drives is not installed: the test is skipped with the reason on a developer's
// machine, and fails under CI=true, where .ci/run must have installed it.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (required under CI=true: .ci/run installs it)", what)
	}
	t.Skip(what)
}
