package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestMonthKeysMatchReference: GROUP BY keys of arithmetic over YEAR and MONTH of dateTimes (monthMemo) give the
// groups the reference evaluation gives: dateTimes with and without timezones (-14:00 … +14:00, which the fields
// read as written), instants at a year's end (months wrapping around), 30 February forms held as written,
// xsd:dates, strings and numbers (no field: an error key), over two patterns, a star with a tag and one variable;
// with a table of two slots most pairs share a slot. A memo keyed by one variable's reading only, or by the month
// without the year, fails it.
func TestMonthKeysMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(175, 176))
	b, add := builderAdding(t)
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	dt := rdf.XSDNS + "dateTime"
	value := func() rdf.Term {
		y, m, d := 2006+r.IntN(4), 1+r.IntN(12), 1+r.IntN(28)
		switch r.IntN(12) {
		case 0:
			return rdf.Literal(fmt.Sprintf("%d-02-30T10:00:00Z", y), dt)
		case 1:
			return rdf.Literal(fmt.Sprintf("%d-%02d-%02d", y, m, d), rdf.XSDNS+"date")
		case 2:
			return rdf.String(fmt.Sprint(y))
		case 3:
			return rdf.Literal(fmt.Sprint(m), rdf.XSDInteger)
		case 4, 5:
			return rdf.Literal(fmt.Sprintf("%d-12-31T23:%02d:00", y, r.IntN(60)), dt)
		case 6, 7:
			h := r.IntN(29) - 14
			return rdf.Literal(fmt.Sprintf("%d-%02d-%02dT%02d:00:00%+03d:00", y, m, d, r.IntN(24), h), dt)
		}
		return rdf.Literal(fmt.Sprintf("%d-%02d-%02dT%02d:%02d:00Z", y, m, d, r.IntN(24), r.IntN(60)), dt)
	}
	for i := range 3000 {
		s := ex(fmt.Sprint("o", i))
		for _, a := range []rdf.Quad{
			rdf.Triple(s, ex("from"), value()),
			rdf.Triple(s, ex("to"), value()),
			rdf.Triple(s, ex("vendor"), ex(fmt.Sprint("v", r.IntN(30)))),
		} {
			if err := b.Add(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	for v := range 30 {
		if v%4 == 0 {
			add(ex(fmt.Sprint("v", v)), ex("country"), ex("FR"))
		}
	}
	ds := FromIndex(b.Build())
	pre := `PREFIX ex: <http://ex.org/> `
	for _, src := range []string{
		`SELECT ?m (COUNT(*) AS ?n) WHERE { ?o ex:from ?f ; ex:to ?t } GROUP BY ((YEAR(?t) - YEAR(?f)) * 12 + MONTH(?t) - MONTH(?f) AS ?m)`,
		`SELECT ?m (COUNT(?o) AS ?n) WHERE { ?v ex:country ex:FR . ?o ex:vendor ?v ; ex:from ?f ; ex:to ?t BIND((YEAR(?t) - YEAR(?f)) * 12 + MONTH(?t) - MONTH(?f) AS ?m) } GROUP BY ?m`,
		`SELECT ?m (COUNT(*) AS ?n) WHERE { ?o ex:from ?f ; ex:to ?t } GROUP BY (ABS(MONTH(?t) - MONTH(?f)) + YEAR(?t) * 100 AS ?m)`,
		`SELECT ?m (COUNT(*) AS ?n) WHERE { ?o ex:from ?f } GROUP BY (YEAR(?f) * 12 + MONTH(?f) - 1 AS ?m)`,
		`SELECT ?m ?y (COUNT(*) AS ?n) WHERE { ?o ex:from ?f ; ex:to ?t } GROUP BY (MONTH(?t) - MONTH(?f) AS ?m) (YEAR(?t) AS ?y)`,
	} {
		want, _ := runGroup(t, ds, pre+src, true)
		if len(want) < 10 {
			t.Fatalf("%s: %d groups", src, len(want))
		}
		slices.Sort(want)
		for _, slots := range []int{0, 2} { // 2: most pairs share a slot with others
			got, _ := runGroupWith(t, ds, pre+src, false, Options{monthSlots: slots})
			slices.Sort(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s (%d slots):\n got %q\nwant %q", src, slots, got, want)
			}
		}
	}
}
