package eval

import (
	"slices"
	"testing"
)

// TestCrossSplitMatchesPlainJoins: joins of a BGP that is a cross product of parts only its closure paths connect,
// evaluated as a chain of those parts (crossSplit), give the solutions (multiplicities included) the joins as
// written give, on random hierarchies (cycles, self-loops, several parents, labelled nodes that are no class,
// which `*` matches by a zero-length step): h147's shape (two items of the hierarchy, a labelled ancestor, a
// FILTER over two parts and one over one part), `+` and `?`, a path with a constant end, an inverse closure, a
// FILTER with a variable of no part (an error: no solution), a FILTER with EXISTS (which stays above the chain),
// in named graphs. The taken ones must be taken on every hierarchy (fails on the old code), h147's in fewer steps;
// a BGP that is not a cross product, paths inside one part each and an OPTIONAL are declined.
func TestCrossSplitMatchesPlainJoins(t *testing.T) {
	const pre = `PREFIX : <http://ex.org/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> `
	taken := []string{
		`SELECT ?a (COUNT(*) AS ?n) { ?i :type ?c . ?c :sub ?x . ?j :type ?k . ?k :sub ?y . ?a :label ?l
			FILTER(?i != ?j && STRSTARTS(?l, "a")) ?c :sub* ?a . ?k :sub* ?a } GROUP BY ?a`,
		`SELECT ?i ?j ?a { ?i :type ?c . ?c :sub ?x . ?j :type ?k . ?k :sub ?y . ?a :label ?l . ?c :sub+ ?a . ?k :sub? ?a }`,
		`SELECT ?i ?a ?l { ?i :type ?c . ?a :label ?l FILTER(LANG(?l) = "") ?c (^:sub)* ?a }`,
		`SELECT ?i ?a { ?i :type ?c . ?a :label "apple" . ?c :sub* ?a . ?a :sub* <http://ex.org/c1> }`,
		`SELECT ?i ?a { ?i :type ?c . ?a :label ?l FILTER(?l = ?nowhere || ?l = "bee") ?c :sub* ?a }`,
		`SELECT ?i ?a { ?i :type ?c . ?a :label ?l FILTER(EXISTS { ?a :sub ?x }) ?c :sub* ?a }`,
		`SELECT ?g ?i ?a { GRAPH ?g { ?i :type ?c . ?a :label ?l FILTER(STRSTARTS(?l, "a")) ?c :sub* ?a } }`,
		`SELECT ?i ?a FROM <http://ex.org/g0> FROM <http://ex.org/g1> { ?i :type ?c . ?a :label ?l . ?c :sub* ?a }`,
	}
	declined := []string{
		`SELECT ?i ?a ?l { ?i :type ?c . ?c :sub* ?a . ?a :label ?l }`,
		`SELECT ?i ?a { ?i :type ?c ; :date ?d . ?a :label ?l . ?c :sub* ?c2 . ?a :sub* ?a2 }`,
		`SELECT ?i ?a { ?i :type ?c . ?a :label ?l OPTIONAL { ?a :date ?d } ?c :sub* ?a }`,
		// A nested group's FILTER reading a variable its group does not bind (unbound there: !BOUND is true, a
		// comparison an error) is tested in that group, not on the chain where another part binds it.
		`SELECT ?i ?a { { ?i :type ?c FILTER(!BOUND(?a)) } ?i :type ?c . ?a :label ?l . ?c :sub* ?a }`,
		`SELECT ?i ?a { { ?i :type ?c FILTER(?l = "apple") } ?i :type ?c . ?a :label ?l . ?c :sub* ?a }`,
	}
	takenBy := make([]int, len(taken))
	const seeds = 8
	for seed := range uint64(seeds) {
		ds := hierarchyDates(t, seed)
		for qi, src := range append(slices.Clone(taken), declined...) {
			got, steps, split := runCross(t, ds, pre+src, false)
			want, plainSteps, _ := runCross(t, ds, pre+src, true)
			if !slices.Equal(got, want) {
				t.Errorf("seed %d: %s:\n got %d %q\nwant %d %q", seed, src, len(got), got, len(want), want)
			}
			tallyTaken(t, seed, src, "split", qi, takenBy, split, steps, plainSteps)
		}
	}
	for qi, n := range takenBy {
		if n < seeds {
			t.Errorf("%s: split on %d of %d hierarchies", taken[qi], n, seeds)
		}
	}
}

// runCross evaluates src as evalJoins does and returns its solutions, the steps taken and whether a join was
// evaluated as a chain of its parts (crossSplit).
func runCross(t *testing.T, ds *Dataset, src string, plain bool) ([]string, int, bool) {
	t.Helper()
	out, e := evalJoins(t, ds, src, plain)
	split := false
	for _, op := range e.crossSplits {
		split = split || op != nil
	}
	return out, e.steps, split
}

// tallyTaken counts query qi (the taken ones first, then the declined ones, takenBy holding a count per taken one)
// as having taken the choice named what or not: a declined one taking it is an error, and so is the first taken
// one taking it in as many steps as as written, or more.
func tallyTaken(t *testing.T, seed uint64, src, what string, qi int, takenBy []int, took bool, steps, plainSteps int) {
	t.Helper()
	switch {
	case qi >= len(takenBy) && took:
		t.Errorf("seed %d: %s: %s", seed, src, what)
	case took:
		takenBy[qi]++
	}
	if qi == 0 && took && steps >= plainSteps {
		t.Errorf("seed %d: %s: %d steps against %d as written", seed, src, steps, plainSteps)
	}
}
