package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// TestGroupClosureMatchesReference: a GROUP BY over a closure joined with every solution of a pattern, counted per
// join node before the closure is walked (groupClosure), gives what refGroup gives from every solution of the join,
// on random class hierarchies with cycles, self-loops and diamonds (a class reached by two paths counts once per
// start), items of several classes and several offers each, classes with no items: +, * and ?, either end joined,
// the path written first, keys of the far end, of both ends and none, COUNT of every variable B binds, DISTINCT,
// MIN, SAMPLE and SUM over the ends. Shapes the rewrite does not prove exact (a key or COUNT(DISTINCT) of another
// variable of B, a far end B also binds) are declined and still answer as the reference. The taken ones must be
// taken: fewer steps than the reference.
func TestGroupClosureMatchesReference(t *testing.T) {
	sub, typ, link := rdf.IRI("http://ex.org/sub"), rdf.IRI("http://ex.org/type"), rdf.IRI("http://ex.org/link")
	const pre = `PREFIX : <http://ex.org/> `
	taken := []string{
		`SELECT ?type (COUNT(?o) AS ?n) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub+ ?type } GROUP BY ?type`,
		`SELECT ?type (COUNT(*) AS ?n) (COUNT(?p) AS ?np) (COUNT(?leaf) AS ?nl) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub* ?type } GROUP BY ?type`,
		`SELECT ?type (COUNT(?o) AS ?n) { ?leaf :sub+ ?type . ?o :link ?p . ?p :type ?leaf } GROUP BY ?type`,
		`SELECT ?type (COUNT(?o) AS ?n) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub? ?type } GROUP BY ?type`,
		`SELECT ?leaf ?type (COUNT(?o) AS ?n) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub+ ?type } GROUP BY ?leaf ?type`,
		`SELECT ?sub (COUNT(?x) AS ?n) { ?x :type ?t . ?sub :sub* ?t } GROUP BY ?sub`,
		`SELECT ?t (COUNT(*) AS ?n) { ?x :type ?t . ?sub :sub+ ?t } GROUP BY ?t`,
		`SELECT ?type (COUNT(?o) AS ?n) { ?o :link ?p . ?p :type ?leaf . ?leaf (^:sub)+ ?type } GROUP BY ?type`,
		`SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?type) AS ?d) (MIN(?type) AS ?mn) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub+ ?type }`,
		`SELECT ?type (COUNT(DISTINCT ?leaf) AS ?d) (SAMPLE(?type) AS ?sa) (SUM(STRLEN(STR(?leaf))) AS ?sl) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub* ?type } GROUP BY ?type`,
		`SELECT ?type (COUNT(?o) AS ?n) { ?o :link ?p . ?p :type ?leaf . ?leaf :nothing+ ?type } GROUP BY ?type`,
	}
	declined := []string{
		`SELECT ?p (COUNT(?type) AS ?n) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub+ ?type } GROUP BY ?p`,
		`SELECT ?type (COUNT(DISTINCT ?o) AS ?n) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub+ ?type } GROUP BY ?type`,
		`SELECT ?type (COUNT(*) AS ?n) { ?o :link ?type . ?type :type ?leaf . ?leaf :sub+ ?type } GROUP BY ?type`,
		`SELECT ?type (COUNT(?o) AS ?n) { ?o :link ?p . ?p :type ?leaf . ?leaf :sub/:sub ?type } GROUP BY ?type`,
	}
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 15))
		b, add := builderAdding(t)
		classes := 4 + r.IntN(20)
		for c := range classes {
			for range r.IntN(3) { // 0–2 parents each, anywhere: cycles, self-loops and diamonds
				add(ex("c", c), sub, ex("c", r.IntN(classes)))
			}
		}
		for i := range 30 + r.IntN(60) {
			for range 1 + r.IntN(3) { // an item of several classes: repeated leaves
				add(ex("i", i), typ, ex("c", r.IntN(classes)))
			}
			for k := range r.IntN(4) {
				add(ex(fmt.Sprintf("o%d_", i), k), link, ex("i", i))
			}
		}
		ds := FromIndex(b.Build())
		for qi, src := range append(slices.Clone(taken), declined...) {
			src = pre + src
			got, steps := runGroup(t, ds, src, false)
			want, refSteps := runGroup(t, ds, src, true)
			slices.Sort(got) // groups come in the order their join nodes are met
			slices.Sort(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("seed %d: %s:\n got %q\nwant %q", seed, src, got, want)
			}
			isTaken := closureTaken(t, ds, src)
			if isTaken != (qi < len(taken)) {
				t.Errorf("seed %d: %s: taken %v", seed, src, isTaken)
			}
			if qi == 0 && steps >= refSteps {
				t.Errorf("seed %d: %s: %d steps against the reference's %d", seed, src, steps, refSteps)
			}
		}
	}
}

// closureTaken reports whether groupClosure takes the first GROUP BY of src.
func closureTaken(t *testing.T, ds *Dataset, src string) bool {
	t.Helper()
	q := mustParse(t, src)
	g := firstOp[*algebra.Group](q.Op)
	e := newEvaluator(context.Background(), ds, q, Options{})
	return e.closureGroupOf(g) != nil
}

// TestGroupClosureSplitMatchesReference: groupClosure's join nodes split over two goroutines (each walking its half
// into groups of its own, the worker's merged after the query's) give what refGroup gives, on random data: reviews
// with one reviewer, two or none, reviewers that are literals (a path's end that is not a subject), v28d's
// `(^:rev/:rev)?`, and `?`, `*` and `+` over class hierarchies with cycles and self-loops. Every mergeable one
// must be split (the old code walked every node on the query's goroutine and split only B's count per node);
// COUNT(DISTINCT) is not, and answers the same.
func TestGroupClosureSplitMatchesReference(t *testing.T) {
	rev, sub, typ := rdf.IRI("http://ex.org/rev"), rdf.IRI("http://ex.org/sub"), rdf.IRI("http://ex.org/type")
	const pre = `PREFIX : <http://ex.org/> `
	split := []string{
		`SELECT ?r (COUNT(*) AS ?n) { ?review :rev ?r . ?r (^:rev/:rev)? ?x } GROUP BY ?r ORDER BY DESC(?n) ?r LIMIT 20`,
		`SELECT ?x (COUNT(?review) AS ?n) (SAMPLE(?x) AS ?s) { ?review :rev ?r . ?r (^:rev/:rev)? ?x } GROUP BY ?x`,
		`SELECT ?x (COUNT(*) AS ?n) { ?review :rev ?r . ?r (^:rev/:rev)+ ?x } GROUP BY ?x`,
		`SELECT ?type (COUNT(?i) AS ?n) { ?i :type ?leaf . ?leaf :sub? ?type } GROUP BY ?type`,
		`SELECT ?type (COUNT(*) AS ?n) (SUM(STRLEN(STR(?type))) AS ?l) { ?i :type ?leaf . ?leaf :sub* ?type } GROUP BY ?type`,
		`SELECT (COUNT(*) AS ?n) { ?i :type ?leaf . ?leaf (^:sub)+ ?type }`,
	}
	kept := []string{
		`SELECT ?type (COUNT(DISTINCT ?leaf) AS ?n) { ?i :type ?leaf . ?leaf :sub* ?type } GROUP BY ?type`,
	}
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 18))
		b, add := builderAdding(t)
		reviewers := 200 + r.IntN(100)
		for i := range 2000 {
			for range []int{0, 1, 1, 1, 2}[r.IntN(5)] {
				if r.IntN(50) == 0 {
					add(ex("review", i), rev, rdf.String(fmt.Sprint("anonymous ", r.IntN(3))))
				} else {
					add(ex("review", i), rev, ex("person", r.IntN(reviewers)))
				}
			}
		}
		classes := 300 + r.IntN(100)
		for c := range classes {
			for range r.IntN(3) { // 0–2 parents each: cycles, self-loops, diamonds
				add(ex("c", c), sub, ex("c", r.IntN(classes)))
			}
		}
		for i := range 1500 {
			add(ex("i", i), typ, ex("c", r.IntN(classes)))
		}
		ds := FromIndex(b.Build())
		for qi, src := range append(slices.Clone(split), kept...) {
			src = pre + src
			got, cores := runGroupPool(t, ds, src, NewCores(2))
			want, _ := runGroup(t, ds, src, true)
			slices.Sort(got)
			slices.Sort(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("seed %d: %s:\n got %q\nwant %q", seed, src, got, want)
			}
			// B's count per join node is split once (groupRuns); the walks once more where they merge.
			if want := map[bool]int64{true: 2, false: 1}[qi < len(split)]; cores.Chunks() != want {
				t.Errorf("seed %d: %s: %d halves merged, want %d", seed, src, cores.Chunks(), want)
			}
		}
	}
}
