package eval

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestNestedSetScanMatchesPerRow answers EXISTS patterns of one triple filtered by nested EXISTS (nestedSetScan:
// the pattern's rows tested against the nested sets directly) with the sets forced, and by substitution per row,
// in the default graph and in named graphs: NOT EXISTS in NOT EXISTS (v55m), EXISTS in EXISTS, two nested
// conjuncts, and a nested pattern that reads the outer key too. Vendors without offers, offers without a price,
// with several prices, and a vendor with one offer are in the data. The forced runs must read the scan, and each
// query must keep some vendors and drop others.
func TestNestedSetScanMatchesPerRow(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 33))
	b := index.NewBuilder()
	add := graphAdder(t, b)
	const vendors = 30
	for _, g := range []string{"", "g1"} {
		for v := range vendors {
			add(g, exIRI("v%d", v), exIRI("type"), exIRI("Vendor"))
		}
		for i := range 300 {
			o := exIRI("o%s_%d", g, i)
			v := 1 + r.IntN(vendors-4) // vendor 0 has one offer, the last three none
			if i == 0 {
				v = 0
			}
			add(g, o, exIRI("vendor"), exIRI("v%d", v))
			for range r.IntN(3) { // none, one or two prices
				add(g, o, exIRI("price"), intLit(r.IntN(40)))
			}
			if r.IntN(3) == 0 {
				add(g, o, exIRI("days"), intLit(1))
			}
			if r.IntN(2) == 0 {
				add(g, o, exIRI("seller"), exIRI("v%d", r.IntN(vendors)))
			}
		}
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> `
	for _, src := range []string{
		`SELECT ?v { ?v :type :Vendor FILTER NOT EXISTS { ?o :vendor ?v FILTER NOT EXISTS { ?o :price ?p FILTER(?p > 3) } } }`,
		`SELECT ?v { ?v :type :Vendor FILTER EXISTS { ?o :vendor ?v FILTER EXISTS { ?o :price ?p FILTER(?p < 2) } } }`,
		`SELECT ?v { ?v :type :Vendor FILTER EXISTS { ?o :vendor ?v FILTER EXISTS { ?o :price ?p FILTER(?p < 20) } FILTER NOT EXISTS { ?o :days 1 } } }`,
		`SELECT ?v { ?v :type :Vendor FILTER NOT EXISTS { ?o :vendor ?v FILTER NOT EXISTS { ?o :seller ?v } } }`,
		`SELECT ?v { ?v :type :Vendor FILTER EXISTS { ?o :vendor ?v FILTER NOT EXISTS { ?o :seller ?v } FILTER EXISTS { ?o :price ?p } } }`,
		`SELECT ?g ?v { GRAPH ?g { ?v :type :Vendor FILTER NOT EXISTS { ?o :vendor ?v FILTER NOT EXISTS { ?o :price ?p FILTER(?p > 3) } } } }`,
	} {
		src = pre + src
		want, _ := semiRun(t, ds, src, Options{semiJoin: -1})
		got, e := semiRun(t, ds, src, Options{semiJoin: 1})
		wl, gl := resultLines(want), resultLines(got)
		if !slices.Equal(gl, wl) {
			t.Errorf("%s: %d rows from the sets, %d per row\n got %q\nwant %q", src, len(gl), len(wl), gl, wl)
		}
		if e.nestedScans == 0 {
			t.Errorf("%s: the nested sets were not read by scan", src)
		}
		if len(wl) == 0 || len(wl) >= vendors {
			t.Errorf("%s: %d rows kept: the test tells nothing", src, len(wl))
		}
	}
}

// TestSubjectSetMatchesPerRow answers EXISTS patterns of one triple keyed on its subject, with FILTER conjuncts
// on its object (subjectSet: valueRanges' ranges walked, the rest tested per row), with the sets forced and by
// substitution per row: ranges of numbers held in ids beside numbers in the dictionary, doubles, strings and
// dates, a "!=" and an IN (one interval out), a conjunct valueRanges cannot narrow (STRLEN), none, and a conjunct
// that reads another variable (declined).
func TestSubjectSetMatchesPerRow(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 34))
	values := []rdf.Term{intLit(1), intLit(5), intLit(12), rdf.Literal("5.5", rdf.XSDDecimal), rdf.Literal("300000000", rdf.XSDInteger),
		rdf.Literal("012", rdf.XSDInteger), rdf.Literal("7.5E0", rdf.XSDDouble), rdf.Literal("NaN", rdf.XSDDouble),
		rdf.Literal("abc", rdf.XSDString), rdf.Literal("2021-03-04", index.XSDDate), exIRI("thing")}
	b := index.NewBuilder()
	addItems(graphAdder(t, b), r, 200, values, func() rdf.Term { return intLit(r.IntN(10)) })
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> SELECT ?i { ?i :type :Item ; :lim ?lim `
	for _, c := range []struct {
		filter string
		taken  bool
	}{
		{`FILTER EXISTS { ?i :val ?v FILTER(?v > 4) }`, true},
		{`FILTER NOT EXISTS { ?i :val ?v FILTER(?v > 4 && ?v <= 12) }`, true},
		{`FILTER EXISTS { ?i :val ?v FILTER(?v != 5) }`, true},
		{`FILTER NOT EXISTS { ?i :val ?v FILTER(?v IN (1, 12, "abc")) }`, true},
		{`FILTER EXISTS { ?i :val ?v FILTER(STRLEN(STR(?v)) = 3) }`, true},
		{`FILTER NOT EXISTS { ?i :val ?v FILTER(?v > 4 && STRLEN(STR(?v)) = 2) }`, true},
		{`FILTER EXISTS { ?i :val ?v FILTER(?v >= "2021-01-01"^^<http://www.w3.org/2001/XMLSchema#date>) }`, true},
		{`FILTER NOT EXISTS { ?i :val ?v }`, true},
		{`FILTER EXISTS { ?i :val ?v FILTER(?v > ?lim) }`, false},
	} {
		src := pre + c.filter + ` }`
		want, _ := semiRun(t, ds, src, Options{semiJoin: -1})
		got, e := semiRun(t, ds, src, Options{semiJoin: 1})
		wl, gl := resultLines(want), resultLines(got)
		if !slices.Equal(gl, wl) {
			t.Errorf("%s: %d rows from the set, %d per row\n got %q\nwant %q", src, len(gl), len(wl), gl, wl)
		}
		if (e.subjectSets > 0) != c.taken {
			t.Errorf("%s: subjectSet taken %v, want %v", src, e.subjectSets > 0, c.taken)
		}
		if len(wl) == 0 || len(wl) == 200 {
			t.Errorf("%s: %d of 200 rows kept: the test tells nothing", src, len(wl))
		}
	}
}

// addItems adds n items :i0… of type :Item, each with none, one or two :val drawn from values and a :lim from lim.
func addItems(add func(g string, s, p, o rdf.Term), r *rand.Rand, n int, values []rdf.Term, lim func() rdf.Term) {
	for i := range n {
		s := exIRI("i%d", i)
		add("", s, exIRI("type"), exIRI("Item"))
		for range r.IntN(3) {
			add("", s, exIRI("val"), values[r.IntN(len(values))])
		}
		add("", s, exIRI("lim"), lim())
	}
}
