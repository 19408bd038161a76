package eval

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// dateFieldsTerm is dateTerm24, or (one time in four) a date at the edges of the calendar: leap days valid and
// not, negative years, years past 9999, midnight written as 24:00:00 on the last day of a year, fractions.
func dateFieldsTerm(r *rand.Rand) rdf.Term {
	if r.IntN(4) != 0 {
		return dateTerm24(r)
	}
	xsd := rdf.XSDNS
	days := []string{"2008-02-29", "2007-02-29", "2008-12-31", "2009-01-01", "-0044-03-15", "-0001-12-31", "0000-01-01",
		"12345-06-07", "2008-01-15"}
	day := days[r.IntN(len(days))]
	switch r.IntN(4) {
	case 0:
		return rdf.Literal(day, xsd+"date")
	case 1:
		return rdf.Literal(day+"T24:00:00", xsd+"dateTime")
	case 2:
		return rdf.Literal(day+"T00:00:00.5", xsd+"dateTime")
	}
	return rdf.Literal(day+"T00:00:00", xsd+"dateTime")
}

// TestComputedDateComparisonsMatchReference: a FILTER comparing a BIND's computed date or dateTime (an overlay term
// the query made, a date held in its id, or an id of the data) with a variable holding the data's dates
// (dateFieldsCompare by the values' fields, overlayDate) keeps exactly the solutions the SPARQL definition gives
// on the terms: the cast's errors leave the variable unbound, dates and dateTimes do not compare, values with and
// without timezones follow XPath's ±14 hours, 24:00:00 is the next day, equal minutes are decided by the seconds.
// Every operator, both operand orders, three computed forms.
func TestComputedDateComparisonsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(211, 212))
	ds, triples := dateDataOf(t, r, 1200, dateFieldsTerm)
	xsd := rdf.XSDNS
	type pair struct{ s, v, w rdf.Term }
	var rows []pair
	for i := 0; i < len(triples); i += 2 {
		rows = append(rows, pair{triples[i][0], triples[i][2], triples[i+1][2]})
	}
	forms := []struct {
		expr string
		ref  func(v rdf.Term) (rdf.Term, error)
	}{
		{`xsd:dateTime(CONCAT(STR(?v), "T00:00:00"))`, func(v rdf.Term) (rdf.Term, error) {
			return builtin.Cast(xsd+"dateTime", rdf.String(v.Value+"T00:00:00"))
		}},
		{`xsd:dateTime(STR(?v))`, func(v rdf.Term) (rdf.Term, error) {
			return builtin.Cast(xsd+"dateTime", rdf.String(v.Value))
		}},
		{`xsd:date(STR(?v))`, func(v rdf.Term) (rdf.Term, error) {
			return builtin.Cast(xsd+"date", rdf.String(v.Value))
		}},
		{`STRDT(CONCAT(STR(?v), "T12:00:00"), xsd:dateTime)`, func(v rdf.Term) (rdf.Term, error) {
			return rdf.Literal(v.Value+"T12:00:00", xsd+"dateTime"), nil
		}},
	}
	matched := 0
	for _, f := range forms {
		for _, op := range []string{"<", "<=", ">", ">=", "=", "!="} {
			for _, flip := range []bool{false, true} {
				cond := "?x " + op + " ?w"
				if flip {
					cond = "?w " + op + " ?x"
				}
				src := `PREFIX xsd: <` + xsd + `> SELECT ?s WHERE { ?s <http://ex.org/v0> ?v ; <http://ex.org/v1> ?w
					BIND(` + f.expr + ` AS ?x) FILTER(` + cond + `) }`
				var want []string
				for _, x := range rows {
					c, err := f.ref(x.v)
					if err != nil {
						continue
					}
					a, b := c, x.w
					if flip {
						a, b = b, a
					}
					if refTest(op, a, b) {
						want = append(want, x.s.String())
					}
				}
				got, _ := runQuery(t, ds, src)
				if strings.Join(got, "\n") != strings.Join(sorted(want), "\n") {
					t.Fatalf("%s: %d solutions, reference %d", src, len(got), len(want))
				}
				matched += len(want)
			}
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d solutions over all the queries: the data should give the comparisons something to keep", matched)
	}
}
