package rdfjson

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// countingReader feeds encoding/json and keeps the bytes it has handed over but the decoder has not yet passed,
// so that a token's line and column (in runes) can be computed without keeping the document. What it keeps is
// bounded by the decoder's buffer plus the token being read; maxPending turns a huge token into an error instead
// of unbounded memory.
type countingReader struct {
	r          io.Reader
	buf        []byte // buf[start:] are the bytes at stream offsets consumed, consumed+1, …
	start      int
	consumed   int64
	line, col  int // position of offset consumed
	maxPending int
	bomChecked bool

	// encoding/json replaces bytes that are not UTF-8 with U+FFFD without a word, which would change the data; so
	// every byte is checked here on its way in. read counts the bytes read and checked; u8 holds the check's state.
	read  int64
	u8    utf8State
	u8Err *utf8Error // found in bytes already read: the next Read returns it
	hold  []byte     // the start of a sequence the last read cut, read but not yet handed over
}

// utf8Error reports bytes that are not UTF-8 starting at stream offset off.
type utf8Error struct {
	off int64
	b   byte
}

func (e *utf8Error) Error() string { return fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", e.b) }

// utf8State is the UTF-8 check across reads with the stream offset and first byte of the current sequence, where
// an error is reported.
type utf8State struct {
	rdf.UTF8Stream
	start   int64
	startCh byte
}

// check consumes b, found at stream offset off, and reports the offset of a sequence it makes invalid.
func (u *utf8State) check(b byte, off int64) *utf8Error {
	start, ok := u.Byte(b)
	if start {
		u.start, u.startCh = off, b
	}
	if !ok {
		return &utf8Error{off: u.start, b: u.startCh}
	}
	return nil
}

type limitError struct{ max int }

func (e *limitError) Error() string { return fmt.Sprintf("token longer than %d bytes", e.max) }

func (c *countingReader) Read(p []byte) (int, error) {
	if len(c.buf)-c.start > c.maxPending {
		return 0, &limitError{max: c.maxPending}
	}
	if !c.bomChecked {
		// RFC 8259 lets parsers ignore a byte order mark, which Windows tools write; encoding/json does not. It is
		// dropped before offsets start, so it does not count as a column.
		c.bomChecked = true
		br := bufio.NewReader(c.r)
		if b, _ := br.Peek(3); bytes.Equal(b, []byte("\uFEFF")) {
			_, _ = br.Discard(3)
		}
		c.r = br
	}
	if c.u8Err != nil {
		return 0, c.u8Err
	}
	k := copy(p, c.hold)
	c.hold = c.hold[:copy(c.hold, c.hold[k:])]
	n, err := c.r.Read(p[k:])
	if c.start > 0 && c.start >= len(c.buf)/2 {
		c.buf = append(c.buf[:0], c.buf[c.start:]...)
		c.start = 0
	}
	c.buf = append(c.buf, p[k:k+n]...)
	delivered := c.read - int64(k) // stream offset of p[0]
	chunk := p[k : k+n]
	if !c.u8.Pending() && utf8.Valid(chunk) {
		chunk = nil // the common case, checked at utf8.Valid's speed; a sequence cut at the end fails it
	}
	for i, b := range chunk {
		if b < 0x80 && !c.u8.Pending() {
			continue
		}
		if e := c.u8.check(b, c.read+int64(i)); e != nil {
			c.u8Err = e
			break
		}
	}
	c.read += int64(n)
	n += k
	if c.u8Err == nil && err == io.EOF && c.u8.Pending() {
		c.u8Err = &utf8Error{off: c.u8.start, b: c.u8.startCh}
	}
	if c.u8Err != nil {
		// Hand over what comes before the bad sequence, so that earlier errors and triples stay as they were;
		// the next Read reports it. The bytes stay in buf for the position.
		n = int(min(max(c.u8Err.off-delivered, 0), int64(n)))
		if n == 0 {
			return 0, c.u8Err
		}
		return n, nil
	}
	if c.u8.Pending() {
		// Hold back a sequence that the next read must complete: encoding/json, given only its first bytes
		// outside a string, would complain about the character instead of the encoding.
		cut := int(c.u8.start - delivered)
		c.hold = append(c.hold, p[cut:n]...)
		n = cut
	}
	return n, err
}

// advance moves the position to stream offset off (never backwards).
func (c *countingReader) advance(off int64) {
	n := off - c.consumed
	if n <= 0 {
		return
	}
	if avail := int64(len(c.buf) - c.start); n > avail {
		n = avail
	}
	for _, b := range c.buf[c.start : c.start+int(n)] {
		switch {
		case b == '\n':
			c.line++
			c.col = 1
		case b&0xC0 != 0x80: // count runes: skip UTF-8 continuation bytes
			c.col++
		}
	}
	c.start += int(n)
	c.consumed += n
}

// skipSeparators moves past whitespace, ',' and ':' already read, to the start of the next token.
func (c *countingReader) skipSeparators() {
	i := c.start
	for i < len(c.buf) {
		switch c.buf[i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
			continue
		}
		break
	}
	c.advance(c.consumed + int64(i-c.start))
}

func (c *countingReader) position() (line, col int) { return c.line, c.col }
