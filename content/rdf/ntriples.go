package rdf

import "strings"

// AppendTerm appends t in canonical N-Triples form as RDF 1.2 N-Triples and RDFC-1.0 define it: in literals the
// short escapes \t \b \n \r \f \" \\ and \u00XX for the other control characters, nothing else escaped (the
// rdf-canon suite checks this byte for byte). Characters that are illegal in IRIs are written as \u00XX, which
// only invalid IRIs ever need. The zero term appends nothing.
//
// It is the one canonical term writer: every line-based writer (the N-Triples/N-Quads encoder, the pipeline's
// streams, canonicalisation, SPARQL's TSV results) and Term.String go through it, so that all of them agree byte
// for byte. It appends to a []byte so that the streaming encoders can reuse one line buffer without an
// allocation per term.
func AppendTerm(b []byte, t Term) []byte {
	switch t.Kind {
	case KindIRI:
		b = append(b, '<')
		b = appendIRI(b, t.Value)
		return append(b, '>')
	case KindBlank:
		b = append(b, "_:"...)
		return append(b, t.Value...)
	case KindLiteral:
		b = append(b, '"')
		b = AppendEscaped(b, t.Value)
		b = append(b, '"')
		switch {
		case t.Lang != "":
			b = append(b, '@')
			b = append(b, t.Lang...)
		case t.Datatype != "" && t.Datatype != XSDString:
			b = append(b, "^^<"...)
			b = appendIRI(b, t.Datatype)
			b = append(b, '>')
		}
	}
	return b
}

// AppendQuad appends q as one canonical N-Quads line, " ." included, without the line feed.
func AppendQuad(b []byte, q Quad) []byte {
	b = AppendTerm(b, q.S)
	b = append(b, ' ')
	b = AppendTerm(b, q.P)
	b = append(b, ' ')
	b = AppendTerm(b, q.O)
	if !q.G.IsZero() {
		b = append(b, ' ')
		b = AppendTerm(b, q.G)
	}
	return append(b, " ."...)
}

// AppendNTriples writes t as AppendTerm does, to a strings.Builder.
func AppendNTriples(sb *strings.Builder, t Term) {
	var buf [256]byte
	sb.Write(AppendTerm(buf[:0], t))
}

// AppendEscapedString writes s as AppendEscaped does, to a strings.Builder.
func AppendEscapedString(sb *strings.Builder, s string) {
	var buf [256]byte
	sb.Write(AppendEscaped(buf[:0], s))
}

const hexDigits = "0123456789ABCDEF"

// iriEscaped marks the bytes N-Triples forbids inside <...>: controls, space and <>"{}|^`\.
var iriEscaped = func() (t [256]bool) {
	for c := 0; c <= 0x20; c++ {
		t[c] = true
	}
	for _, c := range "<>\"{}|^`\\" {
		t[c] = true
	}
	return t
}()

// appendIRI appends s with the bytes IRIREF forbids escaped as \u00XX.
func appendIRI(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !iriEscaped[c] {
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		start = i + 1
	}
	return append(b, s[start:]...)
}

// AppendEscaped appends s as the inside of a double-quoted N-Triples/Turtle string: short escapes where they
// exist, \u00XX for the other control characters.
func AppendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}
