package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestValuesHashJoinMatchesBindJoin evaluates VALUES joined to a BGP as a hash join (the VALUES rows joined to the
// triples that read them, kept; the other triples read once and looked up) and as a bind join per VALUES row: the
// same solutions. VALUES of one to three columns, with UNDEF, terms the data lacks, repeated rows and literals;
// BGPs split on a subject (h15's shape), on an object, on two variables, with a variable predicate; FILTERs reading
// both sides, one side, a VALUES column only; under COUNT, GROUP BY, DISTINCT, OPTIONAL and ORDER BY; random ones
// follow.
func TestValuesHashJoinMatchesBindJoin(t *testing.T) {
	ds := hashJoinData(t, 120)
	queries := []string{
		`SELECT * { VALUES ?k { :k0 :k2 } ?v :d0 ?k . ?x :b0 ?v ; :a0 ?p }`,
		`SELECT ?l (COUNT(?x) AS ?n) { VALUES (?k ?l) { (:k0 "zero") (:k1 "one") (:k9 "none") } ?v :d0 ?k . ?x :b0 ?v ; :c0 ?c FILTER(STR(?c) < ?l) } GROUP BY ?l`,
		`SELECT * { VALUES (?k ?l) { (:k0 "0") (UNDEF "1") (:k1 UNDEF) (:k0 "0") } ?v :d0 ?k . ?x :b0 ?v ; :c0 ?c FILTER(?c = ?l || !BOUND(?l)) }`,
		`SELECT * { VALUES (?k ?a ?b) { (:k0 1 2) (:k2 3 4) } ?v :d0 ?k . ?x :b0 ?v . ?y :b0 ?v FILTER(?a + ?b > 4 && ?x != ?y) }`,
		`SELECT * { VALUES ?p { :p1 :p3 :p5 } ?x :a0 ?p ; :b0 ?v . ?y :b0 ?v ; :c0 ?c }`,
		`SELECT * { VALUES ?p { :p1 :p3 :p5 } ?x :a0 ?p ; :b0 ?v ; :c0 ?c . ?y :b0 ?v ; :c0 ?c }`,
		`SELECT * { VALUES ?k { :k1 } ?v :d0 ?k . ?x ?q ?v . ?x :a0 ?p }`,
		`SELECT * { VALUES ?n { 3 5 "7" } ?x :b0 ?n . ?x :a0 ?p . ?y :c0 ?p }`,
		`SELECT DISTINCT ?k ?p { VALUES ?k { :k0 :k1 :k2 } ?v :d0 ?k . ?x :b0 ?v ; :a0 ?p }`,
		`SELECT * { VALUES ?k { :k0 :k1 } ?v :d0 ?k . ?x :b0 ?v OPTIONAL { ?x :c0 ?c } }`,
		`SELECT ?x ?k { VALUES ?k { :k0 :k1 } ?v :d0 ?k . ?x :b0 ?v ; :a0 ?p } ORDER BY ?x ?k`,
		`SELECT * { VALUES ?k { :k0 } ?v :d0 ?k . ?x :a0 ?p }`,      // nothing shared: not split
		`SELECT * { VALUES ?k { :k0 } ?v :d0 ?k ; :b0 ?k }`,         // every triple reads the VALUES: not split
		`SELECT * { VALUES ?k { } ?v :d0 ?k . ?x :b0 ?v ; :a0 ?p }`, // no rows
	}
	r := rand.New(rand.NewPCG(16, 9))
	preds := []string{":a0", ":b0", ":c0", ":d0", "?q"}
	nodes := []string{"?x", "?y", "?v", "?p", "?k"}
	values := []string{
		`VALUES ?k { :k0 :k1 }`, `VALUES (?v ?k) { (:v1 :k1) (:v2 UNDEF) (:v9 :k0) }`, `VALUES ?p { :p2 :p4 :p2 }`,
		`VALUES (?x ?w) { (:s3 1) (:s4 2) (:s5 UNDEF) }`,
	}
	for len(queries) < 64 {
		var pats []string
		for range 2 + r.IntN(3) {
			pats = append(pats, fmt.Sprintf("%s %s %s .", nodes[r.IntN(len(nodes))], preds[r.IntN(len(preds))], nodes[r.IntN(len(nodes))]))
		}
		queries = append(queries, "SELECT * { "+values[r.IntN(len(values))]+" "+strings.Join(pats, " ")+" }")
	}
	took := 0
	for _, q := range queries {
		built := matchBindJoin(t, ds, q)
		if built > 0 {
			took++
		}
		if strings.Contains(q, "not split") && built > 0 {
			t.Errorf("%s: evaluated as a hash join", q)
		}
	}
	if took < len(queries)/3 {
		t.Fatalf("only %d of %d queries took the hash join", took, len(queries))
	}
}

// TestValuesHashJoinChosen: the planner takes the hash join for a VALUES of countries joined through the vendors of
// those countries to all their offers (h15's shape: the offers are most of the data, reached per VALUES row
// through their vendor), and leaves the bind join where the VALUES reaches a third of the offers.
func TestValuesHashJoinChosen(t *testing.T) {
	ds := hashJoinData(t, 60000)
	for src, want := range map[string]bool{
		`PREFIX : <http://ex.org/> SELECT ?k (COUNT(?x) AS ?n) { VALUES ?k { :k0 :k1 :k2 } ?v :d0 ?k . ?x :b0 ?v ; :a0 ?p } GROUP BY ?k`: true,
		`PREFIX : <http://ex.org/> SELECT ?k (COUNT(?x) AS ?n) { VALUES ?k { :k0 :k2 :k1 } ?v :d0 ?k . ?x :b0 ?v ; :c0 ?p } GROUP BY ?k`: true,
		`PREFIX : <http://ex.org/> SELECT ?k (COUNT(?x) AS ?n) { VALUES ?k { :k0 } ?v :d0 ?k . ?x :b0 ?v ; :a0 ?p } GROUP BY ?k`:         false,
	} {
		checkHashChosen(t, ds, src, want)
	}
}

// TestValuesHashJoinBudget: a table that would pass the query's memory budget is refused and the bind join
// answers, with the same solutions.
func TestValuesHashJoinBudget(t *testing.T) {
	ds := hashJoinData(t, 3000)
	// A build row holds ?x and the five columns: 1 024 of them are more than 64 KiB.
	src := `PREFIX : <http://ex.org/> SELECT * { VALUES (?p ?a ?b ?e ?f) { (:p1 1 2 3 4) (:p2 5 6 7 8) } ?x :a0 ?p ; :b0 ?v }`
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
	if !slices.Equal(sortedResult(got), sortedResult(want)) {
		t.Fatalf("refused hash join: %d solutions, bind join %d", len(resultRows(got)), len(resultRows(want)))
	}
}
