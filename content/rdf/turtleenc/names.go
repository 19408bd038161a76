package turtleenc

import (
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// The character classes below are the Turtle 1.1 / TriG grammar productions (§6.5) that decide whether a name can
// be written bare. They are checked rune by rune rather than with regexp because they run once per distinct IRI.

func isPNCharsBase(c rune) bool {
	switch {
	case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		return true
	case c < 0xC0:
		return false
	case c <= 0xD6, c >= 0xD8 && c <= 0xF6, c >= 0xF8 && c <= 0x2FF,
		c >= 0x370 && c <= 0x37D, c >= 0x37F && c <= 0x1FFF, c >= 0x200C && c <= 0x200D,
		c >= 0x2070 && c <= 0x218F, c >= 0x2C00 && c <= 0x2FEF, c >= 0x3001 && c <= 0xD7FF,
		c >= 0xF900 && c <= 0xFDCF, c >= 0xFDF0 && c <= 0xFFFD, c >= 0x10000 && c <= 0xEFFFF:
		return true
	}
	return false
}

func isPNCharsU(c rune) bool { return c == '_' || isPNCharsBase(c) }

func isPNChars(c rune) bool {
	return isPNCharsU(c) || c == '-' || c >= '0' && c <= '9' || c == 0xB7 ||
		c >= 0x300 && c <= 0x36F || c >= 0x203F && c <= 0x2040
}

// validPrefixName reports whether s is a PN_PREFIX (or empty, the default prefix).
func validPrefixName(s string) bool {
	if s == "" {
		return true
	}
	if !utf8.ValidString(s) {
		return false
	}
	for i, c := range s {
		switch {
		case i == 0:
			if !isPNCharsBase(c) {
				return false
			}
		case c == '.':
			if i == len(s)-1 {
				return false
			}
		case !isPNChars(c):
			return false
		}
	}
	return true
}

// validBlankLabel reports whether s can follow "_:" (BLANK_NODE_LABEL).
func validBlankLabel(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for i, c := range s {
		switch {
		case i == 0:
			if !isPNCharsU(c) && !(c >= '0' && c <= '9') {
				return false
			}
		case c == '.':
			if i == len(s)-1 {
				return false
			}
		case !isPNChars(c):
			return false
		}
	}
	return true
}

// localEscapable are the characters PN_LOCAL_ESC lets a local name carry behind a backslash.
const localEscapable = "_~.-!$&'()*+,;=/?#@%"

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// localName spells local as a PN_LOCAL, escaping what the grammar lets be escaped, and reports whether it needed
// any escape; ok is false when some character cannot appear in a local name at all. A reader expands the result
// back to exactly local: escapes are removed and %XX sequences are kept as written, never decoded.
func localName(local string) (name string, escaped, ok bool) {
	if plainLocalName(local) {
		return local, false, true
	}
	if !utf8.ValidString(local) {
		return "", false, false
	}
	var b strings.Builder
	b.Grow(len(local))
	for i := 0; i < len(local); {
		c, size := utf8.DecodeRuneInString(local[i:])
		first, last := i == 0, i+size == len(local)
		switch {
		case c == '%':
			if i+2 < len(local) && isHex(local[i+1]) && isHex(local[i+2]) {
				b.WriteString(local[i : i+3])
				i += 3
				continue
			}
			b.WriteString(`\%`)
			escaped = true
		case isPNCharsU(c) || c == ':' || c >= '0' && c <= '9':
			b.WriteRune(c)
		case c == '-' || c == '.':
			// Both are name characters in the middle; '-' may not start a name and '.' may neither start nor end
			// one, so there they take the escape.
			if first || c == '.' && last {
				b.WriteByte('\\')
				escaped = true
			}
			b.WriteRune(c)
		case isPNChars(c):
			if first { // U+00B7 and combining marks cannot start a name and have no escape
				return "", false, false
			}
			b.WriteRune(c)
		case c < utf8.RuneSelf && strings.IndexByte(localEscapable, byte(c)) >= 0:
			b.WriteByte('\\')
			b.WriteByte(byte(c))
			escaped = true
		default:
			return "", false, false
		}
		i += size
	}
	return b.String(), escaped, true
}

// textWriter is where terms are spelled: the pretty encoder's scratch *strings.Builder, or the streaming
// encoder's output buffer.
type textWriter interface {
	io.StringWriter
	io.ByteWriter
	WriteRune(rune) (int, error)
}

// plainLocal marks the ASCII bytes that a PN_LOCAL holds bare anywhere: letters, digits, '_' and ':'.
var plainLocal = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':'
	}
	return t
}()

// plainLocalName reports whether local is a PN_LOCAL exactly as it stands and needs no escape: ASCII name
// characters, with '-' and '.' only in the middle ('.' not last, '-' not first). Most local names are; they skip
// the rune-by-rune spelling and its copy.
func plainLocalName(local string) bool {
	for i := 0; i < len(local); i++ {
		c := local[i]
		if plainLocal[c] || c == '-' && i > 0 || c == '.' && i > 0 && i < len(local)-1 {
			continue
		}
		return false
	}
	return true
}

// appendIRIRef writes s as an IRIREF. The caller has made sure (writableIRI) that s holds no character IRIREF
// forbids: those cannot be written at all, because the W3C suites (turtle-syntax-bad-uri-escape-*) and common
// readers reject them even as \u escapes. DEL is allowed but escaped so that the output stays printable.
func appendIRIRef(b textWriter, s string) {
	b.WriteByte('<')
	for {
		i := strings.IndexByte(s, 0x7f)
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(`\u007F`)
		s = s[i+1:]
	}
	b.WriteString(s)
	b.WriteByte('>')
}

// unwritableIRIChar returns the first character of s that no IRIREF may hold, escaped or not, or -1.
func unwritableIRIChar(s string) rune {
	for i := 0; i < len(s); i++ {
		if c := s[i]; unwritableIRI[c] {
			return rune(c)
		}
	}
	return -1
}

// unwritableIRI marks the bytes unwritableIRIChar looks for: it runs over every IRI an encoder writes.
var unwritableIRI = func() (t [256]bool) {
	for c := range 0x21 {
		t[c] = true
	}
	for _, c := range []byte("<>\"{}|^`\\") {
		t[c] = true
	}
	return t
}()

const hexDigits = "0123456789ABCDEF"

// namer turns IRIs into the shortest safe Turtle spelling: a prefixed name, else an IRI relative to the base, else
// the full IRI.
type namer struct {
	prefixes []rdf.Prefix // valid, distinct names with absolute namespaces, in the order given (the header)
	base     string
	// byNS finds the prefix of a namespace, and nsLens lists the namespace lengths longest first, so that choosing a
	// prefix costs a few map lookups per IRI however many prefixes a document declares.
	byNS   map[string]int
	nsLens []int
}

// newNamer keeps the usable prefixes from ps, and the base if it can be written as an absolute IRI (it is only an
// aid to shorter output, so an unusable one is dropped rather than failing the document). A prefix is dropped when
// its name is not a PN_PREFIX, when the name was already bound (the first binding wins, as the caller ordered
// them), or when its namespace is not an absolute IRI that a reader resolves to itself: a relative or dot-segment
// namespace would expand differently from what we abbreviated.
func newNamer(ps []rdf.Prefix, base string) *namer {
	n := &namer{byNS: make(map[string]int)}
	if iri.IsAbsolute(base) && utf8.ValidString(base) && unwritableIRIChar(base) < 0 && resolvesToItself(base) {
		n.base = base
	}
	seen := make(map[string]bool, len(ps))
	for _, p := range ps {
		if seen[p.Name] || !validPrefixName(p.Name) || !utf8.ValidString(p.IRI) || !iri.IsAbsolute(p.IRI) ||
			unwritableIRIChar(p.IRI) >= 0 || !resolvesToItself(p.IRI) {
			continue
		}
		seen[p.Name] = true
		n.prefixes = append(n.prefixes, p)
		if _, dup := n.byNS[p.IRI]; !dup { // two names for one namespace: the first is used
			n.byNS[p.IRI] = len(n.prefixes) - 1
			n.nsLens = append(n.nsLens, len(p.IRI))
		}
	}
	slices.Sort(n.nsLens)
	n.nsLens = slices.Compact(n.nsLens)
	slices.Reverse(n.nsLens)
	return n
}

// resolvesToItself reports whether a reader resolving the absolute IRI s (RFC 3986 §5.2.2 removes dot segments
// even from absolute references) gets s back.
func resolvesToItself(s string) bool {
	r, err := iri.Resolve(s, s)
	return err == nil && r == s
}

// appendIRI writes the best spelling of the IRI s: a prefixed name that needs no escapes, else a reference
// relative to the base, else a prefixed name with escapes (still shorter than the full IRI), else the full IRI.
//
// An IRI with dot segments ("http://a/b/../c") is exact only as a prefixed name, which readers concatenate rather
// than resolve; written as <…> it is valid Turtle, but readers that resolve absolute IRIs as RFC 3986 says (ours
// does) normalise it. It cannot be spelled any other way, so that case is left to them.
func (n *namer) appendIRI(b textWriter, s string) {
	prefix, local, escaped, ok := n.prefixed(s)
	if ok && !escaped {
		b.WriteString(prefix)
		b.WriteByte(':')
		b.WriteString(local)
		return
	}
	if n.base != "" {
		if rel, ok := n.relative(s); ok {
			appendIRIRef(b, rel)
			return
		}
	}
	if ok {
		b.WriteString(prefix)
		b.WriteByte(':')
		b.WriteString(local)
		return
	}
	appendIRIRef(b, s)
}

// prefixed spells s as a prefixed name (prefix ":" local) using the longest namespace whose remainder is a valid
// local name.
func (n *namer) prefixed(s string) (prefix, local string, escaped, ok bool) {
	for _, l := range n.nsLens {
		if l > len(s) {
			continue
		}
		i, found := n.byNS[s[:l]]
		if !found {
			continue
		}
		if local, esc, ok := localName(s[l:]); ok {
			return n.prefixes[i].Name, local, esc, true
		}
	}
	return "", "", false, false
}

// relative returns a reference to s relative to the base when one exists that resolves back to exactly s.
func (n *namer) relative(s string) (string, bool) {
	rel := iri.Relative(n.base, s)
	if s == n.base {
		rel = "" // <> is how Turtle says "this document"
	}
	if rel == s {
		return "", false
	}
	if r, err := iri.Resolve(n.base, rel); err != nil || r != s {
		return "", false
	}
	return rel, true
}
