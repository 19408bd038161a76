package eval

import (
	"context"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestSafeAnswersMatchFresh asks safe about every operator of queries whose answer depends on which variables the
// input binds (FILTERs, OPTIONAL, MINUS, BIND, sub-queries over variables the operand does or does not bind), with
// every set of bound variables, in turns, of one evaluator, and compares each answer with a fresh evaluator's: the
// answers safe remembers (safeRecent, safeC) must be those of the question asked, not of an earlier one.
func TestSafeAnswersMatchFresh(t *testing.T) {
	ds := FromIndex(index.NewBuilder().Build())
	for _, src := range []string{
		`SELECT * { ?x <http://ex.org/p> ?y FILTER(?z > 1) }`,
		`SELECT * { ?x <http://ex.org/p> ?y OPTIONAL { ?y <http://ex.org/q> ?w FILTER(?z = ?w) } }`,
		`SELECT * { ?x <http://ex.org/p> ?y MINUS { ?z <http://ex.org/q> ?w } BIND(?w + 1 AS ?v) }`,
		`SELECT * { ?x <http://ex.org/p> ?y { SELECT ?z { ?z <http://ex.org/q> ?w } } }`,
	} {
		q := mustParse(t, src)
		var ops []algebra.Op
		algebra.Walk(q.Op, func(op algebra.Op) bool {
			ops = append(ops, op)
			return true
		})
		e := newEvaluator(context.Background(), ds, q, Options{})
		n := e.nvars
		if n > 8 {
			t.Fatalf("%s: %d variables", src, n)
		}
		differ := 0
		for round := range 2 {
			for b := range 1 << n {
				for _, op := range ops {
					var bound varset
					for i := range n {
						if b&(1<<i) != 0 {
							bound = bound.with(i)
						}
					}
					got := e.safe(op, bound)
					want := newEvaluator(context.Background(), ds, q, Options{}).safe(op, bound)
					if got != want {
						t.Fatalf("%s: round %d, safe(%T, %b) = %v, want %v", src, round, op, b, got, want)
					}
					if !want {
						differ++
					}
				}
			}
		}
		if differ == 0 {
			t.Errorf("%s: every operator is safe under every binding; the test asks nothing", src)
		}
	}
}
