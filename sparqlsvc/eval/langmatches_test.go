package eval

import (
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestLangMatchesTagMatchesFunction: langMatches(LANG(?o), range) answered from the tag in the dictionary key
// (langMatchesTag) gives what the function as written gives (LANG of COALESCE(?o), which langMatchesTag does not
// read) in a FILTER, under "!" and in a BIND: over tags with subtags and in capitals, simple, xsd:string and typed
// literals, numbers held in ids, IRIs and blank nodes (LANG of which is an error) and an unbound OPTIONAL value;
// ranges in either case, "*", a subtag range, the empty range and ranges that are not simple literals.
func TestLangMatchesTagMatchesFunction(t *testing.T) {
	ds := optionalObjects(t, []rdf.Term{
		rdf.LangString("Titel", "de"), rdf.LangString("title", "en"), rdf.LangString("color", "en-US"),
		rdf.LangString("colour", "EN-gb"), rdf.LangString("titre", "fr"), rdf.LangString("x", "english"),
		rdf.String("plain"), rdf.Literal("x00", rdf.XSDString), rdf.Literal("100", rdf.XSDInteger),
		rdf.Literal("Offer00", "http://ex.org/type"), rdf.IRI("http://ex.org/o"), rdf.Blank("b00"),
	})
	kept := 0
	for _, rng := range []string{`"de"`, `"EN"`, `"en"`, `"*"`, `"en-us"`, `""`, `"e"`, `"en"@en`,
		`"en"^^<http://www.w3.org/2001/XMLSchema#string>`, `"en"^^<http://ex.org/type>`} {
		call := "langMatches(LANG(?o), " + rng + ")"
		ref := "langMatches(LANG(COALESCE(?o)), " + rng + ")"
		kept += len(compareForms(t, ds, call, ref,
			`SELECT ?s { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } FILTER(%s) }`,
			`SELECT ?s { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } FILTER(!%s) }`,
			`SELECT ?s ?r { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } BIND(%s AS ?r) }`,
		)[0])
	}
	if kept < 10 {
		t.Fatalf("%d rows kept in all: the data does not test the function", kept)
	}
}
