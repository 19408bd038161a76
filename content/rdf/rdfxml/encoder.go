package rdfxml

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// Encoder writes one graph as readable RDF/XML: one element per subject (a typed node element when the subject
// has a type that can be written as an element name), blank nodes used once as an object nested in place, and
// namespace prefixes from EncodeOptions.Prefixes where they fit, generated ones otherwise. It buffers the graph
// until Close because grouping by subject needs all of it.
type Encoder struct {
	w      io.Writer
	o      rdf.EncodeOptions
	quads  []rdf.Quad
	err    error
	closed bool
}

// NewEncoder returns an encoder writing RDF/XML to w.
func NewEncoder(w io.Writer, o rdf.EncodeOptions) *Encoder {
	return &Encoder{w: w, o: o}
}

// Encode buffers a triple. Triples RDF/XML cannot express (named graphs, predicates with no XML name, characters
// XML 1.0 cannot carry) are rejected here, so the caller learns which statement is at fault.
func (e *Encoder) Encode(q rdf.Quad) error {
	if e.closed {
		return fmt.Errorf("rdfxml: Encode after Close")
	}
	if err := checkQuad(q); err != nil {
		return fmt.Errorf("rdfxml: cannot write %s: %w", q, err)
	}
	e.quads = append(e.quads, q)
	return nil
}

func checkQuad(q rdf.Quad) error {
	switch {
	case !q.G.IsZero():
		return fmt.Errorf("it is in the named graph %s and RDF/XML holds a single graph", q.G)
	case !q.S.IsIRI() && !q.S.IsBlank():
		return fmt.Errorf("the subject must be an IRI or a blank node")
	case !q.P.IsIRI():
		return fmt.Errorf("the predicate must be an IRI")
	case q.O.IsZero():
		return fmt.Errorf("the object is missing")
	}
	if local, ok := strings.CutPrefix(q.P.Value, rdf.RDFNS); ok && (isForbiddenPropertyName(local) || local == "li") {
		return fmt.Errorf("rdf:%s cannot be a property element", local)
	}
	if _, _, ok := splitIRI(q.P.Value); !ok {
		return fmt.Errorf("the predicate has no suffix that is an XML name, so it cannot be an element name")
	}
	for _, s := range []string{q.S.Value, q.P.Value, q.O.Value, q.O.Datatype, q.O.Lang} {
		if err := xmlText(s); err != nil {
			return err
		}
	}
	return nil
}

// xmlText reports whether s can be written in an XML 1.0 document at all (as text or an attribute value).
func xmlText(s string) error {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Errorf("invalid UTF-8")
			}
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return fmt.Errorf("character %U cannot be represented in XML 1.0", r)
		}
	}
	return nil
}

// Close writes the document. It does not close the underlying writer.
func (e *Encoder) Close() error {
	if e.closed {
		return e.err
	}
	e.closed = true
	bw := bufio.NewWriter(e.w)
	w := newDocWriter(bw, e.o, e.quads)
	w.write()
	if err := bw.Flush(); err != nil {
		e.err = fmt.Errorf("rdfxml: writing: %w", err)
	}
	return e.err
}

// docWriter holds what writing one document needs: the graph indexed by subject and the namespace table.
type docWriter struct {
	w    *bufio.Writer
	base string

	subjects []rdf.Term              // in order of first appearance
	bySubj   map[rdf.Term][]rdf.Quad //
	objRefs  map[rdf.Term]int        // times each blank node occurs as an object
	state    map[rdf.Term]uint8      // 0 not written, 1 written or being written
	labels   map[string]string       // blank label -> rdf:nodeID value

	nsPrefix map[string]string // namespace IRI -> prefix
	nsOrder  []rdf.Prefix      // declarations, in order
	user     []rdf.Prefix      // usable EncodeOptions.Prefixes
	taken    map[string]bool
	gen      int
}

func newDocWriter(w *bufio.Writer, o rdf.EncodeOptions, quads []rdf.Quad) *docWriter {
	d := &docWriter{
		w: w, base: o.Base,
		bySubj: map[rdf.Term][]rdf.Quad{}, objRefs: map[rdf.Term]int{}, state: map[rdf.Term]uint8{},
		labels: map[string]string{}, nsPrefix: map[string]string{}, taken: map[string]bool{"rdf": true},
	}
	d.nsPrefix[rdf.RDFNS] = "rdf"
	d.nsOrder = append(d.nsOrder, rdf.Prefix{Name: "rdf", IRI: rdf.RDFNS})
	for _, p := range o.Prefixes {
		if isNCName(p.Name) && !hasXMLPrefix(p.Name) && !d.taken[p.Name] && p.IRI != "" {
			d.user = append(d.user, p)
			d.taken[p.Name] = true
		}
	}
	seen := map[rdf.Quad]bool{}
	for _, q := range quads {
		q.G = rdf.Term{}
		if seen[q] {
			continue // a graph is a set; repeating a triple in RDF/XML would be harmless but noisy
		}
		seen[q] = true
		if _, ok := d.bySubj[q.S]; !ok {
			d.subjects = append(d.subjects, q.S)
		}
		d.bySubj[q.S] = append(d.bySubj[q.S], q)
		if q.O.IsBlank() {
			d.objRefs[q.O]++
		}
	}
	return d
}

// qname returns the element name for an IRI, declaring a namespace if needed; ok is false if it has none.
func (d *docWriter) qname(s string) (string, bool) {
	best := -1
	for i, p := range d.user {
		if local, ok := strings.CutPrefix(s, p.IRI); ok && isNCName(local) && (best < 0 || len(p.IRI) > len(d.user[best].IRI)) {
			best = i
		}
	}
	if best >= 0 {
		p := d.user[best]
		d.declare(p.Name, p.IRI)
		return p.Name + ":" + s[len(p.IRI):], true
	}
	ns, local, ok := splitIRI(s)
	if !ok {
		return "", false
	}
	if p, ok := d.nsPrefix[ns]; ok {
		return p + ":" + local, true
	}
	for {
		d.gen++
		name := "ns" + strconv.Itoa(d.gen)
		if !d.taken[name] {
			d.taken[name] = true
			d.declare(name, ns)
			return name + ":" + local, true
		}
	}
}

func (d *docWriter) declare(name, ns string) {
	if _, ok := d.nsPrefix[ns]; ok {
		return
	}
	d.nsPrefix[ns] = name
	d.nsOrder = append(d.nsOrder, rdf.Prefix{Name: name, IRI: ns})
}

// nestable reports whether a blank node can be written inside the one property element that refers to it.
func (d *docWriter) nestable(t rdf.Term) bool {
	_, isSubj := d.bySubj[t]
	return t.IsBlank() && d.objRefs[t] == 1 && isSubj
}

func (d *docWriter) write() {
	// The body is rendered first because it decides which namespaces the root element must declare.
	var body strings.Builder
	for _, s := range d.subjects {
		if !d.nestable(s) {
			d.node(&body, s, 1)
		}
	}
	// Blank nodes nested only inside each other (a cycle) were never reached from the top level.
	for _, s := range d.subjects {
		if d.state[s] == 0 {
			d.node(&body, s, 1)
		}
	}
	d.w.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rdf:RDF")
	for _, p := range d.nsOrder {
		d.w.WriteString("\n    xmlns:" + p.Name + "=\"")
		d.w.WriteString(escapeAttr(p.IRI))
		d.w.WriteString("\"")
	}
	if d.base != "" {
		d.w.WriteString("\n    xml:base=\"" + escapeAttr(d.base) + "\"")
	}
	d.w.WriteString(">\n")
	d.w.WriteString(body.String())
	d.w.WriteString("</rdf:RDF>\n")
}

func indent(b *strings.Builder, depth int) {
	for range depth {
		b.WriteString("  ")
	}
}

func (d *docWriter) ref(s string) string {
	if d.base != "" {
		s = iri.Relative(d.base, s)
	}
	return escapeAttr(s)
}

func (d *docWriter) nodeID(t rdf.Term) string {
	l, ok := d.labels[t.Value]
	if !ok {
		l = "b" + strconv.Itoa(len(d.labels)+1)
		d.labels[t.Value] = l
	}
	return l
}

// node writes a node element for subject s and its properties.
func (d *docWriter) node(b *strings.Builder, s rdf.Term, depth int) {
	d.state[s] = 1
	quads := d.bySubj[s]
	elem, typeAt := "rdf:Description", -1
	for i, q := range quads {
		if q.P.Value != rdf.RDFType || !q.O.IsIRI() {
			continue
		}
		if local, ok := strings.CutPrefix(q.O.Value, rdf.RDFNS); ok && (isForbiddenNodeName(local) || local == "Description") {
			continue
		}
		if qn, ok := d.qname(q.O.Value); ok {
			elem, typeAt = qn, i
			break
		}
	}
	indent(b, depth)
	b.WriteString("<" + elem)
	switch {
	case s.IsIRI():
		b.WriteString(` rdf:about="` + d.ref(s.Value) + `"`)
	case d.objRefs[s] > 0 && !(depth > 1 && d.nestable(s)):
		b.WriteString(` rdf:nodeID="` + d.nodeID(s) + `"`)
	}
	if len(quads) == 1 && typeAt == 0 {
		b.WriteString("/>\n")
		return
	}
	b.WriteString(">\n")
	for i, q := range quads {
		if i != typeAt {
			d.property(b, q, depth+1)
		}
	}
	indent(b, depth)
	b.WriteString("</" + elem + ">\n")
}

func (d *docWriter) property(b *strings.Builder, q rdf.Quad, depth int) {
	name, _ := d.qname(q.P.Value) // checked by Encode
	indent(b, depth)
	b.WriteString("<" + name)
	o := q.O
	switch {
	case o.IsIRI():
		b.WriteString(` rdf:resource="` + d.ref(o.Value) + `"/>` + "\n")
	case o.IsBlank() && d.nestable(o) && d.state[o] == 0:
		b.WriteString(">\n")
		d.node(b, o, depth+1)
		indent(b, depth)
		b.WriteString("</" + name + ">\n")
	case o.IsBlank():
		b.WriteString(` rdf:nodeID="` + d.nodeID(o) + `"/>` + "\n")
	default:
		switch {
		case o.Lang != "":
			b.WriteString(` xml:lang="` + escapeAttr(o.Lang) + `"`)
		case o.Datatype != "" && o.Datatype != rdf.XSDString:
			b.WriteString(` rdf:datatype="` + d.ref(o.Datatype) + `"`)
		}
		if o.Value == "" {
			b.WriteString("/>\n")
			return
		}
		b.WriteString(">")
		b.Write(appendEscaped(nil, o.Value, false))
		b.WriteString("</" + name + ">\n")
	}
}

func escapeAttr(s string) string { return string(appendEscaped(nil, s, true)) }
