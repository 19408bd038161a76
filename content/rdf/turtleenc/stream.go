package turtleenc

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// StreamEncoder writes Turtle or TriG as statements come, in memory that does not grow with the graph: the
// prefixes first, then one statement block per run of statements about the same subject (predicates joined with
// ';', objects of one predicate with ','), and in TriG one graph block per run of statements in the same graph.
// IRIs are abbreviated with the prefixes as Encoder does; what it cannot do without the whole graph is nest blank
// nodes, write collections, merge a subject's runs or drop repeated statements, so input grouped by subject (as
// the pipeline's sorted dumps are) reads best. Encoder is the pretty form for graphs that fit in memory.
type StreamEncoder struct {
	w       *bufio.Writer
	n       *namer
	trig    bool
	started bool
	closed  bool
	err     error

	open    bool // a statement is open
	inGraph bool // a named graph block is open
	g, s, p rdf.Term
	sb      strings.Builder
	preds   map[string]string // spelled predicates
}

// NewStreamEncoder returns a streaming Turtle encoder; a quad in a named graph is an error.
func NewStreamEncoder(w io.Writer, o rdf.EncodeOptions) *StreamEncoder { return newStream(w, o, false) }

// NewTriGStreamEncoder returns a streaming TriG encoder.
func NewTriGStreamEncoder(w io.Writer, o rdf.EncodeOptions) *StreamEncoder {
	return newStream(w, o, true)
}

func newStream(w io.Writer, o rdf.EncodeOptions, trig bool) *StreamEncoder {
	// No base: a relative reference would need every reader to know the document's IRI, which a dump file loses.
	return &StreamEncoder{w: bufio.NewWriterSize(w, 1<<16), n: newNamer(o.Prefixes, ""), trig: trig,
		preds: map[string]string{}}
}

func (e *StreamEncoder) header() {
	e.started = true
	for _, p := range e.n.prefixes {
		e.sb.Reset()
		e.sb.WriteString("@prefix ")
		e.sb.WriteString(p.Name)
		e.sb.WriteString(": ")
		appendIRIRef(&e.sb, p.IRI)
		e.sb.WriteString(" .\n")
		e.w.WriteString(e.sb.String())
	}
}

// term writes t: an abbreviated IRI, a blank node label, or a literal.
func (e *StreamEncoder) term(t rdf.Term) {
	e.sb.Reset()
	switch t.Kind {
	case rdf.KindIRI:
		e.n.appendIRI(&e.sb, t.Value)
	case rdf.KindBlank:
		e.sb.WriteString("_:")
		if validBlankLabel(t.Value) {
			e.sb.WriteString(t.Value)
		} else {
			// A label Turtle cannot spell is written as its bytes in hex: distinct labels stay distinct.
			e.sb.WriteString("x")
			e.sb.WriteString(hex.EncodeToString([]byte(t.Value)))
		}
	default:
		e.n.appendLiteral(&e.sb, t)
	}
	e.w.WriteString(e.sb.String())
}

func (e *StreamEncoder) predicate(p string) {
	if p == rdf.RDFType {
		e.w.WriteByte('a')
		return
	}
	s, ok := e.preds[p]
	if !ok {
		e.sb.Reset()
		e.n.appendIRI(&e.sb, p)
		s = e.sb.String()
		if len(e.preds) < 4096 {
			e.preds[p] = s
		}
	}
	e.w.WriteString(s)
}

// Encode writes q, or returns why Turtle/TriG cannot hold it (nothing is written then).
func (e *StreamEncoder) Encode(q rdf.Quad) error {
	if e.err != nil {
		return e.err
	}
	if e.closed {
		return ErrClosed
	}
	if err := checkShape(q, e.trig); err != nil {
		return reject(q, err)
	}
	for _, t := range [...]rdf.Term{q.S, q.P, q.O, q.G} {
		if err := checkTerm(t); err != nil {
			return reject(q, err)
		}
	}
	if !e.started {
		e.header()
	}
	indent := ""
	if !q.G.IsZero() {
		indent = "  "
	}
	switch {
	case e.open && q.G == e.g && q.S == e.s && q.P == e.p:
		e.w.WriteString(", ")
	case e.open && q.G == e.g && q.S == e.s:
		e.w.WriteString(" ;\n    ")
		e.w.WriteString(indent)
		e.predicate(q.P.Value)
		e.w.WriteByte(' ')
	default:
		if e.open {
			e.w.WriteString(" .\n")
		}
		if !e.open || q.G != e.g {
			if e.inGraph {
				e.w.WriteString("}\n")
				e.inGraph = false
			}
			if !q.G.IsZero() {
				e.w.WriteByte('\n')
				e.term(q.G)
				e.w.WriteString(" {\n")
				e.inGraph = true
			} else {
				e.w.WriteByte('\n')
			}
		} else if q.G.IsZero() {
			e.w.WriteByte('\n')
		}
		e.w.WriteString(indent)
		e.term(q.S)
		e.w.WriteByte(' ')
		e.predicate(q.P.Value)
		e.w.WriteByte(' ')
		e.open, e.g, e.s = true, q.G, q.S
	}
	e.p = q.P
	e.term(q.O)
	return nil
}

// Close ends the last statement and graph block and flushes. It does not close the underlying writer.
func (e *StreamEncoder) Close() error {
	if e.closed || e.err != nil {
		return e.err
	}
	e.closed = true
	if !e.started {
		e.header()
	}
	if e.open {
		e.w.WriteString(" .\n")
	}
	if e.inGraph {
		e.w.WriteString("}\n")
	}
	if err := e.w.Flush(); err != nil {
		e.err = fmt.Errorf("turtleenc: write: %w", err)
	}
	return e.err
}

var _ rdf.Encoder = (*StreamEncoder)(nil)
