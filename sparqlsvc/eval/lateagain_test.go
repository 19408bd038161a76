package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestLateExistsAnsweredAgain: a FILTER (NOT) EXISTS over a BGP whose solutions come in runs of one vendor (a scan
// of :vendor in POS order) is tested once per run and answered again for the run's other solutions (lastAnswer),
// with exactly the answers of testing every solution (noMemo), whether the EXISTS is evaluated per row or from a
// set: vendors with a country and a label, with only one of them, with two countries (the pattern's solutions
// repeat), offers under two vendors, a conjunct reading two variables of the BGP or a variable it never binds,
// EXISTS {} and NOT EXISTS {}, ASK, GRAPH ?g, and a volatile conjunct, which is never answered again. On the old
// code every solution was tested: the tests counted must be fewer than the solutions.
func TestLateExistsAnsweredAgain(t *testing.T) {
	r := rand.New(rand.NewPCG(181, 182))
	b := index.NewBuilder()
	add := graphAdder(t, b)
	for _, g := range []string{"", "g1"} {
		for v := range 40 {
			if v%5 != 1 {
				add(g, exIRI("v%d", v), exIRI("country"), exIRI("c%d", v%3))
			}
			if v%7 == 2 {
				add(g, exIRI("v%d", v), exIRI("country"), exIRI("c%d", (v+1)%3))
			}
			if v%4 != 3 {
				add(g, exIRI("v%d", v), exIRI("label"), rdf.String(fmt.Sprint("vendor ", v)))
			}
		}
		for o := range 600 {
			add(g, exIRI("o%d", o), exIRI("vendor"), exIRI("v%d", r.IntN(40)))
			if o%50 == 0 {
				add(g, exIRI("o%d", o), exIRI("vendor"), exIRI("v%d", r.IntN(40)))
			}
			add(g, exIRI("o%d", o), exIRI("days"), intLit(r.IntN(4)))
		}
	}
	ds := FromIndex(b.Build())
	run := func(src string, noMemo bool, semiJoin int) ([]string, int) {
		t.Helper()
		q := mustParse(t, src)
		e := newEvaluator(context.Background(), ds, q, Options{semiJoin: semiJoin})
		e.noMemo = noMemo
		var out []string
		if e.askForm {
			found := false
			if err := e.run(q.Op, e.newRow(), func([]ID) bool { found = true; return false }); err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			out = []string{fmt.Sprint(found)}
		} else {
			c := &collector{res: &Result{}}
			if err := e.selectQuery(q, c); err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			out = resultLines(c.res)
		}
		tests := 0
		for _, m := range e.existsMemos {
			tests += m.join.calls + m.hits
		}
		return out, tests
	}
	const pre = `PREFIX : <http://ex.org/> `
	cases := []struct {
		src     string
		fewer   bool // tested fewer times than it has solutions before the FILTER (per-row evaluation only)
		minRows int
	}{
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER NOT EXISTS { ?v :country ?c ; :label ?l } }`, true, 100},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER EXISTS { ?v :country ?c ; :label ?l } }`, true, 100},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER EXISTS { ?v :country ?c } }`, true, 100},
		{pre + `SELECT ?o ?v ?d { ?o :vendor ?v ; :days ?d FILTER NOT EXISTS { ?v :country ?c FILTER(?d > 1) } }`, false, 100},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER NOT EXISTS { ?v :country ?c FILTER(?c != ?none) } }`, true, 1},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER (?v != :v3 && NOT EXISTS { ?v :label ?l }) }`, true, 10},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER EXISTS { } }`, true, 600},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER NOT EXISTS { } }`, true, 0},
		{pre + `SELECT ?g ?o ?v { GRAPH ?g { ?o :vendor ?v FILTER NOT EXISTS { ?v :country ?c ; :label ?l } } }`, true, 200},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER (RAND() < 2 && EXISTS { ?v :label ?l }) }`, false, 100},
		{pre + `SELECT ?o ?v ?d { ?o :days ?d ; :vendor ?v FILTER NOT EXISTS { ?v :label ?l } }`, false, 100},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER NOT EXISTS { ?o :vendor ?w . ?w :label ?l } }`, false, 100},
		{pre + `SELECT ?o ?v { ?o :vendor ?v FILTER NOT EXISTS { ?v :country ?c FILTER NOT EXISTS { ?v :label ?l } } }`, true, 100},
		{pre + `ASK { ?o :vendor ?v FILTER NOT EXISTS { ?v :country ?c ; :label ?l } }`, false, 1},
		{pre + `ASK { ?o :vendor ?v FILTER NOT EXISTS { ?v :vendor ?c } }`, false, 1},
		{pre + `ASK { ?o :vendor ?v FILTER NOT EXISTS { } }`, false, 1},
		{pre + `ASK { ?o :vendor ?v FILTER NOT EXISTS { ?v :country ?c } }`, false, 1},
	}
	for _, c := range cases {
		want, all := run(c.src, true, -1)
		if len(want) < c.minRows {
			t.Fatalf("%s: %d solutions, want at least %d (the data should exercise it)", c.src, len(want), c.minRows)
		}
		for _, semi := range []int{-1, 0, 1} {
			got, tests := run(c.src, false, semi)
			if !slices.Equal(got, want) {
				t.Errorf("%s (semiJoin %d): %d rows, want %d\n got %q\nwant %q", c.src, semi, len(got), len(want), got, want)
			}
			if semi == -1 && c.fewer && tests*4 > all {
				t.Errorf("%s: the EXISTS was tested %d times, %d without answering again; want a quarter or fewer", c.src, tests, all)
			}
		}
	}
}

// TestSkipsRowsOfAFailedAnswer: the last pattern's rows are passed over only while they would give a late
// conjunct the values its failing answer was for (bgpState.skips): the same object with the earlier slots unchanged,
// not another object, not a slot the pattern binds (0 in the row before binding), not after the answer passed.
func TestSkipsRowsOfAFailedAnswer(t *testing.T) {
	a := &lastAnswer{vals: []ID{7, 9}, known: true}
	st := &bgpState{skip: a, skipSlots: []int{0, 2}}
	row := []ID{7, 0, 0}
	if !st.skips(row, 2, 9) {
		t.Error("the same values are not skipped")
	}
	if st.skips(row, 2, 10) {
		t.Error("another object is skipped")
	}
	if st.skips([]ID{8, 0, 0}, 2, 9) {
		t.Error("another earlier value is skipped")
	}
	st.skipSlots = []int{1, 2}
	a.vals = []ID{5, 9}
	if st.skips(row, 2, 9) {
		t.Error("a slot the pattern binds (0 before binding) is skipped")
	}
	st.skipSlots, a.vals = []int{0, 2}, []ID{7, 9}
	a.pass = true
	if st.skips(row, 2, 9) {
		t.Error("a passing answer is skipped")
	}
	a.pass, a.known = false, false
	if st.skips(row, 2, 9) {
		t.Error("an unknown answer is skipped")
	}
	a.known, a.off = true, true
	if st.skips(row, 2, 9) {
		t.Error("an answer whose values seldom repeated (off) is skipped")
	}
}
