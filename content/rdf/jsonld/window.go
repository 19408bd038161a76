package jsonld

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// StreamAbove is the size from which a document of a streamable shape (a top-level array, or an object whose
// keys are @context then @graph) is read through a window that holds one node object at a time, instead of
// whole. Below it the text is small next to what the processor allocates for it anyway, and every shape keeps
// its meaning: above it, an object with keys after @graph is refused (those keys would make @graph a named
// graph, which only the end of the document reveals, after its statements were returned).
const StreamAbove = 4 << 20

// window holds the part of a document not yet converted: the node object being read and what was read ahead of
// it. Its buffer grows to the largest value it had to hold, not to the document.
type window struct {
	r         io.Reader
	buf       []byte
	start     int // first byte of buf not yet consumed; offsets below are relative to it
	eof       bool
	err       error
	read      int64 // bytes read from r
	max       int64
	line, col int // position of buf[start], from 1; col counts runes
}

// text is what is not yet consumed.
func (w *window) text() []byte { return w.buf[w.start:] }

// more reads what fits into the buffer, first dropping what was consumed and growing the buffer when less than
// half of it would be free (so a value that needs several reads is scanned a bounded number of times). False at
// the end of the input or on a read error (w.err).
func (w *window) more() bool {
	if w.eof || w.err != nil {
		return false
	}
	rest := len(w.buf) - w.start
	switch size := max(2*rest, 64<<10); {
	case cap(w.buf) == 0:
		w.resize(size)
	case cap(w.buf)-rest < cap(w.buf)/2:
		// Mostly one value not yet complete: twice the room.
		w.resize(2 * cap(w.buf))
	case cap(w.buf) > 4*size:
		// The head, or a large value, is done with: the buffer shrinks back to what is needed now.
		w.resize(size)
	case w.start > 0:
		n := copy(w.buf, w.buf[w.start:])
		w.buf, w.start = w.buf[:n], 0
	}
	before := len(w.buf)
	for len(w.buf) < cap(w.buf) {
		n, err := w.r.Read(w.buf[len(w.buf):cap(w.buf)])
		w.buf = w.buf[:len(w.buf)+n]
		w.read += int64(n)
		if w.read > w.max {
			w.err = &rdf.SyntaxError{Syntax: syntaxName, Msg: fmt.Sprintf("document larger than %d bytes", w.max)}
			return false
		}
		if err == io.EOF {
			w.eof = true
			break
		}
		if err != nil {
			w.err = fmt.Errorf("json-ld: reading input: %w", err)
			return false
		}
	}
	return len(w.buf) > before
}

// resize moves what is not yet consumed into a new buffer of capacity n.
func (w *window) resize(n int) {
	nb := make([]byte, len(w.buf)-w.start, n)
	copy(nb, w.buf[w.start:])
	w.buf, w.start = nb, 0
}

// consume moves past the next n bytes, keeping the position of what follows.
func (w *window) consume(n int) {
	w.line, w.col = advance(w.buf[w.start:w.start+n], w.line, w.col)
	w.start += n
}

// advance is the position after b of a text at line, col.
func advance(b []byte, line, col int) (int, int) {
	last := -1
	for i, c := range b {
		if c == '\n' {
			line++
			last = i
		}
	}
	if last >= 0 {
		col = 1
	}
	return line, col + utf8.RuneCount(b[last+1:])
}

// nonSpace returns the offset of the first byte from i on that is not JSON white space, reading as needed; -1 at
// the end of the input.
func (w *window) nonSpace(i int) int {
	for {
		b := w.text()
		if j := skipSpace(b, i); j < len(b) {
			return j
		} else {
			i = j
		}
		if !w.more() {
			return -1
		}
	}
}

// valueEnd returns the offset after the JSON value that starts at offset i, reading as needed; false when the
// input ends (or fails) first.
func (w *window) valueEnd(i int) (int, bool) {
	for {
		if end, ok := scanValue(w.text(), i, w.eof); ok {
			return end, true
		}
		if !w.more() {
			return len(w.text()), false
		}
	}
}

// scanValue finds the end of the value at b[i] if b holds all of it. It only counts brackets outside strings:
// whether the value is valid JSON is checkJSON's to say, on the value alone.
func scanValue(b []byte, i int, eof bool) (int, bool) {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, ok := stringEnd(b, j)
				if !ok {
					return len(b), false
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return len(b), false
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",]} \t\r\n", rune(b[j])) {
		j++
	}
	return j, j < len(b) || eof
}

func stringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(b), false
}

// errorAt is a syntax error at offset i of the window's text.
func (w *window) errorAt(i int, format string, args ...any) error {
	if w.err != nil {
		return w.err
	}
	line, col := advance(w.text()[:min(i, len(w.text()))], w.line, w.col)
	return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// streamItem is one value of the streamed array: its text (valid until the cursor's next call), where it starts
// in the document, and its place for error paths.
type streamItem struct {
	text      []byte
	line, col int
	span      span
}

// streamCursor walks the values of the document's one array (top-level, or @graph's) through the window, and
// checks what follows the array.
type streamCursor struct {
	w      *window
	path   []string
	prop   string
	object bool // the array is @graph's: a '}' must close the document after it
	n      int
	done   bool
}

func (c *streamCursor) next() (streamItem, bool, error) {
	if c.done {
		return streamItem{}, false, nil
	}
	w := c.w
	i := w.nonSpace(0)
	if i < 0 {
		return streamItem{}, false, w.errorAt(len(w.text()), "unexpected end of JSON input")
	}
	if c.n > 0 {
		switch w.text()[i] {
		case ']':
		case ',':
			if i = w.nonSpace(i + 1); i < 0 {
				return streamItem{}, false, w.errorAt(len(w.text()), "unexpected end of JSON input")
			}
			if w.text()[i] == ']' {
				return streamItem{}, false, w.errorAt(i, "invalid character ']' looking for beginning of value")
			}
		default:
			return streamItem{}, false, w.errorAt(i, "invalid character %q after array element", w.text()[i])
		}
	}
	if w.text()[i] == ']' {
		return streamItem{}, false, c.finish(i + 1)
	}
	end, ok := w.valueEnd(i)
	if !ok {
		return streamItem{}, false, w.errorAt(end, "unexpected end of JSON input")
	}
	w.consume(i)
	end -= i
	it := streamItem{text: w.text()[:end], line: w.line, col: w.col,
		span: span{path: append(append([]string(nil), c.path...), itoa(c.n)), prop: c.prop}}
	c.n++
	w.consume(end)
	return it, true, nil
}

// finish checks what follows the array, which ends before offset after: for @graph's, the '}' of the document;
// then nothing but white space.
func (c *streamCursor) finish(after int) error {
	w := c.w
	c.done = true
	w.consume(after)
	i := w.nonSpace(0)
	if c.object {
		if i < 0 {
			return w.errorAt(len(w.text()), "unexpected end of JSON input")
		}
		switch w.text()[i] {
		case '}':
		case ',':
			return w.errorAt(i, "a JSON-LD document larger than %d bytes is read one node object at a time, so its "+
				"@graph must be its last key (keys after it would make it a named graph): put @context first and "+
				"@graph last", StreamAbove)
		default:
			return w.errorAt(i, "invalid character %q after object key:value pair", w.text()[i])
		}
		w.consume(i + 1)
		i = w.nonSpace(0)
	}
	if i >= 0 {
		return w.errorAt(i, "invalid character %q after top-level value", w.text()[i])
	}
	return w.err
}

// streamError places an error of one streamed value in the document: a JSON-LD error at the line and column of
// the value its path names, a JSON error at its own, both counted from where the value starts.
func streamError(err error, it streamItem) error {
	var pe *procError
	if errors.As(err, &pe) {
		if pe.located && len(pe.ptr) >= len(it.span.path) && slices.Equal(pe.ptr[:len(it.span.path)], it.span.path) {
			if off, rel, ok := pointerOffset(it.text, pointerString(pe.ptr[len(it.span.path):])); ok {
				msg := pe.code + " at " + joinPath(it.span.path, rel)
				if pe.details != "" {
					msg += ": " + pe.details
				}
				line, col := advance(it.text[:off], it.line, it.col)
				return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: msg}
			}
		}
		return &rdf.SyntaxError{Syntax: syntaxName, Msg: pe.Error()}
	}
	var se *rdf.SyntaxError
	if errors.As(err, &se) && se.Line > 0 {
		moved := *se
		if moved.Line == 1 {
			moved.Column += it.col - 1
		}
		moved.Line += it.line - 1
		return &moved
	}
	return syntaxError(err, nil)
}

// joinPath is the dotted path of a streamed value's own path followed by rel, a path inside it as pointerOffset
// spells it.
func joinPath(tokens []string, rel string) string {
	var p strings.Builder
	for _, t := range tokens {
		if _, err := strconv.Atoi(t); err == nil {
			p.WriteString("[" + t + "]")
		} else {
			writeKey(&p, t)
		}
	}
	switch {
	case rel == "":
	case strings.HasPrefix(rel, "["):
		p.WriteString(rel)
	default:
		p.WriteString("." + rel)
	}
	return p.String()
}
