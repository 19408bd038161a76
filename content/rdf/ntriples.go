package rdf

import "strings"

// AppendNTriples writes t in canonical N-Triples form as RDF 1.2 N-Triples and RDFC-1.0 define it: in literals
// the short escapes \t \b \n \r \f \" \\ and \u00XX for the other control characters, nothing else escaped
// (the rdf-canon suite checks this byte for byte). Characters that are illegal in IRIs are written as \u00XX,
// which only invalid IRIs ever need. It is shared by every line-based writer and by Term.String so that all of
// them agree byte for byte.
func AppendNTriples(b *strings.Builder, t Term) {
	switch t.Kind {
	case KindIRI:
		b.WriteByte('<')
		appendIRI(b, t.Value)
		b.WriteByte('>')
	case KindBlank:
		b.WriteString("_:")
		b.WriteString(t.Value)
	case KindLiteral:
		b.WriteByte('"')
		AppendEscapedString(b, t.Value)
		b.WriteByte('"')
		switch {
		case t.Lang != "":
			b.WriteByte('@')
			b.WriteString(t.Lang)
		case t.Datatype != "" && t.Datatype != XSDString:
			b.WriteString("^^<")
			appendIRI(b, t.Datatype)
			b.WriteByte('>')
		}
	}
}

const hexDigits = "0123456789ABCDEF"

// AppendEscapedString writes s as the inside of a double-quoted N-Triples/Turtle string.
func AppendEscapedString(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch c {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\r':
			esc = `\r`
		case '\t':
			esc = `\t`
		case '\b':
			esc = `\b`
		case '\f':
			esc = `\f`
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(s[start:i])
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
				start = i + 1
			}
			continue
		}
		b.WriteString(s[start:i])
		b.WriteString(esc)
		start = i + 1
	}
	b.WriteString(s[start:])
}

// appendIRI escapes the characters N-Triples forbids inside <...> as \uXXXX.
func appendIRI(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > 0x20 && c != '<' && c != '>' && c != '"' && c != '{' && c != '}' && c != '|' && c != '^' && c != '`' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		b.WriteString(`\u00`)
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xf])
		start = i + 1
	}
	b.WriteString(s[start:])
}
