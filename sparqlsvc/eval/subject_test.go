package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestSubjectIndexJoin: a join that probes "?offer price ?p" with offers in random order (so most probes are far
// from the last) switches to the predicate's triples sorted by subject (subjectIndex); the answers must be the brute
// force join's, for a BGP and for a path sequence, with subjects that have no price, several prices, or values of
// other kinds.
func TestSubjectIndexJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	b, add := builderAdding(t)
	const n = 4000
	prices := map[int][]string{}
	for i := range n {
		add(ex("x", i), ex("order", 0), ex("offer", r.IntN(n+200))) // some offers are never priced
		for range r.IntN(3) {
			v := rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(100), r.IntN(100)), rdf.XSDDecimal)
			if r.IntN(20) == 0 {
				v = rdf.LangString("Größe", "de")
			}
			add(ex("offer", i), ex("price", 0), v)
			prices[i] = append(prices[i], v.String())
		}
	}
	d := b.Build()
	ds := FromIndex(d)
	var want []string
	rows := d.Default.Match(0, d.Dict.Lookup(ex("order", 0)), 0)
	for j := 0; j < rows.Len(); j++ {
		x, _, offer := rows.At(j)
		var k int
		fmt.Sscanf(d.Dict.Term(offer).Value, "http://ex.org/offer%d", &k)
		for _, p := range slices.Compact(slices.Sorted(slices.Values(prices[k]))) {
			want = append(want, d.Dict.Term(x).String()+" "+p)
		}
	}
	slices.Sort(want)
	// VALUES keeps the order written: the ?x in random order, so the offers they lead to are probed in no order.
	var vals strings.Builder
	for _, i := range r.Perm(n) {
		fmt.Fprintf(&vals, " <http://ex.org/x%d>", i)
	}
	for _, src := range []string{
		`SELECT ?x ?p { VALUES ?x {` + vals.String() + ` } ?x <http://ex.org/order0> ?offer . ?offer <http://ex.org/price0> ?p }`,
		`SELECT ?x ?p { VALUES ?x {` + vals.String() + ` } ?x <http://ex.org/order0>/<http://ex.org/price0> ?p }`,
	} {
		e, res := runSelect(t, ds, src)
		var got []string
		for _, row := range res.Rows {
			got = append(got, row[0].String()+" "+row[1].String())
		}
		slices.Sort(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d rows, want %d", src, len(got), len(want))
		}
		if len(e.bySubject) == 0 {
			t.Errorf("%s: the probes never switched to the predicate sorted by subject", src)
		}
	}
}

// TestHashStarMatchesProbes evaluates stars of two patterns whose first pattern a filter narrows, read by hashStar
// (the second predicate's rows in order against a table of the narrowed subjects), against the same queries probed
// row by row: the same solutions, in another order. The data has subjects with several values of the narrowed
// predicate, with none of the second, IRIs and strings among the numbers, and filters on either pattern.
func TestHashStarMatchesProbes(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	b, add := builderAdding(t)
	for i := range 3000 {
		s := ex("s", i)
		for range r.IntN(4) {
			switch r.IntN(10) {
			case 0:
				add(s, ex("a", 0), rdf.String(fmt.Sprint(r.IntN(50))))
			case 1:
				add(s, ex("a", 0), ex("o", r.IntN(50)))
			default:
				add(s, ex("a", 0), rdf.Literal(fmt.Sprint(r.IntN(100)), rdf.XSDInteger))
			}
		}
		for range r.IntN(3) {
			add(s, ex("b", 0), ex("t", r.IntN(40)))
		}
		if r.IntN(2) == 0 {
			add(s, ex("c", 0), rdf.Literal(fmt.Sprintf("%d.%d", r.IntN(9), r.IntN(9)), rdf.XSDDecimal))
		}
	}
	ds := FromIndex(b.Build())
	for _, src := range []string{
		`SELECT * { ?s <http://ex.org/a0> ?v ; <http://ex.org/b0> ?w FILTER(?v < 10) }`,
		`SELECT * { ?s <http://ex.org/a0> ?v ; <http://ex.org/b0> ?w FILTER(?v >= 90 && ?v != 95) }`,
		`SELECT * { ?s <http://ex.org/a0> ?v ; <http://ex.org/c0> ?w FILTER(?v = 7 && ?w > 4) }`,
		`SELECT * { ?s <http://ex.org/a0> ?v ; <http://ex.org/b0> ?w FILTER(?v < 40 && STRLEN(STR(?v)) = 1) }`,
		`SELECT * { ?s <http://ex.org/a0> ?v ; <http://ex.org/b0> ?w FILTER(?v < 20 && STR(?w) != "http://ex.org/t3") }`,
		`SELECT ?w (COUNT(?s) AS ?n) { ?s <http://ex.org/a0> ?v ; <http://ex.org/b0> ?w FILTER(?v < 30) } GROUP BY ?w`,
		`SELECT * { ?s <http://ex.org/a0> ?v ; <http://ex.org/none> ?w FILTER(?v < 30) }`,
	} {
		want, err := runText(t, ds, src, Options{hashStar: -1})
		if err != nil {
			t.Fatal(err)
		}
		got, err := runText(t, ds, src, Options{hashStar: 1})
		if err != nil {
			t.Fatal(err)
		}
		g, w := resultRows(got), resultRows(want)
		if len(w) == 0 && !strings.Contains(src, "none") {
			t.Fatalf("%s: no solutions", src)
		}
		if strings.HasPrefix(src, "SELECT * { ?s <http://ex.org/a0> ?v ; <http://ex.org/b0> ?w FILTER(?v < 10)") &&
			slices.Equal(g, w) {
			t.Errorf("%s: the solutions came in the probes' order: not read by hashStar", src)
		}
		slices.Sort(g)
		slices.Sort(w)
		if !slices.Equal(g, w) {
			t.Errorf("%s: %d solutions, probed %d", src, len(g), len(w))
		}
	}
}
