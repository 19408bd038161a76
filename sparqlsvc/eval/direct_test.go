package eval_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
)

// Values of top-level SELECT expressions and BINDs are not interned (eval.markDirect): they must still compare
// with data terms by value, chain, survive LIMIT/OFFSET and BNODE scoping, and a streamed answer of unique
// computed values must not grow the query's memory, while the same values held by DISTINCT still count.
func TestDirectExpressionValues(t *testing.T) {
	const n = 10000
	var qs []rdf.Quad
	for i := range n {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		qs = append(qs, rdf.Triple(s, rdf.IRI("http://ex.org/v"), rdf.Literal(fmt.Sprint(i), rdf.XSDInteger)))
		if i < 5 { // a label equal to the string the query computes from the value
			qs = append(qs, rdf.Triple(s, rdf.IRI("http://ex.org/label"), rdf.String(fmt.Sprint(i+1))))
		}
	}
	ds := eval.FromIndex(build(t, qs))
	run := func(src string, opt eval.Options) (*eval.Result, error) {
		t.Helper()
		q := eval.MustParse(t, src)
		return eval.Run(context.Background(), ds, q, opt)
	}
	rows := eval.SortedResult

	r, err := run(`SELECT ?s ?w { ?s <http://ex.org/v> ?v ; <http://ex.org/label> ?l
		BIND(?v + 1 AS ?u) BIND(STR(?u) AS ?w) FILTER(?w = ?l && sameTerm(?w, ?l)) }`, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(r); len(got) != 5 || got[0] != `<http://ex.org/s0> "1"` {
		t.Errorf("computed values against data terms: %q", got)
	}
	r, err = run(`SELECT ?v (?v * 2 AS ?d) (CONCAT("n", STR(?d)) AS ?c) { ?s <http://ex.org/v> ?v FILTER(?v < 10) }
		LIMIT 3 OFFSET 2`, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows {
		v, d, c := row[0].Value, row[1].Value, row[2].Value
		var iv, id int
		fmt.Sscan(v, &iv)
		fmt.Sscan(d, &id)
		if id != 2*iv || c != "n"+d {
			t.Errorf("row %v: values of another solution", row)
		}
	}
	if len(r.Rows) != 3 {
		t.Errorf("LIMIT 3 OFFSET 2: %d rows", len(r.Rows))
	}
	r, err = run(`SELECT ?s (BNODE("b") AS ?b) (BNODE("b") AS ?c) { ?s <http://ex.org/label> ?l BIND(STR(?l) AS ?x) }`, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[rdf.Term]bool{}
	for _, row := range r.Rows {
		if row[1] != row[2] || seen[row[1]] {
			t.Errorf("BNODE(label) is one node per solution, another per solution: %v", row)
		}
		seen[row[1]] = true
	}

	// 10 000 unique computed values would take ~1.2 MB interned; the budget is 512 KiB.
	const budget = 512 << 10
	r, err = run(`SELECT ?s (?v * 3 + 7 AS ?x) (CONCAT("value ", STR(?v)) AS ?y) { ?s <http://ex.org/v> ?v }`,
		eval.Options{MaxMemory: budget})
	if err != nil {
		t.Fatalf("streamed answer of computed values under a %d-byte budget: %v", budget, err)
	}
	if len(r.Rows) != n {
		t.Errorf("%d rows, want %d", len(r.Rows), n)
	}
	if _, err = run(`SELECT DISTINCT ?x { ?s <http://ex.org/v> ?v BIND(CONCAT("value ", STR(?v)) AS ?x) }`,
		eval.Options{MaxMemory: budget}); !errors.Is(err, eval.ErrTooLarge) {
		t.Errorf("DISTINCT holding 10 000 computed values under a 512 KiB budget: %v, want ErrTooLarge", err)
	}
}
