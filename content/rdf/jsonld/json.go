package jsonld

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

const syntaxName = "json-ld"

// DefaultMaxInputBytes bounds the size of one JSON-LD document (the hub's upload limit). Above StreamAbove the
// decoder reads a streamable document (a top-level array, or an object of @context then @graph) one node object
// at a time instead of holding its text.
const DefaultMaxInputBytes = 256 << 20

// MaxWholeDocumentBytes bounds a document of any other shape, which is parsed into one tree (several times the
// text in memory) before it is expanded.
const MaxWholeDocumentBytes = 64 << 20

type parseLimits struct {
	maxBytes int64
	depth    int
	literal  int
}

func limitsFrom(l rdf.Limits, maxBytes int64) parseLimits {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxInputBytes
	}
	return parseLimits{maxBytes: maxBytes, depth: l.Depth(), literal: l.LiteralSize()}
}

// readAll reads at most lim.maxBytes bytes, failing when r has more.
func readAll(r io.Reader, lim parseLimits) ([]byte, error) {
	// A file says how large it is: one allocation instead of io.ReadAll's doublings, which for a large document
	// leave twice its size in garbage.
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= lim.maxBytes {
			b := make([]byte, fi.Size())
			n, err := io.ReadFull(r, b)
			if err == nil {
				// The file may have grown since: whatever follows is read the ordinary way.
				rest, err := io.ReadAll(io.LimitReader(r, lim.maxBytes+1-int64(n)))
				if err != nil {
					return nil, fmt.Errorf("json-ld: reading input: %w", err)
				}
				b = append(b, rest...)
			} else if err != io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("json-ld: reading input: %w", err)
			}
			b = b[:max(n, len(b))]
			if int64(len(b)) > lim.maxBytes {
				return nil, &rdf.SyntaxError{Syntax: syntaxName, Msg: fmt.Sprintf("document larger than %d bytes", lim.maxBytes)}
			}
			return b, nil
		}
	}
	b, err := io.ReadAll(io.LimitReader(r, lim.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("json-ld: reading input: %w", err)
	}
	if int64(len(b)) > lim.maxBytes {
		return nil, &rdf.SyntaxError{Syntax: syntaxName, Msg: fmt.Sprintf("document larger than %d bytes", lim.maxBytes)}
	}
	return b, nil
}

// parseJSON checks b against the limits before encoding/json builds the tree the processor works on: a hostile
// document must fail on its nesting or a huge string before it costs memory, and with a position.
func parseJSON(b []byte, lim parseLimits) (any, error) {
	if int64(len(b)) > lim.maxBytes {
		return nil, &rdf.SyntaxError{Syntax: syntaxName, Msg: fmt.Sprintf("document larger than %d bytes", lim.maxBytes)}
	}
	if !utf8.Valid(b) {
		// encoding/json would turn the bad bytes into U+FFFD without a word, changing the data.
		off := firstInvalidUTF8(b)
		return nil, posError(b, off, fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", b[off]))
	}
	if err := checkShape(b, lim); err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, jsonError(b, err)
	}
	return v, nil
}

// checkJSON validates a whole document once (size, UTF-8, nesting, string length, JSON syntax), so that its
// values can then be parsed one at a time.
func checkJSON(b []byte, lim parseLimits) error {
	if int64(len(b)) > lim.maxBytes {
		return &rdf.SyntaxError{Syntax: syntaxName, Msg: fmt.Sprintf("document larger than %d bytes", lim.maxBytes)}
	}
	if !utf8.Valid(b) {
		off := firstInvalidUTF8(b)
		return posError(b, off, fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", b[off]))
	}
	if err := checkShape(b, lim); err != nil {
		return err
	}
	if !json.Valid(b) {
		// Only a broken document pays for locating the error.
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return jsonError(b, err)
		}
	}
	return nil
}

// checkShape scans b once for nesting depth and string length. It does not validate JSON (encoding/json does);
// on malformed input it may stop early or miss nothing that matters, since a string that never ends is a syntax
// error anyway.
func checkShape(b []byte, lim parseLimits) error {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
			if depth > lim.depth {
				return posError(b, i, fmt.Sprintf("nesting deeper than %d", lim.depth))
			}
		case '}', ']':
			depth--
		case '"':
			start := i
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i-start-1 > lim.literal {
				return posError(b, start, fmt.Sprintf("string longer than %d bytes", lim.literal))
			}
		}
	}
	return nil
}

// jsonError turns an encoding/json error into a SyntaxError with the line and column of its offset.
func jsonError(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > 0 {
			off-- // Offset counts the offending byte as read.
		}
		return posError(b, off, se.Error())
	}
	return &rdf.SyntaxError{Syntax: syntaxName, Msg: err.Error()}
}

// posError reports msg at byte offset off of b; the column counts runes.
func posError(b []byte, off int, msg string) error {
	line, col := position(b, off)
	return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: msg}
}

func position(b []byte, off int) (line, col int) {
	if off > len(b) {
		off = len(b)
	}
	before := b[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

// firstInvalidUTF8 returns the offset of the first byte of b that does not start a UTF-8 character (overlong
// forms, surrogates and code points above U+10FFFF included), or len(b).
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}
