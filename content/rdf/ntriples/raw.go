package ntriples

import (
	"bytes"
	"unicode/utf8"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
)

// RawTerm is a term whose bytes belong to the decoder: slices of its read buffer (or of its own small buffers for
// values that needed unescaping), valid until the next call of RawReader.Next or Decoder.Next and never to be
// modified. It is the
// zero-copy view a consumer that keeps terms in its own storage (the SPARQL index's dictionary) reads without one
// string allocation per term. The fields mean what rdf.Term's do.
type RawTerm struct {
	Kind     rdf.Kind
	Value    []byte
	Datatype []byte
	Lang     []byte
}

// RawQuad is a statement of RawTerms; G has Kind rdf.KindNone in the default graph.
type RawQuad struct {
	S, P, O, G RawTerm
}

// Term copies t into an rdf.Term.
func (t RawTerm) Term() rdf.Term {
	return rdf.Term{Kind: t.Kind, Value: string(t.Value), Datatype: string(t.Datatype), Lang: string(t.Lang)}
}

// Quad copies q into an rdf.Quad.
func (q *RawQuad) Quad() rdf.Quad {
	return rdf.Quad{S: q.S.Term(), P: q.P.Term(), O: q.O.Term(), G: q.G.Term()}
}

// RawReader reads a Decoder's statements as RawQuads. It shares the decoder's input and position, so Next and a
// RawReader's Next may be mixed.
type RawReader struct {
	d *Decoder

	// unesc holds the values of the current line that needed unescaping. Unescaped text is never longer than its
	// source, so once its capacity reaches the line's length appends cannot move the values handed out before.
	unesc []byte
	// Consecutive statements usually share a subject: the source text and value of the last one skip its scan.
	subjSrc  []byte
	subjVal  []byte
	subjKind rdf.Kind

	// What the Decoder's Next needs to make strings without repeating work the grammar did: whether the subject
	// came from the cache, and the interned strings of the predicate and of the object's datatype ("" when the
	// table of names was full).
	subjHit       bool
	pName, dtName string
}

var (
	xsdStringBytes  = []byte(rdf.XSDString)
	langStringBytes = []byte(rdf.RDFLangString)
)

// Raw returns a reader of d's statements as RawQuads.
func (d *Decoder) Raw() *RawReader { return &RawReader{d: d} }

// Next reads the next statement into q, whose slices stay valid until the next call. It accepts and rejects
// exactly what the Decoder's Next does, with the same errors; io.EOF follows the last statement.
func (r *RawReader) Next(q *RawQuad) error {
	d := r.d
	if d.err != nil {
		return d.err
	}
	for {
		line, err := d.nextLine()
		if err != nil {
			d.err = err
			return err
		}
		if d.lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		ok, err := r.parseLine(line, q)
		if err != nil {
			d.err = err
			return err
		}
		if ok {
			return nil
		}
	}
}

// parseLine parses one line into q; ok is false for a blank or comment-only line.
func (r *RawReader) parseLine(line []byte, q *RawQuad) (ok bool, err error) {
	d := r.d
	d.line, d.pos = line, 0
	r.unesc = r.unesc[:0]
	d.skipWS()
	if d.pos == len(line) || line[d.pos] == '#' {
		return false, r.comment()
	}
	if err = r.subject(&q.S); err != nil {
		return false, err
	}
	d.skipWS()
	if d.pos >= len(line) || line[d.pos] != '<' {
		return false, d.errorf(d.pos, "expected a predicate IRI '<...>', found %s", d.describe(d.pos))
	}
	v, name, err := r.iri(true)
	if err != nil {
		return false, err
	}
	q.P, r.pName = RawTerm{Kind: rdf.KindIRI, Value: v}, name
	d.skipWS()
	if err = r.object(&q.O); err != nil {
		return false, err
	}
	d.skipWS()
	q.G = RawTerm{}
	if d.pos < len(line) && (line[d.pos] == '<' || line[d.pos] == '_') {
		if !d.quads {
			return false, d.errorf(d.pos, "expected '.' after the object, found %s (a graph name is N-Quads, not N-Triples)", d.describe(d.pos))
		}
		if err = r.node("graph name", &q.G); err != nil {
			return false, err
		}
		d.skipWS()
	}
	if d.pos >= len(line) || line[d.pos] != '.' {
		what := "the object"
		if d.quads {
			what = "the object or graph name"
		}
		return false, d.errorf(d.pos, "expected '.' after %s, found %s", what, d.describe(d.pos))
	}
	d.pos++
	d.skipWS()
	if d.pos < len(line) && line[d.pos] != '#' {
		return false, d.errorf(d.pos, "unexpected %s after '.'; one statement per line", d.describe(d.pos))
	}
	return true, r.comment()
}

// comment rejects a comment (the rest of the line) that is not UTF-8, as the Decoder's Next does: a document with
// such a byte anywhere is not N-Triples.
func (r *RawReader) comment() error {
	d := r.d
	if rest := d.line[d.pos:]; len(rest) > 0 && !utf8.Valid(rest) {
		return d.errorf(d.invalidUTF8(d.pos), "invalid UTF-8 in comment")
	}
	return nil
}

func (r *RawReader) subject(t *RawTerm) error {
	d := r.d
	start := d.pos
	end := d.termEnd(start)
	if end > start && r.subjKind != rdf.KindNone && bytes.Equal(d.line[start:end], r.subjSrc) {
		d.pos = end
		*t = RawTerm{Kind: r.subjKind, Value: r.subjVal}
		r.subjHit = true
		return nil
	}
	r.subjKind, r.subjHit = rdf.KindNone, false
	if err := r.node("subject", t); err != nil {
		return err
	}
	r.subjSrc = append(r.subjSrc[:0], d.line[start:d.pos]...)
	r.subjVal = append(r.subjVal[:0], t.Value...)
	r.subjKind = t.Kind
	return nil
}

// node parses an IRI or a blank node (subject and graph-name positions).
func (r *RawReader) node(role string, t *RawTerm) error {
	if found, err := r.iriOrBlank(t); found {
		return err
	}
	d := r.d
	return d.errorf(d.pos, "expected an IRI '<...>' or blank node '_:' as %s, found %s", role, d.describe(d.pos))
}

func (r *RawReader) object(t *RawTerm) error {
	d := r.d
	if d.pos < len(d.line) && d.line[d.pos] == '"' {
		return r.literal(t)
	}
	if found, err := r.iriOrBlank(t); found {
		return err
	}
	return d.errorf(d.pos, "expected an IRI, blank node or \"literal\" as object, found %s", d.describe(d.pos))
}

// iriOrBlank parses an IRI or a blank node if one starts at d.pos; found is false (and nothing is read) otherwise,
// so that each position reports what it expected there.
func (r *RawReader) iriOrBlank(t *RawTerm) (found bool, err error) {
	d := r.d
	if d.pos < len(d.line) {
		switch d.line[d.pos] {
		case '<':
			v, _, err := r.iri(false)
			*t = RawTerm{Kind: rdf.KindIRI, Value: v}
			return true, err
		case '_':
			return true, r.blank(t)
		}
	}
	return false, nil
}

// iri parses IRIREF at d.pos (which holds '<'). With known (predicates and datatypes), a name already validated
// skips validation, and name is its interned string ("" when the table is full) for the Decoder's Next.
func (r *RawReader) iri(known bool) (v []byte, name string, err error) {
	d := r.d
	open := d.pos
	start := d.pos + 1
	line := d.line
	if known {
		if n := bytes.IndexByte(line[start:], '>'); n >= 0 {
			if s, ok := d.iris[string(line[start:start+n])]; ok {
				d.pos = start + n + 1
				return line[start : start+n], s, nil
			}
		}
	}
	if i, high := scanPlain(line, start, &iriClass); i < len(line) {
		c := line[i]
		if c == '>' {
			raw := line[start:i]
			if high && !utf8.Valid(raw) {
				return nil, "", d.errorf(d.invalidUTF8(start), "invalid UTF-8 in IRI")
			}
			if err := d.checkIRI(open, raw); err != nil {
				return nil, "", err
			}
			d.pos = i + 1
			if known && len(d.iris) < maxInterned {
				name = interned(d.iris, raw)
			}
			return raw, name, nil
		}
		if c == '\\' {
			// An escaped IRI is not interned (the lookup above compares source text), as before.
			v, err := r.iriEscaped(open, start, i)
			return v, "", err
		}
		return nil, "", d.errorf(i, "character %s is not allowed in an IRI", d.describe(i))
	}
	return nil, "", d.errorf(open, "IRI not closed with '>' before the end of the line")
}

// unescBegin returns where the next unescaped value starts in r.unesc, first making room for the whole line so
// that no later append of this line reallocates.
func (r *RawReader) unescBegin() int {
	d := r.d
	if cap(r.unesc) < len(d.line) {
		b := make([]byte, len(r.unesc), max(2*cap(r.unesc), len(d.line)))
		copy(b, r.unesc)
		r.unesc = b
	}
	return len(r.unesc)
}

func (r *RawReader) iriEscaped(open, start, i int) ([]byte, error) {
	d := r.d
	line := d.line
	from := r.unescBegin()
	buf := append(r.unesc, line[start:i]...)
	for i < len(line) {
		c := line[i]
		switch {
		case c == '>':
			v := buf[from:]
			if !utf8.Valid(v) {
				return nil, d.errorf(d.invalidUTF8(start), "invalid UTF-8 in IRI")
			}
			if err := d.checkIRI(open, v); err != nil {
				return nil, err
			}
			d.pos = i + 1
			r.unesc = buf
			return v, nil
		case c == '\\':
			r, n, err := d.uchar(i)
			if err != nil {
				return nil, err
			}
			buf = utf8.AppendRune(buf, r)
			i += n
		case iriClass[c] == clSpecial:
			return nil, d.errorf(i, "character %s is not allowed in an IRI", d.describe(i))
		default:
			buf = append(buf, c)
			i++
		}
	}
	return nil, d.errorf(open, "IRI not closed with '>' before the end of the line")
}

func (r *RawReader) blank(t *RawTerm) error {
	d := r.d
	line := d.line
	open := d.pos
	if open+1 >= len(line) || line[open+1] != ':' {
		return d.errorf(open, "expected '_:' to start a blank node label")
	}
	start := open + 2
	i := start
	if i >= len(line) {
		return d.errorf(i, "empty blank node label")
	}
	c0, n := decodeRune(line[i:])
	if !isPNCharsU(c0) && !(c0 >= '0' && c0 <= '9') {
		return d.errorf(i, "blank node label cannot start with %s", d.describe(i))
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
		ru, n := decodeRune(line[i:])
		if !isPNChars(ru) {
			break
		}
		i += n
		lastNonDot = i
	}
	d.pos = lastNonDot
	// Labels are the allocator's strings, shared by every occurrence; callers only read them.
	label := d.blanks.Label(string(line[start:lastNonDot]))
	*t = RawTerm{Kind: rdf.KindBlank, Value: unsafe.Slice(unsafe.StringData(label), len(label))}
	return nil
}

func (r *RawReader) literal(t *RawTerm) error {
	d := r.d
	line := d.line
	open := d.pos
	start := open + 1
	i, high := scanPlain(line, start, &strClass)
	if i >= len(line) {
		return d.errorf(open, "string not closed with '\"' before the end of the line")
	}
	var lex []byte
	if line[i] == '\\' {
		var err error
		if lex, i, err = r.stringEscaped(open, start, i); err != nil {
			return err
		}
	} else { // the closing '"'
		if i-start > d.maxLit {
			return d.errorf(open, "literal longer than %d bytes", d.maxLit)
		}
		if high && !utf8.Valid(line[start:i]) {
			return d.errorf(d.invalidUTF8(start), "invalid UTF-8 in string")
		}
		lex = line[start:i]
		i++
	}
	d.pos = i
	*t = RawTerm{Kind: rdf.KindLiteral, Value: lex, Datatype: xsdStringBytes}
	r.dtName = rdf.XSDString
	if i < len(line) {
		switch line[i] {
		case '@':
			lang, err := r.langTag()
			if err != nil {
				return err
			}
			t.Datatype, t.Lang, r.dtName = langStringBytes, lang, rdf.RDFLangString
		case '^':
			if i+2 >= len(line) || line[i+1] != '^' || line[i+2] != '<' {
				return d.errorf(i, "expected '^^<' to start a datatype IRI")
			}
			d.pos = i + 2
			dt, name, err := r.iri(true)
			if err != nil {
				return err
			}
			t.Datatype, r.dtName = dt, name
		}
	}
	return nil
}

func (r *RawReader) stringEscaped(open, start, i int) ([]byte, int, error) {
	d := r.d
	line := d.line
	from := r.unescBegin()
	buf := append(r.unesc, line[start:i]...)
	for i < len(line) {
		j, _ := scanPlain(line, i, &strClass)
		buf = append(buf, line[i:j]...)
		if i = j; i >= len(line) {
			break
		}
		switch line[i] {
		case '"':
			v := buf[from:]
			if len(v) > d.maxLit {
				return nil, 0, d.errorf(open, "literal longer than %d bytes", d.maxLit)
			}
			if !utf8.Valid(v) {
				return nil, 0, d.errorf(d.invalidUTF8(start), "invalid UTF-8 in string")
			}
			r.unesc = buf
			return v, i + 1, nil
		case '\\':
			if i+1 >= len(line) {
				return nil, 0, d.errorf(i, "'\\' at the end of the line")
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
					return nil, 0, err
				}
				buf = utf8.AppendRune(buf, r)
				i += n
				continue
			default:
				return nil, 0, d.errorf(i, "invalid escape '\\%s' in string", string(rune(line[i+1])))
			}
			buf = append(buf, e)
			i += 2
		}
	}
	return nil, 0, d.errorf(open, "string not closed with '\"' before the end of the line")
}

func (r *RawReader) langTag() ([]byte, error) {
	d := r.d
	line := d.line
	start := d.pos + 1
	i := start
	for i < len(line) && isAlpha(line[i]) {
		i++
	}
	if i == start {
		return nil, d.errorf(i, "language tag must start with a letter, found %s", d.describe(i))
	}
	for i < len(line) && line[i] == '-' {
		j := i + 1
		for j < len(line) && (isAlpha(line[j]) || isDigit(line[j])) {
			j++
		}
		if j == i+1 {
			return nil, d.errorf(j, "empty language subtag after '-'")
		}
		i = j
	}
	d.pos = i
	return line[start:i], nil
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

// scanPlain returns the offset of the first byte from i on that class marks special (or len(line)), and whether a
// byte of a multi-byte sequence came before it, which is then worth a UTF-8 check. IRIs and strings are scanned
// by this one loop; or-ing the classes keeps it free of a branch for the high bytes.
func scanPlain(line []byte, i int, class *[256]uint8) (end int, high bool) {
	var seen uint8
	for ; i < len(line); i++ {
		c := class[line[i]]
		if c == clSpecial {
			break
		}
		seen |= c
	}
	return i, seen&clHigh != 0
}
