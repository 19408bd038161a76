package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// seqPathData is a random class hierarchy for sequence paths, each triple also copied into one of two named graphs:
// classes with zero to two parents (cycles, self-loops, diamonds, two routes to one ancestor), every seventh class a
// blank node, parents that appear only as objects, a literal parent, labels (plain, tagged, non-ASCII) on some
// classes, and items of one to three classes (an item under one ancestor through two of its classes).
func seqPathData(t *testing.T, seed uint64) *Dataset {
	r := rand.New(rand.NewPCG(seed, 153))
	b, add := builderAddingCopies(t, r)
	n := 6 + r.IntN(14)
	sub, typ, label := exIRI("sub"), exIRI("type"), exIRI("label")
	class := func(i int) rdf.Term {
		if i%7 == 3 {
			return rdf.Blank(fmt.Sprintf("k%d", i))
		}
		return ex("c", i)
	}
	for c := range n {
		for range r.IntN(3) {
			switch r.IntN(10) {
			case 0:
				add(class(c), sub, ex("top", r.IntN(2))) // a class that is only an object
			case 1:
				add(class(c), sub, rdf.String("lit"))
			default:
				add(class(c), sub, class(r.IntN(n)))
			}
		}
		switch r.IntN(4) {
		case 0:
			add(class(c), label, rdf.String("Ärmel"))
		case 1:
			add(class(c), label, rdf.LangString("axe", "en"))
		}
	}
	for i := range 10 + r.IntN(20) {
		for range 1 + r.IntN(3) {
			add(ex("i", i), typ, class(r.IntN(n)))
		}
	}
	return FromIndex(b.Build())
}

// TestSeqJoinMatchesPlainJoins: joins in which path patterns meet at a sequence path's joint, merged into one path
// pattern of the sequence (seqJoin), give the solutions (multiplicities included) the joins as written give, on
// random hierarchies with cycles, self-loops, diamonds, blank nodes, classes that are only objects and a literal
// parent: h153's shape (p/p?/p? under a label, COUNT(DISTINCT) and COUNT per ancestor), ^p?/^p?/^p, (p|^p)/p?,
// both ends free, a literal end, constant ends in the data and absent from it (a zero-length step at a value that is
// no node pairs it only where both steps beside the joint have a constant end), VALUES binding ends to literals,
// numbers and absent IRIs, one variable at both ends, closures, named graphs, OPTIONAL and NOT EXISTS. The taken
// ones must be merged on every hierarchy (fails on the old code), h153's in fewer steps; a query with COUNT(DISTINCT
// *) (which reads the joints), sequences of links only and a link next to one path are not.
func TestSeqJoinMatchesPlainJoins(t *testing.T) {
	const pre = `PREFIX : <http://ex.org/> `
	taken := []string{
		`SELECT ?a ?l (COUNT(DISTINCT ?i) AS ?n) { ?a :label ?l . ?t :sub/:sub?/:sub? ?a . ?i :type ?t } GROUP BY ?a ?l`,
		`SELECT ?a ?l (COUNT(DISTINCT ?i) AS ?n) { ?a :sub :c1 ; :label ?l . ?t :sub/:sub?/:sub? ?a . ?i :type ?t } GROUP BY ?a ?l`,
		`SELECT ?a (COUNT(?i) AS ?n) (COUNT(DISTINCT ?i) AS ?d) { ?a :sub ?x . ?t :sub/:sub?/:sub? ?a . ?i :type ?t } GROUP BY ?a`,
		`SELECT ?a ?t { ?a ^:sub?/^:sub?/^:sub ?t }`,
		`SELECT ?a ?t { ?a (:sub|^:sub)/:sub? ?t }`,
		`SELECT ?t ?a { ?t :sub?/:sub? ?a }`,
		`SELECT ?t { ?t :sub?/:sub? "lit" }`,
		`SELECT ?a { :c1 :sub?/:sub?/:sub? ?a }`,
		`SELECT ?a { :nowhere :sub?/:sub? ?a }`,
		`SELECT (COUNT(*) AS ?n) { :nowhere :sub?/:sub? :nowhere }`,
		`SELECT (COUNT(*) AS ?n) { :nowhere :sub?/:sub?/:sub? :nowhere }`,
		`SELECT (COUNT(*) AS ?n) { "lit" :sub?/^:sub? "lit" }`,
		`SELECT ?x { ?x :sub?/:sub? ?x }`,
		`SELECT ?x ?y { VALUES ?x { "lit" :nowhere :c1 7 :top0 } ?x :sub?/:sub? ?y }`,
		`SELECT ?y { VALUES ?y { :nowhere "lit" :c2 } :nowhere :sub?/:sub? ?y }`,
		`SELECT ?y { BIND(:nowhere AS ?y) :nowhere :sub?/:sub? ?y }`,
		`SELECT ?x ?y { BIND("lit" AS ?y) ?x ^:sub?/^:sub? ?y }`,
		`SELECT ?t ?a { ?t :sub*/:sub? ?a }`,
		`SELECT ?t ?a { ?t :sub+/^:sub?/:sub* ?a }`,
		`SELECT ?g ?t ?a { GRAPH ?g { ?t :sub?/:sub?/:sub ?a } }`,
		`SELECT ?t ?a FROM <http://ex.org/g0> FROM <http://ex.org/g1> { ?t :sub/:sub?/:sub? ?a }`,
		`SELECT ?i ?a { ?i :type ?t OPTIONAL { ?t :sub?/:sub? ?a } }`,
		`SELECT ?i { ?i :type ?t FILTER NOT EXISTS { ?t :sub?/:sub? :c0 } }`,
	}
	declined := []string{
		`SELECT (COUNT(DISTINCT *) AS ?n) { ?t :sub?/:sub? ?a }`,
		`SELECT ?t ?a { ?t :sub/:sub ?a }`,
		`SELECT ?t ?a { ?t :sub/:sub? ?a . ?a :label ?l }`,
	}
	takenBy := make([]int, len(taken))
	const seeds = 8
	for seed := range uint64(seeds) {
		ds := seqPathData(t, seed)
		for qi, src := range append(slices.Clone(taken), declined...) {
			e, plain := matchPlainJoins(t, ds, seed, pre+src)
			tallyTaken(t, seed, src, "merged", qi, takenBy, e.seqMerges > 0, e.steps, plain.steps)
		}
	}
	for qi, n := range takenBy {
		if n < seeds {
			t.Errorf("%s: merged on %d of %d hierarchies", taken[qi], n, seeds)
		}
	}
}

// matchPlainJoins evaluates src with the joins chosen and as written (plainJoins), reports a difference in their
// solutions (multiplicities included), and returns the two evaluators, whose choices and steps the caller reads.
func matchPlainJoins(t *testing.T, ds *Dataset, seed uint64, src string) (chosen, plain *evaluator) {
	t.Helper()
	got, chosen := evalJoins(t, ds, src, false)
	want, plain := evalJoins(t, ds, src, true)
	if !slices.Equal(got, want) {
		t.Errorf("seed %d: %s:\n got %d %q\nwant %d %q", seed, src, len(got), got, len(want), want)
	}
	return chosen, plain
}

// TestCheckJoinMatchesPlainJoins: joins whose right operand is one pattern `?x <p> <o>`, checked by a bitmap of the
// pattern's subjects (checkJoin) once a few left solutions were checked, give the solutions (multiplicities
// included) the joins as written give: q10's shape, duplicates through two routes, a COUNT(DISTINCT), ?x bound to
// literals, blank nodes and classes that are only objects, ?x unbound in some left solutions (a UNION's other
// branch), named graphs (GRAPH ?g: a bitmap per graph; FROM two graphs: none). The bitmap must be made for the
// first four on most hierarchies.
func TestCheckJoinMatchesPlainJoins(t *testing.T) {
	const pre = `PREFIX : <http://ex.org/> `
	taken := []string{
		`SELECT ?i { ?i :type/:sub* :c1 . ?i :type :c2 }`,
		`SELECT ?i ?a { ?i :type/:sub?/:sub? ?a . ?i :type :c1 }`,
		`SELECT (COUNT(DISTINCT ?i) AS ?n) (COUNT(?i) AS ?r) { ?i :type/:sub? ?a . ?i :type :c0 }`,
		`SELECT ?x ?c { ?c :sub? ?x . ?x :sub :c1 }`,
	}
	others := []string{
		`SELECT ?i ?y { { ?i :type/:sub? :c1 } UNION { ?y :sub ?z } ?i :type :c3 }`,
		`SELECT ?g ?i { GRAPH ?g { ?i :type/:sub? ?a . ?i :type :c1 } }`,
		`SELECT ?i FROM <http://ex.org/g0> FROM <http://ex.org/g1> { ?i :type/:sub? ?a . ?i :type :c1 }`,
		`SELECT ?x { ?c :sub? ?x . ?x :sub "lit" }`,
	}
	madeBy := make([]int, len(taken))
	for seed := range uint64(8) {
		ds := seqPathData(t, seed)
		for qi, src := range append(slices.Clone(taken), others...) {
			got, e := evalJoinsWith(t, ds, pre+src, Options{checkAt: 2})
			want, _ := evalJoins(t, ds, pre+src, true)
			if !slices.Equal(got, want) {
				t.Errorf("seed %d: %s:\n got %d %q\nwant %d %q", seed, src, len(got), got, len(want), want)
			}
			made := false
			for _, c := range e.checkSites {
				made = made || (c != nil && c.bits != nil)
			}
			if qi < len(taken) && made {
				madeBy[qi]++
			}
		}
	}
	for qi, n := range madeBy {
		if n < 6 { // a class may type no item of a small hierarchy
			t.Errorf("%s: a bitmap made on %d of 8 hierarchies", taken[qi], n)
		}
	}
}
