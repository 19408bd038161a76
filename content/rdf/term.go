// Package rdf holds the RDF 1.1 data model shared by every codec, the store, the pipeline and the SPARQL engine:
// terms, quads, the streaming Decoder/Encoder interfaces and syntax errors. It has no dependencies so that every
// other package can build on it.
package rdf

import "strings"

// Kind tells what a Term is. The zero Kind marks an absent term (the default graph of a Quad).
type Kind uint8

const (
	KindNone Kind = iota
	KindIRI
	KindBlank
	KindLiteral
)

// Well-known IRIs. Literal datatypes are always stored explicitly (RDF 1.1): a simple literal has XSDString,
// a language-tagged one RDFLangString, so comparisons never need to special-case an empty datatype.
const (
	RDFNS            = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	XSDNS            = "http://www.w3.org/2001/XMLSchema#"
	RDFType          = RDFNS + "type"
	RDFFirst         = RDFNS + "first"
	RDFRest          = RDFNS + "rest"
	RDFNil           = RDFNS + "nil"
	RDFLangString    = RDFNS + "langString"
	RDFDirLangString = RDFNS + "dirLangString"
	RDFXMLLiteral    = RDFNS + "XMLLiteral"
	RDFJSON          = RDFNS + "JSON"
	XSDString        = XSDNS + "string"
	XSDBoolean       = XSDNS + "boolean"
	XSDInteger       = XSDNS + "integer"
	XSDDecimal       = XSDNS + "decimal"
	XSDDouble        = XSDNS + "double"
)

// Term is an IRI, a blank node or a literal. It is a small value type: decoders hand out Terms by value and
// nothing shares mutable state through them.
type Term struct {
	Kind Kind
	// Value is the IRI, the blank node label (without "_:") or the literal's lexical form.
	Value string
	// Datatype is the literal's datatype IRI; empty for IRIs and blank nodes.
	Datatype string
	// Lang is the literal's language tag as written; empty unless Datatype is RDFLangString.
	Lang string
}

// IRI returns an IRI term.
func IRI(v string) Term { return Term{Kind: KindIRI, Value: v} }

// Blank returns a blank node with the given label.
func Blank(label string) Term { return Term{Kind: KindBlank, Value: label} }

// Literal returns a typed literal; an empty datatype means xsd:string.
func Literal(lex, datatype string) Term {
	if datatype == "" {
		datatype = XSDString
	}
	return Term{Kind: KindLiteral, Value: lex, Datatype: datatype}
}

// String returns a simple literal (xsd:string).
func String(lex string) Term { return Term{Kind: KindLiteral, Value: lex, Datatype: XSDString} }

// LangString returns a language-tagged literal.
func LangString(lex, lang string) Term {
	return Term{Kind: KindLiteral, Value: lex, Datatype: RDFLangString, Lang: lang}
}

func (t Term) IsIRI() bool     { return t.Kind == KindIRI }
func (t Term) IsBlank() bool   { return t.Kind == KindBlank }
func (t Term) IsLiteral() bool { return t.Kind == KindLiteral }
func (t Term) IsZero() bool    { return t.Kind == KindNone }

// Equal reports whether two terms are the same RDF term. Language tags compare case-insensitively (RDF 1.1 §3.3).
func (t Term) Equal(u Term) bool {
	if t.Kind != u.Kind || t.Value != u.Value || t.Datatype != u.Datatype {
		return false
	}
	return t.Lang == u.Lang || strings.EqualFold(t.Lang, u.Lang)
}

// String renders the term in N-Triples syntax; the zero term renders as "".
func (t Term) String() string {
	return string(AppendTerm(nil, t))
}

// Quad is a triple with an optional graph name. A zero G is the default graph, so a Quad doubles as a Triple.
type Quad struct {
	S, P, O, G Term
}

// Triple returns a quad in the default graph.
func Triple(s, p, o Term) Quad { return Quad{S: s, P: p, O: o} }

// Equal reports whether both quads have equal terms in every position.
func (q Quad) Equal(r Quad) bool {
	return q.S.Equal(r.S) && q.P.Equal(r.P) && q.O.Equal(r.O) && q.G.Equal(r.G)
}

// String renders the quad as one N-Quads line without the newline.
func (q Quad) String() string {
	return string(AppendQuad(make([]byte, 0, 128), q))
}

// Prefix is a namespace binding kept from a source document so that encoders can write the names a publisher chose.
type Prefix struct {
	Name string // without the colon; "" for the default prefix
	IRI  string
}
