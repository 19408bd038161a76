package eval_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
)

// A GROUP BY subquery joined back to an outer pattern that binds its key (eval.safeGroup) is run per outer
// solution with the key substituted: the offers counted per item for three items read three items' offers, not
// every group. Under a budget of 1 000 held rows, holding the subquery's 2 900 groups fails, so the query with
// three outer solutions must answer. The answers of every shape (the key substituted or not: bound only by an
// OPTIONAL or a UNION, an aggregate's variable or a hidden variable bound outside, a key expression, two keys,
// HAVING, a projection without a group) must equal those of the same join written with the subquery first, which
// runs on its own.
func TestGroupSubqueryPerOuterSolution(t *testing.T) {
	ex := func(s string, i int) rdf.Term { return rdf.IRI(fmt.Sprintf("http://ex.org/%s%d", s, i)) }
	var qs []rdf.Quad
	for i := range 3 {
		qs = append(qs, rdf.Triple(ex("item", i), ex("p", 0), ex("tag", i%2)))
	}
	for i := range 3000 {
		// Items 0 and 1 have offers (two and one); the others are of items the outer pattern never sees.
		item := 100 + i%2900
		switch i {
		case 0, 1:
			item = 0
		case 2:
			item = 1
		}
		qs = append(qs, rdf.Triple(ex("offer", i), ex("product", 0), ex("item", item)))
		qs = append(qs, rdf.Triple(ex("offer", i), ex("price", 0), rdf.Literal(fmt.Sprint(i%7), rdf.XSDInteger)))
		if i%3 == 0 {
			qs = append(qs, rdf.Triple(ex("offer", i), ex("country", 0), ex("c", i%2)))
		}
	}
	ds := eval.FromIndex(build(t, qs))
	run := func(src string, maxRows int) ([]string, error) {
		q := eval.MustParse(t, src)
		res, err := eval.Run(context.Background(), ds, q, eval.Options{MaxRows: maxRows})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, row := range res.Rows {
			var cols []string // by name: SELECT * lists the variables in another order when the join is turned
			for i, v := range row {
				if !v.IsZero() {
					cols = append(cols, res.Vars[i]+"="+v.String())
				}
			}
			slices.Sort(cols)
			out = append(out, strings.Join(cols, " "))
		}
		slices.Sort(out)
		return out, nil
	}
	const pre = `PREFIX : <http://ex.org/> `
	got, err := run(pre+`SELECT ?i ?n { ?i :p0 ?t { SELECT ?i (COUNT(?o) AS ?n) { ?o :product0 ?i } GROUP BY ?i } }`, 1000)
	if err != nil {
		t.Fatalf("GROUP BY subquery under three outer solutions, 1 000 held rows: %v", err)
	}
	if len(got) != 2 || !strings.Contains(got[0], `item0> n="2"`) || !strings.Contains(got[1], `item1> n="1"`) {
		t.Fatalf("counts per item: %q", got)
	}
	shapes := []struct{ outer, sub string }{
		{`?i :p0 ?t`, `SELECT ?i (COUNT(?o) AS ?n) { ?o :product0 ?i } GROUP BY ?i`},
		{`?i :p0 ?t`, `SELECT ?i (SUM(?p) AS ?n) (MIN(?p) AS ?m) { ?o :product0 ?i ; :price0 ?p } GROUP BY ?i HAVING(SUM(?p) > 0)`},
		{`?i :p0 ?t`, `SELECT ?i ?c (COUNT(*) AS ?n) { ?o :product0 ?i OPTIONAL { ?o :country0 ?c } } GROUP BY ?i ?c`},
		{`?i :p0 ?t`, `SELECT ?i ?t (COUNT(*) AS ?n) { ?o :product0 ?i . ?i :p0 ?t } GROUP BY ?i ?t`},
		// The key only OPTIONAL in the subquery: its unbound group joins with every outer solution.
		{`?i :p0 ?t`, `SELECT ?i (COUNT(*) AS ?n) { ?o :price0 ?p OPTIONAL { ?o :product0 ?i FILTER(?p = 1) } } GROUP BY ?i`},
		{`?i :p0 ?t`, `SELECT ?i (COUNT(*) AS ?n) { { ?o :product0 ?i } UNION { ?o :country0 ?c } } GROUP BY ?i`},
		// The aggregate's variable bound outside: a join on it.
		{`?i :p0 ?t VALUES ?n { 2 }`, `SELECT ?i (COUNT(?o) AS ?n) { ?o :product0 ?i } GROUP BY ?i`},
		// A hidden variable of the subquery bound outside is another variable.
		{`?i :p0 ?t BIND(:offer0 AS ?o)`, `SELECT ?i (COUNT(?o) AS ?n) { ?o :product0 ?i } GROUP BY ?i`},
		{`?i :p0 ?t BIND(:offer0 AS ?o)`, `SELECT ?i { ?o :product0 ?i }`},
		// A key expression, and a group over everything.
		{`?i :p0 ?t`, `SELECT ?i (COUNT(?o) AS ?n) { ?o :product0 ?x } GROUP BY (?x AS ?i)`},
		{`?i :p0 ?t`, `SELECT (COUNT(?o) AS ?n) (SAMPLE(?i) AS ?s) { ?o :product0 ?i FILTER(?i = :item0) }`},
		{`?i :p0 ?t`, `SELECT ?i (COUNT(?o) AS ?n) { ?o :product0 ?i } GROUP BY ?i ORDER BY ?i LIMIT 1`},
	}
	for _, s := range shapes {
		src := pre + `SELECT * { ` + s.outer + ` { ` + s.sub + ` } }`
		ref := pre + `SELECT * { { ` + s.sub + ` } ` + s.outer + ` }`
		got, err := run(src, 0)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		want, err := run(ref, 0)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s\n got %q\nwant %q (subquery first)", src, got, want)
		}
	}
	// Substituting a key that is not certain would lose the unbound group: still held whole, over budget.
	if _, err := run(pre+`SELECT * { ?i :p0 ?t { SELECT ?i (COUNT(*) AS ?n) { { ?o :product0 ?i } UNION { ?o :price0 ?p } } GROUP BY ?i } }`, 1000); !errors.Is(err, eval.ErrTooLarge) {
		t.Errorf("key only OPTIONAL in the subquery: err %v, want ErrTooLarge (held whole)", err)
	}
}
