package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestValuesLastAsValuesFirst: a VALUES written after the BGP it shares variables with (valuesFirst) gives the
// answers of the same query with the VALUES written first: constants only, UNDEF in either column, a repeated row,
// a term the data lacks, a FILTER and a GROUP BY above, and a VALUES sharing no variable (a cross product, left
// as written). Where the VALUES binds the selective variables, evaluating it first reads a few rows where the BGP
// evaluated on its own reads every offer: the old evaluation fails the steps check.
func TestValuesLastAsValuesFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b, add := builderAdding(t)
	for i := range 3000 {
		o := ex("o", i)
		add(o, ex("product", 0), ex("P", r.IntN(300)))
		add(o, ex("days", 0), rdf.Literal(fmt.Sprint(1+r.IntN(10)), rdf.XSDInteger))
		add(o, ex("price", 0), rdf.Literal(fmt.Sprint(r.IntN(100)), rdf.XSDInteger))
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> `
	const bgp = `?o :product0 ?p ; :days0 ?d ; :price0 ?price . `
	cases := []struct {
		head, values, tail string
		few                bool
	}{
		{`SELECT ?o ?p ?d ?price {`, `VALUES (?p ?d) { (:P1 3) (:P2 5) (:P7 1) (:P299 10) (:P12 4) }`, `}`, true},
		{`SELECT ?o ?p ?d {`, `VALUES (?p ?d) { (:P1 UNDEF) (UNDEF 2) (:P3 7) (:P3 7) (:Nothing 1) }`, `}`, false},
		{`SELECT ?p (COUNT(*) AS ?n) (SUM(?price) AS ?s) {`, `VALUES ?p { :P5 :P6 :P7 }`, `FILTER(?price > 20) } GROUP BY ?p`, true},
		{`SELECT ?o ?x {`, `VALUES ?x { "a" "b" }`, `FILTER(?price < 2) }`, false},
	}
	for i, c := range cases {
		last := pre + c.head + " " + bgp + c.values + " " + c.tail
		first := pre + c.head + " " + c.values + " " + bgp + c.tail
		want, stepsFirst := runTopWith(t, ds, first, false, Options{})
		got, stepsLast := runTopWith(t, ds, last, false, Options{})
		slices.Sort(want)
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("case %d:\n%s\n got %s\nwant %s", i, last, strings.Join(got, "; "), strings.Join(want, "; "))
		}
		if c.few && (stepsLast > 2*stepsFirst || stepsLast > 1000) {
			t.Errorf("case %d: %d steps with the VALUES last, %d with it first: the BGP was evaluated on its own", i, stepsLast, stepsFirst)
		}
	}
}
