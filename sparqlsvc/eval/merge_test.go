package eval_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/results"
)

func build(t *testing.T, qs []rdf.Quad) *index.Dataset {
	b := index.NewBuilder()
	for _, q := range qs {
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

// A default graph merged from several indexes, each with its own dictionary, must answer every query exactly as
// one index built from the union does (RDF merge: shared triples count once).
func TestMergedDefaultGraph(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ex := func(s string, i int) rdf.Term { return rdf.IRI(fmt.Sprintf("http://ex.org/%s%d", s, i)) }
	var all []rdf.Quad
	parts := make([][]rdf.Quad, 3)
	for i := 0; i < 600; i++ {
		var o rdf.Term
		switch r.IntN(3) {
		case 0:
			o = ex("n", r.IntN(40))
		case 1: // "7" is held in its id, the same in every index; "07" is in each index's dictionary
			o = rdf.Literal([]string{"", "0"}[r.IntN(2)]+fmt.Sprint(r.IntN(50)), rdf.XSDInteger)
		default:
			o = rdf.LangString(fmt.Sprintf("label %d", r.IntN(30)), []string{"en", "de"}[r.IntN(2)])
		}
		q := rdf.Triple(ex("n", r.IntN(40)), ex("p", r.IntN(4)), o)
		all = append(all, q)
		parts[i%3] = append(parts[i%3], q)
		if j := r.IntN(3); r.IntN(2) == 0 && j != i%3 { // about a third of the triples are in two parts
			parts[j] = append(parts[j], q)
		}
	}
	union := eval.FromIndex(build(t, all))
	primary := build(t, parts[0])
	merged := eval.FromIndex(primary)
	for _, p := range parts[1:] {
		d := build(t, p)
		merged.Extra = append(merged.Extra, eval.Source{Dict: d.Dict, Graph: d.Default})
	}
	queries := []string{
		`SELECT * { ?s <http://ex.org/p0> ?o }`,
		`SELECT ?s ?x { ?s <http://ex.org/p1> ?m . ?m <http://ex.org/p2> ?x }`,
		`SELECT ?s (COUNT(*) AS ?n) { ?s ?p ?o } GROUP BY ?s`,
		`SELECT DISTINCT ?o { <http://ex.org/n3> ?p ?o }`,
		`SELECT ?s ?l { ?s <http://ex.org/p0> ?o OPTIONAL { ?s <http://ex.org/p3> ?l FILTER(lang(?l) = "de") } }`,
		`SELECT ?x { <http://ex.org/n1> (<http://ex.org/p0>|<http://ex.org/p1>)+ ?x }`,
		`SELECT ?x { ?x <http://ex.org/p2>* <http://ex.org/n7> }`,
		`SELECT ?s { ?s ?p ?v FILTER(isNumeric(?v) && ?v > 25) }`,
		`SELECT ?s { ?s !(<http://ex.org/p0>) "label 3"@en }`,
		`ASK { <http://ex.org/n9> ?p ?o }`,
		`CONSTRUCT { ?o <http://ex.org/inv> ?s } WHERE { ?s <http://ex.org/p1> ?o }`,
		`DESCRIBE <http://ex.org/n5>`,
	}
	for _, src := range queries {
		q := eval.MustParse(t, src)
		want, err := eval.Run(context.Background(), union, q, eval.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := eval.Run(context.Background(), merged, q, eval.Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got.Boolean != want.Boolean || len(got.Triples) != len(want.Triples) {
			t.Errorf("%s: boolean %v/%v, %d/%d triples", src, got.Boolean, want.Boolean, len(got.Triples), len(want.Triples))
		}
		a := &results.Result{Vars: got.Vars, Rows: got.Rows}
		b := &results.Result{Vars: want.Vars, Rows: want.Rows}
		if ok, why := results.Equal(a, b, false); !ok {
			t.Errorf("%s: %s", src, why)
		}
	}
}

func newBuilder() *index.Builder { return index.NewBuilder() }
