package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestPlanUsesMeasuredFanout: with ?days and ?country bound from outside (a VALUES row), the BGP must start from
// the country's vendors and reach offers through each vendor (5 per vendor), checking the days last, never join
// the country's vendors with every offer of that many days (100 per value). The fixed fan-out guess priced both
// inner patterns alike and picked the product.
func TestPlanUsesMeasuredFanout(t *testing.T) {
	b, add := builderAdding(t)
	for v := range 400 {
		add(ex("vendor", v), ex("country", 0), ex("c", v%10))
	}
	for o := range 2000 {
		add(ex("offer", o), ex("vendor", 0), ex("vendor", o%400))
		add(ex("offer", o), ex("days", 0), rdf.Literal(fmt.Sprint(o%20), rdf.XSDInteger))
	}
	q, err := parser.Parse(`SELECT * WHERE { ?offer <http://ex.org/days0> ?days ; <http://ex.org/vendor0> ?vendor .
		?vendor <http://ex.org/country0> ?country }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var bgp *algebra.BGP
	var find func(op algebra.Op)
	find = func(op algebra.Op) {
		switch x := op.(type) {
		case *algebra.BGP:
			bgp = x
		case *algebra.Project:
			find(x.Op)
		}
	}
	find(q.Op)
	if bgp == nil {
		t.Fatalf("no BGP in %T", q.Op)
	}
	ds := FromIndex(b.Build())
	e := &evaluator{ctx: context.Background(), ds: ds, t: newTerms(ds.Dict), slots: map[algebra.Var]int{},
		orders: map[orderKey][]int{}, fanout: map[fanoutKey]float64{}, consts: map[rdf.Term]ID{}}
	e.active = e.defaultGraphs()
	e.collectVars(q)
	order := e.plan(bgp, varset{}.with(e.slot("days")).with(e.slot("country")))
	var got []string
	for _, i := range order {
		got = append(got, bgp.Triples[i].P.Term.Value)
	}
	want := []string{"http://ex.org/country0", "http://ex.org/vendor0", "http://ex.org/days0"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
}

// TestPlanStartsFromTheStar: offers (a star of type, vendor, price, days on each offer) joined to their vendor's
// country, nothing bound. Starting from the few vendors' countries (the greedy choice: the smallest pattern) reaches
// the offers vendor by vendor, so every probe of the star searches the whole index; starting from the offers,
// sorted by offer, probes the star in order and only the country probe by vendor is out of order. planCost must
// pick the second, and the answers are the same either way.
func TestPlanStartsFromTheStar(t *testing.T) {
	b, add := builderAdding(t)
	for v := range 300 {
		add(ex("vendor", v), ex("country", 0), ex("c", v%10))
	}
	for o := range 6000 {
		add(ex("offer", o), ex("type", 0), ex("Offer", 0))
		add(ex("offer", o), ex("vendor", 0), ex("vendor", (o*7)%300))
		add(ex("offer", o), ex("price", 0), rdf.Literal(fmt.Sprint(o%97), rdf.XSDInteger))
		add(ex("offer", o), ex("days", 0), rdf.Literal(fmt.Sprint(o%20), rdf.XSDInteger))
	}
	src := `SELECT * WHERE { ?offer <http://ex.org/type0> <http://ex.org/Offer0> ; <http://ex.org/vendor0> ?vendor ;
		<http://ex.org/price0> ?price ; <http://ex.org/days0> ?days . ?vendor <http://ex.org/country0> ?country }`
	q := mustParse(t, src)
	bgp := firstOp[*algebra.BGP](q.Op)
	ds := FromIndex(b.Build())
	e := newEvaluator(context.Background(), ds, q, Options{})
	order := e.plan(bgp, varset{})
	if first := bgp.Triples[order[0]].P.Term.Value; first != "http://ex.org/type0" {
		t.Errorf("the plan starts from %s, want the offers' type", first)
	}
	if greedy := e.greedy(bgp, varset{}, -1); bgp.Triples[greedy[0]].P.Term.Value != "http://ex.org/country0" {
		t.Fatalf("the greedy order no longer starts from the countries; this test needs other data")
	}
	res, err := Run(context.Background(), ds, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 6000 {
		t.Fatalf("%d rows, want 6000", len(res.Rows))
	}
	for _, r := range res.Rows {
		var o, v, c int
		for i, name := range res.Vars {
			switch name {
			case "offer":
				fmt.Sscanf(r[i].Value, "http://ex.org/offer%d", &o)
			case "vendor":
				fmt.Sscanf(r[i].Value, "http://ex.org/vendor%d", &v)
			case "country":
				fmt.Sscanf(r[i].Value, "http://ex.org/c%d", &c)
			}
		}
		if v != (o*7)%300 || c != v%10 {
			t.Fatalf("row %v: offer %d, vendor %d, country %d", r, o, v, c)
		}
	}
}

// TestPlanPrefersFilteredPatterns: of two patterns on an offer that cost alike, the one whose variable a FILTER
// tests goes first, so the filter (tested as soon as its variables are bound) drops offers before the other is
// probed. The answers must not depend on it.
func TestPlanPrefersFilteredPatterns(t *testing.T) {
	b, add := builderAdding(t)
	for o := range 3000 {
		add(ex("offer", o), ex("type", 0), ex("Offer", 0))
		add(ex("offer", o), ex("vendor", 0), ex("vendor", o%50))
		add(ex("offer", o), ex("days", 0), rdf.Literal(fmt.Sprint(o%20), rdf.XSDInteger))
	}
	ds := FromIndex(b.Build())
	for _, c := range []struct{ filter, first string }{
		{"?days <= 3", "http://ex.org/days0"},
		{"?vendor != <http://ex.org/vendor7>", "http://ex.org/vendor0"},
	} {
		src := `SELECT * WHERE { ?offer <http://ex.org/type0> <http://ex.org/Offer0> ; <http://ex.org/vendor0> ?vendor ;
			<http://ex.org/days0> ?days FILTER(` + c.filter + `) }`
		e, q, rows := planFiltered(t, ds, src)
		bgp := firstOp[*algebra.BGP](q.Op)
		order := e.plan(bgp, varset{})
		if got := bgp.Triples[order[1]].P.Term.Value; got != c.first {
			t.Errorf("FILTER(%s): the second pattern is %s, want %s", c.filter, got, c.first)
		}
		want := 600
		if c.first == "http://ex.org/vendor0" {
			want = 3000 - 60
		}
		if len(rows) != want {
			t.Errorf("FILTER(%s): %d solutions, want %d", c.filter, len(rows), want)
		}
	}
}

// planFiltered parses src and evaluates its first FILTER, which plans the BGP under it with the filter's conjuncts
// known (filteredBGP), and returns the evaluator that holds the plan and the solutions.
func planFiltered(t *testing.T, ds *Dataset, src string) (*evaluator, *algebra.Query, []string) {
	t.Helper()
	q := mustParse(t, src)
	e := newEvaluator(context.Background(), ds, q, Options{})
	var rows []string
	var ferr error
	e.exec(firstOp[*algebra.Filter](q.Op), e.newRow(), e.collectRows(&rows), &ferr)
	if ferr != nil {
		t.Fatal(ferr)
	}
	return e, q, rows
}

// TestPlanScansStarBySubject: a star of patterns on offers with nothing that lists the offers in order (no type
// pattern) starts from one predicate read in subject order, so the other probes ascend; the answers are the same
// as without that reading, with a budget too small for the copy, and every offer's values are its own.
func TestPlanScansStarBySubject(t *testing.T) {
	b, add := builderAdding(t)
	const n = 4000
	for o := range n {
		add(ex("offer", o), ex("price", 0), rdf.Literal(fmt.Sprint((o*7919)%n), rdf.XSDInteger)) // objects in no order
		add(ex("offer", o), ex("days", 0), rdf.Literal(fmt.Sprint((o*104729)%n+n), rdf.XSDInteger))
		add(ex("offer", o), ex("from", 0), rdf.Literal(fmt.Sprintf("2008-01-%02d", 1+o%28), index.XSDDate))
	}
	ds := FromIndex(b.Build())
	src := `SELECT * WHERE { ?offer <http://ex.org/price0> ?price ; <http://ex.org/days0> ?days ; <http://ex.org/from0> ?from }`
	q := mustParse(t, src)
	bgp := firstOp[*algebra.BGP](q.Op)
	e := newEvaluator(context.Background(), ds, q, Options{})
	e.plan(bgp, varset{})
	if !e.scansBySubject(bgp, varset{}) {
		t.Fatal("the star does not start from a predicate in subject order")
	}
	check := func(opt Options) {
		t.Helper()
		res, err := Run(context.Background(), ds, q, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != n {
			t.Fatalf("%d rows, want %d", len(res.Rows), n)
		}
		seen := map[int]bool{}
		for _, r := range res.Rows {
			var o, price, days, day int
			for i, name := range res.Vars {
				switch name {
				case "offer":
					fmt.Sscanf(r[i].Value, "http://ex.org/offer%d", &o)
				case "price":
					fmt.Sscan(r[i].Value, &price)
				case "days":
					fmt.Sscan(r[i].Value, &days)
				case "from":
					fmt.Sscanf(r[i].Value, "2008-01-%d", &day)
				}
			}
			if seen[o] || price != (o*7919)%n || days != (o*104729)%n+n || day != 1+o%28 {
				t.Fatalf("row %v: offer %d", r, o)
			}
			seen[o] = true
		}
	}
	check(Options{})
	check(Options{MaxMemory: 64 << 10}) // no room for the copy: the patterns are matched as usual
}

// TestPlanKeepsGroupOrder: a star of two patterns is read in subject order (subjectScan) when that saves its
// probes, unless the order it gives up is worth more to the operator above: a GROUP BY on the first pattern's
// object with more groups than stay in the cache (each solution's group is then the previous one's), or a LIMIT
// that may stop the join early (the scan sorts every row first). The answers, whichever the plan, must be the brute
// force ones.
func TestPlanKeepsGroupOrder(t *testing.T) {
	const n = 20000
	for _, tc := range []struct {
		groups int
		query  string
		scan   bool
	}{
		{10, "SELECT ?g (COUNT(*) AS ?n) (MIN(?x) AS ?m) WHERE { ?o <http://ex.org/in> ?g ; <http://ex.org/x> ?x } GROUP BY ?g", true},
		{5000, "SELECT ?g (COUNT(*) AS ?n) (MIN(?x) AS ?m) WHERE { ?o <http://ex.org/in> ?g ; <http://ex.org/x> ?x } GROUP BY ?g", false},
		{10, "SELECT ?g (COUNT(*) AS ?n) (MIN(?x) AS ?m) WHERE { { SELECT ?o ?g ?x WHERE { ?o <http://ex.org/in> ?g ; <http://ex.org/x> ?x } LIMIT 30000 } } GROUP BY ?g", false},
	} {
		r := rand.New(rand.NewPCG(uint64(tc.groups), 3))
		b, add := builderAdding(t)
		count, least := map[string]int{}, map[string]int{}
		for o := range n {
			g := rdf.IRI(fmt.Sprintf("http://ex.org/g%d", r.IntN(tc.groups)))
			x := r.IntN(1000000)
			add(rdf.IRI(fmt.Sprintf("http://ex.org/o%d", (o*7919)%n)), rdf.IRI("http://ex.org/in"), g)
			add(rdf.IRI(fmt.Sprintf("http://ex.org/o%d", (o*7919)%n)), rdf.IRI("http://ex.org/x"), rdf.Literal(fmt.Sprint(x), rdf.XSDInteger))
			if m, ok := least[g.Value]; !ok || x < m {
				least[g.Value] = x
			}
			count[g.Value]++
		}
		ds := FromIndex(b.Build())
		q := mustParse(t, tc.query)
		bgp := firstOp[*algebra.BGP](q.Op)
		e := newEvaluator(context.Background(), ds, q, Options{})
		e.plan(bgp, varset{})
		if got := e.scansBySubject(bgp, varset{}); got != tc.scan {
			t.Errorf("%d groups, %s: scan by subject %v, want %v", tc.groups, tc.query, got, tc.scan)
		}
		res, err := Run(context.Background(), ds, q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != len(count) {
			t.Fatalf("%s: %d groups, want %d", tc.query, len(res.Rows), len(count))
		}
		for _, row := range res.Rows {
			g := row[0].Value
			if row[1].Value != fmt.Sprint(count[g]) || row[2].Value != fmt.Sprint(least[g]) {
				t.Fatalf("%s: group %s: %v, want %d and %d", tc.query, g, row, count[g], least[g])
			}
		}
	}
}

// TestPlanScanYieldsToNarrowRange: a star of three patterns on offers, nothing listing them in order, with a filter
// on one predicate's values. When the filter keeps few of them (valueRanges reads only those), starting from that
// range and probing the others out of order is far less work than reading a whole predicate in subject order
// (subjectScan), which cannot use the range; when it keeps nearly all, the scan is still the plan. The answers are
// the brute force ones either way.
func TestPlanScanYieldsToNarrowRange(t *testing.T) {
	b, add := builderAdding(t)
	const n = 8000
	price := func(o int) int { return (o * 7919) % n } // objects in no order of the subjects
	days := func(o int) int { return (o*104729)%n + n }
	for o := range n {
		add(ex("offer", o), ex("price", 0), rdf.Literal(fmt.Sprint(price(o)), rdf.XSDInteger))
		add(ex("offer", o), ex("days", 0), rdf.Literal(fmt.Sprint(days(o)), rdf.XSDInteger))
		add(ex("offer", o), ex("vendor", 0), ex("vendor", o%40))
	}
	ds := FromIndex(b.Build())
	for _, tc := range []struct {
		filter string
		keep   func(o int) bool
		scan   bool
	}{
		{fmt.Sprintf("?days < %d && ?price < %d", n+n/50, n/2), func(o int) bool { return days(o) < n+n/50 && price(o) < n/2 }, false},
		{fmt.Sprintf("?days = %d", n+77), func(o int) bool { return days(o) == n+77 }, false},
		{fmt.Sprintf("?days >= %d", n+n/50), func(o int) bool { return days(o) >= n+n/50 }, true},
	} {
		src := `SELECT ?offer ?vendor WHERE { ?offer <http://ex.org/price0> ?price ; <http://ex.org/days0> ?days ;
			<http://ex.org/vendor0> ?vendor FILTER(` + tc.filter + `) }`
		e, q, _ := planFiltered(t, ds, src)
		bgp := firstOp[*algebra.BGP](q.Op)
		if got := e.scansBySubject(bgp, varset{}); got != tc.scan {
			t.Errorf("FILTER(%s): scan by subject %v, want %v", tc.filter, got, tc.scan)
		}
		res, err := Run(context.Background(), ds, q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for o := range n {
			if tc.keep(o) {
				want[fmt.Sprintf("%s %s", ex("offer", o).Value, ex("vendor", o%40).Value)] = true
			}
		}
		if len(res.Rows) != len(want) {
			t.Fatalf("FILTER(%s): %d rows, want %d", tc.filter, len(res.Rows), len(want))
		}
		for _, r := range res.Rows {
			if k := r[0].Value + " " + r[1].Value; !want[k] {
				t.Fatalf("FILTER(%s): unexpected row %s", tc.filter, k)
			}
		}
	}
}

// TestPlanScanPricesTheFilter: a star of two patterns is not read in subject order when the filter on its first
// pattern's object keeps few solutions (measured on a sample of the predicate's rows, here through a cast that no
// value range reads): sorting every price by subject would then serve the probes of a few offers. When the filter
// keeps nearly everything, the scan stays. The answers, whichever the plan, are the brute force ones.
func TestPlanScanPricesTheFilter(t *testing.T) {
	b, add := builderAdding(t)
	const n = 4000
	price := func(o int) int { return (o * 7919) % n } // objects in no order of their subjects
	for o := range n {
		add(ex("offer", o), ex("price", 0), rdf.Literal(fmt.Sprint(price(o)), rdf.XSDInteger))
		add(ex("offer", o), ex("days", 0), rdf.Literal(fmt.Sprint(o%21), rdf.XSDInteger))
	}
	ds := FromIndex(b.Build())
	for _, tc := range []struct {
		least int
		scan  bool
	}{{3990, false}, {10, true}} {
		src := fmt.Sprintf(`SELECT ?offer ?days WHERE { ?offer <http://ex.org/price0> ?price ; <http://ex.org/days0> ?days
			FILTER(<http://www.w3.org/2001/XMLSchema#integer>(STR(?price)) > %d) }`, tc.least)
		q, err := parser.Parse(src, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := newEvaluator(context.Background(), ds, q, Options{})
		got := map[string]bool{}
		err = e.run(q.Op, e.newRow(), func(row []ID) bool {
			got[e.t.term(row[e.slot("offer")]).Value+" "+e.t.term(row[e.slot("days")]).Value] = true
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for o := range n {
			if price(o) > tc.least {
				want[fmt.Sprintf("http://ex.org/offer%d %d", o, o%21)] = true
			}
		}
		if len(got) != len(want) {
			t.Fatalf("FILTER > %d: %d solutions, want %d", tc.least, len(got), len(want))
		}
		for k := range want {
			if !got[k] {
				t.Fatalf("FILTER > %d: %s missing", tc.least, k)
			}
		}
		if s := e.scansBySubject(firstOp[*algebra.BGP](q.Op), varset{}); s != tc.scan {
			t.Errorf("FILTER > %d: scan by subject %v, want %v", tc.least, s, tc.scan)
		}
	}
}

// TestFilteredBGPPrepFollowsItsKey: a BGP keeps its last preparation (bgpState.prep) only for the same bound
// variables, graph and filters. Evaluated first without its filter (as the FILTER above it does when substitution
// would differ) and then with it, the filter must apply; evaluated with another variable bound, the order must be
// the plan for that one. Both are compared with the brute-force answers.
func TestFilteredBGPPrepFollowsItsKey(t *testing.T) {
	b, add := builderAdding(t)
	const n = 300
	for o := range n {
		add(ex("offer", o), ex("days", 0), rdf.Literal(fmt.Sprint(o%7), rdf.XSDInteger))
		add(ex("offer", o), ex("vendor", 0), ex("vendor", o%10))
	}
	ds := FromIndex(b.Build())
	q, err := parser.Parse(`SELECT * WHERE { ?offer <http://ex.org/days0> ?days ; <http://ex.org/vendor0> ?vendor FILTER(?days < 2) }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), ds, q, Options{})
	f := firstOp[*algebra.Filter](q.Op)
	bgp := firstOp[*algebra.BGP](q.Op)
	count := func(filters []algebra.Expr, in []ID) int {
		got := 0
		var ferr error
		e.filteredBGP(bgp, filters, in, func([]ID) bool { got++; return true }, &ferr)
		if ferr != nil {
			t.Fatal(ferr)
		}
		return got
	}
	if got := count(nil, e.newRow()); got != n {
		t.Fatalf("without the filter: %d solutions, want %d", got, n)
	}
	if got, want := count(f.Exprs, e.newRow()), 2*n/7+1; got != want {
		t.Fatalf("with the filter after a call without: %d solutions, want %d", got, want)
	}
	in := e.newRow()
	in[e.slot("vendor")] = e.constID(ex("vendor", 3))
	if got, want := count(f.Exprs, in), 8; got != want { // offers 3, 13, …, 293 with days 0 or 1
		t.Fatalf("with ?vendor bound: %d solutions, want %d", got, want)
	}
	bound := varset{}.with(e.slot("vendor"))
	if got, want := e.bgps[bgp].prep.order, e.plan(bgp, bound); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("with ?vendor bound: order %v, want the plan %v", got, want)
	}
}

// TestPlanScansNarrowedRangeBySubject: a star of two patterns whose filter keeps a range of the first pattern's
// objects (?b >= 5) reads only that range, sorted by subject (scanNarrowed), so the probes of the other pattern
// ascend; the greedy order probed them in the order of the values, each far from the previous one, and a subject
// scan of every row could not use the range. The answers are the brute force ones: with every kept row proven by
// the range, with rows the range cannot place (plain strings among the numbers, tested one by one), and with a
// budget too small for the sorted copy.
func TestPlanScansNarrowedRangeBySubject(t *testing.T) {
	const n = 20000
	a := func(i int) int { return 1 + (i*7919)%10 } // objects in no order of their subjects
	b := func(i int) int { return 1 + (i*104729/7)%10 }
	for _, strings := range []bool{false, true} {
		bl, add := builderAdding(t)
		for i := range n {
			add(ex("review", i), ex("rating", 1), rdf.Literal(fmt.Sprint(a(i)), rdf.XSDInteger))
			if strings && i%97 == 0 {
				add(ex("review", i), ex("rating", 2), rdf.Literal(fmt.Sprintf("x%d", b(i)), ""))
				continue
			}
			add(ex("review", i), ex("rating", 2), rdf.Literal(fmt.Sprint(b(i)), rdf.XSDInteger))
		}
		ds := FromIndex(bl.Build())
		src := `SELECT ?r ?a ?b WHERE { ?r <http://ex.org/rating1> ?a ; <http://ex.org/rating2> ?b FILTER(?a > ?b && ?b >= 5.0e0) }`
		e, q, _ := planFiltered(t, ds, src)
		bgp := firstOp[*algebra.BGP](q.Op)
		if got := e.scanModeOf(bgp, varset{}); got != scanNarrowed {
			t.Errorf("strings %v: scan mode %d, want %d (the range of ?b read in subject order)", strings, got, scanNarrowed)
		}
		if o := e.plan(bgp, varset{}); bgp.Triples[o[0]].P.Term.Value != "http://ex.org/rating2" {
			t.Errorf("strings %v: the join starts from %s", strings, bgp.Triples[o[0]].P.Term.Value)
		}
		want := map[string]bool{}
		for i := range n {
			if !(strings && i%97 == 0) && a(i) > b(i) && b(i) >= 5 {
				want[fmt.Sprintf("%s %d %d", ex("review", i).Value, a(i), b(i))] = true
			}
		}
		for _, opt := range []Options{{}, {MaxMemory: 64 << 10}} {
			res, err := Run(context.Background(), ds, q, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != len(want) {
				t.Fatalf("strings %v, budget %d: %d rows, want %d", strings, opt.MaxMemory, len(res.Rows), len(want))
			}
			for _, r := range res.Rows {
				if k := r[0].Value + " " + r[1].Value + " " + r[2].Value; !want[k] {
					t.Fatalf("strings %v, budget %d: unexpected row %s", strings, opt.MaxMemory, k)
				}
			}
		}
	}
}

// TestMatchRunAnswersAnyOrder: a probe answered from a predicate's rows in subject order (matchRun) gives the rows a
// search of the index gives, whether the subjects ascend (as a star read in subject order probes them), repeat,
// go back, or have no rows, with the object free or bound.
func TestMatchRunAnswersAnyOrder(t *testing.T) {
	b, add := builderAdding(t)
	const n = 3000
	for i := range n {
		if i%3 == 0 {
			continue // subjects without the predicate
		}
		for j := range 1 + i%4 {
			add(ex("s", i), ex("p", 0), rdf.Literal(fmt.Sprint((i*7+j*13)%50), rdf.XSDInteger))
		}
		add(ex("s", i), ex("q", 0), ex("o", i))
	}
	ds := FromIndex(b.Build())
	g := ds.Default[0]
	dict := ds.Dict
	p := dict.Lookup(ex("p", 0))
	c := &probeCursor{run: g.SubjectRows(p)}
	r := rand.New(rand.NewPCG(5, 6))
	var subjects []ID
	for i := 0; i < n; i += 1 + r.IntN(3) {
		subjects = append(subjects, dict.Lookup(ex("s", i)))
	}
	for range 500 { // and some in no order
		subjects = append(subjects, dict.Lookup(ex("s", r.IntN(n))))
	}
	for k, s := range subjects {
		if s == 0 {
			continue
		}
		o := ID(0)
		if k%5 == 0 {
			o = dict.Lookup(rdf.Literal(fmt.Sprint(r.IntN(50)), rdf.XSDInteger))
		}
		got, want := c.matchRun(s, o), g.Match(s, p, o)
		if got.Len() != want.Len() {
			t.Fatalf("probe %d (subject %d, object %d): %d rows, want %d", k, s, o, got.Len(), want.Len())
		}
		for i := range got.Len() {
			gs, gp, gO := got.At(i)
			ws, wp, wo := want.At(i)
			if gs != ws || gp != wp || gO != wo {
				t.Fatalf("probe %d: row %d is (%d %d %d), want (%d %d %d)", k, i, gs, gp, gO, ws, wp, wo)
			}
		}
	}
}

// TestPlanSmallJoinMeasuresNothing: a join the planner prices under smallJoin (the reviews of one product) keeps
// the greedy order without measuring its filter's conjuncts on samples of the index (conjunctShare), which cost a
// fifth of q08 at 10 M; a join from a wide range still measures them. The answers are the brute-force ones.
func TestPlanSmallJoinMeasuresNothing(t *testing.T) {
	b, add := builderAdding(t)
	const n = 3000
	for r := range n {
		add(ex("review", r), ex("reviewFor", 0), ex("product", r%500))
		add(ex("review", r), ex("title", 0), rdf.String(fmt.Sprint("t", r)))
		lang := "en"
		if r%3 == 0 {
			lang = "de"
		}
		add(ex("review", r), ex("text", 0), rdf.LangString(fmt.Sprint("x", r), lang))
	}
	ds := FromIndex(b.Build())
	for _, c := range []struct {
		object  string
		measure bool
		want    int
	}{
		{`<http://ex.org/product7>`, false, 4},
		{`?product`, true, n - n/3},
	} {
		src := `SELECT * WHERE { ?review <http://ex.org/reviewFor0> ` + c.object + ` ; <http://ex.org/title0> ?title ;
			<http://ex.org/text0> ?text FILTER(langMatches(lang(?text), "EN")) }`
		e, _, rows := planFiltered(t, ds, src)
		if len(rows) != c.want {
			t.Errorf("%s: %d solutions, want %d", c.object, len(rows), c.want)
		}
		if measured := len(e.conjShares) > 0; measured != c.measure {
			t.Errorf("%s: conjuncts measured %v, want %v", c.object, measured, c.measure)
		}
	}
}

// scansBySubject reports whether plan chose, for x with bound, to read its first pattern in subject order (the
// tests' question; the engine asks scanModeOf which way).
func (e *evaluator) scansBySubject(x *algebra.BGP, bound varset) bool {
	return e.scanModeOf(x, bound) != scanNone
}
