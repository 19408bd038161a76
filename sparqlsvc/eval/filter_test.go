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
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestFilterPushdownMatchesReference: a FILTER over a BGP tests each conjunct as soon as its variables are bound
// (filteredBGP); the answers must be those of the BGP's finished solutions filtered afterwards (the reference),
// for conjuncts on every step of the join, ones that raise errors, EXISTS, RAND, constants, values of every
// kind, and conjuncts under BINDs, some reading the BINDs' variables (belowBinds).
func TestFilterPushdownMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	vals := aggregateValues()
	b, add := builderAdding(t)
	for i := range 300 {
		for range 1 + r.IntN(2) {
			add(ex("s", i), ex("v", 0), vals[r.IntN(len(vals))])
		}
		add(ex("s", i), ex("link", 0), ex("s", r.IntN(300)))
	}
	ds := FromIndex(b.Build())
	bgp := `?s <http://ex.org/v0> ?v ; <http://ex.org/link0> ?o . ?o <http://ex.org/v0> ?w`
	for _, f := range []string{
		`?v > 5 && ?w < "m"`,
		`isNumeric(?v) && LANG(?w) = "" && ?v != ?w`,
		`?v + "a" > 1 || ?w = ?v`,
		`STRLEN(STR(?v)) > 2 && CONTAINS(STR(?o), "1") && DATATYPE(?w) != <http://www.w3.org/2001/XMLSchema#string>`,
		`?v < ?w && NOT EXISTS { ?o <http://ex.org/link0> ?s }`,
		`RAND() < 2 && ?v >= 0`,
		`true && ?s != ?o`,
		`1 = 2`,
		`UCASE(STR(?w)) = STR(?w) && YEAR(?v) > 2000`,
		`BIND(?v * 2 AS ?x) BIND(STR(?w) AS ?y) FILTER(?v > 5 && ?x < 100 && STRLEN(?y) > 1 && ?w != ?v)`,
		`BIND(?v + 1 AS ?x) FILTER(?x > 3 || ?w < 2) FILTER(isNumeric(?w))`,
		`BIND(?nope AS ?x) FILTER(!BOUND(?x) && ?v != 0 && NOT EXISTS { ?o <http://ex.org/link0> ?s })`,
		`BIND(STRLEN(STR(?o)) AS ?x) FILTER(?x < 20 && ?v < ?w && RAND() < 2)`,
	} {
		src := `SELECT * { ` + bgp + ` FILTER(` + f + `) }`
		if strings.HasPrefix(f, "BIND") { // BINDs and a FILTER: conjuncts not reading them move below (belowBinds)
			src = `SELECT * { ` + bgp + ` ` + f + ` }`
		}
		q := mustParse(t, src)
		filter := firstOp[*algebra.Filter](q.Op)
		if _, ok := filter.Op.(*algebra.BGP); !ok && !strings.Contains(src, "BIND") {
			t.Fatalf("%s: the filter is over %T", src, filter.Op)
		}
		got, _ := runFilter(t, ds, q, filter, src, false)
		want, _ := runFilter(t, ds, q, filter, src, true)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
	}
}

// TestValueRangesMatchReference: a FILTER comparing the object of the first pattern with constants reads only the
// blocks of inline numbers and dates whose values can pass (valueRanges); the answers must be those of the whole
// range filtered afterwards, over objects of every kind (numbers held in ids and in the dictionary, every decimal
// scale, doubles, dates with and without a timezone, strings, IRIs), and the rows read must be fewer.
func TestValueRangesMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	xsd := rdf.XSDNS
	value := func() rdf.Term {
		n := r.IntN(200) - 100
		switch r.IntN(9) {
		case 0:
			return rdf.Literal(fmt.Sprint(n), rdf.XSDInteger)
		case 1:
			return rdf.Literal(fmt.Sprintf("0%d", n+100), rdf.XSDInteger) // in the dictionary
		case 2:
			return rdf.Literal(fmt.Sprintf("%d.%0*d", n, 1+r.IntN(3), r.IntN(10)), rdf.XSDDecimal)
		case 3:
			return rdf.Literal(fmt.Sprintf("%d.50000", n), rdf.XSDDecimal) // in the dictionary
		case 4:
			return rdf.Literal(fmt.Sprintf("%de0", n), rdf.XSDDouble)
		case 5:
			return rdf.Literal(fmt.Sprintf("%d-%02d-%02d", 2007+r.IntN(2), 1+r.IntN(12), 1+r.IntN(31)), xsd+"date") // 31 April
		case 6:
			return rdf.Literal(fmt.Sprintf("2008-%02d-01Z", 1+r.IntN(12)), xsd+"date")
		case 7:
			return rdf.String(fmt.Sprint(n))
		}
		return ex("o", n)
	}
	b, add := builderAdding(t)
	for i := range 3000 {
		add(ex("s", i), ex("v", 0), value())
	}
	ds := FromIndex(b.Build())
	for _, f := range []string{
		`?v < 10`, `?v >= 2.5`, `?v > -3 && ?v <= 40.25`, `10 > ?v`, `-7 <= ?v && ?v < -7.05`,
		`?v < "2008-06-01"^^<` + xsd + `date>`, `?v >= "2008-06-01Z"^^<` + xsd + `date>`,
		`?v >= "NaN"^^<` + xsd + `double>`, `?v < 1e3 && ?v > "abc"`, `?v > 0 && ?v < 0`, `?v > 99.5 || ?v < -99`,
		// "!=": the rows around the equal ones, or all of them tested where it is not "<" or ">" (NaN, an IRI).
		`?v != 5`, `-3.5 != ?v`, `?v != "2008-06-01"^^<` + xsd + `date>`, `?v != 7 && ?v < 20 && ?v != 9`,
		`?v != "NaN"^^<` + xsd + `double>`, `?v != <http://ex.org/o3>`, `?v != "abc"`, `?v != "5"`, `?v != 5e0`,
		`?v != 5 && ?v != -5`, `?v > "2007-02-27"^^<` + xsd + `date> && ?v <= "2008-04-30"^^<` + xsd + `date>`,
		`?v != "2008-02-29"^^<` + xsd + `date>`, `?v >= "2007-01-01"^^<` + xsd + `date>`,
		// IN: the union of the intervals where each "=" holds; equal values in other forms and kinds, repeated
		// and overlapping constants, constants no block holds, and with other comparisons.
		`?v IN (5, -3, 40)`, `?v IN (5, 5.0, 5e0, "05"^^<` + xsd + `integer>, 5)`, `?v IN (-3.5, 2.25, 7)`,
		`?v IN ("2008-06-01"^^<` + xsd + `date>, "2008-03-01Z"^^<` + xsd + `date>, "2007-04-31"^^<` + xsd + `date>)`,
		`?v IN (<http://ex.org/o3>, "abc", 7)`, `?v IN (1, 2, 3) && ?v > 1`, `?v IN (1, 2, 3) && ?v != 2`,
		`?v IN ("NaN"^^<` + xsd + `double>, 8)`, `?v NOT IN (1, 2, 3) && ?v < 5`, `?v IN ("5", 6)`,
	} {
		steps, all := checkV0Filter(t, ds, f)
		if !strings.Contains(f, "||") && (!strings.Contains(f, "!=") || f == `?v != 5`) && !strings.Contains(f, "NOT IN") && steps >= all {
			t.Errorf("%s: read %d rows, as many as the whole range (%d)", f, steps, all)
		}
	}
}

// checkV0Filter runs FILTER(f) over the pattern "?s <http://ex.org/v0> ?v" as the evaluator does and as the
// reference does (runFilter), reports a difference in the solutions, and returns the rows each read.
func checkV0Filter(t *testing.T, ds *Dataset, f string) (steps, all int64) {
	t.Helper()
	src := `SELECT ?s ?v { ?s <http://ex.org/v0> ?v FILTER(` + f + `) }`
	q := mustParse(t, src)
	filter := firstOp[*algebra.Filter](q.Op)
	got, steps := runFilter(t, ds, q, filter, src, false)
	want, all := runFilter(t, ds, q, filter, src, true)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: %d solutions, reference %d", f, len(got), len(want))
	}
	return steps, all
}

// runFilter evaluates filter, a FILTER of q, and returns its solutions sorted and the rows the evaluator read. The
// reference (ref) evaluates the filter's input and tests each solution against its expressions one by one, with
// none of the pushdowns or value ranges the evaluator applies to a FILTER.
func runFilter(t *testing.T, ds *Dataset, q *algebra.Query, filter *algebra.Filter, src string, ref bool) ([]string, int64) {
	t.Helper()
	e := newEvaluator(context.Background(), ds, q, Options{})
	var out []string
	collect := e.collectRows(&out)
	var err error
	if ref {
		e.exec(filter.Op, e.newRow(), func(row []ID) bool {
			for _, f := range filter.Exprs {
				if !e.test(f, row, &err) {
					return err == nil
				}
			}
			return collect(row)
		}, &err)
	} else {
		e.exec(filter, e.newRow(), collect, &err)
	}
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	slices.Sort(out)
	return out, int64(e.steps)
}

// TestInlineDateFormsSkipped: dates held in their ids as written but no dates (31 April) pass no comparison, so a
// range over inline dates reads none of them: as many rows as when those forms are dates outside the range.
func TestInlineDateFormsSkipped(t *testing.T) {
	data := func(invalid bool) *Dataset {
		b := index.NewBuilder()
		for i := range 300 {
			d := fmt.Sprintf("2007-%02d-%02d", 1+i%12, 1+i%31)
			if v, _ := index.InlineID(rdf.Literal(d, rdf.XSDNS+"date")); !invalid && index.IsInlineDate(v) {
				if last, _ := index.InlineDateMonth(v); v > last {
					d = "2006-01-01" // a date before the range instead
				}
			}
			if err := b.Add(rdf.Triple(rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), rdf.IRI("http://ex.org/v0"),
				rdf.Literal(d, rdf.XSDNS+"date"))); err != nil {
				t.Fatal(err)
			}
		}
		return FromIndex(b.Build())
	}
	src := `SELECT ?v { ?s <http://ex.org/v0> ?v FILTER(?v > "2007-01-01"^^<http://www.w3.org/2001/XMLSchema#date>) }`
	got, steps := runQuery(t, data(true), src)
	want, wantSteps := runQuery(t, data(false), src)
	if !slices.Equal(got, want) || steps != wantSteps {
		t.Fatalf("with 31 April and the like: %d solutions, %d rows read; without: %d, %d", len(got), steps, len(want), wantSteps)
	}
}

// TestAlwaysErrorFilterReadsNothing: a FILTER conjunct that is an error whatever the solution (a function the
// evaluator does not know, such as xsd:time, under a comparison or "!") keeps no solution, so the join is not
// run at all; forms that may absorb the error (||, COALESCE, IF, a cast the evaluator knows) are evaluated as before.
// The answers must be the reference's in both cases.
func TestAlwaysErrorFilterReadsNothing(t *testing.T) {
	b, add := builderAdding(t)
	for i := range 200 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		for _, tr := range [][2]rdf.Term{
			{rdf.IRI("http://ex.org/d"), rdf.Literal(fmt.Sprintf("2008-03-%02dT10:00:00", 1+i%28), rdf.XSDNS+"dateTime")},
			{rdf.IRI("http://ex.org/p"), rdf.Literal(fmt.Sprintf("2008-03-%02d", 1+i%20), rdf.XSDNS+"date")},
		} {
			add(s, tr[0], tr[1])
		}
	}
	ds := FromIndex(b.Build())
	xsd := "<" + rdf.XSDNS
	for _, c := range []struct {
		f     string
		never bool
	}{
		{`xsd:time(?d) < ?p`, true},
		{`?p >= xsd:time(?d)`, true},
		{`!(xsd:time(?d) = ?p)`, true},
		{`<http://ex.org/f>(?d)`, true},
		{`xsd:string(<http://ex.org/f>(?d)) != ""`, true},
		{`?d > ?p && xsd:time(?d) < ?p`, true},
		{`xsd:time(?d) < ?p || ?d != ?p`, false},
		{`COALESCE(xsd:time(?d), true)`, false},
		{`IF(BOUND(?d), true, xsd:time(?d) < ?p)`, false},
		{`xsd:dateTime(?d) > "2008-03-10T00:00:00"^^` + xsd + `dateTime>`, false},
		{`BOUND(?d) || xsd:time(?d) NOT IN (1)`, false},
	} {
		src := `PREFIX xsd: ` + xsd + `> SELECT ?s { ?s <http://ex.org/d> ?d ; <http://ex.org/p> ?p FILTER(` + c.f + `) }`
		q := mustParse(t, src)
		filter := firstOp[*algebra.Filter](q.Op)
		got, steps := runFilter(t, ds, q, filter, src, false)
		want, _ := runFilter(t, ds, q, filter, src, true)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d solutions, reference %d", c.f, len(got), len(want))
		}
		if c.never && (steps > 1 || len(got) != 0) { // the one step is the FILTER's own
			t.Errorf("%s: read %d rows for %d solutions; it holds on none", c.f, steps, len(got))
		}
		if !c.never && (steps == 0 || len(want) == 0) {
			t.Errorf("%s: read %d rows for %d solutions (reference %d): the case tests nothing", c.f, steps, len(got), len(want))
		}
	}
}

// TestDateCastComparesDates: xsd:date of a dateTime compared with a date column, as a user checks "reviewed before
// the product was published", keeps exactly the rows whose day is earlier, and the timezone of the date part is
// the dateTime's own.
func TestDateCastComparesDates(t *testing.T) {
	b, add := builderAdding(t)
	want := 0
	for i := range 120 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		day, pub := 1+i%28, 1+i%20
		if day < pub {
			want++
		}
		for _, tr := range [][2]rdf.Term{
			{rdf.IRI("http://ex.org/d"), rdf.Literal(fmt.Sprintf("2008-03-%02dT23:59:59", day), rdf.XSDNS+"dateTime")},
			{rdf.IRI("http://ex.org/p"), rdf.Literal(fmt.Sprintf("2008-03-%02d", pub), rdf.XSDNS+"date")},
		} {
			add(s, tr[0], tr[1])
		}
	}
	ds := FromIndex(b.Build())
	got, _ := runQuery(t, ds, `PREFIX xsd: <`+rdf.XSDNS+`> SELECT ?s { ?s <http://ex.org/d> ?d ; <http://ex.org/p> ?p FILTER(xsd:date(?d) < ?p) }`)
	if len(got) != want || want == 0 {
		t.Fatalf("%d solutions, want %d", len(got), want)
	}
	got, _ = runQuery(t, ds, `PREFIX xsd: <`+rdf.XSDNS+`> SELECT ?c { <http://ex.org/s3> <http://ex.org/d> ?d BIND(xsd:date(?d) AS ?c) }`)
	if len(got) != 1 || got[0] != `"2008-03-04"^^<`+rdf.XSDNS+`date>` {
		t.Fatalf("xsd:date of 2008-03-04T23:59:59 = %v", got)
	}
}

// TestClassConstantFiltersMatchReference: conjuncts with one value over each dictionary date block (classConstant:
// TZ compared with "", DATATYPE, LANG, the term-kind tests, and !, &&, || of them) decide whole blocks from one row
// (valueRanges), alone and beside comparisons, "!=" and IN, and give exactly the solutions testing every row gives,
// over dateTimes and dates with and without timezones, forms that are no dates (31 February), numbers and strings.
// Conjuncts that are not constant over a block (TZ against "Z", a comparison inside the ||) stay tested per row.
// The FILTER of d26 (TZ != "") and its negation read fewer rows than the pattern has.
func TestClassConstantFiltersMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	mixed, _ := dateData(t, r, 2000)
	// Only values of the dictionary's date blocks (valid dateTimes, dates with a timezone): there the conjuncts are
	// decided for every row and not tested again.
	b, add := builderAdding(t)
	for i := 0; i < 2000; {
		o := dateTerm(r)
		isDate := o.Datatype == rdf.XSDNS+"date"
		if v, ok := builtin.DateValueOf(o.Value, isDate); !ok || (isDate && !v.Class.HasZone()) || (!isDate && o.Datatype != rdf.XSDNS+"dateTime") {
			continue
		}
		add(rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), rdf.IRI("http://ex.org/v0"), o)
		i++
	}
	onlyBlocks := FromIndex(b.Build())
	xsd := rdf.XSDNS
	dt := `<` + xsd + `dateTime>`
	for _, ds := range []*Dataset{mixed, onlyBlocks} {
		for _, f := range []string{
			`TZ(?v) != ""`, `TZ(?v) = ""`, `"" = TZ(?v)`, `!(TZ(?v) = "")`, `TZ(?v) != ""^^<` + xsd + `string>`,
			`DATATYPE(?v) = ` + dt, `DATATYPE(?v) != ` + dt + ` && TZ(?v) != ""`, `isLiteral(?v) && TZ(?v) = ""`,
			`isNumeric(?v) || TZ(?v) = ""`, `!isIRI(?v) && !isBlank(?v) && LANG(?v) = ""`,
			`TZ(?v) != "" && ?v > "2008-02-10T12:00:00Z"^^` + dt, `TZ(?v) = "" && ?v <= "2008-02-10T12:00:00"^^` + dt,
			`TZ(?v) != "" && ?v != "2008-02-10T12:00:00Z"^^` + dt,
			`TZ(?v) = "" && ?v IN ("2008-02-10"^^<` + xsd + `date>, "2007-03-01T10:00:00"^^` + dt + `)`,
			`TZ(?v) = "Z"`, `TZ(?v) != "Z" && TZ(?v) != ""`, `TZ(?v) = "" || ?v > "2008-02-10T12:00:00Z"^^` + dt,
			`TZ(?v) = ""@en`, `TZ(?v) != 0`, `LANG(?v) = "en"`,
		} {
			steps, all := checkV0Filter(t, ds, f)
			if (f == `TZ(?v) != ""` || f == `!(TZ(?v) = "")`) && steps >= all {
				t.Errorf("%s: read %d rows, as many as the whole range (%d)", f, steps, all)
			}
		}
	}
}

// TestFilterOverOptionalMatchesReference: a FILTER's conjuncts over an OPTIONAL that read only variables its left
// side binds in every solution move onto the left side (belowOptional); the answers must be those of the OPTIONAL's
// solutions filtered afterwards (the reference), for conjuncts that stay (BOUND of the OPTIONAL's variable, a
// variable only the OPTIONAL or an inner OPTIONAL binds, EXISTS, RAND), errors, an OPTIONAL with its own
// condition, nested OPTIONALs and a BIND on the left. Where a conjunct moves, the OPTIONAL is evaluated for fewer
// left solutions: fewer steps than the reference's.
func TestFilterOverOptionalMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 4))
	vals := aggregateValues()
	b, add := builderAdding(t)
	for i := range 300 {
		for range r.IntN(3) {
			add(ex("s", i), ex("v", 0), vals[r.IntN(len(vals))])
		}
		if r.IntN(3) > 0 {
			add(ex("s", i), ex("link", 0), ex("s", r.IntN(300)))
		}
	}
	ds := FromIndex(b.Build())
	const v, link = `<http://ex.org/v0>`, `<http://ex.org/link0>`
	for _, c := range []struct {
		where string
		fewer bool // a conjunct moves and drops left solutions
	}{
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o . ?o ` + v + ` ?w } FILTER(?v > 5 && !BOUND(?w))`, true},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o . ?o ` + v + ` ?w } FILTER(isNumeric(?v) && ?w < 3)`, true},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o } FILTER(?v > 5 || BOUND(?o))`, false},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o } FILTER(?o != ?s)`, false},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o FILTER(?o != ?s) } FILTER(STRLEN(STR(?v)) > 2 && !BOUND(?o))`, true},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o } OPTIONAL { ?o ` + v + ` ?w } FILTER(?v < 3 && ?o != ?s && LANG(?w) = "")`, true},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o } FILTER(?v + "a" > 1 && ?o != ?s)`, true},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o } FILTER(?v >= 0 && EXISTS { ?o ` + v + ` ?v })`, true},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o } FILTER(RAND() < 2 && !BOUND(?o))`, false},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + v + ` ?v2 ; ` + link + ` ?o } FILTER(?v != ?v2 && DATATYPE(?v) = <http://www.w3.org/2001/XMLSchema#integer>)`, true},
		{`?s ` + v + ` ?v BIND(STR(?v) AS ?x) OPTIONAL { ?s ` + link + ` ?o } FILTER(STRLEN(?x) < 3 && ?s != ?o)`, true},
		{`?s ` + v + ` ?v OPTIONAL { ?s ` + link + ` ?o } OPTIONAL { ?s ` + v + ` ?w } FILTER(BOUND(?o) && ?w != ?v)`, true},
		{`{ ?s ` + v + ` ?v } UNION { ?s ` + link + ` ?o } OPTIONAL { ?o ` + v + ` ?w } FILTER(?o != ?s && !BOUND(?w))`, false},
	} {
		src := `SELECT * { ` + c.where + ` }`
		q := mustParse(t, src)
		filter := firstOp[*algebra.Filter](q.Op)
		if _, ok := filter.Op.(*algebra.LeftJoin); !ok {
			t.Fatalf("%s: the filter is over %T", src, filter.Op)
		}
		got, steps := runFilter(t, ds, q, filter, src, false)
		want, refSteps := runFilter(t, ds, q, filter, src, true)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
		if c.fewer && steps >= refSteps {
			t.Errorf("%s: %d steps, reference %d: the conjuncts were not moved onto the left side", src, steps, refSteps)
		}
		if !c.fewer && steps < refSteps {
			t.Errorf("%s: %d steps, reference %d: nothing was to move", src, steps, refSteps)
		}
	}
}
