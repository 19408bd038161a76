package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// runTop evaluates src and returns its solutions in their order and the rows the evaluator read; with plain,
// without an ordered read for the ORDER BYs (topRead) nor a counted last pattern for the GROUP BYs (groupLeaf).
func runTop(t *testing.T, ds *Dataset, src string, plain bool) ([]string, int64) {
	t.Helper()
	return runTopWith(t, ds, src, plain, Options{})
}

// runTopWith is runTop under opt.
func runTopWith(t *testing.T, ds *Dataset, src string, plain bool, opt Options) ([]string, int64) {
	t.Helper()
	out, e := runTopEval(t, ds, src, plain, opt)
	return out, int64(e.steps)
}

// runTopEval is runTopWith returning the evaluator, for what it counted.
func runTopEval(t *testing.T, ds *Dataset, src string, plain bool, opt Options) ([]string, *evaluator) {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	e := newEvaluator(context.Background(), ds, q, opt)
	if plain {
		e.topReads = map[*algebra.OrderBy]*topRead{}
		e.leafGroups = map[*algebra.Group]*groupLeaf{}
		algebra.Walk(q.Op, func(o algebra.Op) bool {
			switch x := o.(type) {
			case *algebra.OrderBy:
				e.topReads[x] = nil
			case *algebra.Group:
				e.leafGroups[x] = nil
			}
			return true
		})
	}
	vars := firstOp[*algebra.Project](q.Op).Vars
	var out []string
	err = e.run(q.Op, e.newRow(), func(row []ID) bool {
		var parts []string
		for _, v := range vars {
			if id := row[e.slot(v)]; id != 0 {
				parts = append(parts, e.t.term(id).String())
			} else {
				parts = append(parts, "-")
			}
		}
		out = append(out, strings.Join(parts, " "))
		return true
	})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return out, e
}

// TestTopReadMatchesFullSort: ORDER BY ?v … LIMIT over a FILTER on a BGP whose pattern "?s p ?v" is narrowed to
// one block of values, read in ?v's order and stopped after the limit's solutions (topRead), gives the slice of
// the full sort: descending and ascending, decimals with many ties on the first key, dateTimes, offsets, a rest
// of several patterns with its own conjunct, and an order with a LIMIT past every solution. Where the read is
// taken it reads fewer rows than the evaluation without it; where it may not be (objects in two blocks of
// numbers, a very selective rest) the answer is the same.
func TestTopReadMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(171, 172))
	b := index.NewBuilder()
	add := func(s, p string, o rdf.Term) {
		if err := b.Add(rdf.Triple(rdf.IRI("http://ex.org/"+s), rdf.IRI("http://ex.org/"+p), o)); err != nil {
			t.Fatal(err)
		}
	}
	dec := func(s string) rdf.Term { return rdf.Literal(s, rdf.XSDNS+"decimal") }
	for i := range 3000 {
		p, d := fmt.Sprintf("p%d", i), fmt.Sprintf("d%d", i)
		if r.IntN(10) > 0 {
			add(p, "type", rdf.IRI("http://ex.org/P"))
		}
		add(p, "dims", rdf.IRI("http://ex.org/"+d))
		add(d, "w", dec(fmt.Sprintf("%d.5", r.IntN(80))))
		if r.IntN(4) > 0 {
			add(d, "h", rdf.Literal(fmt.Sprint(r.IntN(100)), rdf.XSDInteger))
		}
		add(d, "at", rdf.Literal(fmt.Sprintf("2008-%02d-%02dT%02d:00:00Z", 1+r.IntN(12), 1+r.IntN(28), r.IntN(3)), rdf.XSDNS+"dateTime"))
		if i%2 == 0 {
			add(d, "m", rdf.Literal(fmt.Sprint(r.IntN(30)), rdf.XSDInteger))
		} else {
			add(d, "m", dec(fmt.Sprintf("%d.25", r.IntN(30))))
		}
		if i%500 == 0 {
			add(d, "rare", rdf.String("x"))
		}
	}
	ds := FromIndex(b.Build())
	pre := `PREFIX x: <http://ex.org/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> `
	cases := []struct {
		body  string
		taken bool // the ordered read is expected
	}{
		{`SELECT ?p ?w ?h WHERE { ?p x:type x:P ; x:dims ?d . ?d x:w ?w ; x:h ?h FILTER(?w > 20.0 && ?h < 50) } ORDER BY DESC(?w) ?p`, true},
		{`SELECT ?p ?w ?h WHERE { ?p x:type x:P ; x:dims ?d . ?d x:w ?w ; x:h ?h FILTER(?w > 20.0 && ?h < 50) } ORDER BY ?w DESC(?p)`, true},
		{`SELECT ?d ?w WHERE { ?d x:w ?w FILTER(?w <= 60.5) } ORDER BY DESC(?w) DESC(?d)`, true},
		{`SELECT ?d ?t WHERE { ?d x:at ?t ; x:h ?h FILTER(?t >= "2008-03-01T00:00:00Z"^^xsd:dateTime && ?h > 10) } ORDER BY DESC(?t) ?d`, true},
		{`SELECT ?d ?t WHERE { ?d x:at ?t FILTER(?t < "2008-11-01T00:00:00Z"^^xsd:dateTime) } ORDER BY ?t ?d`, true},
		{`SELECT ?d ?m WHERE { ?d x:m ?m ; x:h ?h FILTER(?m > 5) } ORDER BY DESC(?m) ?d`, false},
		{`SELECT ?d ?w WHERE { ?d x:w ?w ; x:rare ?r FILTER(?w > 1.0) } ORDER BY DESC(?w) ?d`, false},
	}
	for _, c := range cases {
		all, _ := runTop(t, ds, pre+c.body, true)
		if len(all) < 6 {
			t.Fatalf("%s: %d solutions", c.body, len(all))
		}
		for _, slice := range [][2]int{{25, 0}, {1, 0}, {7, 3}, {100, 40}, {5000, 0}} {
			src := pre + c.body + fmt.Sprintf(" LIMIT %d OFFSET %d", slice[0], slice[1])
			want := all[min(slice[1], len(all)):min(slice[1]+slice[0], len(all))]
			got, steps := runTop(t, ds, src, false)
			plain, plainSteps := runTop(t, ds, src, true)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || strings.Join(plain, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s: not the full sort's slice:\n%s\nwant\n%s", src, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if c.taken && slice[0] <= 100 && steps >= plainSteps {
				t.Fatalf("%s: %d rows read, %d without the ordered read", src, steps, plainSteps)
			}
			if !c.taken && steps != plainSteps {
				t.Fatalf("%s: %d rows read, %d without the ordered read, which should not be taken", src, steps, plainSteps)
			}
		}
	}
}
