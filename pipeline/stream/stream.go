package stream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// JSONLD writes expanded JSON-LD as statements come: one node object per run of statements about the same
// subject in the same graph. The compacting encoder (content/rdf/jsonld) reads better but holds and compacts the
// whole graph, which for a million statements costs minutes and gigabytes; expanded JSON-LD is the same data for
// every JSON-LD processor.
type JSONLD struct {
	w       *bufio.Writer
	n       int // node objects written
	open    bool
	g, s, p rdf.Term
	// The predicates already keyed in the open node object: a short list, searched with string comparisons that
	// are mostly pointer comparisons (decoders share predicate strings), until a node has so many that a set pays.
	used    []string
	usedSet map[string]bool
	err     error
}

func NewJSONLD(w io.Writer) *JSONLD {
	return &JSONLD{w: bufio.NewWriterSize(w, 1<<16)}
}

// str writes s as a JSON string, quoted straight into the writer's free buffer space. json.Marshal allocated a
// copy per call: twice per statement at least.
func (e *JSONLD) str(s string) {
	e.w.Write(appendJSONString(e.w.AvailableBuffer(), s))
}

// jsonPlain marks the ASCII bytes appendJSONString copies as they are: one table lookup per byte of the dumps'
// strings, which are nearly all plain.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	t['"'], t['\\'], t['<'], t['>'], t['&'] = false, false, false, false, false
	return t
}()

// appendJSONString quotes s as encoding/json does (HTML-safe, invalid UTF-8 as U+FFFD), so the dumps' bytes did
// not change with it.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func (e *JSONLD) id(t rdf.Term) {
	if t.IsBlank() {
		e.str("_:" + t.Value)
		return
	}
	e.str(t.Value)
}

// keyed reports whether the open node object has a key for predicate p.
func (e *JSONLD) keyed(p string) bool {
	if e.usedSet != nil {
		return e.usedSet[p]
	}
	for _, u := range e.used {
		if u == p {
			return true
		}
	}
	return false
}

// key notes that the open node object has a key for predicate p.
func (e *JSONLD) key(p string) {
	if e.usedSet != nil {
		e.usedSet[p] = true
		return
	}
	e.used = append(e.used, p)
	if len(e.used) > 32 {
		e.usedSet = make(map[string]bool, 2*len(e.used))
		for _, u := range e.used {
			e.usedSet[u] = true
		}
	}
}

func (e *JSONLD) closeNode() {
	if !e.open {
		return
	}
	e.w.WriteString("]}")
	if !e.g.IsZero() {
		e.w.WriteString("]}")
	}
	e.open = false
}

func (e *JSONLD) Encode(q rdf.Quad) error {
	if e.err != nil {
		return e.err
	}
	sameNode := e.open && q.S.Equal(e.s) && q.G.Equal(e.g)
	switch {
	case sameNode && q.P.Equal(e.p):
		e.w.WriteByte(',')
	case sameNode && !e.keyed(q.P.Value):
		e.key(q.P.Value)
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
		e.used, e.usedSet = e.used[:0], nil
		e.key(q.P.Value)
	}
	e.p = q.P
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

func (e *JSONLD) Close() error {
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

// Turtle writes Turtle as statements come, grouping runs of statements about the same subject with ';' and
// repeating objects with ','. Terms are written in their N-Triples form, which is valid Turtle. Like JSONLD
// it serves versions too large for the pretty encoder (content/rdf/turtleenc), which holds and groups the whole
// graph.
type Turtle struct {
	w     *bufio.Writer
	s, p  rdf.Term
	open  bool
	terms termCache // predicates
	err   error
}

func NewTurtle(w io.Writer) *Turtle {
	return &Turtle{w: bufio.NewWriterSize(w, 1<<16)}
}

// term writes t in its N-Triples form, escaped straight into the writer's free buffer space.
func (e *Turtle) term(t rdf.Term) {
	e.w.Write(ntriples.AppendTerm(e.w.AvailableBuffer(), t))
}

func (e *Turtle) Encode(q rdf.Quad) error {
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
		e.w.Write(e.terms.append(e.w.AvailableBuffer(), q.P))
		e.w.WriteByte(' ')
	default:
		if e.open {
			e.w.WriteString(" .\n")
		}
		e.term(q.S)
		e.w.WriteByte(' ')
		e.w.Write(e.terms.append(e.w.AvailableBuffer(), q.P))
		e.w.WriteByte(' ')
		e.open, e.s = true, q.S
	}
	e.p = q.P
	e.term(q.O)
	return nil
}

func (e *Turtle) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.open {
		e.w.WriteString(" .\n")
	}
	e.err = e.w.Flush()
	return e.err
}

// NTriples writes N-Triples or N-Quads as ntriples.Encoder does, byte for byte, for statements read from an
// N-Triples or N-Quads upload: the decoder accepted them, so they need none of the encoder's checks, and the
// subject and predicate, repeated on nearly every line, are escaped once and then copied from a cache.
type NTriples struct {
	w     *bufio.Writer
	terms termCache // subjects and predicates
	err   error
}

func NewNTriples(w io.Writer) *NTriples {
	return &NTriples{w: bufio.NewWriterSize(w, 1<<16)}
}

func (e *NTriples) Encode(q rdf.Quad) error {
	if e.err != nil {
		return e.err
	}
	b := e.terms.append(e.w.AvailableBuffer(), q.S)
	b = append(b, ' ')
	b = e.terms.append(b, q.P)
	b = append(b, ' ')
	b = ntriples.AppendTerm(b, q.O)
	if !q.G.IsZero() {
		b = append(b, ' ')
		b = ntriples.AppendTerm(b, q.G)
	}
	b = append(b, " .\n"...)
	if _, err := e.w.Write(b); err != nil {
		e.err = fmt.Errorf("n-triples: write: %w", err)
	}
	return e.err
}

func (e *NTriples) Close() error {
	if e.err != nil {
		return e.err
	}
	if err := e.w.Flush(); err != nil {
		e.err = fmt.Errorf("n-triples: write: %w", err)
	}
	return e.err
}

// termCache holds the N-Triples form of recently written terms in slots chosen by the address of the term's
// string: decoders share the strings of a repeated subject or predicate between statements, so a hit costs a
// pointer comparison and a copy instead of a scan for characters to escape.
type termCache struct {
	slots [64]cachedTerm
}

type cachedTerm struct {
	t   rdf.Term
	enc []byte // nil while the slot is empty
}

// append appends t in N-Triples form to b.
func (c *termCache) append(b []byte, t rdf.Term) []byte {
	if t.Value == "" {
		return ntriples.AppendTerm(b, t)
	}
	slot := &c.slots[uintptr(unsafe.Pointer(unsafe.StringData(t.Value)))>>4%uintptr(len(c.slots))]
	if slot.enc != nil && slot.t == t {
		return append(b, slot.enc...)
	}
	start := len(b)
	b = ntriples.AppendTerm(b, t)
	slot.t, slot.enc = t, append(slot.enc[:0], b[start:]...)
	return b
}
