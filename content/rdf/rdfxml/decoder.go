package rdfxml

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

const syntaxName = "rdf-xml"

type frameKind uint8

const (
	fRDF        frameKind = iota // rdf:RDF: node elements follow
	fNode                        // node element: property elements follow
	fResource                    // property element with rdf:parseType="Resource": a node of its own
	fProp                        // property element whose content decides its kind (literal, resource or empty)
	fCollection                  // rdf:parseType="Collection": node elements form a list
	fLiteral                     // rdf:parseType="Literal": content is copied as canonical XML
	fLitElem                     // an element inside an XML literal
)

// frame is one open element. Which fields matter depends on kind.
type frame struct {
	kind frameKind
	name xml.Name // as written, to match the end tag
	mark int      // length of the namespace stack before this element's declarations
	base string
	lang string

	subj rdf.Term // fNode, fResource: the node; fProp, fCollection, fLiteral: the statement subject
	li   int      // fNode, fResource: last rdf:li number used

	pred  rdf.Term // fProp, fCollection, fLiteral
	reify string   // rdf:ID of a property element: the statement IRI to reify as, or ""

	// fProp
	obj        rdf.Term // from rdf:resource or rdf:nodeID
	hasObjAttr bool
	datatype   string
	hasDT      bool
	props      []propAttr
	text       []byte
	child      bool // a node element child has been seen

	// fCollection
	last rdf.Term
	n    int
}

type propAttr struct{ iri, value string }

type nsBinding struct{ prefix, uri string }

// Decoder reads RDF/XML. It implements rdf.Decoder and rdf.PrefixSource.
type Decoder struct {
	r      *posReader
	x      *xml.Decoder
	o      rdf.DecodeOptions
	blanks *rdf.BlankNodes
	maxLit int

	ns       []nsBinding
	stack    []frame
	prefixes []rdf.Prefix
	ids      map[string]struct{}
	lit      litWriter
	el       elem // scratch, reused for every element

	// Element and attribute names repeat throughout a document: interning their IRIs saves an allocation per
	// element and shares the strings among the triples. Both caches are bounded against hostile inputs.
	names   map[string]map[string]string // namespace -> local name -> IRI
	dtBase  string                       // base the datatype cache is valid for
	dtCache map[string]string            // rdf:datatype value -> resolved IRI

	rootSeen bool
	out      []rdf.Quad
	head     int
	err      error

	tokLine, tokCol int // where the token being processed starts
}

// NewDecoder returns a decoder reading RDF/XML from r. Relative IRIs resolve against o.Base and xml:base.
func NewDecoder(r io.Reader, o rdf.DecodeOptions) *Decoder {
	maxLit := o.Limits.LiteralSize()
	pr := newPosReader(r, int64(maxLit)+64<<10)
	x := xml.NewDecoder(pr)
	x.Strict = true
	x.CharsetReader = charsetReader
	return &Decoder{r: pr, x: x, o: o, blanks: o.BlankNodesOrNew(), maxLit: maxLit, ids: map[string]struct{}{},
		names: map[string]map[string]string{}, dtCache: map[string]string{}}
}

const maxInterned = 4096

// iriOf returns ns+local, interned, or "" with the reason when it is not an IRI RDF can use. Only valid IRIs
// are interned, so a cached name needs no further checks.
func (d *Decoder) iriOf(ns, local string) (string, string) {
	m := d.names[ns]
	if m == nil {
		if len(d.names) >= maxInterned {
			clear(d.names)
		}
		m = map[string]string{}
		d.names[ns] = m
	}
	if s, ok := m[local]; ok {
		return s, ""
	}
	s := ns + local
	if !iri.IsAbsolute(s) {
		return "", fmt.Sprintf("%q is not an absolute IRI (relative namespace names are deprecated)", s)
	}
	if r, bad := badIRIChar(s); bad {
		return "", fmt.Sprintf("%q contains %q, which IRIs cannot contain", s, r)
	}
	if len(m) < maxInterned {
		m[local] = s
	}
	return s, ""
}

// datatypeIRI resolves an rdf:datatype value, which documents repeat on every typed literal.
func (d *Decoder) datatypeIRI(base, ref string) (string, error) {
	if base != d.dtBase {
		clear(d.dtCache)
		d.dtBase = base
	}
	if s, ok := d.dtCache[ref]; ok {
		return s, nil
	}
	s, err := d.resolve(base, ref)
	if err == nil && len(d.dtCache) < maxInterned {
		d.dtCache[ref] = s
	}
	return s, err
}

// Prefixes returns the namespace declarations of the root element, in document order.
func (d *Decoder) Prefixes() []rdf.Prefix {
	return append([]rdf.Prefix(nil), d.prefixes...)
}

// Next returns the next triple (RDF/XML has no named graphs), io.EOF at the end, or a *rdf.SyntaxError.
func (d *Decoder) Next() (rdf.Quad, error) {
	for d.head >= len(d.out) {
		if d.err != nil {
			return rdf.Quad{}, d.err
		}
		d.out, d.head = d.out[:0], 0
		if err := d.step(); err != nil {
			d.err = err
		}
	}
	q := d.out[d.head]
	d.head++
	return q, nil
}

// errf reports a problem with the token being processed, at its start.
func (d *Decoder) errf(format string, args ...any) error {
	return &rdf.SyntaxError{Syntax: syntaxName, Line: d.tokLine, Column: d.tokCol, Msg: fmt.Sprintf(format, args...)}
}

// errHere reports a problem at the parser's current position (XML well-formedness, limits).
func (d *Decoder) errHere(msg string) error {
	line, col := d.r.position(d.x.InputOffset())
	return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: msg}
}

func (d *Decoder) step() error {
	d.r.tokenStart = d.r.off
	d.tokLine, d.tokCol = d.r.position(d.x.InputOffset())
	tok, err := d.x.RawToken()
	if err != nil {
		if err == io.EOF {
			return d.eof()
		}
		l, ok := asInputError(err)
		if bad, isBad := asInputError(d.r.err); !ok && isBad && bad.line > 0 {
			// The reader refused a byte and encoding/xml, finding the text cut short there, reported that
			// instead: the reader's error is the cause and knows the position.
			l, ok = bad, true
		}
		if ok {
			if l.line > 0 {
				return &rdf.SyntaxError{Syntax: syntaxName, Line: l.line, Column: l.col, Msg: l.msg}
			}
			return d.errHere(l.msg)
		}
		if d.r.readErr != nil && errors.Is(err, d.r.readErr) {
			return fmt.Errorf("rdf-xml: reading input: %w", err)
		}
		// Everything else encoding/xml reports is about the document, whether or not it uses *xml.SyntaxError.
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			return d.errHere(se.Msg)
		}
		return d.errHere(strings.TrimPrefix(err.Error(), "xml: "))
	}
	switch t := tok.(type) {
	case xml.StartElement:
		return d.start(t)
	case xml.EndElement:
		return d.end(t)
	case xml.CharData:
		return d.chars(t)
	case xml.Comment:
		if d.inLiteral() {
			d.lit.comment(t)
			return d.checkLiteralSize()
		}
	case xml.ProcInst:
		if d.inLiteral() {
			d.lit.procInst(t)
			return d.checkLiteralSize()
		}
	case xml.Directive:
		return d.directive(string(t))
	}
	return nil
}

func (d *Decoder) eof() error {
	if len(d.stack) > 0 {
		f := d.stack[len(d.stack)-1]
		return d.errHere(fmt.Sprintf("unexpected end of input: <%s> is not closed", qname(f.name)))
	}
	if !d.rootSeen {
		return d.errHere("no root element")
	}
	return io.EOF
}

func (d *Decoder) directive(s string) error {
	if d.rootSeen {
		return d.errf("<!%s> after the root element", firstWord(s))
	}
	ents, err := parseDoctype(s)
	if err != nil {
		return d.errf("%v", err)
	}
	d.x.Entity = ents.values
	lens := make(map[string]int, len(ents.values)+len(ents.external))
	for k, v := range ents.values {
		lens[k] = len(v)
	}
	for k := range ents.external {
		lens[k] = -1
	}
	d.r.ents = lens
	return nil
}

func (d *Decoder) top() *frame {
	if len(d.stack) == 0 {
		return nil
	}
	return &d.stack[len(d.stack)-1]
}

func (d *Decoder) inLiteral() bool {
	f := d.top()
	return f != nil && (f.kind == fLiteral || f.kind == fLitElem)
}

func (d *Decoder) push(f frame) { d.stack = append(d.stack, f) }

func (d *Decoder) lookupNS(prefix string) (string, bool) {
	if prefix == "xml" {
		return xmlNS, true
	}
	for i := len(d.ns) - 1; i >= 0; i-- {
		if d.ns[i].prefix == prefix {
			return d.ns[i].uri, d.ns[i].uri != "" || prefix == ""
		}
	}
	return "", prefix == ""
}

func (d *Decoder) start(t xml.StartElement) error {
	if len(d.stack) >= d.o.Limits.Depth() {
		return d.errf("elements nested deeper than %d", d.o.Limits.Depth())
	}
	if err := d.checkNames(t); err != nil {
		return err
	}
	mark := len(d.ns)
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "xmlns":
			d.ns = append(d.ns, nsBinding{a.Name.Local, a.Value})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			d.ns = append(d.ns, nsBinding{"", a.Value})
		}
	}
	if err := d.checkUniqueAttrs(t); err != nil {
		return err
	}
	parent := d.top()
	if parent == nil {
		if d.rootSeen {
			return d.errf("element <%s> after the root element", qname(t.Name))
		}
		d.rootSeen = true
		for _, b := range d.ns[mark:] {
			d.prefixes = append(d.prefixes, rdf.Prefix{Name: b.prefix, IRI: b.uri})
		}
	}
	if d.inLiteral() {
		if err := d.lit.start(t, d.lookupNS); err != nil {
			return d.errf("%v", err)
		}
		d.push(frame{kind: fLitElem, name: t.Name, mark: mark})
		return d.checkLiteralSize()
	}
	el := &d.el
	if err := d.element(el, t, parent); err != nil {
		return err
	}
	if parent == nil {
		if el.uri == rdf.RDFNS+"RDF" {
			if el.has != 0 || len(el.props) > 0 || el.forbidden != "" {
				return d.errf("rdf:RDF can have only namespace declarations and xml:* attributes")
			}
			d.push(frame{kind: fRDF, name: t.Name, mark: mark, base: el.base, lang: el.lang})
			return nil
		}
		return d.nodeElement(el, mark, nil)
	}
	switch parent.kind {
	case fRDF:
		return d.nodeElement(el, mark, nil)
	case fNode, fResource:
		return d.propertyElement(el, mark, parent)
	case fCollection:
		return d.nodeElement(el, mark, parent)
	case fProp:
		switch {
		case parent.child:
			return d.errf("property element <%s> may contain only one node element", qname(parent.name))
		case !isWS(parent.text):
			return d.errf("property element <%s> contains both text and a node element", qname(parent.name))
		case parent.hasDT || parent.hasObjAttr || len(parent.props) > 0:
			return d.errf("property element <%s> has a node element child, so it may only have rdf:ID", qname(parent.name))
		}
		parent.child = true
		parent.text = parent.text[:0]
		return d.nodeElement(el, mark, parent)
	}
	return d.errf("unexpected element <%s>", qname(t.Name))
}

// checkNames enforces Namespaces in XML §3: encoding/xml checks a name as a whole, so "p:0" or ":x" get through.
func (d *Decoder) checkNames(t xml.StartElement) error {
	ok := func(n xml.Name) bool { return isNCName(n.Local) && (n.Space == "" || isNCName(n.Space)) }
	if !ok(t.Name) {
		return d.errf("<%s> is not a namespace-well-formed element name", qname(t.Name))
	}
	for _, a := range t.Attr {
		if !ok(a.Name) {
			return d.errf("%s is not a namespace-well-formed attribute name", qname(a.Name))
		}
	}
	return nil
}

// checkUniqueAttrs enforces XML's "Unique Att Spec" and its namespace form (no two attributes with the same
// namespace and local name), which encoding/xml does not check.
func (d *Decoder) checkUniqueAttrs(t xml.StartElement) error {
	type key struct{ ns, local string }
	expanded := func(n xml.Name) key {
		switch n.Space {
		case "", "xmlns":
			return key{"\x00" + n.Space, n.Local} // unqualified names and declarations compare as written
		}
		uri, _ := d.lookupNS(n.Space)
		return key{uri, n.Local}
	}
	if len(t.Attr) <= 8 {
		for i := 1; i < len(t.Attr); i++ {
			for j := range i {
				if expanded(t.Attr[i].Name) == expanded(t.Attr[j].Name) {
					return d.errf("<%s> has attribute %s more than once", qname(t.Name), qname(t.Attr[i].Name))
				}
			}
		}
		return nil
	}
	seen := make(map[key]bool, len(t.Attr))
	for _, a := range t.Attr {
		k := expanded(a.Name)
		if seen[k] {
			return d.errf("<%s> has attribute %s more than once", qname(t.Name), qname(a.Name))
		}
		seen[k] = true
	}
	return nil
}

// attribute presence bits of elem.has
const (
	hasID = 1 << iota
	hasAbout
	hasNodeID
	hasResource
	hasDatatype
	hasParseType
)

// elem is an element with its RDF/XML-relevant attributes picked out.
type elem struct {
	name      xml.Name
	uri       string
	rdfLocal  string // local name when the element is in the RDF namespace
	base      string
	lang      string
	has       int
	id        string
	about     string
	nodeID    string
	resource  string
	datatype  string
	parseType string
	props     []propAttr
	forbidden string // an RDF attribute name that is never allowed
}

func (d *Decoder) element(el *elem, t xml.StartElement, parent *frame) error {
	*el = elem{name: t.Name, props: el.props[:0], base: d.o.Base}
	if parent != nil {
		el.base, el.lang = parent.base, parent.lang
	}
	uri, ok := d.lookupNS(t.Name.Space)
	if !ok {
		return d.errf("undeclared namespace prefix %q in <%s>", t.Name.Space, qname(t.Name))
	}
	if uri == "" {
		return d.errf("element <%s> is not in a namespace", qname(t.Name))
	}
	var why string
	if el.uri, why = d.iriOf(uri, t.Name.Local); why != "" {
		return d.errf("element <%s>: %s", qname(t.Name), why)
	}
	if uri == rdf.RDFNS {
		el.rdfLocal = t.Name.Local
	}
	// xml:base applies to the element's own attributes, so it is handled first.
	for _, a := range t.Attr {
		if a.Name.Space == "xml" && a.Name.Local == "base" {
			b, err := iri.Resolve(el.base, a.Value)
			if err != nil {
				return d.errf("xml:base %q: %v", a.Value, err)
			}
			el.base = b
		}
	}
	for _, a := range t.Attr {
		var auri string
		switch {
		case a.Name.Space == "xml":
			if a.Name.Local == "lang" {
				el.lang = a.Value
			}
			continue
		case a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns":
			continue
		case a.Name.Space == "" && hasXMLPrefix(a.Name.Local), hasXMLPrefix(a.Name.Space):
			continue // reserved for XML, ignored by RDF/XML
		case a.Name.Space == "":
			switch a.Name.Local {
			case "ID", "about", "resource", "parseType", "type":
				// RDF/XML §6.1.4 keeps these unqualified forms for compatibility with old documents.
				auri, _ = d.iriOf(rdf.RDFNS, a.Name.Local) // always valid
			default:
				return d.errf("attribute %s of <%s> is not in a namespace", a.Name.Local, qname(t.Name))
			}
		default:
			ns, ok := d.lookupNS(a.Name.Space)
			if !ok {
				return d.errf("undeclared namespace prefix %q in attribute %s:%s", a.Name.Space, a.Name.Space, a.Name.Local)
			}
			var why string
			if auri, why = d.iriOf(ns, a.Name.Local); why != "" {
				return d.errf("attribute %s: %s", qname(a.Name), why)
			}
		}
		local, isRDF := strings.CutPrefix(auri, rdf.RDFNS)
		if !isRDF {
			el.props = append(el.props, propAttr{auri, a.Value})
			continue
		}
		switch local {
		case "ID":
			el.has |= hasID
			el.id = a.Value
		case "about":
			el.has |= hasAbout
			el.about = a.Value
		case "nodeID":
			el.has |= hasNodeID
			el.nodeID = a.Value
		case "resource":
			el.has |= hasResource
			el.resource = a.Value
		case "datatype":
			el.has |= hasDatatype
			el.datatype = a.Value
		case "parseType":
			el.has |= hasParseType
			el.parseType = a.Value
		case "li", "Description", "RDF", "aboutEach", "aboutEachPrefix", "bagID":
			if el.forbidden == "" {
				el.forbidden = "rdf:" + local
			}
		default:
			el.props = append(el.props, propAttr{auri, a.Value})
		}
	}
	return nil
}

// resolve makes ref absolute against base. An absolute IRI is kept exactly as written (no dot-segment removal), as
// the Turtle decoder does: otherwise "A:.#p" read from rdf:resource became "A:#p" while the same IRI built from an
// element name kept its dot, and RDF/XML that the encoder wrote read back as a different graph (found by
// FuzzDecode).
func (d *Decoder) resolve(base, ref string) (string, error) {
	s, err := ref, error(nil)
	if !iri.IsAbsolute(ref) {
		s, err = iri.Resolve(base, ref)
	}
	if err != nil {
		return "", d.errf("cannot resolve IRI %q against base %q: %v", ref, base, err)
	}
	if len(s) > d.maxLit {
		return "", d.errf("IRI longer than %d bytes", d.maxLit)
	}
	if r, bad := badIRIChar(s); bad {
		return "", d.errf("IRI %q contains %q, which IRIs cannot contain", s, r)
	}
	return s, nil
}

// idIRI returns the IRI an rdf:ID names and checks it has not been used before with the same base.
func (d *Decoder) idIRI(el *elem) (string, error) {
	if !isNCName(el.id) {
		return "", d.errf("rdf:ID %q is not an XML NCName", el.id)
	}
	s, err := d.resolve(el.base, "#"+el.id)
	if err != nil {
		return "", err
	}
	if _, dup := d.ids[s]; dup {
		return "", d.errf("rdf:ID %q is used twice (it names <%s>)", el.id, s)
	}
	d.ids[s] = struct{}{}
	return s, nil
}

func (d *Decoder) nodeID(id string) (rdf.Term, error) {
	if !isNCName(id) {
		return rdf.Term{}, d.errf("rdf:nodeID %q is not an XML NCName", id)
	}
	return rdf.Blank(d.blanks.Label(id)), nil
}

func (d *Decoder) emit(s, p, o rdf.Term) {
	d.out = append(d.out, rdf.Quad{S: s, P: p, O: o})
}

// emitReified emits a statement and, when the property element had an rdf:ID, its reification (§7.3).
func (d *Decoder) emitReified(s, p, o rdf.Term, reify string) {
	d.emit(s, p, o)
	if reify != "" {
		r := rdf.IRI(reify)
		d.emit(r, rdf.IRI(rdf.RDFType), rdf.IRI(rdf.RDFNS+"Statement"))
		d.emit(r, rdf.IRI(rdf.RDFNS+"subject"), s)
		d.emit(r, rdf.IRI(rdf.RDFNS+"predicate"), p)
		d.emit(r, rdf.IRI(rdf.RDFNS+"object"), o)
	}
}

func isForbiddenNodeName(local string) bool {
	switch local {
	case "RDF", "ID", "about", "bagID", "parseType", "resource", "nodeID", "datatype", "li", "aboutEach", "aboutEachPrefix":
		return true
	}
	return false
}

func isForbiddenPropertyName(local string) bool {
	switch local {
	case "Description", "RDF", "ID", "about", "bagID", "parseType", "resource", "nodeID", "datatype", "aboutEach", "aboutEachPrefix":
		return true
	}
	return false
}

// nodeElement handles a node element (§7.2.11). When it is the object of a property element or a collection
// member, parent is that frame and the linking triples are emitted before the node's own.
func (d *Decoder) nodeElement(el *elem, mark int, parent *frame) error {
	if el.rdfLocal != "" && isForbiddenNodeName(el.rdfLocal) {
		return d.errf("rdf:%s cannot be used as a node element", el.rdfLocal)
	}
	if el.forbidden != "" {
		return d.errf("attribute %s is not allowed", el.forbidden)
	}
	for _, a := range []struct {
		bit  int
		name string
	}{{hasResource, "rdf:resource"}, {hasDatatype, "rdf:datatype"}, {hasParseType, "rdf:parseType"}} {
		if el.has&a.bit != 0 {
			return d.errf("%s is not allowed on node element <%s>", a.name, qname(el.name))
		}
	}
	var subj rdf.Term
	switch el.has & (hasID | hasAbout | hasNodeID) {
	case 0:
		subj = rdf.Blank(d.blanks.Fresh())
	case hasID:
		s, err := d.idIRI(el)
		if err != nil {
			return err
		}
		subj = rdf.IRI(s)
	case hasAbout:
		s, err := d.resolve(el.base, el.about)
		if err != nil {
			return err
		}
		subj = rdf.IRI(s)
	case hasNodeID:
		var err error
		if subj, err = d.nodeID(el.nodeID); err != nil {
			return err
		}
	default:
		return d.errf("node element <%s> may have only one of rdf:ID, rdf:about and rdf:nodeID", qname(el.name))
	}
	if parent != nil {
		switch parent.kind {
		case fProp:
			d.emitReified(parent.subj, parent.pred, subj, parent.reify)
		case fCollection:
			cell := rdf.Blank(d.blanks.Fresh())
			if parent.n == 0 {
				d.emitReified(parent.subj, parent.pred, cell, parent.reify)
			} else {
				d.emit(parent.last, rdf.IRI(rdf.RDFRest), cell)
			}
			d.emit(cell, rdf.IRI(rdf.RDFFirst), subj)
			parent.last = cell
			parent.n++
		}
	}
	if el.uri != rdf.RDFNS+"Description" {
		d.emit(subj, rdf.IRI(rdf.RDFType), rdf.IRI(el.uri))
	}
	if err := d.propertyAttrs(el, subj); err != nil {
		return err
	}
	d.push(frame{kind: fNode, name: el.name, mark: mark, base: el.base, lang: el.lang, subj: subj})
	return nil
}

// propertyAttrs emits the triples of property attributes (§7.2.25): rdf:type names a resource, anything else is
// a literal in the element's language.
func (d *Decoder) propertyAttrs(el *elem, subj rdf.Term) error {
	for _, a := range el.props {
		if a.iri == rdf.RDFType {
			o, err := d.resolve(el.base, a.value)
			if err != nil {
				return err
			}
			d.emit(subj, rdf.IRI(rdf.RDFType), rdf.IRI(o))
			continue
		}
		if len(a.value) > d.maxLit {
			return d.errf("literal longer than %d bytes", d.maxLit)
		}
		d.emit(subj, rdf.IRI(a.iri), d.plainLiteral(a.value, el.lang))
	}
	return nil
}

func (d *Decoder) plainLiteral(s, lang string) rdf.Term {
	if lang != "" {
		return rdf.LangString(s, lang)
	}
	return rdf.String(s)
}

// propertyElement handles the start of a property element (§7.2.14); what it produces may depend on its content.
func (d *Decoder) propertyElement(el *elem, mark int, parent *frame) error {
	if el.rdfLocal != "" && isForbiddenPropertyName(el.rdfLocal) {
		return d.errf("rdf:%s cannot be used as a property element", el.rdfLocal)
	}
	if el.forbidden != "" {
		return d.errf("attribute %s is not allowed", el.forbidden)
	}
	if el.has&hasAbout != 0 {
		return d.errf("rdf:about is not allowed on property element <%s>", qname(el.name))
	}
	pred := rdf.IRI(el.uri)
	if el.rdfLocal == "li" {
		parent.li++
		pred = rdf.IRI(rdf.RDFNS + "_" + strconv.Itoa(parent.li))
	}
	subj := parent.subj
	f := frame{name: el.name, mark: mark, base: el.base, lang: el.lang, subj: subj, pred: pred}
	if el.has&hasID != 0 {
		var err error
		if f.reify, err = d.idIRI(el); err != nil {
			return err
		}
	}
	if el.has&hasParseType != 0 {
		if el.has&(hasResource|hasNodeID|hasDatatype) != 0 || len(el.props) > 0 {
			return d.errf("rdf:parseType=%q cannot be combined with rdf:resource, rdf:nodeID, rdf:datatype or property attributes", el.parseType)
		}
		switch el.parseType {
		case "Resource":
			n := rdf.Blank(d.blanks.Fresh())
			d.emitReified(subj, pred, n, f.reify)
			d.push(frame{kind: fResource, name: el.name, mark: mark, base: el.base, lang: el.lang, subj: n})
		case "Collection":
			f.kind = fCollection
			d.push(f)
		default: // "Literal", and any other value (§7.2.20)
			f.kind = fLiteral
			d.lit.reset()
			d.push(f)
		}
		return nil
	}
	f.kind = fProp
	switch {
	case el.has&hasResource != 0 && el.has&hasNodeID != 0:
		return d.errf("property element <%s> cannot have both rdf:resource and rdf:nodeID", qname(el.name))
	case el.has&hasDatatype != 0 && (el.has&(hasResource|hasNodeID) != 0 || len(el.props) > 0):
		return d.errf("rdf:datatype cannot be combined with rdf:resource, rdf:nodeID or property attributes")
	case el.has&hasResource != 0:
		s, err := d.resolve(el.base, el.resource)
		if err != nil {
			return err
		}
		f.obj, f.hasObjAttr = rdf.IRI(s), true
	case el.has&hasNodeID != 0:
		o, err := d.nodeID(el.nodeID)
		if err != nil {
			return err
		}
		f.obj, f.hasObjAttr = o, true
	case el.has&hasDatatype != 0:
		dt, err := d.datatypeIRI(el.base, el.datatype)
		if err != nil {
			return err
		}
		f.datatype, f.hasDT = dt, true
	}
	if len(el.props) > 0 {
		f.props = append([]propAttr(nil), el.props...)
	}
	d.push(f)
	return nil
}

func (d *Decoder) end(t xml.EndElement) error {
	f := d.top()
	if f == nil {
		return d.errf("unexpected end tag </%s>", qname(t.Name))
	}
	if f.name != t.Name {
		return d.errf("end tag </%s> does not match <%s>", qname(t.Name), qname(f.name))
	}
	switch f.kind {
	case fProp:
		if err := d.finishProperty(f); err != nil {
			return err
		}
	case fCollection:
		nilList := rdf.IRI(rdf.RDFNil)
		if f.n == 0 {
			d.emitReified(f.subj, f.pred, nilList, f.reify)
		} else {
			d.emit(f.last, rdf.IRI(rdf.RDFRest), nilList)
		}
	case fLiteral:
		d.emitReified(f.subj, f.pred, rdf.Literal(string(d.lit.b), rdf.RDFXMLLiteral), f.reify)
		d.lit.reset()
	case fLitElem:
		d.lit.end(f.name)
		if err := d.checkLiteralSize(); err != nil {
			return err
		}
	}
	d.ns = d.ns[:f.mark]
	d.stack = d.stack[:len(d.stack)-1]
	return nil
}

// finishProperty decides what a property element without parseType was, now that its content is known.
func (d *Decoder) finishProperty(f *frame) error {
	emptyAttrs := f.hasObjAttr || len(f.props) > 0
	switch {
	case f.child:
		return nil // resourcePropertyElt: already emitted
	case len(f.text) > 0 && !(emptyAttrs && isWS(f.text)):
		if emptyAttrs {
			return d.errf("property element <%s> with rdf:resource, rdf:nodeID or property attributes must be empty", qname(f.name))
		}
		var o rdf.Term
		switch {
		case f.hasDT:
			o = rdf.Literal(string(f.text), f.datatype)
		default:
			o = d.plainLiteral(string(f.text), f.lang)
		}
		d.emitReified(f.subj, f.pred, o, f.reify)
	case f.hasDT:
		d.emitReified(f.subj, f.pred, rdf.Literal("", f.datatype), f.reify)
	case !emptyAttrs:
		d.emitReified(f.subj, f.pred, d.plainLiteral("", f.lang), f.reify)
	default:
		o := f.obj
		if !f.hasObjAttr {
			o = rdf.Blank(d.blanks.Fresh())
		}
		d.emitReified(f.subj, f.pred, o, f.reify)
		el := elem{base: f.base, lang: f.lang, props: f.props}
		return d.propertyAttrs(&el, o)
	}
	return nil
}

func (d *Decoder) chars(t xml.CharData) error {
	f := d.top()
	switch {
	case f == nil:
		if !isWS(t) {
			return d.errf("text outside the root element")
		}
	case f.kind == fProp && !f.child:
		if len(f.text)+len(t) > d.maxLit {
			return d.errf("literal longer than %d bytes", d.maxLit)
		}
		f.text = append(f.text, t...)
	case f.kind == fLiteral || f.kind == fLitElem:
		d.lit.text(t)
		return d.checkLiteralSize()
	default:
		if !isWS(t) {
			return d.errf("unexpected text %q in <%s>", abbreviate(t), qname(f.name))
		}
	}
	return nil
}

func (d *Decoder) checkLiteralSize() error {
	if len(d.lit.b) > d.maxLit {
		return d.errf("XML literal longer than %d bytes", d.maxLit)
	}
	return nil
}

func isWS(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

func abbreviate(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}
