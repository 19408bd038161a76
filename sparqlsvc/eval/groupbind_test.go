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
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// runKeyBind evaluates the SELECT query src, its groups rewritten where keyBindOf takes them or, when plain, as
// written (each group's rewrite set to none beforehand); it returns the rows (sorted unless ordered), whether a
// group was rewritten, and the evaluator's steps.
func runKeyBind(t *testing.T, ds *Dataset, src string, plain bool) ([]string, bool, int) {
	t.Helper()
	q := mustParse(t, src)
	e := newEvaluator(context.Background(), ds, q, Options{})
	var groups []*algebra.Group
	algebra.Walk(q.Op, func(op algebra.Op) bool {
		if g, ok := op.(*algebra.Group); ok {
			groups = append(groups, g)
		}
		return true
	})
	if plain {
		e.keyBinds = map[*algebra.Group]*keyBind{}
		for _, g := range groups {
			e.keyBinds[g] = nil
		}
	}
	c := &collector{res: &Result{}}
	if err := e.selectQuery(q, c); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	var rows []string
	for _, r := range c.res.Rows {
		parts := make([]string, len(r))
		for i, v := range r {
			parts[i] = v.String()
		}
		rows = append(rows, strings.Join(parts, " "))
	}
	if !strings.Contains(src, "ORDER BY") {
		slices.Sort(rows)
	}
	rewritten := false
	for _, g := range groups {
		rewritten = rewritten || e.keyBinds[g] != nil
	}
	return rows, rewritten, e.steps
}

// TestKeyBindMatchesPlain: { P BIND(e AS ?k) FILTER(f(?k)) } GROUP BY ?k evaluated as { P } GROUP BY (e AS ?k)
// with f tested per group (groupbind.go) gives the answers of the group evaluated as written, over dateTimes of
// every year 2007–2012 (without a timezone, in UTC, at offsets whose wall clock is in another year than the
// instant) and objects whose YEAR is an error (a string, an integer, an invalid dateTime), so the unbound-key group
// exists. FILTERs that drop it and keep it, none, split conjuncts, aggregates reading ?k, keys beside ?k, ORDER BY,
// HAVING and SELECT expressions above; shapes that must stay as written (BOUND(?k) in an aggregate, COUNT(DISTINCT
// *), a FILTER reading ?k and another variable, an aggregate reading a costly ?k) are not rewritten. d14's shape
// reads periods: far fewer steps than as written.
func TestKeyBindMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(131, 132))
	b := index.NewBuilder()
	dt := rdf.XSDNS + "dateTime"
	add := func(s rdf.Term, p string, o rdf.Term) {
		if err := b.Add(rdf.Triple(s, rdf.IRI("http://ex.org/"+p), o)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4000 {
		at := time.Date(2007, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(6 * 365 * 24 * time.Hour))))
		var o rdf.Term
		switch r.IntN(3) {
		case 0:
			o = rdf.Literal(at.Format("2006-01-02T15:04:05"), dt)
		case 1:
			o = rdf.Literal(at.UTC().Format("2006-01-02T15:04:05Z"), dt)
		default:
			o = rdf.Literal(at.In(time.FixedZone("", (r.IntN(57)-28)*30*60)).Format("2006-01-02T15:04:05-07:00"), dt)
		}
		add(ex("s", i), "d", o)
		add(ex("s", i), "v", rdf.Literal(fmt.Sprint(r.IntN(100)), rdf.XSDInteger))
	}
	// At the year boundaries: YEAR reads the wall clock (2009 and 2010), the instants are in 2010 and 2009.
	for i, o := range []rdf.Term{
		rdf.Literal("2009-12-31T23:30:00-05:00", dt), rdf.Literal("2010-01-01T00:30:00+02:00", dt),
		rdf.Literal("2009-12-31T20:00:00-14:00", dt), rdf.Literal("2010-01-01T09:00:00+14:00", dt),
		// YEAR has no value: not dateTimes, or not a valid one
		rdf.String("2008"), rdf.Literal("2008", rdf.XSDInteger), rdf.Literal("2008-13-01T00:00:00", dt),
		rdf.String("2009-06-01T00:00:00"),
	} {
		add(ex("x", i), "d", o)
		add(ex("x", i), "v", rdf.Literal(fmt.Sprint(i), rdf.XSDInteger))
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX ex: <http://ex.org/> `
	d := `?s ex:d ?t BIND(YEAR(?t) AS ?y)`
	cases := []struct {
		src     string
		rewrite bool
	}{
		// d14's shape: the FILTER drops the unbound-key group (the rows whose YEAR is an error) and the years ≥ 2010.
		{`SELECT ?y (COUNT(*) AS ?n) { ` + d + ` FILTER(?y < 2010) } GROUP BY ?y`, true},
		{`SELECT ?y (COUNT(*) AS ?n) { ` + d + ` FILTER(?y >= 2010) } GROUP BY ?y`, true},
		// FILTERs true on an unbound ?y keep the unbound-key group.
		{`SELECT ?y (COUNT(*) AS ?n) { ` + d + ` FILTER(!BOUND(?y) || ?y >= 2010) } GROUP BY ?y`, true},
		{`SELECT ?y (COUNT(*) AS ?n) { ` + d + ` FILTER(COALESCE(?y, 0) < 2010) } GROUP BY ?y`, true},
		// No FILTER: the unbound-key group is an answer.
		{`SELECT ?y (COUNT(*) AS ?n) (MIN(?t) AS ?a) (MAX(?t) AS ?b) { ` + d + ` } GROUP BY ?y`, true},
		// Aggregates reading ?y (in place of it, YEAR(?t)) and other variables.
		{`SELECT ?y (MIN(?y) AS ?a) (SUM(?y) AS ?b) (COUNT(?y) AS ?c) (SAMPLE(?y + 1) AS ?e) (AVG(?v) AS ?f) (MAX(?t) AS ?g) {
			?s ex:v ?v . ` + d + ` FILTER(?y != 2008) } GROUP BY ?y`, true},
		// A BIND before a pattern is a join the rewrite does not look into.
		{`SELECT ?y (COUNT(*) AS ?n) { ` + d + ` ?s ex:v ?v FILTER(?y != 2008) } GROUP BY ?y`, false},
		{`SELECT ?y (COUNT(?y) AS ?c) (SUM(COALESCE(?y, 1)) AS ?b) { ` + d + ` } GROUP BY ?y`, true},
		// A conjunct not reading ?y is tested on P's rows, one reading only ?y on the groups.
		{`SELECT ?y (COUNT(*) AS ?n) { ?s ex:d ?t ; ex:v ?v BIND(YEAR(?t) AS ?y) FILTER(?y > 2007 && ?v < 50) FILTER(?y != 2011) } GROUP BY ?y`, true},
		// Above the group: HAVING, a SELECT expression, ORDER BY.
		{`SELECT ?y ((?y + 1) AS ?z) (COUNT(*) AS ?n) { ` + d + ` FILTER(?y <= 2011) } GROUP BY ?y HAVING (COUNT(*) > 600) ORDER BY DESC(?y)`, true},
		// Keys beside ?y; MONTH's BIND is the one right under the FILTER.
		{`SELECT ?y ?m (COUNT(*) AS ?n) { ` + d + ` BIND(MONTH(?t) AS ?m) FILTER(?m < 3) } GROUP BY ?y ?m`, true},
		{`SELECT ?y ?m (COUNT(*) AS ?n) { ?s ex:d ?t BIND(MONTH(?t) AS ?m) BIND(YEAR(?t) AS ?y) FILTER(?y = 2009) } GROUP BY ?y ?m`, true},
		// A key that is not a date field.
		{`SELECT ?k (COUNT(*) AS ?n) { ?s ex:d ?t BIND(SUBSTR(STR(?t), 1, 4) AS ?k) FILTER(?k < "2010") } GROUP BY ?k`, true},
		// As written: BOUND(?y) in an aggregate, COUNT(DISTINCT *), a FILTER reading ?y and ?v, a costly ?k read by
		// an aggregate, a key reading ?y.
		{`SELECT ?y (SUM(IF(BOUND(?y), 1, 0)) AS ?b) { ` + d + ` } GROUP BY ?y`, false},
		{`SELECT ?y (COUNT(DISTINCT *) AS ?n) { ` + d + ` } GROUP BY ?y`, false},
		{`SELECT ?y (COUNT(*) AS ?n) { ` + d + ` ?s ex:v ?v FILTER(?y > ?v + 1950) } GROUP BY ?y`, false},
		{`SELECT ?k (SAMPLE(?k) AS ?a) { ?s ex:d ?t BIND(STR(?t) AS ?k) } GROUP BY ?k`, false},
		{`SELECT ?y ?z (COUNT(*) AS ?n) { ` + d + ` } GROUP BY ?y (?y + 1 AS ?z)`, false},
	}
	for i, c := range cases {
		src := pre + c.src
		got, rewritten, steps := runKeyBind(t, ds, src, false)
		want, _, plainSteps := runKeyBind(t, ds, src, true)
		if rewritten != c.rewrite {
			t.Errorf("%s: rewritten %v, want %v", c.src, rewritten, c.rewrite)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.src, got, want)
		}
		if len(want) == 0 {
			t.Errorf("%s: no answers: the case tests nothing", c.src)
		}
		if i == 0 && steps*4 > plainSteps {
			t.Errorf("%s: %d steps against %d as written: not read in periods", c.src, steps, plainSteps)
		}
	}
}
