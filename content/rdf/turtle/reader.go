package turtle

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// chunkSize is how much input one read asks for. Tokens are scanned in place in the buffer, which only grows when
// a single token (a long literal) does not fit.
const chunkSize = 64 << 10

// reader is the byte-level half of the decoder: a sliding window over the input with line/column bookkeeping.
// Scanners address bytes relative to pos, so refilling (which moves the window) never invalidates their offsets.
type reader struct {
	r    io.Reader
	buf  []byte
	pos  int
	eof  bool
	rerr error // a read error other than io.EOF

	line      int // line of buf[pos], from 1
	lineStart int // index in buf where that line starts (0 if the start was already discarded)
	lineRunes int // runes of that line discarded before buf[0]

	syntax string
	maxTok int

	// bad is the invalid UTF-8 met inside a comment. ws, which skips comments, cannot return an error, so it hides
	// the rest of the input (the decoder then meets the end of input) and every error path reports bad instead.
	bad error
}

func (r *reader) init(in io.Reader, syntax string, maxTok int) {
	r.r = in
	r.buf = make([]byte, 0, chunkSize)
	r.line = 1
	r.syntax = syntax
	r.maxTok = maxTok
}

// fill reads more input, keeping buf[pos:]. It reports false when no more bytes can come.
func (r *reader) fill() bool {
	if r.eof {
		return false
	}
	if r.pos > 0 {
		if r.lineStart < r.pos {
			r.lineRunes += runeStarts(r.buf[r.lineStart:r.pos])
		}
		r.lineStart = 0
		n := copy(r.buf, r.buf[r.pos:])
		r.buf = r.buf[:n]
		r.pos = 0
	}
	if cap(r.buf)-len(r.buf) < chunkSize/2 {
		nb := make([]byte, len(r.buf), 2*cap(r.buf)+chunkSize)
		copy(nb, r.buf)
		r.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.r.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+n]
		if err != nil {
			r.eof = true
			if !errors.Is(err, io.EOF) {
				r.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	r.eof, r.rerr = true, io.ErrNoProgress
	return false
}

// at returns the byte at pos+i, or -1 at the end of input.
func (r *reader) at(i int) int {
	for r.pos+i >= len(r.buf) {
		if !r.fill() {
			return -1
		}
	}
	return int(r.buf[r.pos+i])
}

// runeAt decodes the code point at pos+i; size 0 means end of input, code point -1 a byte that is not UTF-8.
func (r *reader) runeAt(i int) (rune, int) {
	if r.at(i) < 0 {
		return 0, 0
	}
	if c := r.buf[r.pos+i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	// Make the longest encoding available; a slow reader may hand the bytes over one at a time.
	for j := 1; j < utf8.UTFMax; j++ {
		if r.pos+i+j >= len(r.buf) && !r.fill() {
			break
		}
	}
	c, n := utf8.DecodeRune(r.buf[r.pos+i:])
	if c == utf8.RuneError && n == 1 {
		// Not UTF-8. -1 matches no character class, so names stop here and never copy invalid bytes.
		return -1, 1
	}
	return c, n
}

// skip consumes n bytes that contain no line break.
func (r *reader) skip(n int) { r.pos += n }

// skipLines consumes n bytes that may contain line breaks.
func (r *reader) skipLines(n int) {
	end := r.pos + n
	for i := r.pos; i < end; i++ {
		if r.buf[i] == '\n' {
			r.line++
			r.lineStart = i + 1
			r.lineRunes = 0
		}
	}
	r.pos = end
}

// ws skips white space and comments and returns the next byte, or -1 at the end of input.
func (r *reader) ws() int {
	for {
		if r.pos >= len(r.buf) && !r.fill() {
			return -1
		}
		c := r.buf[r.pos]
		switch c {
		case ' ', '\t', '\r':
			r.pos++
		case '\n':
			r.pos++
			r.line++
			r.lineStart = r.pos
			r.lineRunes = 0
		case '#':
			for {
				if r.pos >= len(r.buf) && !r.fill() {
					return -1
				}
				b := r.buf[r.pos]
				if b == '\n' || b == '\r' {
					break
				}
				if b < utf8.RuneSelf {
					r.pos++
					continue
				}
				// Only non-ASCII bytes pay for decoding; comments are text too, so they must be UTF-8. Away from the
				// end of the window the character is decoded in place; runeAt first makes sure all of it is there.
				var c rune
				var n int
				if r.pos+utf8.UTFMax <= len(r.buf) {
					if c, n = utf8.DecodeRune(r.buf[r.pos:]); c == utf8.RuneError && n == 1 {
						c = -1
					}
				} else {
					c, n = r.runeAt(0)
				}
				if c < 0 {
					r.hideRest(r.invalidUTF8(0, "comment"))
					return -1
				}
				r.pos += n
			}
		default:
			return int(c)
		}
	}
}

// errAt returns a syntax error located at pos+off.
func (r *reader) errAt(off int, format string, args ...any) error {
	line, ls, lr := r.line, r.lineStart, r.lineRunes
	end := min(r.pos+off, len(r.buf))
	for j := r.pos; j < end; j++ {
		if r.buf[j] == '\n' {
			line++
			ls, lr = j+1, 0
		}
	}
	col := lr + 1
	if ls <= end {
		col += runeStarts(r.buf[ls:end])
	}
	return &rdf.SyntaxError{Syntax: r.syntax, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// runeStarts counts the bytes that start a character. Unlike utf8.RuneCount it gives the same total however the
// text is cut, which matters because the window may be shifted in the middle of a character (inside a comment).
func runeStarts(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// invalidUTF8 returns the syntax error for the bytes at pos+off, which do not start a UTF-8 character. Go's decoder
// refuses overlong forms, surrogates (U+D800–U+DFFF) and code points above U+10FFFF as well as stray bytes.
func (r *reader) invalidUTF8(off int, what string) error {
	return r.errAt(off, "invalid UTF-8 in %s: byte 0x%02x", what, r.buf[r.pos+off])
}

// firstInvalid returns the offset of the first byte of b that does not start a UTF-8 character (b is known to
// hold one: callers only look on the error path).
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		c, n := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return 0
}

// hideRest records err and makes the input end at pos, so that the decoder stops at the next token boundary.
func (r *reader) hideRest(err error) {
	r.bad = err
	r.buf = r.buf[:r.pos]
	r.eof = true
}

// endErr turns the end of input met while scanning into the right error: the invalid UTF-8 that hid the rest of
// the input, the reader's own failure, else a syntax error.
func (r *reader) endErr(off int, what string) error {
	if r.bad != nil {
		return r.bad
	}
	if r.rerr != nil {
		return fmt.Errorf("%s: reading input: %w", r.syntax, r.rerr)
	}
	return r.errAt(off, "unexpected end of input in %s", what)
}

// tooLong reports a token over the size limit.
func (r *reader) tooLong(what string) error {
	return r.errAt(0, "%s longer than the limit of %d bytes", what, r.maxTok)
}

// describe renders the byte at pos+off for an error message.
func (r *reader) describe(off int) string {
	c, n := r.runeAt(off)
	if n == 0 {
		return "end of input"
	}
	if c < 0 {
		return fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", r.buf[r.pos+off])
	}
	return fmt.Sprintf("%q", c)
}
