// Package sparqlsvc is ldhub's SPARQL 1.1 engine. It is split like Oxigraph (spargebra → sparopt → spareval →
// sparesults) so that data flows one way and every stage can be tested on its own:
//
//   - sparqlsvc/parser turns query text into the syntax tree of sparqlsvc/algebra and checks the grammar's side
//     conditions (variable scope, grouping, blank-node scope) so that a query that parses is a valid query;
//   - sparqlsvc/algebra holds the syntax tree, its translation to the SPARQL algebra (SPARQL 1.1 §18.2) and an
//     S-expression printer used by tests;
//   - the optimizer, evaluator and result writers build on the algebra.
package sparqlsvc
