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

// runMemo runs a SELECT with the memos on or off, returning its solutions sorted.
func runMemo(t *testing.T, ds *Dataset, src string, noMemo bool) []string {
	t.Helper()
	q := mustParse(t, src)
	e := newEvaluator(context.Background(), ds, q, Options{})
	e.noMemo = noMemo
	c := &collector{res: &Result{}}
	if err := e.selectQuery(q, c); err != nil { // as Stream runs it: SELECT expressions on scratch ids
		t.Fatalf("%s: %v", src, err)
	}
	out := resultRows(c.res)
	slices.Sort(out)
	return out
}

// TestMemosMatchReference: BINDs of one variable computed once per value (bindMemo) and comparisons of computed
// values with constants answered once per value (cmpMemo) give exactly the solutions of evaluating every row: values
// that repeat (so the memos answer), errors (the variable stays unbound; "!" tells an error from false), BINDs
// reading a BIND (scratch ids under a SELECT expression), expressions of no variable or two, and those whose value
// differs per call (RAND, BNODE, STRUUID), which are never memoised.
func TestMemosMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	xsd := rdf.XSDNS
	pool := []rdf.Term{
		rdf.Literal("2008-02-10", xsd+"date"), rdf.Literal("2009-12-31", xsd+"date"), rdf.Literal("2008-02-30", xsd+"date"),
		rdf.Literal("2008-06-01T10:20:30Z", xsd+"dateTime"), rdf.Literal("2008-06-01T10:20:30", xsd+"dateTime"),
		rdf.Literal("7", rdf.XSDInteger), rdf.Literal("0012", rdf.XSDInteger), rdf.Literal("2.50", rdf.XSDDecimal),
		rdf.String("abc"), rdf.String("2008-01-01"), rdf.LangString("chat", "fr"), rdf.IRI("http://ex.org/x"),
		rdf.Literal("1e3", rdf.XSDDouble),
	}
	b, add := builderAdding(t)
	for i := range 3000 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		add(s, rdf.IRI("http://ex.org/v"), pool[r.IntN(len(pool))])
		add(s, rdf.IRI("http://ex.org/w"), pool[r.IntN(len(pool))])
	}
	ds := FromIndex(b.Build())
	for _, body := range []string{
		`BIND(xsd:dateTime(CONCAT(STR(?v), "T00:00:00")) AS ?c) FILTER(?c >= "2008-06-01T00:00:00"^^xsd:dateTime)`,
		`BIND(xsd:dateTime(CONCAT(STR(?v), "T00:00:00")) AS ?c) FILTER(!(?c < "2009-01-01T00:00:00Z"^^xsd:dateTime))`,
		`BIND(STRLEN(STR(?v)) AS ?c) FILTER(?c != 10 && ?c > 3)`,
		`BIND(xsd:integer(?v) AS ?c) FILTER(!(?c = 7) || ?c > 100)`,
		`BIND(CONCAT(STR(?v), "-", LANG(?v)) AS ?c) FILTER(?c < "abc")`,
		`BIND(CONCAT(STR(?v), "x") AS ?c) FILTER(!(?c < 5))`,
		`BIND(xsd:dateTime(CONCAT(STR(?v), "T20:00:00")) AS ?c) FILTER(!(?c > "2008-02-10T12:00:00Z"^^xsd:dateTime))`,
		`BIND(UCASE(STR(?v)) AS ?c) BIND(SUBSTR(?c, 2, 3) AS ?d) FILTER(?d != "BC")`,
		`BIND(IF(isIRI(?v), "i", STR(?v)) AS ?c) FILTER(?c = "i" || ?c = "abc")`,
		`BIND(CONCAT(STR(?v), STR(?w)) AS ?c) FILTER(STRLEN(?c) > 12)`,
		`BIND(STR(RAND() < 0.5) AS ?c) FILTER(?c = "true" || ?c = "false")`,
		`BIND(BNODE(STR(?v)) AS ?c)`,
		`BIND(STRLEN(STRUUID()) + STRLEN(STR(?v)) AS ?c)`,
		`BIND("k" AS ?c) FILTER(?c = "k")`,
		`BIND(YEAR(?v) AS ?c) BIND(?c * 2 AS ?d) FILTER(?d > 4016)`,
		`BIND(xsd:string(?v) AS ?c) BIND(xsd:dateTime(?c) AS ?d) FILTER(?d = ?v)`,
		// IN over constants, answered once per value (inMemo): matches, errors (a date against a number, an
		// invalid date) and NOT IN's errors, over data values and over a BIND's values.
		`FILTER(?v IN (7, "abc", <http://ex.org/x>, "2008-02-10"^^xsd:date))`,
		`FILTER(?v NOT IN (12, 2.5, "chat"@fr) && ?w IN ("1000"^^xsd:double, "2008-06-01T10:20:30Z"^^xsd:dateTime))`,
		`BIND(STR(?v) AS ?c) FILTER(?c IN ("7", "abc", "0012"))`,
		`BIND(?v IN ("2009-12-31"^^xsd:date, 7.0) AS ?c) FILTER(!?c || ?w NOT IN (?v))`,
		// sameTerm from ids (sameTermByID): "0012" and 7 against their values, a language tag's case, a BIND's
		// values (interned ids) and constants the data lacks.
		`FILTER(!sameTerm(?v, ?w))`,
		`FILTER(sameTerm(?v, 7) || sameTerm(?w, "0012"^^xsd:integer) || sameTerm(?v, "chat"@FR))`,
		`BIND(xsd:integer(?v) AS ?c) FILTER(sameTerm(?c, ?w) || sameTerm(?c, 12) || sameTerm(?c, "missing"))`,
		// Conditions of string functions over one variable, answered once per value (testMemo): matches, errors
		// (REGEX and STRSTARTS of an IRI or a number; "!" of an error), a language tag, a BIND's values, and a
		// condition over two variables, never memoised.
		`FILTER(STRENDS(STRAFTER(STR(?v), "-"), "0") || STRSTARTS(STR(?v), "2008"))`,
		`FILTER(CONTAINS(LCASE(STR(?v)), "a") && STRLEN(STR(?v)) > 2)`,
		`FILTER(!REGEX(?v, "^[0-9]+$"))`,
		`FILTER(STRSTARTS(?v, "a") || !STRENDS(?v, "1"))`,
		`FILTER(LANGMATCHES(LANG(?v), "FR") || STRLEN(?v) = 3)`,
		`BIND(UCASE(STR(?v)) AS ?c) FILTER(STRSTARTS(?c, "A") || CONTAINS(?c, "-0"))`,
		`FILTER(CONTAINS(STR(?v), STR(?w)))`,
	} {
		for _, src := range []string{
			`PREFIX xsd: <` + xsd + `> SELECT * { ?s <http://ex.org/v> ?v ; <http://ex.org/w> ?w ` + body + ` }`,
			`PREFIX xsd: <` + xsd + `> SELECT ?c (COUNT(*) AS ?n) { ?s <http://ex.org/v> ?v ; <http://ex.org/w> ?w ` + body + ` } GROUP BY ?c`,
		} {
			got, want := runMemo(t, ds, src, false), runMemo(t, ds, src, true)
			if strings.Contains(body, "BNODE") || strings.Contains(body, "RAND") {
				// Labels and random numbers differ between runs: only the number of solutions is compared.
				got, want = got[:0:0], want[:0:0]
				got = append(got, fmt.Sprint(len(runMemo(t, ds, src, false))))
				want = append(want, fmt.Sprint(len(runMemo(t, ds, src, true))))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
			}
		}
	}
	// SELECT expressions reading one another: the second's input is a scratch id, which names other values
	// later.
	for _, src := range []string{
		`SELECT (STR(?v) AS ?a) (CONCAT(?a, "!") AS ?b) (STRLEN(?b) AS ?n) { ?s <http://ex.org/v> ?v }`,
		`SELECT (STR(?v) AS ?a) (?a IN ("7", "abc", "chat") AS ?b) { ?s <http://ex.org/v> ?v }`,
		`SELECT (STR(?v) AS ?a) (STR(?w) AS ?b) (sameTerm(?a, ?b) AS ?c) { ?s <http://ex.org/v> ?v ; <http://ex.org/w> ?w }`,
	} {
		if got, want := runMemo(t, ds, src, false), runMemo(t, ds, src, true); !slices.Equal(got, want) {
			t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
	}
}

// TestBindMemoWithinBudget: a memo of long values stops growing at half the query's budget, rather than ending a
// query that runs without it, and the query answers as without the memo.
func TestBindMemoWithinBudget(t *testing.T) {
	b := index.NewBuilder()
	for i := range 400 {
		if err := b.Add(rdf.Triple(rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), rdf.IRI("http://ex.org/v"),
			rdf.String(fmt.Sprint(i%200)))); err != nil {
			t.Fatal(err)
		}
	}
	ds := FromIndex(b.Build())
	// 200 values of 20 000 characters: 4 MB, over half of a 1 MB budget.
	src := `SELECT ?s ?c { ?s <http://ex.org/v> ?v BIND(CONCAT(STR(?v), "` + strings.Repeat("x", 20000) + `") AS ?c) }`
	q := mustParse(t, src)
	var rows [2]int
	for i, noMemo := range []bool{true, false} {
		e := newEvaluator(context.Background(), ds, q, Options{MaxMemory: 1 << 20})
		e.noMemo = noMemo
		c := &collector{res: &Result{}}
		if err := e.selectQuery(q, c); err != nil {
			t.Fatalf("noMemo=%v: %v", noMemo, err)
		}
		rows[i] = len(c.res.Rows)
		for _, m := range e.bindMemos {
			if m != nil && int64(len(m.vals))*20000 > e.opt.MaxMemory/2 {
				t.Fatalf("the memo holds %d values of 20 000 characters, over half the budget", len(m.vals))
			}
		}
	}
	if rows[0] != 400 || rows[1] != 400 {
		t.Fatalf("solutions without and with the memo: %v", rows)
	}
}

// TestDirectBindReachesCmpMemo: a BIND whose value only a FILTER above it and a COUNT(*) read (markDirect,
// markGroupDirect: no interned id needed) still gives the memo's repeated values one interned id each, so the
// comparison above is answered once per value (cmpMemo) rather than parsed per row. On scratch ids (a new one per
// row) the comparison memo was never asked: d19 parsed 936 000 dateTimes at 10 M. The answers are those of every
// row evaluated, with errors (an invalid date, a string, an IRI) among the values, and the memos stay bounded.
func TestDirectBindReachesCmpMemo(t *testing.T) {
	xsd := rdf.XSDNS
	pool := []rdf.Term{
		rdf.Literal("2008-02-10", xsd+"date"), rdf.Literal("2009-12-31", xsd+"date"), rdf.Literal("2008-02-30", xsd+"date"),
		rdf.Literal("2005-06-01", xsd+"date"), rdf.Literal("2006-01-01-05:00", xsd+"date"), rdf.String("abc"),
		rdf.Literal("2007-03-04Z", xsd+"date"), rdf.IRI("http://ex.org/x"),
	}
	b, add := builderAdding(t)
	for i := range 4000 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		add(s, rdf.IRI("http://ex.org/v"), pool[i%len(pool)])
	}
	ds := FromIndex(b.Build())
	for _, body := range []string{
		`BIND(xsd:dateTime(CONCAT(STR(?v), "T00:00:00")) AS ?c) FILTER(?c >= "2006-01-01T00:00:00"^^xsd:dateTime)`,
		`BIND(xsd:dateTime(CONCAT(STR(?v), "T00:00:00")) AS ?c) FILTER(!(?c < "2008-01-01T00:00:00Z"^^xsd:dateTime))`,
	} {
		src := `PREFIX xsd: <` + xsd + `> SELECT (COUNT(*) AS ?n) { ?s <http://ex.org/v> ?v ` + body + ` }`
		if got, want := runMemo(t, ds, src, false), runMemo(t, ds, src, true); !slices.Equal(got, want) {
			t.Fatalf("%s: %v, reference %v", body, got, want)
		}
		{
			_, e := semiRun(t, ds, src, Options{})
			lookups, entries := 0, 0
			for _, s := range e.cmpSites.all {
				if s.memo != nil {
					lookups += s.memo.lookups
					entries += len(s.memo.vals)
				}
			}
			// 4 000 rows of 8 values; 3 make valid dateTimes (a timezone before the "T" does not), and their
			// 1 500 rows ask the comparison memo, all but each value's first (its BIND value then met once, on a
			// scratch id); the memo holds one answer per value.
			if lookups < 1500-3 || entries > 3 {
				t.Fatalf("%s: the comparison memo was asked %d times and holds %d values", body, lookups, entries)
			}
		}
	}
}

// TestSumMemoMatchesEveryRow: SUM and AVG of an operand that calls a function over one or two variables whose
// values repeat (casts compared across types, FLOOR of a sum, STRLEN, a BIND's computed value held in a scratch id)
// give the answers of every row evaluated (noMemo), with errors among the inputs (a string that casts to no number,
// an unbound OPTIONAL value); the memo answers most rows (its entries are the distinct inputs), where the old
// evaluation worked the operand out on every row; an operand over distinct inputs drops its memo, and one of
// operators alone gets none.
func TestSumMemoMatchesEveryRow(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	b, add := builderAdding(t)
	for i := range 2000 {
		s := ex("s", i)
		add(s, ex("g", 0), ex("G", r.IntN(5)))
		add(s, ex("p", 1), rdf.Literal(fmt.Sprint(1+r.IntN(10)), rdf.XSDInteger))
		switch r.IntN(10) {
		case 0: // none: the OPTIONAL leaves it unbound
		case 1:
			add(s, ex("p", 2), rdf.String("n/a"))
		case 2:
			add(s, ex("p", 2), rdf.Literal(fmt.Sprintf("%d.5", r.IntN(4)), rdf.XSDNS+"decimal"))
		default:
			add(s, ex("p", 2), rdf.Literal(fmt.Sprint(r.IntN(10)), rdf.XSDInteger))
		}
		add(s, ex("p", 3), rdf.Literal(fmt.Sprint(r.IntN(1_000_000)), rdf.XSDInteger))
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> `
	cases := []struct {
		src  string
		memo string // "used": most rows answered by the memo; "dropped"; "none"
	}{
		{pre + `SELECT ?g (SUM(IF(xsd:decimal(?a) > xsd:double(?b) + 2.5, 1, 0)) AS ?x) (AVG(xsd:integer(FLOOR((?a + ?b) / 2))) AS ?y) (COUNT(*) AS ?n)
			{ ?s :g0 ?g ; :p1 ?a OPTIONAL { ?s :p2 ?b } } GROUP BY ?g`, "used"},
		{pre + `SELECT ?g (SUM(xsd:integer(?b)) AS ?x) (AVG(STRLEN(STR(?a))) AS ?y) { ?s :g0 ?g ; :p1 ?a ; :p2 ?b } GROUP BY ?g`, "used"},
		{pre + `SELECT ?g (SUM(ABS(?c - 5)) AS ?x) { ?s :g0 ?g ; :p1 ?a BIND(?a * 2 AS ?c) } GROUP BY ?g`, "used"},
		{pre + `SELECT (SUM(IF(xsd:double(?d) > 500000, 1, 0)) AS ?x) { ?s :p3 ?d }`, "dropped"},
		{pre + `SELECT ?g (SUM(IF(?a > 5, 1, 0)) AS ?x) { ?s :g0 ?g ; :p1 ?a } GROUP BY ?g`, "none"},
	}
	for i, c := range cases {
		q := mustParse(t, c.src)
		var got [2]string
		var memos map[*algebra.Aggregate]*sumMemo
		for j, noMemo := range []bool{true, false} {
			e := newEvaluator(context.Background(), ds, q, Options{})
			e.noMemo = noMemo
			res := &collector{res: &Result{}}
			if err := e.selectQuery(q, res); err != nil {
				t.Fatalf("query %d: %v", i, err)
			}
			got[j] = answerText(res.res)
			memos = e.sumMemos
		}
		if got[0] != got[1] {
			t.Fatalf("query %d: with the memo\n%s\nevery row\n%s", i, got[1], got[0])
		}
		var used, dropped, none int
		for _, m := range memos {
			switch {
			case m == nil:
				none++
			case m.off:
				dropped++
			case m.hits > 0 && m.hits >= 10*len(m.vals):
				used++
			}
		}
		if n := len(memos); (c.memo != "none" && n == 0) || (c.memo == "used" && used != n) || (c.memo == "dropped" && dropped != n) || (c.memo == "none" && none != n) {
			t.Errorf("query %d: want every memo %s, got %d of %d used, %d dropped, %d none", i, c.memo, used, n, dropped, none)
		}
	}
}
