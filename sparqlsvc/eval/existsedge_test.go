package eval

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestExistsSetsEdgeNumbers answers EXISTS keyed on the subject with conjuncts on the object (subjectSet), nested
// EXISTS sets (nestedSetScan) and
// EXISTS comparing a pattern value with the row's (existsextreme.go), sets forced, against substitution per row,
// over numbers at the edges of the forms held in ids: -0 and -0.0, values within 10^-21 of the bound, integers past
// 2^64 and decimals past int64 (in the dictionary), xsd:int and xsd:float, ±INF, a double that rounds to the bound,
// a simple literal "5", a boolean and a dateTime; the row's value of every such kind.
func TestExistsSetsEdgeNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 34))
	dec := func(s string) rdf.Term { return rdf.Literal(s, rdf.XSDDecimal) }
	values := []rdf.Term{intLit(1), intLit(5), intLit(-5), intLit(0), rdf.Literal("-0", rdf.XSDInteger), dec("-0.0"), dec("4.999999999999999999999"),
		dec("5.000000000000000000001"), dec("5.0"), rdf.Literal("18446744073709551617", rdf.XSDInteger), rdf.Literal("-18446744073709551617", rdf.XSDInteger),
		dec("12345678901234567890.5"), rdf.Literal("5", rdf.XSDNS+"int"), rdf.Literal("5", rdf.XSDNS+"float"), rdf.Literal("-INF", rdf.XSDDouble),
		rdf.Literal("INF", rdf.XSDDouble), rdf.Literal("4.9999999999999999E0", rdf.XSDDouble), rdf.Literal("5", ""), rdf.Literal("true", rdf.XSDBoolean),
		rdf.Literal("2021-03-04T00:00:00Z", index.XSDDateTime)}
	b := index.NewBuilder()
	add := graphAdder(t, b)
	addItems(add, r, 300, values, func() rdf.Term { return values[r.IntN(len(values))] })
	for i := range 300 {
		add("", exIRI("i%d", i), exIRI("grp"), exIRI("g%d", r.IntN(20)))
	}
	ds := FromIndex(b.Build())
	for _, f := range []string{
		`FILTER EXISTS { ?i :val ?v FILTER(?v > 5) }`, `FILTER EXISTS { ?i :val ?v FILTER(?v >= 5) }`,
		`FILTER EXISTS { ?i :val ?v FILTER(?v < 5) }`, `FILTER NOT EXISTS { ?i :val ?v FILTER(?v <= 5) }`,
		`FILTER EXISTS { ?i :val ?v FILTER(?v = 5) }`, `FILTER NOT EXISTS { ?i :val ?v FILTER(?v != 5) }`,
		`FILTER EXISTS { ?i :val ?v FILTER(?v > -0.0 && ?v < 18446744073709551617) }`,
		`FILTER EXISTS { ?i :val ?v FILTER(?v > 4.9999999999999999999999) }`,
		`FILTER EXISTS { ?i :val ?v FILTER(?v = 0) }`,
		`FILTER NOT EXISTS { ?i :val ?v FILTER(?v < 12345678901234567890.5) }`,
		`FILTER NOT EXISTS { ?o :grp ?g ; :val ?v FILTER(?v < ?lim) }`,
		`FILTER EXISTS { ?o :grp ?g ; :val ?v FILTER(?lim <= ?v) }`,
		`FILTER NOT EXISTS { ?o :grp ?g ; :val ?v FILTER(?v > ?lim) }`,
		`FILTER EXISTS { ?o :grp ?g ; :val ?v FILTER(?lim >= ?v) }`,
		`FILTER NOT EXISTS { ?o :lim ?lim FILTER EXISTS { ?o :val ?v FILTER(?v = -5) } }`,
		`FILTER EXISTS { ?o :lim ?lim FILTER EXISTS { ?o :val ?v FILTER(?v = 18446744073709551617) } }`,
	} {
		src := `PREFIX : <http://ex.org/> SELECT ?i { ?i :type :Item ; :lim ?lim ; :grp ?g ` + f + ` }`
		want, _ := semiRun(t, ds, src, Options{semiJoin: -1})
		got, _ := semiRun(t, ds, src, Options{semiJoin: 1})
		wl, gl := resultLines(want), resultLines(got)
		if !slices.Equal(gl, wl) {
			t.Errorf("%s: %d rows from the set, %d per row\n got %q\nwant %q", src, len(gl), len(wl), gl, wl)
		}
		if len(wl) == 0 || len(wl) == 300 {
			t.Errorf("%s: %d of 300 rows kept: the test tells nothing", f, len(wl))
		}
	}
}
