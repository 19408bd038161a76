package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// strCasts wraps, now and then, a variable of a compiledGen tree in xsd:integer(STR(…)) or xsd:decimal(STR(…)),
// the cast of a lexical form numberValue reads from the id.
func strCasts(r *rand.Rand, x algebra.Expr) algebra.Expr {
	switch v := x.(type) {
	case algebra.Var:
		if r.IntN(4) == 0 {
			iri := []string{"http://www.w3.org/2001/XMLSchema#integer", "http://www.w3.org/2001/XMLSchema#decimal"}[r.IntN(2)]
			return &algebra.FunctionCall{IRI: iri, Args: []algebra.Expr{&algebra.Call{Func: "STR", Args: []algebra.Expr{v}}}}
		}
	case *algebra.Call:
		args := make([]algebra.Expr, len(v.Args))
		for i, a := range v.Args {
			args[i] = strCasts(r, a)
		}
		return &algebra.Call{Func: v.Func, Args: args}
	case *algebra.FunctionCall:
		return &algebra.FunctionCall{IRI: v.IRI, Args: []algebra.Expr{strCasts(r, v.Args[0])}}
	}
	return x
}

// TestCompiledNumbersMatchWalked holds each compiled numberValue tree (compileNumber, with numMemo's table of
// inputs) to the tree walked per row (walkNumber) on the same rows: ids of the data (numbers held in ids and in
// terms, dates for YEAR and MONTH), overlay ids, scratch numbers of an earlier BIND, unbound variables. The number
// or the decline must be the same, row after row, as the inputs repeat and change.
func TestCompiledNumbersMatchWalked(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 3))
	ds := compiledData(t, r)
	q := mustParse(t, "SELECT * { ?o <http://ex.org/v> ?v ; <http://ex.org/w> ?w ; <http://ex.org/d> ?d ; <http://ex.org/u> ?u }")
	e := newEvaluator(context.Background(), ds, q, Options{})
	ids := []ID{0}
	for _, term := range compiledTerms {
		if id := e.t.lookup(term); id != 0 {
			ids = append(ids, id)
		}
		ids = append(ids, e.t.id(term))
	}
	slots := []int{e.slot("v"), e.slot("w"), e.slot("d"), e.slot("u")}
	row := make([]ID, e.nvars)
	g := compiledGen{r}
	var decided int
	for range 3000 {
		x, src := g.expr(1 + r.IntN(4))
		x = strCasts(r, x)
		e.t.scratch = e.t.scratch[:0]
		for range 12 {
			for _, s := range slots[:3] {
				switch k := r.IntN(6); {
				case k == 0: // a scratch number, as a BIND of numberID leaves for the solution
					n, ok := e.walkNumber(&algebra.Call{Func: "*", Args: []algebra.Expr{algebra.Var("v"), algebra.Var("w")}}, row)
					if ok {
						row[s] = e.t.scratchNumber(n)
					}
				case k < 4: // the others keep their ids: numMemo answers
					row[s] = ids[r.IntN(len(ids))]
				}
			}
			want, wok := e.walkNumber(x, row)
			got, gok := e.numberValue(x, row)
			if wok != gok || wok && want != got {
				t.Fatalf("%s (%s) on %v: compiled %v %v, walked %v %v", src, algebra.FormatExpr(x), termsOf(e, row, slots), got, gok, want, wok)
			}
			if wok {
				decided++
			}
		}
	}
	if decided < 3000 {
		t.Errorf("only %d numbers decided: the data or the trees are too narrow", decided)
	}
}

// TestCompiledNumberQueriesMatch runs random computed GROUP BY keys with SUM, AVG, MIN, MAX and COUNT of random
// trees, and arithmetic BINDs read by a FILTER, compiled and walked (noCompile): the same rows, errors and
// unbound values included.
func TestCompiledNumberQueriesMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	ds := compiledData(t, r)
	run := func(src string, noCompile bool) []string {
		t.Helper()
		return compiledRows(t, ds, src, func(e *evaluator) { e.noCompile = noCompile })
	}
	g := compiledGen{r}
	const where = compiledWhere
	var nonEmpty int
	for i := range 240 {
		_, a := g.expr(1 + r.IntN(3))
		_, b := g.expr(1 + r.IntN(2))
		var src string
		switch i % 3 {
		case 0:
			src = fmt.Sprintf("SELECT ?k (COUNT(*) AS ?n) (SUM(%s) AS ?s) (AVG(%s) AS ?a) { %s } GROUP BY (%s AS ?k)", b, b, where, a)
		case 1:
			src = fmt.Sprintf("SELECT ?g (MIN(%s) AS ?lo) (MAX(%s) AS ?hi) (SUM(%s) AS ?s) { %s } GROUP BY ?g", a, b, a, where)
		default:
			src = fmt.Sprintf("SELECT ?o ?x { %s BIND(%s AS ?x) FILTER(?x * 2 > %s || !BOUND(?x)) }", where, a, b)
		}
		want := run(src, true)
		if got := run(src, false); !slices.Equal(got, want) {
			t.Fatalf("%s\ncompiled %q\nwalked   %q", src, got, want)
		}
		if len(want) > 0 && !strings.Contains(strings.Join(want, ""), " -") {
			nonEmpty++
		}
	}
	if nonEmpty < 12 {
		t.Errorf("only %d queries with rows and values", nonEmpty)
	}
}
