package eval

import (
	"strings"
	"testing"
)

// TestUnionSpreadMatchesPlainJoins: a BGP joined with a UNION of BGPs under BINDs, evaluated as a union of merged
// BGPs (unionSpread), gives what the bind join from the BGP gives (plainJoins), over values of every kind
// (mixedValue), reviews with several reviewers or none, persons with several countries. The second query's BIND
// reads a variable only the BGP binds (unbound in its branch, so COALESCE gives "none"): it must not be spread. In the last, ?p comes bound into the OPTIONAL: its BGP alone is
// the smaller start, and the bind join stays.
func TestUnionSpreadMatchesPlainJoins(t *testing.T) {
	queries := []struct {
		src    string
		spread bool
	}{
		{`SELECT * WHERE { ?r <http://ex.org/by> ?p .
		   { ?r <http://ex.org/rating> ?x BIND(1 AS ?k) } UNION { ?p <http://ex.org/country> ?x BIND(STR(?x) AS ?k) } }`, true},
		{`SELECT * WHERE { ?r <http://ex.org/by> ?p .
		   { ?r <http://ex.org/rating> ?x BIND(COALESCE(?p, "none") AS ?k) } UNION { ?p <http://ex.org/country> ?x } }`, false},
		{`SELECT ?k (COUNT(*) AS ?n) (SUM(?x) AS ?s) (SAMPLE(1) AS ?one) WHERE { ?r <http://ex.org/by> ?p .
		   { ?r <http://ex.org/rating> ?x BIND("rating" AS ?k) } UNION { ?p <http://ex.org/country> ?x BIND(?x AS ?k) }
		   UNION { ?p <http://ex.org/type> ?x BIND(?x + 1 AS ?k) } } GROUP BY ?k`, true},
		{`SELECT ?r ?x WHERE { { ?r <http://ex.org/rating> ?x } UNION { ?r <http://ex.org/rating> ?x } .
		   ?r <http://ex.org/by> ?p . FILTER(?x != ?p) }`, true},
		{`SELECT * WHERE { ?p <http://ex.org/name> ?n .
		   OPTIONAL { ?r <http://ex.org/by> ?p . { ?r <http://ex.org/rating> ?x } UNION { ?p <http://ex.org/country> ?x } } }`, false},
	}
	for seed := uint64(1); seed <= 6; seed++ {
		ds := reviewData(t, seed, 300)
		for i, q := range queries {
			want, err := runSorted(ds, q.src, plainOptions(), true)
			if err != nil {
				t.Fatalf("seed %d query %d: %v", seed, i, err)
			}
			if seed == 1 && strings.Count(want, "\n") < 5 {
				t.Errorf("query %d: %d solutions: the data does not test it", i, strings.Count(want, "\n")+1)
			}
			got, e, err := runSortedEval(ds, q.src, Options{}, false)
			if err != nil {
				t.Fatalf("seed %d query %d: %v", seed, i, err)
			}
			if got != want {
				t.Errorf("seed %d query %d: the spread union differs\n got %.600s\nwant %.600s", seed, i, got, want)
			}
			spread := false
			for _, u := range e.spread {
				spread = spread || u != nil
			}
			if spread != q.spread {
				t.Errorf("seed %d query %d: spread %v, want %v", seed, i, spread, q.spread)
			}
		}
	}
}
