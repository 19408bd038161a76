package rdfjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
)

// Encoder writes RDF/JSON. The format groups triples by subject and predicate, so the encoder buffers until
// Close; subjects and predicates come out in order of first appearance, which keeps the output deterministic.
type Encoder struct {
	w        io.Writer
	subjects []*subjectGroup
	bySubj   map[rdf.Term]*subjectGroup
	done     bool
}

type subjectGroup struct {
	s      rdf.Term
	preds  []*predGroup
	byPred map[string]*predGroup
}

type predGroup struct {
	p    string
	objs []rdf.Term
	seen map[rdf.Term]struct{}
}

// NewEncoder returns an RDF/JSON encoder. EncodeOptions are unused: RDF/JSON has no prefixes and only absolute
// IRIs.
func NewEncoder(w io.Writer, _ rdf.EncodeOptions) *Encoder {
	return &Encoder{w: w, bySubj: map[rdf.Term]*subjectGroup{}}
}

// Encode buffers a triple. A quad in a named graph is an error: RDF/JSON has no graphs.
func (e *Encoder) Encode(q rdf.Quad) error {
	switch {
	case e.done:
		return fmt.Errorf("rdf-json: encode after close")
	case !q.G.IsZero():
		return fmt.Errorf("rdf-json: cannot write %v: RDF/JSON has no named graphs", q)
	case !q.S.IsIRI() && !q.S.IsBlank():
		return fmt.Errorf("rdf-json: cannot write %v: the subject must be an IRI or a blank node", q)
	case !q.P.IsIRI():
		return fmt.Errorf("rdf-json: cannot write %v: the predicate must be an IRI", q)
	case q.O.IsZero():
		return fmt.Errorf("rdf-json: cannot write %v: no object", q)
	}
	sg := e.bySubj[q.S]
	if sg == nil {
		sg = &subjectGroup{s: q.S, byPred: map[string]*predGroup{}}
		e.bySubj[q.S] = sg
		e.subjects = append(e.subjects, sg)
	}
	pg := sg.byPred[q.P.Value]
	if pg == nil {
		pg = &predGroup{p: q.P.Value, seen: map[rdf.Term]struct{}{}}
		sg.byPred[q.P.Value] = pg
		sg.preds = append(sg.preds, pg)
	}
	if _, dup := pg.seen[q.O]; !dup {
		pg.seen[q.O] = struct{}{}
		pg.objs = append(pg.objs, q.O)
	}
	return nil
}

// Close writes the document; it does not close the underlying writer.
func (e *Encoder) Close() error {
	if e.done {
		return nil
	}
	e.done = true
	bw := bufio.NewWriter(e.w)
	sw := newStringWriter()
	bw.WriteString("{")
	for i, sg := range e.subjects {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  ")
		sw.write(bw, subjectKey(sg.s))
		bw.WriteString(": {")
		for j, pg := range sg.preds {
			if j > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			sw.write(bw, pg.p)
			bw.WriteString(": [")
			for k, o := range pg.objs {
				if k > 0 {
					bw.WriteString(",")
				}
				bw.WriteString("\n      ")
				writeObject(bw, sw, o)
			}
			bw.WriteString("\n    ]")
		}
		bw.WriteString("\n  }")
	}
	if len(e.subjects) > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString("}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("rdf-json: writing: %w", err)
	}
	return nil
}

func subjectKey(t rdf.Term) string {
	if t.IsBlank() {
		return "_:" + t.Value
	}
	return t.Value
}

func writeObject(bw *bufio.Writer, sw *stringWriter, o rdf.Term) {
	switch o.Kind {
	case rdf.KindIRI:
		bw.WriteString(`{"type": "uri", "value": `)
		sw.write(bw, o.Value)
	case rdf.KindBlank:
		bw.WriteString(`{"type": "bnode", "value": `)
		sw.write(bw, "_:"+o.Value)
	default:
		bw.WriteString(`{"type": "literal", "value": `)
		sw.write(bw, o.Value)
		switch {
		case o.Lang != "":
			bw.WriteString(`, "lang": `)
			sw.write(bw, o.Lang)
		case o.Datatype != "" && o.Datatype != rdf.XSDString:
			bw.WriteString(`, "datatype": `)
			sw.write(bw, o.Datatype)
		}
	}
	bw.WriteString("}")
}

// stringWriter writes JSON strings without HTML escaping (json.Marshal would turn < > & into \u003c…, legal but
// unreadable in IRIs).
type stringWriter struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newStringWriter() *stringWriter {
	sw := &stringWriter{}
	sw.enc = json.NewEncoder(&sw.buf)
	sw.enc.SetEscapeHTML(false)
	return sw
}

func (sw *stringWriter) write(bw *bufio.Writer, s string) {
	sw.buf.Reset()
	_ = sw.enc.Encode(s) // a string always encodes; into a bytes.Buffer it cannot fail
	b := sw.buf.Bytes()
	bw.Write(b[:len(b)-1]) // Encode appends a newline
}
