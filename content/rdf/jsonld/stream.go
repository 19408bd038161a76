package jsonld

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// StreamEncoder writes JSON-LD as statements come, in memory that does not grow with the graph: a context made of
// the prefixes, then one node object per run of statements about the same subject in the same graph (a named
// graph's runs are wrapped in {"@id": graph, "@graph": [...]}), IRIs written as compact IRIs where a prefix
// covers them. It is flattened JSON-LD, not compacted: values keep their arrays and value objects keep their
// keys, so the output reads the same with any JSON-LD processor and costs no compaction. Input grouped by subject
// (as the pipeline's sorted dumps are) gives one node object per subject. Encoder is the compacted form for
// graphs that fit in memory.
type StreamEncoder struct {
	w       *bufio.Writer
	pfx     map[string]string // namespace → prefix name
	nsLens  []int             // distinct namespace lengths, longest first
	names   map[string]bool   // prefix names
	started bool
	closed  bool
	err     error

	n       int // node objects written
	open    bool
	g, s    rdf.Term
	k       string // the open key
	used    []string
	usedSet map[string]bool
	preds   map[string]string // compacted predicate keys, quoted
}

// commonSchemes are never used as prefix names: an IRI with that scheme would read as a compact IRI.
var commonSchemes = map[string]bool{"http": true, "https": true, "urn": true, "mailto": true, "file": true,
	"ftp": true, "tag": true, "data": true, "did": true, "doi": true, "info": true, "geo": true, "tel": true}

// NewStreamEncoder returns a streaming JSON-LD encoder. Prefixes whose namespace ends in one of : / ? # [ ] @ and
// whose name is a plain term become the context.
func NewStreamEncoder(w io.Writer, o rdf.EncodeOptions) *StreamEncoder {
	e := &StreamEncoder{w: bufio.NewWriterSize(w, 1<<16), pfx: map[string]string{}, names: map[string]bool{},
		preds: map[string]string{}}
	for _, p := range o.Prefixes {
		if p.Name == "" || p.Name[0] == '@' || strings.ContainsAny(p.Name, ":/") || commonSchemes[strings.ToLower(p.Name)] ||
			e.names[p.Name] || !iri.IsAbsolute(p.IRI) || !utf8.ValidString(p.IRI) ||
			!strings.ContainsAny(p.IRI[len(p.IRI)-1:], ":/?#[]@") {
			continue
		}
		if _, dup := e.pfx[p.IRI]; dup {
			continue
		}
		e.names[p.Name] = true
		e.pfx[p.IRI] = p.Name
		e.nsLens = append(e.nsLens, len(p.IRI))
	}
	slices.Sort(e.nsLens)
	e.nsLens = slices.Compact(e.nsLens)
	slices.Reverse(e.nsLens)
	return e
}

func (e *StreamEncoder) header() {
	e.started = true
	e.w.WriteString("{\n  \"@context\": {")
	first := true
	// In the order of the namespaces' first appearance in the options is not kept by the map; sort by name.
	names := make([]string, 0, len(e.pfx))
	byName := make(map[string]string, len(e.pfx))
	for ns, name := range e.pfx {
		names = append(names, name)
		byName[name] = ns
	}
	slices.Sort(names)
	for _, name := range names {
		if !first {
			e.w.WriteByte(',')
		}
		first = false
		e.w.WriteString("\n    ")
		e.str(name)
		e.w.WriteString(": ")
		e.str(byName[name])
	}
	if !first {
		e.w.WriteString("\n  ")
	}
	e.w.WriteString("},\n  \"@graph\": [")
}

func (e *StreamEncoder) str(s string) { e.w.Write(appendJSONString(e.w.AvailableBuffer(), s)) }

// compact spells an IRI as prefix:local with the longest namespace that leaves a local part a JSON-LD processor
// reads as such, or in full. A full IRI whose scheme is a prefix name would read as a compact IRI: error.
// It returns the two halves, prefix "" for a full IRI, so that the hot path writes them without joining them first.
func (e *StreamEncoder) compact(s string) (prefix, rest string, err error) {
	for _, l := range e.nsLens {
		if l > len(s) {
			continue
		}
		if name, ok := e.pfx[s[:l]]; ok && !strings.HasPrefix(s[l:], "//") {
			return name, s[l:], nil
		}
	}
	if i := strings.IndexByte(s, ':'); i > 0 && e.names[s[:i]] && !strings.HasPrefix(s[i+1:], "//") {
		return "", "", fmt.Errorf("json-ld: %s would read as a compact IRI with the prefix %q", s, s[:i])
	}
	return "", s, nil
}

// appendJSONJoined appends the JSON string of a + ":" + b (a non-empty) without building that string.
func appendJSONJoined(buf []byte, a, b string) []byte {
	buf = appendJSONString(buf, a)
	buf[len(buf)-1] = ':' // the closing quote of a
	n := len(buf)
	buf = appendJSONString(buf, b)
	return append(buf[:n], buf[n+1:]...) // drop b's opening quote
}

func (e *StreamEncoder) id(t rdf.Term) error {
	if t.IsBlank() {
		e.w.Write(appendJSONJoined(e.w.AvailableBuffer(), "_", t.Value))
		return nil
	}
	p, rest, err := e.compact(t.Value)
	if err != nil {
		return err
	}
	if p == "" {
		e.str(rest)
	} else {
		e.w.Write(appendJSONJoined(e.w.AvailableBuffer(), p, rest))
	}
	return nil
}

func (e *StreamEncoder) keyed(p string) bool {
	if e.usedSet != nil {
		return e.usedSet[p]
	}
	return slices.Contains(e.used, p)
}

func (e *StreamEncoder) key(p string) {
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

func (e *StreamEncoder) closeNode() {
	if !e.open {
		return
	}
	e.w.WriteString("]}")
	if !e.g.IsZero() {
		e.w.WriteString("]}")
	}
	e.open = false
}

// writeKey writes the key of predicate p (@type for rdf:type with a resource object).
func (e *StreamEncoder) writeKey(p string) error {
	k, ok := e.preds[p]
	if !ok {
		pfx, rest, err := e.compact(p)
		if err != nil {
			return err
		}
		if pfx == "" {
			k = string(appendJSONString(nil, rest))
		} else {
			k = string(appendJSONJoined(nil, pfx, rest))
		}
		if len(e.preds) < 4096 {
			e.preds[p] = k
		}
	}
	e.w.WriteString(k)
	e.w.WriteString(":[")
	return nil
}

// Encode writes q.
func (e *StreamEncoder) Encode(q rdf.Quad) error {
	if e.err != nil {
		return e.err
	}
	if e.closed {
		return fmt.Errorf("json-ld: encode after close")
	}
	if q.S.IsZero() || q.S.IsLiteral() || !q.P.IsIRI() || q.O.IsZero() || q.G.IsLiteral() {
		return fmt.Errorf("json-ld: cannot write %v", q)
	}
	if !e.started {
		e.header()
	}
	key := q.P.Value
	if key == rdf.RDFType && !q.O.IsLiteral() {
		key = "@type"
	}
	sameNode := e.open && q.S == e.s && q.G == e.g
	switch {
	case sameNode && key == e.k:
		e.w.WriteByte(',')
	case sameNode && !e.keyed(key):
		e.key(key)
		e.w.WriteString("],")
		if err := e.writeKeyOf(key); err != nil {
			return err
		}
	default:
		// A new node object; also when the key was already used in this one (the input was not grouped by
		// predicate): JSON objects cannot repeat a key, so the subject gets another node object, which means the
		// same to a JSON-LD processor.
		e.closeNode()
		if e.n > 0 {
			e.w.WriteByte(',')
		}
		e.w.WriteString("\n    ")
		e.n++
		if !q.G.IsZero() {
			e.w.WriteString(`{"@id":`)
			if err := e.id(q.G); err != nil {
				return e.fail(err)
			}
			e.w.WriteString(`,"@graph":[`)
		}
		e.w.WriteString(`{"@id":`)
		if err := e.id(q.S); err != nil {
			return e.fail(err)
		}
		e.w.WriteByte(',')
		if err := e.writeKeyOf(key); err != nil {
			return err
		}
		e.open, e.s, e.g = true, q.S, q.G
		e.used, e.usedSet = e.used[:0], nil
		e.key(key)
	}
	e.k = key
	if key == "@type" {
		return e.fail(e.id(q.O))
	}
	switch {
	case q.O.IsLiteral() && q.O.Lang == "" && (q.O.Datatype == rdf.XSDString || q.O.Datatype == ""):
		e.str(q.O.Value)
	case q.O.IsLiteral():
		e.w.WriteString(`{"@value":`)
		e.str(q.O.Value)
		if q.O.Lang != "" {
			e.w.WriteString(`,"@language":`)
			e.str(q.O.Lang)
		} else {
			e.w.WriteString(`,"@type":`)
			if err := e.id(rdf.IRI(q.O.Datatype)); err != nil {
				return e.fail(err)
			}
		}
		e.w.WriteByte('}')
	default:
		e.w.WriteString(`{"@id":`)
		if err := e.id(q.O); err != nil {
			return e.fail(err)
		}
		e.w.WriteByte('}')
	}
	return nil
}

func (e *StreamEncoder) writeKeyOf(key string) error {
	if key == "@type" {
		e.w.WriteString(`"@type":[`)
		return nil
	}
	return e.fail(e.writeKey(key))
}

// fail makes err sticky: the document written so far is cut in the middle of a node object.
func (e *StreamEncoder) fail(err error) error {
	if err != nil && e.err == nil {
		e.err = err
	}
	return err
}

// Close ends the document and flushes. It does not close the underlying writer.
func (e *StreamEncoder) Close() error {
	if e.closed || e.err != nil {
		return e.err
	}
	e.closed = true
	if !e.started {
		e.header()
	}
	e.closeNode()
	if e.n > 0 {
		e.w.WriteString("\n  ")
	}
	e.w.WriteString("]\n}\n")
	if err := e.w.Flush(); err != nil {
		e.err = fmt.Errorf("json-ld: write: %w", err)
	}
	return e.err
}

var _ rdf.Encoder = (*StreamEncoder)(nil)

// jsonPlain marks the ASCII bytes appendJSONString copies as they are: one table lookup per byte of the dumps'
// strings, which are nearly all plain.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = false, false
	return t
}()

// appendJSONString quotes s as encoding/json does with SetEscapeHTML(false) (invalid UTF-8 as U+FFFD; U+2028 and
// U+2029 escaped, as JavaScript needs).
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
