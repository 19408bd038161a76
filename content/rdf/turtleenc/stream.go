package turtleenc

import (
	"bytes"
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
	out     io.Writer
	n       *namer
	trig    bool
	started bool
	closed  bool
	err     error

	open    bool // a statement is open
	inGraph bool // a named graph block is open
	g, s, p rdf.Term
	// sb is the output buffer, handed to out whenever it passes streamChunk and then reused: the namer spells
	// terms straight into it, with no copy from a scratch builder and no allocation per term.
	sb    bytes.Buffer
	preds map[string]string // spelled predicates
}

// streamChunk is how much output StreamEncoder gathers before writing it.
const streamChunk = 64 << 10

// NewStreamEncoder returns a streaming Turtle encoder; a quad in a named graph is an error.
func NewStreamEncoder(w io.Writer, o rdf.EncodeOptions) *StreamEncoder { return newStream(w, o, false) }

// NewTriGStreamEncoder returns a streaming TriG encoder.
func NewTriGStreamEncoder(w io.Writer, o rdf.EncodeOptions) *StreamEncoder {
	return newStream(w, o, true)
}

func newStream(w io.Writer, o rdf.EncodeOptions, trig bool) *StreamEncoder {
	// No base: a relative reference would need every reader to know the document's IRI, which a dump file loses.
	e := &StreamEncoder{out: w, n: newNamer(o.Prefixes, ""), trig: trig, preds: map[string]string{}}
	e.sb.Grow(streamChunk + streamChunk/4)
	return e
}

// spill writes the buffered output once there is a chunk of it, or all of it when force is set.
func (e *StreamEncoder) spill(force bool) {
	if e.sb.Len() < streamChunk && !force || e.sb.Len() == 0 {
		return
	}
	if _, err := e.out.Write(e.sb.Bytes()); err != nil && e.err == nil {
		e.err = fmt.Errorf("turtleenc: write: %w", err)
	}
	e.sb.Reset()
}

func (e *StreamEncoder) header() {
	e.started = true
	for _, p := range e.n.prefixes {
		e.sb.WriteString("@prefix ")
		e.sb.WriteString(p.Name)
		e.sb.WriteString(": ")
		appendIRIRef(&e.sb, p.IRI)
		e.sb.WriteString(" .\n")
	}
}

// term writes t: an abbreviated IRI, a blank node label, or a literal.
func (e *StreamEncoder) term(t rdf.Term) {
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
}

func (e *StreamEncoder) predicate(p string) {
	if p == rdf.RDFType {
		e.sb.WriteByte('a')
		return
	}
	s, ok := e.preds[p]
	if !ok {
		var b strings.Builder
		e.n.appendIRI(&b, p)
		s = b.String()
		if len(e.preds) < 4096 {
			e.preds[p] = s
		}
	}
	e.sb.WriteString(s)
}

// known reports whether p is a predicate spelled before, and so checked.
func (e *StreamEncoder) known(p rdf.Term) bool {
	if p.Kind != rdf.KindIRI {
		return false
	}
	_, ok := e.preds[p.Value]
	return ok || p.Value == rdf.RDFType
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
	// The subject of an open statement and a predicate already spelled passed these checks before.
	for i, t := range [...]rdf.Term{q.S, q.P, q.O, q.G} {
		if i == 0 && e.open && t == e.s || i == 1 && e.known(t) || i == 3 && t.IsZero() {
			continue
		}
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
		e.sb.WriteString(", ")
	case e.open && q.G == e.g && q.S == e.s:
		e.sb.WriteString(" ;\n    ")
		e.sb.WriteString(indent)
		e.predicate(q.P.Value)
		e.sb.WriteByte(' ')
	default:
		if e.open {
			e.sb.WriteString(" .\n")
		}
		if !e.open || q.G != e.g {
			if e.inGraph {
				e.sb.WriteString("}\n")
				e.inGraph = false
			}
			if !q.G.IsZero() {
				e.sb.WriteByte('\n')
				e.term(q.G)
				e.sb.WriteString(" {\n")
				e.inGraph = true
			} else {
				e.sb.WriteByte('\n')
			}
		} else if q.G.IsZero() {
			e.sb.WriteByte('\n')
		}
		e.sb.WriteString(indent)
		e.term(q.S)
		e.sb.WriteByte(' ')
		e.predicate(q.P.Value)
		e.sb.WriteByte(' ')
		e.open, e.g, e.s = true, q.G, q.S
	}
	e.p = q.P
	e.term(q.O)
	e.spill(false)
	return e.err
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
		e.sb.WriteString(" .\n")
	}
	if e.inGraph {
		e.sb.WriteString("}\n")
	}
	e.spill(true)
	return e.err
}

var _ rdf.Encoder = (*StreamEncoder)(nil)
