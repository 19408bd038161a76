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
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestStarPartsMatchRows answers EXISTS and NOT EXISTS over stars of two to four patterns from a set (forced at
// the first row: starPartsSet) and by substitution per row, and requires the same answers. Offers have no, one or
// two values of each narrowing predicate (a subject passes a part when one of its values does); the conditions are
// narrowed ranges (numbers), a range valueRanges cannot narrow (strings, tested per object), a constant object, and
// no condition at all; one part is narrow enough that the others are probed by its subjects, the rest read and
// intersected. Shapes that are no such star (a variable shared by two parts, a conjunct reading two parts) must
// not be read as one.
func TestStarPartsMatchRows(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	ex, num := exIRI, intLit
	b := index.NewBuilder()
	add := graphAdder(t, b)
	const products = 200
	for p := range products {
		add("", ex("p%d", p), ex("type"), ex("Product"))
	}
	some := func() int { return []int{0, 1, 1, 1, 2}[r.IntN(5)] }
	for i := range 3000 {
		o := ex("o%d", i)
		add("", o, ex("product"), ex("p%d", r.IntN(products)))
		for range some() {
			d := 1 + r.IntN(7)
			if r.IntN(300) == 0 {
				d = 9 // rare: the other parts are probed by these offers
			}
			add("", o, ex("days"), num(d))
		}
		for range some() {
			add("", o, ex("price"), num(1+r.IntN(2000)))
		}
		for range some() {
			add("", o, ex("label"), rdf.Literal([]string{"fast", "slow", "cheap"}[r.IntN(3)], rdf.XSDString))
		}
		if r.IntN(3) == 0 {
			add("", o, ex("flag"), ex("yes"))
		}
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> SELECT ?p { ?p :type :Product FILTER `
	cases := []struct {
		src  string
		star bool
	}{
		{pre + `EXISTS { ?o :product ?p ; :days ?d ; :price ?x FILTER(?d = 2 && ?x < 500) } }`, true},
		{pre + `NOT EXISTS { ?o :product ?p ; :days ?d ; :price ?x FILTER(?d <= 3 && ?x > 1500) } }`, true},
		{pre + `EXISTS { ?o :days ?d ; :product ?p ; :label ?l ; :flag :yes FILTER(?l = "fast" && ?d > 5) } }`, true},
		{pre + `EXISTS { ?o :product ?p ; :days ?d ; :price ?x FILTER(?x >= 1900) } }`, true},
		{pre + `EXISTS { ?o :product ?p ; :days ?d ; :price ?x FILTER(?d = 9 && ?x < 1200) } }`, true},
		{pre + `NOT EXISTS { ?o :product ?p ; :days ?d ; :label ?l ; :price ?x FILTER(?d = 9 && STRSTARTS(?l, "s")) } }`, true},
		// Two patterns: read as parts, or, with a condition on the subject, evaluated as a pattern (starSet).
		{pre + `NOT EXISTS { ?o :product ?p ; :days ?d FILTER(?d < 3) } }`, true},
		{pre + `EXISTS { ?o :flag :yes ; :product ?p } }`, true},
		{pre + `EXISTS { ?o :product ?p ; :days ?d FILTER(?d = 9 && ?o != :o17) } }`, true},
		{pre + `EXISTS { ?o :product ?p ; :days ?d ; :price ?d } }`, false},
		{pre + `EXISTS { ?o :product ?p ; :days ?d ; :price ?x FILTER(?d * 10 > ?x) } }`, false},
	}
	for _, c := range cases {
		want, _ := semiRun(t, ds, c.src, Options{semiJoin: -1})
		wantRows := resultLines(want)
		if len(wantRows) == 0 || len(wantRows) == products {
			t.Fatalf("%s: %d products per row, want some but not all", c.src, len(wantRows))
		}
		got, e := semiRun(t, ds, c.src, Options{semiJoin: 1})
		if gotRows := resultLines(got); !slices.Equal(gotRows, wantRows) {
			t.Errorf("%s: %d rows from the set, want %d\n got %q\nwant %q", c.src, len(gotRows), len(wantRows), gotRows, wantRows)
		}
		star := false
		for _, m := range e.existsMemos {
			star = star || m.join.star
		}
		if star != c.star {
			t.Errorf("%s: read as a star %v, want %v", c.src, star, c.star)
		}
	}
}

// TestStarPartsPastSlot64: past 64 variables a varset holds no bits, only that it overflowed, so two slots past 64
// compared equal and every conjunct of a star whose objects have such slots went to its first part (?x's tested on
// ?d). Each conjunct must go to the part whose object it reads, or the star not be read as one.
func TestStarPartsPastSlot64(t *testing.T) {
	b := index.NewBuilder()
	add := graphAdder(t, b)
	add("", exIRI("o1"), exIRI("product"), exIRI("p1"))
	add("", exIRI("o1"), exIRI("days"), intLit(2))
	add("", exIRI("o1"), exIRI("price"), intLit(400))
	ds := FromIndex(b.Build())
	var pad, ones []string
	for i := range 70 {
		pad, ones = append(pad, fmt.Sprintf("?v%d", i)), append(ones, "1")
	}
	for _, src := range []string{
		`SELECT * { ?o :product ?p ; :days ?d ; :price ?x FILTER(?d = 2 && ?x < 500) }`,
		`SELECT * { VALUES (` + strings.Join(pad, " ") + `) { (` + strings.Join(ones, " ") + `) } ` +
			`{ ?o :product ?p ; :days ?d ; :price ?x FILTER(?d = 2 && ?x < 500) } }`,
	} {
		q, err := parser.Parse(`PREFIX : <http://ex.org/> `+src, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := newEvaluator(context.Background(), ds, q, Options{})
		f := firstOp[*algebra.Filter](q.Op)
		st, ok := e.starPartsOf(f.Op.(*algebra.BGP), f.Exprs, e.slot("p"))
		if !ok {
			if e.slot("d") < 64 {
				t.Errorf("%s: not read as a star", src)
			}
			continue
		}
		for _, part := range st.parts {
			for _, c := range part.conj {
				algebra.WalkExpr(c, func(x algebra.Expr) bool {
					if v, isVar := x.(algebra.Var); isVar && e.slot(v) != part.oslot {
						t.Errorf("%s: %s is tested on the part of slot %d, not its own %d", src, c, part.oslot, e.slot(v))
					}
					return true
				})
			}
		}
	}
}
