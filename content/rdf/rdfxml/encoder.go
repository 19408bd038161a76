package rdfxml

import (
	"bufio"
	"encoding/xml"
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
	for _, t := range []rdf.Term{q.S, q.P, q.O, {Kind: rdf.KindIRI, Value: q.O.Datatype}} {
		if !t.IsIRI() {
			continue
		}
		if err := checkIRIValue(t.Value); err != nil {
			return err
		}
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
// Printable ASCII, tab and line ends need no decoding, and are nearly all of what encoders check: only from the
// first other byte on is s read as runes.
func xmlText(s string) error {
	for i := 0; i < len(s); i++ {
		if !plainXMLByte[s[i]] {
			return xmlRunes(s[i:])
		}
	}
	return nil
}

// plainXMLByte marks the bytes xmlText accepts without decoding: ASCII that XML 1.0 allows.
var plainXMLByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = true
	}
	t['\t'], t['\n'], t['\r'] = true, true, true
	return t
}()

// xmlRunes is xmlText's check of s as runes; s starts at a rune boundary.
func xmlRunes(s string) error {
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
	e.quads = nil // the writer holds its own grouped copy; let this one go while writing
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

	subjects []rdf.Term         // in order of first appearance
	triples  []rdf.Quad         // grouped by subject, in input order within each group, duplicates dropped
	bySubj   map[rdf.Term]span  // where each subject's group is in triples
	objRefs  map[rdf.Term]int   // times each blank node occurs as an object
	state    map[rdf.Term]uint8 // 0 not written, 1 written or being written
	labels   nodeIDs

	nsPrefix map[string]string // namespace IRI -> prefix
	nsOrder  []rdf.Prefix      // declarations, in order
	user     []rdf.Prefix      // usable EncodeOptions.Prefixes
	taken    map[string]bool
	gen      int
	qnames   map[string]string // IRI -> element name, so each IRI is split once
	scratch  []byte
}

func newDocWriter(w *bufio.Writer, o rdf.EncodeOptions, quads []rdf.Quad) *docWriter {
	d := &docWriter{
		w: w, base: o.Base,
		bySubj: map[rdf.Term]span{}, objRefs: map[rdf.Term]int{}, state: map[rdf.Term]uint8{},
		labels: nodeIDs{}, nsPrefix: map[string]string{}, taken: map[string]bool{"rdf": true},
		qnames: map[string]string{},
	}
	if _, bad := badIRIChar(d.base); bad || !iri.IsAbsolute(d.base) {
		d.base = "" // relative references against it could not be resolved back; write every IRI in full
	}
	d.nsPrefix[rdf.RDFNS] = "rdf"
	d.nsOrder = append(d.nsOrder, rdf.Prefix{Name: "rdf", IRI: rdf.RDFNS})
	d.user = usablePrefixes(o.Prefixes, d.taken)
	d.group(quads)
	return d
}

type span struct{ start, end int32 }

// group sorts the triples into one contiguous run per subject (a counting sort, so one copy of the graph) and
// drops repeated triples: a graph is a set, and repeating a triple in RDF/XML would be harmless but noisy.
func (d *docWriter) group(quads []rdf.Quad) {
	subj := make([]int32, len(quads))
	var count []int32
	index := map[rdf.Term]int32{}
	for i, q := range quads {
		k, ok := index[q.S]
		if !ok {
			k = int32(len(d.subjects))
			index[q.S] = k
			d.subjects = append(d.subjects, q.S)
			count = append(count, 0)
		}
		subj[i] = k
		count[k]++
	}
	next := make([]int32, len(count))
	for k := 1; k < len(count); k++ {
		next[k] = next[k-1] + count[k-1]
	}
	starts := append([]int32(nil), next...)
	d.triples = make([]rdf.Quad, len(quads))
	for i, q := range quads {
		q.G = rdf.Term{}
		d.triples[next[subj[i]]] = q
		next[subj[i]]++
	}
	for k, s := range d.subjects {
		end := starts[k] + dedupe(d.triples[starts[k]:next[k]])
		d.bySubj[s] = span{starts[k], end}
		for _, q := range d.triples[starts[k]:end] {
			if q.O.IsBlank() {
				d.objRefs[q.O]++
			}
		}
	}
}

// dedupe moves the distinct triples of one subject's group to its front, keeping their order, and returns how
// many there are.
func dedupe(g []rdf.Quad) int32 {
	n := 0
	if len(g) <= 16 {
	next:
		for _, q := range g {
			for _, r := range g[:n] {
				if q == r {
					continue next
				}
			}
			g[n] = q
			n++
		}
		return int32(n)
	}
	seen := make(map[rdf.Quad]bool, len(g))
	for _, q := range g {
		if !seen[q] {
			seen[q] = true
			g[n] = q
			n++
		}
	}
	return int32(n)
}

// triplesOf returns the triples with subject s.
func (d *docWriter) triplesOf(s rdf.Term) []rdf.Quad {
	sp := d.bySubj[s]
	return d.triples[sp.start:sp.end]
}

// qname returns the element name for an IRI, declaring a namespace if needed; ok is false if it has none.
func (d *docWriter) qname(s string) (string, bool) {
	if q, ok := d.qnames[s]; ok {
		return q, true
	}
	q, ok := d.newQName(s)
	if ok {
		d.qnames[s] = q
	}
	return q, ok
}

func (d *docWriter) newQName(s string) (string, bool) {
	if best := longestPrefix(d.user, s); best >= 0 {
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
	// Name every predicate and type first: the root element must declare all namespaces before the body, and
	// knowing them up front lets the body stream out instead of being held in memory.
	for _, s := range d.subjects {
		for _, q := range d.triplesOf(s) {
			d.qname(q.P.Value)
			if q.P.Value == rdf.RDFType && q.O.IsIRI() && typeElementAllowed(q.O.Value) {
				d.qname(q.O.Value)
			}
		}
	}
	w := d.w
	w.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rdf:RDF")
	for _, p := range d.nsOrder {
		w.WriteString("\n    xmlns:" + p.Name + "=\"")
		w.WriteString(escapeAttr(p.IRI))
		w.WriteString("\"")
	}
	if d.base != "" {
		w.WriteString("\n    xml:base=\"" + escapeAttr(d.base) + "\"")
	}
	w.WriteString(">\n")
	for _, s := range d.subjects {
		if !d.nestable(s) {
			d.node(w, s, 1)
		}
	}
	// Blank nodes nested only inside each other (a cycle) were never reached from the top level.
	for _, s := range d.subjects {
		if d.state[s] == 0 {
			d.node(w, s, 1)
		}
	}
	w.WriteString("</rdf:RDF>\n")
}

// typeElementAllowed reports whether a type IRI may name a node element; the RDF syntax names may not, and
// rdf:Description would mean no type at all.
func typeElementAllowed(t string) bool {
	local, ok := strings.CutPrefix(t, rdf.RDFNS)
	return !ok || !isForbiddenNodeName(local) && local != "Description"
}

func indent(b *bufio.Writer, depth int) {
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

func (d *docWriter) nodeID(t rdf.Term) string { return d.labels.of(t.Value) }

// elementName picks the node element name for s: a type that can be written as an element, whose rdf:type
// triple (at index typeAt of its triples) is then implied; rdf:Description and -1 otherwise.
func (d *docWriter) elementName(s rdf.Term) (name string, typeAt int) {
	for i, q := range d.triplesOf(s) {
		if q.P.Value != rdf.RDFType || !q.O.IsIRI() || !typeElementAllowed(q.O.Value) {
			continue
		}
		if qn, ok := d.qname(q.O.Value); ok {
			return qn, i
		}
	}
	return "rdf:Description", -1
}

// node writes a node element for subject s and its properties.
func (d *docWriter) node(b *bufio.Writer, s rdf.Term, depth int) {
	d.state[s] = 1
	quads := d.triplesOf(s)
	elem, typeAt := d.elementName(s)
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
	d.properties(b, quads, typeAt, depth+1)
	indent(b, depth)
	b.WriteString("</" + elem + ">\n")
}

func (d *docWriter) properties(b *bufio.Writer, quads []rdf.Quad, skip, depth int) {
	for i, q := range quads {
		if i != skip {
			d.property(b, q, depth)
		}
	}
}

func (d *docWriter) property(b *bufio.Writer, q rdf.Quad, depth int) {
	name, _ := d.qname(q.P.Value) // checked by Encode
	indent(b, depth)
	b.WriteString("<" + name)
	o := q.O
	switch {
	case o.IsIRI():
		b.WriteString(` rdf:resource="` + d.ref(o.Value) + `"/>` + "\n")
	case o.IsBlank() && d.nestable(o) && d.state[o] == 0:
		if items, ok := d.list(o); ok {
			b.WriteString(` rdf:parseType="Collection">` + "\n")
			for _, it := range items {
				d.collectionItem(b, it, depth+1)
			}
		} else if _, typeAt := d.elementName(o); typeAt < 0 {
			// An untyped nested node needs no element of its own (§2.11).
			d.state[o] = 1
			b.WriteString(` rdf:parseType="Resource">` + "\n")
			d.properties(b, d.triplesOf(o), -1, depth+1)
		} else {
			b.WriteString(">\n")
			d.node(b, o, depth+1)
		}
		indent(b, depth)
		b.WriteString("</" + name + ">\n")
	case o.IsBlank():
		b.WriteString(` rdf:nodeID="` + d.nodeID(o) + `"/>` + "\n")
	case o.Datatype == rdf.RDFXMLLiteral && isCanonicalXML(o.Value):
		b.WriteString(` rdf:parseType="Literal">` + o.Value + "</" + name + ">\n")
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
		d.scratch = appendEscaped(d.scratch[:0], o.Value, false)
		b.Write(d.scratch)
		b.WriteString("</" + name + ">\n")
	}
}

// list returns the members of the RDF list starting at head when it can be written with
// rdf:parseType="Collection": every cell a blank node used only here, with exactly rdf:first and rdf:rest, and
// every member a resource (collections cannot hold literals).
func (d *docWriter) list(head rdf.Term) ([]rdf.Term, bool) {
	var items []rdf.Term
	seen := map[rdf.Term]bool{}
	for cell := head; !(cell.IsIRI() && cell.Value == rdf.RDFNil); {
		if !cell.IsBlank() || seen[cell] || !d.nestable(cell) || d.state[cell] != 0 {
			return nil, false
		}
		seen[cell] = true
		qs := d.triplesOf(cell)
		if len(qs) != 2 {
			return nil, false
		}
		var first, rest rdf.Term
		for _, q := range qs {
			switch q.P.Value {
			case rdf.RDFFirst:
				first = q.O
			case rdf.RDFRest:
				rest = q.O
			}
		}
		if first.IsZero() || rest.IsZero() || first.IsLiteral() {
			return nil, false
		}
		items = append(items, first)
		cell = rest
	}
	for cell := range seen {
		d.state[cell] = 1
	}
	return items, true
}

func (d *docWriter) collectionItem(b *bufio.Writer, it rdf.Term, depth int) {
	switch {
	case it.IsIRI():
		// A member's own triples, if any, are written at the top level; here it only needs naming.
		indent(b, depth)
		b.WriteString(`<rdf:Description rdf:about="` + d.ref(it.Value) + `"/>` + "\n")
	case d.nestable(it) && d.state[it] == 0:
		d.node(b, it, depth)
	default:
		indent(b, depth)
		b.WriteString(`<rdf:Description rdf:nodeID="` + d.nodeID(it) + `"/>` + "\n")
	}
}

// isCanonicalXML reports whether s, an XML literal's lexical form, is exclusive canonical XML that the decoder
// would give back unchanged when it is written inline with rdf:parseType="Literal". Anything else is written as
// escaped text with rdf:datatype, which is always exact.
func isCanonicalXML(s string) bool {
	x := xml.NewDecoder(strings.NewReader("<w>" + s + "</w>"))
	x.Strict = true
	var w litWriter
	var ns []nsBinding
	var marks []int
	lookup := func(prefix string) (string, bool) {
		if prefix == "xml" {
			return xmlNS, true
		}
		for i := len(ns) - 1; i >= 0; i-- {
			if ns[i].prefix == prefix {
				return ns[i].uri, ns[i].uri != "" || prefix == ""
			}
		}
		return "", prefix == ""
	}
	var names []xml.Name
	for depth := 0; ; {
		tok, err := x.RawToken()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				continue
			}
			marks = append(marks, len(ns))
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "xmlns":
					ns = append(ns, nsBinding{a.Name.Local, a.Value})
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					ns = append(ns, nsBinding{"", a.Value})
				}
			}
			if w.start(t, lookup) != nil {
				return false
			}
			names = append(names, t.Name)
		case xml.EndElement:
			depth--
			if depth == 0 {
				return len(names) == 0 && string(w.b) == s
			}
			if len(names) == 0 || names[len(names)-1] != t.Name {
				return false
			}
			w.end(t.Name)
			names = names[:len(names)-1]
			ns = ns[:marks[len(marks)-1]]
			marks = marks[:len(marks)-1]
		case xml.CharData:
			w.text(t)
		case xml.Comment:
			w.comment(t)
		case xml.ProcInst:
			w.procInst(t)
		default:
			return false
		}
	}
}

func escapeAttr(s string) string { return string(appendEscaped(nil, s, true)) }
