// Package turtle decodes Turtle 1.1, TriG 1.1 and the Turtle-compatible part of N3 into RDF quads. It streams: the
// input is read through a fixed-size window and the grammar runs as an explicit state machine, so neither a large
// document nor one huge statement is ever held in memory, and nesting depth is bounded by DecodeOptions.Limits.
//
// The N3 decoder accepts Turtle plus the shorthands that are plain triples: '=' (owl:sameAs), '=>' and '<='
// (log:implies, '<=' reversed), "has p" and "is p of". Formulae, rules, quick variables, @forAll/@forSome and
// paths are rejected with a syntax error that names the construct, since they have no RDF reading.
//
// Absolute IRIs are kept exactly as written; only relative references are resolved (RFC 3986) against the base.
package turtle

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

type dialect uint8

const (
	dialectTurtle dialect = iota
	dialectTriG
	dialectN3
)

// N3 vocabulary for the shorthands that map to plain triples.
const (
	owlSameAs  = "http://www.w3.org/2002/07/owl#sameAs"
	logImplies = "http://www.w3.org/2000/10/swap/log#implies"
)

// Decoder reads one Turtle, TriG or N3 document. It implements rdf.Decoder and rdf.PrefixSource.
type Decoder struct {
	reader
	dialect dialect

	base     string
	prefixes map[string]int // prefix name -> index in order
	order    []rdf.Prefix
	blanks   *rdf.BlankNodes
	maxDepth int

	pnCache    []map[string]string // by prefix index: local name as written -> IRI; cleared when a prefix changes
	pnCount    int                 // entries in pnCache
	lastPrefix int                 // index of the prefix last looked up, or -1
	langCache  map[string]string   // interned language tags
	lastLang   string              // the tag last seen: tags come in runs
	numCache   map[string]string   // interned short numbers
	scratch    []byte

	stack   []frame
	graph   rdf.Term // current graph name; zero outside a TriG graph block
	inGraph bool

	inVerb  bool // N3: inside "has"/"is ... of", which do not nest
	started bool // a leading byte order mark was checked for

	out  []rdf.Quad // quads produced by the last step, handed out by Next
	head int
	err  error // sticky: the first error, or io.EOF
}

// NewDecoder returns a Turtle decoder.
func NewDecoder(r io.Reader, o rdf.DecodeOptions) *Decoder { return newDecoder(r, o, dialectTurtle) }

// NewTriGDecoder returns a TriG decoder.
func NewTriGDecoder(r io.Reader, o rdf.DecodeOptions) *Decoder { return newDecoder(r, o, dialectTriG) }

// NewN3Decoder returns a decoder for the part of N3 that is plain RDF: Turtle plus the '=', '=>' and '<='
// shorthands. Formulae, variables, quantifiers and paths are reported as unsupported syntax errors.
func NewN3Decoder(r io.Reader, o rdf.DecodeOptions) *Decoder { return newDecoder(r, o, dialectN3) }

func newDecoder(r io.Reader, o rdf.DecodeOptions, dl dialect) *Decoder {
	d := &Decoder{
		dialect:    dl,
		base:       o.Base,
		prefixes:   map[string]int{},
		blanks:     o.BlankNodesOrNew(),
		maxDepth:   o.Limits.Depth(),
		lastPrefix: -1,
		langCache:  map[string]string{},
		numCache:   map[string]string{},
		out:        make([]rdf.Quad, 0, 4),
	}
	name := [...]string{"turtle", "trig", "n3"}[dl]
	d.init(r, name, o.Limits.LiteralSize())
	return d
}

// Prefixes returns the prefixes declared so far, in the order they were first declared; a redeclared prefix keeps
// its place and takes its latest IRI.
func (d *Decoder) Prefixes() []rdf.Prefix { return append([]rdf.Prefix(nil), d.order...) }

// Base returns the current base IRI (the option's, or the last @base/BASE seen).
func (d *Decoder) Base() string { return d.base }

// Next returns the next quad; io.EOF after the last one. Any other error is final.
func (d *Decoder) Next() (rdf.Quad, error) {
	for d.head >= len(d.out) {
		if d.err != nil {
			return rdf.Quad{}, d.err
		}
		d.out = d.out[:0]
		d.head = 0
		if err := d.step(); err != nil {
			d.err = err
			if d.bad != nil {
				// Whatever the grammar made of the input cut short at a bad comment, the comment is the error.
				d.err = d.bad
			}
		}
	}
	q := d.out[d.head]
	d.head++
	return q, nil
}

func (d *Decoder) emit(s, p, o rdf.Term) {
	d.out = append(d.out, rdf.Quad{S: s, P: p, O: o, G: d.graph})
}

type frameKind uint8

const (
	framePOL  frameKind = iota // predicate-object list of a subject
	frameList                  // collection
)

type polState uint8

const (
	stVerb      polState = iota // a verb must come
	stObject                    // an object must come
	stAfterObj                  // ',' ';' or the end
	stAfterSemi                 // more ';', a verb, or the end
	stOptional                  // after '[ ... ]' as a subject: a verb or the end
)

// frame is one open construct: a predicate-object list (of a statement or of '[ ]') or a collection.
type frame struct {
	kind    frameKind
	state   polState
	bracket bool // a '[ ]' list, ended by ']'; otherwise a statement, ended by '.' (or '}' in a TriG graph)
	inverse bool // N3 '<=': subject and object swap places
	first   bool // frameList: the next item is the first one, which uses node itself
	subj    rdf.Term
	pred    rdf.Term
}

func (d *Decoder) push(f frame) error {
	if len(d.stack) >= d.maxDepth {
		return d.errAt(0, "nesting deeper than the limit of %d", d.maxDepth)
	}
	d.stack = append(d.stack, f)
	return nil
}

var (
	rdfType  = rdf.IRI(rdf.RDFType)
	rdfFirst = rdf.IRI(rdf.RDFFirst)
	rdfRest  = rdf.IRI(rdf.RDFRest)
	rdfNil   = rdf.IRI(rdf.RDFNil)
)

// step advances the grammar by one action, which emits at most a few quads.
func (d *Decoder) step() error {
	if !d.started {
		d.started = true
		if d.at(0) == 0xEF && d.at(1) == 0xBB && d.at(2) == 0xBF {
			d.skip(3)
		}
	}
	c := d.ws()
	if len(d.stack) == 0 {
		return d.statement(c)
	}
	f := &d.stack[len(d.stack)-1]
	if f.kind == frameList {
		if c < 0 {
			return d.endErr(0, "collection, expected ')'")
		}
		if c == ')' {
			d.skip(1)
			d.emit(f.subj, rdfRest, rdfNil)
			d.stack = d.stack[:len(d.stack)-1]
			return nil
		}
		node := f.subj
		if !f.first {
			next := rdf.Blank(d.blanks.Fresh())
			d.emit(node, rdfRest, next)
			f.subj, node = next, next
		}
		f.first = false
		return d.object(c, node, rdfFirst, false)
	}
	switch f.state {
	case stVerb:
		return d.verbInto(c, f)
	case stObject:
		s, p, inv := f.subj, f.pred, f.inverse
		f.state = stAfterObj
		return d.object(c, s, p, inv)
	case stAfterObj:
		switch c {
		case ',':
			d.skip(1)
			f.state = stObject
			return nil
		case ';':
			d.skip(1)
			f.state = stAfterSemi
			return nil
		case '!', '^':
			if err := d.n3Unsupported(c); err != nil {
				return err
			}
		}
		if d.end(c, f) {
			return nil
		}
		return d.errAt(0, "expected %s after an object, found %s", d.closer(f), d.describe(0))
	case stAfterSemi:
		if c == ';' {
			d.skip(1)
			return nil
		}
		if d.end(c, f) {
			return nil
		}
		return d.verbInto(c, f)
	default: // stOptional
		if d.end(c, f) {
			return nil
		}
		return d.verbInto(c, f)
	}
}

// closer lists what may follow an object in f.
func (d *Decoder) closer(f *frame) string {
	switch {
	case f.bracket:
		return "',', ';' or ']'"
	case d.inGraph:
		return "',', ';', '.' or '}'"
	}
	return "',', ';' or '.'"
}

// end closes the predicate-object list f if c ends it.
func (d *Decoder) end(c int, f *frame) bool {
	switch {
	case f.bracket && c == ']':
		d.skip(1)
	case !f.bracket && c == '.':
		d.skip(1)
	case !f.bracket && c == '}' && d.inGraph:
		// The graph block's '}' also ends its last statement; leave it for the block.
	default:
		return false
	}
	d.stack = d.stack[:len(d.stack)-1]
	return true
}

// verbInto reads a verb into f.
func (d *Decoder) verbInto(c int, f *frame) error {
	p, inv, err := d.verb(c)
	if err != nil {
		return err
	}
	f.pred, f.inverse, f.state = p, inv, stObject
	return nil
}

func (d *Decoder) verb(c int) (rdf.Term, bool, error) {
	switch {
	case c == '<':
		if d.dialect == dialectN3 && d.at(1) == '=' && d.isN3OpEnd(2) {
			d.skip(2)
			return rdf.IRI(logImplies), true, nil
		}
		s, err := d.iriRef()
		return rdf.IRI(s), false, err
	case c == '=' && d.dialect == dialectN3:
		if d.at(1) == '>' {
			d.skip(2)
			return rdf.IRI(logImplies), false, nil
		}
		d.skip(1)
		return rdf.IRI(owlSameAs), false, nil
	case c < 0:
		return rdf.Term{}, false, d.endErr(0, "statement, expected a predicate")
	case c == '_' && d.at(1) == ':', c == '[', c == '(', c == '"', c == '\'', isDigit(c):
		return rdf.Term{}, false, d.errAt(0, "a predicate must be an IRI, found %s", d.describe(0))
	case c == '{' && d.dialect == dialectTurtle:
		return rdf.Term{}, false, d.errAt(0, "unexpected '{' (graph blocks are TriG, not Turtle)")
	}
	if err := d.n3Unsupported(c); err != nil {
		return rdf.Term{}, false, err
	}
	if c != ':' && c < utf8.RuneSelf && asciiClass[c]&clsBase == 0 {
		return rdf.Term{}, false, d.errAt(0, "expected a predicate (an IRI, a prefixed name or 'a'), found %s", d.describe(0))
	}
	if n := d.word(); n > 0 {
		w := string(d.buf[d.pos : d.pos+n])
		switch {
		case w == "a":
			d.skip(1)
			return rdfType, false, nil
		case d.dialect == dialectN3 && w == "has" && !d.inVerb:
			// ":a has :p :b" is ":a :p :b".
			d.skip(n)
			d.inVerb = true
			p, _, err := d.verb(d.ws())
			d.inVerb = false
			return p, false, err
		case d.dialect == dialectN3 && w == "is" && !d.inVerb:
			// ":a is :p of :b" is ":b :p :a".
			d.skip(n)
			d.inVerb = true
			p, _, err := d.verb(d.ws())
			d.inVerb = false
			if err != nil {
				return p, false, err
			}
			if d.ws() != 'o' || d.word() != 2 || d.at(1) != 'f' {
				return p, false, d.errAt(0, "expected 'of' after 'is' and a predicate, found %s", d.describe(0))
			}
			d.skip(2)
			return p, true, nil
		}
		return rdf.Term{}, false, d.errAt(0, "expected a predicate, found %q", w)
	}
	s, err := d.pname()
	return rdf.IRI(s), false, err
}

// isN3OpEnd reports whether an N3 operator ending before pos+i is followed by something that cannot continue an
// IRI reference.
func (d *Decoder) isN3OpEnd(i int) bool {
	c := d.at(i)
	return c < 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// n3Unsupported reports the N3 constructs beyond RDF with a clear message.
func (d *Decoder) n3Unsupported(c int) error {
	if d.dialect != dialectN3 {
		return nil
	}
	switch c {
	case '{', '}':
		return d.errAt(0, "N3 formulae and rules are not supported")
	case '?':
		return d.errAt(0, "N3 quick variables (?x) are not supported")
	case '!', '^':
		return d.errAt(0, "N3 paths ('!' and '^') are not supported")
	}
	return nil
}

// object reads an object of (s, p) and emits its triple; '[' and '(' open a frame for their contents.
func (d *Decoder) object(c int, s, p rdf.Term, inv bool) error {
	var o rdf.Term
	switch {
	case c == '[':
		d.skip(1)
		b := rdf.Blank(d.blanks.Fresh())
		d.triple(s, p, b, inv)
		if d.ws() == ']' {
			d.skip(1)
			return d.afterTerm()
		}
		return d.push(frame{kind: framePOL, state: stVerb, bracket: true, subj: b})
	case c == '(':
		d.skip(1)
		if d.ws() == ')' {
			d.skip(1)
			d.triple(s, p, rdfNil, inv)
			return d.afterTerm()
		}
		b := rdf.Blank(d.blanks.Fresh())
		d.triple(s, p, b, inv)
		return d.push(frame{kind: frameList, first: true, subj: b})
	default:
		var err error
		if o, err = d.term(c, inv); err != nil {
			return err
		}
	}
	d.triple(s, p, o, inv)
	return d.afterTerm()
}

func (d *Decoder) triple(s, p, o rdf.Term, inv bool) {
	if inv {
		s, o = o, s
	}
	d.emit(s, p, o)
}

// afterTerm rejects N3 paths right after a term.
func (d *Decoder) afterTerm() error {
	if d.dialect != dialectN3 {
		return nil
	}
	if c := d.at(0); c == '!' || c == '^' {
		return d.n3Unsupported(c)
	}
	return nil
}

// term reads an IRI, blank node label or literal at pos; subject says a literal is not allowed (it is also set for
// the object of N3's '<=', which becomes the subject).
func (d *Decoder) term(c int, subject bool) (rdf.Term, error) {
	switch {
	case c == '<':
		s, err := d.iriRef()
		return rdf.IRI(s), err
	case c == '_':
		return d.blankLabel()
	case c == '"' || c == '\'':
		if subject {
			return rdf.Term{}, d.errAt(0, "a literal cannot be a subject")
		}
		return d.literal()
	case isDigit(c) || c == '+' || c == '-' || c == '.':
		if subject {
			return rdf.Term{}, d.errAt(0, "a literal cannot be a subject")
		}
		return d.number()
	case c < 0:
		return rdf.Term{}, d.endErr(0, "statement")
	}
	if err := d.n3Unsupported(c); err != nil {
		return rdf.Term{}, err
	}
	if n := d.word(); n > 0 {
		w := string(d.buf[d.pos : d.pos+n])
		if !subject && (w == "true" || w == "false") {
			d.skip(n)
			return rdf.Literal(w, rdf.XSDBoolean), nil
		}
		return rdf.Term{}, d.errAt(0, "unexpected word %q (a prefixed name needs a ':')", w)
	}
	s, err := d.pname()
	return rdf.IRI(s), err
}

// statement starts a directive, a statement or (TriG) a graph block.
func (d *Decoder) statement(c int) error {
	switch {
	case c < 0:
		if d.inGraph {
			return d.endErr(0, "graph block, expected '}'")
		}
		if d.rerr != nil {
			return d.endErr(0, "")
		}
		return io.EOF
	case c == '@':
		return d.atDirective()
	case c == '{':
		if d.dialect == dialectTriG && !d.inGraph {
			d.skip(1)
			d.inGraph, d.graph = true, rdf.Term{}
			return nil
		}
		if d.dialect == dialectN3 {
			return d.n3Unsupported(c)
		}
		if d.inGraph {
			return d.errAt(0, "graph blocks cannot be nested")
		}
		return d.errAt(0, "unexpected '{' (graph blocks are TriG, not Turtle)")
	case c == '}' && d.inGraph:
		d.skip(1)
		d.inGraph, d.graph = false, rdf.Term{}
		return nil
	case c == '[':
		d.skip(1)
		b := rdf.Blank(d.blanks.Fresh())
		if d.ws() == ']' {
			d.skip(1)
			if err := d.afterTerm(); err != nil {
				return err
			}
			if ok, err := d.graphBlock(b); ok || err != nil {
				return err
			}
			return d.push(frame{kind: framePOL, state: stVerb, subj: b})
		}
		if err := d.push(frame{kind: framePOL, state: stOptional, subj: b}); err != nil {
			return err
		}
		return d.push(frame{kind: framePOL, state: stVerb, bracket: true, subj: b})
	case c == '(':
		d.skip(1)
		if d.ws() == ')' {
			d.skip(1)
			return d.push(frame{kind: framePOL, state: stVerb, subj: rdfNil})
		}
		b := rdf.Blank(d.blanks.Fresh())
		if err := d.push(frame{kind: framePOL, state: stVerb, subj: b}); err != nil {
			return err
		}
		return d.push(frame{kind: frameList, first: true, subj: b})
	}
	if c >= 'A' && c <= 'z' {
		if n := d.word(); n > 0 {
			switch w := string(d.buf[d.pos : d.pos+n]); {
			case strings.EqualFold(w, "prefix"):
				return d.prefixDirective(n, false)
			case strings.EqualFold(w, "base"):
				return d.baseDirective(n, false)
			case strings.EqualFold(w, "graph") && d.dialect == dialectTriG:
				return d.graphKeyword(n)
			}
		}
	}
	s, err := d.term(c, true)
	if err != nil {
		return err
	}
	if err := d.afterTerm(); err != nil {
		return err
	}
	if ok, err := d.graphBlock(s); ok || err != nil {
		return err
	}
	return d.push(frame{kind: framePOL, state: stVerb, subj: s})
}

// graphBlock opens a TriG graph block named name if one follows.
func (d *Decoder) graphBlock(name rdf.Term) (bool, error) {
	if d.dialect != dialectTriG || d.ws() != '{' {
		return false, nil
	}
	if d.inGraph {
		return false, d.errAt(0, "graph blocks cannot be nested")
	}
	d.skip(1)
	d.inGraph, d.graph = true, name
	return true, nil
}

// graphKeyword handles TriG's "GRAPH label { ... }".
func (d *Decoder) graphKeyword(n int) error {
	if d.inGraph {
		return d.errAt(0, "GRAPH inside a graph block")
	}
	d.skip(n)
	var name rdf.Term
	switch c := d.ws(); c {
	case '[':
		d.skip(1)
		if d.ws() != ']' {
			return d.errAt(0, "a graph name must be an IRI or a blank node, found a property list")
		}
		d.skip(1)
		name = rdf.Blank(d.blanks.Fresh())
	case '(', '"', '\'':
		return d.errAt(0, "a graph name must be an IRI or a blank node")
	default:
		var err error
		if name, err = d.term(c, true); err != nil {
			return err
		}
	}
	if ok, err := d.graphBlock(name); ok || err != nil {
		return err
	}
	return d.errAt(0, "expected '{' after GRAPH and its name")
}

// atDirective handles @prefix and @base (and rejects the N3 keywords it does not support).
func (d *Decoder) atDirective() error {
	n := 1
	for c := d.at(n); (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && n <= maxKeyword; c = d.at(n) {
		n++
	}
	w := string(d.buf[d.pos+1 : d.pos+n])
	if d.inGraph {
		return d.errAt(0, "directives are not allowed inside a graph block")
	}
	switch w {
	case "prefix":
		return d.prefixDirective(n, true)
	case "base":
		return d.baseDirective(n, true)
	}
	if d.dialect == dialectN3 {
		switch w {
		case "forAll", "forSome":
			return d.errAt(0, "N3 quantifiers (@%s) are not supported", w)
		case "keywords":
			return d.errAt(0, "N3 @keywords is not supported")
		}
	}
	return d.errAt(0, "unknown directive @%s", w)
}

// prefixDirective reads "PNAME_NS IRIREF" after the n-byte keyword; dot says whether the '@' form's '.' follows.
func (d *Decoder) prefixDirective(n int, dot bool) error {
	if d.inGraph {
		return d.errAt(0, "directives are not allowed inside a graph block")
	}
	d.skip(n)
	if c := d.ws(); c != ':' && !(c >= 0 && c < 128 && asciiClass[c]&clsBase != 0 || c >= 128) {
		return d.errAt(0, "expected a prefix name after prefix, found %s", d.describe(0))
	}
	i := 0
	if r, sz := d.runeAt(0); r != ':' {
		if !(r >= 0 && r < 128 && asciiClass[r]&clsBase != 0 || r >= 128 && isBaseRune(r)) {
			return d.errAt(0, "invalid prefix name start %s", d.describe(0))
		}
		var err error
		if i, _, err = d.pnChars(sz, false); err != nil {
			return err
		}
	}
	if d.at(i) != ':' {
		return d.errAt(i, "expected ':' after the prefix name, found %s", d.describe(i))
	}
	name := string(d.buf[d.pos : d.pos+i])
	d.skip(i + 1)
	if c := d.ws(); c != '<' {
		return d.errAt(0, "expected an IRI after prefix %s:, found %s", name, d.describe(0))
	}
	ns, err := d.iriRef()
	if err != nil {
		return err
	}
	if dot {
		if err := d.directiveDot(); err != nil {
			return err
		}
	}
	if k, seen := d.prefixes[name]; seen {
		d.order[k].IRI = ns
		clear(d.pnCache[k])
	} else {
		d.prefixes[name] = len(d.order)
		d.order = append(d.order, rdf.Prefix{Name: name, IRI: ns})
		d.pnCache = append(d.pnCache, nil)
	}
	return nil
}

func (d *Decoder) baseDirective(n int, dot bool) error {
	if d.inGraph {
		return d.errAt(0, "directives are not allowed inside a graph block")
	}
	d.skip(n)
	if c := d.ws(); c != '<' {
		return d.errAt(0, "expected an IRI after base, found %s", d.describe(0))
	}
	b, err := d.iriRef()
	if err != nil {
		return err
	}
	if dot {
		if err := d.directiveDot(); err != nil {
			return err
		}
	}
	d.base = b
	return nil
}

func (d *Decoder) directiveDot() error {
	if c := d.ws(); c != '.' {
		return d.errAt(0, "expected '.' after the directive, found %s", d.describe(0))
	}
	d.skip(1)
	return nil
}
