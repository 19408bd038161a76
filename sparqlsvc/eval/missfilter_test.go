package eval

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// missFilterData is a small shop whose computed values are sometimes in the data and mostly not: product labels
// (plain, language-tagged, non-ASCII, repeated across products), their lower-cased texts as plain strings on some
// aliases, webpages naming vendors of which some exist as IRIs, some only as literals of that text, and some not at
// all, and codes whose typed and tagged forms exist for some products only.
func missFilterData(t *testing.T) *Dataset {
	t.Helper()
	p := func(s string) rdf.Term { return exIRI("%s", s) }
	b, add := builderAdding(t)
	texts := []string{"Straße", "İstanbul Lamp", "ÉTÉ chair", "plain Table", "ǅemal", "ς final", "", "NaN", "-0"}
	for i := range 300 {
		s := ex("product", i)
		text := fmt.Sprintf("%s %d", texts[i%len(texts)], i%11) // each text on three or four products
		switch i % 4 {
		case 0:
			add(s, p("label"), rdf.String(text))
		case 1:
			add(s, p("label"), rdf.LangString(text, "de"))
		case 2:
			add(s, p("label"), rdf.LangString(text, "EN-gb"))
		default:
			add(s, p("label"), rdf.Literal(text, "http://ex.org/Name"))
		}
		if i%5 == 0 {
			add(ex("alias", i), p("alias"), rdf.String(strings.ToLower(text)))
		}
		add(s, p("code"), rdf.String(fmt.Sprintf("c%d", i%50)))
		if i%7 == 0 {
			add(ex("typed", i), p("typed"), rdf.Literal(fmt.Sprintf("c%d", i%50), "http://ex.org/Code"))
			add(ex("typed", i), p("tagged"), rdf.LangString(fmt.Sprintf("c%d", i%50), "en"))
		}
		add(s, p("page"), rdf.IRI(fmt.Sprintf("http://www.v%d.example.com/p/%d", i%23, i)))
	}
	for v := range 23 {
		switch v % 3 {
		case 0: // the vendor exists as an IRI
			add(ex("v", v), p("country"), ex("country", v%4))
		case 1: // its IRI's text exists as a literal only
			add(ex("note", v), p("country"), rdf.String(fmt.Sprintf("http://ex.org/v%d", v)))
		}
	}
	return FromIndex(b.Build())
}

// TestMissFilterMatchesPlain: queries whose group keys, DISTINCT values, join keys and FILTER operands are computed
// (SHA256 and LCASE of labels, IRI(CONCAT(REPLACE(…))) joined to the data, STRDT and STRLANG joined to typed and
// tagged literals, computed strings equal to the data's) give the same answers with the dictionary's miss filter
// made as on a dictionary without one, where each computed value is probed.
func TestMissFilterMatchesPlain(t *testing.T) {
	const prefix = "PREFIX ex: <http://ex.org/> "
	queries := []string{
		`SELECT ?key (COUNT(?p) AS ?n) (MIN(STR(?label)) AS ?name) WHERE { ?p ex:label ?label
			BIND(SUBSTR(SHA256(LCASE(STR(?label))), 1, 16) AS ?key) } GROUP BY ?key HAVING (COUNT(?p) > 1)`,
		`SELECT ?k (COUNT(*) AS ?n) ?a WHERE { { SELECT (LCASE(STR(?label)) AS ?k) WHERE { ?p ex:label ?label } }
			OPTIONAL { ?a ex:alias ?k } } GROUP BY ?k ?a`,
		`SELECT ?k ?a WHERE { ?p ex:label ?label BIND(STR(?label) AS ?k) ?a ex:alias ?k }`,
		`SELECT DISTINCT ?k WHERE { ?p ex:label ?label BIND(UCASE(STR(?label)) AS ?k) }`,
		`SELECT ?country (COUNT(?p) AS ?n) WHERE { ?p ex:page ?page
			BIND(IRI(CONCAT("http://ex.org/", REPLACE(STR(?page), "^http://www\\.([a-z0-9]+)\\.example\\.com/.*$", "$1"))) AS ?v)
			?v ex:country ?country } GROUP BY ?country`,
		`SELECT ?v ?x WHERE { ?p ex:page ?page
			BIND(CONCAT("http://ex.org/", REPLACE(STR(?page), "^http://www\\.([a-z0-9]+)\\.example\\.com/.*$", "$1")) AS ?v)
			?x ex:country ?v }`,
		`SELECT ?p ?x WHERE { ?p ex:code ?c BIND(STRDT(?c, ex:Code) AS ?t) ?x ex:typed ?t }`,
		`SELECT ?p ?x WHERE { ?p ex:code ?c BIND(STRLANG(?c, "EN") AS ?t) ?x ex:tagged ?t }`,
		`SELECT (COUNT(*) AS ?n) WHERE { ?p ex:code ?c . ?x ex:typed ?t FILTER(STRDT(?c, ex:Code) = ?t) }`,
		`SELECT ?h (COUNT(*) AS ?n) WHERE { ?p ex:label ?l BIND(MD5(STR(?l)) AS ?h) } GROUP BY ?h ORDER BY ?h LIMIT 5`,
	}
	for _, q := range queries {
		plainDS := missFilterData(t)
		want, _ := runTop(t, plainDS, prefix+q, false)
		if plainDS.Dict.MissFilterBytes() != 0 {
			t.Fatalf("%s: the plain run made the filter", q)
		}
		ds := missFilterData(t)
		ds.Dict.MakeMissFilter()
		if ds.Dict.MissFilterBytes() == 0 {
			t.Fatal("no filter made")
		}
		got, _ := runTop(t, ds, prefix+q, false)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\nfiltered %q\nplain    %q", q, got, want)
		}
		if len(want) == 0 {
			t.Errorf("%s: no answers, so nothing compared", q)
		}
	}
}
