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
	b := AppendTerm(e.line[:0], q.S)
	b = append(b, ' ')
	b = AppendTerm(b, q.P)
	b = append(b, ' ')
	b = AppendTerm(b, q.O)
	if !q.G.IsZero() {
		b = append(b, ' ')
		b = AppendTerm(b, q.G)
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

// AppendTerm appends t in canonical form, byte for byte what rdf.AppendNTriples writes (TestEncodeMatchesShared
// holds the two together); appending to a reused []byte instead of a strings.Builder saves an allocation per term,
// which is why streaming encoders elsewhere (the pipeline's Turtle dump) use it too.
func AppendTerm(b []byte, t rdf.Term) []byte {
	switch t.Kind {
	case rdf.KindIRI:
		b = append(b, '<')
		b = appendIRI(b, t.Value)
		return append(b, '>')
	case rdf.KindBlank:
		b = append(b, "_:"...)
		return append(b, t.Value...)
	case rdf.KindLiteral:
		b = append(b, '"')
		b = appendString(b, t.Value)
		b = append(b, '"')
		switch {
		case t.Lang != "":
			b = append(b, '@')
			b = append(b, t.Lang...)
		case t.Datatype != "" && t.Datatype != rdf.XSDString:
			b = append(b, "^^<"...)
			b = appendIRI(b, t.Datatype)
			b = append(b, '>')
		}
		return b
	}
	// The zero term: rdf.AppendNTriples writes nothing for it either.
	return b
}

const hexDigits = "0123456789ABCDEF"

// appendIRI escapes what IRIREF forbids as \u00XX, like rdf.AppendNTriples.
func appendIRI(b []byte, s string) []byte {
	if plainIRI(s) {
		return append(b, s...)
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if iriClass[c] != clSpecial {
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		start = i + 1
	}
	return append(b, s[start:]...)
}

// appendString escapes a string body like rdf.AppendEscapedString: short escapes where they exist, \u00XX for the
// other control characters.
func appendString(b []byte, s string) []byte {
	if plainString(s) {
		return append(b, s...)
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc byte
		switch c {
		case '"':
			esc = '"'
		case '\\':
			esc = '\\'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		case '\t':
			esc = 't'
		case '\b':
			esc = 'b'
		case '\f':
			esc = 'f'
		default:
			if c < 0x20 || c == 0x7f {
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				start = i + 1
			}
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, '\\', esc)
		start = i + 1
	}
	return append(b, s[start:]...)
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
