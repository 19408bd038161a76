package eval_test

import (
	"context"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// FuzzQuery parses and evaluates arbitrary queries over a small dataset: every query either fails to parse with a
// syntax error or evaluates (possibly with an expression error) without panicking, within bounded time and memory.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		`SELECT * { ?s ?p ?o }`,
		`SELECT ?s (COUNT(*) AS ?n) { ?s ?p ?o OPTIONAL { ?o ?q ?r } FILTER(?p != <http://ex.org/p1>) } GROUP BY ?s HAVING (?n > 1) ORDER BY DESC(?n) LIMIT 3`,
		`ASK { ?s <http://ex.org/p0>+ ?o MINUS { ?o ?p "x"@en } }`,
		`CONSTRUCT { ?o ?p [ <http://ex.org/q> ?s ] } WHERE { ?s ?p ?o BIND(STRLEN(STR(?o)) AS ?l) VALUES ?p { <http://ex.org/p1> UNDEF } }`,
		`SELECT ?x { { SELECT DISTINCT ?x { ?x !(<http://ex.org/p0>|^<http://ex.org/p1>)* ?y } } FILTER NOT EXISTS { ?x ?p 1 } }`,
		`DESCRIBE ?s WHERE { GRAPH ?g { ?s ?p ?o } }`,
		`SELECT ?s (SUM(?o * 2) AS ?t) (MAX(?o) AS ?m) { ?s ?p ?o FILTER(?o >= -2.5 || ?o = 1) BIND(?o - 1 AS ?d) ?x ?q ?d } GROUP BY ?s`,
		`SELECT (REGEX(?o, "^(a|b)*c", "i") AS ?m) (SUBSTR(?o, 2) AS ?t) (xsd:integer(?o) AS ?i) { ?s ?p ?o }`,
	} {
		f.Add(s)
	}
	b := newBuilder()
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	for i, q := range []rdf.Quad{
		rdf.Triple(ex("a"), ex("p0"), ex("b")), rdf.Triple(ex("b"), ex("p0"), ex("a")), rdf.Triple(ex("b"), ex("p1"), rdf.String("abc")),
		rdf.Triple(ex("a"), ex("p1"), rdf.Literal("1", rdf.XSDInteger)), rdf.Triple(rdf.Blank("x"), ex("p0"), rdf.LangString("x", "en")),
		{S: ex("c"), P: ex("p0"), O: ex("a"), G: ex("g1")},
		// numbers and a date held in their ids beside equal values in the dictionary
		rdf.Triple(ex("c"), ex("p1"), rdf.Literal("01", rdf.XSDInteger)), rdf.Triple(ex("c"), ex("p2"), rdf.Literal("-2.50", rdf.XSDDecimal)),
		rdf.Triple(ex("b"), ex("p2"), rdf.Literal("-2.5000", rdf.XSDDecimal)), rdf.Triple(ex("a"), ex("p2"), rdf.Literal("2008-06-20", rdf.XSDNS+"date")),
	} {
		if err := b.Add(q); err != nil {
			f.Fatal(i, err)
		}
	}
	ds := eval.FromIndex(b.Build())
	f.Fuzz(func(t *testing.T, src string) {
		q, err := parser.Parse(src, parser.Options{Base: "http://ex.org/"})
		if err != nil {
			return
		}
		_, _ = eval.Run(context.Background(), ds, q, eval.Options{Timeout: 2 * time.Second, MaxRows: 100_000})
	})
}
