// Package jsonld reads and writes JSON-LD 1.1 with a processor of its own, written from the W3C recommendation
// JSON-LD 1.1 Processing Algorithms and API: context processing, expansion, compaction, and conversion to and from
// RDF. The processor never reaches the network or the file system by itself: remote contexts are loaded only
// through a Loader the caller configures, and every document (including loaded contexts) is bounded in size and
// nesting before it is parsed.
package jsonld

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// Processing modes.
const (
	JSONLD10 = "json-ld-1.0"
	JSONLD11 = "json-ld-1.1"
)

// RDF direction modes (JSON-LD 1.1 §8.6): how a literal's base direction is kept in RDF.
const (
	DirectionI18nDatatype    = "i18n-datatype"
	DirectionCompoundLiteral = "compound-literal"
)

// Config holds what DecodeOptions cannot express. The zero Config is the safe default: no remote documents,
// JSON-LD 1.1, standard RDF.
type Config struct {
	// Context is passed to the Loader; nil means context.Background().
	Context context.Context
	// Loader fetches remote contexts; nil refuses them all (NoRemote).
	Loader Loader
	// MaxInputBytes bounds the document and every loaded context; 0 means DefaultMaxInputBytes.
	MaxInputBytes int64
	// MaxRemoteLoads bounds the distinct remote documents one document may load; 0 means DefaultMaxRemoteLoads.
	MaxRemoteLoads int
	// MaxTermDefinitions bounds the context processing one document may cause, counting every term definition
	// (contexts are reprocessed, e.g. type-scoped ones per node); 0 means DefaultMaxTermDefinitions.
	MaxTermDefinitions int
	// ExpandContext is a JSON context (an object, optionally wrapped as {"@context": ...}) applied before the
	// document's own, as the JSON-LD API's expandContext option.
	ExpandContext []byte
	// ProcessingMode is JSONLD11 (default) or JSONLD10.
	ProcessingMode string
	// ProduceGeneralizedRDF keeps triples with blank-node predicates instead of dropping them.
	ProduceGeneralizedRDF bool
	// RDFDirection is "", DirectionI18nDatatype or DirectionCompoundLiteral.
	RDFDirection string
}

// DefaultMaxTermDefinitions is generous for real documents (schema.org's context has about 3,000 terms and is
// processed once per distinct use) while keeping a hostile one to seconds of CPU.
const DefaultMaxTermDefinitions = 1_000_000

// Decoder turns one JSON-LD document into quads (bounded by MaxInputBytes). A document larger than StreamAbove
// that is a top-level array, or an object whose keys are @context then @graph, is read through a window and
// converted one node object at a time, so that its memory is the largest node object, not the document (of a
// reader that does not say its size, the first StreamAbove bytes are read at once). Smaller documents are read into
// memory and converted the same way where their shape allows; other shapes are converted whole on the first call
// to Next, up to MaxWholeDocumentBytes.
type Decoder struct {
	r   io.Reader
	o   rdf.DecodeOptions
	cfg Config

	started  bool
	err      error
	b        []byte // the document text
	p        *processor
	em       *emitter
	active   *activeContext
	items    []span // top-level values still to convert, when the document is one value
	arr      *arrayCursor
	sc       *streamCursor // the array of a document read through a window (StreamAbove)
	nest     int           // how deep sc's values sit in the document, for the nesting limit
	lim      parseLimits
	pending  []rdf.Quad
	next     int
	prefixes []rdf.Prefix
}

// span is a JSON value of the document: its offsets, and its path (as JSON Pointer tokens) for error positions.
type span struct {
	start, end int
	path       []string
	prop       string // the active property it is expanded under
}

// NewDecoder returns a JSON-LD decoder with the default Config.
func NewDecoder(r io.Reader, o rdf.DecodeOptions) *Decoder { return NewDecoderWith(r, o, Config{}) }

// NewDecoderWith returns a JSON-LD decoder with the given Config.
func NewDecoderWith(r io.Reader, o rdf.DecodeOptions, c Config) *Decoder {
	return &Decoder{r: r, o: o, cfg: c}
}

// Next returns the next quad, io.EOF at the end, or the error that stopped the conversion (a *rdf.SyntaxError for
// bad input, whose Msg starts with the JSON-LD error code).
func (d *Decoder) Next() (rdf.Quad, error) {
	d.start()
	for d.next >= len(d.pending) {
		if d.err != nil {
			return rdf.Quad{}, d.err
		}
		var it span
		switch {
		case d.sc != nil:
			item, ok, err := d.sc.next()
			if err != nil || !ok {
				d.sc, d.err = nil, err
				if err == nil {
					return rdf.Quad{}, io.EOF
				}
				continue
			}
			d.pending, d.next = d.pending[:0], 0
			d.em.out = d.pending
			if err := d.convertText(item.text, item.span, d.nest); err != nil {
				d.sc, d.err = nil, streamError(err, item)
			}
			d.pending = d.em.out
			continue
		case d.arr != nil:
			var ok bool
			if it, ok = d.arr.next(); !ok {
				d.arr = nil
				return rdf.Quad{}, io.EOF
			}
		case len(d.items) > 0:
			it = d.items[0]
			d.items = d.items[1:]
		default:
			return rdf.Quad{}, io.EOF
		}
		d.pending, d.next = d.pending[:0], 0
		d.em.out = d.pending
		if err := d.convert(it); err != nil {
			d.err = syntaxError(err, d.b)
			d.items, d.arr = nil, nil
		}
		d.pending = d.em.out
	}
	q := d.pending[d.next]
	d.next++
	return q, nil
}

// Prefixes returns the simple term definitions of the document's top-level @context whose IRI ends in '#' or '/',
// in document order.
func (d *Decoder) Prefixes() []rdf.Prefix {
	d.start()
	return d.prefixes
}

// Base returns the base IRI the document was decoded against.
func (d *Decoder) Base() string { return d.o.Base }

func (d *Decoder) start() {
	if d.started {
		return
	}
	d.started = true
	if err := d.open(); err != nil {
		d.err = syntaxError(err, d.b)
	}
}

func (d *Decoder) open() error {
	c := d.cfg
	switch c.ProcessingMode {
	case "", JSONLD10, JSONLD11:
	default:
		return fmt.Errorf("json-ld: unknown processing mode %q", c.ProcessingMode)
	}
	switch c.RDFDirection {
	case "", DirectionI18nDatatype, DirectionCompoundLiteral:
	default:
		return fmt.Errorf("json-ld: unknown rdfDirection %q", c.RDFDirection)
	}
	lim := limitsFrom(d.o.Limits, c.MaxInputBytes)
	d.lim = lim
	b, ctx, err := d.read(lim)
	if err != nil {
		return err
	}
	i := 0
	if d.sc == nil {
		if err := checkJSON(b, lim); err != nil {
			return err
		}
		d.b = b
		i = skipSpace(b, 0)
		if i >= len(b) || b[i] != '{' && b[i] != '[' {
			return &rdf.SyntaxError{Syntax: syntaxName, Line: 1, Column: 1,
				Msg: "invalid input: a JSON-LD document is a JSON object or array"}
		}
		d.prefixes = topLevelPrefixes(b)
	} else if ctx.text != nil {
		d.prefixes = contextPrefixes(ctx.text, nil)
	}
	d.p = newProcessor(c, lim)
	d.em = &emitter{blanks: blankMap{alloc: d.o.BlankNodesOrNew(), labels: map[string]string{}},
		generalized: c.ProduceGeneralizedRDF, direction: c.RDFDirection}
	d.active = newActiveContext(d.o.Base)
	if len(c.ExpandContext) > 0 {
		ec, err := parseJSON(c.ExpandContext, lim)
		if err != nil {
			return fmt.Errorf("json-ld: expand context: %w", err)
		}
		if m, ok := ec.(map[string]any); ok {
			if inner, ok := m["@context"]; ok {
				ec = inner
			}
		}
		p := d.p
		p.frozen++
		d.active, err = p.processContext(d.active, ec, d.o.Base, nil, false, true, true)
		p.frozen--
		if err != nil {
			return err
		}
	}
	if d.sc != nil {
		if ctx.text == nil {
			return nil
		}
		if err := d.processContext(ctx.text, 1); err != nil {
			return streamError(err, ctx)
		}
		return nil
	}
	if b[i] == '[' {
		d.arr = newArrayCursor(b, i, nil, "")
		return nil
	}
	// {"@context": …, "@graph": [ … ]} with nothing else is its graph's nodes, one at a time.
	entries := objectEntries(b, i)
	streamable := len(entries) > 0
	for j, e := range entries {
		switch {
		case e.key == "@context" && j == 0:
		case e.key == "@graph" && j == len(entries)-1 && b[e.start] == '[':
		default:
			streamable = false
		}
	}
	if !streamable || entries[len(entries)-1].key != "@graph" {
		if len(b) > MaxWholeDocumentBytes {
			return &rdf.SyntaxError{Syntax: syntaxName, Line: 1, Column: 1, Msg: fmt.Sprintf("a JSON-LD document "+
				"larger than %d bytes must be a top-level array or an object of only @context and @graph, "+
				"which are read one node object at a time", MaxWholeDocumentBytes)}
		}
		d.items = []span{{start: i, end: skipValue(b, i)}}
		return nil
	}
	if len(entries) == 2 {
		if err := d.processContext(b[entries[0].start:entries[0].end], 0); err != nil {
			return err
		}
	}
	g := entries[len(entries)-1]
	d.arr = newArrayCursor(b, g.start, []string{"@graph"}, "@graph")
	return nil
}

// processContext makes the document's top-level @context, whose text is b, nested levels deep, the active one.
func (d *Decoder) processContext(b []byte, nested int) error {
	lim := d.lim
	lim.depth -= nested
	ctx, err := parseJSON(b, lim)
	if err != nil {
		return err
	}
	p := d.p
	p.path = []string{"@context"}
	d.active, err = p.processContext(d.active, ctx, d.o.Base, nil, false, true, true)
	if err != nil {
		return err
	}
	p.path = p.path[:0]
	return nil
}

// read returns the document's text, unless it is larger than StreamAbove and of a streamable shape: then it sets
// d.sc and d.nest and returns the top-level @context (its text nil when there is none).
func (d *Decoder) read(lim parseLimits) ([]byte, streamItem, error) {
	if size := sizeOf(d.r); size > StreamAbove {
		// Known to be large (a file, bytes in memory): the window starts small.
		return d.stream(&window{r: d.r, max: lim.maxBytes, line: 1, col: 1}, lim)
	}
	head, err := io.ReadAll(io.LimitReader(d.r, StreamAbove+1))
	if err != nil {
		return nil, streamItem{}, fmt.Errorf("json-ld: reading input: %w", err)
	}
	if int64(len(head)) > lim.maxBytes {
		return nil, streamItem{}, &rdf.SyntaxError{Syntax: syntaxName, Msg: fmt.Sprintf("document larger than %d bytes", lim.maxBytes)}
	}
	whole := len(head) <= StreamAbove // the input ended within the head
	read := int64(len(head))
	// RFC 8259 lets parsers ignore a byte order mark, which Windows tools write; encoding/json does not.
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	if whole {
		return head, streamItem{}, nil
	}
	// Of unknown size and larger than the head: the head becomes the window, which lets go of it once read.
	return d.stream(&window{r: d.r, buf: head, read: read, max: lim.maxBytes, line: 1, col: 1}, lim)
}

// sizeOf is what is left to read of r when r says (a regular file, an in-memory reader), else -1.
func sizeOf(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case interface {
		Stat() (os.FileInfo, error)
		Seek(int64, int) (int64, error)
	}:
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		at, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return fi.Size() - at
	}
	return -1
}

// stream starts reading the document through w when its shape allows, else reads the rest of it whole.
func (d *Decoder) stream(w *window, lim parseLimits) ([]byte, streamItem, error) {
	if w.nonSpace(0) >= 0 && len(w.text()) >= 3 && string(w.text()[:3]) == "\uFEFF" {
		w.start += 3 // a byte order mark (w.text() starts the document: nothing is consumed yet)
	}
	ctx, ok := d.openStream(w)
	if w.err != nil {
		return nil, streamItem{}, w.err
	}
	if ok {
		return nil, ctx, nil
	}
	// Another shape (or broken JSON, which the whole path reports with its position): read the rest.
	rest, err := io.ReadAll(io.LimitReader(d.r, lim.maxBytes+1-w.read))
	if err != nil {
		return nil, streamItem{}, fmt.Errorf("json-ld: reading input: %w", err)
	}
	b := append(w.text(), rest...)
	if w.read+int64(len(rest)) > lim.maxBytes {
		return nil, streamItem{}, &rdf.SyntaxError{Syntax: syntaxName, Msg: fmt.Sprintf("document larger than %d bytes", lim.maxBytes)}
	}
	return b, streamItem{}, nil
}

// openStream looks at the start of a large document for a streamable shape: a top-level array, or an object whose
// first key is @graph with an array, or @context and then such a @graph. Until it says yes it consumes nothing,
// so the window's text is still the whole of what was read.
func (d *Decoder) openStream(w *window) (ctx streamItem, ok bool) {
	i := w.nonSpace(0)
	if i < 0 {
		return ctx, false
	}
	if w.text()[i] == '[' {
		w.consume(i + 1)
		d.sc, d.nest = &streamCursor{w: w}, 1
		return ctx, true
	}
	if w.text()[i] != '{' {
		return ctx, false
	}
	// key returns the key at offset j and the offset of its value.
	key := func(j int) (string, int, bool) {
		if j < 0 || w.text()[j] != '"' {
			return "", 0, false
		}
		end, ok := w.valueEnd(j)
		if !ok {
			return "", 0, false
		}
		k, ok := decodeKey(w.text()[j:end])
		colon := w.nonSpace(end)
		if !ok || colon < 0 || w.text()[colon] != ':' {
			return "", 0, false
		}
		v := w.nonSpace(colon + 1)
		return k, v, v >= 0
	}
	k, v, ok := key(w.nonSpace(i + 1))
	if !ok {
		return ctx, false
	}
	ctxStart, ctxEnd := -1, -1
	if k == "@context" {
		end, ok := w.valueEnd(v)
		if !ok {
			return ctx, false
		}
		ctxStart, ctxEnd = v, end
		comma := w.nonSpace(end)
		if comma < 0 || w.text()[comma] != ',' {
			return ctx, false
		}
		if k, v, ok = key(w.nonSpace(comma + 1)); !ok {
			return ctx, false
		}
	}
	if k != "@graph" || w.text()[v] != '[' {
		return ctx, false
	}
	if ctxStart >= 0 {
		// The context's text is copied: the window's buffer is reused for the node objects.
		line, col := advance(w.text()[:ctxStart], w.line, w.col)
		ctx = streamItem{text: append([]byte(nil), w.text()[ctxStart:ctxEnd]...), line: line, col: col,
			span: span{path: []string{"@context"}}}
	}
	w.consume(v + 1)
	d.sc, d.nest = &streamCursor{w: w, path: []string{"@graph"}, prop: "@graph", object: true}, 2
	return ctx, true
}

// convert expands one top-level value and emits its statements.
func (d *Decoder) convert(it span) error {
	return d.convertText(d.b[it.start:it.end], it, 0)
}

// convertText expands one value, whose text is b, nested levels deep in the document, and emits its statements.
func (d *Decoder) convertText(b []byte, it span, nested int) error {
	lim := limitsFrom(d.o.Limits, int64(len(b)))
	lim.depth -= nested
	v, err := parseJSON(b, lim)
	if err != nil {
		return err
	}
	p := d.p
	p.path = append(p.path[:0], it.path...)
	x, err := p.expand(d.active, it.prop, v, d.o.Base, false)
	if err != nil {
		return err
	}
	if m, ok := x.(map[string]any); ok && it.prop == "" {
		if g, ok := m["@graph"]; ok && len(m) == 1 {
			x = g
		}
	}
	d.em.items(x, rdf.Term{}, true)
	return nil
}

// arrayCursor walks the values of an array in the document text, one at a time.
type arrayCursor struct {
	b    []byte
	j, n int
	path []string
	prop string
}

func newArrayCursor(b []byte, i int, path []string, prop string) *arrayCursor {
	return &arrayCursor{b: b, j: skipSpace(b, i+1), path: path, prop: prop}
}

func (c *arrayCursor) next() (span, bool) {
	b, j := c.b, c.j
	if j >= len(b) || b[j] == ']' {
		return span{}, false
	}
	end := skipValue(b, j)
	it := span{start: j, end: end, path: append(append([]string(nil), c.path...), itoa(c.n)), prop: c.prop}
	c.n++
	j = skipSpace(b, end)
	if j < len(b) && b[j] == ',' {
		j = skipSpace(b, j+1)
	}
	c.j = j
	return it, true
}

type entry struct {
	key        string
	start, end int
}

// objectEntries lists the entries of the object that starts at b[i] (valid JSON).
func objectEntries(b []byte, i int) []entry {
	var out []entry
	j := skipSpace(b, i+1)
	for j < len(b) && b[j] == '"' {
		end := skipString(b, j)
		key, _ := decodeKey(b[j:end])
		j = skipSpace(b, end)
		j = skipSpace(b, j+1) // ':'
		vend := skipValue(b, j)
		out = append(out, entry{key: key, start: j, end: vend})
		j = skipSpace(b, vend)
		if j < len(b) && b[j] == ',' {
			j = skipSpace(b, j+1)
		}
	}
	return out
}

func newProcessor(c Config, lim parseLimits) *processor {
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	loader := c.Loader
	if loader == nil {
		loader = NoRemote()
	}
	maxLoads := c.MaxRemoteLoads
	if maxLoads <= 0 {
		maxLoads = DefaultMaxRemoteLoads
	}
	maxDefs := c.MaxTermDefinitions
	if maxDefs <= 0 {
		maxDefs = DefaultMaxTermDefinitions
	}
	return &processor{ctx: ctx, loader: loader, limits: lim, maxLoads: maxLoads, maxDefs: maxDefs,
		mode10: c.ProcessingMode == JSONLD10, docs: map[string]any{}, memo: map[memoKey]*activeContext{}}
}

// ErrorCode returns the JSON-LD error code (e.g. "invalid @id value") an error from this package carries, or "".
func ErrorCode(err error) string {
	var se *rdf.SyntaxError
	if !errors.As(err, &se) || se.Syntax != syntaxName {
		return ""
	}
	code, _, _ := strings.Cut(se.Msg, ": ")
	code, _, _ = strings.Cut(code, " at ") // located errors: "<code> at <path>: <details>"
	if !isErrorCode(code) {
		return ""
	}
	return code
}

var (
	_ rdf.Decoder      = (*Decoder)(nil)
	_ rdf.PrefixSource = (*Decoder)(nil)
	_ rdf.Encoder      = (*Encoder)(nil)
)
