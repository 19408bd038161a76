// Package w3c runs the W3C SPARQL 1.0 (data-r2) and SPARQL 1.1 evaluation suites against ldhub's engine: parser,
// algebra, index and evaluator together, exactly as a query against a publication runs.
package w3c
