package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// TestStrTestMatchesFunctions: STRSTARTS, STRENDS and CONTAINS over variables, STR of variables and constants,
// answered from the operands' strings (strTest), give what the functions as written give (each operand wrapped in
// COALESCE, which strTest does not read) in a FILTER, under "!" (an error and false part there) and in a BIND
// (true, false or unbound): over IRIs, simple, xsd:string, language-tagged (two cases of a tag) and typed
// literals, numbers held in ids, non-ASCII and empty strings, blank nodes (STR of one is an error) and an unbound
// OPTIONAL value.
func TestStrTestMatchesFunctions(t *testing.T) {
	b, add := builderAdding(t)
	objs := []rdf.Term{
		rdf.IRI("http://ex.org/Offer100"), rdf.IRI("http://ex.org/"), rdf.String("Offer100"), rdf.String(""),
		rdf.String("Ölfarbe Über 00"), rdf.Literal("x00", rdf.XSDString), rdf.LangString("Offer 00", "en"),
		rdf.LangString("offer", "EN"), rdf.LangString("Straße 00", "de"), rdf.Literal("100", rdf.XSDInteger),
		rdf.Literal("Offer00", "http://ex.org/type"), rdf.Blank("b00"), rdf.String("http://ex.org/Offer1"),
	}
	n := 0
	for i, o := range objs {
		for j, w := range objs {
			if (i+j)%3 != 0 && j != 1 && j != 6 {
				continue
			}
			s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", n))
			n++
			for _, tr := range []rdf.Quad{rdf.Triple(s, rdf.IRI("http://ex.org/p"), o), rdf.Triple(s, rdf.IRI("http://ex.org/q"), w)} {
				if err := b.Add(tr); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// Subjects without q: ?w unbound.
	add(rdf.IRI("http://ex.org/lone"), rdf.IRI("http://ex.org/p"), rdf.String("00"))
	ds := FromIndex(b.Build())
	slow := func(x string) string { // the same operand, out of strTest's reach
		if strings.HasPrefix(x, "STR(") {
			return "STR(COALESCE(" + x[4:len(x)-1] + "))"
		}
		return "COALESCE(" + x + ")"
	}
	firsts := []string{"?o", "STR(?o)"}
	seconds := []string{"?w", "STR(?w)", `"00"`, `""`, `"Offer"`, `"ß"`, `"offer"@en`, `"00"@de`, `"http://ex.org/"`,
		`"00"^^<http://www.w3.org/2001/XMLSchema#string>`, `<http://ex.org/>`}
	kept := 0
	for _, f := range []string{"STRSTARTS", "STRENDS", "CONTAINS"} {
		for _, a := range firsts {
			for _, c := range seconds {
				call := f + "(" + a + ", " + c + ")"
				ref := f + "(" + slow(a) + ", " + slow(c) + ")"
				for _, form := range []string{
					`SELECT ?s { ?s <http://ex.org/p> ?o OPTIONAL { ?s <http://ex.org/q> ?w } FILTER(%s) }`,
					`SELECT ?s { ?s <http://ex.org/p> ?o OPTIONAL { ?s <http://ex.org/q> ?w } FILTER(!%s) }`,
					`SELECT ?s ?r { ?s <http://ex.org/p> ?o OPTIONAL { ?s <http://ex.org/q> ?w } BIND(%s AS ?r) }`,
				} {
					got, _ := runQuery(t, ds, fmt.Sprintf(form, call))
					want, _ := runQuery(t, ds, fmt.Sprintf(form, ref))
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s:\n got %q\nwant %q", fmt.Sprintf(form, call), got, want)
					}
					if strings.Contains(form, "FILTER(%s)") {
						kept += len(want)
					}
				}
			}
		}
	}
	if kept < 100 {
		t.Fatalf("%d rows kept in all: the data does not test the functions", kept)
	}
}

// TestPlanOrdersStarByMeasuredConjuncts: two probes on an offer each complete a FILTER conjunct: STRSTARTS of its
// page and its vendor's homepage, which every offer passes, and STRENDS of its product, which one in fifty passes.
// The usual guess (a third each) ties them and the first written went first, probing and testing every offer's
// page; measured on the index, the product goes first (measuredOrder). Where the sample does not speak for the
// join's subjects (600 firms' labels and cities among 30 000 items', sampleFits), the measures are not used and the
// order stays as written: over all labels "Inc." looks rare, over the firms' every label has it. The answers are
// the same.
func TestPlanOrdersStarByMeasuredConjuncts(t *testing.T) {
	b, add := builderAdding(t)
	for v := range 100 {
		add(ex("vendor", v), ex("country", 0), ex("c", v%2))
		add(ex("vendor", v), ex("homepage", 0), rdf.IRI(fmt.Sprintf("http://www.v%d.org/", v)))
	}
	for o := range 6000 {
		add(ex("offer", o), ex("vendor", 0), ex("vendor", o%100))
		add(ex("offer", o), ex("page", 0), rdf.IRI(fmt.Sprintf("http://www.v%d.org/offer%d", o%100, o)))
		add(ex("offer", o), ex("product", 0), ex("product", o%1000))
	}
	// The h83 shape: 600 firms labelled "… Inc." among 30 000 labelled items in Berlin that are not.
	for i := range 30000 {
		add(ex("item", i), ex("label", 0), rdf.String(fmt.Sprintf("item %d", i)))
		add(ex("item", i), ex("city", 0), rdf.String("Berlin"))
	}
	for i := range 600 {
		add(ex("firm", i), ex("type", 0), ex("Firm", 0))
		add(ex("firm", i), ex("label", 0), rdf.String(fmt.Sprintf("Firm %d Inc.", i)))
		add(ex("firm", i), ex("city", 0), rdf.String([]string{"Berlin", "Paris", "Rome"}[i%3]))
	}
	ds := FromIndex(b.Build())
	src := `SELECT * WHERE { ?vendor <http://ex.org/country0> <http://ex.org/c0> ; <http://ex.org/homepage0> ?home .
		?offer <http://ex.org/vendor0> ?vendor ; <http://ex.org/page0> ?page ; <http://ex.org/product0> ?product
		FILTER(STRSTARTS(STR(?page), STR(?home)) && STRENDS(STR(?product), "00")) }`
	e, q, rows := planFiltered(t, ds, src)
	bgp := firstOp[*algebra.BGP](q.Op)
	order := e.plan(bgp, varset{})
	var got []string
	for _, i := range order {
		got = append(got, strings.TrimPrefix(bgp.Triples[i].P.Term.Value, "http://ex.org/"))
	}
	if want := "[country0 homepage0 vendor0 product0 page0]"; fmt.Sprint(got) != want {
		t.Errorf("plan %v, want %s", got, want)
	}
	if len(rows) != 54 { // offers of even vendors (o even) whose product ends in 00: o%1000 in {100, …, 900}
		t.Errorf("%d solutions, want 54", len(rows))
	}
	src = `SELECT * WHERE { ?firm <http://ex.org/type0> <http://ex.org/Firm0> ; <http://ex.org/city0> ?city ;
		<http://ex.org/label0> ?name FILTER(?city != "Paris" && STRENDS(?name, "Inc.")) }`
	e, q, rows = planFiltered(t, ds, src)
	bgp = firstOp[*algebra.BGP](q.Op)
	order = e.plan(bgp, varset{})
	if got := bgp.Triples[order[1]].P.Term.Value; got != "http://ex.org/city0" {
		t.Errorf("second pattern %s, want the city's as written", got)
	}
	if len(rows) != 400 {
		t.Errorf("%d solutions, want 400", len(rows))
	}
}
