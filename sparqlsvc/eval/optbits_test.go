package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestOptFilterMatchesBruteForce answers EXISTS and NOT EXISTS over a FILTER on an OPTIONAL's value (optFilter)
// with the bitmap built at the first solution, never built, and decided, each with the semi-join's set forced and
// forbidden, and compares every answer with one worked out by brute force. Reviews have no rating, one, or two
// (one may pass the filter and the other fail it); filters pass or fail with the value unbound; the value may be
// bound by the outer row (the OPTIONAL then matches that value only); the OPTIONAL's subject may be a literal
// (no dictionary id); and GRAPH ?g evaluates the pattern in several graphs. The forced runs must have built a
// bitmap where the shape allows one, so a path that is silently never taken fails too.
func TestOptFilterMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	ex, num := exIRI, intLit
	const products = 150
	graphs := []string{"", "g1", "g2"}
	type review struct {
		product int
		ratings []int
		literal bool // the review is linked by a literal tag, which cannot be a subject
	}
	reviews := map[string][]review{}
	limit := map[int]int{}
	b := index.NewBuilder()
	add := graphAdder(t, b)
	for p := range products {
		limit[p] = 1 + r.IntN(10)
	}
	for _, g := range graphs {
		for p := range products {
			add(g, ex("p%d", p), ex("type"), ex("Product"))
			add(g, ex("p%d", p), ex("limit"), num(limit[p]))
		}
		for i := range 500 {
			rv := review{product: r.IntN(products)}
			for range []int{0, 1, 1, 1, 2}[r.IntN(5)] {
				rv.ratings = append(rv.ratings, 1+r.IntN(10))
			}
			if r.IntN(10) == 0 {
				rv.literal = true
				add(g, ex("p%d", rv.product), ex("tag"), num(1000+i)) // no ratings: a literal has none
				rv.ratings = nil
			} else {
				id := ex("r%s_%d", g, i)
				add(g, id, ex("reviewFor"), ex("p%d", rv.product))
				for _, v := range rv.ratings {
					add(g, id, ex("rating"), num(v))
				}
			}
			reviews[g] = append(reviews[g], rv)
		}
	}
	ds := FromIndex(b.Build())

	// want lists the products of gs ("<g> <p>" in a named graph) for which some review (tagged ones when tags)
	// has no rating and unbound holds, or has a rating for which ok holds; or none has, when not.
	want := func(gs []string, not, tags, unbound bool, ok func(p, v int) bool) []string {
		var out []string
		for _, g := range gs {
			for p := range products {
				found := slices.ContainsFunc(reviews[g], func(rv review) bool {
					if rv.product != p || rv.literal != tags {
						return false
					}
					if len(rv.ratings) == 0 {
						return unbound
					}
					return slices.ContainsFunc(rv.ratings, func(v int) bool { return ok(p, v) })
				})
				if found == not {
					continue
				}
				row := fmt.Sprintf("<http://ex.org/p%d>", p)
				if g != "" {
					row = "<http://ex.org/" + g + "> " + row
				}
				out = append(out, row)
			}
		}
		slices.Sort(out)
		return out
	}
	// wantReviews lists the reviews of the default graph none of whose ratings passes ok (unbound: with none).
	wantReviews := func(unbound bool, ok func(v int) bool) []string {
		var out []string
		for i, rv := range reviews[""] {
			pass := len(rv.ratings) == 0 && unbound || slices.ContainsFunc(rv.ratings, ok)
			if !rv.literal && !pass {
				out = append(out, fmt.Sprintf("<http://ex.org/r_%d>", i))
			}
		}
		slices.Sort(out)
		return out
	}
	const pre = `PREFIX : <http://ex.org/> `
	def, named := []string{""}, []string{"g1", "g2"}
	below := func(n int) func(int, int) bool { return func(_, v int) bool { return v < n } }
	cases := []struct {
		src  string
		want []string
		bits bool // whether a bitmap must be built when forced
	}{
		{pre + `SELECT ?p { ?p :type :Product FILTER NOT EXISTS { ?r :reviewFor ?p OPTIONAL { ?r :rating ?x } FILTER(!BOUND(?x) || ?x < 3) } }`,
			want(def, true, false, true, below(3)), true},
		{pre + `SELECT ?p { ?p :type :Product FILTER EXISTS { ?r :reviewFor ?p OPTIONAL { ?r :rating ?x } FILTER(!BOUND(?x) || ?x < 3) } }`,
			want(def, false, false, true, below(3)), true},
		// Unbound, the comparison is an error: the filter fails.
		{pre + `SELECT ?p { ?p :type :Product FILTER NOT EXISTS { ?r :reviewFor ?p OPTIONAL { ?r :rating ?x } FILTER(?x >= 8) } }`,
			want(def, true, false, false, func(_, v int) bool { return v >= 8 }), true},
		{pre + `SELECT ?p { ?p :type :Product FILTER EXISTS { ?r :reviewFor ?p OPTIONAL { ?r :rating ?x } FILTER(!BOUND(?x)) } }`,
			want(def, false, false, true, func(int, int) bool { return false }), true},
		// ?x is bound by the outer row: substituted, it is bound whether the OPTIONAL matches or not, so a
		// product's reviews pass when its limit is below 5.
		{pre + `SELECT ?p { ?p :type :Product ; :limit ?x FILTER NOT EXISTS { ?r :reviewFor ?p OPTIONAL { ?r :rating ?x } FILTER(!BOUND(?x) || ?x < 5) } }`,
			func() []string {
				var out []string
				for p := range products {
					found := slices.ContainsFunc(reviews[""], func(rv review) bool {
						return rv.product == p && !rv.literal && limit[p] < 5
					})
					if !found {
						out = append(out, fmt.Sprintf("<http://ex.org/p%d>", p))
					}
				}
				slices.Sort(out)
				return out
			}(), false},
		// The tags are literals: no rating can be theirs, and they have no dictionary id to test.
		{pre + `SELECT ?p { ?p :type :Product FILTER EXISTS { ?p :tag ?r OPTIONAL { ?r :rating ?x } FILTER(!BOUND(?x) || ?x > 100) } }`,
			want(def, false, true, true, func(int, int) bool { return false }), false},
		// One review at a time: a review with a passing and a failing rating passes.
		{pre + `SELECT ?r { ?r :reviewFor ?p FILTER NOT EXISTS { ?r :reviewFor ?q OPTIONAL { ?r :rating ?x } FILTER(!BOUND(?x) || ?x < 4) } }`,
			wantReviews(true, func(v int) bool { return v < 4 }), true},
		{pre + `SELECT ?r { ?r :reviewFor ?p FILTER NOT EXISTS { ?r :reviewFor ?q OPTIONAL { ?r :rating ?x } FILTER(?x > 6) } }`,
			wantReviews(false, func(v int) bool { return v > 6 }), true},
		{pre + `SELECT ?g ?p { GRAPH ?g { ?p :type :Product FILTER NOT EXISTS { ?r :reviewFor ?p OPTIONAL { ?r :rating ?x } FILTER(!BOUND(?x) || ?x <= 4) } } }`,
			want(named, true, false, true, below(5)), true},
	}
	run := func(src string, optBits, semiJoin int) ([]string, bool) {
		res, e := semiRun(t, ds, src, Options{optBits: optBits, semiJoin: semiJoin})
		out := resultLines(res)
		built := false
		for _, of := range e.optFilters {
			built = built || of.bits != nil
		}
		return out, built
	}
	for _, c := range cases {
		if len(c.want) == 0 || len(c.want) == products {
			t.Fatalf("%s: the brute force found %d rows", c.src, len(c.want))
		}
		for _, optBits := range []int{1, -1, 0} {
			for _, semiJoin := range []int{1, -1} {
				got, built := run(c.src, optBits, semiJoin)
				if !slices.Equal(got, c.want) {
					t.Errorf("%s (optBits %d, semiJoin %d): %d rows, want %d\n got %q\nwant %q", c.src, optBits, semiJoin, len(got), len(c.want), got, c.want)
				}
				if optBits > 0 && built != c.bits {
					t.Errorf("%s (semiJoin %d): bitmap built %v, want %v", c.src, semiJoin, built, c.bits)
				}
				if optBits < 0 && built {
					t.Errorf("%s: a bitmap built where it was forbidden", c.src)
				}
			}
		}
	}
}
