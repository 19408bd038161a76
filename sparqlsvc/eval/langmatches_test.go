package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestLangMatchesTagMatchesFunction: langMatches(LANG(?o), range) answered from the tag in the dictionary key
// (langMatchesTag) gives what the function as written gives (LANG of COALESCE(?o), which langMatchesTag does not
// read) in a FILTER, under "!" and in a BIND: over tags with subtags and in capitals, simple, xsd:string and typed
// literals, numbers held in ids, IRIs and blank nodes (LANG of which is an error) and an unbound OPTIONAL value;
// ranges in either case, "*", a subtag range, the empty range and ranges that are not simple literals.
func TestLangMatchesTagMatchesFunction(t *testing.T) {
	b := index.NewBuilder()
	objs := []rdf.Term{
		rdf.LangString("Titel", "de"), rdf.LangString("title", "en"), rdf.LangString("color", "en-US"),
		rdf.LangString("colour", "EN-gb"), rdf.LangString("titre", "fr"), rdf.LangString("x", "english"),
		rdf.String("plain"), rdf.Literal("x00", rdf.XSDString), rdf.Literal("100", rdf.XSDInteger),
		rdf.Literal("Offer00", "http://ex.org/type"), rdf.IRI("http://ex.org/o"), rdf.Blank("b00"),
	}
	add := graphAdder(t, b)
	for i, o := range objs {
		add("", exIRI("s%d", i), exIRI("p"), exIRI("x"))
		add("", exIRI("s%d", i), exIRI("q"), o)
	}
	add("", exIRI("lone"), exIRI("p"), exIRI("x"))
	ds := FromIndex(b.Build())
	kept := 0
	for _, rng := range []string{`"de"`, `"EN"`, `"en"`, `"*"`, `"en-us"`, `""`, `"e"`, `"en"@en`,
		`"en"^^<http://www.w3.org/2001/XMLSchema#string>`, `"en"^^<http://ex.org/type>`} {
		call := "langMatches(LANG(?o), " + rng + ")"
		ref := "langMatches(LANG(COALESCE(?o)), " + rng + ")"
		for _, form := range []string{
			`SELECT ?s { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } FILTER(%s) }`,
			`SELECT ?s { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } FILTER(!%s) }`,
			`SELECT ?s ?r { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } BIND(%s AS ?r) }`,
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
	if kept < 10 {
		t.Fatalf("%d rows kept in all: the data does not test the function", kept)
	}
}
