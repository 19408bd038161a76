package protocol

import (
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

func TestIsLookup(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  bool
	}{
		{"SELECT * WHERE { <http://ex.org/s> ?p ?o }", true},
		{"ASK { <http://ex.org/s> <http://ex.org/p> <http://ex.org/o> }", true},
		{"DESCRIBE <http://ex.org/s>", true},
		{"CONSTRUCT WHERE { <http://ex.org/s> ?p ?o }", true},
		// Chained from the constant, in any order of writing.
		{"SELECT ?l WHERE { ?n <http://ex.org/label> ?l . <http://ex.org/s> <http://ex.org/next> ?n }", true},
		{"SELECT ?l WHERE { <http://ex.org/s> ?p ?n OPTIONAL { ?n <http://ex.org/label> ?l FILTER(lang(?l) = 'en') } } ORDER BY ?l LIMIT 3", true},
		{"SELECT ?v WHERE { VALUES ?s { <http://ex.org/a> <http://ex.org/b> } ?s <http://ex.org/val> ?v }", true},
		{"SELECT ?v WHERE { BIND(<http://ex.org/a> AS ?s) ?s <http://ex.org/val> ?v }", true},
		{"SELECT (COUNT(*) AS ?n) WHERE { <http://ex.org/s> ?p ?o } GROUP BY ?p", true},
		{"SELECT * WHERE { <http://ex.org/s> ?p ?o FILTER NOT EXISTS { ?o a <http://ex.org/C> } }", true},
		{"SELECT * WHERE { { <http://ex.org/a> ?p ?o } UNION { <http://ex.org/b> ?p ?o } }", true},
		{"SELECT * WHERE { GRAPH <http://ex.org/g> { <http://ex.org/s> ?p ?o } }", true},
		{"SELECT * WHERE { <http://ex.org/s> ?p ?o { SELECT ?n WHERE { <http://ex.org/t> ?q ?n } } ?n ?r ?x }", true},
		// Scans.
		{"SELECT * WHERE { ?s ?p ?o }", false},
		{"SELECT * WHERE { ?s <http://ex.org/p> <http://ex.org/o> }", false},
		{"SELECT * WHERE { <http://ex.org/s> ?p ?o . ?x ?q ?o }", false},
		{"SELECT * WHERE { <http://ex.org/s> ?p ?o FILTER EXISTS { ?x ?q ?o } }", false},
		{"SELECT * WHERE { <http://ex.org/s> ?p ?o MINUS { ?x ?q ?o } }", false},
		// A sub-query runs on its own, whatever is bound outside it.
		{"SELECT * WHERE { <http://ex.org/s> ?p ?o { SELECT ?o WHERE { ?o ?q ?r } } }", false},
		// A variable one branch of a UNION leaves unbound.
		{"SELECT * WHERE { { <http://ex.org/a> ?p ?o } UNION { <http://ex.org/b> ?p ?q } ?o ?r ?t }", false},
		{"SELECT * WHERE { <http://ex.org/s> (<http://ex.org/p>|<http://ex.org/q>)+ ?o }", false},
		{"SELECT * WHERE { SERVICE <http://ex.org/sparql> { <http://ex.org/s> ?p ?o } }", false},
	} {
		q, err := parser.Parse(tc.query, parser.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if got := isLookup(q); got != tc.want {
			t.Errorf("isLookup(%s) = %v, want %v", tc.query, got, tc.want)
		}
	}
}
