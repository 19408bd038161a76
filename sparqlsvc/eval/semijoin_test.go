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
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestExistsSemiJoinMatchesBruteForce answers EXISTS and NOT EXISTS from a set of the pattern's solutions
// (existsBySet, forced at the first row) and by substitution per row (the set forbidden), and compares both with
// answers worked out by brute force: in the default graph and per named graph (GRAPH ?g), with a filter inside the
// pattern, a filter that reads an outer variable the pattern does not bind (which must not use the set), an outer
// variable left unbound by OPTIONAL (another key), two key variables, a UNION whose branches bind different
// variables (not every solution binds the key), and an EXISTS nested in the pattern. It also checks which queries
// used a set, so a semi-join that is silently never used fails too.
func TestExistsSemiJoinMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	ex := func(f string, a ...any) rdf.Term { return rdf.IRI("http://ex.org/" + fmt.Sprintf(f, a...)) }
	type review struct{ product, rating, reviewer int } // rating 0: none
	const products, users = 120, 15
	graphs := []string{"", "g1", "g2"}
	reviews := map[string][]review{}
	owner := map[string]map[int]int{} // product -> its owner, for some products
	limit := map[int]int{}
	b := index.NewBuilder()
	add := graphAdder(t, b)
	for p := range products {
		limit[p] = 1 + r.IntN(10)
	}
	for _, g := range graphs {
		owner[g] = map[int]int{}
		for p := range products {
			add(g, ex("p%d", p), ex("type"), ex("Product"))
			add(g, ex("p%d", p), ex("limit"), rdf.Literal(fmt.Sprint(limit[p]), rdf.XSDInteger))
			if r.IntN(2) == 0 {
				owner[g][p] = r.IntN(users)
				add(g, ex("p%d", p), ex("owner"), ex("u%d", owner[g][p]))
			}
		}
		for i := range 400 {
			rv := review{product: r.IntN(products), reviewer: r.IntN(users)}
			if r.IntN(5) > 0 {
				rv.rating = 1 + r.IntN(10)
			}
			reviews[g] = append(reviews[g], rv)
			id := ex("r%s_%d", g, i)
			add(g, id, ex("reviewFor"), ex("p%d", rv.product))
			add(g, id, ex("reviewer"), ex("u%d", rv.reviewer))
			if rv.rating > 0 {
				add(g, id, ex("rating"), rdf.Literal(fmt.Sprint(rv.rating), rdf.XSDInteger))
			}
		}
	}
	ds := FromIndex(b.Build())

	// want lists "<g> <p>" (or "<p>" in the default graph) for the products of g for which some review of theirs
	// satisfies ok, or none does (not), with the owner's IRI added when withOwner (an empty column when unbound).
	want := func(gs []string, not, withOwner bool, ok func(g string, p int, rv review) bool) []string {
		var out []string
		for _, g := range gs {
			for p := range products {
				found := slices.ContainsFunc(reviews[g], func(rv review) bool { return rv.product == p && ok(g, p, rv) })
				if found == not {
					continue
				}
				row := fmt.Sprintf("<http://ex.org/p%d>", p)
				if withOwner {
					if u, has := owner[g][p]; has {
						row += fmt.Sprintf(" <http://ex.org/u%d>", u)
					} else {
						row += " -"
					}
				}
				if g != "" {
					row = "<http://ex.org/" + g + "> " + row
				}
				out = append(out, row)
			}
		}
		slices.Sort(out)
		return out
	}
	run := func(src string, semiJoin int) ([]string, int) {
		res, e := semiRun(t, ds, src, Options{semiJoin: semiJoin})
		return resultLines(res), e.semiSets
	}
	def := []string{""}
	named := []string{"g1", "g2"}
	rated := func(min int) func(string, int, review) bool {
		return func(_ string, _ int, rv review) bool { return rv.rating >= min }
	}
	const pre = `PREFIX : <http://ex.org/> `
	cases := []struct {
		src  string
		want []string
		sets bool // whether the forced run must answer from a set
	}{
		{pre + `SELECT ?p { ?p :type :Product FILTER EXISTS { ?r :reviewFor ?p ; :rating ?x FILTER(?x >= 9) } }`,
			want(def, false, false, rated(9)), true},
		{pre + `SELECT ?p { ?p :type :Product FILTER NOT EXISTS { ?r :reviewFor ?p ; :rating ?x FILTER(?x = 10) } }`,
			want(def, true, false, func(_ string, _ int, rv review) bool { return rv.rating == 10 }), true},
		// The filter reads ?lim, which the pattern does not bind: substitution gives it the row's value, a join
		// would not, so no set of keys may be used; a comparison of a pattern value with it is answered by each
		// key's greatest ?x (existsextreme.go).
		{pre + `SELECT ?p { ?p :type :Product ; :limit ?lim FILTER EXISTS { ?r :reviewFor ?p ; :rating ?x FILTER(?x > ?lim) } }`,
			want(def, false, false, func(_ string, p int, rv review) bool { return rv.rating > limit[p] }), true},
		{pre + `SELECT ?p { ?p :type :Product ; :limit ?lim FILTER EXISTS { ?r :reviewFor ?p ; :rating ?x FILTER(?x > ?lim || ?x = 1) } }`,
			want(def, false, false, func(_ string, p int, rv review) bool {
				return rv.rating > 0 && (rv.rating > limit[p] || rv.rating == 1)
			}), false},
		// ?u is unbound where the product has no owner: those rows have ?p alone as their key.
		{pre + `SELECT ?p ?u { ?p :type :Product OPTIONAL { ?p :owner ?u } FILTER NOT EXISTS { ?r :reviewFor ?p ; :reviewer ?u } }`,
			want(def, true, true, func(g string, p int, rv review) bool {
				u, has := owner[g][p]
				return !has || rv.reviewer == u
			}), true},
		{pre + `SELECT ?p ?u { ?p :type :Product ; :owner ?u FILTER EXISTS { ?r :reviewFor ?p ; :reviewer ?u ; :rating ?x } }`,
			wantOwned(want(def, false, true, func(g string, p int, rv review) bool {
				u, has := owner[g][p]
				return has && rv.reviewer == u && rv.rating > 0
			})), true},
		// Not every solution of a UNION binds ?u: a row's key (?p, ?u) cannot be looked up in the set.
		{pre + `SELECT ?p ?u { ?p :type :Product ; :owner ?u FILTER EXISTS { { ?r :reviewFor ?p ; :rating 10 } UNION { ?r :reviewFor ?p ; :reviewer ?u } } }`,
			wantOwned(want(def, false, true, func(g string, p int, rv review) bool {
				u, has := owner[g][p]
				return has && (rv.rating == 10 || rv.reviewer == u)
			})), false},
		// A review without a rating, by way of a nested NOT EXISTS keyed on the review.
		{pre + `SELECT ?p { ?p :type :Product FILTER EXISTS { ?r :reviewFor ?p FILTER NOT EXISTS { ?r :rating ?x } } }`,
			want(def, false, false, func(_ string, _ int, rv review) bool { return rv.rating == 0 }), true},
		{pre + `SELECT ?g ?p { GRAPH ?g { ?p :type :Product FILTER EXISTS { ?r :reviewFor ?p ; :rating ?x FILTER(?x >= 8) } } }`,
			want(named, false, false, rated(8)), true},
		{pre + `SELECT ?g ?p { GRAPH ?g { ?p :type :Product FILTER NOT EXISTS { ?r :reviewFor ?p ; :rating ?x FILTER(?x <= 2) } } }`,
			want(named, true, false, func(_ string, _ int, rv review) bool { return rv.rating > 0 && rv.rating <= 2 }), true},
	}
	for _, c := range cases {
		if len(c.want) == 0 {
			t.Fatalf("%s: the brute force found nothing", c.src)
		}
		for _, mode := range []int{1, -1} {
			got, sets := run(c.src, mode)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s (semiJoin %d): %d rows, want %d\n got %q\nwant %q", c.src, mode, len(got), len(c.want), got, c.want)
			}
			if mode > 0 && (sets > 0) != c.sets {
				t.Errorf("%s: %d sets built, want them: %v", c.src, sets, c.sets)
			}
			if mode < 0 && sets > 0 {
				t.Errorf("%s: sets built where they were forbidden", c.src)
			}
		}
	}
}

// semiRun answers the SELECT query src over ds with opt (the semi-join forced, forbidden or decided, …), and returns
// the evaluator for its counts.
func semiRun(t *testing.T, ds *Dataset, src string, opt Options) (*Result, *evaluator) {
	t.Helper()
	q := mustParse(t, src)
	e := newEvaluator(context.Background(), ds, q, opt)
	c := &collector{res: &Result{}}
	if err := e.selectQuery(q, c); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return c.res, e
}

// resultLines writes res's rows a line each, their terms separated by spaces ("-" for an unbound one), sorted.
func resultLines(res *Result) []string {
	var out []string
	for _, row := range res.Rows {
		var cols []string
		for _, v := range row {
			if v.IsZero() {
				cols = append(cols, "-")
			} else {
				cols = append(cols, v.String())
			}
		}
		out = append(out, strings.Join(cols, " "))
	}
	slices.Sort(out)
	return out
}

// wantOwned keeps the rows of products with an owner (a query that requires ?u).
func wantOwned(rows []string) []string {
	var out []string
	for _, r := range rows {
		if !strings.HasSuffix(r, " -") {
			out = append(out, r)
		}
	}
	return out
}

// TestNumberCompareMatchesKeys compares numberCompare, which compares two numbers held in their ids as integers at
// the larger scale, with the general comparison of their parsed keys, for integers and decimals of every inline
// scale, each operator, and a variable or a constant on either side.
func TestNumberCompareMatchesKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	lit := func() rdf.Term {
		v := r.IntN(2001) - 1000
		switch r.IntN(3) {
		case 0:
			return rdf.Literal(fmt.Sprint(v/10), rdf.XSDInteger)
		case 1:
			return rdf.Literal(fmt.Sprint(v/10), rdf.XSDDecimal)
		}
		return rdf.Literal(fmt.Sprintf("%.*f", 1+r.IntN(3), float64(v)/100), rdf.XSDDecimal)
	}
	q, err := parser.Parse(`SELECT * { ?a ?b ?c }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), FromIndex(index.NewBuilder().Build()), q, Options{})
	row := e.newRow()
	checked := 0
	for range 20000 {
		a, b := lit(), lit()
		ia, okA := index.InlineID(a)
		ib, okB := index.InlineID(b)
		if !okA || !okB {
			continue
		}
		for _, op := range []string{"=", "!=", "<", "<=", ">", ">="} {
			ka, kb := builtinKey(a), builtinKey(b)
			want, werr := compareKeys(op, &ka, &kb)
			if werr != nil {
				t.Fatalf("%v %s %v: %v", a, op, b, werr)
			}
			row[e.slot("a")], row[e.slot("c")] = ia, ib
			for _, args := range [][2]algebra.Expr{{algebra.Var("a"), algebra.Var("c")}, {algebra.Var("a"), algebra.Constant{Term: b}}, {algebra.Constant{Term: a}, algebra.Var("c")}} {
				c := &algebra.Call{Func: op, Args: args[:]}
				got, ok := e.numberCompare(e.cmpSiteOf(c), row)
				if !ok || builtin.Boolean(got) != want {
					t.Fatalf("%v %s %v (%v): %v %v, want %v", a, op, b, args, got, ok, want)
				}
				checked++
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d comparisons checked", checked)
	}
}

func builtinKey(t rdf.Term) builtin.Key { return builtin.NewKey(t) }

// TestTrialWatchStretch: a trial on pace to finish within trialStretch times its budget goes on past the budget
// until its end; one whose pace projects more is overdue once a quarter of its budget has been used, and one whose
// pace projects more than trialFar times it once a sixteenth has.
func TestTrialWatchStretch(t *testing.T) {
	const t0 = 1000
	w := &trialWatch{start: t0, budget: 100_000, total: 100}
	at := func(k int) int { return t0 + k*1000 }
	w.done = 90 // 110 000 steps for 90 of 100 rows: 122 000 projected
	if now := at(110); w.overdue(now) || now >= w.end() {
		t.Fatalf("a trial 90 %% done after 110 000 steps of a 100 000 budget was stopped (overdue %v, end %d)", w.overdue(now), w.end()-t0)
	}
	if now := at(151); now < w.end() {
		t.Fatalf("end %d, want 150 000", w.end()-t0)
	}
	w.done = 10 // 30 000 steps for 10 of 100 rows: 300 000 projected
	if !w.overdue(at(30)) {
		t.Fatal("a trial 10 % done after 30 000 steps of a 100 000 budget is not overdue")
	}
	if w.overdue(at(20)) {
		t.Fatal("a trial projecting twice its budget is judged before a quarter of it")
	}
	// Far over its budget, a trial is judged once a sixteenth of it is used (trialFar).
	w.done = 1 // 7 000 steps for 1 of 100 rows: 700 000 projected
	if !w.overdue(at(7)) {
		t.Fatal("a trial 1 % done after 7 000 steps of a 100 000 budget is not overdue")
	}
	if w.overdue(at(5)) {
		t.Fatal("a trial is judged before a sixteenth of its budget")
	}
	w.done = 2 // 7 000 steps for 2 of 100 rows: 350 000 projected, under trialFar budgets
	if w.overdue(at(7)) {
		t.Fatal("a trial projecting 3.5 times its budget is judged before a quarter of it")
	}
}

// TestExistsDecidedByWork: whether an EXISTS is answered from a set is decided by counted work, so the same query
// decides the same way in every run, whatever the machine's load: a pattern that is cheap on its own (few reviews
// rate 10, each product has many) gets its set; one whose solutions are many while each row finds its first at
// once (any review of the product) is evaluated per row; and an EXISTS nested in a NOT EXISTS, tested once per
// offer of each vendor, expects the tests of all vendors, not of one (expected), and gets its set. Each answer is
// compared with the set forbidden. With the decision by wall time (session 11) no set was built on data this small
// (the rows never took a millisecond); with the nested EXISTS's estimate per vendor its trial's budget was too small.
func TestExistsDecidedByWork(t *testing.T) {
	ex := func(f string, a ...any) rdf.Term { return rdf.IRI("http://ex.org/" + fmt.Sprintf(f, a...)) }
	b, add := builderAdding(t)
	// items adds n subjects of type kind, each with per items linked to it by link and holding a number by value.
	items := func(kind, item, link, value string, n, per int, val func(k, i int) int) {
		for k := range n {
			add(ex("%s%d", kind, k), ex("type"), ex("%s", kind))
			for i := range per {
				id := ex("%s%d_%d", item, k, i)
				add(id, ex("%s", link), ex("%s%d", kind, k))
				add(id, ex("%s", value), rdf.Literal(fmt.Sprint(val(k, i)), rdf.XSDInteger))
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	items("Product", "r", "reviewFor", "rating", 1000, 20, func(int, int) int {
		if r.IntN(200) == 0 {
			return 10
		}
		return 1 + r.IntN(9)
	})
	items("Vendor", "o", "vendor", "price", 100, 20, func(k, i int) int {
		if k%7 == 0 && i == 3 {
			return 1 + r.IntN(10)
		}
		return 11 + r.IntN(1000)
	})
	ds := FromIndex(b.Build())
	run := func(src string, semiJoin int) ([]string, *evaluator) {
		res, e := semiRun(t, ds, src, Options{semiJoin: semiJoin})
		var out []string
		for _, row := range res.Rows {
			out = append(out, fmt.Sprint(row))
		}
		slices.Sort(out)
		return out, e
	}
	const pre = `PREFIX : <http://ex.org/> `
	cases := []struct {
		src  string
		sets []bool // per EXISTS, outermost first: whether it answers from a set
	}{
		{pre + `SELECT ?p { ?p :type :Product FILTER EXISTS { ?r :reviewFor ?p ; :rating ?x FILTER(?x = 10) } }`, []bool{true}},
		{pre + `SELECT ?p { ?p :type :Product FILTER EXISTS { ?r :reviewFor ?p } }`, []bool{false}},
		{pre + `SELECT ?v { ?v :type :Vendor FILTER NOT EXISTS { ?o :vendor ?v FILTER NOT EXISTS { ?o :price ?x FILTER(?x > 10) } } }`, []bool{false, true}},
		// The key is a product (a dictionary id) or a price (an inline number): the set of every triple's object
		// holds more than a bitmap of the dictionary would take, so the ids move to bits and the numbers stay
		// in the map (addOne); the forced set must answer as the rows do.
		{pre + `SELECT ?y { { ?y :type :Product } UNION { ?o :price ?y } FILTER EXISTS { ?r ?q ?y } }`, nil},
		{pre + `SELECT ?y { { ?y :type :Product } UNION { ?o :price ?y } FILTER NOT EXISTS { ?r :reviewFor|:rating ?y } }`, nil},
		// Stars (starSet): ~100 reviews rate 10, so the key's 20 000 rows are probed by subject; 2 200 rate 9 or
		// more, so they are read in order against the bitmap; a constant narrows the subjects in the third.
		{pre + `SELECT ?p { ?p :type :Product FILTER EXISTS { ?r :reviewFor ?p ; :rating ?x FILTER(?x = 10) } }`, nil},
		{pre + `SELECT ?p { ?p :type :Product FILTER NOT EXISTS { ?r :rating ?x ; :reviewFor ?p FILTER(?x >= 9) } }`, nil},
		{pre + `SELECT ?p { ?p :type :Product FILTER NOT EXISTS { ?r :rating 9 ; :reviewFor ?p } }`, nil},
	}
	for _, c := range cases {
		want, _ := run(c.src, -1)
		if len(want) == 0 {
			t.Fatalf("%s: no answer to compare", c.src)
		}
		if c.sets == nil {
			got, e := run(c.src, 1)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %d rows from the set, want %d", c.src, len(got), len(want))
			}
			var bits, rest int
			star := false
			for _, m := range e.existsMemos {
				star = star || m.join.star
				for _, set := range m.join.sets {
					bits += len(set.bits)
					rest += len(set.one)
				}
			}
			if strings.Contains(c.src, "|") && (bits == 0 || rest == 0) {
				t.Errorf("%s: %d words of bits and %d ids in the map, want both", c.src, bits, rest)
			}
			if star != strings.Contains(c.src, ":reviewFor ?p") {
				t.Errorf("%s: read as a star %v", c.src, star)
			}
			continue
		}
		for range 2 {
			got, e := run(c.src, 0)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %d rows, want %d", c.src, len(got), len(want))
			}
			var sets []bool
			var ms []*existsMemo
			for x, m := range e.existsMemos {
				depth := 0
				for y := range e.existsMemos {
					if y != x && containsExists(y.Pattern, x) {
						depth++
					}
				}
				for len(ms) <= depth {
					ms = append(ms, nil)
				}
				ms[depth] = m
			}
			for _, m := range ms {
				sets = append(sets, m != nil && len(m.join.sets) > 0)
			}
			if !slices.Equal(sets, c.sets) {
				t.Errorf("%s: sets %v, want %v", c.src, sets, c.sets)
			}
		}
	}
}

// containsExists reports whether x occurs in op's expressions, at any depth.
func containsExists(op algebra.Op, x *algebra.Exists) bool {
	found := false
	algebra.Walk(op, func(o algebra.Op) bool {
		if f, ok := o.(*algebra.Filter); ok {
			for _, fx := range f.Exprs {
				algebra.WalkExpr(fx, func(y algebra.Expr) bool {
					if y == algebra.Expr(x) {
						found = true
					}
					if z, ok := y.(*algebra.Exists); ok && containsExists(z.Pattern, x) {
						found = true
					}
					return !found
				})
			}
		}
		return !found
	})
	return found
}

// TestExistsSetBits adds dictionary ids and inline numbers to a one-key set in random order and checks every id
// against a plain map: before the bitmap, at its switch (ids already in the map move to it, the others stay) and
// after, and that the bytes addOne reports add up to what the set holds.
func TestExistsSetBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const top = 50000
	inline, _ := index.InlineID(rdf.Literal("7", rdf.XSDInteger))
	for _, c := range []struct{ n, expect int }{{10, 0}, {200, 0}, {3000, 0}, {10, 5000}, {3000, 20}} {
		n := c.n
		s := &existsSet{slots: []int{0}, one: map[ID]struct{}{}}
		want := map[ID]bool{}
		// A set told to expect at least as many keys as the switch takes starts as the bitmap (reserve).
		bytes := s.reserve(c.expect, top)
		if reserved := c.expect*mapEntryBytes*bitsShare > (top/64+1)*8; reserved != (s.bits != nil) || reserved != (bytes > 0) {
			t.Errorf("%d expected: bits %v, %d bytes", c.expect, s.bits != nil, bytes)
		}
		for range n {
			id := ID(1 + r.IntN(top))
			if r.IntN(4) == 0 {
				id = inline + ID(r.IntN(100))
			}
			want[id] = true
			bytes += s.addOne(id, top)
		}
		if (n >= 200 || c.expect >= 5000) != (s.bits != nil) { // the bitmap of 50 000 ids takes 6 256 bytes, the map 24 per id: 33 ids
			t.Errorf("%d ids: bits %v", n, s.bits != nil)
		}
		if held := int64(len(s.bits))*8 + int64(len(s.one))*mapEntryBytes; bytes != held {
			t.Errorf("%d ids: addOne reported %d bytes, the set holds %d", n, bytes, held)
		}
		for id := range ID(top + 1) {
			for _, x := range []ID{id, inline + id%200} {
				if got, ok := s.has([]ID{x}); !ok || got != want[x] {
					t.Fatalf("%d ids: has(%d) = %v, %v, want %v", n, x, got, ok, want[x])
				}
			}
		}
	}
}
