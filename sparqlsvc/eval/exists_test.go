package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestExistsMemoMatchesBruteForce tests NOT EXISTS and EXISTS once per (product, feature) solution, so each
// product's answer is asked again and again (existsMemo), against answers worked out by brute force: in the
// default graph and in each named graph (where the same product has other offers), with the outer variable and a
// second one from BIND in the pattern. Patterns that call RAND, BNODE or a SERVICE remember nothing.
func TestExistsMemoMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	ex := func(f string, a ...any) rdf.Term { return rdf.IRI("http://ex.org/" + fmt.Sprintf(f, a...)) }
	b := index.NewBuilder()
	days := map[string]map[int][]int{} // graph -> product -> days of its offers
	for _, g := range []string{"", "g1", "g2"} {
		days[g] = map[int][]int{}
		for i := range 600 {
			p, d := r.IntN(150), r.IntN(20)
			q1 := rdf.Triple(ex("o%s_%d", g, i), ex("product"), ex("p%d", p))
			q2 := rdf.Triple(ex("o%s_%d", g, i), ex("days"), rdf.Literal(fmt.Sprint(d), rdf.XSDInteger))
			if g != "" {
				q1.G, q2.G = rdf.IRI("http://ex.org/"+g), rdf.IRI("http://ex.org/"+g)
			}
			for _, q := range []rdf.Quad{q1, q2} {
				if err := b.Add(q); err != nil {
					t.Fatal(err)
				}
			}
			days[g][p] = append(days[g][p], d)
		}
		for p := range 150 {
			for f := range 1 + p%4 {
				q := rdf.Triple(ex("p%d", p), ex("feature"), ex("f%d", f))
				if g != "" {
					q.G = rdf.IRI("http://ex.org/" + g)
				}
				if err := b.Add(q); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	ds := FromIndex(b.Build())
	want := func(g string, limit int, not bool) []string {
		var out []string
		for p := range 150 {
			any := slices.ContainsFunc(days[g][p], func(d int) bool { return d < limit })
			if any != not {
				for f := range 1 + p%4 {
					row := fmt.Sprintf("<http://ex.org/p%d> <http://ex.org/f%d>", p, f)
					if g != "" {
						row = "<http://ex.org/" + g + "> " + row
					}
					out = append(out, row)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	run := func(src string) []string {
		res := mustRun(t, ds, src, Options{})
		var out []string
		for _, row := range res.Rows {
			var s string
			for i, v := range row {
				if i > 0 {
					s += " "
				}
				s += v.String()
			}
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	const pre = `PREFIX : <http://ex.org/> `
	cases := []struct {
		src  string
		want []string
	}{
		{pre + `SELECT ?p ?f { ?p :feature ?f FILTER NOT EXISTS { ?o :product ?p ; :days ?d FILTER(?d < 2) } }`, want("", 2, true)},
		{pre + `SELECT ?p ?f { ?p :feature ?f FILTER EXISTS { ?o :product ?p ; :days ?d FILTER(?d < 2) } }`, want("", 2, false)},
		{pre + `SELECT ?p ?f { ?p :feature ?f BIND(3 AS ?lim) FILTER NOT EXISTS { ?o :product ?p ; :days ?d FILTER(?d < ?lim) } }`, want("", 3, true)},
		{pre + `SELECT ?g ?p ?f { GRAPH ?g { ?p :feature ?f FILTER NOT EXISTS { ?o :product ?p ; :days ?d FILTER(?d < 2) } } }`,
			append(want("g1", 2, true), want("g2", 2, true)...)},
	}
	for _, c := range cases {
		slices.Sort(c.want)
		if len(c.want) == 0 {
			t.Fatalf("%s: the brute force found nothing", c.src)
		}
		if got := run(c.src); !slices.Equal(got, c.want) {
			t.Errorf("%s: %d rows, want %d", c.src, len(got), len(c.want))
		}
	}
	for _, src := range []string{
		`ASK { ?s ?p ?o FILTER EXISTS { ?s ?p ?x FILTER(RAND() < 0.5) } }`,
		`ASK { ?s ?p ?o FILTER EXISTS { ?s ?p ?x BIND(BNODE() AS ?b) } }`,
		`ASK { ?s ?p ?o FILTER EXISTS { ?s ?p ?x FILTER EXISTS { SERVICE <http://ex.org/sparql> { ?x ?q ?y } } } }`,
	} {
		q := mustParse(t, src)
		e := newEvaluator(context.Background(), ds, q, Options{})
		var x *algebra.Exists
		algebra.Walk(q.Op, func(op algebra.Op) bool {
			if f, ok := op.(*algebra.Filter); ok && x == nil {
				algebra.WalkExpr(f.Exprs[0], func(ex algebra.Expr) bool {
					if v, ok := ex.(*algebra.Exists); ok && x == nil {
						x = v
					}
					return x == nil
				})
			}
			return x == nil
		})
		if x == nil {
			t.Fatalf("%s: no EXISTS", src)
		}
		if e.existsMemoOf(x).ok {
			t.Errorf("%s: the answers of a volatile pattern are remembered", src)
		}
	}
}

// TestExistsMemoKeptWherePays: an EXISTS evaluated per row keeps its memo of answers past memoTrial only while the
// answers found again saved, in the work per row measured, what keeping them cost (existsMemo.pays). Offers tested
// on (product, country) with each pair once in sixteen rows repeated drop the memo (they kept it while any pair
// repeated); pairs repeated once in two keep it. The answers are the same either way (the EXISTS and NOT EXISTS
// counts add up to the rows).
func TestExistsMemoKeptWherePays(t *testing.T) {
	for _, c := range []struct {
		repeatEvery int
		kept        bool
	}{{16, false}, {2, true}} {
		b, add := builderAdding(t)
		const offers = 4000
		for i := range offers {
			pair := i
			if i%c.repeatEvery == 1 {
				pair = i - 1 // the same product and country as the offer before
			}
			add(exIRI("o%d", i), exIRI("product"), exIRI("p%d", pair))
			add(exIRI("o%d", i), exIRI("country"), exIRI("c%d", pair%7))
			for r := range 6 { // reviews of the product, by reviewers of other countries but for one in three
				rv := exIRI("r%d_%d", pair, r)
				add(rv, exIRI("reviewFor"), exIRI("p%d", pair))
				add(rv, exIRI("reviewer"), exIRI("u%d_%d", pair, r))
				country := (pair + 1 + r%3) % 7
				if pair%3 == 0 && r == 5 {
					country = pair % 7
				}
				add(exIRI("u%d_%d", pair, r), exIRI("country"), exIRI("c%d", country))
			}
		}
		ds := FromIndex(b.Build())
		count := func(not string) (int, *evaluator) {
			// "|| ?o = x:none" makes the conjunct read ?o, distinct per row, so a repeated pair is not answered
			// again from the row before (lastAnswer) but from the memo, whose rule this test is about.
			src := `PREFIX x: <http://ex.org/> SELECT (COUNT(*) AS ?n) WHERE { ?o x:product ?p ; x:country ?c FILTER (` + not +
				`EXISTS { ?r x:reviewFor ?p ; x:reviewer ?u . ?u x:country ?c } || ?o = x:none) }`
			res, e := semiRun(t, ds, src, Options{semiJoin: -1})
			var n int
			if _, err := fmt.Sscan(res.Rows[0][0].Value, &n); err != nil {
				t.Fatal(err)
			}
			return n, e
		}
		yes, e := count("")
		no, _ := count("NOT ")
		if yes+no != offers || yes == 0 || no == 0 {
			t.Fatalf("every %d: %d with, %d without, of %d", c.repeatEvery, yes, no, offers)
		}
		for _, m := range e.existsMemos {
			if m.ok != c.kept {
				t.Fatalf("every %d: memo kept %v, want %v (%d hits, %d remembered)", c.repeatEvery, m.ok, c.kept, m.hits, len(m.seen))
			}
		}
		if len(e.existsMemos) == 0 {
			t.Fatal("no EXISTS memo")
		}
	}
}
