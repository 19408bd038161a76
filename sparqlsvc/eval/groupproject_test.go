package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// offerVendorData is h135's shape on small data: offers with none, one or two vendors of vendors (IRIs, some blank
// nodes) and none, one or two delivery days and prices each, the days integers with repeats, decimals, doubles
// (NaN, negative zero), strings, a language-tagged and a non-ASCII literal, the prices decimals (a big one),
// integers and strings; the vendors' countries, some missing.
func offerVendorData(t *testing.T, seed uint64, offers, vendors int) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 2011))
	b, add := builderAdding(t)
	vendor := func(i int) rdf.Term {
		if i%7 == 3 {
			return rdf.Blank(fmt.Sprintf("v%d", i))
		}
		return ex("vendor", i)
	}
	days := func() rdf.Term {
		switch r.IntN(20) {
		case 0:
			return rdf.Literal("2.5", rdf.XSDNS+"decimal")
		case 1:
			return rdf.Literal("NaN", rdf.XSDNS+"double")
		case 2:
			return rdf.Literal("-0.0", rdf.XSDNS+"double")
		case 3:
			return rdf.String("3")
		case 4:
			return rdf.LangString("drei", "de")
		case 5:
			return rdf.String("fünf")
		case 6:
			return rdf.Literal("1e0", rdf.XSDNS+"double")
		}
		return rdf.Literal(fmt.Sprint(r.IntN(10)), rdf.XSDNS+"integer")
	}
	price := func() rdf.Term {
		switch r.IntN(20) {
		case 0:
			return rdf.Literal("100000000000000000000000.25", rdf.XSDNS+"decimal")
		case 1:
			return rdf.Literal(fmt.Sprint(r.IntN(2000)), rdf.XSDNS+"integer")
		case 2:
			return rdf.String("999")
		}
		return rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(2000), r.IntN(100)), rdf.XSDNS+"decimal")
	}
	for i := range offers {
		o := ex("offer", i)
		// 0–2 of each: most offers one.
		for range []int{0, 1, 1, 1, 1, 1, 1, 2}[r.IntN(8)] {
			add(o, rdf.IRI("http://ex.org/vendor"), vendor(r.IntN(vendors)))
		}
		for range []int{0, 1, 1, 1, 1, 1, 2}[r.IntN(7)] {
			add(o, rdf.IRI("http://ex.org/days"), days())
		}
		for range []int{0, 1, 1, 1, 2}[r.IntN(5)] {
			add(o, rdf.IRI("http://ex.org/price"), price())
		}
	}
	for v := range vendors {
		if v%11 != 5 {
			add(vendor(v), rdf.IRI("http://ex.org/country"), ex("country", v%5))
		}
	}
	return FromIndex(b.Build())
}

// TestGroupOverProjectionMatchesPlain: a GROUP BY over a subquery that only projects (h135's innermost level:
// COUNT per vendor over the offers delivering soon) is counted by the star paths as over the subquery's pattern,
// and answers as the plain evaluation does, with the data's missing, repeated and non-numeric values and offers of
// two vendors: other ranges (> 5, a decimal price), the nested and the flat form. A group reading a variable the
// projection hides (unbound there) must not see through it: COUNT(?days) over the subquery is 0, over the pattern
// it is not. Each vendor a key or few: 40 vendors and 6 000 (more than the least table of counts holds).
func TestGroupOverProjectionMatchesPlain(t *testing.T) {
	const pre = `PREFIX ex: <http://ex.org/> `
	sub := func(filter string) string {
		return `{ SELECT ?offer ?vendor WHERE { ?offer ex:vendor ?vendor ; ex:days ?days FILTER(` + filter + `) } }`
	}
	for _, c := range []struct {
		q       string
		handled bool
	}{
		{`SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { ` + sub(`?days <= 3`) + ` } GROUP BY ?vendor`, true},
		{`SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { ` + sub(`?days > 5`) + ` } GROUP BY ?vendor`, true},
		{`SELECT ?vendor (COUNT(*) AS ?n) (COUNT(?vendor) AS ?k) WHERE { ` + sub(`?days >= 1 && ?days < 4`) + ` } GROUP BY ?vendor`, true},
		{`SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { ?offer ex:vendor ?vendor ; ex:days ?days FILTER(?days <= 3) } GROUP BY ?vendor`, true},
		{`SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { { SELECT ?offer ?vendor WHERE { ?offer ex:vendor ?vendor ; ex:price ?p FILTER(?p < 1000) } } } GROUP BY ?vendor`, true},
		{`SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { { SELECT ?offer ?vendor ?days WHERE { ?offer ex:vendor ?vendor ; ex:days ?days FILTER(?days <= 3) } } } GROUP BY ?vendor`, true},
		// Hidden by the projection: unbound in the group.
		{`SELECT ?vendor (COUNT(?days) AS ?n) WHERE { ` + sub(`?days <= 3`) + ` } GROUP BY ?vendor`, false},
		{`SELECT ?days (COUNT(?offer) AS ?n) WHERE { ` + sub(`?days <= 3`) + ` } GROUP BY ?days`, false},
		{`SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { { SELECT DISTINCT ?offer ?vendor WHERE { ?offer ex:vendor ?vendor ; ex:days ?days FILTER(?days <= 3) } } } GROUP BY ?vendor`, false},
		{`SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { { SELECT ?offer ?vendor WHERE { ?offer ex:vendor ?vendor ; ex:days ?days FILTER(?days <= 3) } LIMIT 50 } } GROUP BY ?vendor`, false},
	} {
		for _, vendors := range []int{40, 6000} {
			ds := offerVendorData(t, uint64(vendors), 8000, vendors)
			src := pre + c.q
			got, want := groupsBothWays(t, ds, src)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%d vendors: %s:\n got %d groups %.300q\nwant %d groups %.300q", vendors, c.q, len(got), got, len(want), want)
			}
			if len(want) < 10 && !strings.Contains(c.q, "LIMIT") && !strings.Contains(c.q, "GROUP BY ?days") {
				t.Errorf("%d vendors: %s: %d groups: the data does not test it", vendors, c.q, len(want))
			}
			path := func(e *evaluator, x *algebra.Group, in []ID, gs *groupState, errp *error) (bool, bool) {
				return e.groupStars(e.unprojectedOf(x), in, gs, errp)
			}
			if handled := groupPathTakes(t, ds, src, path); handled != c.handled {
				t.Errorf("%s: handled %v, want %v", c.q, handled, c.handled)
			}
		}
	}
}

// TestH135ShapeMatchesPlain: the three levels of h135 and its flat form, on data with every value form above, give
// the plain evaluation's answer (each level of groups as the reference groups them, solutions in order).
func TestH135ShapeMatchesPlain(t *testing.T) {
	const pre = `PREFIX ex: <http://ex.org/> `
	for _, q := range []string{
		`SELECT ?country ?top ?vendors WHERE { { SELECT ?country (MAX(?n) AS ?top) (COUNT(?vendor) AS ?vendors) WHERE {
			{ SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { { SELECT ?offer ?vendor WHERE {
				?offer ex:vendor ?vendor ; ex:days ?days FILTER(?days <= 3) } } } GROUP BY ?vendor }
			?vendor ex:country ?country } GROUP BY ?country } } ORDER BY DESC(?top) ?country`,
		`SELECT ?country (MIN(?n) AS ?low) (SUM(?n) AS ?all) WHERE {
			{ SELECT ?vendor (COUNT(?offer) AS ?n) WHERE { ?offer ex:vendor ?vendor ; ex:price ?p FILTER(?p < 1000) } GROUP BY ?vendor }
			?vendor ex:country ?country } GROUP BY ?country ORDER BY ?country`,
	} {
		for _, vendors := range []int{40, 6000} {
			ds := offerVendorData(t, uint64(vendors)+1, 8000, vendors)
			got, want := groupsBothWays(t, ds, pre+q)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) < 5 {
				t.Errorf("%d vendors: %s:\n got %d %.300q\nwant %d %.300q", vendors, q, len(got), got, len(want), want)
			}
		}
	}
}

// groupsBothWays returns the first group of src evaluated (got) and by the reference (want), each sorted: groups
// come in no order.
func groupsBothWays(t *testing.T, ds *Dataset, src string) (got, want []string) {
	t.Helper()
	got, _ = runGroup(t, ds, src, false)
	want, _ = runGroup(t, ds, src, true)
	slices.Sort(got)
	slices.Sort(want)
	return got, want
}

// TestKeyCountSlotKeepsEveryCount: countRowsByKey's table, so small that most objects are evicted and come back,
// hands on for each object the counts it was given, in total.
func TestKeyCountSlotKeepsEveryCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 10, 16, 40, 1000} {
		table := make([]keyCount, 16)
		got, want := map[ID]int64{}, map[ID]int64{}
		evictions := 0
		for range 20000 {
			o := ID(1 + r.IntN(n))
			want[o]++
			kc, evict := keyCountSlot(table, o)
			if evict {
				got[kc.o] += kc.n
				evictions++
			}
			if kc.o != o {
				*kc = keyCount{o: o}
			}
			kc.n++
		}
		for _, kc := range table {
			if kc.o != 0 {
				got[kc.o] += kc.n
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d objects: got %v, want %v", n, got, want)
		}
		if (n == 1 && evictions > 0) || (n > len(table) && evictions == 0) {
			t.Errorf("%d objects in %d slots: %d evictions", n, len(table), evictions)
		}
	}
}
