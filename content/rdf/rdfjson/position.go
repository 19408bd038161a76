package rdfjson

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
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
	n, err := c.r.Read(p)
	if c.start > 0 && c.start >= len(c.buf)/2 {
		c.buf = append(c.buf[:0], c.buf[c.start:]...)
		c.start = 0
	}
	c.buf = append(c.buf, p[:n]...)
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
