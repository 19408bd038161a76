package rdfxml

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// Expansion caps for internal-subset entities. A document may expand entities to at most entityBaseBudget bytes
// plus entityRatio times the bytes it has supplied so far: ordinary namespace-abbreviation entities (&rdf; in
// every attribute) stay well inside, while an entity bomb trips the cap after a handful of references.
const (
	entityBaseBudget = 1 << 20
	entityRatio      = 8
	maxEntityValue   = 1 << 20 // expanded bytes of one declared entity
	maxEntityTotal   = 4 << 20 // expanded bytes of all declared entities together
	maxEntities      = 10000   // declarations in one internal subset
)

// inputError aborts encoding/xml mid-token (from posReader or charsetReader) over input the decoder refuses; the
// decoder turns it into a SyntaxError.
type inputError struct {
	msg       string
	line, col int // where the problem is, when the reader knows better than encoding/xml's offset; 0 if not
}

func (e *inputError) Error() string { return e.msg }

// posReader feeds encoding/xml one byte at a time (it implements io.ByteReader, so encoding/xml does not add its
// own buffer and never reads ahead of what it has parsed). That lets it track the line and rune column of the parse
// position, cap the raw size of a single token, count references to declared entities as they stream past, and
// apply the attribute-value normalisation and attribute-separation checks encoding/xml leaves out (attrNormalizer).
type posReader struct {
	r       io.Reader
	buf     []byte
	i       int
	n       int
	err     error
	readErr error // a failure of the underlying reader (not EOF): an I/O error, not a syntax error

	off       int64 // raw bytes read
	delivered int64 // bytes handed to encoding/xml (attribute normalisation drops the LF of a CRLF)
	line, col int   // position of the next byte; col counts runes already read on the line
	prevLine  int   // position before the last byte, for encoding/xml's one-byte unread
	prevCol   int
	bomDone   bool

	tokenStart int64
	maxToken   int64

	norm attrNormalizer

	// UTF-8 check of every raw byte: encoding/xml checks text, attribute values and names, but passes comments,
	// processing instructions and the DOCTYPE through unchecked (and comments inside a parseType="Literal" end up
	// in the literal). notUTF8 turns it off when the document declares Latin-1.
	notUTF8       bool
	u8            rdf.UTF8Stream
	u8line, u8col int // position of the sequence's first byte

	// ents maps declared entity names to their expanded length, or -1 for external entities.
	ents     map[string]int
	inRef    bool
	ref      []byte
	expanded int64
}

func newPosReader(r io.Reader, maxToken int64) *posReader {
	return &posReader{r: r, buf: make([]byte, 32<<10), line: 1, maxToken: maxToken}
}

func (p *posReader) fill() bool {
	if p.err != nil {
		return false
	}
	for {
		n, err := p.r.Read(p.buf)
		p.i, p.n = 0, n
		if err != nil {
			p.err = err
			if err != io.EOF {
				p.readErr = err
			}
		}
		if n > 0 {
			break
		}
		if err != nil {
			return false
		}
	}
	if !p.bomDone {
		p.bomDone = true
		if p.n >= 3 && p.buf[0] == 0xEF && p.buf[1] == 0xBB && p.buf[2] == 0xBF {
			p.i = 3
		}
	}
	return p.i < p.n || p.fill()
}

// ReadByte implements io.ByteReader.
func (p *posReader) ReadByte() (byte, error) {
	for {
		b, err := p.readRaw()
		if err != nil {
			return 0, err
		}
		if p.norm.st == lxText && b != '<' {
			p.delivered++ // the common case, character data, needs no normalisation state change
			return b, nil
		}
		b, keep := p.norm.next(b)
		if p.norm.bad != "" {
			p.err = &inputError{msg: p.norm.bad}
			return 0, p.err
		}
		if keep {
			p.delivered++
			return b, nil
		}
	}
}

func (p *posReader) readRaw() (byte, error) {
	if p.i >= p.n && !p.fill() {
		if p.u8.Pending() && !p.notUTF8 && p.err == io.EOF {
			p.err = p.badUTF8()
		}
		return 0, p.err
	}
	b := p.buf[p.i]
	p.i++
	p.off++
	p.prevLine, p.prevCol = p.line, p.col
	if (b >= utf8.RuneSelf || p.u8.Pending()) && !p.notUTF8 {
		if err := p.utf8Byte(b); err != nil {
			p.err = err
			return 0, err
		}
	}
	if b == '\n' {
		p.line++
		p.col = 0
	} else if b&0xC0 != 0x80 {
		p.col++
	}
	if p.off-p.tokenStart > p.maxToken {
		p.err = &inputError{msg: fmt.Sprintf("markup or text token longer than %d bytes", p.maxToken)}
		return 0, p.err
	}
	if p.ents != nil {
		if err := p.trackRef(b); err != nil {
			p.err = err
			return 0, err
		}
	}
	return b, nil
}

// utf8Byte advances the UTF-8 check over the non-ASCII byte b (or any byte that must continue a sequence), which
// stands at (prevLine, prevCol+1).
func (p *posReader) utf8Byte(b byte) error {
	start, ok := p.u8.Byte(b)
	if start {
		p.u8line, p.u8col = p.prevLine, p.prevCol+1
	}
	if !ok {
		return p.badUTF8()
	}
	return nil
}

// badUTF8 reports the sequence that started at (u8line, u8col) as not UTF-8.
func (p *posReader) badUTF8() error {
	return &inputError{msg: "invalid UTF-8 (the document is not in the encoding it declares)", line: p.u8line, col: p.u8col}
}

// Read implements io.Reader; encoding/xml uses it only to hand the stream to a CharsetReader.
func (p *posReader) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		c, err := p.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		b[n] = c
		n++
		if p.i >= p.n {
			break
		}
	}
	return n, nil
}

// trackRef charges each reference to a declared entity against the expansion budget. It may over-count (a
// reference inside a comment or CDATA section is not expanded) but never under-counts, which is the safe side.
func (p *posReader) trackRef(b byte) error {
	switch {
	case b == '&':
		p.inRef = true
		p.ref = p.ref[:0]
	case !p.inRef:
	case b == ';':
		p.inRef = false
		n, ok := p.ents[string(p.ref)]
		if !ok {
			return nil
		}
		if n < 0 {
			return &inputError{msg: fmt.Sprintf("reference to external entity &%s; (external entities are never fetched)", p.ref)}
		}
		p.expanded += int64(n)
		if p.expanded > entityBaseBudget+entityRatio*p.off {
			return &inputError{msg: fmt.Sprintf("entity expansion exceeds %d bytes after %d bytes of input (entity bomb?)", p.expanded, p.off)}
		}
	case len(p.ref) < 256 && (b >= 0x80 || isNameByte(b)):
		p.ref = append(p.ref, b)
	default:
		p.inRef = false
	}
	return nil
}

func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == ':' ||
		c == '.' || c == '-'
}

// position returns the 1-based line and column of the byte at encoding/xml's offset off, which is the current
// offset or one before it (encoding/xml unreads at most one byte).
func (p *posReader) position(off int64) (line, col int) {
	if off == p.delivered-1 {
		return p.prevLine, p.prevCol + 1
	}
	return p.line, p.col + 1
}

func asInputError(err error) (*inputError, bool) {
	var l *inputError
	ok := errors.As(err, &l)
	return l, ok
}
