package parser_test

import (
	"fmt"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

func ExampleParse() {
	q, err := parser.Parse(`
		PREFIX foaf: <http://xmlns.com/foaf/0.1/>
		SELECT ?name (COUNT(?friend) AS ?friends)
		WHERE {
		  ?person foaf:name ?name .
		  OPTIONAL { ?person foaf:knows ?friend }
		}
		GROUP BY ?name
		ORDER BY DESC(?friends)
		LIMIT 10`, parser.Options{Base: "http://example.org/"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(algebra.Format(q.Op))
	// Output:
	// (slice 0 10
	//   (project (?name ?friends)
	//     (order ((desc ?friends))
	//       (extend ((?friends ?.agg1))
	//         (group (?name) ((?.agg1 (count ?friend)))
	//           (leftjoin
	//             (bgp (triple ?person <http://xmlns.com/foaf/0.1/name> ?name))
	//             (bgp (triple ?person <http://xmlns.com/foaf/0.1/knows> ?friend))))))))
}

func ExampleParse_error() {
	_, err := parser.Parse("SELECT * WHERE {\n  ?s ?p ?o\n  ?s ?q ?r\n}", parser.Options{})
	fmt.Println(err)
	// Output:
	// sparql: line 3, column 3: expected '.' or '}' but found '?s'
}
