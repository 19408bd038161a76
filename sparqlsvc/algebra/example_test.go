package algebra_test

import (
	"fmt"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// ExampleWalk lists the triple patterns and property paths of a query, including those inside EXISTS, the way an
// optimizer or evaluator walks the algebra: a type switch per node.
func ExampleWalk() {
	q, err := parser.Parse(`PREFIX : <http://example.org/>
		SELECT ?s WHERE {
		  ?s :knows+ ?o .
		  OPTIONAL { ?o :name ?n }
		  FILTER NOT EXISTS { ?s :blocked ?o }
		}`, parser.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	algebra.Walk(q.Op, func(op algebra.Op) bool {
		switch o := op.(type) {
		case *algebra.BGP:
			for _, t := range o.Triples {
				fmt.Println("triple", t.S.Var, t.P.Term.Value, t.O.Var)
			}
		case *algebra.PathPattern:
			fmt.Println("path", o.S.Var, algebra.FormatPath(o.Path), o.O.Var)
		}
		return true
	})
	fmt.Println("result variables:", q.ResultVars())
	// Output:
	// triple s http://example.org/blocked o
	// path s (path+ <http://example.org/knows>) o
	// triple o http://example.org/name n
	// result variables: [s]
}
