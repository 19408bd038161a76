package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// minusNotQueries are MINUS shapes over reviewData (ratings, countries and days of every kind of value, so that
// comparisons err; reviews with no, one or two reviewers; blank nodes; named graphs), each with whether its MINUS
// should be answered as FILTER NOT EXISTS (minusPlanOf, minusAsNotExists) and whether its right operand should have
// an OPTIONAL made an inner join (innerOptionals).
var minusNotQueries = []struct {
	src        string
	not, inner bool
}{
	// h159's shape: the FILTER needs the OPTIONAL's variable bound, and compares it (an error for IRIs, strings).
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:by ?p OPTIONAL { ?r ex:rating ?x } FILTER(BOUND(?x) && ?x <= 2) } }`, true, true},
	// Another nesting of the same: a comparison alone rejects an unbound ?x; the left side another pattern.
	{`SELECT ?p ?c WHERE { ?p ex:country ?c MINUS { ?r ex:by ?p OPTIONAL { ?r ex:rating ?x } FILTER(?x - 1 > 0) } }`, true, true},
	// An unbound ?x passes: no inner join, but still NOT EXISTS (safe with ?p bound).
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:by ?p OPTIONAL { ?r ex:rating ?x } FILTER(!BOUND(?x) && ?r = ex:r3 || ?x > 3) } }`, true, false},
	// Two OPTIONALs under an ||: neither is needed bound.
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:by ?p OPTIONAL { ?r ex:rating ?x } OPTIONAL { ?r ex:day ?d }
	   FILTER(BOUND(?x) && ?x < 0 || BOUND(?d) && isBlank(?d)) } }`, true, false},
	// Both needed bound; and an || whose both sides need ?x.
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:by ?p OPTIONAL { ?r ex:rating ?x } OPTIONAL { ?r ex:day ?d }
	   FILTER(BOUND(?x) && BOUND(?d) && ?x <= ?d) } }`, true, true},
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:by ?p OPTIONAL { ?r ex:rating ?x } OPTIONAL { ?r ex:pub ?s }
	   FILTER(?x = 1 || ?x > 3) } }`, true, true},
	// The first OPTIONAL needed, the second not, and they keep their order over the joined BGP.
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:by ?p OPTIONAL { ?r ex:pub ?s } OPTIONAL { ?r ex:rating ?x }
	   FILTER(?x = 1 && (!BOUND(?s) || isIRI(?s))) } }`, true, true},
	// Two OPTIONALs binding the same variable: the second must not become a join (they share ?x outside the base).
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:by ?p OPTIONAL { ?r ex:rating ?x } OPTIONAL { ?r ex:day ?x }
	   FILTER(BOUND(?x) && isNumeric(?x) && ?x > 3) } }`, true, false},
	// The FILTER reads ?n, which only the left side binds: unbound on the right (an error, nothing removed), so not
	// NOT EXISTS, which would substitute it; the OPTIONAL is still a join of the right side evaluated on its own.
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:by ?p OPTIONAL { ?r ex:rating ?x } FILTER(BOUND(?x) && ?x != ?n) } }`, false, true},
	// No variable in common: nothing removed.
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?r ex:rating ?x OPTIONAL { ?r ex:pub ?s } FILTER(BOUND(?s)) } }`, false, true},
	// The shared variable unbound in some left solutions (an OPTIONAL binds it): not NOT EXISTS.
	{`SELECT ?r ?d ?p WHERE { ?r ex:day ?d OPTIONAL { ?r ex:by ?p } MINUS { ?r2 ex:by ?p OPTIONAL { ?r2 ex:rating ?x } FILTER(BOUND(?x)) } }`, false, true},
	// … and unbound in some right solutions: ?p only in the right side's OPTIONAL, which the FILTER does not need.
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { ?q ex:type ?t OPTIONAL { ?q ex:country ?p } } }`, false, false},
	// Duplicates on the left (a person per name twin) and several matches per left solution on the right.
	{`SELECT ?p ?q WHERE { ?p ex:name ?n . ?q ex:name ?n MINUS { ?r ex:by ?p ; ex:by ?q OPTIONAL { ?r ex:pub ?s } FILTER(BOUND(?s) && !isIRI(?s)) } }`, true, true},
	// Blank nodes in the right side's patterns, and as values (countries, ratings).
	{`SELECT ?p ?c WHERE { ?p ex:country ?c MINUS { _:r ex:by ?p . _:r ex:rating ?x OPTIONAL { ?p ex:type ?t } FILTER(BOUND(?t) && isBlank(?x) = false) } }`, true, true},
	{`SELECT ?r ?x WHERE { ?r ex:rating ?x MINUS { ?q ex:country ?x OPTIONAL { ?q ex:type ?t } FILTER(BOUND(?t)) } }`, true, true},
	// MINUS inside OPTIONAL: its input row binds ?p.
	{`SELECT * WHERE { ?p ex:name ?n OPTIONAL { ?r ex:by ?p MINUS { ?r ex:pub ?s OPTIONAL { ?s ex:country ?c } FILTER(BOUND(?c)) } } }`, true, true},
	// MINUS inside EXISTS: the outer ?p is substituted; with the right side's FILTER reading it, not NOT EXISTS
	// (MINUS's right side does not see it: TestMinusInsideExists).
	{`SELECT ?p ?n WHERE { ?p ex:name ?n FILTER EXISTS { ?r ex:by ?p MINUS { ?r ex:rating ?x OPTIONAL { ?r ex:pub ?s } FILTER(BOUND(?s) && ?x > 0) } } }`, true, true},
	{`SELECT ?p ?n WHERE { ?p ex:name ?n FILTER EXISTS { ?r ex:by ?p MINUS { ?r ex:rating ?x OPTIONAL { ?r ex:pub ?s } FILTER(BOUND(?s) && ?s != ?p) } } }`, false, true},
	{`SELECT ?p ?n WHERE { ?p ex:name ?n FILTER EXISTS { ?y ex:by ?w MINUS { ?r ex:by ?p OPTIONAL { ?r ex:pub ?s } FILTER(BOUND(?s)) } } }`, false, true},
	// In named graphs: the right side in each graph.
	{`SELECT ?g ?r ?d WHERE { GRAPH ?g { ?r ex:day ?d MINUS { ?r ex:by ?p OPTIONAL { ?p ex:country ?c } FILTER(BOUND(?c) && ?c != ex:c1) } } }`, true, true},
	// A right side that is no BGP under the OPTIONALs (a UNION): NOT EXISTS where safe, no inner join.
	{`SELECT ?p ?n WHERE { ?p ex:name ?n MINUS { { ?r ex:by ?p } UNION { ?r ex:pub ?p } OPTIONAL { ?r ex:rating ?x } FILTER(BOUND(?x) && isLiteral(?x) && ?x > 3) } }`, true, false},
}

// TestMinusAsNotExistsMatchesPlain: every query of minusNotQueries answers what MINUS evaluated as written does (its
// right operand held, plainOptions), with the MINUS plans alone switched on and with the default options; and the
// plans taken are those the shapes call for, so that the test tests them.
func TestMinusAsNotExistsMatchesPlain(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		ds := reviewData(t, seed, 400)
		for i, c := range minusNotQueries {
			src := `PREFIX ex: <http://ex.org/> ` + c.src
			want, e := matchPlainWithOne(t, ds, src, func(o *Options) { o.noMinusNot = false }, fmt.Sprintf("seed %d query %d: MINUS plans", seed, i))
			not, inner := false, false
			for x, p := range e.minusNot {
				not = not || p.not != nil && e.minusAsNotExists(x, e.newRow()) != nil
				inner = inner || p.right != x.Right
			}
			if seed == 1 && (not != c.not || inner != c.inner) {
				t.Errorf("query %d: as NOT EXISTS %v (want %v), an OPTIONAL joined %v (want %v)", i, not, c.not, inner, c.inner)
			}
			if seed == 1 && strings.Count(want, "\n") < 5 {
				t.Errorf("query %d: %d solutions: the data does not test it", i, strings.Count(want, "\n")+1)
			}
		}
	}
}

// TestRejectsUnbound: which FILTER conditions are false or an error wherever ?x is unbound.
func TestRejectsUnbound(t *testing.T) {
	for _, c := range []struct {
		filter string
		want   bool
	}{
		{`BOUND(?x)`, true},
		{`BOUND(?y)`, false},
		{`!BOUND(?x)`, false},
		{`?x <= 2`, true},
		{`2 > ?x`, true},
		{`?x = ?y`, true},
		{`?x + 1 != 0`, true},
		{`-?x < 0`, true},
		{`BOUND(?x) && ?y < 2`, true},
		{`?y < 2 && ?x > 1`, true},
		{`BOUND(?x) || ?y < 2`, false},
		{`?x < 1 || ?x > 3`, true},
		{`!BOUND(?x) || ?x > 1`, false},
		{`COALESCE(?x, 1) = 1`, false},
		{`STR(?x) = "a"`, false}, // functions are not looked into
		{`IF(BOUND(?x), true, false)`, false},
		{`?x`, true},
		{`?y`, false},
	} {
		q, err := parser.Parse(`SELECT * { ?s ?p ?o FILTER(`+c.filter+`) }`, parser.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		var f *algebra.Filter
		algebra.Walk(q.Op, func(op algebra.Op) bool {
			if x, ok := op.(*algebra.Filter); ok {
				f = x
			}
			return f == nil
		})
		if f == nil {
			t.Fatalf("%s: no FILTER", c.filter)
		}
		if got := rejectsAnyUnbound(f.Exprs, "x"); got != c.want {
			t.Errorf("%s: rejects an unbound ?x %v, want %v", c.filter, got, c.want)
		}
	}
}
