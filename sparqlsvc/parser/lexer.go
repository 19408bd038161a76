package parser

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// kind is a token type of the SPARQL grammar's terminals (§19.8).
type kind uint8

const (
	tEOF     kind = iota
	tIRI          // IRIREF, Text is the IRI without <>
	tPName        // PNAME_NS or PNAME_LN: Text is the prefix, Local the unescaped local part
	tBlank        // BLANK_NODE_LABEL, Text is the label
	tVar          // VAR1 / VAR2, Text is the name
	tLang         // LANGTAG, Text without '@'
	tInteger      // Text is the lexical form, sign included
	tDecimal
	tDouble
	tString  // any of the four string forms, Text is the unescaped value
	tNil     // ( WS* )
	tAnon    // [ WS* ]
	tKeyword // Text is the keyword in upper case; Raw is as written
	tPunct   // Text is the operator or punctuation
)

type token struct {
	off       int // byte offset of the token's start in the lexed text
	kind      kind
	text      string
	local     string // PNAME local part
	raw       string // the token as written, for messages
	line, col int
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tString:
		if len(t.raw) > 40 {
			return "string " + t.raw[:40] + "…"
		}
		return "string " + t.raw
	}
	if len(t.raw) > 40 {
		return "'" + t.raw[:40] + "…'"
	}
	return "'" + t.raw + "'"
}

// lexer splits query text into tokens, keeping line and column (in characters) of each token's start.
type lexer struct {
	src       string
	pos       int
	line, col int
}

// errAt is a positioned syntax error; the parser turns it into *rdf.SyntaxError. off is the byte offset in the
// lexed text, which lets ParseSyntax map the position back to the query as written when it had \u escapes.
type errAt struct {
	off, line, col int
	msg            string
}

func (e *errAt) Error() string { return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg) }

// errorf reports an error at the current position.
func (l *lexer) errorf(format string, args ...any) *errAt {
	return &errAt{off: l.pos, line: l.line, col: l.col, msg: fmt.Sprintf(format, args...)}
}

// errorAt reports an error at the start of tok.
func errorAt(tok token, format string, args ...any) *errAt {
	return &errAt{off: tok.off, line: tok.line, col: tok.col, msg: fmt.Sprintf(format, args...)}
}

// advance moves past n bytes, updating line and column.
func (l *lexer) advance(n int) {
	end := l.pos + n
	for l.pos < end {
		if c := l.src[l.pos]; c < utf8.RuneSelf && c != '\n' {
			l.pos++
			l.col++
			continue
		}
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		if r == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.pos += size
	}
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch c {
		case ' ', '\t', '\r', '\n':
			l.advance(1)
		case '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
				l.col++
			}
		default:
			return
		}
	}
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (l *lexer) next() (token, error) {
	l.skipSpace()
	tok := token{off: l.pos, line: l.line, col: l.col}
	if l.pos >= len(l.src) {
		tok.kind = tEOF
		return tok, nil
	}
	start := l.pos
	c := l.src[l.pos]
	switch {
	case c == '<':
		if iri, n, ok := scanIRIRef(l.src[l.pos:]); ok {
			l.advance(n)
			return l.finish(tok, start, tIRI, iri)
		}
		if strings.HasPrefix(l.src[l.pos:], "<=") {
			l.advance(2)
			return l.finish(tok, start, tPunct, "<=")
		}
		l.advance(1)
		return l.finish(tok, start, tPunct, "<")
	case c == '?' || c == '$':
		n := scanVarName(l.src[l.pos+1:])
		if n == 0 {
			if c == '?' {
				l.advance(1)
				return l.finish(tok, start, tPunct, "?")
			}
			return tok, errorAt(tok, "expected a variable name after '$'")
		}
		l.advance(1 + n)
		return l.finish(tok, start, tVar, l.src[start+1:l.pos])
	case c == '"' || c == '\'':
		s, n, err := scanString(l.src[l.pos:])
		if err != nil {
			// n is where the problem is: report that position rather than the string's start.
			l.advance(n)
			return tok, l.errorf("%s", err)
		}
		l.advance(n)
		return l.finish(tok, start, tString, s)
	case c == '_' && strings.HasPrefix(l.src[l.pos:], "_:"):
		n := scanBlankLabel(l.src[l.pos+2:])
		if n == 0 {
			return tok, errorAt(tok, "expected a blank node label after '_:'")
		}
		l.advance(2 + n)
		return l.finish(tok, start, tBlank, l.src[start+2:l.pos])
	case c == '@':
		n := scanLangTag(l.src[l.pos+1:])
		if n == 0 {
			return tok, errorAt(tok, "expected a language tag after '@'")
		}
		l.advance(1 + n)
		return l.finish(tok, start, tLang, l.src[start+1:l.pos])
	case c >= '0' && c <= '9' || c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
		k, n := scanNumber(l.src[l.pos:])
		l.advance(n)
		return l.finish(tok, start, k, l.src[start:l.pos])
	case (c == '+' || c == '-') && l.pos+1 < len(l.src) &&
		(isDigit(l.src[l.pos+1]) || l.src[l.pos+1] == '.' && l.pos+2 < len(l.src) && isDigit(l.src[l.pos+2])):
		k, n := scanNumber(l.src[l.pos+1:])
		l.advance(1 + n)
		return l.finish(tok, start, k, l.src[start:l.pos])
	case c == '(' || c == '[':
		closer := byte(')')
		k := tNil
		if c == '[' {
			closer, k = ']', tAnon
		}
		i := l.pos + 1
		for i < len(l.src) && isWS(l.src[i]) {
			i++
		}
		if i < len(l.src) && l.src[i] == closer {
			l.advance(i + 1 - l.pos)
			return l.finish(tok, start, k, "")
		}
		l.advance(1)
		return l.finish(tok, start, tPunct, l.src[start:l.pos])
	case c == ':' || isPNCharsBase(l.src[l.pos:]):
		return l.name(tok)
	}
	for _, op := range []string{"^^", "&&", "||", "!=", ">=", "<="} {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.advance(2)
			return l.finish(tok, start, tPunct, op)
		}
	}
	if strings.IndexByte("{}()[];,.+-*/!=<>^|", c) >= 0 {
		l.advance(1)
		return l.finish(tok, start, tPunct, l.src[start:l.pos])
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.pos:])
	return tok, errorAt(tok, "unexpected character %q", r)
}

// finish completes a token that started at byte start and ends at the current position.
func (l *lexer) finish(tok token, start int, k kind, text string) (token, error) {
	tok.kind = k
	tok.text = text
	tok.raw = l.src[start:l.pos]
	return tok, nil
}

// name scans a keyword or a prefixed name: a keyword is letters, digits and '_' not followed by ':'.
func (l *lexer) name(tok token) (token, error) {
	start := l.pos
	s := l.src[l.pos:]
	n := scanPrefix(s)
	if n < len(s) && s[n] == ':' {
		prefix := s[:n]
		local, m, err := scanLocal(s[n+1:])
		if err != nil {
			l.advance(n + 1 + m) // m is where the problem is
			return tok, l.errorf("%s", err)
		}
		l.advance(n + 1 + m)
		tok.kind, tok.text, tok.local, tok.raw = tPName, prefix, local, l.src[start:l.pos]
		return tok, nil
	}
	k := 0
	for k < len(s) && (isLetter(s[k]) || isDigit(s[k]) || s[k] == '_') {
		k++
	}
	if k == 0 {
		r, _ := utf8.DecodeRuneInString(s)
		return tok, errorAt(tok, "unexpected character %q", r)
	}
	l.advance(k)
	tok.kind, tok.text, tok.raw = tKeyword, upperASCII(s[:k]), s[:k]
	return tok, nil
}

// upperASCII upper-cases a keyword, without allocating when it is written in upper case already (the usual style).
func upperASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' {
			return strings.ToUpper(s)
		}
	}
	return s
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// PN_CHARS_BASE
func isBaseRune(r rune) bool {
	switch {
	case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z',
		r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

func isPNCharsBase(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isBaseRune(r)
}

// PN_CHARS_U
func isURune(r rune) bool { return isBaseRune(r) || r == '_' }

// PN_CHARS
func isPNRune(r rune) bool {
	return isURune(r) || r == '-' || r >= '0' && r <= '9' || r == 0xB7 ||
		r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

// scanIRIRef matches IRIREF at the start of s ('<' ... '>'), returning the IRI and the bytes consumed.
func scanIRIRef(s string) (string, int, bool) {
	for i := 1; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '>':
			return s[1:i], i + 1, true
		case r <= 0x20, r == '<', r == '"', r == '{', r == '}', r == '|', r == '^', r == '`', r == '\\':
			return "", 0, false
		}
		i += size
	}
	return "", 0, false
}

// scanVarName matches VARNAME.
func scanVarName(s string) int {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		ok := isURune(r) || r >= '0' && r <= '9'
		if i > 0 {
			ok = ok || r == 0xB7 || r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
		}
		if !ok {
			break
		}
		i += size
	}
	return i
}

// scanBlankLabel matches the part of BLANK_NODE_LABEL after "_:".
func scanBlankLabel(s string) int {
	r, size := utf8.DecodeRuneInString(s)
	if !(isURune(r) || r >= '0' && r <= '9') || len(s) == 0 {
		return 0
	}
	i, last := size, size
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '.' {
			i += size
			continue
		}
		if !isPNRune(r) {
			break
		}
		i += size
		last = i
	}
	return last
}

// scanPrefix matches PN_PREFIX (possibly empty).
func scanPrefix(s string) int {
	r, size := utf8.DecodeRuneInString(s)
	if len(s) == 0 || !isBaseRune(r) {
		return 0
	}
	i, last := size, size
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '.' {
			i += size
			continue
		}
		if !isPNRune(r) {
			break
		}
		i += size
		last = i
	}
	return last
}

// scanLocal matches PN_LOCAL (possibly empty) and returns it with the '\' escapes removed; percent-encodings stay
// as written, as the grammar says. A trailing '.' is not part of the name (it ends the triple).
// On error the int is the offset of the problem.
func scanLocal(s string) (string, int, error) {
	// Fast path: no escapes, so the name is a substring of the query.
	end := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' || c == '%' || c >= utf8.RuneSelf {
			end = -1
			break
		}
		if c == '.' && i > 0 {
			i++
			continue
		}
		if i == 0 && c == '-' || !(isLetter(c) || isDigit(c) || c == '_' || c == '-' || c == ':') {
			break
		}
		i++
		end = i
	}
	if end >= 0 {
		return s[:end], end, nil
	}
	return scanLocalSlow(s)
}

// scanLocalSlow is scanLocal for names with escapes, percent-encodings or non-ASCII characters.
func scanLocalSlow(s string) (string, int, error) {
	var b strings.Builder
	end, endLen := 0, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", i, fmt.Errorf("invalid percent-encoding in prefixed name")
			}
			b.WriteString(s[i : i+3])
			i += 3
		case r == '\\':
			if i+1 >= len(s) || strings.IndexByte("_~.-!$&'()*+,;=/?#@%", s[i+1]) < 0 {
				return "", i, fmt.Errorf("invalid escape in prefixed name")
			}
			b.WriteByte(s[i+1])
			i += 2
		case r == '.' && i > 0:
			b.WriteByte('.')
			i++
			continue
		case i == 0 && (r == '-' || r == 0xB7 || r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040):
			// PN_CHARS that may not start a local name.
			return "", 0, nil
		case isPNRune(r) || r == ':':
			b.WriteRune(r)
			i += size
		default:
			return b.String()[:endLen], end, nil
		}
		end, endLen = i, b.Len()
	}
	return b.String()[:endLen], end, nil
}

// scanLangTag matches the part of LANGTAG after '@'.
func scanLangTag(s string) int {
	i := 0
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	if i == 0 {
		return 0
	}
	for i < len(s) && s[i] == '-' {
		j := i + 1
		for j < len(s) && (isLetter(s[j]) || isDigit(s[j])) {
			j++
		}
		if j == i+1 {
			break
		}
		i = j
	}
	return i
}

// scanNumber matches INTEGER, DECIMAL or DOUBLE (unsigned) at the start of s.
func scanNumber(s string) (kind, int) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	k := tInteger
	if i < len(s) && s[i] == '.' && (i+1 < len(s) && isDigit(s[i+1]) || i > 0 && i+1 < len(s) && (s[i+1] == 'e' || s[i+1] == 'E')) {
		i++
		k = tDecimal
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			return tDouble, j
		}
	}
	if k == tDecimal && s[i-1] == '.' {
		// "1." followed by something other than an exponent: the '.' ends the triple.
		return tInteger, i - 1
	}
	return k, i
}

// scanString matches one of the four string forms and returns its unescaped value and length; on error the int is
// the offset of the problem (0, the string's start, for an unterminated string).
func scanString(s string) (string, int, error) {
	q := s[0]
	long := len(s) >= 3 && s[1] == q && s[2] == q
	i := 1
	if long {
		i = 3
	}
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		switch {
		case long && c == q && strings.HasPrefix(s[i:], string([]byte{q, q, q})):
			// A long string may end in up to two quotes of its own before the closing three.
			for i+3 < len(s) && s[i+3] == q {
				b.WriteByte(q)
				i++
			}
			return b.String(), i + 3, nil
		case !long && c == q:
			return b.String(), i + 1, nil
		case !long && (c == '\n' || c == '\r'):
			return "", i, fmt.Errorf("line break in a short string; use a long string (\"\"\"...\"\"\") or \\n")
		case c == '\\':
			if i+1 >= len(s) {
				return "", 0, fmt.Errorf("unterminated string")
			}
			switch e := s[i+1]; e {
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			case '"', '\'', '\\':
				b.WriteByte(e)
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				r, ok := hexRune(s[i+2:], n)
				if !ok {
					return "", i, fmt.Errorf("invalid \\%c escape in string", e)
				}
				b.WriteRune(r)
				i += n
			default:
				return "", i, fmt.Errorf("invalid escape \\%c in string", e)
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// hexRune decodes n hex digits as a code point, refusing surrogates and values beyond Unicode.
func hexRune(s string, n int) (rune, bool) {
	if len(s) < n {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:n], 16, 32)
	if err != nil || v > utf8.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return 0, false
	}
	return rune(v), true
}

// shift records that from output offset out on, the query as written is delta bytes further on than the text
// unescapeCodepoints produced.
type shift struct{ out, delta int }

// unescapeCodepoints applies §19.2: \uXXXX and \UXXXXXXXX anywhere in the query are replaced by the character
// before tokenizing, in one pass so that an escape cannot produce another escape. Inside strings a "\\" pair is
// kept as it is, so an escaped backslash before 'u' stays a backslash. The shifts map positions back to the query.
func unescapeCodepoints(s string) (string, []shift) {
	if !strings.Contains(s, `\u`) && !strings.Contains(s, `\U`) {
		return s, nil
	}
	var b strings.Builder
	var shifts []shift
	delta := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'u', 'U':
				n := 4
				if s[i+1] == 'U' {
					n = 8
				}
				r, ok := hexRune(s[i+2:], n)
				if !ok {
					// Not an escape (say "\\users" in a comment): leave it for the lexer, which rejects it in a
					// string or an IRI and ignores it in a comment.
					b.WriteByte(c)
					i++
					continue
				}
				before := b.Len()
				if r == '"' || r == '\'' || r == '\\' {
					// Keep it escaped so a quote or backslash from an escape cannot end or change a string.
					b.WriteByte('\\')
				}
				b.WriteRune(r)
				i += 2 + n
				delta += 2 + n - (b.Len() - before)
				shifts = append(shifts, shift{out: b.Len(), delta: delta})
				continue
			case '\\':
				b.WriteString(`\\\\`)
				i += 2
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), shifts
}

// sourcePosition maps a byte offset of the unescaped text back to the line and column (in characters) of the query
// as written.
func sourcePosition(query string, shifts []shift, off int) (line, col int) {
	d := 0
	for _, s := range shifts {
		if s.out > off {
			break
		}
		d = s.delta
	}
	off += d
	line, col = 1, 1
	for i, r := range query {
		if i >= off {
			break
		}
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
