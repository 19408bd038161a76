package rdfxml

import (
	"encoding/xml"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

const xmlNS = "http://www.w3.org/XML/1998/namespace"

// isNameStartChar implements the NameStartChar production of XML 1.0 (fifth edition) without ':'.
func isNameStartChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		return true
	case r < 0xC0:
		return false
	}
	return r <= 0xD6 || r >= 0xD8 && r <= 0xF6 || r >= 0xF8 && r <= 0x2FF ||
		r >= 0x370 && r <= 0x37D || r >= 0x37F && r <= 0x1FFF || r >= 0x200C && r <= 0x200D ||
		r >= 0x2070 && r <= 0x218F || r >= 0x2C00 && r <= 0x2FEF || r >= 0x3001 && r <= 0xD7FF ||
		r >= 0xF900 && r <= 0xFDCF || r >= 0xFDF0 && r <= 0xFFFD || r >= 0x10000 && r <= 0xEFFFF
}

// isNameChar implements the NameChar production of XML 1.0 (fifth edition) without ':'.
func isNameChar(r rune) bool {
	return isNameStartChar(r) || r == '-' || r == '.' || r >= '0' && r <= '9' || r == 0xB7 ||
		r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

// isNCName reports whether s is a namespace-free XML name, the form rdf:ID and rdf:nodeID values must take.
func isNCName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError {
			return false
		}
		if i == 0 && !isNameStartChar(r) || !isNameChar(r) {
			return false
		}
	}
	return true
}

// isWritableName reports whether s can be written as a prefix or local name that our decoder reads back. The decoder
// tokenises with encoding/xml, whose name check follows XML 1.0's fourth edition (Unicode 2.0 letters), narrower
// than the fifth edition's ranges in isNameStartChar: U+01F8, for one, passes the fifth and fails the fourth, so
// the encoder wrote names it could not read again (found by FuzzDecode). Non-ASCII names are asked of encoding/xml
// itself; they are rare, and ASCII ones agree in both editions.
func isWritableName(s string) bool {
	if !isNCName(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			_, err := xml.NewDecoder(strings.NewReader("<" + s + "/>")).Token()
			return err == nil
		}
	}
	return true
}

// splitIRI splits an IRI into a namespace and the longest suffix that is a writable name (isWritableName), the only
// way a predicate or type IRI can become an XML element name. ok is false when no non-empty split exists.
func splitIRI(s string) (ns, local string, ok bool) {
	for from := 0; from < len(s); {
		ns, local, ok = splitIRIFrom(s, from)
		if !ok || isWritableName(local) {
			return ns, local, ok
		}
		_, size := utf8.DecodeRuneInString(local)
		from = len(ns) + size
	}
	return "", "", false
}

// splitIRIFrom is splitIRI's fifth-edition split, with the local part starting at from or later.
func splitIRIFrom(s string, from int) (ns, local string, ok bool) {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if r == utf8.RuneError || !isNameChar(r) {
			break
		}
		i -= size
	}
	i = max(i, from)
	// The local part must start with a NameStartChar: skip digits, '-', '.' and combining marks.
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isNameStartChar(r) {
			break
		}
		i += size
	}
	if i == 0 || i >= len(s) {
		return "", "", false
	}
	return s[:i], s[i:], true
}

// hasXMLPrefix reports whether a name starts with "xml" in any case: such names are reserved by XML and RDF/XML
// ignores attributes that use them (RDF 1.1 XML Syntax §6.1.4).
func hasXMLPrefix(s string) bool {
	return len(s) >= 3 && strings.EqualFold(s[:3], "xml")
}

// badIRIChar returns the first character of s that no IRI may contain (RFC 3987 excludes spaces, controls and
// <>"{}|^`\). The hub's Turtle and N-Triples decoders refuse the same characters, so an IRI that got in here could
// not be written back out. All of them are ASCII, so a byte scan suffices.
func badIRIChar(s string) (rune, bool) {
	for i := 0; i < len(s); i++ {
		if badIRIByte[s[i]] {
			return rune(s[i]), true
		}
	}
	return 0, false
}

var badIRIByte = func() (t [256]bool) {
	for c := 0; c <= 0x20; c++ {
		t[c] = true
	}
	for _, c := range []byte("<>\"{}|^`\\\x7f") {
		t[c] = true
	}
	return t
}()

// usablePrefixes returns the caller's prefixes an encoder may declare, and marks their names taken: the RDF
// namespace is always written as rdf:, whatever the caller calls it, and a prefix must be a writable XML name that
// does not start with "xml".
func usablePrefixes(ps []rdf.Prefix, taken map[string]bool) []rdf.Prefix {
	var user []rdf.Prefix
	for _, p := range ps {
		if isWritableName(p.Name) && !hasXMLPrefix(p.Name) && !taken[p.Name] && p.IRI != "" && p.IRI != rdf.RDFNS {
			user = append(user, p)
			taken[p.Name] = true
		}
	}
	return user
}

// longestPrefix returns the index in user of the longest namespace that leaves a writable local name of s, or -1.
func longestPrefix(user []rdf.Prefix, s string) int {
	best := -1
	for i, p := range user {
		if local, ok := strings.CutPrefix(s, p.IRI); ok && isWritableName(local) && (best < 0 || len(p.IRI) > len(user[best].IRI)) {
			best = i
		}
	}
	return best
}

// nodeIDs numbers blank nodes for rdf:nodeID in order of first use (b1, b2, …): the input's labels may not be
// valid XML names, and numbering keeps the output deterministic.
type nodeIDs map[string]string

func (n nodeIDs) of(label string) string {
	id, ok := n[label]
	if !ok {
		id = "b" + strconv.Itoa(len(n)+1)
		n[label] = id
	}
	return id
}
