package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestObjectIndexMatchesBruteForce probes "?r reviewer ?p" with the people in the order of their ages, which is no
// order of their ids, so the probes land far apart and the pattern moves to a table of objects (objectIndex); the
// answers of a join and of a NOT EXISTS with a FILTER inside are compared with ones worked out by brute force.
func TestObjectIndexMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	ex := func(f string, a ...any) rdf.Term { return rdf.IRI("http://ex.org/" + fmt.Sprintf(f, a...)) }
	b, add := builderAdding(t)
	const people, reviews = 5000, 20000
	// Ages are numbers held in their ids, which ascend with the values: "?p age ?age" gives the people in the
	// order of their ages, no order of their ids.
	for i := range people {
		add(ex("p%d", i), ex("age"), rdf.Literal(fmt.Sprint(r.IntN(1e6)), rdf.XSDInteger))
	}
	reviewer := map[int][]int{} // person -> ratings of their reviews
	for i := range reviews {
		p, rating := r.IntN(people+50), r.IntN(10) // some reviewers have no name
		add(ex("r%d", i), ex("reviewer"), ex("p%d", p))
		add(ex("r%d", i), ex("rating"), rdf.Literal(fmt.Sprint(rating), rdf.XSDInteger))
		reviewer[p] = append(reviewer[p], rating)
	}
	ds := FromIndex(b.Build())
	run := func(src string) ([]string, *evaluator) {
		q := mustParse(t, src)
		// The NOT EXISTS is evaluated per row (no set of its pattern's solutions, existsBySet), whose probes
		// this test is about.
		e := newEvaluator(context.Background(), ds, q, Options{semiJoin: -1})
		var out []string
		if err := e.run(q.Op, e.newRow(), func(row []ID) bool {
			out = append(out, e.t.term(row[e.slot("p")]).String())
			return true
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out, e
	}
	var wantJoin, wantNone []string
	for p := range people {
		who := ex("p%d", p).String()
		for range reviewer[p] {
			wantJoin = append(wantJoin, who)
		}
		if !slices.ContainsFunc(reviewer[p], func(x int) bool { return x < 3 }) {
			wantNone = append(wantNone, who)
		}
	}
	slices.Sort(wantJoin)
	slices.Sort(wantNone)
	for _, c := range []struct {
		src  string
		want []string
	}{
		{`SELECT ?p { ?p <http://ex.org/age> ?age . ?r <http://ex.org/reviewer> ?p }`, wantJoin},
		{`SELECT ?p { ?p <http://ex.org/age> ?age FILTER NOT EXISTS { ?r <http://ex.org/reviewer> ?p ; <http://ex.org/rating> ?x FILTER(?x < 3) } }`, wantNone},
	} {
		got, e := run(c.src)
		if !slices.Equal(got, c.want) {
			t.Errorf("%.60s: %d rows, want %d", c.src, len(got), len(c.want))
		}
		if len(e.byObject) == 0 {
			t.Errorf("%.60s: no table of objects was built", c.src)
		}
	}
}

// TestObjectTableKeptAcrossQueries: probes of "?s p o" by objects in no order, too few in one query to earn a
// table of p's objects (objectIndex), earn the graph's table over two queries; the second adopts it once the
// graph has it, and a third from its first probe. Every probe answers as the index's search does.
func TestObjectTableKeptAcrossQueries(t *testing.T) {
	b, add := builderAdding(t)
	const objects, per = 20000, 10 // 200 000 rows of p: a table is earned after 781 far probes
	for i := range objects {
		for j := range per {
			add(ex("s", i*per+j), ex("p", 0), ex("o", i))
		}
	}
	ds := FromIndex(b.Build())
	g := ds.Default[0]
	p := ds.Dict.Lookup(ex("p", 0))
	q, err := parser.Parse(`SELECT * { ?s ?p ?o }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	query := func(probes int) (adoptedAt int) {
		e := newEvaluator(context.Background(), ds, q, Options{})
		c := &probeCursor{}
		adoptedAt = -1
		for k := range probes {
			o := ds.Dict.Lookup(ex("o", r.IntN(objects)))
			got, want := e.probe(c, g, 0, p, o), g.Match(0, p, o)
			if !slices.Equal(got.Rows, want.Rows) {
				t.Fatalf("probe %d: %d rows, want %d", k, got.Len(), want.Len())
			}
			if adoptedAt < 0 && c.obj != nil {
				adoptedAt = k
			}
		}
		return adoptedAt
	}
	if at := query(600); at >= 0 {
		t.Fatalf("the first query's 600 probes had a table from probe %d, before any was earned", at)
	}
	if at := query(600); at < 0 {
		t.Fatal("the graph kept no table after two queries' probes earned it")
	}
	if at := query(10); at != 0 {
		t.Fatalf("a later query adopted the kept table at probe %d, not its first", at)
	}
}
