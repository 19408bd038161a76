package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestJoinReplayMatchesPerRow: a join whose right operand mentions none of the left operand's variables gives the
// same solutions, with the same multiplicities, when the right operand is evaluated once and its solutions replayed
// (joinReplay) as when it is evaluated per left solution (replayMax < 0), and as when its kept solutions pass the
// bound partway (replayMax small: it goes back to per-row evaluation). Right operands: a GROUP BY subquery (h92's
// shape, two deep), one giving several solutions with a variable left unbound (OPTIONAL), a UNION, a cross
// product of two patterns, a subquery under LIMIT, and one whose variables the incoming row binds through VALUES.
// The subqueries must take under half the steps replayed: per-row evaluation (the old behaviour) fails that.
// Twin subqueries are evaluated as written here (noSubMemo), so the steps are joinReplay's alone.
func TestJoinReplayMatchesPerRow(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	b, add := builderAdding(t)
	for i := range 300 {
		s := ex("s", i)
		add(s, ex("p", 0), rdf.Literal(fmt.Sprint(r.IntN(100)), rdf.XSDInteger))
		add(s, ex("p", 1), ex("C", r.IntN(12)))
		if r.IntN(3) > 0 {
			add(s, ex("p", 2), rdf.Literal(fmt.Sprint(r.IntN(7)), rdf.XSDInteger))
		}
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> `
	fewer := []string{
		// Each class's average above the average of the class averages (two subqueries, one two deep).
		pre + `SELECT ?c ?avg ?all { { SELECT ?c (AVG(?v) AS ?avg) { ?s :p1 ?c ; :p0 ?v } GROUP BY ?c }
			{ SELECT (AVG(?a) AS ?all) { { SELECT ?k (AVG(?w) AS ?a) { ?x :p1 ?k ; :p0 ?w } GROUP BY ?k } } }
			FILTER(?avg > ?all - 1) }`,
		// Every subject with a value over the mean, the mean from a subquery written second.
		pre + `SELECT ?s ?v ?m { ?s :p0 ?v . { SELECT (AVG(?w) AS ?m) { ?x :p0 ?w } } FILTER(?v > ?m) }`,
		// Several right solutions, one variable of them unbound in some (OPTIONAL), per class.
		pre + `SELECT ?s ?k ?n { ?s :p1 ?c ; :p0 ?v FILTER(?v < 10)
			{ SELECT ?k (COUNT(?d) AS ?n) (SAMPLE(?d) AS ?one) { ?x :p1 ?k OPTIONAL { ?x :p2 ?d } } GROUP BY ?k } }`,
	}
	same := []string{
		// A UNION on the right.
		pre + `SELECT ?s ?y ?z { ?s :p1 :C1 ; :p0 ?v FILTER(?v < 20) { ?y :p2 3 } UNION { ?z :p2 5 } }`,
		// A cross product of two patterns.
		pre + `SELECT ?a ?b { ?a :p1 :C2 ; :p0 ?v FILTER(?v < 15) { ?b :p1 :C3 ; :p0 ?w FILTER(?w > 90) } }`,
		// A subquery under LIMIT on the right, and one whose variable the incoming row binds (VALUES first).
		pre + `SELECT ?s ?x { ?s :p1 :C0 ; :p0 ?v FILTER(?v > 80) { SELECT ?x { ?x :p2 ?d } ORDER BY ?x LIMIT 5 } }`,
		pre + `SELECT ?c ?s ?x { VALUES ?c { :C1 :C2 } ?s :p1 ?c ; :p0 ?v FILTER(?v > 90) { SELECT ?x ?c { ?x :p1 ?c ; :p2 6 } } }`,
	}
	for i, src := range append(slices.Clone(fewer), same...) {
		want, perRow := runTopWith(t, ds, src, false, Options{replayMax: -1, noSubMemo: true})
		slices.Sort(want)
		if len(want) == 0 {
			t.Fatalf("query %d has no solutions: %s", i, src)
		}
		got, replayed := runTopWith(t, ds, src, false, Options{noSubMemo: true})
		if slices.Sort(got); !slices.Equal(got, want) {
			t.Fatalf("query %d replayed:\n got %q\nwant %q", i, got, want)
		}
		cut, _ := runTopWith(t, ds, src, false, Options{replayMax: 3, noSubMemo: true})
		if slices.Sort(cut); !slices.Equal(cut, want) {
			t.Fatalf("query %d past the bound:\n got %q\nwant %q", i, cut, want)
		}
		if i < len(fewer) && 2*replayed > perRow {
			t.Errorf("query %d: %d steps replayed, %d per row: the right operand was evaluated per left solution", i, replayed, perRow)
		}
	}
}
