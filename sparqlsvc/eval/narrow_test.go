package eval

import (
	"fmt"
	"strings"
	"testing"
)

// TestNarrowedBindingsMatchIndependent: an operand that mentions an outer variable it does not bind where it reads
// it (a FILTER in a nested OPTIONAL, in a MINUS, a BIND reading it) is evaluated with only the bindings it binds
// itself substituted (narrowedExec), and must give what evaluating it on its own and joining gives (plainOptions:
// independent). The data's values are of every kind (mixedValue: NaN, -0, big numbers, tags, blank nodes,
// non-ASCII text), persons without a name or country or with two, reviews without a reviewer.
func TestNarrowedBindingsMatchIndependent(t *testing.T) {
	queries := []string{
		// h158's shape: the innermost FILTER reads ?c, bound at the top, out of its scope (unbound there).
		`SELECT * WHERE { ?p <http://ex.org/name> ?n . ?p <http://ex.org/country> ?c .
		   OPTIONAL { ?r <http://ex.org/by> ?p . ?r <http://ex.org/day> ?d .
		     OPTIONAL { ?r <http://ex.org/pub> ?s . FILTER(!BOUND(?c) || ?s != ?c) } } }`,
		// The FILTER compares with the out-of-scope variable: an error, so the inner OPTIONAL never matches.
		`SELECT * WHERE { ?p <http://ex.org/country> ?c .
		   OPTIONAL { ?r <http://ex.org/by> ?p . OPTIONAL { ?r <http://ex.org/rating> ?x FILTER(?x < ?c) } } }`,
		// A left-join condition reading the top and an inner one reading the middle level.
		`SELECT * WHERE { ?p <http://ex.org/type> ?ty . BIND(2 AS ?lim)
		   OPTIONAL { ?r <http://ex.org/by> ?p ; <http://ex.org/rating> ?x . FILTER(?x < ?lim)
		     OPTIONAL { ?r <http://ex.org/pub> ?s . ?s <http://ex.org/country> ?sc . FILTER(?sc != ?ty || ?x = ?lim) } } }`,
		// MINUS whose right side reads an outer variable in an OPTIONAL's FILTER.
		`SELECT ?p ?c ?r WHERE { ?p <http://ex.org/country> ?c . ?r <http://ex.org/by> ?p .
		   OPTIONAL { ?r <http://ex.org/day> ?d . MINUS { ?r <http://ex.org/rating> ?x OPTIONAL { ?r <http://ex.org/pub> ?s FILTER(?s = ?c) } } } }`,
		// A BIND in the nested group reads the outer variable (unbound there), and the group binds ?c itself in
		// some solutions only.
		`SELECT * WHERE { ?p <http://ex.org/name> ?n .
		   OPTIONAL { ?r <http://ex.org/by> ?p . OPTIONAL { ?r <http://ex.org/pub> ?c } BIND(COALESCE(?n, "none") AS ?m) } }`,
		// Duplicates: the outer pattern repeats a person, the nested group has several matches per review.
		`SELECT ?p ?r ?s WHERE { ?p <http://ex.org/country> ?c . ?q <http://ex.org/country> ?c .
		   OPTIONAL { ?r <http://ex.org/by> ?p . OPTIONAL { ?r <http://ex.org/pub> ?s FILTER(?q != ?s) } } }`,
	}
	for seed := uint64(1); seed <= 6; seed++ {
		ds := reviewData(t, seed, 300)
		for i, src := range queries {
			want, e := matchPlainWithOne(t, ds, src, func(o *Options) { o.noNarrow = false }, fmt.Sprintf("seed %d query %d: narrowed bindings", seed, i))
			if e.narrowRuns == 0 && i != 4 {
				t.Errorf("seed %d query %d: no operand was narrowed: the test does not test it", seed, i)
			}
			if seed == 1 && strings.Count(want, "\n") < 10 {
				t.Errorf("query %d: %d solutions: the data does not test it", i, strings.Count(want, "\n")+1)
			}
		}
	}
}
