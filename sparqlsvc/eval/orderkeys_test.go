package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestOrderByNumberKeysMatchPlain: ORDER BY over arithmetic that numberValue computes (keys held as numbers,
// builtin.NumberKey, their terms written only on ties) orders exactly as the same keys wrapped in COALESCE, which
// the general evaluation computes as terms: ratios that tie (3/6 and 1/2, and with the next key deciding),
// integers against decimals of one value (2 and 2.0, ordered by their terms), divisions by zero and other errors
// (unbound keys first), doubles, strings, IRIs and blank nodes as operands, big decimals past the fixed form,
// negative zero (decimal and double), DESC and mixed ASC/DESC keys, and slices served by orderTop, orderSelect, the heap and the full
// sort, with offsets past the end.
func TestOrderByNumberKeysMatchPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 4))
	b, add := builderAdding(t)
	number := func() rdf.Term {
		switch r.IntN(16) {
		case 0:
			return rdf.Literal(fmt.Sprintf("%d.0", r.IntN(5)), rdf.XSDDecimal)
		case 1:
			return rdf.Literal(fmt.Sprintf("%d.%03d", r.IntN(50)-25, r.IntN(1000)), rdf.XSDDecimal)
		case 2:
			return rdf.Literal(fmt.Sprintf("%de0", r.IntN(6)), rdf.XSDDouble)
		case 3:
			// NaN among zeros of every type: before session 21 OrderKeys put 0 before 0.0 (their terms), 0.0
			// before NaN and NaN before 0 (datatypes), and a selection and a full sort disagreed.
			return rdf.Literal([]string{"-0.0E0", "NaN"}[r.IntN(2)], rdf.XSDDouble)
		case 4:
			return rdf.String(fmt.Sprint(r.IntN(4)))
		case 5:
			return rdf.Literal("-0.0", rdf.XSDDecimal)
		case 6:
			return rdf.Literal("123456789012345678901234.5", rdf.XSDDecimal)
		case 7:
			return exIRI("n%d", r.IntN(3))
		case 8:
			return rdf.Blank(fmt.Sprint("b", r.IntN(3)))
		case 9:
			return rdf.LangString("1", "en")
		case 10:
			return rdf.Literal("0", rdf.XSDInteger)
		}
		return rdf.Literal(fmt.Sprint(r.IntN(13)-3), rdf.XSDInteger)
	}
	for i := range 3000 {
		s := exIRI("s%04d", r.IntN(100000))
		for _, p := range []string{"a", "b"} {
			if r.IntN(20) == 0 {
				continue // unbound under the OPTIONAL
			}
			add(s, exIRI("%s", p), number())
		}
		add(s, exIRI("i"), intLit(i))
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX ex: <http://ex.org/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT ?s ?k `
	const body = `{ ?s ex:i ?i OPTIONAL { ?s ex:a ?a } OPTIONAL { ?s ex:b ?b } BIND(STR(?a) AS ?k) } `
	orders := []string{
		`ORDER BY DESC(?a / ?b) ?s`,
		`ORDER BY (?a / ?b) DESC(?s)`,
		`ORDER BY (?a * 1) ?s`,
		`ORDER BY DESC(?a + ?b) (?a - ?b) ?s`,
		`ORDER BY (-?a) DESC(?b * 2.5) ?s`,
		`ORDER BY (ABS(?a) / 3) DESC(xsd:decimal(?b)) ?s`,
		`ORDER BY DESC(?a / 7) ?s`,
	}
	for _, order := range orders {
		plainOrder := order
		for _, k := range []string{"(?a / ?b)", "(?a * 1)", "(?a + ?b)", "(?a - ?b)", "(-?a)", "(?b * 2.5)", "(ABS(?a) / 3)", "(xsd:decimal(?b))", "(?a / 7)"} {
			plainOrder = strings.ReplaceAll(plainOrder, k, "(COALESCE"+k+")")
		}
		if plainOrder == order {
			t.Fatalf("%s: no key made plain", order)
		}
		want := runOrdered(t, ds, pre+body+plainOrder)
		if got := runOrdered(t, ds, pre+body+order); !slices.Equal(got, want) {
			t.Fatalf("%s: the full sort differs from COALESCE's", order)
		}
		n := len(want)
		for _, slice := range [][2]int{{10, 0}, {15, 900}, {100, 20}, {1000, 1500}, {50, n - 20}, {20, n + 5}} {
			sl := fmt.Sprintf(" LIMIT %d OFFSET %d", slice[0], slice[1])
			start, end := min(slice[1], n), min(slice[1]+slice[0], n)
			for _, maxRows := range []int{0, 3 * (slice[0] + slice[1])} {
				got := runOrderedWith(t, ds, pre+body+order+sl, Options{MaxRows: maxRows})
				if !slices.Equal(got, want[start:end]) {
					t.Fatalf("%s%s (%d rows): not the plain sort's slice\n got %q\nwant %q", order, sl, maxRows,
						got[:min(len(got), 4)], want[start:min(end, start+4)])
				}
			}
		}
	}
}

// TestOrderByLateBindsMatchPlain: SELECT expressions and BINDs that no order key reads, run only on the solutions a
// slice keeps (orderLate), give the rows and order of the same query sliced after a full sort: a chain of
// expressions reading each other, errors (unbound results), the expression repeated as the order key, the alias
// as the order key (not deferred), a DISTINCT over the projected expressions, a subquery with its LIMIT joined to
// a pattern binding the expression's variable, FILTERs between BINDs (those that read a BIND's variable keep it
// below them), offsets inside and past the end.
func TestOrderByLateBindsMatchPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 5))
	b, add := builderAdding(t)
	for i := range 2000 {
		s := exIRI("s%04d", r.IntN(100000))
		for _, p := range []string{"a", "b"} {
			o := rdf.Literal(fmt.Sprint(r.IntN(9)-2), rdf.XSDInteger)
			if r.IntN(10) == 0 {
				o = rdf.LangString(fmt.Sprint("é", r.IntN(3)), "fr")
			}
			add(s, exIRI("%s", p), o)
		}
		add(s, exIRI("i"), intLit(i%7))
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX ex: <http://ex.org/> `
	for _, q := range []string{
		`SELECT ?s (?a / ?b AS ?r) (CONCAT(STR(?r), "·") AS ?c) { ?s ex:a ?a ; ex:b ?b } ORDER BY DESC(?a / ?b) ?s`,
		`SELECT ?s ?r { ?s ex:a ?a ; ex:b ?b BIND(?a * ?b AS ?r) BIND(?r + 1 AS ?r1) } ORDER BY ?b DESC(?s)`,
		`SELECT ?s (?a / ?b AS ?r) { ?s ex:a ?a ; ex:b ?b } ORDER BY ?r ?s`,
		`SELECT DISTINCT (?a * 0 AS ?z) (STR(?b) AS ?t) { ?s ex:a ?a ; ex:b ?b } ORDER BY DESC(?a)`,
		`SELECT ?s ?i ?d { ?s ex:i ?i { SELECT ?s (?a + ?b AS ?d) { ?s ex:a ?a ; ex:b ?b } ORDER BY ?a ?s LIMIT 300 } }`,
		`SELECT ?s ?d { ?s ex:i ?d { SELECT ?s (?a AS ?d) { ?s ex:a ?a } ORDER BY DESC(?s) LIMIT 900 } }`,
		// FILTERs between the BINDs: one that does not read a BIND's variable lets it wait (h170's shape), one that
		// reads it (or a BIND below it) keeps it, and an error in the BIND leaves its variable unbound either way.
		`SELECT ?s ?r ?t { ?s ex:a ?a ; ex:b ?b BIND(?a * ?b AS ?r) BIND(CONCAT(STR(?a), "·", STR(?b)) AS ?t) FILTER(?r != 0) } ORDER BY DESC(?r) ?s`,
		`SELECT ?s ?u ?t { ?s ex:a ?a ; ex:b ?b BIND(?a / ?b AS ?u) FILTER(?u > 0) BIND(UCASE(STR(?b)) AS ?t) FILTER(?a != 3) } ORDER BY ?s`,
		`SELECT ?s ?v ?w { ?s ex:a ?a ; ex:i ?i BIND(?a / (?i - 3) AS ?v) FILTER(?i > 1) BIND(?v + 1 AS ?w) FILTER(BOUND(?w) || ?a < 0) } ORDER BY DESC(?i) ?s`,
		`SELECT ?s ?t { ?s ex:a ?a BIND(LCASE(STR(?a)) AS ?t) FILTER(STRLEN(?t) < 3) } ORDER BY ?a ?s`,
		`SELECT ?s ?t { ?s ex:a ?a OPTIONAL { ?s ex:b ?b } BIND(COALESCE(?b * 2, -1) AS ?t) FILTER(?a != 0) } ORDER BY DESC(?s)`,
	} {
		rows := resultRows(mustRun(t, ds, pre+q, Options{}))
		if len(rows) < 20 {
			t.Fatalf("%s: %d rows", q, len(rows))
		}
		n := len(rows)
		for _, slice := range [][2]int{{10, 0}, {15, 100}, {400, 50}, {30, n - 10}, {5, n + 3}} {
			sl := fmt.Sprintf(" LIMIT %d OFFSET %d", slice[0], slice[1])
			got := mustRun(t, ds, pre+q+sl, Options{})
			start, end := min(slice[1], n), min(slice[1]+slice[0], n)
			if g := resultRows(got); !slices.Equal(g, rows[start:end]) {
				t.Fatalf("%s%s: not the full sort's slice\n got %q\nwant %q", q, sl, g[:min(len(g), 3)], rows[start:min(end, start+3)])
			}
		}
	}
}
