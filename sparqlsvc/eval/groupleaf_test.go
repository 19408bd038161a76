package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestGroupLeafMatchesPlain: a GROUP BY over a join whose last pattern binds a variable nothing else reads, counted
// per solution of the other patterns (groupLeaf), gives the groups and values of the plain evaluation: COUNT of
// that variable and COUNT(*), other aggregates over the other patterns (SUM, MIN, SAMPLE, GROUP_CONCAT, COUNT
// DISTINCT), a FILTER over them, HAVING, no key, the pattern either way round, vendors without offers, a subquery
// under ORDER BY … LIMIT; and the forms left to the join: the variable read by an aggregate, a key or the FILTER, or
// in a second pattern. Where the count is taken it reads fewer rows.
func TestGroupLeafMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(173, 174))
	b := index.NewBuilder()
	add := func(s, p string, o rdf.Term) {
		if err := b.Add(rdf.Triple(rdf.IRI("http://ex.org/"+s), rdf.IRI("http://ex.org/"+p), o)); err != nil {
			t.Fatal(err)
		}
	}
	iri := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	for v := range 60 {
		vs := fmt.Sprintf("v%d", v)
		add(vs, "country", iri([]string{"JP", "US", "DE"}[v%3]))
		add(vs, "rank", rdf.Literal(fmt.Sprint(r.IntN(5)), rdf.XSDInteger))
		if v%7 == 0 {
			add(vs, "country", iri("FR")) // two countries
		}
		if v%11 == 0 {
			continue // no offers
		}
		for o := range 1 + r.IntN(40) {
			os := fmt.Sprintf("o%d_%d", v, o)
			add(os, "vendor", iri(vs))
			add(os, "price", rdf.Literal(fmt.Sprint(1+r.IntN(500)), rdf.XSDInteger))
			if r.IntN(3) > 0 {
				add(os, "product", iri(fmt.Sprintf("p%d", r.IntN(30))))
			}
		}
	}
	ds := FromIndex(b.Build())
	pre := `PREFIX x: <http://ex.org/> `
	cases := []struct {
		body  string
		taken bool
	}{
		{`SELECT ?v (COUNT(?o) AS ?n) WHERE { ?v x:country x:JP . ?o x:vendor ?v } GROUP BY ?v`, true},
		{`SELECT ?v (COUNT(*) AS ?n) (SUM(?k) AS ?s) (MIN(?c) AS ?m) (SAMPLE(?k) AS ?a) WHERE { ?v x:country ?c ; x:rank ?k . ?o x:vendor ?v } GROUP BY ?v`, true},
		{`SELECT ?c (COUNT(?o) AS ?n) (COUNT(DISTINCT ?v) AS ?d) (GROUP_CONCAT(?k) AS ?g) WHERE { ?v x:country ?c ; x:rank ?k . ?o x:vendor ?v FILTER(?k > 1) } GROUP BY ?c HAVING(COUNT(?o) > 10)`, true},
		{`SELECT (COUNT(?o) AS ?n) WHERE { ?v x:country x:US . ?o x:vendor ?v }`, true},
		{`SELECT ?v ?n WHERE { { SELECT ?v (COUNT(?o) AS ?n) WHERE { ?v x:country x:JP . ?o x:vendor ?v } GROUP BY ?v ORDER BY DESC(?n) ?v LIMIT 5 } }`, true},
		{`SELECT ?o (COUNT(?v) AS ?n) WHERE { ?o x:price ?p . ?o x:vendor ?v FILTER(?p < 50) } GROUP BY ?o`, false},
		{`SELECT ?v (SAMPLE(?o) AS ?s) WHERE { ?v x:country x:JP . ?o x:vendor ?v } GROUP BY ?v`, false},
		{`SELECT ?v (COUNT(DISTINCT ?o) AS ?n) WHERE { ?v x:country x:JP . ?o x:vendor ?v } GROUP BY ?v`, false},
		{`SELECT ?v (COUNT(?o) AS ?n) WHERE { ?v x:country x:JP . ?o x:vendor ?v FILTER(?o != x:o1_1) } GROUP BY ?v`, false},
		{`SELECT ?v (COUNT(?o) AS ?n) (SUM(?p) AS ?s) WHERE { ?v x:country x:DE . ?o x:vendor ?v ; x:price ?p } GROUP BY ?v`, false},
	}
	for _, c := range cases {
		src := pre + c.body
		got, steps := runTop(t, ds, src, false)
		want, plainSteps := runTop(t, ds, src, true)
		if len(want) == 0 {
			t.Fatalf("%s: no solutions", c.body)
		}
		slices.Sort(got)
		slices.Sort(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s:\n%s\nwant\n%s", c.body, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if c.taken && steps >= plainSteps {
			t.Fatalf("%s: %d rows read, %d without groupLeaf", c.body, steps, plainSteps)
		}
		if !c.taken && steps != plainSteps {
			t.Fatalf("%s: %d rows read, %d without groupLeaf, which should not be taken", c.body, steps, plainSteps)
		}
	}
}
