package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// tagStarData is 3 000 subjects with zero to two of the types ex:T0, ex:T1 (ex:T2 on every 150th, ex:T3 on all), none, one
// or several rows of ex:p0 and ex:p1 each, and one or two objects of ex:p2 of their own.
func tagStarData(t *testing.T) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(161, 162))
	b, add := builderAdding(t)
	typ := rdf.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
	counts := []int{0, 1, 1, 1, 2, 3}
	for i := range 3000 {
		s := ex("s", i)
		for k := range 2 {
			if r.IntN(2) == 0 {
				add(s, typ, ex("T", k))
			}
		}
		add(s, typ, ex("T", 3))
		for k := range 1 + i%2 { // 4 500 objects, more than tagCountMax counts at once
			add(s, ex("p", 2), ex("o", 2*i+k))
		}
		if i%150 == 0 {
			add(s, typ, ex("T", 2))
		}
		for range counts[r.IntN(len(counts))] {
			add(s, ex("p", 0), ex("country", r.IntN(7)))
		}
		for range counts[r.IntN(len(counts))] {
			add(s, ex("p", 1), rdf.Literal(fmt.Sprint(r.IntN(5)), rdf.XSDInteger))
		}
	}
	return FromIndex(b.Build())
}

// TestGroupTagStarsMatchReference compares groupTagStars' groups (merged and probed patterns, several tags, stars
// of two patterns, keys a branch leaves unbound) with the reference evaluation, and checks which shapes take it.
func TestGroupTagStarsMatchReference(t *testing.T) {
	ds := tagStarData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	for _, c := range []struct {
		src   string
		taken bool
	}{
		{`SELECT ?c (COUNT(?a) AS ?na) (COUNT(?b) AS ?nb) (COUNT(?d) AS ?nd) (COUNT(*) AS ?n) {
			{ ?a a ex:T0 ; ex:p0 ?c } UNION { ?b a ex:T1 ; ex:p0 ?c } UNION { ?d a ex:T2 ; ex:p0 ?c } } GROUP BY ?c`, true},
		{`SELECT ?c ?v (COUNT(*) AS ?n) (COUNT(DISTINCT ?a) AS ?na) {
			{ ?a a ex:T0 , ex:T1 ; ex:p0 ?c ; ex:p1 ?v } UNION { ?a a ex:T2 ; ex:p1 ?v } } GROUP BY ?c ?v`, true},
		{`SELECT (COUNT(*) AS ?n) (COUNT(?a) AS ?na) (COUNT(DISTINCT ?c) AS ?nc) {
			{ ?a a ex:T0 ; ex:p0 ?c } UNION { ?b a ex:T2 ; ex:p1 ?v } }`, true},
		{`SELECT ?v (COUNT(*) AS ?n) (COUNT(DISTINCT ?o) AS ?no) { { ?a a ex:T1 ; ex:p2 ?o } UNION { ?a a ex:T0 ; ex:p1 ?v } } GROUP BY ?v`, true},
		{`SELECT ?o (COUNT(?a) AS ?n) { { ?a a ex:T3 ; ex:p2 ?o } UNION { ?a a ex:T0 ; ex:p2 ?o } } GROUP BY ?o`, true},
		{`SELECT ?a (COUNT(*) AS ?n) { { ?a a ex:T0 ; ex:p0 ?c } UNION { ?a a ex:Missing ; ex:p0 ?c } } GROUP BY ?a`, true},
		{`SELECT ?c (SUM(?v) AS ?s) { { ?a a ex:T0 ; ex:p1 ?v ; ex:p0 ?c } UNION { ?a a ex:T1 ; ex:p1 ?v ; ex:p0 ?c } } GROUP BY ?c`, false},
		{`SELECT ?c (COUNT(*) AS ?n) { { ?a a ex:T0 ; ex:p0 ?c FILTER(?c != ex:country1) } UNION { ?a a ex:T1 ; ex:p0 ?c } } GROUP BY ?c`, false},
		{`SELECT ?c (COUNT(*) AS ?n) { { ?a a ex:T0 ; ex:p0 ?c } UNION { ?a ex:p1 ?v ; ex:p0 ?c } } GROUP BY ?c`, false},
	} {
		src := pre + c.src
		if want, _ := runGroup(t, ds, src, true); len(want) == 0 {
			t.Fatalf("%s: no groups: the data does not test it", src)
		}
		checkGroupPath(t, ds, src, (*evaluator).groupTagStars, c.taken)
	}
}

// TestGroupTagStarsChargesTheClass holds the class copy to the budget: ex:T3's 3 000 subjects are 12 KB of ids, which
// a query allowed 8 KB must not take (its seven groups and merged runs charge less than that).
func TestGroupTagStarsChargesTheClass(t *testing.T) {
	checkPathCharges(t, tagStarData(t), `PREFIX ex: <http://ex.org/> SELECT ?c (COUNT(?a) AS ?n) { { ?a a ex:T3 ; ex:p0 ?c } UNION { ?a a ex:T2 ; ex:p0 ?c } } GROUP BY ?c`,
		(*evaluator).groupTagStars, true)
}

// checkPathCharges runs a group path on src with a budget of 8 KB, which must end in an error, and of 64 MiB, which
// must not; mustTake says the path takes src (else it may decline after what it charged).
func checkPathCharges(t *testing.T, ds *Dataset, src string, path func(*evaluator, *algebra.Group, []ID, *groupState, *error) (bool, bool), mustTake bool) {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mem  int64
		fail bool
	}{{8 << 10, true}, {64 << 20, false}} {
		e := newEvaluator(context.Background(), ds, q, Options{MaxMemory: c.mem})
		g := firstOp[*algebra.Group](q.Op)
		var err error
		if handled, _ := path(e, g, e.newRow(), e.newGroupState(g), &err); mustTake && !handled {
			t.Fatalf("MaxMemory %d: the path did not take the query", c.mem)
		}
		if (err != nil) != c.fail {
			t.Errorf("MaxMemory %d: err %v, want an error %v", c.mem, err, c.fail)
		}
	}
}
