package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestValuesMatchTerms holds the arithmetic computed in builtin.Value form (values.go: comparisons, arithmetic
// calls, MIN and MAX of expressions) to the same queries evaluated with every operator on terms (noValues): prices
// held in ids, decimals too long for an id, AVGs of 18 places from a subquery joined back (h123's shape), integers
// at int64's limits, doubles and floats with NaN, ±INF and −0, strings and IRIs (errors), division by zero, ties
// between 3, 3.0 and 3e0 in MIN and MAX. Every query must give the same rows in the same order both ways.
func TestValuesMatchTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 123))
	b := index.NewBuilder()
	ga := graphAdder(t, b)
	add := func(s, p, o rdf.Term) { ga("", s, p, o) }
	ex := func(s string) rdf.Term { return exIRI("%s", s) }
	value := func() rdf.Term {
		switch r.IntN(12) {
		case 0, 1, 2, 3: // a price held in its id
			return rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(10000), r.IntN(100)), rdf.XSDDecimal)
		case 4: // too many places for an id
			return rdf.Literal(fmt.Sprintf("%d.%015d", r.IntN(100000), r.Int64N(1e15)), rdf.XSDDecimal)
		case 5:
			return rdf.Literal(strconv.Itoa(r.IntN(2001)-1000), rdf.XSDInteger)
		case 6:
			return rdf.Literal([]string{"9223372036854775807", "-9223372036854775808", "9223372036854775806",
				"170141183460469231731687303715884105727", "0", "3"}[r.IntN(6)], rdf.XSDInteger)
		case 7:
			return rdf.Literal([]string{"3.0", "3", "0.0", "-0.5", "12345678901234567890.123456789012345678"}[r.IntN(5)], rdf.XSDDecimal)
		case 8:
			return rdf.Literal([]string{"NaN", "INF", "-INF", "-0", "0", "3e0", "2.5", "-2.5", "1.0E300", "0.1"}[r.IntN(10)], rdf.XSDDouble)
		case 9:
			if r.IntN(2) == 0 {
				return rdf.Literal(strconv.FormatFloat((r.Float64()-0.3)*1e4, 'g', -1, 64), rdf.XSDDouble)
			}
			return rdf.Literal([]string{"1.5", "NaN", "-0", "16777217", "3"}[r.IntN(5)], rdf.XSDNS+"float")
		case 10:
			return rdf.String(fmt.Sprint(r.IntN(10)))
		}
		return ex(fmt.Sprint("x", r.IntN(3)))
	}
	// Equal values in other types and forms, for ties in comparisons, MIN and MAX.
	tie := func() rdf.Term {
		return []rdf.Term{rdf.Literal("3", rdf.XSDInteger), rdf.Literal("3.0", rdf.XSDDecimal), rdf.Literal("3e0", rdf.XSDDouble),
			rdf.Literal("3", rdf.XSDNS+"float"), rdf.Literal("3.000000000000000000000001", rdf.XSDDecimal),
			rdf.Literal("1.5", rdf.XSDDouble), rdf.Literal("1.50", rdf.XSDDecimal), rdf.Literal("2.999999999999999999999", rdf.XSDDecimal)}[r.IntN(8)]
	}
	for p := range 40 {
		product := ex(fmt.Sprint("p", p))
		add(product, ex("group"), rdf.Literal(strconv.Itoa(p%4), rdf.XSDInteger))
		for o := range 1 + r.IntN(12) {
			offer := ex(fmt.Sprintf("o%d_%d", p, o))
			add(offer, ex("product"), product)
			if p%7 == 0 { // products whose AVG is not a number Value reads: the terms decide
				add(offer, ex("price"), value())
			} else {
				add(offer, ex("price"), rdf.Literal(fmt.Sprintf("%d.%02d", 1+r.IntN(5000), r.IntN(100)), rdf.XSDDecimal))
			}
			add(offer, ex("v"), value())
			add(offer, ex("w"), value())
			add(offer, ex("t"), tie())
			add(offer, ex("u"), tie())
		}
	}
	ds := FromIndex(b.Build())
	run := func(src string, noValues bool) []string {
		t.Helper()
		q, err := parser.Parse("PREFIX : <http://ex.org/>\n"+src, parser.Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		e := newEvaluator(context.Background(), ds, q, Options{})
		e.noValues = noValues
		c := &collector{res: &Result{}}
		if err := e.selectQuery(q, c); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return resultLines(c.res)
	}
	const avgJoin = `{ SELECT ?product (AVG(?p) AS ?avg) { ?o :product ?product ; :price ?p } GROUP BY ?product }
		?offer :product ?product ; :price ?price . `
	queries := []string{
		// h123's shape
		`SELECT ?product (COUNT(*) AS ?n) (MAX(ROUND(ABS(?price - ?avg) * 100 / ?avg)) AS ?worst) { ` + avgJoin +
			`FILTER(ABS(?price - ?avg) > 0.5 * ?avg) } GROUP BY ?product ORDER BY DESC(?n) DESC(?worst) ?product`,
		`SELECT ?product (MIN(?price / ?avg) AS ?lo) (MAX(?price * 3 / ?avg) AS ?hi) (MIN(-?avg) AS ?m) { ` + avgJoin +
			`} GROUP BY ?product ORDER BY ?product`,
		`SELECT ?offer ?price (?price - ?avg AS ?d) (ROUND(?d * 1000) AS ?r) (CEIL(?avg) AS ?c) (FLOOR(-?avg) AS ?f) { ` +
			avgJoin + `FILTER(?price / ?avg <= 1.25 || ?avg - ?price >= 10) } ORDER BY ?offer`,
		`SELECT ?offer { ` + avgJoin + `FILTER(?price * 2 = ?avg + ?avg) } ORDER BY ?offer`,
		// mixed operands, errors, doubles
		`SELECT ?o ?v ?w (?v + ?w AS ?s) (?v - ?w AS ?d) (?v * ?w AS ?m) (?v / ?w AS ?q) (-?v AS ?n) (+?w AS ?pl)
			(ABS(?v) AS ?a) (ROUND(?w) AS ?rw) (CEIL(?v / 7) AS ?c) (FLOOR(?v * 1.5e0) AS ?f) (?v / (?w - ?w) AS ?z)
			{ ?o :v ?v ; :w ?w } ORDER BY ?o`,
		`SELECT ?o { ?o :v ?v ; :w ?w FILTER(?v * 1 < ?w + 0) } ORDER BY ?o`,
		`SELECT ?o { ?o :v ?v ; :w ?w FILTER(?v - ?w != 0.0) } ORDER BY ?o`,
		`SELECT ?o { ?o :v ?v ; :w ?w FILTER(-?v >= ?w / 3) } ORDER BY ?o`,
		`SELECT ?o { ?o :v ?v FILTER(ABS(?v) = 3) } ORDER BY ?o`,
		`SELECT ?o { ?o :v ?v FILTER(?v * 0.5 > "1" || ?v * 1 > 0) } ORDER BY ?o`,
		`SELECT ?g (MIN(?v * 1) AS ?lo) (MAX(?v + 0) AS ?hi) (MAX(?v / ?w) AS ?q) (MIN(ROUND(?w)) AS ?rw) (COUNT(*) AS ?n)
			{ ?o :product ?p ; :v ?v ; :w ?w . ?p :group ?g } GROUP BY ?g ORDER BY ?g`,
		`SELECT ?o ?x { ?o :v ?v ; :w ?w BIND(?v * ?w - ?v / 3 AS ?x) } ORDER BY ?x ?o`,
		`SELECT ?o { ?o :t ?t ; :u ?u FILTER(?t * 1 <= ?u + 0) } ORDER BY ?o`,
		`SELECT ?o { ?o :t ?t ; :u ?u FILTER(?t * 1 >= ?u - 0 && ?t - 0 != ?u * 1) } ORDER BY ?o`,
		`SELECT ?o { ?o :t ?t ; :u ?u FILTER(?t * 1 = ?u / 1) } ORDER BY ?o`,
		`SELECT ?o { ?o :t ?t ; :u ?u FILTER(?t * 1 >= ?u - 0) } ORDER BY ?o`,
		`SELECT ?o { ?o :t ?t ; :u ?u FILTER(?t / 1 < ?u * 1 || ?t + 0 > ?u * 1) } ORDER BY ?o`,
		`SELECT ?g (MAX(?t * 1) AS ?hi) (MIN(?u + 0) AS ?lo) (MAX(?t / 2) AS ?h2) (MIN(-?t) AS ?n) (MAX(ROUND(?u)) AS ?r)
			{ ?o :product ?p ; :t ?t ; :u ?u . ?p :group ?g } GROUP BY ?g ORDER BY ?g`,
		`SELECT ?o ((2.5 - 0.5e0) * ?t AS ?k) ((?u - 1) * 1.5e0 AS ?j) { ?o :t ?t ; :u ?u } ORDER BY ?o`,
		`SELECT ?o { ?o :v ?v ; :w ?w } ORDER BY DESC(?v * 2 - ?w) ?o`,
	}
	for _, q := range queries {
		want := run(q, true)
		got := run(q, false)
		if !slices.Equal(got, want) {
			t.Errorf("%s\n values %d rows %q\n terms  %d rows %q", q, len(got), got, len(want), want)
		}
		if len(want) == 0 {
			t.Errorf("%s: no rows", q)
		}
	}
}
