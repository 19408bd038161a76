package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// aggregateValues are the values TestGroupMatchesReference aggregates: numbers of every type (negative, huge, past
// int64, trailing zeros, equal values in different types), ill-typed numbers, strings (non-ASCII, tagged),
// dateTimes with and without timezones, dates, booleans, IRIs and blank nodes.
func aggregateValues() []rdf.Term {
	xsd := rdf.XSDNS
	return []rdf.Term{
		rdf.Literal("1", rdf.XSDInteger), rdf.Literal("-7", rdf.XSDInteger), rdf.Literal("007", rdf.XSDInteger),
		rdf.Literal("123456789012345678901234567890", rdf.XSDInteger), rdf.Literal("9223372036854775807", rdf.XSDInteger),
		rdf.Literal("1.0", rdf.XSDDecimal), rdf.Literal("-0.25", rdf.XSDDecimal), rdf.Literal("99999999999999999999.5", rdf.XSDDecimal),
		rdf.Literal("-12345.678901234567890123", rdf.XSDDecimal), rdf.Literal("75.08", rdf.XSDDecimal),
		rdf.Literal("1.5e0", rdf.XSDDouble), rdf.Literal("NaN", rdf.XSDDouble), rdf.Literal("-INF", rdf.XSDDouble),
		rdf.Literal("2.5", xsd+"float"), rdf.Literal("12", xsd+"byte"), rdf.Literal("abc", rdf.XSDInteger),
		rdf.String("Größe"), rdf.String("größe"), rdf.String("ß"), rdf.String(""), rdf.LangString("Straße", "de"),
		rdf.LangString("a", "EN"), rdf.Literal("2008-03-14T12:43:08", xsd+"dateTime"),
		rdf.Literal("2008-03-14T12:43:08Z", xsd+"dateTime"), rdf.Literal("2008-03-14T12:43:08+14:00", xsd+"dateTime"),
		rdf.Literal("2008-03-14T12:43:08-05:30", xsd+"dateTime"), rdf.Literal("2008-02-30T00:00:00Z", xsd+"dateTime"),
		rdf.Literal("2008-03-14", xsd+"date"), rdf.Literal("true", rdf.XSDBoolean), rdf.Literal("0", rdf.XSDBoolean),
		rdf.IRI("http://ex.org/é"), rdf.Blank("b1"), rdf.Literal("x", "http://ex.org/type"),
	}
}

// TestGroupMatchesReference runs GROUP BY with running aggregate states against refGroup, the implementation that
// held every solution, on random data: every aggregate with and without DISTINCT, keys that are variables,
// expressions and unbound, no keys over data and over no solutions, and values of every kind (some groups have
// only numbers, so SUM and AVG have values; others mix in what makes them errors).
func TestGroupMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vals := aggregateValues()
	numeric := vals[:15]
	b := index.NewBuilder()
	for i := range 400 {
		s := ex("s", i)
		k := r.IntN(6)
		if err := b.Add(rdf.Triple(s, ex("k", 0), ex("key", k))); err != nil {
			t.Fatal(err)
		}
		for range r.IntN(4) { // zero to three values: some solutions leave ?v unbound
			pool := vals
			if k < 3 {
				pool = numeric
			}
			if err := b.Add(rdf.Triple(s, ex("v", 0), pool[r.IntN(len(pool))])); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Numbers held in their ids only (minMaxNumber), of every inline scale, two forms of some values among them.
	r2 := rand.New(rand.NewPCG(9, 10))
	inline := []rdf.Term{rdf.Literal("2", rdf.XSDInteger), rdf.Literal("2.0", rdf.XSDDecimal), rdf.Literal("2", rdf.XSDDecimal)}
	for range 60 {
		v := r2.IntN(4001) - 2000
		inline = append(inline, rdf.Literal(fmt.Sprint(v), rdf.XSDInteger),
			rdf.Literal(fmt.Sprintf("%.*f", r2.IntN(4), float64(v)/float64(1+r2.IntN(999))), rdf.XSDDecimal))
	}
	for i := range 400 {
		if err := b.Add(rdf.Triple(ex("s", i), ex("w", 0), inline[r2.IntN(len(inline))])); err != nil {
			t.Fatal(err)
		}
	}
	ds := FromIndex(b.Build())
	aggs := `(COUNT(*) AS ?c) (COUNT(DISTINCT *) AS ?cd) (COUNT(?v) AS ?cv) (COUNT(DISTINCT ?v) AS ?cdv)
		(SUM(?v) AS ?sum) (AVG(?v) AS ?avg) (MIN(?v) AS ?mn) (MAX(?v) AS ?mx) (SAMPLE(?v) AS ?sa)
		(GROUP_CONCAT(STR(?v); SEPARATOR="|") AS ?g) (GROUP_CONCAT(DISTINCT ?v) AS ?gd) (SUM(DISTINCT ?v) AS ?sd)
		(AVG(DISTINCT ?v) AS ?ad) (MIN(DISTINCT ?v) AS ?md) (MAX(?v + 1) AS ?mx1) (SUM(IF(isNumeric(?v), ?v, 0)) AS ?sn)`
	where := `{ ?s <http://ex.org/k0> ?k OPTIONAL { ?s <http://ex.org/v0> ?v } }`
	queries := []string{
		`SELECT ?k ` + aggs + ` ` + where + ` GROUP BY ?k`,
		`SELECT ?k ` + aggs + ` { ?s <http://ex.org/k0> ?k ; <http://ex.org/v0> ?v FILTER(isNumeric(?v)) } GROUP BY ?k`,
		`SELECT ?len ` + aggs + ` ` + where + ` GROUP BY (STRLEN(STR(?v)) AS ?len)`,
		`SELECT ?k ?dt ` + aggs + ` ` + where + ` GROUP BY ?k (DATATYPE(?v) AS ?dt)`,
		`SELECT ` + aggs + ` ` + where,
		`SELECT ` + aggs + ` { ?s <http://ex.org/none> ?v }`,
		`SELECT ?k (MIN(?w) AS ?mn) (MAX(?w) AS ?mx) (COUNT(?w) AS ?n) { ?s <http://ex.org/k0> ?k ; <http://ex.org/w0> ?w } GROUP BY ?k`,
		`SELECT (MIN(?w) AS ?mn) (MAX(?w) AS ?mx) { ?s <http://ex.org/w0> ?w }`,
		// SUM and AVG of numbers held in their ids add them from the ids (builtin.Sum.AddNumber): integers alone
		// stay integers, with decimals among them the total is a decimal.
		`SELECT ?k (SUM(?w) AS ?sw) (AVG(?w) AS ?aw) (SUM(?v) AS ?sv) (AVG(?v) AS ?av) { ?s <http://ex.org/k0> ?k ; <http://ex.org/w0> ?w ` +
			`OPTIONAL { ?s <http://ex.org/v0> ?v FILTER(isNumeric(?v)) } } GROUP BY ?k`,
		`SELECT ?k (SUM(?w) AS ?sw) (AVG(?w) AS ?aw) { ?s <http://ex.org/k0> ?k ; <http://ex.org/w0> ?w ` +
			`FILTER(DATATYPE(?w) = <http://www.w3.org/2001/XMLSchema#integer>) } GROUP BY ?k`,
		`SELECT ?y ?m (COUNT(*) AS ?n) (MIN(?v) AS ?first) (MAX(?v) AS ?last) ` + where +
			` GROUP BY (YEAR(?v) AS ?y) (MONTH(?v) AS ?m)`,
		// Computed values (some equal to terms the data holds) counted by id: COUNT(DISTINCT ?w) must meet each
		// value under one id whether the data or the query made it.
		`SELECT ?k (COUNT(DISTINCT ?w) AS ?cdw) (COUNT(?w) AS ?cw) (SUM(DISTINCT ?w) AS ?sdw) (MIN(?w) AS ?mw) ` +
			`{ ?s <http://ex.org/k0> ?k OPTIONAL { ?s <http://ex.org/v0> ?v } ` +
			`BIND(IF(isNumeric(?v), ?v + 0, STR(?v)) AS ?w) } GROUP BY ?k`,
		// DISTINCT over an expression's value, met by its key (distinctMet) rather than an interned id: numbers
		// held in ids and not, strings, computed pairs, a value and its STR (two values), and tags in both cases ("a"@EN and "a"@en are one).
		`SELECT ?k (COUNT(DISTINCT STR(?v)) AS ?a) (COUNT(DISTINCT IF(isNumeric(?v), ?v + 0, ?v)) AS ?b) ` +
			`(GROUP_CONCAT(DISTINCT LCASE(STR(?v)); SEPARATOR="|") AS ?c) (SUM(DISTINCT ?v * 1) AS ?d) ` +
			`(COUNT(DISTINCT CONCAT(STR(?k), " ", STR(?v))) AS ?e) (SAMPLE(DISTINCT STR(?v)) AS ?f) ` +
			`(COUNT(DISTINCT IF(LANG(?v) != "", STRLANG(STR(?v), IF(STRENDS(STR(?s), "1"), "EN", "en")), ?v)) AS ?g) ` +
			`(COUNT(DISTINCT IF(STRENDS(STR(?s), "1"), STR(?v), ?v)) AS ?h) ` + where + ` GROUP BY ?k`,
		`SELECT (COUNT(DISTINCT STR(?v)) AS ?a) (COUNT(DISTINCT ?v * 2) AS ?b) ` +
			`(COUNT(DISTINCT IF(LANG(?v) != "", STRLANG(STR(?v), IF(STRENDS(STR(?s), "1"), "EN", "en")), ?v)) AS ?g) ` +
			`(COUNT(DISTINCT IF(STRENDS(STR(?s), "1"), STR(?v), ?v)) AS ?h) ` + where,
	}
	matchReference(t, ds, queries...)
	// The groups hold running states, not their solutions: six groups over 400+ solutions fit a 50-row budget.
	q, err := parser.Parse(`SELECT ?k `+aggs+` `+where+` GROUP BY ?k`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), ds, q, Options{MaxRows: 50}); err != nil {
		t.Errorf("GROUP BY within 50 rows: %v", err)
	}
}

// matchReference checks each query's groups against refGroup's.
func matchReference(t *testing.T, ds *Dataset, queries ...string) {
	t.Helper()
	for _, src := range queries {
		got, _ := runGroup(t, ds, src, false)
		want, _ := runGroup(t, ds, src, true)
		if len(want) == 0 {
			t.Fatalf("%s: no groups", src)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
	}
}

// runGroup evaluates the first GROUP BY of src with group, or with refGroup when ref, and returns its groups and
// the evaluator's steps.
func runGroup(t *testing.T, ds *Dataset, src string, ref bool) ([]string, int) {
	t.Helper()
	return runGroupWith(t, ds, src, ref, Options{})
}

// runGroupWith is runGroup under opt.
func runGroupWith(t *testing.T, ds *Dataset, src string, ref bool, opt Options) ([]string, int) {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	g := firstOp[*algebra.Group](q.Op)
	e := newEvaluator(context.Background(), ds, q, opt)
	var out []string
	collect := e.collectRows(&out)
	if ref {
		e.refGroup(g, e.newRow(), collect, &err)
	} else {
		e.group(g, e.newRow(), collect, &err)
	}
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return out, e.steps
}

// firstOp returns the first operator of type T in op (pre-order), or T's zero value.
func firstOp[T algebra.Op](op algebra.Op) T {
	var found T
	done := false
	algebra.Walk(op, func(op algebra.Op) bool {
		if x, ok := op.(T); ok && !done {
			found, done = x, true
		}
		return !done
	})
	return found
}

// collectRows returns an emitFn that appends each solution, written as its terms, to out.
func (e *evaluator) collectRows(out *[]string) emitFn {
	return func(row []ID) bool {
		parts := make([]string, len(row))
		for i, id := range row {
			parts[i] = e.t.term(id).String()
		}
		*out = append(*out, strings.Join(parts, " "))
		return true
	}
}

// TestDistinctSeenBits: a DISTINCT aggregate's values met (aggState.met, evaluator.meet) move to a bitmap of the
// dictionary's ids in the one group of an aggregate without GROUP BY, once the map would outgrow an eighth of it;
// ids past the dictionary's (computed values) stay in the map; a group of a GROUP BY never takes the bitmap, nor
// one whose budget has no room for it; every id met is met, no other.
func TestDistinctSeenBits(t *testing.T) {
	b, add := builderAdding(t)
	for i := range 4000 {
		add(rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), rdf.IRI("http://ex.org/p"), rdf.IRI(fmt.Sprintf("http://ex.org/o%d", i)))
	}
	ds := FromIndex(b.Build())
	q, err := parser.Parse(`SELECT (COUNT(DISTINCT ?o) AS ?n) { ?s <http://ex.org/p> ?o }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		single bool
		memory int64
		bits   bool
	}{{true, 0, true}, {false, 0, false}, {true, 1, false}} {
		e := newEvaluator(context.Background(), ds, q, Options{})
		top := e.t.base
		if c.memory > 0 { // room for half the bitmap: the map's first entries, not the bitmap
			e.opt.MaxMemory = e.bytes + e.t.bytes + int64(top/64+1)*4
		}
		var s aggState
		s.init(&algebra.Aggregate{Name: "COUNT", Distinct: true, Expr: algebra.Var("o")}, c.single)
		r := rand.New(rand.NewPCG(5, 6))
		want := map[ID]bool{}
		for range 3000 {
			id := ID(1 + r.IntN(int(top)))
			if r.IntN(5) == 0 {
				id = top + ID(r.IntN(300)) // past the dictionary
			}
			if err := e.meet(&s, id); err != nil {
				if c.memory == 0 {
					t.Fatal(err)
				}
				break
			}
			want[id] = true
		}
		if (s.seenBits != nil) != c.bits {
			t.Errorf("single %v, budget %d: bitmap %v, want %v", c.single, c.memory, s.seenBits != nil, c.bits)
		}
		for id := range top + 400 {
			if s.met(id) != want[id] {
				t.Fatalf("single %v, budget %d: met(%d) = %v, want %v", c.single, c.memory, id, s.met(id), want[id])
			}
		}
	}
}
