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
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestDistinctRunsMatchJoin: SELECT DISTINCT (or REDUCED) of one pattern's object, read one solution per run of
// equal objects (distinctRuns), gives the distinct solutions of the projected join: objects of several kinds,
// FILTERs on the object (erroring on some), an extra projected variable left unbound, a predicate the data
// lacks. Shapes that project the subject or filter on it are not read so.
func TestDistinctRunsMatchJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	b, add := builderAdding(t)
	for i := range 2000 {
		objs := []rdf.Term{ex("c", r.IntN(12)), rdf.Literal(fmt.Sprint(r.IntN(9)-2), rdf.XSDInteger), rdf.LangString(fmt.Sprintf("w%d", r.IntN(5)), "en")}
		for k := range 1 + r.IntN(3) {
			add(ex("s", i), ex("p", k%2), objs[r.IntN(len(objs))])
		}
	}
	ds := FromIndex(b.Build())
	for _, c := range []struct {
		src   string
		taken bool
	}{
		{`SELECT DISTINCT ?o { ?s <http://ex.org/p0> ?o }`, true},
		{`SELECT REDUCED ?o { ?s <http://ex.org/p1> ?o }`, true},
		{`SELECT DISTINCT ?o { ?s <http://ex.org/p0> ?o FILTER(?o > 1) }`, true},
		{`SELECT DISTINCT ?o { ?s <http://ex.org/p1> ?o FILTER(isIRI(?o) || LANG(?o) = "en") }`, true},
		{`SELECT DISTINCT ?o ?x { ?s <http://ex.org/p0> ?o }`, true},
		{`SELECT DISTINCT ?o { ?s <http://ex.org/none> ?o }`, true},
		{`SELECT DISTINCT ?s { ?s <http://ex.org/p0> ?o }`, false},
		{`SELECT DISTINCT ?s ?o { ?s <http://ex.org/p0> ?o }`, false},
		{`SELECT DISTINCT ?o { ?s <http://ex.org/p0> ?o FILTER(STRLEN(STR(?s)) > 18) }`, false},
	} {
		q, err := parser.Parse(c.src, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var d algebra.Op = firstOp[*algebra.Distinct](q.Op)
		var inner algebra.Op
		if x, ok := d.(*algebra.Distinct); ok && x != nil {
			inner = x.Op
		} else {
			x := firstOp[*algebra.Reduced](q.Op)
			d, inner = x, x.Op
		}
		e := newEvaluator(context.Background(), ds, q, Options{})
		var got []string
		e.exec(d, e.newRow(), e.collectRows(&got), &err)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		// The reference: the projected join's solutions, deduplicated here.
		ref := newEvaluator(context.Background(), ds, q, Options{})
		var all []string
		ref.exec(inner, ref.newRow(), ref.collectRows(&all), &err)
		slices.Sort(all)
		want := slices.Compact(all)
		slices.Sort(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.src, got, want)
		}
		probe := newEvaluator(context.Background(), ds, q, Options{})
		if handled, _ := probe.distinctRuns(inner, probe.newRow(), func([]ID) bool { return true }, &err); handled != c.taken {
			t.Errorf("%s: read in runs %v, want %v", c.src, handled, c.taken)
		}
	}
}
