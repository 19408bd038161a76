package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestSubMemoMatchesWritten: subqueries written twice under other variable names (subMemo) give the solutions, in
// the same order and multiplicity, that evaluating each as written gives (noSubMemo), and past a small bound on
// the kept ids (replayMax) as well. Twins: h92's shape (an average above the average of the averages, the second
// two deep), GROUP BYs under ORDER BY, LIMIT and OFFSET, averages of decimals that must stay exact, groups of a
// pattern the data lacks (COUNT 0, AVG of nothing), averages over OPTIONAL values some groups leave unbound (an
// error: unbound), a twin in each named graph (GRAPH ?g) and twins joined on a shared variable. Look-alikes that
// must not share: a constant differs, a LIMIT differs, a variable tied to another. Where twins share, the
// evaluation takes fewer steps than as written (evaluating each twin, the old behaviour, fails that).
func TestSubMemoMatchesWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 4))
	b, add := builderAddingCopies(t, r)
	for v := range 40 {
		add(ex("v", v), ex("country", 0), ex("C", r.IntN(4)))
	}
	for o := range 600 {
		s := ex("o", o)
		add(s, ex("vendor", 0), ex("v", r.IntN(45))) // vendors 40–44 have no country
		if r.IntN(5) > 0 {
			// Decimals whose sums a float would round: 0.1, 0.2, … with many digits.
			add(s, ex("price", 0), rdf.Literal(fmt.Sprintf("%d.%d", r.IntN(100), 1+r.IntN(9)), rdf.XSDDecimal))
		}
		if r.IntN(4) == 0 {
			add(s, ex("days", 0), rdf.Literal(fmt.Sprint(r.IntN(10)), rdf.XSDInteger))
		}
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> `
	avgBy := func(v, o, p, c string) string {
		return fmt.Sprintf(`{ SELECT ?%s (AVG(?%s) AS ?a%s) { ?%s :country0 :C%s . ?%s :vendor0 ?%s ; :price0 ?%s } GROUP BY ?%s }`,
			v, p, v, v, c, o, v, p, v)
	}
	shared := []string{
		// h92's shape: each vendor's average above the average of the averages, the second two deep.
		pre + `SELECT ?vendor ?avendor ?all { ` + avgBy("vendor", "offer", "price", "1") + `
			{ SELECT (AVG(?av) AS ?all) { ` + avgBy("v", "o", "p", "1") + ` } }
			FILTER(?avendor > ?all) } ORDER BY DESC(?avendor) ?vendor`,
		// The same twice, side by side: a cross product of a subquery with its twin.
		pre + `SELECT ?x ?ax ?y ?ay { ` + avgBy("x", "o1", "p1", "2") + avgBy("y", "o2", "p2", "2") + ` }`,
		// Twins joined on their key, under ORDER BY, LIMIT and OFFSET.
		pre + `SELECT ?k ?n ?m { { SELECT ?k (COUNT(?o) AS ?n) { ?o :vendor0 ?k } GROUP BY ?k ORDER BY DESC(?n) ?k LIMIT 7 OFFSET 2 }
			{ SELECT ?k2 (COUNT(?o2) AS ?m) { ?o2 :vendor0 ?k2 } GROUP BY ?k2 ORDER BY DESC(?m) ?k2 LIMIT 7 OFFSET 2 } FILTER(?k2 = ?k) }`,
		// Groups of a pattern the data lacks: one group without keys (COUNT 0, AVG 0), none with keys.
		pre + `SELECT ?n ?a ?n2 ?a2 { { SELECT (COUNT(?o) AS ?n) (AVG(?p) AS ?a) { ?o :vendor0 :v1 ; :price0 ?p ; :none0 ?z } }
			{ SELECT (COUNT(?q) AS ?n2) (AVG(?r) AS ?a2) { ?q :vendor0 :v1 ; :price0 ?r ; :none0 ?z2 } } }`,
		pre + `SELECT * { { SELECT ?k (COUNT(?o) AS ?n) { ?o :none0 ?k } GROUP BY ?k } UNION
			{ SELECT ?k2 (COUNT(?o2) AS ?n2) { ?o2 :none0 ?k2 } GROUP BY ?k2 } }`,
		// Averages over an OPTIONAL's values: a group with an unbound one has no average; COUNT counts the bound.
		pre + `SELECT ?v ?a ?c ?w ?b { { SELECT ?v (AVG(?d) AS ?a) (COUNT(?d) AS ?c) { ?o :vendor0 ?v OPTIONAL { ?o :days0 ?d } } GROUP BY ?v }
			{ SELECT ?w (AVG(?e) AS ?b) (COUNT(?e) AS ?c2) { ?o2 :vendor0 ?w OPTIONAL { ?o2 :days0 ?e } } GROUP BY ?w } FILTER(?v = ?w) }`,
		// A twin in each named graph: each graph's solutions are its own.
		pre + `SELECT ?g ?v ?av ?all { GRAPH ?g { ` + avgBy("v", "o", "p", "0") + `
			{ SELECT (MAX(?ax) AS ?all) { ` + avgBy("x", "o2", "p2", "0") + ` } } } } ORDER BY ?g ?v`,
	}
	notShared := []string{
		// A constant differs (country C1 against C2).
		pre + `SELECT ?vendor ?avendor ?all { ` + avgBy("vendor", "offer", "price", "1") + `
			{ SELECT (AVG(?av) AS ?all) { ` + avgBy("v", "o", "p", "2") + ` } } FILTER(?avendor > ?all) }`,
		// A LIMIT differs.
		pre + `SELECT ?k ?k2 { { SELECT ?k (COUNT(?o) AS ?n) { ?o :vendor0 ?k } GROUP BY ?k ORDER BY DESC(?n) ?k LIMIT 3 }
			{ SELECT ?k2 (COUNT(?o2) AS ?m) { ?o2 :vendor0 ?k2 } GROUP BY ?k2 ORDER BY DESC(?m) ?k2 LIMIT 4 } }`,
		// Two variables of one tied into one in the other (the object is the subject's own vendor).
		pre + `SELECT * { { SELECT ?k (COUNT(?o) AS ?n) { ?o :vendor0 ?k ; :price0 ?p } GROUP BY ?k }
			{ SELECT ?k2 (COUNT(?o2) AS ?m) { ?o2 :vendor0 ?k2 ; :price0 ?o2 } GROUP BY ?k2 } }`,
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	for i, src := range append(slices.Clone(shared), notShared...) {
		want, written := runTopWith(t, ds, src, false, Options{noSubMemo: true})
		got, steps := runTopWith(t, ds, src, false, Options{})
		ordered := strings.Contains(src, "} ORDER BY")
		if !slices.Equal(sorted(got), sorted(want)) || ordered && !slices.Equal(got, want) {
			t.Fatalf("query %d:\n got %d %q\nwant %d %q", i, len(got), got, len(want), want)
		}
		if len(want) == 0 && i < 3 {
			t.Fatalf("query %d has no solutions: %s", i, src)
		}
		cut, _ := runTopWith(t, ds, src, false, Options{replayMax: 2})
		if !slices.Equal(sorted(cut), sorted(want)) {
			t.Fatalf("query %d past the bound:\n got %q\nwant %q", i, cut, want)
		}
		switch {
		case i < 3 && 4*steps > 3*written:
			t.Errorf("query %d: %d steps, %d as written: the twins were evaluated each", i, steps, written)
		case i >= len(shared) && steps != written:
			t.Errorf("query %d: %d steps, %d as written: look-alikes shared", i, steps, written)
		}
	}
}

// TestSubMemoKeepsVolatileApart: twin subqueries that call BNODE, RAND, UUID or STRUUID are evaluated each as
// written, since each evaluation must give its own fresh values (§17.4.2.9: a blank node distinct from those made
// for other solutions); replaying the first twin's kept solutions gave the second the same blank nodes.
func TestSubMemoKeepsVolatileApart(t *testing.T) {
	b := index.NewBuilder()
	for o := range 30 {
		q := rdf.Triple(rdf.IRI(fmt.Sprintf("http://ex.org/o%d", o)), rdf.IRI("http://ex.org/vendor"),
			rdf.IRI(fmt.Sprintf("http://ex.org/v%d", o%5)))
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> `
	for _, f := range []string{"BNODE()", "STRUUID()", "UUID()", "RAND()"} {
		src := pre + `SELECT ?k ?b ?b2 { { SELECT ?k (` + f + ` AS ?b) (COUNT(?o) AS ?n) { ?o :vendor ?k } GROUP BY ?k }
			{ SELECT ?k2 (` + f + ` AS ?b2) (COUNT(?o2) AS ?m) { ?o2 :vendor ?k2 } GROUP BY ?k2 } FILTER(?k = ?k2) }`
		q, err := parser.Parse(src, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := newEvaluator(context.Background(), ds, q, Options{})
		if e.subRoots != nil {
			t.Errorf("%s: twins calling it share their solutions", f)
		}
		rows := 0
		err = e.run(q.Op, e.newRow(), func(row []ID) bool {
			rows++
			if row[e.slot("b")] == row[e.slot("b2")] {
				t.Errorf("%s: the twins gave one value for one group: %v", f, row)
			}
			return true
		})
		if err != nil || rows != 5 {
			t.Fatalf("%s: %d rows, %v", f, rows, err)
		}
	}
}

// TestSubMemoLiteralSpacesInExists: two subqueries that differ only in the spaces of a string literal inside a
// FILTER EXISTS are not twins. The canonical form printed an EXISTS's pattern on one line by collapsing every run
// of white space, the literal's own included, so "a  b" and "a b" read the same and the second subquery replayed
// the first one's count.
func TestSubMemoLiteralSpacesInExists(t *testing.T) {
	b := index.NewBuilder()
	add := graphAdder(t, b)
	for i := range 6 {
		add("", exIRI("s%d", i), exIRI("p"), exIRI("o%d", i))
		label := "a b"
		if i%3 == 0 {
			label = "a  b"
		}
		add("", exIRI("s%d", i), exIRI("label"), rdf.String(label))
	}
	ds := FromIndex(b.Build())
	src := `PREFIX : <http://ex.org/> SELECT ?n1 ?n2 {
		{ SELECT (COUNT(*) AS ?n1) { ?s :p ?o FILTER EXISTS { ?s :label "a b" } } }
		{ SELECT (COUNT(*) AS ?n2) { ?s2 :p ?o2 FILTER EXISTS { ?s2 :label "a  b" } } } }`
	want, _ := runTopWith(t, ds, src, false, Options{noSubMemo: true})
	got, _ := runTopWith(t, ds, src, false, Options{})
	if len(want) != 1 || !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestSubMemoInContexts: twins met inside GRAPH ?g and GRAPH <g>, as an OPTIONAL's right side, under VALUES that
// bind their key or a variable they do not mention, with the key bound by the incoming row, inside FILTER EXISTS
// and MINUS, give what each evaluated as written gives.
func TestSubMemoInContexts(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 9))
	b := index.NewBuilder()
	add := graphAdder(t, b)
	for o := range 300 {
		for _, g := range []string{"", "g1", "g2"} {
			if g != "" && r.IntN(3) == 0 {
				continue
			}
			add(g, exIRI("o%d", o), exIRI("vendor"), exIRI("v%d", r.IntN(12)))
			if r.IntN(4) > 0 {
				add(g, exIRI("o%d", o), exIRI("price"), intLit(r.IntN(50)))
			}
		}
	}
	for v := range 10 {
		add("", exIRI("v%d", v), exIRI("country"), exIRI("c%d", v%3))
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> `
	twin := func(k, o, n string) string {
		return fmt.Sprintf(`{ SELECT ?%s (COUNT(?%s) AS ?%s) { ?%s :vendor ?%s ; :price ?p%s } GROUP BY ?%s }`, k, o, n, o, k, o, k)
	}
	total := func(o, n string) string {
		return fmt.Sprintf(`{ SELECT (SUM(?p%s) AS ?%s) { ?%s :price ?p%s } }`, o, n, o, o)
	}
	for i, src := range []string{
		`SELECT * { GRAPH ?g { ` + twin("k", "o", "n") + ` } ` + twin("k2", "o2", "n2") + ` FILTER(?k = ?k2) }`,
		`SELECT * { GRAPH ?g { ` + twin("k", "o", "n") + ` } GRAPH ?h { ` + twin("k2", "o2", "n2") + ` } FILTER(?k = ?k2) }`,
		`SELECT * { GRAPH :g1 { ` + total("o", "n") + ` } GRAPH :g2 { ` + total("o2", "n2") + ` } ` + total("o3", "n3") + ` }`,
		`SELECT * { ?k :country ?c OPTIONAL { ` + twin("k", "o", "n") + ` } OPTIONAL { ` + twin("k", "o2", "n2") + ` } }`,
		`SELECT * { ?v :country ?c OPTIONAL { ` + total("o", "n") + ` } ` + total("o2", "n2") + ` }`,
		`SELECT * { VALUES ?k { :v1 :v3 :v99 } ` + twin("k", "o", "n") + twin("k", "o2", "n2") + ` }`,
		`SELECT * { VALUES ?c { :c1 :c2 } ` + twin("k", "o", "n") + twin("k2", "o2", "n2") + ` FILTER(?k = ?k2) }`,
		`SELECT * { ?k :country :c1 . ` + twin("k", "o", "n") + ` ` + twin("k", "o2", "n2") + ` }`,
		`SELECT * { ?k :country ?c FILTER EXISTS { ` + twin("k", "o", "n") + ` FILTER(?n > 2) } ` + twin("k", "o2", "n2") + ` }`,
		`SELECT * { ` + twin("k", "o", "n") + ` MINUS { ` + twin("k", "o2", "n2") + ` FILTER(?n2 > 19) } }`,
	} {
		src = pre + src
		want, _ := runTopWith(t, ds, src, false, Options{noSubMemo: true})
		got, _ := runTopWith(t, ds, src, false, Options{})
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("query %d %s:\n got %d %q\nwant %d %q", i, src, len(got), got, len(want), want)
		}
		if len(want) == 0 {
			t.Errorf("query %d has no solutions", i)
		}
	}
}
