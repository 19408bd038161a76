package eval_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestGrowingStringsStopAtTheBudget: CONCAT and REPLACE can build strings many times their arguments' size
// within one row, and a BIND's value is not interned (so not charged) before the next BIND reads it. A chain of
// BIND(CONCAT(?x, ?x)) doubled a 16-byte label 30 times (16 GiB) and took an `ldhub serve` to 9.6 GB for minutes, past its
// time limit. Such a query must stop with ErrTooLarge (not an unbound value, which would hide that the answer is
// not whole), while the same functions within the budget keep their answers.
func TestGrowingStringsStopAtTheBudget(t *testing.T) {
	s := rdf.IRI("http://ex.org/s")
	ds := eval.FromIndex(build(t, []rdf.Quad{rdf.Triple(s, rdf.IRI("http://ex.org/label"), rdf.String("ablative classic"))}))
	run := func(src string) (*eval.Result, error) {
		t.Helper()
		q := eval.MustParse(t, src)
		return eval.Run(context.Background(), ds, q, eval.Options{MaxMemory: 256 << 10, Timeout: time.Minute})
	}
	doublings := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "BIND(CONCAT(?l%d, ?l%d) AS ?l%d) ", i, i, i+1)
		}
		return fmt.Sprintf("SELECT (STRLEN(?l%d) AS ?n) { ?s <http://ex.org/label> ?l0 %s}", n, b.String())
	}
	nested := func(n int, pattern, repl string) string {
		x := "?l"
		for range n {
			x = fmt.Sprintf("REPLACE(%s, %q, %q)", x, pattern, repl)
		}
		return fmt.Sprintf("SELECT (STRLEN(%s) AS ?n) { ?s <http://ex.org/label> ?l }", x)
	}
	for _, c := range []struct {
		name, query string
		want        string // STRLEN, or "" for ErrTooLarge
	}{
		{"doubled 10 times", doublings(10), "16384"},
		{"doubled 24 times", doublings(24), ""},
		{"CONCAT of many copies", "SELECT (STRLEN(CONCAT(" + strings.Repeat("?l, ", 1000) + "?l)) AS ?n) { ?s <http://ex.org/label> ?l BIND(CONCAT(?l, ?l, ?l, ?l, ?l, ?l, ?l, ?l) AS ?m) }", "16016"},
		{"CONCAT of many copies of a grown string", "SELECT (STRLEN(CONCAT(" + strings.Repeat("?m, ", 1000) + "?m)) AS ?n) { ?s <http://ex.org/label> ?l BIND(CONCAT(" + strings.Repeat("?l, ", 1000) + "?l) AS ?m) }", ""},
		{"REPLACE by a longer literal, 3 deep", nested(3, ".", "0123456789"), "16000"},
		{"REPLACE by a longer literal, 7 deep", nested(7, ".", "0123456789"), ""},
		{"REPLACE repeating its match, 7 deep", nested(7, "(.)", "$1$1$1$1$1$1$1$1"), ""},
		{"REPLACE repeating its match, 2 deep", nested(2, "(.)", "$1$1$1$1$1$1$1$1"), "1024"},
	} {
		r, err := run(c.query)
		switch {
		case c.want == "" && !errors.Is(err, eval.ErrTooLarge):
			t.Errorf("%s: %v, want ErrTooLarge", c.name, err)
		case c.want == "":
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case len(r.Rows) != 1 || r.Rows[0][0].Value != c.want:
			t.Errorf("%s: %v, want STRLEN %s", c.name, r.Rows, c.want)
		}
	}
}

// TestLongReplaceStopsAtTheTimeLimit: REPLACE over a string of megabytes takes about a second per pass, and nested
// ones within the budget took an ldhub serve's query minutes past its 30 s limit (the time limit was only
// checked between rows). The pass over the matches now checks it.
func TestLongReplaceStopsAtTheTimeLimit(t *testing.T) {
	ds := eval.FromIndex(build(t, []rdf.Quad{rdf.Triple(rdf.IRI("http://ex.org/s"), rdf.IRI("http://ex.org/label"), rdf.String("ablative classic"))}))
	var b strings.Builder
	for i := range 16 { // 16 bytes doubled 16 times: 1 MiB
		fmt.Fprintf(&b, "BIND(CONCAT(?l%d, ?l%d) AS ?l%d) ", i, i, i+1)
	}
	x := "?l16"
	for range 7 {
		x = fmt.Sprintf(`REPLACE(%s, ".", "ab")`, x)
	}
	q, err := parser.Parse(fmt.Sprintf("SELECT (STRLEN(%s) AS ?n) { ?s <http://ex.org/label> ?l0 %s}", x, b.String()), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = eval.Run(context.Background(), ds, q, eval.Options{Timeout: 300 * time.Millisecond, MaxMemory: 256 << 20})
	if took := time.Since(start); !errors.Is(err, eval.ErrTimeout) || took > 20*time.Second {
		t.Errorf("nested REPLACE over 1 MiB with a 300 ms limit: %v after %s, want ErrTimeout within seconds", err, took)
	}
}

// TestValuesProductStopsAtTheTimeLimit: two VALUES blocks of 40 000 rows joined are 1.6 G rows; the time limit
// must stop their product within about its own length, not after the 1024 inner tables between two checks.
func TestValuesProductStopsAtTheTimeLimit(t *testing.T) {
	ds := eval.FromIndex(build(t, []rdf.Quad{rdf.Triple(rdf.IRI("http://ex.org/s"), rdf.IRI("http://ex.org/p"), rdf.String("o"))}))
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "<http://e/%d> ", i)
	}
	q, err := parser.Parse(fmt.Sprintf("SELECT (COUNT(*) AS ?n) { VALUES ?x { %s } VALUES ?y { %s } }", b.String(), b.String()), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = eval.Run(context.Background(), ds, q, eval.Options{Timeout: 200 * time.Millisecond})
	if took := time.Since(start); !errors.Is(err, eval.ErrTimeout) || took > 5*time.Second {
		t.Errorf("VALUES × VALUES with a 200 ms limit: %v after %s, want ErrTimeout within seconds", err, took)
	}
}
