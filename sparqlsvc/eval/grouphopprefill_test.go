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
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// prefillData is 12 000 reviews with 0–2 products of 5 000 (ex:for), most with a rating (ex:r1: integers, a few
// decimals, a few "n/a") and a day; products with 0–1 producer of 200 (with twice, every 40th product has two),
// producers with 0–1 country of 7 and a name. Products 4 900 on are reviewed by none, producers 190 on make none.
func prefillData(t *testing.T, twice bool) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(191, 192))
	b, add := builderAdding(t)
	for i := range 12000 {
		s := ex("review", i)
		for range []int{0, 1, 1, 1, 1, 1, 2}[r.IntN(7)] {
			add(s, ex("for", 0), ex("product", r.IntN(4900)))
		}
		switch k := r.IntN(20); {
		case k == 0:
		case k == 1:
			add(s, ex("r", 1), rdf.String("n/a"))
		case k == 2:
			add(s, ex("r", 1), rdf.Literal(fmt.Sprintf("%d.5", r.IntN(10)), rdf.XSDDecimal))
		default:
			add(s, ex("r", 1), rdf.Literal(fmt.Sprint(1+r.IntN(10)), rdf.XSDInteger))
		}
		add(s, ex("day", 0), rdf.Literal(fmt.Sprint(1+r.IntN(5)), rdf.XSDInteger))
	}
	for p := range 5000 {
		if p%11 != 3 {
			add(ex("product", p), ex("producer", 0), ex("maker", r.IntN(190)))
		}
		if twice && p%40 == 7 {
			add(ex("product", p), ex("producer", 0), ex("maker", 190+p/40%10))
		}
	}
	for m := range 200 {
		if m%13 != 5 {
			add(ex("maker", m), ex("country", 0), ex("c", m%7))
		}
		add(ex("maker", m), ex("name", 0), rdf.String(fmt.Sprintf("maker %d", m)))
	}
	return FromIndex(b.Build())
}

// TestGroupHopPrefillMatchesPerValue: groupHop's table of the rest filled by one evaluation of the rest (hopPrefill)
// gives the groups that the rest evaluated per value gives, in the same order, with the same order of solutions
// within each group (GROUP_CONCAT), on one goroutine and split over two, and what refGroup gives; it is made when
// every product has one solution of the rest and not when some have two (their order could differ), nor when a
// FILTER narrows the star. Fails on the old code (no hopPrefill).
func TestGroupHopPrefillMatchesPerValue(t *testing.T) {
	const pre = `PREFIX ex: <http://ex.org/> `
	// GROUP_CONCAT and SAMPLE tell the order in which a group met its solutions: compared on one goroutine with
	// the rest evaluated per value; split halves and the reference may meet them in another order.
	const ordered = ` (GROUP_CONCAT(STR(?x)) AS ?all) (SAMPLE(?x) AS ?one)`
	const sel = `(COUNT(?s) AS ?n) (COUNT(?x) AS ?nx) (AVG(?x) AS ?a) (SUM(?x) AS ?t)` + "ORDERED"
	queries := []string{
		`SELECT ?c ` + sel + ` { ?s ex:for0/ex:producer0/ex:country0 ?c OPTIONAL { ?s ex:r1 ?x } } GROUP BY ?c`,
		`SELECT ?c ?d ` + sel + ` { ?s ex:for0 ?p ; ex:day0 ?d . ?p ex:producer0 ?m . ?m ex:country0 ?c OPTIONAL { ?s ex:r1 ?x } } GROUP BY ?c ?d`,
		`SELECT ?name ` + sel + ` { ?s ex:for0 ?p . ?p ex:producer0/ex:name0 ?name OPTIONAL { ?s ex:r1 ?x } } GROUP BY ?name`,
		`SELECT ?m ` + sel + ` { { ?s ex:for0 ?p . ?p ex:producer0 ?m . ?m ex:country0 ?c FILTER(?c != ex:c1) } OPTIONAL { ?s ex:r1 ?x } } GROUP BY ?m`,
		`SELECT ` + sel + ` { ?s ex:for0 ?p . ?p ex:producer0 ?m OPTIONAL { ?s ex:r1 ?x } }`,
		`SELECT ?c (COUNT(*) AS ?n) { ?s ex:for0 ?p . ?p ex:producer0 ?m . ?m ex:country0 ?c OPTIONAL { ?s ex:r1 ?x FILTER(?x > 5) } } GROUP BY ?c ?x`,
		// A FILTER on the star keeps some of its subjects: the rest is evaluated per value that comes.
		`SELECT ?c ` + sel + ` { { ?s ex:for0 ?p ; ex:day0 ?d . ?p ex:producer0 ?m . ?m ex:country0 ?c FILTER(?d < 2) } OPTIONAL { ?s ex:r1 ?x } } GROUP BY ?c`,
	}
	for _, twice := range []bool{false, true} {
		ds := prefillData(t, twice)
		for i, q := range queries {
			src := pre + strings.ReplaceAll(q, "ORDERED", ordered)
			free := pre + strings.ReplaceAll(q, "ORDERED", "")
			if !groupPathTakes(t, ds, src, (*evaluator).groupHop) {
				t.Fatalf("%s: groupHop does not take it", src)
			}
			made := prefillMade(t, ds, src)
			if want := !twice && i < len(queries)-1; made != want {
				t.Errorf("twice %v, %s: table filled first %v, want %v", twice, src, made, want)
			}
			perValue := runPrefill(t, ds, src, -1, nil)
			filled := runPrefill(t, ds, src, 1, nil)
			if strings.Join(filled, "\n") != strings.Join(perValue, "\n") {
				t.Errorf("twice %v, %s:\n filled    %q\n per value %q", twice, src, filled, perValue)
			}
			want, _ := runGroup(t, ds, free, true)
			slices.Sort(want)
			for _, got := range [][]string{runPrefill(t, ds, free, 1, nil), runPrefill(t, ds, free, 1, NewCores(2))} {
				slices.Sort(got)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("twice %v, %s:\n got  %q\n want %q", twice, free, got, want)
				}
			}
		}
	}
}

// prefillMade reports whether hopPrefill fills the table of src's GROUP BY (any number of values).
func prefillMade(t *testing.T, ds *Dataset, src string) bool {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), ds, q, Options{hopPrefillMin: 1})
	h := e.hopGroupOf(firstOp[*algebra.Group](q.Op))
	if h == nil {
		t.Fatalf("%s: no hopGroup", src)
	}
	tb, ok := e.hopPrefill(h, e.newRow(), &err)
	if !ok || err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return tb != nil
}

// runPrefill evaluates src's GROUP BY with hopPrefillMin least (-1: never filled first) on cores (nil: one
// goroutine, else split wherever it may be).
func runPrefill(t *testing.T, ds *Dataset, src string, least int, cores *Cores) []string {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{hopPrefillMin: least}
	if cores != nil {
		opt = splitOptions(cores)
		opt.hopPrefillMin = least
	}
	e := newEvaluator(context.Background(), ds, q, opt)
	var out []string
	e.group(firstOp[*algebra.Group](q.Op), e.newRow(), e.collectRows(&out), &err)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if cores != nil {
		if forks, _, _ := cores.Splits(); forks == 0 {
			t.Errorf("%s: not split", src)
		}
	}
	return out
}
