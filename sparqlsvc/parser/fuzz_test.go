package parser_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// FuzzParse checks that no input makes the parser panic and that every rejection is a positioned syntax error.
// Seeds are the W3C syntax test queries when the suites are present.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT * { ?s ?p ?o }",
		"PREFIX : <http://ex/> SELECT ?s (COUNT(*) AS ?n) { ?s :p/:q* [ :r (1 2) ] FILTER NOT EXISTS { ?s ^:a ?x } } GROUP BY ?s",
		"CONSTRUCT WHERE { ?s ?p ?o }",
		"ASK { VALUES (?a ?b) { (1 UNDEF) } BIND(?a + -1 AS ?c) }",
		"SELECT * { ?s !(^:a|:b) ?o } ORDER BY DESC(?s) LIMIT 1 OFFSET 2",
		"SELECT * { ?s ?p \"\\u00e9\\U0001F46A\" . \\u003Fs ?p <http://ex/\\u0061> }",
	} {
		f.Add(s)
	}
	if files, err := filepath.Glob(filepath.Join(conformance.SuitesDir(f), "sparql/sparql1*/syntax-*/*.rq")); err == nil {
		for _, name := range files {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(string(b))
			}
		}
	}
	f.Fuzz(func(t *testing.T, query string) {
		q, err := parser.Parse(query, parser.Options{Base: "http://example.org/base"})
		if err != nil {
			var se *rdf.SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("error without position for %q: %v", query, err)
			}
			if lines := strings.Count(query, "\n") + 1; se.Line > lines {
				t.Fatalf("error on line %d of a %d-line query %q: %v", se.Line, lines, query, err)
			}
			return
		}
		if err := checkAlgebra(q); err != nil {
			t.Fatalf("%q: %v", query, err)
		}
		_ = algebra.FormatQuery(q)
	})
}
