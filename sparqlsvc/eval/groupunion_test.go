package eval

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// unionGroupData is BSBM's shape for h157 at a small size: a publisher on every kind of subject (so that the
// reviews' ratings are the smaller start and unionSpread spreads the join), reviews with zero, one or two of each
// of three rating properties whose values are mixedValue's (numbers of every type, NaN, -0, big integers, tagged
// and non-ASCII strings, blank nodes, IRIs), some reviews with two sites or a literal for a site.
func unionGroupData(t *testing.T, seed uint64) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed*3+1))
	b, add := builderAdding(t)
	counts := []int{0, 0, 1, 1, 1, 1, 2}
	for i := range 300 {
		s := ex("r", i)
		add(s, exIRI("pub"), ex("site", r.IntN(6)))
		if r.IntN(8) == 0 {
			add(s, exIRI("pub"), pick(r, ex("site", r.IntN(6)), rdf.LangString("Straße", "de"), rdf.String("")))
		}
		for _, p := range []string{"rating1", "rating2", "rating3"} {
			for range counts[r.IntN(len(counts))] {
				add(s, exIRI("%s", p), mixedValue(r))
			}
		}
		add(s, exIRI("by"), ex("person", r.IntN(40)))
	}
	for i := range 1500 { // the other subjects with a publisher: offers, products, persons
		add(ex("o", i), exIRI("pub"), ex("site", r.IntN(6)))
	}
	return FromIndex(b.Build())
}

// TestGroupUnionMatchesPlain: GROUP BYs over a UNION, taken branch by branch with constant BINDs bound in the
// input (groupUnion), give what the union evaluated as written gives (plainOptions), on one goroutine and on two
// with small chunks (a branch's star split and its groups merged), over unionGroupData. The shapes: h157's (an
// aggregate per site over a join with a UNION of two properties, BIND(1/2 AS ?kind), SUM(IF(?kind = 1, 1, 0)),
// MIN and MAX of mixed values), three branches counted per kind, branches binding different variables or none,
// constants that are tagged or non-ASCII strings, empty strings, IRIs and an error (1/0: left unbound), a BIND
// reading a variable (kept in its branch), COUNT(DISTINCT *), a ?kind that may come in bound from a VALUES outside
// the group; a FILTER over the UNION is not taken apart.
func TestGroupUnionMatchesPlain(t *testing.T) {
	const prefix = "PREFIX ex: <http://ex.org/> "
	queries := []struct {
		src   string
		taken int // 1: groupUnion takes it apart, 0: it does not, -1: either (a plan's choice)
	}{
		{`SELECT ?site (COUNT(?v) AS ?n) (AVG(?v) AS ?mean) (MIN(?v) AS ?low) (MAX(?v) AS ?high)
			(SUM(IF(?kind = 1, 1, 0)) AS ?first) WHERE { ?r ex:pub ?site .
			{ ?r ex:rating1 ?v BIND(1 AS ?kind) } UNION { ?r ex:rating2 ?v BIND(2 AS ?kind) } } GROUP BY ?site`, 1},
		{`SELECT ?kind ?site (COUNT(*) AS ?n) WHERE { ?r ex:pub ?site .
			{ ?r ex:rating1 ?v BIND("r"@en AS ?kind) } UNION { ?r ex:rating2 ?v BIND("日本"@JA AS ?kind) }
			UNION { ?r ex:rating3 ?v BIND(ex:by AS ?kind) } } GROUP BY ?kind ?site`, 1},
		{`SELECT ?site (COUNT(?a) AS ?na) (COUNT(?b) AS ?nb) (COUNT(*) AS ?n) (SAMPLE(?b) AS ?sb) WHERE { ?r ex:pub ?site .
			{ ?r ex:rating1 ?v BIND("naïve" AS ?a) } UNION { ?r ex:rating2 ?v BIND("" AS ?b) } UNION { ?r ex:rating3 ?v } }
			GROUP BY ?site`, 1},
		{`SELECT ?k (COUNT(?v) AS ?n) (SUM(?v) AS ?s) WHERE {
			{ ?r ex:rating1 ?v BIND(1/0 AS ?k) } UNION { ?r ex:rating2 ?v BIND(1.5 AS ?k) } } GROUP BY ?k`, 1},
		{`SELECT ?k (COUNT(*) AS ?n) (MAX(?v) AS ?m) WHERE {
			{ ?r ex:rating1 ?v BIND(STR(?v) AS ?k) } UNION { ?r ex:rating2 ?v BIND(-0.0 AS ?k) } } GROUP BY ?k`, 1},
		{`SELECT ?site (COUNT(DISTINCT *) AS ?n) (COUNT(DISTINCT ?kind) AS ?kinds) WHERE { ?r ex:pub ?site .
			{ ?r ex:rating1 ?v BIND(1 AS ?kind) } UNION { ?r ex:rating1 ?v BIND(1 AS ?kind) } UNION { ?r ex:rating2 ?v BIND(2.0 AS ?kind) } }
			GROUP BY ?site`, 1},
		{`SELECT ?kind ?n WHERE { VALUES ?kind { 1 2 } { SELECT ?kind (COUNT(*) AS ?n) WHERE {
			{ ?r ex:rating1 ?v BIND(1 AS ?kind) } UNION { ?r ex:rating2 ?v BIND(2 AS ?kind) } } GROUP BY ?kind } }`, -1},
		{`SELECT ?site (COUNT(*) AS ?n) WHERE { ?r ex:pub ?site . { ?r ex:rating1 ?v } UNION { ?r ex:by ?v } }
			GROUP BY ?site`, -1},
		{`SELECT ?k (COUNT(*) AS ?n) WHERE { { ?r ex:rating1 ?v BIND(1 AS ?k) } UNION { ?r ex:rating2 ?v BIND(2 AS ?k) }
			FILTER(?v != 3) } GROUP BY ?k`, 0},
	}
	for seed := uint64(1); seed <= 5; seed++ {
		ds := unionGroupData(t, seed)
		for i, q := range queries {
			want, err := runSorted(ds, prefix+q.src, plainOptions(), true)
			if err != nil {
				t.Fatalf("seed %d query %d: %v", seed, i, err)
			}
			if seed == 1 && strings.Count(want, "\n") < 1 {
				t.Errorf("query %d: %d solutions: the data does not test it", i, strings.Count(want, "\n")+1)
			}
			// On two cores with small chunks too, so that a branch's star is split and its groups merged.
			forked, err := runSorted(ds, prefix+q.src, forkOptions(NewCores(2)), false)
			if err != nil {
				t.Fatalf("seed %d query %d: %v", seed, i, err)
			}
			got, e, err := runSortedEval(ds, prefix+q.src, Options{}, false)
			if err != nil {
				t.Fatalf("seed %d query %d: %v", seed, i, err)
			}
			if got != want || forked != want {
				t.Errorf("seed %d query %d: branch by branch differs\n got %.800s\nforked %.800s\nwant %.800s", seed, i, got, forked, want)
			}
			taken := false
			for _, b := range e.unionGroups {
				taken = taken || b != nil
			}
			if q.taken >= 0 && taken != (q.taken == 1) {
				t.Errorf("seed %d query %d: taken %v, want %v", seed, i, taken, q.taken)
			}
		}
	}
}
