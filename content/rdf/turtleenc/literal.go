package turtleenc

import (
	"bytes"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// appendLiteral writes a literal in its most readable form that reads back as the same term: numbers and booleans
// bare only when the lexical form is exactly the grammar's INTEGER/DECIMAL/DOUBLE/BooleanLiteral (anything else,
// e.g. "01.50"^^xsd:integer or "INF"^^xsd:double, would either not parse or parse as a different datatype), strings
// with line breaks in long quotes.
func (n *namer) appendLiteral(b textWriter, t rdf.Term) {
	dt := t.Datatype
	if t.Lang == "" {
		var bare bool
		switch dt {
		case rdf.XSDInteger:
			bare = isInteger(t.Value)
		case rdf.XSDDecimal:
			bare = isDecimal(t.Value)
		case rdf.XSDDouble:
			bare = isDouble(t.Value)
		case rdf.XSDBoolean:
			bare = t.Value == "true" || t.Value == "false"
		}
		if bare {
			b.WriteString(t.Value)
			return
		}
	}
	appendString(b, t.Value)
	switch {
	case t.Lang != "":
		b.WriteByte('@')
		b.WriteString(t.Lang)
	case dt != "" && dt != rdf.XSDString:
		b.WriteString("^^")
		n.appendIRI(b, dt)
	}
}

// appendString writes s as a Turtle string: long form when it has a line feed (so the text keeps its lines), else
// the short double-quoted form escaped like N-Triples.
func appendString(b textWriter, s string) {
	if !strings.Contains(s, "\n") {
		b.WriteByte('"')
		switch w := b.(type) {
		case *bytes.Buffer: // the streaming encoder's output buffer: escape in place
			w.Write(rdf.AppendEscaped(w.AvailableBuffer(), s))
		case *strings.Builder:
			rdf.AppendEscapedString(w, s)
		default:
			b.WriteString(string(rdf.AppendEscaped(nil, s)))
		}
		b.WriteByte('"')
		return
	}
	b.WriteString(`"""`)
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch {
		case c == '\n' || c == '\t':
			continue
		case c == '"':
			// STRING_LITERAL_LONG_QUOTE allows runs of at most two quotes, each followed by another character. A quote
			// is left bare only when the next character is written bare too: that keeps runs short, never lets the
			// closing delimiter absorb a content quote, and avoids quote-then-escape, which serd 0.30 misreads. A
			// leading quote is escaped as well, for readers that scan the opening delimiter greedily.
			if i > 0 && i+1 < len(s) && longBare(s[i+1]) {
				continue
			}
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\r':
			esc = `\r`
		case c == '\b':
			esc = `\b`
		case c == '\f':
			esc = `\f`
		case c < 0x20 || c == 0x7f:
			b.WriteString(s[start:i])
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
			start = i + 1
			continue
		default:
			continue
		}
		b.WriteString(s[start:i])
		b.WriteString(esc)
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteString(`"""`)
}

// longBare reports whether appendString writes c unescaped inside a long string.
func longBare(c byte) bool {
	return c == '\n' || c == '\t' || c >= 0x20 && c != '"' && c != '\\' && c != 0x7f
}

// digits returns how many leading ASCII digits s has.
func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func trimSign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

// isInteger matches INTEGER: [+-]? [0-9]+
func isInteger(s string) bool {
	s = trimSign(s)
	return s != "" && digits(s) == len(s)
}

// isDecimal matches DECIMAL: [+-]? [0-9]* '.' [0-9]+
func isDecimal(s string) bool {
	s = trimSign(s)
	s = s[digits(s):]
	if s == "" || s[0] != '.' {
		return false
	}
	s = s[1:]
	return s != "" && digits(s) == len(s)
}

// isDouble matches DOUBLE: [+-]? ([0-9]+ '.' [0-9]* EXPONENT | '.' [0-9]+ EXPONENT | [0-9]+ EXPONENT), with
// EXPONENT [eE] [+-]? [0-9]+
func isDouble(s string) bool {
	s = trimSign(s)
	intDigits := digits(s)
	s = s[intDigits:]
	fracDigits := 0
	if s != "" && s[0] == '.' {
		s = s[1:]
		fracDigits = digits(s)
		s = s[fracDigits:]
	}
	if intDigits == 0 && fracDigits == 0 {
		return false
	}
	if s == "" || s[0] != 'e' && s[0] != 'E' {
		return false
	}
	s = trimSign(s[1:])
	return s != "" && digits(s) == len(s)
}

// validLangTag matches LANGTAG without the '@': [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*. When dir is true it also accepts
// the RDF 1.2 base direction suffix ('--ltr' / '--rtl') that rdf:dirLangString literals carry in their tag.
func validLangTag(s string, dir bool) bool {
	if dir {
		i := strings.LastIndex(s, "--")
		if i < 0 || (s[i+2:] != "ltr" && s[i+2:] != "rtl") {
			return false
		}
		s = s[:i]
	}
	for i, part := range strings.Split(s, "-") {
		if part == "" {
			return false
		}
		for j := 0; j < len(part); j++ {
			c := part[j]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}
