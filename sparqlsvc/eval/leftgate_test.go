package eval

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestLeftGateMatchesAsWritten: an OPTIONAL whose right side has a pattern "?s <p> <o>" passes left solutions
// whose ?s has no such triple on unextended (leftGate), with exactly the solutions of evaluating the right side for
// each (noGate): !bound over it, the right side with a FILTER or its own condition, left solutions repeated, with ?s
// unbound (a UNION branch) or bound to a value the data lacks, subjects in and out of order, GRAPH ?g and a
// graph's own range, the fewest rows' pattern chosen among two. Products with the feature are few, so that most
// left solutions skip the right side: the right side's probes counted must be fewer than evaluating it per row.
func TestLeftGateMatchesAsWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(183, 184))
	b := index.NewBuilder()
	add := graphAdder(t, b)
	for _, g := range []string{"", "g1"} {
		for p := range 300 {
			add(g, exIRI("p%d", p), exIRI("label"), rdf.String(exIRI("l%d", r.IntN(250)).Value))
			add(g, exIRI("p%d", p), exIRI("feature"), exIRI("f%d", r.IntN(3)))
			if r.IntN(9) == 0 {
				add(g, exIRI("p%d", p), exIRI("feature"), exIRI("F3"))
				if r.IntN(3) > 0 {
					add(g, exIRI("p%d", p), exIRI("rank"), intLit(r.IntN(5)))
				}
			}
			if r.IntN(20) == 0 {
				add(g, exIRI("p%d", p), exIRI("kind"), exIRI("Special"))
			}
			add(g, exIRI("o%d", p), exIRI("product"), exIRI("p%d", r.IntN(300)))
		}
	}
	ds := FromIndex(b.Build())
	const pre = `PREFIX : <http://ex.org/> `
	for _, src := range []string{
		`SELECT ?p ?l { ?p :label ?l OPTIONAL { ?p :feature :F3 . ?p :label ?t } FILTER(!bound(?t)) }`,
		`SELECT ?p ?l ?t { ?p :label ?l OPTIONAL { ?p :feature :F3 . ?p :label ?t } }`,
		`SELECT ?p ?k { ?p :feature ?f OPTIONAL { ?p :feature :F3 ; :rank ?k FILTER(?k > 1) } }`,
		`SELECT ?p ?k { ?p :feature ?f OPTIONAL { ?p :feature :F3 ; :rank ?k FILTER(?k > ?zz) } }`,
		`SELECT ?p ?k ?f { ?p :feature ?f OPTIONAL { ?p :feature :F3 ; :rank ?k FILTER(?f != :f1) } }`,
		`SELECT ?o ?p ?k { ?o :product ?p OPTIONAL { ?p :feature :F3 ; :kind :Special ; :rank ?k } }`,
		`SELECT ?o ?p ?k { ?o :product ?p OPTIONAL { ?p :rank ?k ; :feature :F3 } }`,
		`SELECT ?p ?x ?k { { ?p :label ?l } UNION { ?x :product ?y } OPTIONAL { ?p :feature :F3 ; :rank ?k } }`,
		`SELECT ?p ?k { VALUES ?p { :p1 :nothing :p2 :p1 } OPTIONAL { ?p :feature :F3 ; :rank ?k } }`,
		`SELECT ?p ?k { ?p :label ?l OPTIONAL { ?p :feature :NoSuchFeature ; :rank ?k } }`,
		`SELECT ?g ?p ?k { GRAPH ?g { ?p :label ?l OPTIONAL { ?p :feature :F3 ; :rank ?k } } }`,
		`SELECT ?p ?k { GRAPH :g1 { ?p :label ?l OPTIONAL { ?p :feature :F3 ; :rank ?k } } }`,
		`SELECT ?p ?l { ?p :label ?l OPTIONAL { ?p :feature :F3 . ?p :label ?t } FILTER(!bound(?t)) } ORDER BY ?l ?p LIMIT 7`,
	} {
		want, _ := semiRun(t, ds, pre+src, Options{noGate: true})
		got, e := semiRun(t, ds, pre+src, Options{})
		w, g := resultLines(want), resultLines(got)
		if len(w) == 0 {
			t.Fatalf("%s: no solutions", src)
		}
		if !slices.Equal(g, w) {
			t.Errorf("%s: %d rows, want %d\n got %q\nwant %q", src, len(g), len(w), g, w)
		}
		gates := 0
		for _, gt := range e.leftGates {
			if gt != nil {
				gates++
			}
		}
		// A constant the data lacks: the right side finds nothing at once, no gate is made.
		if want := !strings.Contains(src, "NoSuchFeature"); (gates > 0) != want {
			t.Errorf("%s: %d gates, want one: %v", src, gates, want)
		}
	}
	// Most products lack F3: the gate spares their probes of the right side.
	src := pre + `SELECT ?p ?l { ?p :label ?l OPTIONAL { ?p :feature :F3 . ?p :label ?t } FILTER(!bound(?t)) }`
	_, plain := semiRun(t, ds, src, Options{noGate: true})
	_, gated := semiRun(t, ds, src, Options{})
	if gated.probes*3 > plain.probes {
		t.Errorf("%d probes with the gate, %d without: want a third or fewer", gated.probes, plain.probes)
	}
}
