package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// dateTerm returns a random date or dateTime of a few days, with and without timezones (so values of the two
// classes fall within 14 hours of each other), fractions, an invalid form now and then, or another kind of term.
func dateTerm(r *rand.Rand) rdf.Term {
	xsd := rdf.XSDNS
	day := fmt.Sprintf("%d-%02d-%02d", 2007+r.IntN(3), 1+r.IntN(3), 1+r.IntN(31)) // 31 February is invalid
	tz := []string{"", "", "Z", "+02:00", "-09:30", "+14:00"}[r.IntN(6)]
	switch r.IntN(12) {
	case 0:
		return rdf.Literal(day+tz, xsd+"date") // inline without a timezone
	case 1:
		return rdf.Literal(fmt.Sprint(r.IntN(100)), rdf.XSDInteger)
	case 2:
		return rdf.String(day)
	}
	tm := fmt.Sprintf("%02d:%02d:%02d", r.IntN(24), r.IntN(60), r.IntN(60))
	if r.IntN(5) == 0 {
		tm += fmt.Sprintf(".%d", r.IntN(100))
	}
	return rdf.Literal(day+"T"+tm+tz, xsd+"dateTime")
}

// dateTerm24 is dateTerm, or (one time in eight) a dateTime written at 24:00:00, which is the next day's midnight.
func dateTerm24(r *rand.Rand) rdf.Term {
	if r.IntN(8) == 0 {
		day := fmt.Sprintf("%d-%02d-%02d", 2007+r.IntN(3), 1+r.IntN(3), 1+r.IntN(31))
		return rdf.Literal(day+"T24:00:00"+[]string{"", "Z"}[r.IntN(2)], rdf.XSDNS+"dateTime")
	}
	return dateTerm(r)
}

// dateData builds subjects with a date on v0 and another on v1, and returns the dataset with the triples.
func dateData(t *testing.T, r *rand.Rand, n int) (*Dataset, [][3]rdf.Term) {
	return dateDataOf(t, r, n, dateTerm)
}

// dateDataOf is dateData with the values term makes.
func dateDataOf(t *testing.T, r *rand.Rand, n int, term func(*rand.Rand) rdf.Term) (*Dataset, [][3]rdf.Term) {
	t.Helper()
	b, add := builderAdding(t)
	var triples [][3]rdf.Term
	for i := range n {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		for _, p := range []string{"v0", "v1"} {
			tr := [3]rdf.Term{s, rdf.IRI("http://ex.org/" + p), term(r)}
			add(tr[0], tr[1], tr[2])
			triples = append(triples, tr)
		}
	}
	d := b.Build()
	if len(d.Dict.DateBlocks()) < 3 {
		t.Fatalf("blocks %v: the data should fill the classes", d.Dict.DateBlocks())
	}
	return FromIndex(d), triples
}

// refTest is a comparison by the builtin functions on terms, as the SPARQL operators define it.
func refTest(op string, a, b rdf.Term) bool {
	if op == "=" || op == "!=" {
		eq, err := builtin.Equal(a, b)
		return err == nil && eq == (op == "=")
	}
	c, err := builtin.Compare(a, b)
	if err != nil {
		return false
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// TestDateComparisonsMatchReference: comparisons of dates and dateTimes with constants, answered from the ids'
// value order (dateCompare, valueRanges over the date blocks, the planner's rangeShare), give exactly the solutions
// the builtin comparison of the terms gives, for constants of each class, every operator and both operand orders,
// on the first pattern and on a later one; and the first pattern reads fewer rows than all.
func TestDateComparisonsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	ds, triples := dateData(t, r, 1500)
	xsd := rdf.XSDNS
	consts := []rdf.Term{
		rdf.Literal("2008-02-10T12:00:00", xsd+"dateTime"), rdf.Literal("2008-02-10T12:00:00Z", xsd+"dateTime"),
		rdf.Literal("2008-02-10T23:30:00-05:00", xsd+"dateTime"), rdf.Literal("2008-01-01T00:00:00Z", xsd+"dateTime"),
		rdf.Literal("2009-01-01T00:00:00", xsd+"dateTime"), rdf.Literal("2008-02-10", xsd+"date"),
		rdf.Literal("2008-02-10Z", xsd+"date"), rdf.Literal("2008-02-10T12:00:00.5Z", xsd+"dateTime"),
	}
	// A constant equal to a value of the data, so "=" and the ends of ranges meet real ties.
	for _, tr := range triples {
		if tr[2].Datatype == xsd+"dateTime" {
			consts = append(consts, tr[2])
			break
		}
	}
	ops := []string{"<", "<=", ">", ">=", "=", "!="}
	for _, c := range consts {
		for _, op := range ops {
			for _, flip := range []bool{false, true} {
				f := "?v " + op + " " + c.String()
				if flip {
					f = c.String() + " " + op + " ?v"
				}
				src := `SELECT ?s ?v { ?s <http://ex.org/v0> ?v FILTER(` + f + `) }`
				var want []string
				for _, tr := range triples {
					if tr[1].Value != "http://ex.org/v0" {
						continue
					}
					pass := refTest(op, tr[2], c)
					if flip {
						pass = refTest(op, c, tr[2])
					}
					if pass {
						want = append(want, tr[0].String()+" "+tr[2].String())
					}
				}
				got, steps := runQuery(t, ds, src)
				if strings.Join(got, "\n") != strings.Join(sorted(want), "\n") {
					t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
				}
				if op != "!=" && op != "=" && steps >= int64(len(triples)/2) {
					t.Errorf("%s: read %d rows, as many as the whole range", src, steps)
				}
			}
		}
	}
	// IN of constants of every class, repeated and in pairs: where "=" holds with any of them (valueRanges reads the
	// union of the intervals), against refTest's "=".
	for i := range consts {
		list := []rdf.Term{consts[i], consts[(i+3)%len(consts)], consts[i]}
		var items []string
		for _, c := range list {
			items = append(items, c.String())
		}
		src := `SELECT ?s ?v { ?s <http://ex.org/v0> ?v FILTER(?v IN (` + strings.Join(items, ", ") + `)) }`
		var want []string
		for _, tr := range triples {
			if tr[1].Value == "http://ex.org/v0" && slices.ContainsFunc(list, func(c rdf.Term) bool { return refTest("=", tr[2], c) }) {
				want = append(want, tr[0].String()+" "+tr[2].String())
			}
		}
		if got, _ := runQuery(t, ds, src); strings.Join(got, "\n") != strings.Join(sorted(want), "\n") {
			t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
	}
	// Two patterns, each with a range: whichever starts, the other's comparison runs per solution.
	for i := 0; i+1 < len(consts); i++ {
		a, b := consts[i], consts[i+1]
		src := `SELECT ?s ?v ?w { ?s <http://ex.org/v0> ?v ; <http://ex.org/v1> ?w FILTER(?v >= ` + a.String() +
			` && ?w < ` + b.String() + `) }`
		values := map[string][2]rdf.Term{}
		for _, tr := range triples {
			v := values[tr[0].Value]
			v[map[string]int{"http://ex.org/v0": 0, "http://ex.org/v1": 1}[tr[1].Value]] = tr[2]
			values[tr[0].Value] = v
		}
		var want []string
		for s, v := range values {
			if refTest(">=", v[0], a) && refTest("<", v[1], b) {
				want = append(want, "<"+s+"> "+v[0].String()+" "+v[1].String())
			}
		}
		got, _ := runQuery(t, ds, src)
		if strings.Join(got, "\n") != strings.Join(sorted(want), "\n") {
			t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
	}
}

// TestPlanStartsFromTheNarrowRange: of two patterns with a FILTER range on each object, the join starts from the
// one whose range (read from the ids' value order, rangeShare) holds fewer triples, whichever is written first.
func TestPlanStartsFromTheNarrowRange(t *testing.T) {
	ds, _ := dateData(t, rand.New(rand.NewPCG(23, 24)), 1500)
	for _, src := range []string{
		`SELECT * { ?s <http://ex.org/v0> ?v ; <http://ex.org/v1> ?w FILTER(?v >= "2007-02-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> && ?w < "2007-01-02T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>) }`,
		`SELECT * { ?s <http://ex.org/v1> ?w ; <http://ex.org/v0> ?v FILTER(?w >= "2007-02-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> && ?v < "2007-01-02T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>) }`,
	} {
		got, steps := runQuery(t, ds, src)
		if steps > 400 { // the narrow range, with the strings and invalid forms it keeps, is about 180 rows; the other 1 000
			t.Errorf("%s: read %d rows for %d solutions: the join did not start from the narrow range", src, steps, len(got))
		}
	}
}

// TestDateFieldsAndMinMaxMatchReference: GROUP BY YEAR … MINUTES of dates and dateTimes (read from the dictionary's
// column, dateFieldID), and MIN and MAX within a date block (compared by id, minMaxByID) give what the builtin
// functions and OrderCompare give on the terms.
func TestDateFieldsAndMinMaxMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	ds, triples := dateData(t, r, 1500)
	fn := builtin.NewContext(time.Now(), "")
	for _, field := range []string{"YEAR", "MONTH", "DAY", "HOURS", "MINUTES"} {
		src := `SELECT ?k (COUNT(*) AS ?n) (MIN(?v) AS ?min) (MAX(?v) AS ?max) (SAMPLE(` + field + `(?v)) AS ?again) {
			?s <http://ex.org/v0> ?v } GROUP BY (` + field + `(?v) AS ?k)`
		type group struct {
			n    int
			vals []rdf.Term
		}
		groups := map[string]*group{}
		for _, tr := range triples {
			if tr[1].Value != "http://ex.org/v0" {
				continue
			}
			k, err := fn.Call(field, []rdf.Term{tr[2]})
			key := k.String()
			if err != nil {
				key = "-"
			}
			g := groups[key]
			if g == nil {
				g = &group{}
				groups[key] = g
			}
			g.n++
			g.vals = append(g.vals, tr[2])
		}
		// MIN and MAX by OrderCompare, taken in two orders: values of two classes within 14 hours of each other are
		// ordered by their lexical forms, which need not agree with their values, so a group whose answer depends
		// on the order is left out of the comparison (it is no test of the ids).
		best := func(vals []rdf.Term, sign int) rdf.Term {
			b := vals[0]
			for _, v := range vals[1:] {
				if builtin.OrderCompare(v, b)*sign < 0 {
					b = v
				}
			}
			return b
		}
		want := map[string]string{}
		for key, g := range groups {
			rev := slices.Clone(g.vals)
			slices.Reverse(rev)
			mn, mx := best(g.vals, 1), best(g.vals, -1)
			if !mn.Equal(best(rev, 1)) || !mx.Equal(best(rev, -1)) {
				continue
			}
			want[key] = fmt.Sprintf("%s %s %s %s", key, builtin.Integer(int64(g.n)), mn, mx)
		}
		if len(want) < 3 {
			t.Fatalf("%s: only %d groups checked", field, len(want))
		}
		got, _ := runQuery(t, ds, src)
		if len(got) != len(groups) {
			t.Fatalf("%s: %d groups, reference %d", field, len(got), len(groups))
		}
		for _, row := range got {
			parts := strings.Fields(row) // ?k ?n ?min ?max ?again
			if len(parts) != 5 || parts[4] != parts[0] {
				t.Fatalf("%s: row %q: SAMPLE(%s(?v)) is not the group's key", field, row, field)
			}
			if w, ok := want[parts[0]]; ok && w != strings.Join(parts[:4], " ") {
				t.Fatalf("%s: got %q, reference %q", field, row, w)
			}
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// runQuery evaluates src and returns its solutions, each as its terms, sorted, with the rows the evaluator read.
func runQuery(t *testing.T, ds *Dataset, src string) ([]string, int64) {
	t.Helper()
	out, steps := runTop(t, ds, src, false)
	slices.Sort(out)
	return out, steps
}

// TestOrderByDatesMatchesReference: ORDER BY a variable holding dateTimes (compared by id within a block,
// sortItems.compareKey), ascending and descending, whole and under LIMIT/OFFSET, gives the order a stable sort by
// OrderCompare gives, with ties broken by the next key; the values mix both timezone classes (years apart, so
// OrderCompare is a total order on them), repeated values, and numbers and strings whose keys are made when met;
// numbers alone, held in their ids, compared by value.
func TestOrderByDatesMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	xsd := rdf.XSDNS
	b, add := builderAdding(t)
	type pair struct{ s, v rdf.Term }
	pairs := map[string][]pair{} // v: dateTimes only; w: with numbers and strings
	for i := range 2400 {
		pred := []string{"v", "w"}[i%2]
		var v rdf.Term
		switch k := r.IntN(10); {
		case k == 0 && pred == "w":
			v = rdf.Literal(fmt.Sprint(r.IntN(50)), rdf.XSDInteger)
		case k == 1 && pred == "w":
			v = rdf.String(fmt.Sprint(r.IntN(50)))
		case k == 2 && pred == "w": // held in the id, 30 and 31 February included (no dates: ordered as written)
			v = rdf.Literal(fmt.Sprintf("2008-%02d-%02d", 1+r.IntN(3), 1+r.IntN(31)), xsd+"date")
		case k < 6:
			v = rdf.Literal(fmt.Sprintf("2007-%02d-%02dT%02d:00:00", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24)), xsd+"dateTime")
		default:
			v = rdf.Literal(fmt.Sprintf("2009-%02d-%02dT%02d:00:00%s", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24),
				[]string{"Z", "+01:00", "-05:00"}[r.IntN(3)]), xsd+"dateTime")
		}
		p := pair{rdf.IRI(fmt.Sprintf("http://ex.org/s%04d", i)), v}
		add(p.s, rdf.IRI("http://ex.org/"+pred), p.v)
		pairs[pred] = append(pairs[pred], p)
	}
	for i := range 400 { // xsd:dates alone, all held in their ids
		p := pair{rdf.IRI(fmt.Sprintf("http://ex.org/d%04d", i)),
			rdf.Literal(fmt.Sprintf("%d-%02d-%02d", 2000+r.IntN(3), 1+r.IntN(3), 1+r.IntN(31)), xsd+"date")}
		add(p.s, rdf.IRI("http://ex.org/u"), p.v)
		pairs["u"] = append(pairs["u"], p)
	}
	for i := range 400 { // numbers held in their ids (compared by value, sortItems.compareKey), equal values in
		// several forms (2, 2.0, 2.00) among them, and a few in the dictionary
		v := r.IntN(41) - 20
		var n rdf.Term
		switch k := r.IntN(8); {
		case k == 0:
			n = rdf.Literal(fmt.Sprintf("0%d", v+20), rdf.XSDInteger)
		case k < 4:
			n = rdf.Literal(fmt.Sprint(v), rdf.XSDInteger)
		default:
			scale := r.IntN(4)
			n = rdf.Literal(fmt.Sprintf("%.*f", scale, float64(v)/float64(1+r.IntN(4))), rdf.XSDDecimal)
		}
		p := pair{rdf.IRI(fmt.Sprintf("http://ex.org/n%04d", i)), n}
		add(p.s, rdf.IRI("http://ex.org/n"), p.v)
		pairs["n"] = append(pairs["n"], p)
	}
	ds := FromIndex(b.Build())
	for _, c := range []struct {
		pred string
		desc bool
	}{{"v", false}, {"v", true}, {"w", false}, {"w", true}, {"u", false}, {"u", true}, {"n", false}, {"n", true}} {
		desc := c.desc
		ref := slices.Clone(pairs[c.pred])
		slices.SortStableFunc(ref, func(a, c pair) int {
			x := builtin.OrderCompare(a.v, c.v)
			if desc {
				x = -x
			}
			if x != 0 {
				return x
			}
			return builtin.OrderCompare(a.s, c.s)
		})
		var want []string
		for _, p := range ref {
			want = append(want, p.s.String()+" "+p.v.String())
		}
		order := "?v"
		if desc {
			order = "DESC(?v)"
		}
		for _, slice := range [][2]int{{0, 0}, {50, 0}, {20, 300}, {1, 399}, {30, 390}} {
			src := `SELECT ?s ?v { ?s <http://ex.org/` + c.pred + `> ?v } ORDER BY ` + order + ` ?s`
			lo, hi := 0, len(want)
			if slice[0] > 0 {
				src += fmt.Sprintf(" LIMIT %d OFFSET %d", slice[0], slice[1])
				lo, hi = slice[1], min(slice[1]+slice[0], len(want))
			}
			got := runOrdered(t, ds, src)
			if strings.Join(got, "\n") != strings.Join(want[lo:hi], "\n") {
				t.Fatalf("%s: the order differs from OrderCompare's", src)
			}
		}
	}
}

// runOrdered evaluates src and returns its solutions in their order, each as its terms.
func runOrdered(t *testing.T, ds *Dataset, src string) []string {
	t.Helper()
	return runOrderedWith(t, ds, src, Options{})
}

// runOrderedWith is runOrdered under opt (a row or memory budget).
func runOrderedWith(t *testing.T, ds *Dataset, src string, opt Options) []string {
	t.Helper()
	q := mustParse(t, src)
	res, err := Run(context.Background(), ds, q, opt)
	if err != nil {
		t.Fatalf("%s (%d rows): %v", src, opt.MaxRows, err)
	}
	var out []string
	for _, row := range res.Rows {
		out = append(out, row[0].String()+" "+row[1].String())
	}
	return out
}

// TestDateVariablesMatchReference: two variables compared with each other by their ids (dateCompareVars) give
// what the builtin comparison of the terms gives, for every operator, on data whose blocks hold each value once
// and on data that writes some instants two ways (the same instant in two timezones, which only the terms show
// to be equal).
func TestDateVariablesMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	xsd := rdf.XSDNS
	canonical := func() rdf.Term {
		return rdf.Literal(fmt.Sprintf("2008-%02d-%02dT%02d:%02d:00%s", 1+r.IntN(2), 1+r.IntN(28), r.IntN(24), r.IntN(60),
			[]string{"", "Z"}[r.IntN(2)]), xsd+"dateTime")
	}
	for _, twoWays := range []bool{false, true} {
		b, add := builderAdding(t)
		type row struct{ s, v, w rdf.Term }
		var rows []row
		for i := range 1500 {
			x := row{rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), canonical(), canonical()}
			if i%7 == 0 {
				x.w = x.v // the same term on both
			}
			if twoWays && i%5 == 0 {
				h := 1 + r.IntN(20)
				x.v = rdf.Literal(fmt.Sprintf("2008-01-15T%02d:30:00Z", h), xsd+"dateTime")
				x.w = rdf.Literal(fmt.Sprintf("2008-01-15T%02d:30:00+01:00", h+1), xsd+"dateTime")
			}
			for _, tr := range [][3]rdf.Term{{x.s, rdf.IRI("http://ex.org/v0"), x.v}, {x.s, rdf.IRI("http://ex.org/v1"), x.w}} {
				add(tr[0], tr[1], tr[2])
			}
			rows = append(rows, x)
		}
		d := b.Build()
		distinct := true
		for _, bl := range d.Dict.DateBlocks() {
			distinct = distinct && bl.Distinct
		}
		if distinct == twoWays {
			t.Fatalf("blocks %v, with instants written two ways: %v", d.Dict.DateBlocks(), twoWays)
		}
		ds := FromIndex(d)
		for _, op := range []string{"<", "<=", ">", ">=", "=", "!="} {
			src := `SELECT ?s ?v ?w { ?s <http://ex.org/v0> ?v ; <http://ex.org/v1> ?w FILTER(?v ` + op + ` ?w) }`
			var want []string
			for _, x := range rows {
				if refTest(op, x.v, x.w) {
					want = append(want, x.s.String()+" "+x.v.String()+" "+x.w.String())
				}
			}
			got, _ := runQuery(t, ds, src)
			if strings.Join(got, "\n") != strings.Join(sorted(want), "\n") {
				t.Fatalf("two ways %v, %s: %d solutions, reference %d", twoWays, src, len(got), len(want))
			}
		}
	}
}

// TestFieldComparisonsMatchReference: YEAR … MINUTES of dates and dateTimes compared with integer constants
// (fieldCompare, either operand order, every operator) and bound by BIND then filtered (the Extend's column read)
// give the subjects the builtin functions on the terms give; constants that are no integer held in an id (a
// decimal, a double, a string) take the general path and are checked too.
func TestFieldComparisonsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	ds, triples := dateData(t, r, 1200)
	fn := builtin.NewContext(time.Now(), "")
	consts := []rdf.Term{
		rdf.Literal("2008", rdf.XSDInteger), rdf.Literal("2", rdf.XSDInteger), rdf.Literal("12", rdf.XSDInteger),
		rdf.Literal("30", rdf.XSDInteger), rdf.Literal("-1", rdf.XSDInteger), rdf.Literal("2008.0", rdf.XSDNS+"decimal"),
		rdf.Literal("2.5e0", rdf.XSDNS+"double"), rdf.String("2008"),
	}
	checked := 0
	for _, field := range []string{"YEAR", "MONTH", "DAY", "HOURS", "MINUTES"} {
		for _, k := range consts {
			for _, op := range []string{"=", "!=", "<", "<=", ">", ">="} {
				var want []string
				for _, tr := range triples {
					if tr[1].Value != "http://ex.org/v0" {
						continue
					}
					f, err := fn.Call(field, []rdf.Term{tr[2]})
					if err == nil && refTest(op, f, k) {
						want = append(want, tr[0].String())
					}
				}
				slices.Sort(want)
				for _, src := range []string{
					`SELECT ?s { ?s <http://ex.org/v0> ?v FILTER(` + field + `(?v) ` + op + ` ` + k.String() + `) }`,
					`SELECT ?s { ?s <http://ex.org/v0> ?v BIND(` + field + `(?v) AS ?f) FILTER(?f ` + op + ` ` + k.String() + `) }`,
				} {
					got, _ := runQuery(t, ds, src)
					if !slices.Equal(got, want) {
						t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
					}
				}
				// The constant first: the operator's answer with its operands swapped.
				flip := map[string]string{"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
				src := `SELECT ?s { ?s <http://ex.org/v0> ?v FILTER(` + k.String() + ` ` + flip + ` ` + field + `(?v)) }`
				if got, _ := runQuery(t, ds, src); !slices.Equal(got, want) {
					t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
				}
				if len(want) > 0 {
					checked++
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d comparisons had solutions", checked)
	}
}

// windowTerm is a date or dateTime over three years, at any hour, in timezones up to the largest offsets the
// reading accepts (so that a wall clock and its instant fall in different days, months or years), or a date
// held in its id (31 February among them), a number or a string.
func windowTerm(r *rand.Rand) rdf.Term {
	xsd := rdf.XSDNS
	day := fmt.Sprintf("%d-%02d-%02d", 2007+r.IntN(3), 1+r.IntN(12), 1+r.IntN(31))
	tz := []string{"", "", "Z", "+14:00", "-14:00", "+14:59", "-14:59", "+05:30", "-09:30"}[r.IntN(9)]
	switch r.IntN(10) {
	case 0:
		return rdf.Literal(day, xsd+"date") // inline
	case 1:
		return rdf.Literal(day+tz, xsd+"date")
	case 2:
		return rdf.Literal(fmt.Sprint(2000+r.IntN(20)), rdf.XSDInteger)
	case 3:
		return rdf.String(day)
	}
	h := []int{0, 1, 12, 22, 23}[r.IntN(5)]
	return rdf.Literal(fmt.Sprintf("%sT%02d:%02d:%02d%s", day, h, r.IntN(60), r.IntN(60), tz), xsd+"dateTime")
}

// TestFieldWindowsMatchReference: conjunctions of YEAR … MINUTES compared with integers narrow the pattern's rows
// to a window of each value block (fieldWindowOf, windowRows) and must give the subjects the builtin functions
// give on every term; "=" with a date or dateTime narrows to the rows between ">=" and "<=" (equalHalves). Both
// must read fewer rows than the whole predicate when the window is narrow.
func TestFieldWindowsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	b, add := builderAdding(t)
	var triples [][3]rdf.Term
	for i := range 3000 {
		tr := [3]rdf.Term{rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), rdf.IRI("http://ex.org/v0"), windowTerm(r)}
		add(tr[0], tr[1], tr[2])
		triples = append(triples, tr)
	}
	// Readings at the ends of the windows checked below, in the timezones furthest from their instants.
	for i, v := range []string{"2008-06-15T12:29:59.5", "2008-06-15T12:29:59.5+14:59", "2008-06-15T12:29:59.5-14:59",
		"2008-02-29T23:59:59Z", "2007-12-31T23:59:30-14:00", "2009-01-01T00:00:00+14:59", "2008-03-31T23:59:59-14:59",
		"2008-03-01T00:00:00+14:59", "2009-01-02T23:59:00-14:00"} {
		tr := [3]rdf.Term{rdf.IRI(fmt.Sprintf("http://ex.org/e%d", i)), rdf.IRI("http://ex.org/v0"), rdf.Literal(v, rdf.XSDNS+"dateTime")}
		add(tr[0], tr[1], tr[2])
		triples = append(triples, tr)
	}
	ds := FromIndex(b.Build())
	fn := builtin.NewContext(time.Now(), "")
	type conj struct {
		field, op string
		k         int
	}
	pass := func(v rdf.Term, cs []conj) bool {
		for _, c := range cs {
			f, err := fn.Call(c.field, []rdf.Term{v})
			if err != nil || !refTest(c.op, f, rdf.Literal(fmt.Sprint(c.k), rdf.XSDInteger)) {
				return false
			}
		}
		return true
	}
	check := func(cs []conj, narrow bool) {
		t.Helper()
		var parts []string
		for i, c := range cs {
			if i%2 == 0 {
				parts = append(parts, fmt.Sprintf("%s(?v) %s %d", c.field, c.op, c.k))
			} else { // the constant first
				parts = append(parts, fmt.Sprintf("%d %s %s(?v)", c.k, flippedOp[c.op], c.field))
			}
		}
		src := `SELECT ?s { ?s <http://ex.org/v0> ?v FILTER(` + strings.Join(parts, " && ") + `) }`
		var want []string
		for _, tr := range triples {
			if pass(tr[2], cs) {
				want = append(want, tr[0].String())
			}
		}
		got, steps := runQuery(t, ds, src)
		if !slices.Equal(got, sorted(want)) {
			t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
		if narrow && steps > int64(len(triples)/2) { // a year is a third of the dates; strings stay
			t.Errorf("%s: read %d of %d rows", src, steps, len(triples))
		}
	}
	// The edges: a year, a month, a day, an hour, a minute, and days past a month's end.
	check([]conj{{"YEAR", "=", 2008}}, true)
	check([]conj{{"YEAR", "=", 2008}, {"MONTH", "=", 3}}, true)
	check([]conj{{"YEAR", "=", 2009}, {"MONTH", "=", 1}, {"DAY", "<=", 2}}, true)
	check([]conj{{"YEAR", "=", 2007}, {"MONTH", "=", 12}, {"DAY", "=", 31}, {"HOURS", ">=", 22}}, true)
	check([]conj{{"YEAR", "=", 2008}, {"MONTH", "=", 2}, {"DAY", ">=", 29}}, true)
	check([]conj{{"YEAR", "=", 2008}, {"MONTH", "=", 2}, {"DAY", ">", 29}}, true)
	check([]conj{{"YEAR", "=", 2007}, {"MONTH", "=", 2}, {"DAY", ">=", 29}}, true)
	check([]conj{{"YEAR", "<", 2008}}, false)
	check([]conj{{"YEAR", ">=", 2009}, {"HOURS", "<", 1}}, true)
	check([]conj{{"YEAR", "=", 2008}, {"MONTH", "=", 6}, {"DAY", "=", 15}, {"HOURS", "=", 12}, {"MINUTES", "<", 30}}, true)
	check([]conj{{"YEAR", "=", 2008}, {"HOURS", "=", 25}}, true)
	check([]conj{{"YEAR", "=", 2008}, {"YEAR", "=", 2009}}, true)
	check([]conj{{"MONTH", "=", 3}}, false) // no year: no window, every row read
	fields := []string{"YEAR", "MONTH", "DAY", "HOURS", "MINUTES"}
	for range 150 {
		var cs []conj
		for range 1 + r.IntN(4) {
			f := r.IntN(5)
			k := []int{2008 + r.IntN(3) - 1, 1 + r.IntN(12), 1 + r.IntN(31), r.IntN(24), r.IntN(60)}[f]
			cs = append(cs, conj{fields[f], []string{"=", "<", "<=", ">", ">="}[r.IntN(5)], k})
		}
		check(cs, false)
	}
	// Equality with a date or dateTime: the instant in another timezone, a value of the data, one it lacks.
	xsd := rdf.XSDNS
	var consts []rdf.Term
	for _, tr := range triples {
		if tr[2].Datatype == xsd+"dateTime" && len(consts) < 6 {
			consts = append(consts, tr[2])
		}
	}
	for _, tr := range triples {
		if strings.HasSuffix(tr[2].Value, "Z") && tr[2].Datatype == xsd+"dateTime" {
			// The same instant written two hours east.
			v, _ := time.Parse(time.RFC3339, tr[2].Value)
			consts = append(consts, rdf.Literal(v.In(time.FixedZone("", 7200)).Format("2006-01-02T15:04:05-07:00"), xsd+"dateTime"))
			break
		}
	}
	consts = append(consts, rdf.Literal("2008-05-05T10:00:00+02:00", xsd+"dateTime"), rdf.Literal("2008-05-05", xsd+"date"),
		rdf.Literal("2008-05-05Z", xsd+"date"), rdf.Literal("2008", rdf.XSDInteger))
	for _, k := range consts {
		src := `SELECT ?s { ?s <http://ex.org/v0> ?v FILTER(?v = ` + k.String() + `) }`
		var want []string
		for _, tr := range triples {
			if refTest("=", tr[2], k) {
				want = append(want, tr[0].String())
			}
		}
		got, steps := runQuery(t, ds, src)
		if !slices.Equal(got, sorted(want)) {
			t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
		if steps > int64(len(triples)/3) {
			t.Errorf("%s: read %d of %d rows", src, steps, len(triples))
		}
	}
}

// TestBindFilterSubstitutionMatchesReference: a FILTER over a BIND of a cheap expression is also tested below the
// BIND with the expression in place of the variable (belowBinds, substExpr), where it narrows the pattern's rows;
// the answers must be those of the SPARQL definition, worked out here on the terms, also where the BIND's
// expression has an error (a number, a string: its variable is unbound) and the FILTER reads that (BOUND,
// COALESCE, ||), and when a solution coming in binds the variable already (VALUES).
func TestBindFilterSubstitutionMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	b, add := builderAdding(t)
	type sv struct{ s, v rdf.Term }
	var data []sv
	for i := range 2000 {
		x := sv{rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), windowTerm(r)}
		add(x.s, rdf.IRI("http://ex.org/v0"), x.v)
		data = append(data, x)
	}
	ds := FromIndex(b.Build())
	fn := builtin.NewContext(time.Now(), "")
	year := func(v rdf.Term) (int, bool) {
		f, err := fn.Call("YEAR", []rdf.Term{v})
		if err != nil {
			return 0, false
		}
		var y int
		fmt.Sscan(f.Value, &y)
		return y, true
	}
	for _, c := range []struct {
		filter string
		keep   func(y int, bound bool) bool
		narrow bool
	}{
		{"?y < 2008", func(y int, ok bool) bool { return ok && y < 2008 }, false},
		{"?y = 2008", func(y int, ok bool) bool { return ok && y == 2008 }, true},
		{"2009 <= ?y && ?z = ?v", func(y int, ok bool) bool { return ok && y >= 2009 }, true},
		{"!BOUND(?y)", func(y int, ok bool) bool { return !ok }, false},
		{"COALESCE(?y, 1) = 1", func(y int, ok bool) bool { return !ok }, false},
		{"?y = 2008 || true", func(y int, ok bool) bool { return true }, false},
		{"?y IN (2007, 2009)", func(y int, ok bool) bool { return ok && (y == 2007 || y == 2009) }, false},
	} {
		src := `SELECT ?s ?y { ?s <http://ex.org/v0> ?v BIND(YEAR(?v) AS ?y) BIND(?v AS ?z) FILTER(` + c.filter + `) }`
		var want []string
		for _, x := range data {
			y, ok := year(x.v)
			if c.keep(y, ok) {
				ys := "-"
				if ok {
					ys = rdf.Literal(fmt.Sprint(y), rdf.XSDInteger).String()
				}
				want = append(want, x.s.String()+" "+ys)
			}
		}
		got, steps := runQuery(t, ds, src)
		if !slices.Equal(got, sorted(want)) {
			t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
		if c.narrow && steps > int64(len(data)/2) {
			t.Errorf("%s: read %d of %d rows", src, steps, len(data))
		}
	}
	// ?y bound before the BIND is seen (the engine passes VALUES' solutions in): the answers must not depend on
	// whether the conjunct was copied below.
	src := `SELECT ?s ?y { VALUES ?y { 2008 } { ?s <http://ex.org/v0> ?v BIND(YEAR(?v) AS ?y) FILTER(?y = 2008) } }`
	var want []string
	for _, x := range data {
		if y, ok := year(x.v); ok && y == 2008 {
			want = append(want, x.s.String()+" "+rdf.Literal("2008", rdf.XSDInteger).String())
		}
	}
	if got, _ := runQuery(t, ds, src); !slices.Equal(got, sorted(want)) {
		t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
	}
	// Under EXISTS the outer solution's ?y is substituted in: a BIND of it keeps the solution where its
	// expression has an error (ops.go, Extend), and the FILTER then reads the outer value.
	src = `SELECT ?s { ?s <http://ex.org/v0> ?v BIND(2008 AS ?y) FILTER EXISTS { BIND(YEAR(?v) AS ?y) FILTER(?y = 2008) } }`
	want = nil
	for _, x := range data {
		if y, ok := year(x.v); !ok || y == 2008 {
			want = append(want, x.s.String())
		}
	}
	if got, _ := runQuery(t, ds, src); !slices.Equal(got, sorted(want)) {
		t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
	}
}

// secondsTerm is a dateTime whose seconds run over 0 … 59 with fractions of up to twelve digits (trailing zeros
// among them), the end of a day written 24:00:00, in any timezone; or a date (SECONDS 0), a number or a string.
func secondsTerm(r *rand.Rand) rdf.Term {
	xsd := rdf.XSDNS
	day := fmt.Sprintf("2008-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
	tz := []string{"", "", "Z", "+05:30", "-14:00"}[r.IntN(5)]
	switch r.IntN(12) {
	case 0:
		return rdf.Literal(day, xsd+"date")
	case 1:
		return rdf.Literal(day+"Z", xsd+"date")
	case 2:
		return rdf.Literal(fmt.Sprint(r.IntN(60)), rdf.XSDInteger)
	case 3:
		return rdf.String(day + "T00:00:10")
	case 4:
		return rdf.Literal(day+"T24:00:00"+tz, xsd+"dateTime")
	}
	sec := []int{0, 9, 10, 29, 30, 59, r.IntN(60), r.IntN(60)}[r.IntN(8)]
	frac := []string{"", "", ".0", ".5", ".25", ".250", ".0001", ".00010", ".123456789012", ".999"}[r.IntN(10)]
	return rdf.Literal(fmt.Sprintf("%sT%02d:%02d:%02d%s%s", day, r.IntN(24), r.IntN(60), sec, frac, tz), xsd+"dateTime")
}

// TestSecondsMatchReference: SECONDS compared with a number (secondsCompare, reading the seconds where they stand
// in the lexical form) and bound by BIND then compared, grouped or selected, gives exactly what the builtin
// SECONDS and comparison of the terms give: every operator, both operand orders, integers and decimals held in
// ids, a double, a string, fractions longer than the constant's scale.
func TestSecondsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	b, add := builderAdding(t)
	var objs []rdf.Term
	for i := range 1500 {
		o := secondsTerm(r)
		add(rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), rdf.IRI("http://ex.org/v0"), o)
		objs = append(objs, o)
	}
	ds := FromIndex(b.Build())
	fn := builtin.NewContext(time.Now(), "")
	xsd := rdf.XSDNS
	consts := []rdf.Term{
		rdf.Literal("10", rdf.XSDInteger), rdf.Literal("0", rdf.XSDInteger), rdf.Literal("59", rdf.XSDInteger),
		rdf.Literal("-1", rdf.XSDInteger), rdf.Literal("30.25", xsd+"decimal"), rdf.Literal("0.0001", xsd+"decimal"),
		rdf.Literal("9.5", xsd+"decimal"), rdf.Literal("10.0", xsd+"decimal"), rdf.Literal("1.0e1", xsd+"double"),
		rdf.String("10"),
	}
	checked := 0
	for _, k := range consts {
		for _, op := range []string{"=", "!=", "<", "<=", ">", ">="} {
			var want []string
			for i, o := range objs {
				f, err := fn.Call("SECONDS", []rdf.Term{o})
				if err == nil && refTest(op, f, k) {
					want = append(want, fmt.Sprintf("<http://ex.org/s%d>", i))
				}
			}
			slices.Sort(want)
			flip := map[string]string{"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
			for _, src := range []string{
				`SELECT ?s { ?s <http://ex.org/v0> ?v FILTER(SECONDS(?v) ` + op + ` ` + k.String() + `) }`,
				`SELECT ?s { ?s <http://ex.org/v0> ?v FILTER(` + k.String() + ` ` + flip + ` SECONDS(?v)) }`,
				`SELECT ?s { ?s <http://ex.org/v0> ?v BIND(SECONDS(?v) AS ?f) FILTER(?f ` + op + ` ` + k.String() + `) }`,
			} {
				got, _ := runQuery(t, ds, src)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
				}
			}
			if len(want) > 0 && len(want) < len(objs) {
				checked++
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d comparisons split the rows", checked)
	}
	// The values themselves, grouped: SECONDS' decimal as the builtin writes it from the term.
	counts := map[string]int{}
	for _, o := range objs {
		if f, err := fn.Call("SECONDS", []rdf.Term{o}); err == nil {
			counts[f.String()]++
		} else {
			counts["-"]++ // the group of the unbound key
		}
	}
	var want []string
	for f, n := range counts {
		want = append(want, f+" "+rdf.Literal(fmt.Sprint(n), rdf.XSDInteger).String())
	}
	slices.Sort(want)
	got, _ := runQuery(t, ds, `SELECT ?f (COUNT(*) AS ?n) { ?s <http://ex.org/v0> ?v } GROUP BY (SECONDS(?v) AS ?f)`)
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("GROUP BY SECONDS: %d groups, reference %d; %q against %q", len(got), len(want), got[i], want[i])
			}
		}
		t.Fatalf("GROUP BY SECONDS: %d groups, reference %d", len(got), len(want))
	}
}

// TestDateZonesMatchReference: TZ and TIMEZONE of dates and dateTimes read from the end of their forms (the ids of
// the date blocks and valid inline dates) give what the builtin functions give on the terms: values with and
// without a timezone, 31 February (an error), numbers and strings (errors).
func TestDateZonesMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	ds, triples := dateData(t, r, 1500)
	fn := builtin.NewContext(time.Now(), "")
	for _, name := range []string{"TZ", "TIMEZONE"} {
		var want []string
		for _, tr := range triples {
			if tr[1].Value != "http://ex.org/v0" {
				continue
			}
			z := "-"
			if v, err := fn.Call(name, []rdf.Term{tr[2]}); err == nil {
				z = v.String()
			}
			want = append(want, tr[0].String()+" "+z)
		}
		slices.Sort(want)
		src := `SELECT ?s ?z { ?s <http://ex.org/v0> ?v BIND(` + name + `(?v) AS ?z) }`
		if got, _ := runQuery(t, ds, src); !slices.Equal(got, want) {
			t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
		}
	}
}

// TestFieldRunsMatchReference: YEAR, MONTH and DAY of two dateTimes per subject read in turn (runField's two runs
// found last, then its search of index.FieldRuns; h45's validFrom and validTo of each offer), alone and in
// arithmetic, give what the builtin functions give on the terms, for every class of the date blocks, inline dates
// and other terms; and the dictionary has runs at both levels, so the runs answered.
func TestFieldRunsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 31))
	ds, triples := dateData(t, r, 1200)
	dict := ds.Dict
	if dict.FieldRuns(index.RunsMonth) == nil || dict.FieldRuns(index.RunsDay) == nil {
		t.Fatal("no runs: the test would not reach them")
	}
	fn := builtin.NewContext(time.Now(), "")
	field := func(name string, o rdf.Term) string {
		v, err := fn.Call(name, []rdf.Term{o})
		if err != nil {
			return "-"
		}
		return v.String()
	}
	vals := map[string][2]rdf.Term{}
	for _, tr := range triples {
		v := vals[tr[0].Value]
		v[map[string]int{"http://ex.org/v0": 0, "http://ex.org/v1": 1}[tr[1].Value]] = tr[2]
		vals[tr[0].Value] = v
	}
	var want []string
	for s, v := range vals {
		row := []string{rdf.IRI(s).String()}
		for _, name := range []string{"YEAR", "MONTH", "DAY"} {
			row = append(row, field(name, v[0]), field(name, v[1]))
		}
		diff := "-"
		y0, e0 := fn.Call("YEAR", []rdf.Term{v[0]})
		y1, e1 := fn.Call("YEAR", []rdf.Term{v[1]})
		m0, e2 := fn.Call("MONTH", []rdf.Term{v[0]})
		m1, e3 := fn.Call("MONTH", []rdf.Term{v[1]})
		if e0 == nil && e1 == nil && e2 == nil && e3 == nil {
			n := func(x rdf.Term) int {
				var i int
				fmt.Sscan(x.Value, &i)
				return i
			}
			diff = builtin.Integer(int64((n(y1)-n(y0))*12 + n(m1) - n(m0))).String()
		}
		want = append(want, strings.Join(append(row, diff), " "))
	}
	slices.Sort(want)
	got, _ := runQuery(t, ds, `SELECT ?s ?y0 ?y1 ?m0 ?m1 ?d0 ?d1 ?months { ?s <http://ex.org/v0> ?a ; <http://ex.org/v1> ?b
		BIND(YEAR(?a) AS ?y0) BIND(YEAR(?b) AS ?y1) BIND(MONTH(?a) AS ?m0) BIND(MONTH(?b) AS ?m1)
		BIND(DAY(?a) AS ?d0) BIND(DAY(?b) AS ?d1) BIND((YEAR(?b) - YEAR(?a)) * 12 + MONTH(?b) - MONTH(?a) AS ?months) }`)
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%d rows, reference %d; first difference:\n got %s\nwant %s", len(got), len(want), got[i], want[i])
			}
		}
		t.Fatalf("%d rows, reference %d", len(got), len(want))
	}
}

// TestDateCastComparisonsMatchReference: xsd:date(?v) compared with another column or a constant, which
// dateCastCompare answers from the ids where both are dates without a timezone, keeps the rows the cast and the
// comparison on terms keep, over dates and dateTimes with and without timezones, forms that are no dates, numbers
// and strings; with dateTimes written at 24:00:00 among them too (the next day's midnight, which the cast gives and
// the column's day runs hold).
func TestDateCastComparisonsMatchReference(t *testing.T) {
	for _, term := range []func(*rand.Rand) rdf.Term{dateTerm, dateTerm24} {
		r := rand.New(rand.NewPCG(23, 24))
		ds, triples := dateDataOf(t, r, 1500, term)
		dateCastComparisons(t, ds, triples)
	}
}

// dateCastComparisons is TestDateCastComparisonsMatchReference over one dataset.
func dateCastComparisons(t *testing.T, ds *Dataset, triples [][3]rdf.Term) {
	xsd := rdf.XSDNS
	values := map[string][2]rdf.Term{}
	for _, tr := range triples {
		v := values[tr[0].Value]
		v[map[string]int{"http://ex.org/v0": 0, "http://ex.org/v1": 1}[tr[1].Value]] = tr[2]
		values[tr[0].Value] = v
	}
	others := []string{"?w", `"2008-02-10"^^<` + xsd + `date>`, `"2008-02-10Z"^^<` + xsd + `date>`, `"2008-02-10T00:00:00"^^<` + xsd + `dateTime>`}
	fast := 0
	for _, other := range others {
		for _, op := range []string{"<", "<=", ">", ">=", "=", "!="} {
			for _, flip := range []bool{false, true} {
				f := `<` + xsd + `date>(?v) ` + op + " " + other
				if flip {
					f = other + " " + op + ` <` + xsd + `date>(?v)`
				}
				src := `SELECT ?s { ?s <http://ex.org/v0> ?v ; <http://ex.org/v1> ?w FILTER(` + f + `) }`
				var want []string
				for s, v := range values {
					o := v[1]
					if other != "?w" {
						q, err := parser.Parse(`SELECT * { BIND(`+other+` AS ?x) }`, parser.Options{})
						if err != nil {
							t.Fatal(err)
						}
						o = firstOp[*algebra.Extend](q.Op).Expr.(algebra.Constant).Term
					}
					c, err := builtin.Cast(xsd+"date", v[0])
					pass := err == nil && refTest(op, c, o)
					if flip {
						pass = err == nil && refTest(op, o, c)
					}
					if pass {
						want = append(want, "<"+s+">")
					}
				}
				got, _ := runQuery(t, ds, src)
				if strings.Join(got, "\n") != strings.Join(sorted(want), "\n") {
					t.Errorf("%s: %d solutions, want %d", f, len(got), len(want))
				}
				fast += len(got)
			}
		}
	}
	if fast == 0 {
		t.Fatal("no comparison held: the data tests nothing")
	}
}
