package eval

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestExistsExtremeMatchesPerRow answers EXISTS and NOT EXISTS whose FILTER compares a value of the pattern with
// one of the row (existsextreme.go) from each key's least or greatest value, forced at the first row, and by
// substitution per row (the set forbidden), over offers whose prices mix every kind of value the comparison
// meets: integers and decimals held in ids (equal values in other forms: 5, 5.0, 5.00), integers too large for an
// id and forms kept in the dictionary ("012"), doubles (NaN and INF among them), strings, dates, and offers without
// a price; products with one offer, with one vendor, and keys of one, two, three and no variables. Each forced run
// must have built a set (but the one whose FILTER reads two of the row's variables), and each query must keep some rows and drop others.
func TestExistsExtremeMatchesPerRow(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 3))
	prices := []rdf.Term{
		intLit(5), rdf.Literal("5.0", rdf.XSDDecimal), rdf.Literal("5.00", rdf.XSDDecimal), intLit(3), intLit(-2),
		rdf.Literal("4.125", rdf.XSDDecimal), rdf.Literal("4.2", rdf.XSDDecimal), intLit(7), intLit(12), intLit(0),
		rdf.Literal("300000000", rdf.XSDInteger), rdf.Literal("012", rdf.XSDInteger), rdf.Literal("6.5E0", rdf.XSDDouble),
		rdf.Literal("NaN", rdf.XSDDouble), rdf.Literal("INF", rdf.XSDDouble), rdf.Literal("-INF", rdf.XSDDouble),
		rdf.Literal("4.5", rdf.XSDNS+"float"), rdf.Literal("cheap", rdf.XSDString), rdf.Literal("12", ""),
		rdf.Literal("2020-01-01", index.XSDDate),
	}
	// Most offers are priced by numbers held in ids, so that most keys are answered from the set; a few keys
	// hold the other kinds and are evaluated per row.
	price := func() (rdf.Term, bool) {
		switch n := r.IntN(40); {
		case n == 0:
			return rdf.Term{}, false
		case n < 30:
			return prices[r.IntN(10)], true
		default:
			return prices[r.IntN(len(prices))], true
		}
	}
	b := index.NewBuilder()
	add := graphAdder(t, b)
	const products, vendors = 40, 4
	for g, offers := range map[string]int{"": 500, "g1": 120} {
		for i := range offers {
			o := exIRI("o%s_%d", g, i)
			p := r.IntN(products)
			if p < 5 && i >= 5 {
				p = 5 + r.IntN(products-5) // products 0–4 have one offer each (or none)
			}
			add(g, o, exIRI("product"), exIRI("p%d", p))
			v := r.IntN(vendors)
			if p%7 == 0 {
				v = 0 // every offer of these products from one vendor
			}
			add(g, o, exIRI("vendor"), exIRI("v%d", v))
			add(g, o, exIRI("days"), intLit(1+r.IntN(3)))
			if t, ok := price(); ok {
				add(g, o, exIRI("price"), t)
			}
		}
	}
	for p := range products {
		add("", exIRI("p%d", p), exIRI("limit"), prices[r.IntN(len(prices))])
	}
	ds := FromIndex(b.Build())

	const pre = `PREFIX : <http://ex.org/> `
	star := `?offer :product ?p ; :vendor ?v ; :price ?price `
	narrowed := []string{
		`SELECT ?p { ?p :limit ?lim FILTER(?lim < 6) FILTER EXISTS { ?o :product ?p ; :price ?x FILTER(?x < ?lim) } }`,
		`SELECT ?p { ?p :limit ?lim FILTER(?lim <= 4.2 && 7 > ?lim) FILTER NOT EXISTS { ?o :product ?p ; :price ?x FILTER(?x <= ?lim) } }`,
		`SELECT ?p { ?p :limit ?lim FILTER EXISTS { ?o :product ?p ; :price ?x FILTER(?lim < ?x) } FILTER(?lim >= 4.125) }`,
		`SELECT ?p { ?p :limit ?lim FILTER NOT EXISTS { ?o :product ?p ; :price ?x FILTER(?x >= ?lim) } FILTER(0 < ?lim) }`,
	}
	for _, src := range []string{
		// v55g: offers with no cheaper offer of the same product from the same vendor (ties are not cheaper).
		`SELECT ?offer { ` + star + `FILTER NOT EXISTS { ?o2 :product ?p ; :vendor ?v ; :price ?p2 FILTER(?p2 < ?price) } }`,
		`SELECT ?offer { ` + star + `FILTER EXISTS { ?o2 :product ?p ; :vendor ?v ; :price ?p2 FILTER(?p2 <= ?price) } }`,
		`SELECT ?offer { ` + star + `FILTER NOT EXISTS { ?o2 :product ?p ; :vendor ?v ; :price ?p2 FILTER(?price < ?p2) } }`,
		`SELECT ?offer { ` + star + `FILTER EXISTS { ?o2 :product ?p ; :vendor ?v ; :price ?p2 FILTER(?price <= ?p2 && ?o2 != :o_7) } }`,
		// Two conjuncts read the row: not an extreme (no set), evaluated per row.
		`SELECT ?offer { ` + star + `FILTER EXISTS { ?o2 :product ?p ; :vendor ?v ; :price ?p2 FILTER(?price <= ?p2 && ?o2 != ?offer) } }`,
		`SELECT ?offer { ` + star + `FILTER NOT EXISTS { ?o2 :product ?p ; :price ?p2 FILTER(?p2 >= ?price) FILTER(?o2 != :o_3) } }`,
		// Three key variables, and none.
		`SELECT ?offer { ` + star + `; :days ?d FILTER EXISTS { ?o2 :product ?p ; :vendor ?v ; :days ?d ; :price ?p2 FILTER(?p2 > ?price) } }`,
		`SELECT ?offer { ` + star + `FILTER NOT EXISTS { ?o2 :price ?p2 FILTER(?p2 < ?price) } }`,
		// v55k: products with an offer priced below their limit; the limit unbound where the OPTIONAL has none.
		`SELECT ?p { ?p :limit ?lim FILTER EXISTS { ?o :product ?p ; :price ?x FILTER(?x < ?lim) } }`,
		`SELECT ?p ?lim { ?o0 :product ?p OPTIONAL { ?p :limit ?lim FILTER(?lim != 7) } FILTER NOT EXISTS { ?o :product ?p ; :price ?x FILTER(?lim > ?x) } }`,
		// The row's FILTER bounds its value: the pattern narrowed to prices within the bound (narrowExtreme), by
		// integers, a decimal, the tightest of two, the bound written either way round; after the EXISTS, so that
		// rows outside the bound test it too (evaluated per row); a double bound is not one.
		narrowed[0], narrowed[1], narrowed[2], narrowed[3],
		`SELECT ?p { ?p :limit ?lim FILTER(?lim < 6.5E0) FILTER EXISTS { ?o :product ?p ; :price ?x FILTER(?x < ?lim) } }`,
		// An OPTIONAL in the pattern: ?x may be unbound in the pattern's solutions.
		`SELECT ?p { ?p :limit ?lim FILTER EXISTS { ?o :product ?p OPTIONAL { ?o :price ?x } FILTER(?x >= ?lim) } }`,
		`SELECT ?g ?offer { GRAPH ?g { ` + star + `FILTER NOT EXISTS { ?o2 :product ?p ; :price ?p2 FILTER(?p2 < ?price) } } }`,
	} {
		src = pre + src
		want, _ := semiRun(t, ds, src, Options{semiJoin: -1})
		got, e := semiRun(t, ds, src, Options{semiJoin: 1})
		wl, gl := resultLines(want), resultLines(got)
		if !slices.Equal(gl, wl) {
			t.Errorf("%s: %d rows from the set, %d per row\n got %q\nwant %q", src, len(gl), len(wl), gl, wl)
		}
		if twoRead := strings.Contains(src, "?o2 != ?offer"); (e.semiSets > 0) == twoRead {
			t.Errorf("%s: %d sets built", src, e.semiSets)
		}
		if (e.narrowSets > 0) != slices.Contains(narrowed, strings.TrimPrefix(src, pre)) {
			t.Errorf("%s: %d narrowed sets built", src, e.narrowSets)
		}
		all, _ := semiRun(t, ds, allRows(src), Options{semiJoin: -1})
		if len(wl) == 0 || len(wl) == len(resultLines(all)) {
			t.Errorf("%s: %d of %d rows kept: the test tells nothing", src, len(wl), len(resultLines(all)))
		}
	}
}

// allRows is src with its FILTER [NOT] EXISTS taken out (the rows that test it).
func allRows(src string) string {
	for _, kw := range []string{"FILTER NOT EXISTS", "FILTER EXISTS"} {
		if i := strings.Index(src, kw); i >= 0 {
			depth, j := 0, i
			for ; j < len(src); j++ {
				if src[j] == '{' {
					depth++
				} else if src[j] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			return src[:i] + src[j+1:]
		}
	}
	return src
}

// TestExistsExtremeTies checks the per-key least value by hand: equal prices in other forms are not cheaper,
// an offer alone for its key is kept, a double or NaN among a key's prices sends its rows to evaluation per row.
func TestExistsExtremeTies(t *testing.T) {
	b := index.NewBuilder()
	add := graphAdder(t, b)
	offer := func(name, product string, price rdf.Term) {
		add("", exIRI("%s", name), exIRI("product"), exIRI("%s", product))
		add("", exIRI("%s", name), exIRI("price"), price)
	}
	offer("a1", "A", intLit(5))
	offer("a2", "A", rdf.Literal("5.0", rdf.XSDDecimal))
	offer("a3", "A", rdf.Literal("5.00", rdf.XSDDecimal))
	offer("a4", "A", intLit(6))
	offer("b1", "B", intLit(9)) // alone
	offer("c1", "C", rdf.Literal("NaN", rdf.XSDDouble))
	offer("c2", "C", intLit(4))
	offer("c3", "C", intLit(3))
	offer("d1", "D", rdf.Literal("2.5E0", rdf.XSDDouble))
	offer("d2", "D", intLit(3))
	ds := FromIndex(b.Build())
	src := `PREFIX : <http://ex.org/> SELECT ?o { ?o :product ?p ; :price ?price
		FILTER NOT EXISTS { ?o2 :product ?p ; :price ?p2 FILTER(?p2 < ?price) } }`
	want := []string{"<http://ex.org/a1>", "<http://ex.org/a2>", "<http://ex.org/a3>", "<http://ex.org/b1>",
		"<http://ex.org/c1>", "<http://ex.org/c3>", "<http://ex.org/d1>"}
	for _, mode := range []int{1, -1} {
		res, e := semiRun(t, ds, src, Options{semiJoin: mode})
		if got := resultLines(res); !slices.Equal(got, want) {
			t.Errorf("semiJoin %d: got %q, want %q", mode, got, want)
		}
		if (e.semiSets > 0) != (mode > 0) {
			t.Errorf("semiJoin %d: %d sets built", mode, e.semiSets)
		}
	}
}

// TestExtremesLimitSendsOthersPerRow: a set narrowed by a bound (narrowExtreme) answers only rows whose value is a
// number held in an id within the bound, the bound itself included; a row beyond it, or holding another value, is
// evaluated by substitution (ok false), even for a key the narrowed pattern gave no solution.
func TestExtremesLimitSendsOthersPerRow(t *testing.T) {
	num := func(v int64, scale int) ID {
		id, ok := index.DecimalID(v, scale)
		if !ok {
			t.Fatalf("%d/10^%d not held in an id", v, scale)
		}
		return id
	}
	const key, inner, outer = 0, 1, 2
	for _, keepMax := range []bool{false, true} {
		op, limit, within, beyond := "<", num(6, 0), num(55, 1), num(61, 1)
		if keepMax {
			op, limit, within, beyond = ">", num(-1, 0), num(-5, 1), num(-15, 1)
		}
		x := newExtremes(&extremeShape{inner: inner, outer: outer, op: opIndex(op), keepMax: keepMax, limit: limit}, 1)
		slots := []int{key}
		x.add([]ID{10, num(5, 0), 0}, slots, nil)
		if keepMax {
			x.add([]ID{10, num(-2, 0), 0}, slots, nil)
		}
		for _, c := range []struct {
			row       []ID
			found, ok bool
		}{
			{[]ID{10, 0, within}, true, true},
			{[]ID{10, 0, limit}, true, true},
			{[]ID{11, 0, within}, false, true}, // no solution within the bound: none below the row's value
			{[]ID{11, 0, beyond}, false, false},
			{[]ID{10, 0, beyond}, false, false},
			{[]ID{11, 0, 7}, false, false}, // a dictionary id: not a number held in an id
		} {
			if found, ok, _ := x.has(c.row, slots, nil); found != c.found || ok != c.ok {
				t.Errorf("keepMax %v, row %v: found %v ok %v, want %v %v", keepMax, c.row, found, ok, c.found, c.ok)
			}
		}
	}
}

// TestExtremeStarMatchesPerRow: an extreme's star of two patterns read by its (subject, value) pairs (extremeStar)
// gives what evaluation per row gives, where the key's predicate is read in order (many pairs) and where it is
// probed by ascending subject (three offers priced under the bound among 3 000): offers with two prices, with two
// products, without a product, prices that are NaN, strings, doubles and decimals equal to integers, bounds of
// either kind, EXISTS and NOT EXISTS.
func TestExtremeStarMatchesPerRow(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 7))
	b, add := builderAdding(t)
	cheap := []rdf.Term{intLit(1), rdf.Literal("1.0", rdf.XSDDecimal), rdf.Literal("NaN", rdf.XSDDouble), rdf.String("2"),
		rdf.Literal("0.5E0", rdf.XSDDouble), intLit(3)}
	for i := range 3000 {
		o := exIRI("o%d", i)
		if i%97 != 0 {
			add(o, exIRI("product"), exIRI("p%d", r.IntN(60)))
		}
		if i%211 == 0 {
			add(o, exIRI("product"), exIRI("p%d", r.IntN(60))) // a second product
		}
		price := intLit(100 + r.IntN(900))
		if i%1000 == 7 || i%13 == 0 && i < 400 {
			price = cheap[r.IntN(len(cheap))] // few offers under the bound in the first queries, more in the last
		}
		add(o, exIRI("price"), price)
		if i%17 == 0 {
			add(o, exIRI("price"), intLit(2+r.IntN(300))) // a second price
		}
	}
	for p := range 60 {
		add(exIRI("p%d", p), exIRI("limit"), []rdf.Term{intLit(2), intLit(4), rdf.Literal("2.5", rdf.XSDDecimal), intLit(250), rdf.String("x")}[p%5])
	}
	ds := FromIndex(b.Build())
	for _, src := range []string{
		`SELECT ?p { ?p :limit ?lim FILTER(?lim < 5) FILTER EXISTS { ?o :product ?p ; :price ?x FILTER(?x < ?lim) } }`,
		`SELECT ?p { ?p :limit ?lim FILTER(?lim <= 2.5) FILTER NOT EXISTS { ?o :product ?p ; :price ?x FILTER(?lim >= ?x) } }`,
		`SELECT ?p { ?p :limit ?lim FILTER(?lim <= 250) FILTER EXISTS { ?o :product ?p ; :price ?x FILTER(?x < ?lim) } }`,
		`SELECT ?p { ?p :limit ?lim FILTER(?lim > 3) FILTER EXISTS { ?o :product ?p ; :price ?x FILTER(?x > ?lim) } }`,
	} {
		src = `PREFIX : <http://ex.org/> ` + src
		want, _ := semiRun(t, ds, src, Options{semiJoin: -1})
		got, e := semiRun(t, ds, src, Options{semiJoin: 1})
		if wl, gl := resultLines(want), resultLines(got); !slices.Equal(gl, wl) {
			t.Errorf("%s: %d rows from the set, %d per row\n got %q\nwant %q", src, len(gl), len(wl), gl, wl)
		} else if len(wl) == 0 {
			t.Errorf("%s: no rows: the test tells nothing", src)
		}
		if e.narrowSets == 0 {
			t.Errorf("%s: no narrowed set built", src)
		}
	}
}
