package eval

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestDistinctByKeyMatchesGroupBy: SELECT DISTINCT of one or two variables, its set keyed by their ids
// (distinctByKey), gives the solutions GROUP BY of the same variables gives, and the whole-row set of three
// variables (one a constant) gives the same after it is dropped: over rows whose other variables (a path's hidden
// ones, a join's) vary, values an OPTIONAL leaves unbound, numbers held in ids and variables the outer pattern
// binds before the sub-select.
func TestDistinctByKeyMatchesGroupBy(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 9))
	b := index.NewBuilder()
	ga := graphAdder(t, b)
	add := func(s, p, o rdf.Term) { ga("", s, p, o) }
	for i := range 300 {
		add(ex("o", i), ex("vendor", 0), ex("v", r.IntN(20)))
		add(ex("o", i), ex("product", 0), ex("p", r.IntN(40)))
		if r.IntN(3) > 0 {
			add(ex("o", i), ex("days", 0), intLit(r.IntN(5)))
		}
	}
	for i := range 40 {
		add(ex("p", i), ex("type", 0), ex("t", r.IntN(6)))
	}
	for i := 1; i < 6; i++ {
		add(ex("t", i), ex("sub", 0), ex("t", r.IntN(i)))
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> `
	pairs := [][2]string{
		{`SELECT DISTINCT ?v { ?v ^:vendor0/:product0/:type0/:sub0* :t0 }`,
			`SELECT ?v { ?v ^:vendor0/:product0/:type0/:sub0* :t0 } GROUP BY ?v`},
		{`SELECT DISTINCT ?v ?d { ?o :vendor0 ?v OPTIONAL { ?o :days0 ?d } }`,
			`SELECT ?v ?d { ?o :vendor0 ?v OPTIONAL { ?o :days0 ?d } } GROUP BY ?v ?d`},
		{`SELECT DISTINCT ?d ?v { ?o :vendor0 ?v ; :product0 ?p OPTIONAL { ?o :days0 ?d } }`,
			`SELECT ?d ?v { ?o :vendor0 ?v ; :product0 ?p OPTIONAL { ?o :days0 ?d } } GROUP BY ?d ?v`},
		{`SELECT ?p ?v { ?p :type0 :t1 { SELECT DISTINCT ?p ?v { ?o :product0 ?p ; :vendor0 ?v } } }`,
			`SELECT ?p ?v { ?p :type0 :t1 { SELECT ?p ?v { ?o :product0 ?p ; :vendor0 ?v } GROUP BY ?p ?v } }`},
		{`SELECT REDUCED ?d { ?o :vendor0 :v3 OPTIONAL { ?o :days0 ?d } }`,
			`SELECT ?d { ?o :vendor0 :v3 OPTIONAL { ?o :days0 ?d } } GROUP BY ?d`},
		{`SELECT ?v ?p { SELECT DISTINCT ?v ?p ?c { ?o :vendor0 ?v ; :product0 ?p BIND(1 AS ?c) } }`,
			`SELECT ?v ?p { ?o :vendor0 ?v ; :product0 ?p } GROUP BY ?v ?p`},
	}
	for _, q := range pairs {
		got, _ := runQuery(t, ds, pre+q[0])
		want, _ := runQuery(t, ds, pre+q[1])
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %d %q\nwant %d %q", q[0], len(got), got, len(want), want)
		}
		if len(want) < 2 {
			t.Errorf("%s: %d solutions: the data does not test the set", q[0], len(want))
		}
	}
}
