package eval

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// The review19j tests check this session's paths (date fields from the column's runs, the string tests read in
// place, STRLEN from the dictionary key) against an oracle outside the evaluator: builtin's functions applied to
// each stored term, so a path and the general evaluation cannot agree on a wrong answer.

// oddDate is a date or dateTime of the forms the column's fields must get right: years below 1000 and past 9999,
// negative years, leap days, 24:00:00, time zones that cross a day, fractions, and now and then no date at all.
func oddDate(r *rand.Rand) rdf.Term {
	years := []int{2008, 2000, 1900, 999, 1, 10000, 12345, -1, -44, 1582, 2024}
	y := years[r.IntN(len(years))]
	ys := fmt.Sprintf("%04d", y)
	if y < 0 {
		ys = fmt.Sprintf("-%04d", -y)
	}
	m, d := 1+r.IntN(12), 1+r.IntN(28)
	switch r.IntN(12) {
	case 0:
		return rdf.Literal(ys+"-02-29", index.XSDDate)
	case 1:
		return rdf.Literal(ys+"-02-29T12:00:00", index.XSDDateTime)
	case 2:
		return rdf.Literal(fmt.Sprintf("%s-12-31T24:00:00", ys), index.XSDDateTime)
	case 3:
		return rdf.Literal(fmt.Sprintf("%s-%02d-%02dT23:30:00-14:00", ys, m, d), index.XSDDateTime)
	case 4:
		return rdf.Literal(fmt.Sprintf("%s-%02d-%02dT00:10:00+14:00", ys, m, d), index.XSDDateTime)
	case 5:
		return rdf.Literal(fmt.Sprintf("%s-%02d-%02dZ", ys, m, d), index.XSDDate)
	case 6:
		return rdf.Literal(fmt.Sprintf("%s-%02d-%02d", ys, m, d), index.XSDDate)
	case 7:
		return rdf.Literal(fmt.Sprintf("%s-%02d-%02dT10:00:00.25", ys, m, d), index.XSDDateTime)
	case 8:
		return rdf.String(fmt.Sprintf("%s-%02d-%02d", ys, m, d))
	case 9:
		return rdf.Literal(fmt.Sprintf("%s-%02d-31", ys, m), index.XSDDate) // no date in short months
	}
	return rdf.Literal(fmt.Sprintf("%s-%02d-%02dT%02d:%02d:%02d", ys, m, d, r.IntN(24), r.IntN(60), r.IntN(60)), index.XSDDateTime)
}

// oddDateData is a builder with 1 500 subjects each with one ex:d of oddDate, the facts (subject, date), and the
// random source that drew them.
func oddDateData(t *testing.T, seed uint64) (*rand.Rand, *index.Builder, [][2]rdf.Term) {
	t.Helper()
	r := rand.New(rand.NewPCG(19, seed))
	b, add := builderAdding(t)
	var facts [][2]rdf.Term
	for i := range 1500 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/r%d", i))
		o := oddDate(r)
		add(s, rdf.IRI("http://ex.org/d"), o)
		facts = append(facts, [2]rdf.Term{s, o})
	}
	return r, b, facts
}

// oracleFilter is the sorted subjects s of facts whose object o passes test, what SELECT ?s WHERE { ?s p ?o
// FILTER(…) } gives.
func oracleFilter(facts [][2]rdf.Term, test func(o rdf.Term) bool) string {
	var out []string
	for _, f := range facts {
		if test(f[1]) {
			out = append(out, f[0].String())
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// TestReview19jDateFields: FILTER(YEAR|MONTH|DAY(?d) op n) over odd dates (fieldCompare from the column's runs)
// and their GROUP BY through hopFirst give what builtin's functions give for each stored term.
func TestReview19jDateFields(t *testing.T) {
	_, b, facts := oddDateData(t, 10)
	ds := FromIndex(b.Build())
	ctx := builtin.NewContext(time.Now(), "")
	ops := []string{"<", "<=", "=", "!=", ">", ">="}
	for _, f := range []string{"YEAR", "MONTH", "DAY", "HOURS", "MINUTES"} {
		for _, n := range []int{-44, -1, 0, 1, 2, 12, 28, 29, 30, 31, 999, 1000, 2008, 9999, 10000, 12345} {
			for _, op := range ops {
				for _, flip := range []bool{false, true} {
					cond := fmt.Sprintf("%s(?d) %s %d", f, op, n)
					if flip {
						cond = fmt.Sprintf("%d %s %s(?d)", n, op, f)
					}
					src := `SELECT ?s WHERE { ?s <http://ex.org/d> ?d FILTER(` + cond + `) }`
					want := oracleFilter(facts, func(o rdf.Term) bool {
						v, err := ctx.Call(f, []rdf.Term{o})
						if err != nil {
							return false
						}
						c, err := builtin.Compare(v, builtin.Integer(int64(n)))
						if err != nil {
							return false
						}
						if flip {
							c = -c
						}
						return opTable[opIndex(op)][c+1]
					})
					got, err := runSorted(ds, `SELECT ?s WHERE { ?s <http://ex.org/d> ?d FILTER(`+cond+`) }`, Options{}, false)
					if err != nil {
						t.Fatalf("%s: %v", src, err)
					}
					if got != want {
						t.Errorf("%s\n got %d lines\nwant %d lines", src, strings.Count(got, "\n"), strings.Count(want, "\n"))
					}
				}
			}
		}
	}
}

// oddString is a term of the kinds the string functions meet: strings with astral characters, combining marks,
// non-ASCII letters and none at all, language tags in two cases and with a region, an IRI, a blank node, a number,
// a date and a literal of an unknown datatype (the last five no strings).
func oddString(r *rand.Rand) rdf.Term {
	texts := []string{"", "a", "ab", "abc", "b", "𝄞", "a𝄞b", "e\u0301", "é", "日本語", "日本", "naïve", "http://ex.org/x", "x"}
	s := texts[r.IntN(len(texts))]
	switch r.IntN(10) {
	case 0, 1, 2:
		return rdf.String(s)
	case 3:
		return rdf.LangString(s, []string{"en", "EN", "de", "en-US"}[r.IntN(4)])
	case 4:
		return rdf.IRI("http://ex.org/" + s)
	case 5:
		return rdf.Blank(fmt.Sprint("b", r.IntN(3)))
	case 6:
		return rdf.Literal(fmt.Sprint(r.IntN(30)), rdf.XSDInteger)
	case 7:
		return rdf.Literal(s, "http://ex.org/dt")
	case 8:
		return rdf.Literal("2008-01-0"+fmt.Sprint(1+r.IntN(9)), index.XSDDate)
	}
	return rdf.LangString(s, "en")
}

// stringData is subjects with one to three ex:a and ex:b values each (oddString), and the facts as (s, a, b)
// triples of every pair.
func stringData(t *testing.T, seed uint64, n int) (*Dataset, [][3]rdf.Term, map[string][]rdf.Term) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	b, add := builderAdding(t)
	var pairs [][3]rdf.Term
	as := map[string][]rdf.Term{}
	for i := range n {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		var av, bv []rdf.Term
		for range 1 + r.IntN(3) {
			av = append(av, oddString(r))
		}
		for range r.IntN(3) {
			bv = append(bv, oddString(r))
		}
		for _, x := range av {
			add(s, rdf.IRI("http://ex.org/a"), x)
		}
		for _, x := range bv {
			add(s, rdf.IRI("http://ex.org/b"), x)
		}
		// The store keeps a set: a value written twice is one triple.
		av, bv = uniqTerms(av), uniqTerms(bv)
		as[s.String()] = av
		for _, x := range av {
			for _, y := range bv {
				pairs = append(pairs, [3]rdf.Term{s, x, y})
			}
		}
	}
	return FromIndex(b.Build()), pairs, as
}

func uniqTerms(ts []rdf.Term) []rdf.Term {
	var out []rdf.Term
	for _, x := range ts {
		if !slices.ContainsFunc(out, func(y rdf.Term) bool { return y.Equal(x) }) {
			out = append(out, x)
		}
	}
	return out
}

// TestReview19jStringTests: STRSTARTS, STRENDS and CONTAINS of variables, STR of variables and constants (strTest)
// give what builtin's functions give for each pair of stored terms: language tags that must be compatible, IRIs
// and blank nodes through STR, numbers and unknown datatypes that are errors.
func TestReview19jStringTests(t *testing.T) {
	ds, pairs, _ := stringData(t, 7, 400)
	ctx := builtin.NewContext(time.Now(), "")
	operand := func(form string, v rdf.Term) (rdf.Term, error) {
		if form == "STR" {
			return ctx.Call("STR", []rdf.Term{v})
		}
		return v, nil
	}
	consts := []rdf.Term{rdf.String("a"), rdf.String(""), rdf.String("𝄞"), rdf.LangString("a", "en"),
		rdf.LangString("a", "EN"), rdf.LangString("日本", "de"), rdf.Literal("1", rdf.XSDInteger), rdf.IRI("http://ex.org/a"),
		rdf.String("http://ex.org/")}
	check := func(src string, test func(a, b rdf.Term) bool) {
		t.Helper()
		var out []string
		for _, p := range pairs {
			if test(p[1], p[2]) {
				out = append(out, p[0].String())
			}
		}
		slices.Sort(out)
		want := strings.Join(out, "\n")
		got, err := runSorted(ds, src, Options{}, false)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got != want {
			t.Errorf("%s\n got %d lines\nwant %d lines", src, strings.Count(got, "\n")+1, len(out))
		}
	}
	const where = `SELECT ?s WHERE { ?s <http://ex.org/a> ?a ; <http://ex.org/b> ?b FILTER(`
	for _, fn := range []string{"STRSTARTS", "STRENDS", "CONTAINS"} {
		for _, fa := range []string{"", "STR"} {
			for _, fb := range []string{"", "STR"} {
				for _, neg := range []string{"", "!"} {
					// The negation: an error stays an error (the row is dropped), false becomes true.
					src := where + fmt.Sprintf("%s%s(%s(?a), %s(?b))) }", neg, fn, fa, fb)
					check(src, func(a, b rdf.Term) bool {
						x, err := operand(fa, a)
						if err != nil {
							return false
						}
						y, err := operand(fb, b)
						if err != nil {
							return false
						}
						v, err := ctx.Call(fn, []rdf.Term{x, y})
						return err == nil && (v.Value == "true") == (neg == "")
					})
				}
			}
			for _, k := range consts {
				for _, konstFirst := range []bool{false, true} {
					args := fmt.Sprintf("%s(?a), %s", fa, k.String())
					if konstFirst {
						args = fmt.Sprintf("%s, %s(?a)", k.String(), fa)
					}
					src := where + fn + "(" + args + ")) }"
					check(src, func(a, _ rdf.Term) bool {
						x, err := operand(fa, a)
						if err != nil {
							return false
						}
						xs := []rdf.Term{x, k}
						if konstFirst {
							xs = []rdf.Term{k, x}
						}
						v, err := ctx.Call(fn, xs)
						return err == nil && v.Value == "true"
					})
				}
			}
		}
	}
}

// TestReview19jStrlenAggregates: MIN, MAX, SUM and AVG of STRLEN(?a) per subject (the length from the dictionary
// key) give what the same aggregates of STRLEN(CONCAT(?a)) give (the general path, which counts the characters of
// the term), and MIN and MAX what builtin's STRLEN gives over the stored values (errors skipped).
func TestReview19jStrlenAggregates(t *testing.T) {
	ds, _, as := stringData(t, 11, 400)
	ctx := builtin.NewContext(time.Now(), "")
	const agg = `SELECT ?s (MIN(STRLEN(?a)) AS ?min) (MAX(STRLEN(?a)) AS ?max) (SUM(STRLEN(?a)) AS ?sum) (AVG(STRLEN(?a)) AS ?avg) (COUNT(*) AS ?n) WHERE { ?s <http://ex.org/a> ?a } GROUP BY ?s`
	for _, src := range []string{agg,
		strings.ReplaceAll(agg, `?s <http://ex.org/a> ?a`, `?s <http://ex.org/a> ?a FILTER(isLiteral(?a) && (LANG(?a) != "" || DATATYPE(?a) = <http://www.w3.org/2001/XMLSchema#string>))`),
		strings.ReplaceAll(strings.ReplaceAll(agg, "GROUP BY ?s", ""), "SELECT ?s", "SELECT"),
	} {
		want, err := runSorted(ds, strings.ReplaceAll(src, "STRLEN(?a)", "STRLEN(CONCAT(?a))"), plainOptions(), true)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{}, {Cores: NewCores(2), forkMin: 16, forkChunk: 8,
			forkCosts: func(int, time.Duration, time.Duration) (time.Duration, time.Duration) { return time.Second, 0 }}} {
			got, err := runSorted(ds, src, opt, false)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s\n got %.500s\nwant %.500s", src, got, want)
			}
		}
	}
	// MIN and MAX from builtin's STRLEN of each value.
	got, err := runSorted(ds, `SELECT ?s (MIN(STRLEN(?a)) AS ?min) (MAX(STRLEN(?a)) AS ?max) WHERE { ?s <http://ex.org/a> ?a } GROUP BY ?s`, Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for s, vs := range as {
		lo, hi, any := int64(0), int64(0), false
		for _, v := range vs {
			n, err := ctx.Call("STRLEN", []rdf.Term{v})
			if err != nil {
				continue
			}
			var x int64
			fmt.Sscan(n.Value, &x)
			if !any || x < lo {
				lo = x
			}
			if !any || x > hi {
				hi = x
			}
			any = true
		}
		if !any {
			lines = append(lines, s+"  ")
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", s, builtin.Integer(lo), builtin.Integer(hi)))
	}
	slices.Sort(lines)
	if want := strings.Join(lines, "\n"); got != want {
		t.Errorf("MIN/MAX of STRLEN\n got %.800s\nwant %.800s", got, want)
	}
}

// TestReview19jChainSetBounded: a chain's set whose one subject has many rows of both star predicates makes a
// pair per combination (2 000 × 2 000 here, 4 M pairs for 2 000 distinct ones) before it makes them unique: the
// pairs must be charged as they grow, so the set gives up at its share of the query's budget (and the EXISTS is
// answered otherwise, exactly) rather than holding 32 MB past a 16 MB budget.
func TestReview19jChainSetBounded(t *testing.T) {
	b, add := builderAdding(t)
	const n = 2000
	for i := range n {
		add(ex("s", 0), ex("a", 0), ex("x", i))
		add(ex("s", 0), ex("b", 0), ex("m", i))
		add(ex("m", i), ex("c", 0), ex("y", i%2))
	}
	for i := range 300 {
		add(ex("o", i), ex("k", 0), ex("x", i*9))
		add(ex("o", i), ex("l", 0), ex("y", i%3))
	}
	ds := FromIndex(b.Build())
	const src = `PREFIX ex: <http://ex.org/> SELECT ?o WHERE { ?o ex:k0 ?x ; ex:l0 ?y FILTER EXISTS { ?s ex:a0 ?x . ?s ex:b0 ?m . ?m ex:c0 ?y } }`
	want, err := runSorted(ds, src, plainOptions(), true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(want, "\n")+1 != 149 {
		t.Fatalf("want %d solutions: the data does not test it", strings.Count(want, "\n")+1)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, e, err := runSortedEval(ds, src, Options{semiJoin: 1, MaxMemory: 16 << 20}, false)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got %d solutions, want %d", strings.Count(got, "\n")+1, strings.Count(want, "\n")+1)
	}
	if e.chainSets == 0 {
		t.Errorf("no chain set was tried: the test does not test it")
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 12<<20 {
		t.Errorf("the query allocated %d MB under a budget of 16 MB (the set's share 2 MB)", d>>20)
	}
}

// TestReview19jDateCast: FILTER(xsd:date(?d) op constant date) over odd dates and dateTimes (castDay reads the day
// from the column's runs) gives what builtin's cast and comparison give for each stored term.
func TestReview19jDateCast(t *testing.T) {
	r, b, facts := oddDateData(t, 11)
	// Each subject has a date of the list below to compare with as a variable, as written or with a timezone.
	keys := []string{"2008-06-15", "2009-01-01", "0999-03-01", "10000-01-01", "-0044-03-15", "2000-02-29", "2025-01-01"}
	ps := map[string]rdf.Term{}
	for _, f := range facts {
		p := rdf.Literal(keys[r.IntN(len(keys))]+[]string{"", "Z", "-05:00"}[r.IntN(3)], index.XSDDate)
		if err := b.Add(rdf.Triple(f[0], rdf.IRI("http://ex.org/p"), p)); err != nil {
			t.Fatal(err)
		}
		ps[f[0].String()] = p
	}
	ds := FromIndex(b.Build())
	ops := []string{"<", "<=", "=", "!=", ">", ">="}
	for _, op := range ops {
		src := `SELECT ?s WHERE { ?s <http://ex.org/d> ?d ; <http://ex.org/p> ?p FILTER(<` + index.XSDDate + `>(?d) ` + op + ` ?p) }`
		var out []string
		for _, f := range facts {
			v, err := builtin.Cast(index.XSDDate, f[1])
			if err != nil {
				continue
			}
			if c, err := builtin.Compare(v, ps[f[0].String()]); err == nil && opTable[opIndex(op)][c+1] {
				out = append(out, f[0].String())
			}
		}
		slices.Sort(out)
		got, err := runSorted(ds, src, Options{}, false)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if want := strings.Join(out, "\n"); got != want {
			t.Errorf("%s\n got %d lines\nwant %d lines", src, strings.Count(got, "\n"), strings.Count(want, "\n"))
		}
	}
	for _, k := range keys {
		konst := rdf.Literal(k, index.XSDDate)
		for _, op := range ops {
			for _, flip := range []bool{false, true} {
				cond := fmt.Sprintf(`<%s>(?d) %s %s`, index.XSDDate, op, konst)
				if flip {
					cond = fmt.Sprintf(`%s %s <%s>(?d)`, konst, op, index.XSDDate)
				}
				src := `SELECT ?s WHERE { ?s <http://ex.org/d> ?d FILTER(` + cond + `) }`
				want := oracleFilter(facts, func(o rdf.Term) bool {
					v, err := builtin.Cast(index.XSDDate, o)
					if err != nil {
						return false
					}
					c, err := builtin.Compare(v, konst)
					if err != nil {
						return false
					}
					if flip {
						c = -c
					}
					return opTable[opIndex(op)][c+1]
				})
				got, err := runSorted(ds, src, Options{}, false)
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				if got != want {
					t.Errorf("%s\n got %d lines\nwant %d lines", src, strings.Count(got, "\n"), strings.Count(want, "\n"))
				}
			}
		}
	}
}
