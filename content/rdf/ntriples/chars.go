package ntriples

import "unicode/utf8"

// Byte classes used by the scanners. A table lookup per byte keeps the hot loops free of branches for the common
// case (printable ASCII that needs no attention).
const (
	clOK      = 0 // ordinary printable ASCII
	clSpecial = 1 // needs a closer look
	clHigh    = 2 // first or continuation byte of a multi-byte UTF-8 sequence
)

// iriClass marks what may end or interrupt an IRIREF body: '>', '\', and every byte N-Triples forbids there.
var iriClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 0x80:
			t[c] = clHigh
		case c <= 0x20, c == '<', c == '>', c == '"', c == '{', c == '}', c == '|', c == '^', c == '`', c == '\\':
			t[c] = clSpecial
		}
	}
	return t
}()

// strClass marks what may end or interrupt a STRING_LITERAL_QUOTE body: '"', '\' (CR and LF never reach the
// scanner because lines are split on them).
var strClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 0x80:
			t[c] = clHigh
		case c == '"', c == '\\':
			t[c] = clSpecial
		}
	}
	return t
}()

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hexVal(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// isPNCharsBase is PN_CHARS_BASE of the RDF 1.1 grammars.
func isPNCharsBase(r rune) bool {
	switch {
	case r < 0x80:
		return r < utf8.RuneSelf && isAlpha(byte(r))
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

// isPNCharsU is PN_CHARS_U without ':' — the RDF 1.1 N-Triples grammar lists ':' but the W3C suite (and the
// erratum it reflects) rejects it in blank-node labels (nt-syntax-bad-bnode-01/02).
func isPNCharsU(r rune) bool { return r == '_' || isPNCharsBase(r) }

// isPNChars is PN_CHARS.
func isPNChars(r rune) bool {
	return isPNCharsU(r) || r == '-' || (r >= '0' && r <= '9') || r == 0xB7 ||
		(r >= 0x300 && r <= 0x36F) || (r >= 0x203F && r <= 0x2040)
}

// isAbsoluteIRI reports whether s starts with a URI scheme followed by ':' (RFC 3986 §3.1); N-Triples and
// N-Quads have no base IRI, so every IRI must carry one.
func isAbsoluteIRI[T string | []byte](s T) bool {
	if len(s) == 0 || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return true
		case isAlpha(c), isDigit(c), c == '+', c == '-', c == '.':
		default:
			return false
		}
	}
	return false
}
