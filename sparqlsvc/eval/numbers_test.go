package eval

import (
	"context"
	"errors"
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

// TestBindChainValues holds BINDs and aggregates computed on numbers held in ids (numberValue), and the BINDs under
// a GROUP BY kept in the scratch list (markGroupChain), to the same queries with the chain inside a subquery,
// where neither applies to the BINDs' variables: numbers of every inline shape, decimals too long or too large
// for an id, integers, strings (an error in the chain), groups that read the chain's variables and groups that do
// not, COUNT(DISTINCT *), a FILTER and a function reading a scratch number. Then a GROUP BY over BINDs of 3 000
// distinct computed values under a memory budget their interning would exceed.
func TestBindChainValues(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	b, add := builderAdding(t)
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	for i := range 3000 {
		s := ex(fmt.Sprint("s", i))
		var v rdf.Term
		switch r.IntN(6) {
		case 0:
			v = rdf.Literal(fmt.Sprint(r.IntN(20000)-2000), rdf.XSDInteger)
		case 1:
			v = rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(10000), r.IntN(100)), rdf.XSDDecimal)
		case 2:
			v = rdf.Literal(fmt.Sprintf("-%d.%d", r.IntN(100), r.IntN(10)), rdf.XSDDecimal)
		case 3: // not held in an id: too many digits, or too large
			v = rdf.Literal(fmt.Sprintf("%d.%06d", r.IntN(1000), r.IntN(1000000)), rdf.XSDDecimal)
		case 4:
			v = rdf.Literal(fmt.Sprint(r.Int64N(1e15)), rdf.XSDInteger)
		default:
			v = rdf.String(fmt.Sprint("x", r.IntN(10)))
		}
		add(s, ex("v"), v)
		add(s, ex("w"), rdf.Literal(fmt.Sprint(r.IntN(20)+1), rdf.XSDInteger))
		add(s, ex("u"), rdf.Literal(fmt.Sprint(i), rdf.XSDInteger))
	}
	ds := FromIndex(b.Build())
	run := func(src string, opt Options) ([]string, error) {
		t.Helper()
		res, err := runText(t, ds, "PREFIX ex: <http://ex.org/>\n"+src, opt)
		if err != nil {
			return nil, err
		}
		out := resultRows(res)
		slices.Sort(out)
		return out, nil
	}
	const star = `?s ex:v ?v ; ex:w ?w `
	for _, c := range []struct{ sel, body, group string }{
		{`?band (COUNT(*) AS ?n) (SUM(?v * ?w) AS ?t) (AVG(?v - 1) AS ?a) (SUM(-?v) AS ?m)`,
			star + `BIND(?v * 1.19 AS ?g) BIND(ROUND(?g) AS ?r) BIND(IF(?r < 100, "low", IF(?r < 10000, "mid", "high")) AS ?band)`,
			`GROUP BY ?band`},
		{`?r (COUNT(?g) AS ?n) (MIN(?g) AS ?lo) (MAX(?g) AS ?hi) (SUM(?g) AS ?sg) (COUNT(DISTINCT ?h) AS ?dh)`,
			star + `BIND(?v * 1.19 AS ?g) BIND(FLOOR(?g / 10) AS ?r) BIND(-?v + ABS(?w) AS ?h)`,
			`GROUP BY ?r`},
		{`(COUNT(DISTINCT *) AS ?n)`, `?s ex:w ?w BIND(?w * 0.5 AS ?x) BIND(CEIL(?x) AS ?y)`, ``},
		{`?len (COUNT(*) AS ?n) (SAMPLE(?len) AS ?l)`,
			star + `BIND(?v * 1.19 - 0.001 AS ?g) FILTER(?g > 50) BIND(STR(?g) AS ?str) BIND(STRLEN(CONCAT(?str, STR(+?g))) AS ?len)`,
			`GROUP BY ?len`},
		{`?k (COUNT(*) AS ?n)`, star + `BIND(?w * 3 AS ?k) BIND(?k * 1.5 AS ?j) FILTER(?j != 6)`, `GROUP BY ?k HAVING (COUNT(*) > 1)`},
	} {
		q := fmt.Sprintf(`SELECT %s { %s } %s`, c.sel, c.body, c.group)
		ref := fmt.Sprintf(`SELECT %s { { SELECT * { %s } } } %s`, c.sel, c.body, c.group)
		got, err := run(q, Options{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want, err := run(ref, Options{})
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
	// Top-level expressions: the same values with the BINDs under DISTINCT, which holds solutions (every ?s is
	// one solution, so DISTINCT drops none).
	top := `?s (?v * 1.19 AS ?g) (ROUND(?g) AS ?r) (CONCAT(STR(?g), "/", STR(?r)) AS ?c) (?g * ?w AS ?d)`
	got, err := run(`SELECT `+top+` { `+star+` }`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := run(`SELECT DISTINCT ?s ?g ?r ?c ?d { `+star+` BIND(?v * 1.19 AS ?g) BIND(ROUND(?g) AS ?r)
		BIND(CONCAT(STR(?g), "/", STR(?r)) AS ?c) BIND(?g * ?w AS ?d) }`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || len(got) != 3000 {
		t.Errorf("top-level expressions: %d rows, want %d equal to the reference's", len(got), len(want))
	}

	// 3 000 distinct values of ?g and of ?t would take ~1 MB interned; the budget is 256 KiB.
	const budget = 256 << 10
	got, err = run(`SELECT ?k (COUNT(*) AS ?n) { ?s ex:u ?u BIND(?u * 1.0001 AS ?g) BIND(STR(?g) AS ?t)
		BIND(STRLEN(?t) AS ?k) } GROUP BY ?k`, Options{MaxMemory: budget})
	if err != nil {
		t.Fatalf("GROUP BY over a BIND chain of distinct values under a %d-byte budget: %v", budget, err)
	}
	if len(got) == 0 {
		t.Error("no groups")
	}
	if _, err = run(`SELECT ?g (COUNT(*) AS ?n) { ?s ex:u ?u BIND(?u * 1.0001 AS ?g) } GROUP BY ?g`,
		Options{MaxMemory: budget}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("GROUP BY holding 3 000 computed keys under a 256 KiB budget: %v, want ErrTooLarge", err)
	}
}

// TestDateFieldArithmetic holds arithmetic over YEAR … SECONDS of dates (numberValue reading the fields from the
// dictionary's column, in BINDs, GROUP BY keys, FILTERs and aggregates) to the same expressions with each field
// wrapped in COALESCE, which numberValue does not evaluate: xsd:dates, dateTimes with and without a timezone and
// with fractions of a second, a form that is no valid date, and strings (errors).
func TestDateFieldArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	b, add := builderAdding(t)
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	date := func() rdf.Term {
		y, m, d := 1998+r.IntN(14), 1+r.IntN(12), 1+r.IntN(28)
		switch r.IntN(7) {
		case 0:
			return rdf.Literal(fmt.Sprintf("%04d-%02d-%02d", y, m, d), index.XSDDate)
		case 1:
			return rdf.Literal(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, r.IntN(24), r.IntN(60), r.IntN(60)), index.XSDDateTime)
		case 2:
			return rdf.Literal(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03d", y, m, d, r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000)), index.XSDDateTime)
		case 3:
			return rdf.Literal(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d+05:30", y, m, d, r.IntN(24), r.IntN(60), r.IntN(60)), index.XSDDateTime)
		case 4:
			return rdf.Literal(fmt.Sprintf("%04d-02-31", y), index.XSDDate) // no valid date
		case 5:
			return rdf.String(fmt.Sprint("x", r.IntN(5)))
		}
		return rdf.Literal(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", y, m, d, r.IntN(24), r.IntN(60), r.IntN(60)), index.XSDDateTime)
	}
	for i := range 3000 {
		s := ex(fmt.Sprint("s", i))
		add(s, ex("from"), date())
		add(s, ex("to"), date())
		add(s, ex("n"), rdf.Literal(fmt.Sprint(r.IntN(9)), rdf.XSDInteger))
	}
	ds := FromIndex(b.Build())
	run := func(src string) []string {
		t.Helper()
		res, err := runText(t, ds, "PREFIX ex: <http://ex.org/>\n"+src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		out := resultRows(res)
		slices.Sort(out)
		return out
	}
	plain := strings.NewReplacer("YEAR(", "COALESCE(YEAR(", "MONTH(", "COALESCE(MONTH(", "DAY(", "COALESCE(DAY(",
		"HOURS(", "COALESCE(HOURS(", "MINUTES(", "COALESCE(MINUTES(", "SECONDS(", "COALESCE(SECONDS(", "?to)", "?to))",
		"?from)", "?from))")
	const star = `?s ex:from ?from ; ex:to ?to ; ex:n ?n `
	for _, q := range []string{
		`SELECT ?m (COUNT(*) AS ?c) { ` + star + ` BIND((YEAR(?to) - YEAR(?from)) * 12 + MONTH(?to) - MONTH(?from) AS ?m) } GROUP BY ?m`,
		`SELECT ?m (COUNT(*) AS ?c) { ` + star + ` } GROUP BY ((YEAR(?to) - YEAR(?from)) * 12 + MONTH(?to) - MONTH(?from) AS ?m)`,
		`SELECT ?k (SUM(DAY(?to) * ?n) AS ?sum) (MIN(SECONDS(?to) - SECONDS(?from)) AS ?lo) { ` + star + ` } GROUP BY (HOURS(?to) * 60 + MINUTES(?to) AS ?k)`,
		`SELECT ?s ?d ?e { ` + star + ` BIND(SECONDS(?from) * 2 + 0.5 AS ?d) BIND(-HOURS(?from) + ABS(DAY(?to) - 15) AS ?e) }`,
		`SELECT (COUNT(*) AS ?c) { ` + star + ` FILTER(YEAR(?to) - YEAR(?from) > 3) }`,
		`SELECT (SUM(YEAR(?to) - YEAR(?from)) AS ?t) (AVG(MONTH(?to) * 1.5) AS ?a) { ` + star + ` }`,
	} {
		got, want := run(q), run(plain.Replace(q))
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s:\n got %d rows %q\nwant %d rows %q", q, len(got), got[:min(len(got), 5)], len(want), want[:min(len(want), 5)])
		}
	}
}

// TestNumberCastsMatchCast holds xsd:integer and xsd:decimal of numbers held in ids and of STR of them, computed by
// numberValue in BINDs, FILTER comparisons (compareTerms) and GROUP BY keys, to the same expressions with the
// variable wrapped in COALESCE, which numberValue does not evaluate (builtin.Cast on terms): integers, decimals of
// every inline shape, decimals too long or too large for an id, and strings (xsd:integer(STR(?v)) of a decimal is an
// error; of a string of digits, a number). A FILTER over a BIND of such a cast moves below the BIND (cheapExpr).
func TestNumberCastsMatchCast(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	b, add := builderAdding(t)
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	for i := range 3000 {
		var v rdf.Term
		switch r.IntN(6) {
		case 0:
			v = rdf.Literal(fmt.Sprint(r.IntN(20000)-10000), rdf.XSDInteger)
		case 1:
			v = rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(10000), r.IntN(100)), rdf.XSDDecimal)
		case 2:
			v = rdf.Literal(fmt.Sprintf("-%d.%d", r.IntN(100), r.IntN(10)), rdf.XSDDecimal)
		case 3:
			v = rdf.Literal(fmt.Sprintf("%d.%06d", r.IntN(1000), r.IntN(1000000)), rdf.XSDDecimal)
		case 4:
			v = rdf.String(fmt.Sprint(r.IntN(100)))
		default:
			v = rdf.String(fmt.Sprintf("%d.5", r.IntN(100)))
		}
		add(ex(fmt.Sprint("s", i)), ex("v"), v)
	}
	ds := FromIndex(b.Build())
	run := func(src string) []string {
		t.Helper()
		res, err := runText(t, ds, "PREFIX ex: <http://ex.org/>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"+src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		out := resultRows(res)
		slices.Sort(out)
		return out
	}
	plain := strings.NewReplacer("?v)", "COALESCE(?v))")
	for _, q := range []string{
		`SELECT ?s ?i ?d ?j ?k { ?s ex:v ?v BIND(xsd:integer(?v) AS ?i) BIND(xsd:decimal(?v) AS ?d)
			BIND(xsd:integer(xsd:decimal(STR(?v)) * 100) AS ?j) BIND(xsd:integer(STR(?v)) AS ?k) }`,
		`SELECT ?s { ?s ex:v ?v FILTER(xsd:integer(xsd:decimal(STR(?v)) * 100) > 500000) }`,
		`SELECT ?s { ?s ex:v ?v FILTER(xsd:integer(STR(?v)) <= 20 && xsd:decimal(?v) != 7) }`,
		`SELECT ?s ?i { ?s ex:v ?v BIND(xsd:integer(xsd:decimal(STR(?v)) * 100) AS ?i) FILTER(?i > 500000) }`,
		`SELECT ?k (COUNT(*) AS ?n) { ?s ex:v ?v } GROUP BY (xsd:integer(?v) AS ?k)`,
	} {
		got, want := run(q), run(plain.Replace(q))
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s:\n got %d rows %q\nwant %d rows %q", q, len(got), got[:min(len(got), 5)], len(want), want[:min(len(want), 5)])
		}
	}
	q, err := parser.Parse(`PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
		SELECT ?s { ?s <http://ex.org/v> ?v BIND(xsd:integer(xsd:decimal(STR(?v)) * 100) AS ?i) FILTER(?i > 500000) }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), ds, q, Options{})
	if e.belowBinds(firstOp[*algebra.Filter](q.Op)) == nil {
		t.Error("FILTER over a BIND of a cast of a number: not moved below the BIND")
	}
}
