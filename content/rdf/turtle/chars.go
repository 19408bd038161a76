package turtle

// Character classes of the Turtle grammar (§6.5). ASCII bytes are looked up in a table because they make up almost
// all of real data; other code points go through the range checks.
const (
	clsBase  = 1 << iota // PN_CHARS_BASE
	clsU                 // PN_CHARS_U: PN_CHARS_BASE or '_'
	clsChars             // PN_CHARS
	clsDigit
	clsHex
)

var asciiClass = func() (t [128]uint8) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] |= clsBase | clsU | clsChars
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= clsBase | clsU | clsChars
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= clsChars | clsDigit | clsHex
	}
	for _, c := range "abcdefABCDEF" {
		t[c] |= clsHex
	}
	t['_'] |= clsU | clsChars
	t['-'] |= clsChars
	return t
}()

// isBaseRune reports whether r is a non-ASCII PN_CHARS_BASE code point.
func isBaseRune(r rune) bool {
	switch {
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

// isCharsRune reports whether r is a non-ASCII PN_CHARS code point.
func isCharsRune(r rune) bool {
	return isBaseRune(r) || r == 0xB7 || r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

func isHex(c int) bool   { return c >= 0 && c < 128 && asciiClass[c]&clsHex != 0 }
func isDigit(c int) bool { return c >= '0' && c <= '9' }

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	default:
		return rune(c-'A') + 10
	}
}
