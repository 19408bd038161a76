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

// Decoder reads N-Triples or N-Quads, one statement per line.
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

	// The line being parsed. Term values without escapes are substrings of lineStr, so a line costs one string
	// allocation however many terms it has; lineStr is made only when a term needs it.
	line     []byte
	pos      int
	lineStr  string // line[lineBase:] once a term needed it
	lineBase int
	haveStr  bool
	scratch  []byte

	// Consecutive statements usually share a subject; reusing the last one saves a string per line.
	lastSubjRaw []byte
	lastSubj    rdf.Term

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
	return &Decoder{
		r:      bufio.NewReaderSize(r, readBufferSize),
		syntax: syntax,
		quads:  quads,
		blanks: o.BlankNodesOrNew(),
		maxLit: o.Limits.LiteralSize(),
		iris:   make(map[string]string, 64),
		langs:  make(map[string]string, 16),
	}
}

// Next returns the next statement, io.EOF after the last one, or a *rdf.SyntaxError.
func (d *Decoder) Next() (rdf.Quad, error) {
	if d.err != nil {
		return rdf.Quad{}, d.err
	}
	for {
		line, err := d.nextLine()
		if err != nil {
			d.err = err
			return rdf.Quad{}, err
		}
		if d.lineNo == 1 {
			// A byte order mark is not in the grammar, but editors on some systems add one; it carries no data.
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		q, ok, err := d.parseLine(line)
		if err != nil {
			d.err = err
			return rdf.Quad{}, err
		}
		if ok {
			return q, nil
		}
	}
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

// parseLine parses one line; ok is false for a blank or comment-only line.
func (d *Decoder) parseLine(line []byte) (q rdf.Quad, ok bool, err error) {
	d.line, d.pos, d.lineStr, d.haveStr = line, 0, "", false
	d.skipWS()
	if d.pos == len(line) || line[d.pos] == '#' {
		return q, false, d.comment()
	}

	if q.S, err = d.subject(); err != nil {
		return q, false, err
	}
	d.skipWS()
	if d.pos >= len(line) || line[d.pos] != '<' {
		return q, false, d.errorf(d.pos, "expected a predicate IRI '<...>', found %s", d.describe(d.pos))
	}
	if q.P, err = d.iri(true); err != nil {
		return q, false, err
	}
	d.skipWS()
	if q.O, err = d.object(); err != nil {
		return q, false, err
	}
	d.skipWS()
	if d.pos < len(line) && (line[d.pos] == '<' || line[d.pos] == '_') {
		if !d.quads {
			return q, false, d.errorf(d.pos, "expected '.' after the object, found %s (a graph name is N-Quads, not N-Triples)", d.describe(d.pos))
		}
		if q.G, err = d.node("graph name"); err != nil {
			return q, false, err
		}
		d.skipWS()
	}
	if d.pos >= len(line) || line[d.pos] != '.' {
		what := "the object"
		if d.quads {
			what = "the object or graph name"
		}
		return q, false, d.errorf(d.pos, "expected '.' after %s, found %s", what, d.describe(d.pos))
	}
	d.pos++
	d.skipWS()
	if d.pos < len(line) && line[d.pos] != '#' {
		return q, false, d.errorf(d.pos, "unexpected %s after '.'; one statement per line", d.describe(d.pos))
	}
	return q, true, d.comment()
}

// comment checks the rest of the line, a comment or nothing, which is skipped unread otherwise: comments are text
// too, and a file with a byte that is not UTF-8 in one is not an N-Triples document.
func (d *Decoder) comment() error {
	if rest := d.line[d.pos:]; len(rest) > 0 && !utf8.Valid(rest) {
		return d.errorf(d.invalidUTF8(d.pos), "invalid UTF-8 in comment")
	}
	return nil
}

func (d *Decoder) subject() (rdf.Term, error) {
	start := d.pos
	end := d.termEnd(start)
	if end > start && len(d.lastSubjRaw) > 0 && bytes.Equal(d.line[start:end], d.lastSubjRaw) {
		d.pos = end
		return d.lastSubj, nil
	}
	t, err := d.node("subject")
	if err != nil {
		return t, err
	}
	d.lastSubjRaw = append(d.lastSubjRaw[:0], d.line[start:d.pos]...)
	d.lastSubj = t
	return t, nil
}

// termEnd guesses where an IRI or blank node starting at start ends, for the subject cache: up to the first '>'
// for IRIs, the first space or tab otherwise. It returns start when unsure; the full parse decides validity.
func (d *Decoder) termEnd(start int) int {
	if start >= len(d.line) {
		return start
	}
	rest := d.line[start:]
	switch rest[0] {
	case '<':
		if i := bytes.IndexByte(rest, '>'); i > 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
			return start + i + 1
		}
	case '_':
		if i := bytes.IndexAny(rest, " \t<"); i > 0 && rest[i-1] != '.' {
			return start + i
		}
	}
	return start
}

// node parses an IRI or a blank node (subject and graph-name positions).
func (d *Decoder) node(role string) (rdf.Term, error) {
	if d.pos < len(d.line) {
		switch d.line[d.pos] {
		case '<':
			return d.iri(false)
		case '_':
			return d.blank()
		}
	}
	return rdf.Term{}, d.errorf(d.pos, "expected an IRI '<...>' or blank node '_:' as %s, found %s", role, d.describe(d.pos))
}

func (d *Decoder) object() (rdf.Term, error) {
	if d.pos < len(d.line) {
		switch d.line[d.pos] {
		case '<':
			return d.iri(false)
		case '_':
			return d.blank()
		case '"':
			return d.literal()
		}
	}
	return rdf.Term{}, d.errorf(d.pos, "expected an IRI, blank node or \"literal\" as object, found %s", d.describe(d.pos))
}

// iri parses IRIREF at d.pos (which holds '<'). Interned IRIs (predicates, datatypes) share one string per name.
func (d *Decoder) iri(intern bool) (rdf.Term, error) {
	v, err := d.iriValue(intern)
	return rdf.Term{Kind: rdf.KindIRI, Value: v}, err
}

func (d *Decoder) iriValue(intern bool) (string, error) {
	open := d.pos
	start := d.pos + 1
	line := d.line
	if intern {
		if n := bytes.IndexByte(line[start:], '>'); n >= 0 {
			if v, ok := d.iris[string(line[start:start+n])]; ok {
				d.pos = start + n + 1
				return v, nil
			}
		}
	}
	i := start
	high := false
	for i < len(line) {
		c := line[i]
		switch iriClass[c] {
		case clOK:
			i++
			continue
		case clHigh:
			high = true
			i++
			continue
		}
		if c == '>' {
			raw := line[start:i]
			if high && !utf8.Valid(raw) {
				return "", d.errorf(d.invalidUTF8(start), "invalid UTF-8 in IRI")
			}
			if err := d.checkIRI(open, raw); err != nil {
				return "", err
			}
			d.pos = i + 1
			if intern {
				return interned(d.iris, raw), nil
			}
			return d.sub(start, i), nil
		}
		if c == '\\' {
			return d.iriEscaped(open, start, i)
		}
		return "", d.errorf(i, "character %s is not allowed in an IRI", d.describe(i))
	}
	return "", d.errorf(open, "IRI not closed with '>' before the end of the line")
}

// iriEscaped finishes an IRI whose body has \u or \U escapes from offset i, decoding into the scratch buffer.
func (d *Decoder) iriEscaped(open, start, i int) (string, error) {
	line := d.line
	buf := append(d.scratch[:0], line[start:i]...)
	defer func() { d.scratch = buf[:0] }()
	for i < len(line) {
		c := line[i]
		switch {
		case c == '>':
			if !utf8.Valid(buf) {
				return "", d.errorf(d.invalidUTF8(start), "invalid UTF-8 in IRI")
			}
			if err := d.checkIRI(open, buf); err != nil {
				return "", err
			}
			d.pos = i + 1
			return string(buf), nil
		case c == '\\':
			r, n, err := d.uchar(i)
			if err != nil {
				return "", err
			}
			buf = utf8.AppendRune(buf, r)
			i += n
		case iriClass[c] == clSpecial:
			return "", d.errorf(i, "character %s is not allowed in an IRI", d.describe(i))
		default:
			buf = append(buf, c)
			i++
		}
	}
	return "", d.errorf(open, "IRI not closed with '>' before the end of the line")
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

// blank parses BLANK_NODE_LABEL at d.pos (which holds '_').
func (d *Decoder) blank() (rdf.Term, error) {
	line := d.line
	open := d.pos
	if open+1 >= len(line) || line[open+1] != ':' {
		return rdf.Term{}, d.errorf(open, "expected '_:' to start a blank node label")
	}
	start := open + 2
	i := start
	if i >= len(line) {
		return rdf.Term{}, d.errorf(i, "empty blank node label")
	}
	r, n := decodeRune(line[i:])
	if !isPNCharsU(r) && !(r >= '0' && r <= '9') {
		return rdf.Term{}, d.errorf(i, "blank node label cannot start with %s", d.describe(i))
	}
	i += n
	lastNonDot := i
	for i < len(line) {
		c := line[i]
		if c < utf8.RuneSelf {
			if isAlpha(c) || isDigit(c) || c == '_' || c == '-' {
				i++
				lastNonDot = i
				continue
			}
			if c == '.' {
				i++
				continue
			}
			break
		}
		r, n := decodeRune(line[i:])
		if !isPNChars(r) {
			break
		}
		i += n
		lastNonDot = i
	}
	// A label cannot end with '.': trailing dots belong to the statement ("_:o." ends the triple).
	d.pos = lastNonDot
	label := d.blanks.Label(string(line[start:lastNonDot]))
	return rdf.Term{Kind: rdf.KindBlank, Value: label}, nil
}

// decodeRune is utf8.DecodeRune with invalid input mapped to a rune no grammar class accepts.
func decodeRune(b []byte) (rune, int) {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n <= 1 {
		return -1, 1
	}
	return r, n
}

// literal parses STRING_LITERAL_QUOTE at d.pos (which holds '"') with its optional language tag or datatype.
func (d *Decoder) literal() (rdf.Term, error) {
	line := d.line
	open := d.pos
	start := open + 1
	i := start
	high := false
	var lex string
scan:
	for {
		if i >= len(line) {
			return rdf.Term{}, d.errorf(open, "string not closed with '\"' before the end of the line")
		}
		c := line[i]
		switch strClass[c] {
		case clOK:
			i++
			continue
		case clHigh:
			high = true
			i++
			continue
		}
		if c == '\\' {
			var err error
			if lex, i, err = d.stringEscaped(open, start, i); err != nil {
				return rdf.Term{}, err
			}
			break scan
		}
		// c == '"'
		if i-start > d.maxLit {
			return rdf.Term{}, d.errorf(open, "literal longer than %d bytes", d.maxLit)
		}
		if high && !utf8.Valid(line[start:i]) {
			return rdf.Term{}, d.errorf(d.invalidUTF8(start), "invalid UTF-8 in string")
		}
		lex = d.sub(start, i)
		i++
		break scan
	}
	d.pos = i
	if i < len(line) {
		switch line[i] {
		case '@':
			lang, err := d.langTag()
			if err != nil {
				return rdf.Term{}, err
			}
			return rdf.Term{Kind: rdf.KindLiteral, Value: lex, Datatype: rdf.RDFLangString, Lang: lang}, nil
		case '^':
			if i+2 >= len(line) || line[i+1] != '^' || line[i+2] != '<' {
				return rdf.Term{}, d.errorf(i, "expected '^^<' to start a datatype IRI")
			}
			d.pos = i + 2
			dt, err := d.iriValue(true)
			if err != nil {
				return rdf.Term{}, err
			}
			return rdf.Term{Kind: rdf.KindLiteral, Value: lex, Datatype: dt}, nil
		}
	}
	return rdf.Term{Kind: rdf.KindLiteral, Value: lex, Datatype: rdf.XSDString}, nil
}

// stringEscaped finishes a string whose body has escapes from offset i; it returns the lexical form and the offset
// just past the closing quote.
func (d *Decoder) stringEscaped(open, start, i int) (string, int, error) {
	line := d.line
	buf := append(d.scratch[:0], line[start:i]...)
	defer func() { d.scratch = buf[:0] }()
	for i < len(line) {
		// Copy the run up to the next quote or backslash in one go: long texts have few escapes.
		j := i
		for j < len(line) && strClass[line[j]] != clSpecial {
			j++
		}
		buf = append(buf, line[i:j]...)
		if i = j; i >= len(line) {
			break
		}
		switch line[i] {
		case '"':
			if len(buf) > d.maxLit {
				return "", 0, d.errorf(open, "literal longer than %d bytes", d.maxLit)
			}
			if !utf8.Valid(buf) {
				return "", 0, d.errorf(d.invalidUTF8(start), "invalid UTF-8 in string")
			}
			return string(buf), i + 1, nil
		case '\\':
			if i+1 >= len(line) {
				return "", 0, d.errorf(i, "'\\' at the end of the line")
			}
			var e byte
			switch line[i+1] {
			case 't':
				e = '\t'
			case 'b':
				e = '\b'
			case 'n':
				e = '\n'
			case 'r':
				e = '\r'
			case 'f':
				e = '\f'
			case '"', '\'', '\\':
				e = line[i+1]
			case 'u', 'U':
				r, n, err := d.uchar(i)
				if err != nil {
					return "", 0, err
				}
				buf = utf8.AppendRune(buf, r)
				i += n
				continue
			default:
				return "", 0, d.errorf(i, "invalid escape '\\%s' in string", string(rune(line[i+1])))
			}
			buf = append(buf, e)
			i += 2
		}
	}
	return "", 0, d.errorf(open, "string not closed with '\"' before the end of the line")
}

// langTag parses LANGTAG ::= '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)* at d.pos (which holds '@').
func (d *Decoder) langTag() (string, error) {
	line := d.line
	start := d.pos + 1
	i := start
	for i < len(line) && isAlpha(line[i]) {
		i++
	}
	if i == start {
		return "", d.errorf(i, "language tag must start with a letter, found %s", d.describe(i))
	}
	for i < len(line) && line[i] == '-' {
		j := i + 1
		for j < len(line) && (isAlpha(line[j]) || isDigit(line[j])) {
			j++
		}
		if j == i+1 {
			return "", d.errorf(j, "empty language subtag after '-'")
		}
		i = j
	}
	d.pos = i
	return interned(d.langs, line[start:i]), nil
}
