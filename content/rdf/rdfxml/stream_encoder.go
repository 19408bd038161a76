package rdfxml

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// StreamEncoder writes RDF/XML as statements come, holding only the statements of the current subject: one node
// element per run of statements about the same subject (a typed node element when the run has a type that can be
// written as an element name). It is for graphs too large for Encoder, which holds the whole graph to group it
// by subject and to nest blank nodes. What that costs here: a subject whose statements are not contiguous gets
// one element per run, every blank node is written by rdf:nodeID, IRIs are written in full (no xml:base), and a
// namespace that none of EncodeOptions.Prefixes covers is declared on each node element that uses it, because
// the root element is written before those namespaces are known. The document means the same graph.
type StreamEncoder struct {
	w       *bufio.Writer
	user    []rdf.Prefix // usable EncodeOptions.Prefixes, all declared on the root element
	taken   map[string]bool
	started bool
	closed  bool
	err     error

	run     []rdf.Quad      // statements of the current subject
	preds   map[string]bool // predicates that passed checkQuad
	names   map[string]streamName
	gen     map[string]string // namespace IRI -> generated prefix
	labels  nodeIDs
	local   []streamName // namespaces to declare on the element being written
	scratch []byte

	okDatatype, okLang string // the last datatype and language tag that passed checkKnownPredicate
	predCache          [slotCount]string
	nameCache          [slotCount]nameSlot
}

// streamName is an IRI split into an element name; ns is set when the prefix is not declared on the root element.
type streamName struct {
	name, ns, prefix string
}

// NewStreamEncoder returns a streaming encoder writing RDF/XML to w. EncodeOptions.Base is not used.
func NewStreamEncoder(w io.Writer, o rdf.EncodeOptions) *StreamEncoder {
	e := &StreamEncoder{w: bufio.NewWriterSize(w, 64<<10), taken: map[string]bool{"rdf": true},
		preds: map[string]bool{}, names: map[string]streamName{}, gen: map[string]string{}, labels: nodeIDs{}}
	e.user = usablePrefixes(o.Prefixes, e.taken)
	return e
}

// Encode writes the statements of the previous subject once q starts another. Statements RDF/XML cannot express
// are rejected here, with the same errors as Encoder's.
func (e *StreamEncoder) Encode(q rdf.Quad) error {
	if e.closed {
		return fmt.Errorf("rdfxml: Encode after Close")
	}
	if e.err != nil {
		return e.err
	}
	if e.knownPredicate(q.P.Value) && q.P.IsIRI() {
		// The subject of the current run passed with its first statement.
		sameSubject := len(e.run) > 0 && e.run[0].S == q.S
		if err := e.checkKnownPredicate(q, sameSubject); err != nil {
			return fmt.Errorf("rdfxml: cannot write %s: %w", q, err)
		}
	} else {
		if err := checkQuad(q); err != nil {
			return fmt.Errorf("rdfxml: cannot write %s: %w", q, err)
		}
		e.preds[q.P.Value] = true
		*e.predSlot(q.P.Value) = q.P.Value
	}
	if len(e.run) > 0 && e.run[0].S != q.S {
		e.flush()
	}
	e.run = append(e.run, q)
	return e.err
}

// checkKnownPredicate is checkQuad for a statement whose predicate an earlier statement already passed with. A
// subject known to have passed (sameSubject), and a datatype or language tag equal to the last one that passed,
// are not checked again: they are the same strings on nearly every statement.
func (e *StreamEncoder) checkKnownPredicate(q rdf.Quad, sameSubject bool) error {
	switch {
	case !q.G.IsZero():
		return fmt.Errorf("it is in the named graph %s and RDF/XML holds a single graph", q.G)
	case !q.S.IsIRI() && !q.S.IsBlank():
		return fmt.Errorf("the subject must be an IRI or a blank node")
	case q.O.IsZero():
		return fmt.Errorf("the object is missing")
	}
	dt := q.O.Datatype
	if dt == e.okDatatype {
		dt = ""
	}
	if !sameSubject && q.S.IsIRI() {
		if err := checkIRIValue(q.S.Value); err != nil {
			return err
		}
	}
	if q.O.IsIRI() {
		if err := checkIRIValue(q.O.Value); err != nil {
			return err
		}
	}
	if dt != "" {
		if err := checkIRIValue(dt); err != nil {
			return err
		}
	}
	if !sameSubject {
		if err := xmlText(q.S.Value); err != nil {
			return err
		}
	}
	if err := xmlText(q.O.Value); err != nil {
		return err
	}
	if err := xmlText(dt); err != nil {
		return err
	}
	if q.O.Lang != e.okLang {
		if err := xmlText(q.O.Lang); err != nil {
			return err
		}
		e.okLang = q.O.Lang
	}
	if q.O.Datatype != "" {
		e.okDatatype = q.O.Datatype
	}
	return nil
}

// checkIRIValue is checkQuad's test of an IRI term's value (a non-empty one).
func checkIRIValue(v string) error {
	if v == "" {
		return nil
	}
	if !iri.IsAbsolute(v) {
		return fmt.Errorf("%q is not an absolute IRI", v)
	}
	if r, bad := badIRIChar(v); bad {
		return fmt.Errorf("IRI %q contains %q, which IRIs cannot contain", v, r)
	}
	return nil
}

// dedupeRun removes repeated statements from a run, keeping the first of each, and returns how many are left.
// Every statement of a run has the same subject and the default graph (Encode refuses others), so only
// predicate and object are compared, the predicate first: it tells most distinct statements apart at once, and
// equal predicates from a decoder are usually the same string. Long runs go through dedupe's map.
func dedupeRun(run []rdf.Quad) int {
	if len(run) > 64 {
		return int(dedupe(run))
	}
	n := 0
next:
	for i := range run {
		q := &run[i]
		for j := range n {
			r := &run[j]
			if q.P.Value == r.P.Value && q.O == r.O && q.P == r.P {
				continue next
			}
		}
		if n != i {
			run[n] = *q
		}
		n++
	}
	return n
}

// Close writes what is left and the end of the document. It does not close the underlying writer.
func (e *StreamEncoder) Close() error {
	if e.closed {
		return e.err
	}
	e.closed = true
	if e.err != nil {
		return e.err
	}
	e.flush()
	e.start()
	e.w.WriteString("</rdf:RDF>\n")
	if err := e.w.Flush(); err != nil && e.err == nil {
		e.err = fmt.Errorf("rdfxml: writing: %w", err)
	}
	return e.err
}

func (e *StreamEncoder) start() {
	if e.started {
		return
	}
	e.started = true
	w := e.w
	w.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rdf:RDF\n    xmlns:rdf=\"" + rdf.RDFNS + "\"")
	for _, p := range e.user {
		w.WriteString("\n    xmlns:" + p.Name + "=\"")
		e.attr(p.IRI)
		w.WriteString("\"")
	}
	w.WriteString(">\n")
}

// Every statement looks its predicate up three times (known to pass the checks? which element name, twice), and
// a handful of predicates make up nearly all statements. Small caches indexed by the address of the IRI's string
// answer most lookups with one string comparison, which for the string a decoder shares between statements is a
// pointer comparison; the maps behind them hold every IRI.
const slotCount = 64

func slotOf(s string) uintptr {
	return uintptr(unsafe.Pointer(unsafe.StringData(s))) >> 4 % slotCount
}

func (e *StreamEncoder) predSlot(iri string) *string { return &e.predCache[slotOf(iri)] }

// knownPredicate reports whether a statement with this predicate passed checkQuad before.
func (e *StreamEncoder) knownPredicate(iri string) bool {
	if slot := e.predSlot(iri); iri != "" && *slot == iri {
		return true
	}
	if e.preds[iri] {
		*e.predSlot(iri) = iri
		return true
	}
	return false
}

// qname splits an IRI into an element name once; ok is false when it has none.
func (e *StreamEncoder) qname(s string) (streamName, bool) {
	slot := &e.nameCache[slotOf(s)]
	if s != "" && slot.iri == s {
		return slot.q, slot.q.name != ""
	}
	q, ok := e.names[s]
	if !ok {
		q = e.newQName(s)
		e.names[s] = q
	}
	*slot = nameSlot{iri: s, q: q}
	return q, q.name != ""
}

// nameSlot is an entry of StreamEncoder.nameCache.
type nameSlot struct {
	iri string
	q   streamName
}

func (e *StreamEncoder) newQName(s string) streamName {
	if best := longestPrefix(e.user, s); best >= 0 {
		p := e.user[best]
		return streamName{name: p.Name + ":" + s[len(p.IRI):]}
	}
	ns, local, ok := splitIRI(s)
	if !ok {
		return streamName{}
	}
	if ns == rdf.RDFNS {
		return streamName{name: "rdf:" + local}
	}
	prefix, ok := e.gen[ns]
	for n := len(e.gen) + 1; !ok; n++ {
		if name := "ns" + strconv.Itoa(n); !e.taken[name] {
			prefix, ok = name, true
			e.taken[name] = true
			e.gen[ns] = name
		}
	}
	return streamName{name: prefix + ":" + local, ns: ns, prefix: prefix}
}

// need notes that the element being written uses q's namespace, if the root element does not declare it.
func (e *StreamEncoder) need(q streamName) {
	if q.ns == "" {
		return
	}
	for _, p := range e.local {
		if p.prefix == q.prefix {
			return
		}
	}
	e.local = append(e.local, q)
}

func (e *StreamEncoder) nodeID(t rdf.Term) string { return e.labels.of(t.Value) }

// attr writes s escaped for an attribute value.
func (e *StreamEncoder) attr(s string) {
	e.scratch = appendEscaped(e.scratch[:0], s, true)
	e.w.Write(e.scratch)
}

// flush writes the node element of the current run.
func (e *StreamEncoder) flush() {
	if len(e.run) == 0 {
		return
	}
	e.start()
	run := e.run[:dedupeRun(e.run)]
	s := run[0].S
	elem, typeAt := "rdf:Description", -1
	e.local = e.local[:0]
	for i, q := range run {
		if q.P.Value == rdf.RDFType && q.O.IsIRI() && typeElementAllowed(q.O.Value) {
			if qn, ok := e.qname(q.O.Value); ok {
				elem, typeAt = qn.name, i
				e.need(qn)
				break
			}
		}
	}
	for i, q := range run {
		if i != typeAt {
			qn, _ := e.qname(q.P.Value) // checked by Encode
			e.need(qn)
		}
	}
	w := e.w
	w.WriteString("  <")
	w.WriteString(elem)
	if s.IsIRI() {
		w.WriteString(` rdf:about="`)
		e.attr(s.Value)
	} else {
		w.WriteString(` rdf:nodeID="`)
		w.WriteString(e.nodeID(s))
	}
	w.WriteByte('"')
	for _, q := range e.local {
		w.WriteString(" xmlns:")
		w.WriteString(q.prefix)
		w.WriteString(`="`)
		e.attr(q.ns)
		w.WriteByte('"')
	}
	if len(run) == 1 && typeAt == 0 {
		w.WriteString("/>\n")
	} else {
		w.WriteString(">\n")
		for i, q := range run {
			if i != typeAt {
				e.property(q)
			}
		}
		w.WriteString("  </")
		w.WriteString(elem)
		w.WriteString(">\n")
	}
	clear(e.run) // let the terms go
	e.run = e.run[:0]
}

func (e *StreamEncoder) property(q rdf.Quad) {
	qn, _ := e.qname(q.P.Value)
	name := qn.name
	w := e.w
	w.WriteString("    <")
	w.WriteString(name)
	o := q.O
	switch {
	case o.IsIRI():
		w.WriteString(` rdf:resource="`)
		e.attr(o.Value)
		w.WriteString("\"/>\n")
	case o.IsBlank():
		w.WriteString(` rdf:nodeID="`)
		w.WriteString(e.nodeID(o))
		w.WriteString("\"/>\n")
	case o.Datatype == rdf.RDFXMLLiteral && isCanonicalXML(o.Value):
		w.WriteString(` rdf:parseType="Literal">` + o.Value + "</" + name + ">\n")
	default:
		switch {
		case o.Lang != "":
			w.WriteString(` xml:lang="`)
			e.attr(o.Lang)
			w.WriteByte('"')
		case o.Datatype != "" && o.Datatype != rdf.XSDString:
			w.WriteString(` rdf:datatype="`)
			e.attr(o.Datatype)
			w.WriteByte('"')
		}
		if o.Value == "" {
			w.WriteString("/>\n")
			return
		}
		w.WriteByte('>')
		e.scratch = appendEscaped(e.scratch[:0], o.Value, false)
		w.Write(e.scratch)
		w.WriteString("</")
		w.WriteString(name)
		w.WriteString(">\n")
	}
}
