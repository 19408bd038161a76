package algebra_test

import (
	"strings"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestCanonical: queries that differ only in their variables' names (a one-to-one renaming, inside EXISTS too,
// aggregates' invented variables included) have one canonical form; a constant, a modifier, a projection's order,
// two variables merged into one, or a variable inside EXISTS tied to another outer one make it differ. Format keeps
// the names as written.
func TestCanonical(t *testing.T) {
	canon := func(src string) string {
		t.Helper()
		q, err := parser.Parse(`PREFIX : <http://ex.org/> `+src, parser.Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return algebra.Canonical(q.Op)
	}
	base := `SELECT ?v (AVG(?p) AS ?a) { ?v :country :DE . ?o :vendor ?v ; :price ?p FILTER EXISTS { ?o :day ?d } } GROUP BY ?v`
	same := []string{
		`SELECT ?vendor (AVG(?price) AS ?avg) { ?vendor :country :DE . ?offer :vendor ?vendor ; :price ?price FILTER EXISTS { ?offer :day ?x } } GROUP BY ?vendor`,
		// Names that look like the canonical ones, given to other variables.
		`SELECT ?v2 (AVG(?v1) AS ?v3) { ?v2 :country :DE . ?v4 :vendor ?v2 ; :price ?v1 FILTER EXISTS { ?v4 :day ?v5 } } GROUP BY ?v2`,
	}
	differ := []string{
		`SELECT ?v (AVG(?p) AS ?a) { ?v :country :FR . ?o :vendor ?v ; :price ?p FILTER EXISTS { ?o :day ?d } } GROUP BY ?v`,
		`SELECT ?v (SUM(?p) AS ?a) { ?v :country :DE . ?o :vendor ?v ; :price ?p FILTER EXISTS { ?o :day ?d } } GROUP BY ?v`,
		`SELECT (AVG(?p) AS ?a) ?v { ?v :country :DE . ?o :vendor ?v ; :price ?p FILTER EXISTS { ?o :day ?d } } GROUP BY ?v`,
		`SELECT ?v (AVG(?p) AS ?a) { ?v :country :DE . ?o :vendor ?v ; :price ?p FILTER EXISTS { ?o :day ?d } } GROUP BY ?v LIMIT 3`,
		`SELECT ?v (AVG(?v) AS ?a) { ?v :country :DE . ?o :vendor ?v ; :price ?v FILTER EXISTS { ?o :day ?d } } GROUP BY ?v`,
		`SELECT ?v (AVG(?p) AS ?a) { ?v :country :DE . ?o :vendor ?v ; :price ?p FILTER EXISTS { ?v :day ?d } } GROUP BY ?v`,
	}
	want := canon(base)
	for _, s := range same {
		if got := canon(s); got != want {
			t.Errorf("renamed, got\n%s\nwant\n%s", got, want)
		}
	}
	for _, s := range differ {
		if got := canon(s); got == want {
			t.Errorf("not a renaming, yet the same form:\n%s\n%s", s, got)
		}
	}
	q, err := parser.Parse(`PREFIX : <http://ex.org/> `+base, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := algebra.Format(q.Op); f == want || !strings.Contains(f, "(triple ?o <http://ex.org/price> ?p)") {
		t.Errorf("Format renamed the variables:\n%s", f)
	}
}
