package ntriples

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
)

const writeBufferSize = 256 << 10

// Encoder writes canonical N-Triples or N-Quads, one statement per line.
type Encoder struct {
	w      *bufio.Writer
	syntax string
	quads  bool
	line   []byte
	err    error
}

// NewEncoder returns an encoder of N-Triples; encoding a statement in a named graph is an error.
func NewEncoder(w io.Writer, _ rdf.EncodeOptions) *Encoder {
	return &Encoder{w: bufio.NewWriterSize(w, writeBufferSize), syntax: syntaxNT}
}

// NewQuadEncoder returns an encoder of N-Quads.
func NewQuadEncoder(w io.Writer, _ rdf.EncodeOptions) *Encoder {
	return &Encoder{w: bufio.NewWriterSize(w, writeBufferSize), syntax: syntaxNQ, quads: true}
}

// Encode writes one statement.
func (e *Encoder) Encode(q rdf.Quad) error {
	if e.err != nil {
		return e.err
	}
	if err := e.check(q); err != nil {
		return err
	}
	b := append(rdf.AppendQuad(e.line[:0], q), '\n')
	e.line = b
	if _, err := e.w.Write(b); err != nil {
		e.err = fmt.Errorf("%s: write: %w", e.syntax, err)
	}
	return e.err
}

// Close flushes buffered output; it does not close the underlying writer.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	if err := e.w.Flush(); err != nil {
		e.err = fmt.Errorf("%s: write: %w", e.syntax, err)
	}
	return e.err
}

// check rejects statements the syntax cannot express, so the output always reads back.
func (e *Encoder) check(q rdf.Quad) error {
	if !q.G.IsZero() && !e.quads {
		return fmt.Errorf("%s: cannot write a statement in named graph %s (use N-Quads)", e.syntax, q.G)
	}
	switch {
	case q.S.Kind != rdf.KindIRI && q.S.Kind != rdf.KindBlank:
		return fmt.Errorf("%s: subject must be an IRI or blank node: %s", e.syntax, q)
	case q.P.Kind != rdf.KindIRI:
		return fmt.Errorf("%s: predicate must be an IRI: %s", e.syntax, q)
	case q.O.Kind == rdf.KindNone:
		return fmt.Errorf("%s: statement without object: %s", e.syntax, q)
	case !q.G.IsZero() && q.G.Kind != rdf.KindIRI && q.G.Kind != rdf.KindBlank:
		return fmt.Errorf("%s: graph name must be an IRI or blank node: %s", e.syntax, q)
	}
	for _, t := range [...]rdf.Term{q.S, q.O, q.G} {
		if t.Kind == rdf.KindBlank && !validBlankLabel(t.Value) {
			return fmt.Errorf("%s: blank node label %q cannot be written in %s", e.syntax, t.Value, e.syntax)
		}
	}
	return nil
}

// validBlankLabel reports whether l matches the label part of BLANK_NODE_LABEL.
func validBlankLabel(l string) bool {
	if l == "" || l[len(l)-1] == '.' {
		return false
	}
	for i, r := range l {
		switch {
		case i == 0:
			if !isPNCharsU(r) && !(r >= '0' && r <= '9') {
				return false
			}
		case r == '.':
		case !isPNChars(r):
			return false
		}
	}
	return true
}
