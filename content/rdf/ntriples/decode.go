// Package ntriples reads and writes RDF 1.1 N-Triples and N-Quads. The decoders are strict (they reject what the
// W3C negative syntax tests reject) and stream: memory stays flat whatever the input size, apart from the table of
// blank-node labels a document uses. The encoders write the canonical form shared through rdf.AppendNTriples.
package ntriples

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
)

const (
	syntaxNT = "n-triples"
	syntaxNQ = "n-quads"

	readBufferSize = 256 << 10
	// maxInterned bounds the table of interned predicates, datatypes and language tags, so a hostile document with
	// millions of distinct predicates cannot grow it without limit; names past the bound are simply not shared.
	maxInterned = 4096
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Decoder reads N-Triples or N-Quads, one statement per line. The grammar is the RawReader's (raw.go): Next reads
// each statement through an internal RawReader and turns its term bytes into strings, so the two APIs cannot
// drift apart in what they accept or how they report errors.
type Decoder struct {
	r      *bufio.Reader
	syntax string
	quads  bool
	blanks *rdf.BlankNodes
	maxLit int

	lineNo int
	rest   []byte // unread part of the current chunk (a slice of the bufio buffer or of long)
	long   []byte // accumulates a line longer than the bufio buffer
	eof    bool
	err    error // sticky: once the stream ends, every Next returns the same error

	// The line being parsed, and the grammar's position in it (shared by every RawReader of this decoder).
	line []byte
	pos  int

	// Next's own reader. Its subject cache is only fed by Next, so a hit means lastSubj is the term.
	raw RawReader

	// Term values without escapes are substrings of lineStr, so a line costs one string allocation however many
	// terms it has; lineStr is made only when a term needs it.
	lineStr  string // line[lineBase:] once a term needed it
	lineBase int
	haveStr  bool

	// Consecutive statements usually share a subject; reusing the last one saves a string per line.
	lastSubj rdf.Term

	// Interned names: only IRIs that passed validation go into iris, so a hit also skips validation. Language
	// tags live apart because a tag is not a valid IRI.
	iris  map[string]string
	langs map[string]string
}

// NewDecoder returns a decoder of N-Triples. A statement with a graph name is a syntax error.
func NewDecoder(r io.Reader, o rdf.DecodeOptions) *Decoder {
	return newDecoder(r, o, syntaxNT, false)
}

// NewQuadDecoder returns a decoder of N-Quads.
func NewQuadDecoder(r io.Reader, o rdf.DecodeOptions) *Decoder {
	return newDecoder(r, o, syntaxNQ, true)
}

func newDecoder(r io.Reader, o rdf.DecodeOptions, syntax string, quads bool) *Decoder {
	d := &Decoder{
		r:      bufio.NewReaderSize(r, readBufferSize),
		syntax: syntax,
		quads:  quads,
		blanks: o.BlankNodesOrNew(),
		maxLit: o.Limits.LiteralSize(),
		iris:   make(map[string]string, 64),
		langs:  make(map[string]string, 16),
	}
	d.raw.d = d
	return d
}

// Next returns the next statement, io.EOF after the last one, or a *rdf.SyntaxError.
func (d *Decoder) Next() (rdf.Quad, error) {
	// The raw statement lives on the stack: filled in the heap, each of its pointer fields cost a write barrier
	// while the collector runs (10% of Next's CPU in a profile).
	var raw RawQuad
	r := &d.raw
	if err := r.Next(&raw); err != nil {
		return rdf.Quad{}, err
	}
	d.lineStr, d.haveStr = "", false
	rq := &raw
	var q rdf.Quad
	if r.subjHit {
		q.S = d.lastSubj
	} else {
		q.S = d.term(&rq.S)
		d.lastSubj = q.S
	}
	q.P = rdf.Term{Kind: rdf.KindIRI, Value: d.name(r.pName, rq.P.Value)}
	q.O = d.term(&rq.O)
	if rq.O.Kind == rdf.KindLiteral {
		q.O.Datatype = d.name(r.dtName, rq.O.Datatype)
		if len(rq.O.Lang) > 0 {
			q.O.Lang = interned(d.langs, rq.O.Lang)
		}
	}
	if rq.G.Kind != rdf.KindNone {
		q.G = d.term(&rq.G)
	}
	return q, nil
}

// term turns a raw term's value into a string; the datatype and language of a literal are the caller's.
func (d *Decoder) term(t *RawTerm) rdf.Term {
	if t.Kind == rdf.KindBlank {
		// The raw value of a blank node is the allocator's label string itself: reuse it rather than copy.
		return rdf.Term{Kind: rdf.KindBlank, Value: unsafe.String(unsafe.SliceData(t.Value), len(t.Value))}
	}
	return rdf.Term{Kind: t.Kind, Value: d.str(t.Value)}
}

// name returns an interned IRI the raw reader already has as a string, or a copy when the table was full.
func (d *Decoder) name(s string, v []byte) string {
	if s != "" || len(v) == 0 {
		return s
	}
	return string(v)
}

// str returns v as a string: a substring of the line's shared string when v is a slice of the line (a value
// without escapes), a copy otherwise (an unescaped value lives in the raw reader's own buffer).
func (d *Decoder) str(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	off := uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(d.line)))
	if off < uintptr(len(d.line)) && int(off)+len(v) <= len(d.line) {
		return d.sub(int(off), int(off)+len(v))
	}
	return string(v)
}

// maxLine bounds one line: four terms of the maximum literal size plus slack for whitespace and punctuation.
func (d *Decoder) maxLine() int64 { return 4*int64(d.maxLit) + 4096 }

// nextLine returns the next line without its end. Any of "\n", "\r" and "\r\n" ends a line (EOL ::= [#xD#xA]+);
// neither may appear raw inside a term, so splitting before tokenizing is safe.
func (d *Decoder) nextLine() ([]byte, error) {
	for len(d.rest) == 0 {
		if d.eof {
			return nil, io.EOF
		}
		chunk, err := d.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			d.long = append(d.long[:0], chunk...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if int64(len(d.long)) > d.maxLine() {
					return nil, &rdf.SyntaxError{Syntax: d.syntax, Line: d.lineNo + 1, Column: 1,
						Msg: fmt.Sprintf("line longer than %d bytes", d.maxLine())}
				}
				chunk, err = d.r.ReadSlice('\n')
				d.long = append(d.long, chunk...)
			}
			chunk = d.long
		}
		switch {
		case err == io.EOF:
			d.eof = true
		case err != nil:
			return nil, fmt.Errorf("%s: reading line %d: %w", d.syntax, d.lineNo+1, err)
		}
		d.rest = chunk
	}
	d.lineNo++
	end, next := len(d.rest), len(d.rest)
	if i := bytes.IndexByte(d.rest, '\n'); i >= 0 {
		end, next = i, i+1
	}
	if j := bytes.IndexByte(d.rest[:end], '\r'); j >= 0 {
		end, next = j, j+1
		if next < len(d.rest) && d.rest[next] == '\n' {
			next++
		}
	}
	line := d.rest[:end]
	d.rest = d.rest[next:]
	return line, nil
}

// errorf returns a syntax error at byte offset pos of the current line.
func (d *Decoder) errorf(pos int, format string, args ...any) error {
	if pos > len(d.line) {
		pos = len(d.line)
	}
	return &rdf.SyntaxError{
		Syntax: d.syntax,
		Line:   d.lineNo,
		Column: utf8.RuneCount(d.line[:pos]) + 1,
		Msg:    fmt.Sprintf(format, args...),
	}
}

// describe names the input at pos for error messages.
func (d *Decoder) describe(pos int) string {
	if pos >= len(d.line) {
		return "end of line"
	}
	r, n := utf8.DecodeRune(d.line[pos:])
	if r == utf8.RuneError && n <= 1 {
		return fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", d.line[pos])
	}
	return fmt.Sprintf("%q", r)
}

func (d *Decoder) skipWS() {
	for d.pos < len(d.line) && (d.line[d.pos] == ' ' || d.line[d.pos] == '\t') {
		d.pos++
	}
}

// sub returns line[start:end] as a string that shares one allocation with the line's other terms. Terms are read
// left to right, so the copy starts at the first term that needs it; a reused subject and an interned predicate
// are not copied at all.
func (d *Decoder) sub(start, end int) string {
	if !d.haveStr || start < d.lineBase {
		d.lineStr, d.lineBase, d.haveStr = string(d.line[start:]), start, true
	}
	return d.lineStr[start-d.lineBase : end-d.lineBase]
}

// interned returns b as a string shared by every equal name seen before in table, allocating only for new names.
func interned(table map[string]string, b []byte) string {
	if s, ok := table[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(table) < maxInterned {
		table[s] = s
	}
	return s
}

func (d *Decoder) checkIRI(open int, v []byte) error {
	if len(v) > d.maxLit {
		return d.errorf(open, "IRI longer than %d bytes", d.maxLit)
	}
	if !isAbsoluteIRI(v) {
		return d.errorf(open+1, "relative IRI <%s>: %s has no base IRI, so every IRI must start with a scheme", v, d.syntax)
	}
	return nil
}

// uchar decodes \uXXXX or \UXXXXXXXX at offset i and returns the rune and the escape's length.
func (d *Decoder) uchar(i int) (rune, int, error) {
	line := d.line
	if i+1 >= len(line) {
		return 0, 0, d.errorf(i, "'\\' at the end of the line")
	}
	var n int
	switch line[i+1] {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, 0, d.errorf(i, "invalid escape '\\%c' (only \\uXXXX and \\UXXXXXXXX are allowed here)", line[i+1])
	}
	if i+2+n > len(line) {
		return 0, 0, d.errorf(i, "incomplete \\%c escape", line[i+1])
	}
	var r rune
	for _, c := range line[i+2 : i+2+n] {
		h, ok := hexVal(c)
		if !ok {
			return 0, 0, d.errorf(i, "invalid hex digit %q in \\%c escape", c, line[i+1])
		}
		r = r<<4 | h
	}
	if !utf8.ValidRune(r) {
		return 0, 0, d.errorf(i, "escape \\%c%s is not a Unicode scalar value", line[i+1], line[i+2:i+2+n])
	}
	return r, 2 + n, nil
}

// invalidUTF8 returns the offset of the first invalid UTF-8 sequence at or after start.
func (d *Decoder) invalidUTF8(start int) int {
	for i := start; i < len(d.line); {
		r, n := utf8.DecodeRune(d.line[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return start
}

// decodeRune is utf8.DecodeRune with invalid input mapped to a rune no grammar class accepts.
func decodeRune(b []byte) (rune, int) {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n <= 1 {
		return -1, 1
	}
	return r, n
}
