package eval

import (
	"context"
	"fmt"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestPlanUsesMeasuredFanout: with ?days and ?country bound from outside (a VALUES row), the BGP must start from
// the country's vendors and reach offers through each vendor (5 per vendor), checking the days last, never join
// the country's vendors with every offer of that many days (100 per value). The fixed fan-out guess priced both
// inner patterns alike and picked the product.
func TestPlanUsesMeasuredFanout(t *testing.T) {
	ex := func(s string, i int) rdf.Term { return rdf.IRI(fmt.Sprintf("http://ex.org/%s%d", s, i)) }
	b := index.NewBuilder()
	add := func(s, p, o rdf.Term) {
		if err := b.Add(rdf.Triple(s, p, o)); err != nil {
			t.Fatal(err)
		}
	}
	for v := range 400 {
		add(ex("vendor", v), ex("country", 0), ex("c", v%10))
	}
	for o := range 2000 {
		add(ex("offer", o), ex("vendor", 0), ex("vendor", o%400))
		add(ex("offer", o), ex("days", 0), rdf.Literal(fmt.Sprint(o%20), rdf.XSDInteger))
	}
	q, err := parser.Parse(`SELECT * WHERE { ?offer <http://ex.org/days0> ?days ; <http://ex.org/vendor0> ?vendor .
		?vendor <http://ex.org/country0> ?country }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var bgp *algebra.BGP
	var find func(op algebra.Op)
	find = func(op algebra.Op) {
		switch x := op.(type) {
		case *algebra.BGP:
			bgp = x
		case *algebra.Project:
			find(x.Op)
		}
	}
	find(q.Op)
	if bgp == nil {
		t.Fatalf("no BGP in %T", q.Op)
	}
	ds := FromIndex(b.Build())
	e := &evaluator{ctx: context.Background(), ds: ds, t: newTerms(ds.Dict), slots: map[algebra.Var]int{},
		orders: map[orderKey][]int{}, fanout: map[fanoutKey]float64{}, consts: map[rdf.Term]ID{}}
	e.active = e.defaultGraphs()
	e.collectVars(q)
	order := e.plan(bgp, varset{}.with(e.slot("days")).with(e.slot("country")))
	var got []string
	for _, i := range order {
		got = append(got, bgp.Triples[i].P.Term.Value)
	}
	want := []string{"http://ex.org/country0", "http://ex.org/vendor0", "http://ex.org/days0"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
}
