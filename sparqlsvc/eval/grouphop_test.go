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
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestGroupHopMatchesReference: GROUP BY over a star joined through a hop (groupHop: the star read in subject order,
// the rest evaluated once per value of the join variables) gives what refGroup gives from every solution of the
// join, on data with repeated values, subjects missing a star pattern or with two rows of one, hop subjects with no
// object, one or two (a vendor in two countries counts its offers twice, one in none not at all), prices that are
// not numbers (SUM and AVG then have no value) and a predicate the data lacks (no groups); keys on either side or
// none, COUNT, COUNT DISTINCT, SUM, AVG, MIN, MAX, filters on either side, a rest of two patterns and a rest joined
// on two variables; and the forms it must leave to the join (the rest reading the star's subject, a filter reading
// both sides, a variable predicate, an EXISTS) give the same answer there.
func TestGroupHopMatchesReference(t *testing.T) {
	ds := hopTestData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	const star = `?s ex:p0 ?v ; ex:p1 ?d ; ex:p2 ?x . `
	sels := []string{
		`(COUNT(?s) AS ?n) (AVG(?x) AS ?a) (SUM(?x) AS ?t) (COUNT(*) AS ?all)`,
		`(MIN(?x) AS ?lo) (MAX(?d) AS ?hi) (COUNT(DISTINCT ?v) AS ?vs) (COUNT(DISTINCT ?x) AS ?xs) (SUM(?d) AS ?sd)`,
	}
	for _, c := range []struct {
		where, keys string
		handled     bool
	}{
		{`{ ` + star + `?v ex:country0 ?c }`, `?c ?d`, true},
		{`{ ` + star + `?v ex:country0 ?c }`, `?c`, true},
		{`{ ` + star + `?v ex:country0 ?c }`, `?d`, true},
		{`{ ` + star + `?v ex:country0 ?c }`, `?v`, true},
		{`{ ` + star + `?v ex:country0 ?c }`, ``, true},
		{`{ ?v ex:country0 ?c . ` + star + `}`, `?c ?d`, true},
		{`{ ` + star + `?v ex:country0 ?c FILTER(?d < 4) }`, `?c ?d`, true},
		{`{ ` + star + `?v ex:country0 ?c FILTER(?c != ex:c1 && ?x > 20) }`, `?c`, true},
		{`{ ` + star + `?v ex:country0 ?c . ?c ex:name0 ?name }`, `?name`, true},
		{`{ ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:days0 ?d ; ex:country0 ?c }`, `?c`, false},
		{`{ ` + star + `?v ex:kind0 ex:Vendor0 }`, `?d`, true}, // the rest binds nothing new
		{`{ ?v ex:kind0 ex:Vendor0 . ` + star + `}`, ``, true},
		{`{ ` + star + `?v ex:days0 ?d }`, `?d`, false}, // J of two variables: nearly a value per offer
		{`{ ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:p1 ?d }`, `?d`, false},
		// The rest keeps a few of the vendors (restNarrows): the join, led by it, reads less.
		{`{ ` + star + `?v ex:country0 ex:c1 }`, `?d`, false},
		{`{ ` + star + `?v ex:none ?c }`, `?c`, false},
		{`{ ?s ex:p0 ?v ; ex:none ?x . ?v ex:country0 ?c }`, `?c`, true},
		{`{ ` + star + `?v ex:country0 ?c . ?c ex:name0 ?s }`, `?c`, false},
		// Tags on the star's subject keep the subjects they hold (q09's `?offer a bsbm:Offer`).
		{`{ ?s ex:a0 ex:Offer0 . ` + star + `?v ex:country0 ?c }`, `?c ?d`, true},
		{`{ ` + star + `?s ex:a0 ex:Offer0 , ex:Big0 . ?v ex:country0 ?c }`, `?c`, true},
		{`{ ` + star + `?s ex:a0 ex:Big0 . ?v ex:country0 ?c FILTER(?d < 4) }`, ``, true},
		{`{ ` + star + `?s ex:a0 ex:None0 . ?v ex:country0 ?c }`, `?c`, true},
		{`{ ` + star + `?s ex:a0 ex:Rare0 . ?v ex:country0 ?c }`, `?c`, false}, // the join, led by the tag, reads less
		{`{ ?s ex:a0 ex:Offer0 ; ex:p0 ?v . ?v ex:country0 ?c }`, `?c`, false},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c }`, `?c`, false},
		{`{ ` + star + `?w ex:p0 ?v ; ex:p1 ?d2 }`, `?d2`, false}, // another star on ?v: the hash join's
		{`{ ` + star + `?v ex:country0 ?c FILTER(?c != ex:c1 || ?d > 3) }`, `?c`, false},
		{`{ ` + star + `?v ?p ?c }`, `?c`, false},
		{`{ ` + star + `?v ex:country0 ?c FILTER EXISTS { ?s ex:p1 3 } }`, `?c`, false},
	} {
		for _, sel := range sels {
			src := pre + `SELECT ` + sel + ` WHERE ` + c.where
			if c.keys != "" {
				src = pre + `SELECT ` + c.keys + ` ` + sel + ` WHERE ` + c.where + ` GROUP BY ` + c.keys + ` HAVING (COUNT(*) > 1)`
			}
			checkGroupPath(t, ds, src, (*evaluator).groupHop, c.handled)
		}
	}
	// The data must make the hop matter: two countries count twice, none drops the offers.
	ga, _ := runGroup(t, ds, pre+`SELECT (COUNT(*) AS ?n) WHERE { `+star+`?v ex:country0 ?c }`, false)
	gb, _ := runGroup(t, ds, pre+`SELECT (COUNT(*) AS ?n) WHERE { `+star+`}`, false)
	if strings.Join(ga, "") == strings.Join(gb, "") {
		t.Errorf("the hop does not change the count (%q): the data does not test it", ga)
	}
}

// hopTestData is 4 000 offers with 0–2 vendors (ex:p0), integer days (ex:p1, a few 4.0 beside them), prices
// (ex:p2, a few "n/a"), tags (ex:a0), and 45 vendors with 0–2 countries, days and a kind; 4 countries named.
func hopTestData(t *testing.T) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(161, 162))
	b, add := builderAdding(t)
	counts := []int{0, 1, 1, 1, 1, 2} // mostly one row, sometimes none or two
	for i := range 4000 {
		s := ex("offer", i)
		for range counts[r.IntN(len(counts))] {
			add(s, ex("p", 0), ex("vendor", r.IntN(40)))
		}
		for range counts[r.IntN(len(counts))] {
			add(s, ex("p", 1), rdf.Literal(fmt.Sprint(1+r.IntN(7)), rdf.XSDInteger))
		}
		for range counts[r.IntN(len(counts))] {
			switch r.IntN(40) {
			case 0: // not a number: SUM and AVG of its groups have no value
				add(s, ex("p", 2), rdf.String("n/a"))
			default:
				add(s, ex("p", 2), rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(100), r.IntN(100)), rdf.XSDDecimal))
			}
		}
	}
	for i := 0; i < 4000; i += 50 { // 4.0 beside the integers 4: MIN and MAX meet two ids of one value
		add(ex("offer", i), ex("p", 1), rdf.Literal("4.0", rdf.XSDDecimal))
	}
	for i := range 4000 { // tags on the offers, without drawing from r: most are Offers, a third not Big, a few Rare
		if i%5 != 2 {
			add(ex("offer", i), ex("a", 0), ex("Offer", 0))
		}
		if i%3 != 0 {
			add(ex("offer", i), ex("a", 0), ex("Big", 0))
		}
		if i%97 == 0 {
			add(ex("offer", i), ex("a", 0), ex("Rare", 0))
		}
	}
	for v := range 45 { // vendors 40–44 sell nothing; 0, 7, 14 … have no country, 3, 10 … two
		switch v % 7 {
		case 0:
		case 3:
			add(ex("vendor", v), ex("country", 0), ex("c", v%5))
			add(ex("vendor", v), ex("country", 0), ex("c", (v+1)%5))
		default:
			add(ex("vendor", v), ex("country", 0), ex("c", v%5))
		}
		add(ex("vendor", v), ex("days", 0), rdf.Literal(fmt.Sprint(1+v%7), rdf.XSDInteger))
		if v%9 != 4 {
			add(ex("vendor", v), ex("kind", 0), ex("Vendor", 0))
		}
	}
	for c := range 4 { // country 4 has no name
		add(ex("c", c), ex("name", 0), rdf.String(fmt.Sprint("country ", c%3)))
	}
	return FromIndex(b.Build())
}

// TestGroupHopSplitMatchesReference: groupHop's star split over two goroutines (each joining through a table of
// its own into groups of its own, the worker's merged after the query's) gives what refGroup gives; MIN and MAX of
// numbers held in ids merge (ties of 4 and 4.0 included), and of other values the worker's half is grouped again.
func TestGroupHopSplitMatchesReference(t *testing.T) {
	ds := hopTestData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	const star = `?s ex:p0 ?v ; ex:p1 ?d ; ex:p2 ?x . `
	for _, c := range []struct {
		src    string
		merged bool
	}{
		{`SELECT ?c ?d (COUNT(*) AS ?n) (AVG(?x) AS ?a) { ` + star + `?v ex:country0 ?c } GROUP BY ?c ?d`, true},
		{`SELECT ?c (COUNT(?s) AS ?n) (MIN(?d) AS ?lo) (MAX(?d) AS ?hi) { ?s ex:a0 ex:Offer0 . ` + star + `?v ex:country0 ?c } GROUP BY ?c`, true},
		{`SELECT ?name (SUM(?d) AS ?t) (MIN(?d) AS ?lo) { ` + star + `?v ex:country0 ?c . ?c ex:name0 ?name } GROUP BY ?name`, true},
		{`SELECT (MAX(?d) AS ?hi) (COUNT(*) AS ?n) { ` + star + `?v ex:kind0 ex:Vendor0 }`, true},
		{`SELECT ?c (MIN(?x) AS ?lo) (MAX(?x) AS ?hi) { ` + star + `?v ex:country0 ?c FILTER(?x > 50) } GROUP BY ?c`, true},
		// 4 and 4.0 are the least (the greatest) of every group, both met in each half: grouped again.
		{`SELECT ?c (MIN(?d) AS ?lo) { ` + star + `?v ex:country0 ?c FILTER(?d >= 4) } GROUP BY ?c`, false},
		{`SELECT ?c (MAX(?d) AS ?hi) { ` + star + `?v ex:country0 ?c FILTER(?d <= 4) } GROUP BY ?c`, false},
		{`SELECT ?c (MIN(?x) AS ?lo) { ` + star + `?v ex:country0 ?c } GROUP BY ?c`, false}, // "n/a" among the prices
		// With OPTIONALs on the star (h104's form): each member seeks its subjects from 0 in the worker.
		{`SELECT ?c (COUNT(?s) AS ?n) (AVG(?x) AS ?a) (COUNT(?x) AS ?nx) { ?s ex:p0/ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } } GROUP BY ?c`, true},
		{`SELECT ?c (SUM(?x) AS ?t) (MAX(?d) AS ?hi) { ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } OPTIONAL { ?s ex:p1 ?d } } GROUP BY ?c`, true},
		{`SELECT ?c (COUNT(*) AS ?n) { ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x FILTER(?x > 50) } } GROUP BY ?c ?x`, true},
	} {
		src := pre + c.src
		if !groupPathTakes(t, ds, src, (*evaluator).groupHop) {
			t.Fatalf("%s: groupHop does not take it", src)
		}
		got, cores := runGroupPool(t, ds, src, NewCores(2))
		want, _ := runGroup(t, ds, src, true)
		slices.Sort(got)
		slices.Sort(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
		if forks, _, _ := cores.Splits(); forks == 0 || (cores.Chunks() > 0) != c.merged {
			t.Errorf("%s: %d splits, %d merged (want merged: %v)", src, forks, cores.Chunks(), c.merged)
		}
	}
}

// TestMergeBest: two halves' MIN or MAX of numbers held in ids merge to what one goroutine reading the first half
// and then the second keeps (refGroup over a VALUES of the two in that order), ties of one value in two forms too.
func TestMergeBest(t *testing.T) {
	ds := hopTestData(t)
	for _, c := range [][2]string{{"4", "4.0"}, {"4.0", "4"}, {"4", "4"}, {"3", "4.0"}, {"4.5", "4"}, {"-1", "1"}, {"2.50", "2.5"}} {
		for _, name := range []string{"MIN", "MAX"} {
			src := `SELECT (` + name + `(?o) AS ?m) { VALUES ?o { ` + c[0] + ` ` + c[1] + ` } }`
			want, _ := runGroup(t, ds, src, true)
			q := mustParse(t, src)
			e := newEvaluator(context.Background(), ds, q, Options{})
			var ids [2]ID
			for i, v := range c {
				dt := rdf.XSDInteger
				if strings.Contains(v, ".") {
					dt = rdf.XSDDecimal
				}
				id, ok := index.InlineID(rdf.Literal(v, dt))
				if !ok {
					t.Fatalf("%s is not held in its id", v)
				}
				ids[i] = id
			}
			got := e.t.term(e.mergeBest(ids[0], ids[1], name == "MIN"))
			if want := strings.TrimSpace(want[0]); got.String() != want {
				t.Errorf("%s of %s then %s: got %s, want %s", name, c[0], c[1], got, want)
			}
		}
	}
}

// TestMergePathsPriced: groupHop and groupStarKeys' tags are chosen by their costs against the join's, and the
// choice flips where those cross. groupHop below hopFanIn rows per value: taken while its table of J's values fits
// a core's cache (1 000 products of 4 offers each), not past it (5 000), nor where its cache of solutions grows by a
// row (a COUNT(DISTINCT) of a star variable). groupStarKeys over 6 000 subjects of 60 vendors (100 each): a tag on
// 2 vendors prices the join at 2·16 + 200·(1 + 16) = 3 432 against the merge's 12 000 rows / 3 = 4 000 (the join's),
// on 3 vendors at 5 148 (the merge's).
func TestMergePathsPriced(t *testing.T) {
	data := func(products, per int, tags map[int][]string) *Dataset {
		b, add := builderAdding(t)
		for i := range products * per {
			add(ex("offer", i), ex("p", 0), ex("product", i%products))
			add(ex("offer", i), ex("p", 1), rdf.Literal(fmt.Sprint(i%7), rdf.XSDInteger))
		}
		for p := range products {
			add(ex("product", p), ex("country", 0), ex("c", p%5))
			for _, tag := range tags[p] {
				add(ex("product", p), ex("tag", 0), rdf.IRI("http://ex.org/"+tag))
			}
		}
		return FromIndex(b.Build())
	}
	const pre = `PREFIX ex: <http://ex.org/> `
	for _, c := range []struct {
		products int
		src      string
		handled  bool
	}{
		{1000, `SELECT ?c (COUNT(?s) AS ?n) { ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:country0 ?c } GROUP BY ?c`, true},
		{1000, `SELECT ?c (SUM(?d) AS ?t) { ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:country0 ?c } GROUP BY ?c`, true},
		{5000, `SELECT ?c (COUNT(?s) AS ?n) { ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:country0 ?c } GROUP BY ?c`, false},
		{1000, `SELECT ?c (COUNT(DISTINCT ?s) AS ?n) { ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:country0 ?c } GROUP BY ?c`, false},
		{1000, `SELECT ?c ?d (COUNT(?s) AS ?n) { ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:country0 ?c } GROUP BY ?c ?d`, false},
	} {
		checkGroupPath(t, data(c.products, 4, nil), pre+c.src, (*evaluator).groupHop, c.handled)
	}
	tags := map[int][]string{0: {"A", "B"}, 1: {"A", "B"}, 2: {"B"}}
	ds := data(60, 100, tags)
	for tag, handled := range map[string]bool{"A": false, "B": true} {
		src := pre + `SELECT ?d (COUNT(*) AS ?n) { ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:tag0 ex:` + tag + ` } GROUP BY ?d`
		checkGroupPath(t, ds, src, (*evaluator).groupStars, handled)
	}
}

// TestGroupHopSplitsFewRows: groupHop's star is split from 4 forkChunkRows rows on (8 000 offers here, under the
// minForkRows a plain star needs), where its timed probe says a worker's half is worth it.
func TestGroupHopSplitsFewRows(t *testing.T) {
	b, add := builderAdding(t)
	for i := range 8000 {
		add(ex("offer", i), ex("p", 0), ex("vendor", i%100))
		add(ex("offer", i), ex("p", 1), rdf.Literal(fmt.Sprint(i%7), rdf.XSDInteger))
	}
	for v := range 100 {
		add(ex("vendor", v), ex("country", 0), ex("c", v%5))
	}
	ds := FromIndex(b.Build())
	src := `PREFIX ex: <http://ex.org/> SELECT ?c (COUNT(?s) AS ?n) (SUM(?d) AS ?t) { ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:country0 ?c } GROUP BY ?c`
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cores := NewCores(2)
	e := newEvaluator(context.Background(), ds, q, Options{Cores: cores,
		forkCosts: func(int, time.Duration, time.Duration) (time.Duration, time.Duration) { return time.Second, 0 }})
	var got []string
	e.group(firstOp[*algebra.Group](q.Op), e.newRow(), e.collectRows(&got), &err)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := runGroup(t, ds, src, true)
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if forks, _, _ := cores.Splits(); forks == 0 || cores.Chunks() == 0 {
		t.Errorf("%d splits, %d merged: 8 000 rows of groupHop's star were not split", forks, cores.Chunks())
	}
}

// TestGroupHopOptionalsMatchReference: OPTIONALs on the star's subject join the star before the hop ((S ⋈ R) ⟕ O
// read as (S ⟕ O) ⋈ R): groupHop gives what refGroup gives from every solution of the join and the LeftJoin, on
// offers with no vendor or two, vendors with no country or two, prices missing, doubled or not numbers; AVG, SUM,
// COUNT of the OPTIONAL's object, COUNT(*), a sequence path to the key (h104's form), two OPTIONALs, an OPTIONAL of
// two patterns, one with a FILTER of its own, and a predicate the data lacks; an OPTIONAL that shares a variable with the rest, is on another
// subject, has a FILTER reading the rest, or a FILTER over the OPTIONAL is left to the join (same answers).
func TestGroupHopOptionalsMatchReference(t *testing.T) {
	ds := hopTestData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	const sel = `(COUNT(*) AS ?all) (COUNT(?x) AS ?nx) (AVG(?x) AS ?a) (SUM(?x) AS ?t)`
	for _, c := range []struct {
		where, keys string
		handled     bool
	}{
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } }`, `?c`, true},
		{`{ ?s ex:p0/ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } }`, `?c`, true},
		{`{ ?s ex:p0/ex:country0/ex:name0 ?name OPTIONAL { ?s ex:p2 ?x } }`, `?name`, true},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } }`, ``, true},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } }`, `?v`, true},
		{`{ ?s ex:p0 ?v ; ex:p1 ?d . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } }`, `?c ?d`, true},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } OPTIONAL { ?s ex:p1 ?d } }`, `?c ?d`, true},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x ; ex:p1 ?d } }`, `?c`, true},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x FILTER(?x > 50) } }`, `?c`, true},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:none ?x } }`, `?c`, true},
		// An OPTIONAL's FILTER reading another OPTIONAL's object: not a star optStarOf reads.
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p1 ?d } OPTIONAL { ?s ex:p2 ?x FILTER(?x > ?d) } }`, `?c`, false},
		{`{ ?s ex:p0 ?v . ?v ex:days0 ?d OPTIONAL { ?s ex:p1 ?d } OPTIONAL { ?s ex:p2 ?x } }`, `?d`, false},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?v ex:days0 ?x } }`, `?c`, false},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x FILTER(?c != ex:c1) } }`, `?c`, false},
		{`{ ?s ex:p0 ?v . ?v ex:country0 ?c OPTIONAL { ?s ex:p2 ?x } FILTER(!BOUND(?x) || ?x > 20) }`, `?c`, false},
	} {
		src := pre + `SELECT ` + sel + ` WHERE ` + c.where
		if c.keys != "" {
			src = pre + `SELECT ` + c.keys + ` ` + sel + ` WHERE ` + c.where + ` GROUP BY ` + c.keys
		}
		checkGroupPath(t, ds, src, (*evaluator).groupHop, c.handled)
	}
}
