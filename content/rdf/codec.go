package rdf

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
)

// Decoder streams the statements of one source document. Next returns io.EOF after the last quad; any other error
// ends the stream (a *SyntaxError for bad input).
type Decoder interface {
	Next() (Quad, error)
}

// Encoder writes statements in one syntax. Close flushes buffered output and writes any trailer; it does not close
// the underlying writer. Encoders that need the whole graph (pretty Turtle, JSON-LD) buffer until Close.
type Encoder interface {
	Encode(Quad) error
	Close() error
}

// PrefixSource is implemented by decoders of syntaxes that declare namespace prefixes (Turtle, TriG, RDF/XML,
// JSON-LD). Prefixes reports those seen so far, in document order.
type PrefixSource interface {
	Prefixes() []Prefix
}

// Limits bound what one document may make a decoder do; zero fields take the defaults below. They protect the hub
// from hostile uploads (deep nesting, huge literals).
type Limits struct {
	MaxDepth       int // nesting of [], (), {} and XML elements
	MaxLiteralSize int // bytes in one literal or IRI
}

const (
	DefaultMaxDepth       = 1000
	DefaultMaxLiteralSize = 64 << 20
)

// Depth returns the effective nesting limit.
func (l Limits) Depth() int {
	if l.MaxDepth > 0 {
		return l.MaxDepth
	}
	return DefaultMaxDepth
}

// LiteralSize returns the effective literal size limit.
func (l Limits) LiteralSize() int {
	if l.MaxLiteralSize > 0 {
		return l.MaxLiteralSize
	}
	return DefaultMaxLiteralSize
}

// DecodeOptions configure a decoder.
type DecodeOptions struct {
	// Base is the IRI that relative references resolve against (the document's retrieval IRI).
	Base string
	// Blanks allocates blank-node labels. Nil gets a fresh allocator with a random prefix, which keeps labels
	// unique across documents; callers that need deterministic output pass NewBlankNodes with a fixed prefix.
	Blanks *BlankNodes
	Limits Limits
}

// BlankNodesOrNew returns o.Blanks or a fresh randomly-prefixed allocator.
func (o DecodeOptions) BlankNodesOrNew() *BlankNodes {
	if o.Blanks != nil {
		return o.Blanks
	}
	var r [4]byte
	_, _ = rand.Read(r[:])
	return NewBlankNodes("b" + hex.EncodeToString(r[:]) + "_")
}

// EncodeOptions configure an encoder.
type EncodeOptions struct {
	// Prefixes to use for abbreviation, typically those of the source document, in order.
	Prefixes []Prefix
	// Base, when set, lets encoders that support it write IRIs relative to it.
	Base string
}

// BlankNodes maps the blank-node labels of one source document to labels unique to that document, and mints
// labels for anonymous nodes. Labels are allocated in order of first use, so the same input and prefix always give
// the same labels.
type BlankNodes struct {
	prefix string
	n      int
	byName map[string]string
}

// NewBlankNodes returns an allocator whose labels all start with prefix. The prefix must itself be a valid
// blank-node label start (a letter, or empty).
func NewBlankNodes(prefix string) *BlankNodes {
	return &BlankNodes{prefix: prefix, byName: make(map[string]string)}
}

// Fresh returns a label no other call returns.
func (b *BlankNodes) Fresh() string {
	b.n++
	return b.prefix + "b" + strconv.Itoa(b.n)
}

// Label returns the document-unique label for a label as written in the source.
func (b *BlankNodes) Label(source string) string {
	if l, ok := b.byName[source]; ok {
		return l
	}
	l := b.Fresh()
	b.byName[source] = l
	return l
}

// Reset forgets source labels (a new document scope, e.g. each JSON-LD or TriG document) but keeps counting, so
// labels stay unique.
func (b *BlankNodes) Reset() { clear(b.byName) }

// SyntaxError reports malformed input with the position where it was found. Line and Column count from 1; Column
// counts characters (runes), not bytes. Zero means unknown.
type SyntaxError struct {
	Syntax string // e.g. "turtle"
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d, column %d: %s", e.Syntax, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Syntax, e.Msg)
}
