// Package rdfxml reads and writes RDF/XML (RDF 1.1 XML Syntax, https://www.w3.org/TR/rdf-syntax-grammar/).
//
// The decoder streams over encoding/xml's raw token stream and keeps only the stack of open elements, so memory
// grows with nesting depth and the largest literal, not with document size (the set of rdf:ID values seen is the
// one thing kept for the whole document, because their uniqueness is part of the grammar). It does its own
// namespace processing because XML literals must be re-serialised with the prefixes the author wrote (exclusive
// canonical XML), which encoding/xml's namespace translation throws away.
//
// Security: no external entity or DTD is ever fetched. Internal-subset general entities are expanded with caps on
// each value, on all values together and on the total expansion relative to the input read, so entity bombs fail
// fast with a syntax error. Nesting depth and literal size follow rdf.Limits, and a single oversized token is
// refused while it is being read.
//
// Known limits, each refused with a clear error rather than misread: parameter entities; entity replacement text
// containing markup; encodings other than UTF-8, US-ASCII and ISO-8859-1. encoding/xml cannot scan a DOCTYPE
// internal subset holding a processing instruction with an unbalanced quote. Whitespace that reaches an attribute
// value through an entity reference is not normalised to spaces (literal whitespace in the value is).
//
// The encoder writes readable RDF/XML: one element per subject, typed node elements, blank nodes used once nested
// in place (rdf:parseType="Resource"), well-formed lists as rdf:parseType="Collection" and canonical XML literals
// inline as rdf:parseType="Literal". It refuses, in Encode, triples RDF/XML cannot hold: named graphs, predicates
// with no XML name, characters XML 1.0 cannot carry, and IRIs that are relative or contain characters IRIs cannot.
package rdfxml
