// Package rdfxml reads and writes RDF/XML (RDF 1.1 XML Syntax, https://www.w3.org/TR/rdf-syntax-grammar/).
//
// The decoder streams over encoding/xml's raw token stream and keeps only the stack of open elements, so memory
// grows with nesting depth and the largest literal, not with document size. It does its own namespace processing
// because XML literals must be re-serialised with the prefixes the author wrote (exclusive canonical XML), which
// encoding/xml's namespace translation throws away.
//
// Security: no external entity or DTD is ever fetched. Internal-subset general entities are expanded with caps on
// their size and on the total expansion relative to the input read, so entity bombs fail fast with a syntax error.
package rdfxml
