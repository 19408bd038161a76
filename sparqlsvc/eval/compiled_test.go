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
)

// compiledTerms are the values of the compiled-tree tests: numbers held in ids and past them, decimals past int64
// and 128 bits, signed zeros, NaN and infinities, floats, derived integer types, invalid forms, strings plain,
// tagged and non-ASCII, IRIs, blank nodes, booleans, dates (YEAR reads them through numberValue).
var compiledTerms = []rdf.Term{
	rdf.Literal("12.50", rdf.XSDDecimal), rdf.Literal("-0.01", rdf.XSDDecimal), rdf.Literal("0.0", rdf.XSDDecimal),
	rdf.Literal("-0.0", rdf.XSDDecimal), rdf.Literal("7", rdf.XSDInteger), rdf.Literal("-3", rdf.XSDInteger),
	rdf.Literal("0", rdf.XSDInteger), rdf.Literal("9223372036854775807", rdf.XSDInteger),
	rdf.Literal("-9223372036854775808", rdf.XSDInteger), rdf.Literal("170141183460469231731687303715884105727", rdf.XSDInteger),
	rdf.Literal("340282366920938463463374607431768211457", rdf.XSDInteger),
	rdf.Literal("12345678901234567890.123456789012345678", rdf.XSDDecimal), rdf.Literal("0.333333333333333333", rdf.XSDDecimal),
	rdf.Literal("2.5", rdf.XSDDecimal), rdf.Literal("-2.5", rdf.XSDDecimal), rdf.Literal("+04.50", rdf.XSDDecimal),
	rdf.Literal("NaN", rdf.XSDDouble), rdf.Literal("INF", rdf.XSDDouble), rdf.Literal("-INF", rdf.XSDDouble),
	rdf.Literal("-0", rdf.XSDDouble), rdf.Literal("0.1", rdf.XSDDouble), rdf.Literal("1.0E300", rdf.XSDDouble),
	rdf.Literal("4.9E-324", rdf.XSDDouble), rdf.Literal("-2.5E0", rdf.XSDDouble), rdf.Literal("16777217", rdf.XSDNS+"float"),
	rdf.Literal("NaN", rdf.XSDNS+"float"), rdf.Literal("-0", rdf.XSDNS+"float"), rdf.Literal("1.5", rdf.XSDNS+"float"),
	rdf.Literal("300", rdf.XSDNS+"byte"), rdf.Literal("42", rdf.XSDNS+"int"), rdf.Literal("-5", rdf.XSDNS+"nonPositiveInteger"),
	rdf.Literal("abc", rdf.XSDInteger), rdf.Literal("1.2.3", rdf.XSDDecimal), rdf.Literal("x", rdf.XSDDouble),
	rdf.String("3"), rdf.String("Größe"), rdf.LangString("5", "de"), rdf.LangString("ß", "en"),
	rdf.IRI("http://ex.org/x"), rdf.Blank("b1"), rdf.Literal("true", rdf.XSDNS+"boolean"),
	rdf.Literal("2024-02-29", rdf.XSDNS+"date"), rdf.Literal("2023-12-31T23:59:59Z", rdf.XSDNS+"dateTime"),
}

// compiledGen makes random arithmetic trees over ?v, ?w and ?d (and constants of compiledTerms' kinds) as
// algebra and as SPARQL text.
type compiledGen struct {
	r *rand.Rand
}

func (g compiledGen) expr(depth int) (algebra.Expr, string) {
	r := g.r
	if depth == 0 || r.IntN(4) == 0 {
		if r.IntN(3) > 0 {
			v := []string{"v", "w", "v", "w", "d", "u"}[r.IntN(6)] // ?u is never bound
			return algebra.Var(v), "?" + v
		}
		t := compiledTerms[r.IntN(len(compiledTerms))]
		if t.Kind == rdf.KindBlank {
			t = rdf.Literal("1", rdf.XSDInteger)
		}
		return algebra.Constant{Term: t}, t.String()
	}
	switch k := r.IntN(10); {
	case k < 5:
		a, as := g.expr(depth - 1)
		b, bs := g.expr(depth - 1)
		op := []string{"+", "-", "*", "/"}[r.IntN(4)]
		return &algebra.Call{Func: op, Args: []algebra.Expr{a, b}}, "(" + as + " " + op + " " + bs + ")"
	case k < 8:
		a, as := g.expr(depth - 1)
		f := []string{"-", "+", "ABS", "CEIL", "FLOOR", "ROUND"}[r.IntN(6)]
		if len(f) == 1 {
			return &algebra.Call{Func: f, Args: []algebra.Expr{a}}, f + "(" + as + ")"
		}
		return &algebra.Call{Func: f, Args: []algebra.Expr{a}}, f + "(" + as + ")"
	case k < 9:
		a, as := g.expr(depth - 1)
		iri := rdf.XSDNS + []string{"decimal", "integer", "double", "float", "string"}[r.IntN(5)]
		return &algebra.FunctionCall{IRI: iri, Args: []algebra.Expr{a}}, "<" + iri + ">(" + as + ")"
	}
	f := []string{"YEAR", "MONTH", "STRLEN"}[r.IntN(3)]
	return &algebra.Call{Func: f, Args: []algebra.Expr{algebra.Var("d")}}, f + "(?d)"
}

// compiledData is an index of offers with ?v, ?w and ?d of compiledTerms' values, some missing.
func compiledData(t *testing.T, r *rand.Rand) *Dataset {
	b := index.NewBuilder()
	ga := graphAdder(t, b)
	for o := range 120 {
		offer := exIRI("o%d", o)
		ga("", offer, exIRI("p"), exIRI("g%d", o%5))
		for _, p := range []string{"v", "w", "d"} {
			if r.IntN(12) > 0 {
				ga("", offer, exIRI("%s", p), compiledTerms[r.IntN(len(compiledTerms))])
			}
		}
	}
	return FromIndex(b.Build())
}

// TestCompiledMatchesWalked holds each compiled arithmetic tree and comparison to the tree walked per row
// (walkValue, the old compareByValue) on the same rows: ids of the data (numbers held in ids and in terms), ids
// interned by the query (an AVG's overlay term), unbound variables. The Value or the decline must be the same.
func TestCompiledMatchesWalked(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 3))
	ds := compiledData(t, r)
	q := mustParse(t, "SELECT * { ?o <http://ex.org/v> ?v ; <http://ex.org/w> ?w ; <http://ex.org/d> ?d ; <http://ex.org/u> ?u }")
	e := newEvaluator(context.Background(), ds, q, Options{})
	ids := make([]ID, 0, 2*len(compiledTerms)+1)
	ids = append(ids, 0)
	for _, term := range compiledTerms {
		if id := e.t.lookup(term); id != 0 {
			ids = append(ids, id)
		}
		ids = append(ids, e.t.id(rdf.Literal(term.Value+"0", term.Datatype))) // mostly absent: an overlay id
	}
	slots := []int{e.slot("v"), e.slot("w"), e.slot("d"), e.slot("u")}
	row := make([]ID, e.nvars)
	g := compiledGen{r}
	var decided, compared int
	for range 3000 {
		x, src := g.expr(1 + r.IntN(4))
		c, isCall := x.(*algebra.Call)
		if !isCall {
			continue
		}
		cmp := &algebra.Call{Func: []string{"=", "!=", "<", ">", "<=", ">="}[r.IntN(6)], Args: []algebra.Expr{x, nil}}
		cmp.Args[1], _ = g.expr(r.IntN(3))
		for range 8 {
			for _, s := range slots[:3] {
				if r.IntN(3) > 0 { // the others keep their ids: the nodes' last-input memos answer
					row[s] = ids[r.IntN(len(ids))]
				}
			}
			want, wok := e.walkValue(c, row)
			got, gok := e.progOf(c).prog(e, row)
			if wok != gok || wok && (want.Term() != got.Term() || fmt.Sprint(want.Key()) != fmt.Sprint(got.Key())) {
				t.Fatalf("%s on %v: compiled %v %v, walked %v %v", src, termsOf(e, row, slots), got.Term(), gok, want.Term(), wok)
			}
			if wok {
				decided++
			}
			e.noteValueSite(cmp.Args[0])
			e.noCompile = true
			wr, wok2 := e.compareByValue(cmp, row)
			e.noCompile = false
			gr, gok2 := e.compareByValue(cmp, row)
			if wok2 != gok2 || wr != gr {
				t.Fatalf("%s %s %v on %v: compiled %v %v, walked %v %v", src, cmp.Func, cmp.Args[1], termsOf(e, row, slots), gr, gok2, wr, wok2)
			}
			if wok2 {
				compared++
			}
		}
	}
	if decided < 2000 || compared < 1000 {
		t.Errorf("only %d values and %d comparisons decided: the data or the trees are too narrow", decided, compared)
	}
}

// termsOf is row's terms at slots, for failure messages.
func termsOf(e *evaluator, row []ID, slots []int) []string {
	var out []string
	for _, s := range slots {
		if row[s] == 0 {
			out = append(out, "-")
			continue
		}
		out = append(out, e.t.term(row[s]).String())
	}
	return out
}

// TestCompiledQueriesMatch runs random FILTERs, BINDs, MIN/MAX and ORDER BY over random arithmetic trees three
// ways, compiled, walked per row (noCompile) and with every operator on terms (noValues), and wants the same rows:
// errors (type errors, division by zero, unbound variables, overflow) leave the same values unbound and the same
// rows filtered out.
func TestCompiledQueriesMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 4))
	ds := compiledData(t, r)
	run := func(src string, noCompile, noValues bool) []string {
		t.Helper()
		return compiledRows(t, ds, src, func(e *evaluator) { e.noCompile, e.noValues = noCompile, noValues })
	}
	g := compiledGen{r}
	const where = compiledWhere
	var nonEmpty int
	for i := range 300 {
		_, a := g.expr(1 + r.IntN(3))
		_, b := g.expr(r.IntN(3))
		op := []string{"=", "!=", "<", ">", "<=", ">="}[r.IntN(6)]
		var src string
		switch i % 5 {
		case 4: // ?x a scratch id of numberID's, reused per solution: not remembered by the nodes reading it
			src = fmt.Sprintf("SELECT ?o ?y { %s BIND(?v * 2 AS ?x) BIND(%s AS ?y) FILTER(?x + 1 %s %s) }", where,
				strings.ReplaceAll(a, "?w", "?x"), op, strings.ReplaceAll(b, "?w", "?x"))
		case 0:
			src = fmt.Sprintf("SELECT ?o { %s FILTER(%s %s %s) }", where, a, op, b)
		case 1:
			src = fmt.Sprintf("SELECT ?o ?x { %s BIND(%s AS ?x) }", where, a)
		case 2:
			src = fmt.Sprintf("SELECT ?g (MAX(%s) AS ?hi) (MIN(%s) AS ?lo) (COUNT(*) AS ?n) { %s FILTER(%s %s %s || ?v > 0) } GROUP BY ?g", a, b, where, a, op, b)
		default:
			src = fmt.Sprintf("SELECT ?o { %s } ORDER BY DESC(%s) ?o LIMIT 40", where, a)
		}
		want := run(src, true, false)
		if got := run(src, false, false); !slices.Equal(got, want) {
			t.Fatalf("%s\ncompiled %q\nwalked   %q", src, got, want)
		}
		if terms := run(src, false, true); !slices.Equal(terms, want) {
			t.Fatalf("%s\nterms  %q\nwalked %q", src, terms, want)
		}
		if len(want) > 0 && !strings.Contains(strings.Join(want, ""), " -") {
			nonEmpty++
		}
	}
	if nonEmpty < 30 {
		t.Errorf("only %d queries with rows and values", nonEmpty)
	}
}

// compiledWhere is the pattern the random compiled-expression queries read: every object of compiledData's
// optional properties, unbound where a subject lacks one.
const compiledWhere = `?o :p ?g OPTIONAL { ?o :v ?v } OPTIONAL { ?o :w ?w } OPTIONAL { ?o :d ?d }`

// compiledRows evaluates the SELECT query src (its prefix : being http://ex.org/) over ds with the evaluator's
// test switches set by set, and returns its rows as lines.
func compiledRows(t *testing.T, ds *Dataset, src string, set func(*evaluator)) []string {
	t.Helper()
	q := mustParse(t, "PREFIX : <http://ex.org/>\n"+src)
	e := newEvaluator(context.Background(), ds, q, Options{})
	set(e)
	c := &collector{res: &Result{}}
	if err := e.selectQuery(q, c); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return resultLines(c.res)
}
