package ntriples

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

const writeBufferSize = 256 << 10

// Encoder writes canonical N-Triples or N-Quads, one statement per line.
type Encoder struct {
	w      *bufio.Writer
	syntax string
	quads  bool
	line   []byte
	sb     strings.Builder
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
	b := e.appendTerm(e.line[:0], q.S)
	b = append(b, ' ')
	b = e.appendTerm(b, q.P)
	b = append(b, ' ')
	b = e.appendTerm(b, q.O)
	if !q.G.IsZero() {
		b = append(b, ' ')
		b = e.appendTerm(b, q.G)
	}
	b = append(b, " .\n"...)
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

// appendTerm appends t in canonical form. Terms that need no escaping — nearly all of them — are copied directly;
// the rest go through rdf.AppendNTriples so every writer escapes exactly alike.
func (e *Encoder) appendTerm(b []byte, t rdf.Term) []byte {
	switch t.Kind {
	case rdf.KindIRI:
		if plainIRI(t.Value) {
			b = append(b, '<')
			b = append(b, t.Value...)
			return append(b, '>')
		}
	case rdf.KindBlank:
		b = append(b, "_:"...)
		return append(b, t.Value...)
	case rdf.KindLiteral:
		if plainString(t.Value) {
			switch {
			case t.Lang != "":
				b = append(b, '"')
				b = append(b, t.Value...)
				b = append(b, "\"@"...)
				return append(b, t.Lang...)
			case t.Datatype == "" || t.Datatype == rdf.XSDString:
				b = append(b, '"')
				b = append(b, t.Value...)
				return append(b, '"')
			case plainIRI(t.Datatype):
				b = append(b, '"')
				b = append(b, t.Value...)
				b = append(b, "\"^^<"...)
				b = append(b, t.Datatype...)
				return append(b, '>')
			}
		}
	}
	e.sb.Reset()
	rdf.AppendNTriples(&e.sb, t)
	return append(b, e.sb.String()...)
}

// plainIRI reports whether rdf.AppendNTriples would copy s unchanged inside <...>.
func plainIRI(s string) bool {
	for i := 0; i < len(s); i++ {
		if iriClass[s[i]] == clSpecial {
			return false
		}
	}
	return true
}

// plainString reports whether rdf.AppendEscapedString would copy s unchanged.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c == 0x7f {
			return false
		}
	}
	return true
}
