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
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// hashJoinData is a graph of offers (a0: a product, 0–2 of them; b0: a vendor or a number; c0: a product or a
// string, sometimes) and of vendors (d0: a country), in which many offers share a product, so two stars joined on
// the product are a large join.
func hashJoinData(t *testing.T, n int) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(14, 2))
	b, add := builderAdding(t)
	for i := range 6 {
		add(ex("v", i), ex("d", 0), ex("k", i%3)) // the vendors' countries
	}
	for i := range n {
		s := ex("s", i)
		for range r.IntN(3) {
			add(s, ex("a", 0), ex("p", r.IntN(25)))
		}
		for range 1 + r.IntN(2) {
			if r.IntN(4) == 0 {
				add(s, ex("b", 0), rdf.Literal(fmt.Sprint(r.IntN(8)), rdf.XSDInteger))
			} else {
				add(s, ex("b", 0), ex("v", r.IntN(6)))
			}
		}
		switch r.IntN(3) {
		case 0:
			add(s, ex("c", 0), ex("p", r.IntN(25)))
		case 1:
			add(s, ex("c", 0), rdf.String(fmt.Sprint(r.IntN(5))))
		}
	}
	return FromIndex(b.Build())
}

// runHash runs src with the hash join forced (mode > 0), refused (< 0) or decided by the plans (0), and reports
// how many hash joins built their table.
func runHash(t *testing.T, ds *Dataset, src string, mode int, maxMem int64) (*Result, int, int, error) {
	t.Helper()
	built, refused := 0, 0
	res, err := runText(t, ds, src, Options{hashJoin: mode, MaxMemory: maxMem, onHashJoin: func(ok bool) {
		if ok {
			built++
		} else {
			refused++
		}
	}})
	return res, built, refused, err
}

// matchBindJoin answers q (its prefix : the http://ex.org/ of hashJoinData) with the hash join forced and as bind
// joins, and checks the two give the same solutions (in the same order under ORDER BY); it returns how many hash
// tables the forced run built.
func matchBindJoin(t *testing.T, ds *Dataset, q string) int {
	t.Helper()
	src := "PREFIX : <http://ex.org/> " + q
	want, _, _, err := runHash(t, ds, src, -1, 0)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	got, built, _, err := runHash(t, ds, src, 1, 0)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if strings.Contains(q, "ORDER BY") && !slices.Equal(resultRows(got), resultRows(want)) {
		t.Errorf("%s: ordered solutions differ", q)
	}
	if g, w := sortedResult(got), sortedResult(want); !slices.Equal(g, w) {
		t.Errorf("%s: %d solutions, bind join %d", q, len(g), len(w))
	}
	return built
}

// TestHashJoinMatchesBindJoin evaluates BGPs of two stars as hash joins and as bind joins: the same solutions (the
// hash join's come in another order). The queries join on one and two variables, stars and stars with their
// vendors' star (linked by subject) on two variables, repeat a variable within a star
// and across the stars' predicates, filter each star alone and both together (with comparisons that fail by error
// on IRIs), read variables the BGP never binds, and sit under OPTIONAL, DISTINCT, COUNT and ORDER BY; random
// BGPs of two stars over three predicates and a variable predicate follow.
func TestHashJoinMatchesBindJoin(t *testing.T) {
	ds := hashJoinData(t, 250)
	queries := []string{
		`SELECT * { ?x :a0 ?p ; :b0 ?v . ?y :a0 ?p ; :b0 ?v FILTER(!sameTerm(?x, ?y)) }`,
		`SELECT (COUNT(*) AS ?n) { ?x :a0 ?p ; :b0 ?v . ?y :a0 ?p ; :b0 ?v }`,
		`SELECT * { ?x :a0 ?p . ?y :c0 ?p }`,
		`SELECT * { ?x :a0 ?p ; :c0 ?p . ?y :a0 ?p }`,
		`SELECT * { ?x :a0 ?p ; :b0 ?v FILTER(?v < 5) . ?y :c0 ?p ; :b0 ?w FILTER(?w > ?v) }`,
		`SELECT * { ?x :a0 ?p ; :b0 ?v . ?y :c0 ?p FILTER(?v != <http://ex.org/v1> && STR(?y) > STR(?x)) }`,
		`SELECT ?x ?y ?z { ?x :a0 ?p . ?y :c0 ?p FILTER(!BOUND(?z)) }`,
		`SELECT ?x ?y ?z { ?x :a0 ?p . ?y :c0 ?p FILTER(BOUND(?z)) }`,
		`SELECT * { ?x :a0 ?p . ?y :c0 ?p OPTIONAL { ?y :b0 ?v } }`,
		`SELECT DISTINCT ?p ?v { ?x :a0 ?p ; :b0 ?v . ?y :a0 ?p ; :b0 ?v }`,
		`SELECT ?x ?y { ?x :a0 <http://ex.org/p3> ; :b0 ?v . ?y :b0 ?v ; :a0 ?p } ORDER BY ?x ?y`,
		`SELECT * { ?x ?q ?p . ?y ?q ?p FILTER(?q != :a0 && ?x != ?y) }`,
		`SELECT * { ?x :a0 ?p ; :b0 ?v . ?v :d0 ?k . ?y :c0 ?p ; :b0 ?u . ?u :d0 ?k FILTER(?v != ?u) }`,
		`SELECT * { ?x :b0 ?v . ?v :d0 ?k . ?y :b0 ?u . ?u :d0 ?k FILTER(?x != ?y) }`,
		`SELECT * { ?x :a0 ?p . ?y :c0 ?p . ?y :b0 ?x }`, // the stars share a subject: not two stars
		`SELECT * { ?x :a0 ?p . ?p :b0 ?v }`,             // joined on a subject: not two stars
	}
	r := rand.New(rand.NewPCG(7, 7))
	preds := []string{":a0", ":b0", ":c0", "?q"}
	objs := []string{"?p", "?v", "?w", "<http://ex.org/v2>"}
	for len(queries) < 54 {
		var pats [2][]string
		for i, s := range []string{"?x", "?y"} {
			for range 1 + r.IntN(3) {
				pats[i] = append(pats[i], fmt.Sprintf("%s %s %s .", s, preds[r.IntN(len(preds))], objs[r.IntN(len(objs))]))
			}
		}
		x, y := strings.Join(pats[0], " "), strings.Join(pats[1], " ")
		shared := false // a product of the stars says nothing of the join and only takes time
		for _, v := range []string{"?p ", "?v ", "?w ", "?q "} {
			shared = shared || strings.Contains(x, v) && strings.Contains(y, v)
		}
		if shared {
			queries = append(queries, "SELECT * { "+x+" "+y+" }")
		}
	}
	took := 0
	for _, q := range queries {
		built := matchBindJoin(t, ds, q)
		if built > 0 {
			took++
		}
		if strings.Contains(q, ":d0 ?k . ?y") && built == 0 {
			t.Errorf("%s: two stars with their vendors not evaluated as a hash join", q)
		}
		if strings.Contains(q, "not two stars") && built > 0 {
			t.Errorf("%s: evaluated as a hash join", q)
		}
	}
	if took < len(queries)/2 {
		t.Fatalf("only %d of %d queries took the hash join", took, len(queries))
	}
}

// TestHashJoinChosen: the planner takes the hash join for two large stars joined on a shared object, where the
// bind join reaches each second star through that object (h27's shape), and leaves a join probed by a constant
// alone.
func TestHashJoinChosen(t *testing.T) {
	ds := hashJoinData(t, 3000)
	for src, want := range map[string]bool{
		`SELECT (COUNT(*) AS ?n) { ?x <http://ex.org/a0> ?p ; <http://ex.org/b0> ?v . ?y <http://ex.org/a0> ?p ; <http://ex.org/b0> ?v FILTER(!sameTerm(?x, ?y)) }`: true,
		`SELECT * { <http://ex.org/s1> <http://ex.org/a0> ?p . ?y <http://ex.org/c0> ?p }`:                                                                          false,
	} {
		checkHashChosen(t, ds, src, want)
	}
}

// TestHashJoinBudget: a build side whose table would pass the query's memory budget, or its MaxRows, is refused,
// and the bind join answers instead, with the same solutions; a budget that holds it builds it.
func TestHashJoinBudget(t *testing.T) {
	ds := hashJoinData(t, 3000)
	src := `SELECT (COUNT(*) AS ?n) { ?x <http://ex.org/a0> ?p ; <http://ex.org/b0> ?v . ?y <http://ex.org/a0> ?p ; <http://ex.org/b0> ?v }`
	want, _, _, err := runHash(t, ds, src, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, built, refused, err := runHash(t, ds, src, 1, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	if built != 0 || refused != 1 {
		t.Fatalf("64 KiB budget: %d tables built, %d refused; want the table refused", built, refused)
	}
	if !slices.Equal(resultRows(got), resultRows(want)) {
		t.Fatalf("refused hash join: %v, bind join %v", resultRows(got), resultRows(want))
	}
	res, err := runText(t, ds, src, Options{hashJoin: 1, MaxRows: 1500, onHashJoin: func(ok bool) {
		if ok {
			t.Errorf("MaxRows 1 500: the table was built")
		}
	}})
	if err != nil || !slices.Equal(resultRows(res), resultRows(want)) {
		t.Fatalf("MaxRows 1 500: %v, %v against %v", err, resultRows(res), resultRows(want))
	}
	got, built, refused, err = runHash(t, ds, src, 1, 0)
	if err != nil || built != 1 || refused != 0 || !slices.Equal(resultRows(got), resultRows(want)) {
		t.Fatalf("default budget: %v, %d built, %d refused, %v against %v", err, built, refused, resultRows(got), resultRows(want))
	}
}

// TestHashJoinCancel: a query cancelled once the table is built stops within the join with the context's error.
func TestHashJoinCancel(t *testing.T) {
	ds := hashJoinData(t, 3000)
	src := `SELECT (COUNT(*) AS ?n) { ?x <http://ex.org/a0> ?p ; <http://ex.org/b0> ?v . ?y <http://ex.org/a0> ?p ; <http://ex.org/c0> ?w }`
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	built := 0
	_, err = Run(ctx, ds, q, Options{hashJoin: 1, onHashJoin: func(ok bool) {
		if ok {
			built++
			cancel()
		}
	}})
	if built != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("%d tables built, %v; want one and context.Canceled", built, err)
	}
}

// TestHashJoinUnderSplitScan: a BGP that heads a chain the split scan may share with workers (forkRoot registers
// it) is evaluated as a hash join on the query's goroutine, with the same solutions as the bind join split over
// workers, and the chain's other operators (OPTIONAL, FILTER, a Join with a path) still see every solution once.
func TestHashJoinUnderSplitScan(t *testing.T) {
	ds := hashJoinData(t, 800)
	cores := NewCores(4)
	for _, q := range []string{
		`SELECT * { ?x :a0 ?p ; :b0 ?v . ?y :a0 ?p ; :b0 ?v FILTER(!sameTerm(?x, ?y)) }`,
		`SELECT * { ?x :a0 ?p ; :b0 ?v . ?y :c0 ?p OPTIONAL { ?y :b0 ?u } }`,
		`SELECT * { ?x :a0 ?p . ?y :c0 ?p . ?x :b0/:d0? ?k }`,
	} {
		src := "PREFIX : <http://ex.org/> " + q
		want, err := runText(t, ds, src, Options{hashJoin: -1})
		if err != nil {
			t.Fatal(err)
		}
		split := forkOptions(cores)
		split.hashJoin = -1
		bySplit, err := runText(t, ds, src, split)
		if err != nil {
			t.Fatal(err)
		}
		built := 0
		hashed := forkOptions(cores)
		hashed.hashJoin, hashed.onHashJoin = 1, func(ok bool) {
			if ok {
				built++
			}
		}
		got, err := runText(t, ds, src, hashed)
		if err != nil {
			t.Fatal(err)
		}
		if built == 0 {
			t.Errorf("%s: no hash join", q)
		}
		w := sortedResult(want)
		if g := sortedResult(got); !slices.Equal(g, w) {
			t.Errorf("%s: %d solutions, bind join %d", q, len(g), len(w))
		}
		if g := sortedResult(bySplit); !slices.Equal(g, w) {
			t.Errorf("%s: split bind join %d solutions, bind join %d", q, len(g), len(w))
		}
	}
}

// checkHashChosen runs src planned freely and with the hash join barred: the first must take the hash join exactly
// when want says so, and both must give the same solutions.
func checkHashChosen(t *testing.T, ds *Dataset, src string, want bool) {
	t.Helper()
	got, built, _, err := runHash(t, ds, src, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if (built > 0) != want {
		t.Errorf("%s: hash join %v, want %v", src, built > 0, want)
	}
	ref, _, _, err := runHash(t, ds, src, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sortedResult(got), sortedResult(ref)) {
		t.Errorf("%s: solutions differ from the bind join's", src)
	}
}
