package eval

import (
	"cmp"
	"context"
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

// TestGroupHopFirstMatchesReference: GROUP BY over a star joined through a hop that a FILTER narrows (hopFirst: R
// evaluated first, the star's subjects of its values gathered, sorted and read in order) gives what refGroup gives
// from every solution of the join, on data with reviews with no reviewer or two, none or two publishers, persons
// with no country or two, countries that are IRIs, strings or numbers (IN lists mixing them; comparisons that are
// errors on some), and sites that are not IRIs; COUNT forms and keys on either side, none, or unbound; the star's
// conjuncts memoised per id. The path itself is run (not only the dispatch, where groupHop may come first), and the
// forms it must decline (R keeping most persons, SUM, a conjunct reading both sides) give the same answer there.
func TestGroupHopFirstMatchesReference(t *testing.T) {
	ds := hopFirstData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	const star = `?r ex:by ?p ; ex:pub ?site . `
	const in = `FILTER(?c IN (ex:c1, "DE", ex:c4, 3)) `
	for _, c := range []struct {
		sel, where, keys string
		handled          bool
	}{
		{`(COUNT(?r) AS ?n)`, star + `?p ex:country ?c ` + in + `FILTER(?site NOT IN (ex:site1, ex:site3))`, `?c ?site`, true},
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ?c ` + in, `?c ?site`, true},
		{`(COUNT(DISTINCT ?site) AS ?n) (COUNT(?p) AS ?m)`, star + `?p ex:country ?c ` + in, `?c`, true},
		{`(COUNT(*) AS ?n)`, `?p ex:country ?c . ` + star + in + `FILTER(?site != ex:site2)`, ``, true},
		{`(COUNT(?site) AS ?n)`, star + `?p ex:country ?c ` + in, `?p`, true},
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ?c ` + in, `?r`, true}, // a group per review: the table is dropped
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ?c ` + in, `?c ?unbound`, true},
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ?c FILTER(?c > 2) FILTER(STRLEN(?site) > 0)`, `?site`, true}, // errors (IRIs): false
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ?c FILTER(?c = "DE" || ?c = ex:c5) FILTER(?site NOT IN (ex:site0, "s"))`, `?c ?site`, true},
		{`(COUNT(*) AS ?n)`, `?r ex:a ex:Review . ` + star + `?p ex:country ?c ` + in, `?c ?site`, true},
		{`(COUNT(*) AS ?n)`, star + `?r ex:day ?d . ?p ex:country ?c ` + in + `FILTER(?d < 5)`, `?c ?d`, true},
		// One person: R of two patterns, a few reviews read in SPO rather than a copy of ex:pub.
		{`(COUNT(*) AS ?n)`, star + `?p ex:name ?name ; ex:country ?c FILTER(?name = "person 5")`, `?c ?site`, true},
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ex:c99`, `?site`, true}, // no person: no solutions
		// R keeps most persons: taken only when the join would start from R (the planner's order, ledByR).
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ?c FILTER(?c != ex:c1)`, `?c ?site`, false},
		{`(COUNT(*) AS ?n)`, `?p ex:name ?name ; ex:country ?c . ` + star + `FILTER(?name != "x")`, `?c ?site`, true},
		// Declined: R keeps most persons; an aggregate other than COUNT; a conjunct reading both sides.
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ?c`, `?c ?site`, false},
		{`(SUM(?d) AS ?n)`, star + `?r ex:day ?d . ?p ex:country ?c ` + in, `?c`, false},
		{`(COUNT(*) AS ?n)`, star + `?p ex:country ?c ` + in + `FILTER(?c != ?site)`, `?c`, false},
	} {
		src := pre + `SELECT ` + c.keys + ` ` + c.sel + ` WHERE { ` + c.where + ` }`
		if c.keys != "" {
			src += ` GROUP BY ` + c.keys
		}
		want, _ := runGroup(t, ds, src, true)
		slices.Sort(want)
		got, handled := runGroupPath(t, ds, src, (*evaluator).groupHopFirst)
		if handled != c.handled {
			t.Errorf("%s: handled %v, want %v", src, handled, c.handled)
		}
		if handled {
			slices.Sort(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: hopFirst\n got %q\nwant %q", src, got, want)
			}
		}
		checkGroupPath(t, ds, src, (*evaluator).groupHopFirst, c.handled) // the dispatch's answer
		if handled {
			// The table of solutions judged after 64: kept where they repeat, handed on where most are new.
			got, _ := runGroupPathWith(t, ds, src, (*evaluator).groupHopFirst, Options{hopCacheJudged: 64})
			slices.Sort(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: hopFirst judging its table after 64\n got %q\nwant %q", src, got, want)
			}
		}
		if len(want) == 0 && !strings.Contains(src, "c99") {
			t.Errorf("%s: no groups: the data does not test it", src)
		}
	}
}

// runGroupPath runs path (groupHopFirst …) alone on the first GROUP BY of src and returns its groups as group
// writes them, and whether path took it.
func runGroupPath(t *testing.T, ds *Dataset, src string, path func(*evaluator, *algebra.Group, []ID, *groupState, *error) (bool, bool)) ([]string, bool) {
	t.Helper()
	return runGroupPathWith(t, ds, src, path, Options{})
}

// runGroupPathWith is runGroupPath under opt.
func runGroupPathWith(t *testing.T, ds *Dataset, src string, path func(*evaluator, *algebra.Group, []ID, *groupState, *error) (bool, bool), opt Options) ([]string, bool) {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	e := newEvaluator(context.Background(), ds, q, opt)
	x := firstOp[*algebra.Group](q.Op)
	in := e.newRow()
	gs := e.newGroupState(x)
	handled, ok := path(e, x, in, gs, &err)
	if err != nil || handled && !ok {
		t.Fatalf("%s: %v (ok %v)", src, err, ok)
	}
	if !handled {
		return nil, false
	}
	var out []string
	if !e.emitGroups(x, gs, in, nil, nil, e.collectRows(&out), &err) || err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return out, true
}

// hopFirstData is 3 000 reviews with 0–2 reviewers of 150 (ex:by: ~20 reviews each, under groupHop's fan-in),
// 0–2 publishers of 8 sites or a string (ex:pub), a day and most a type; persons with 0–2 countries among 8 IRIs,
// the string "DE" and the number 3, and a name.
func hopFirstData(t *testing.T) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(181, 182))
	b, add := builderAdding(t)
	counts := []int{0, 1, 1, 1, 1, 1, 1, 2}
	for i := range 3000 {
		s := ex("review", i)
		for range counts[r.IntN(len(counts))] {
			add(s, rdf.IRI("http://ex.org/by"), ex("person", r.IntN(150)))
		}
		for range counts[r.IntN(len(counts))] {
			if r.IntN(30) == 0 {
				add(s, rdf.IRI("http://ex.org/pub"), rdf.String("s"))
			} else {
				add(s, rdf.IRI("http://ex.org/pub"), ex("site", r.IntN(8)))
			}
		}
		add(s, rdf.IRI("http://ex.org/day"), rdf.Literal(fmt.Sprint(r.IntN(9)), rdf.XSDInteger))
		if i%6 != 1 {
			add(s, rdf.IRI("http://ex.org/a"), rdf.IRI("http://ex.org/Review"))
		}
	}
	country := func(k int) rdf.Term {
		switch k {
		case 8:
			return rdf.String("DE")
		case 9:
			return rdf.Literal("3", rdf.XSDInteger)
		}
		return ex("c", k)
	}
	for p := range 150 {
		s := ex("person", p)
		add(s, rdf.IRI("http://ex.org/name"), rdf.String(fmt.Sprint("person ", p)))
		for range counts[r.IntN(len(counts))] {
			add(s, rdf.IRI("http://ex.org/country"), country(r.IntN(10)))
		}
	}
	return FromIndex(b.Build())
}

// TestSeekRowsAndSortHigh32: seekRows finds each ascending subject's rows (and one object's) as a search of the
// whole copy does, stepping or galloping over gaps of every size; sortHigh32 orders by the upper 32 bits and keeps
// the order of entries with equal ones, in its radix passes and below them.
func TestSeekRowsAndSortHigh32(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var rows []index.Row
	for s := ID(1); s < 5000; s++ {
		if r.IntN(3) == 0 {
			continue
		}
		for o := range ID(r.IntN(3)) {
			rows = append(rows, index.Row{s, 9, 10 + 2*o})
		}
	}
	at := 0
	for s := ID(1); s < 5200; s += ID(1 + r.IntN(40)) {
		o := ID(0)
		if r.IntN(4) == 0 {
			o = 12
		}
		got := seekRows(rows, &at, s, o)
		var want []index.Row
		for _, row := range rows {
			if row[0] == s && (o == 0 || row[2] == o) {
				want = append(want, row)
			}
		}
		if !slices.Equal(got.Rows, want) {
			t.Fatalf("subject %d object %d: got %v, want %v", s, o, got.Rows, want)
		}
	}
	for _, n := range []int{10, 255, 256, 5000} {
		a := make([]uint64, n)
		for i := range a {
			a[i] = uint64(r.Uint32()%uint32(1+n/3))<<32 | uint64(i)
			if i%5 == 0 {
				a[i] |= uint64(r.Uint32()) << 32 // high digits too
			}
		}
		want := slices.Clone(a)
		slices.SortStableFunc(want, func(x, y uint64) int { return cmp.Compare(x>>32, y>>32) })
		if got := sortHigh32(a); !slices.Equal(got, want) {
			t.Fatalf("%d entries: not sorted stably by the upper 32 bits", n)
		}
	}
}

// TestGroupHopFirstDateConds: the star's conjuncts on a dateTime, answered by their comparison sites (condMemo's
// sites) and YEAR, MONTH and DAY by the column's runs (fieldCompare through runField), give what refGroup gives from
// every solution of the join (h122's shape: reviews in a window with DAY(?d) <= 7, of products published before a
// date), over dateTimes without a timezone, with one, 24:00:00, xsd:dates held in ids and in the dictionary, forms
// that are no date, strings and numbers, each comparison either way round.
func TestGroupHopFirstDateConds(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 6))
	b, add := builderAdding(t)
	date := func() rdf.Term {
		y, m, d := 2007+r.IntN(3), 1+r.IntN(12), 1+r.IntN(28)
		h, mi := r.IntN(24), r.IntN(60)
		switch r.IntN(20) {
		case 0:
			return rdf.Literal(fmt.Sprintf("%d-%02d-%02dT%02d:%02d:00+02:00", y, m, d, h, mi), index.XSDDateTime)
		case 1:
			return rdf.Literal(fmt.Sprintf("%d-%02d-%02dT%02d:%02d:00Z", y, m, d, h, mi), index.XSDDateTime)
		case 2:
			return rdf.Literal(fmt.Sprintf("%d-%02d-%02dT24:00:00", y, m, d), index.XSDDateTime)
		case 3:
			return rdf.Literal(fmt.Sprintf("%d-%02d-%02d", y, m, d), index.XSDDate)
		case 4:
			return rdf.Literal(fmt.Sprintf("%d-02-31T10:00:00", y), index.XSDDateTime) // no date
		case 5:
			return rdf.String(fmt.Sprintf("%d-%02d-%02d", y, m, d))
		case 6:
			return rdf.Literal(fmt.Sprint(d), rdf.XSDInteger)
		}
		return rdf.Literal(fmt.Sprintf("%d-%02d-%02dT%02d:%02d:%02d", y, m, d, h, mi, r.IntN(60)), index.XSDDateTime)
	}
	for i := range 4000 {
		s := ex("review", i)
		add(s, rdf.IRI("http://ex.org/reviewFor"), ex("product", r.IntN(300)))
		if i%9 != 0 {
			add(s, rdf.IRI("http://ex.org/reviewDate"), date())
		}
	}
	for p := range 300 {
		if p%7 == 0 {
			continue
		}
		pub := rdf.Literal(fmt.Sprintf("%d-%02d-%02d", 1998+p%8, 1+p%12, 1+p%28), index.XSDDate)
		if p%11 == 0 {
			pub = rdf.Literal(fmt.Sprintf("%d-%02d-%02dZ", 1998+p%8, 1+p%12, 1+p%28), index.XSDDate)
		}
		add(ex("product", p), rdf.IRI("http://ex.org/date"), pub)
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX ex: <http://ex.org/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> `
	const star = `?review ex:reviewFor ?product ; ex:reviewDate ?d . ?product ex:date ?published `
	const old = `FILTER(?published < "2002-01-01"^^xsd:date) `
	for _, c := range []struct{ conds, keys string }{
		{`FILTER(?d >= "2008-01-01T00:00:00"^^xsd:dateTime && ?d < "2009-01-01T00:00:00"^^xsd:dateTime && DAY(?d) <= 7)`, `(MONTH(?d) AS ?m)`},
		{`FILTER(DAY(?d) > 20 && 3 <= MONTH(?d))`, `(YEAR(?d) AS ?y)`},
		{`FILTER(YEAR(?d) = 2008 && 15 > DAY(?d))`, `(DAY(?d) AS ?day)`},
		{`FILTER(MONTH(?d) != 2 && HOURS(?d) < 12)`, `(MONTH(?d) AS ?m)`},
		{`FILTER("2008-06-01T00:00:00"^^xsd:dateTime > ?d && DAY(?d) >= 28)`, ``},
		{`FILTER(?d <= "2008-03-01"^^xsd:date || DAY(?d) = 1)`, `(MONTH(?d) AS ?m)`},
		{`FILTER(?d != "2008-05-05T10:00:00"^^xsd:dateTime) FILTER(MINUTES(?d) < 30)`, `(YEAR(?d) AS ?y)`},
	} {
		sel := ``
		if c.keys != "" {
			sel = c.keys[strings.LastIndex(c.keys, "?") : len(c.keys)-1]
		}
		src := pre + `SELECT ` + sel + ` (COUNT(*) AS ?n) WHERE { ` + star + old + c.conds + ` }`
		if c.keys != "" {
			src += ` GROUP BY ` + c.keys
		}
		// The reference reads each field through the general path: "+ 0" is no comparison a site answers.
		plain := c.conds
		for _, f := range fieldFuncs {
			plain = strings.ReplaceAll(plain, f+`(?d)`, `(`+f+`(?d) + 0)`)
		}
		refSrc := strings.Replace(src, c.conds, plain, 1)
		want, _ := runGroup(t, ds, refSrc, true)
		slices.Sort(want)
		got, handled := runGroupPath(t, ds, src, (*evaluator).groupHopFirst)
		if !handled {
			t.Errorf("%s: not taken by hopFirst", src)
			continue
		}
		slices.Sort(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: hopFirst\n got %q\nwant %q", src, got, want)
		}
		if len(want) == 0 {
			t.Errorf("%s: no groups: the data does not test it", src)
		}
	}
}
