package pipeline

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// streamJSONLD writes expanded JSON-LD as statements come: one node object per run of statements about the same
// subject in the same graph. The compacting encoder (content/rdf/jsonld) reads better but holds and compacts the
// whole graph, which for a million statements costs minutes and gigabytes; expanded JSON-LD is the same data for
// every JSON-LD processor.
type streamJSONLD struct {
	w       *bufio.Writer
	n       int // node objects written
	open    bool
	g, s, p rdf.Term
	used    map[string]bool // predicates already keyed in the open node object
	err     error
}

func newStreamJSONLD(w io.Writer) *streamJSONLD {
	return &streamJSONLD{w: bufio.NewWriterSize(w, 1<<16), used: map[string]bool{}}
}

func (e *streamJSONLD) str(s string) {
	b, _ := json.Marshal(s) // a Go string always marshals
	e.w.Write(b)
}

func (e *streamJSONLD) id(t rdf.Term) {
	if t.IsBlank() {
		e.str("_:" + t.Value)
		return
	}
	e.str(t.Value)
}

func (e *streamJSONLD) closeNode() {
	if !e.open {
		return
	}
	e.w.WriteString("]}")
	if !e.g.IsZero() {
		e.w.WriteString("]}")
	}
	e.open = false
}

func (e *streamJSONLD) Encode(q rdf.Quad) error {
	if e.err != nil {
		return e.err
	}
	sameNode := e.open && q.S.Equal(e.s) && q.G.Equal(e.g)
	switch {
	case sameNode && q.P.Equal(e.p):
		e.w.WriteByte(',')
	case sameNode && !e.used[q.P.Value]:
		e.w.WriteString("],")
		e.str(q.P.Value)
		e.w.WriteString(":[")
	default:
		e.closeNode()
		if e.n == 0 {
			e.w.WriteString("[\n")
		} else {
			e.w.WriteString(",\n")
		}
		e.n++
		if !q.G.IsZero() {
			e.w.WriteString(`{"@id":`)
			e.id(q.G)
			e.w.WriteString(`,"@graph":[`)
		}
		e.w.WriteString(`{"@id":`)
		e.id(q.S)
		e.w.WriteByte(',')
		e.str(q.P.Value)
		e.w.WriteString(":[")
		e.open, e.s, e.g = true, q.S, q.G
		clear(e.used)
	}
	e.p = q.P
	e.used[q.P.Value] = true
	switch {
	case q.O.IsLiteral():
		e.w.WriteString(`{"@value":`)
		e.str(q.O.Value)
		switch {
		case q.O.Lang != "":
			e.w.WriteString(`,"@language":`)
			e.str(q.O.Lang)
		case q.O.Datatype != rdf.XSDString && q.O.Datatype != "":
			e.w.WriteString(`,"@type":`)
			e.str(q.O.Datatype)
		}
		e.w.WriteByte('}')
	default:
		e.w.WriteString(`{"@id":`)
		e.id(q.O)
		e.w.WriteByte('}')
	}
	return nil
}

func (e *streamJSONLD) Close() error {
	if e.err != nil {
		return e.err
	}
	e.closeNode()
	if e.n == 0 {
		e.w.WriteString("[")
	}
	e.w.WriteString("\n]\n")
	e.err = e.w.Flush()
	return e.err
}

// streamTurtle writes Turtle as statements come, grouping runs of statements about the same subject with ';' and
// repeating objects with ','. Terms are written in their N-Triples form, which is valid Turtle. Like streamJSONLD
// it serves versions too large for the pretty encoder (content/rdf/turtleenc), which holds and groups the whole
// graph.
type streamTurtle struct {
	w    *bufio.Writer
	s, p rdf.Term
	open bool
	sb   strings.Builder
	err  error
}

func newStreamTurtle(w io.Writer) *streamTurtle {
	return &streamTurtle{w: bufio.NewWriterSize(w, 1<<16)}
}

func (e *streamTurtle) term(t rdf.Term) {
	e.sb.Reset()
	rdf.AppendNTriples(&e.sb, t)
	e.w.WriteString(e.sb.String())
}

func (e *streamTurtle) Encode(q rdf.Quad) error {
	if e.err != nil {
		return e.err
	}
	if !q.G.IsZero() {
		e.err = errors.New("turtle: a named graph cannot be written in Turtle")
		return e.err
	}
	switch {
	case e.open && q.S.Equal(e.s) && q.P.Equal(e.p):
		e.w.WriteString(" ,\n    ")
	case e.open && q.S.Equal(e.s):
		e.w.WriteString(" ;\n  ")
		e.term(q.P)
		e.w.WriteByte(' ')
	default:
		if e.open {
			e.w.WriteString(" .\n")
		}
		e.term(q.S)
		e.w.WriteByte(' ')
		e.term(q.P)
		e.w.WriteByte(' ')
		e.open, e.s = true, q.S
	}
	e.p = q.P
	e.term(q.O)
	return nil
}

func (e *streamTurtle) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.open {
		e.w.WriteString(" .\n")
	}
	e.err = e.w.Flush()
	return e.err
}
