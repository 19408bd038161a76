package turtle

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// iriStop marks the bytes an IRIREF scan must look at: the end, the characters IRIREF excludes, backslash and
// non-ASCII (which needs a UTF-8 check).
var iriStop = func() (t [256]bool) {
	for c := 0; c <= 0x20; c++ {
		t[c] = true
	}
	for _, c := range "<>\"{}|^`\\" {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// iriRef scans an IRIREF at pos ('<' ... '>') and returns it resolved against the base.
func (d *Decoder) iriRef() (string, error) {
	esc := false
	var hi byte
	i := 1
	for {
		p, buf := d.pos+i, d.buf
		for p < len(buf) && !iriStop[buf[p]] {
			p++
		}
		i = p - d.pos
		if i > d.maxTok {
			return "", d.tooLong("IRI")
		}
		if p >= len(buf) {
			if !d.fill() {
				return "", d.endErr(i, "IRI")
			}
			continue
		}
		c := buf[p]
		if c == '>' {
			break
		}
		if c <= 0x20 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`' {
			return "", d.errAt(i, "invalid character %s in IRI", d.describe(i))
		}
		if c == '\\' {
			esc = true
		}
		hi |= c
		i++
	}
	if hi >= utf8.RuneSelf && !utf8.Valid(d.buf[d.pos+1:d.pos+i]) {
		return "", d.invalidUTF8(1+firstInvalid(d.buf[d.pos+1:d.pos+i]), "IRI")
	}
	var s string
	if esc {
		b := d.scratch[:0]
		raw := d.buf[d.pos+1 : d.pos+i]
		for j := 0; j < len(raw); j++ {
			if raw[j] != '\\' {
				b = append(b, raw[j])
				continue
			}
			r, n, err := d.uchar(1+j, raw[j:])
			if err != nil {
				return "", err
			}
			if r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r) {
				return "", d.errAt(1+j, "escaped character %q is not allowed in an IRI", r)
			}
			b = utf8.AppendRune(b, r)
			j += n - 1
		}
		d.scratch = b
		s = string(b)
	} else {
		s = string(d.buf[d.pos+1 : d.pos+i])
	}
	s, err := d.resolve(s)
	if err != nil {
		return "", err
	}
	d.skip(i + 1)
	return s, nil
}

// uchar decodes a \u or \U escape at the start of raw (which starts at pos+off); it returns the code point and the
// escape's length.
func (d *Decoder) uchar(off int, raw []byte) (rune, int, error) {
	if len(raw) < 2 || raw[1] != 'u' && raw[1] != 'U' {
		return 0, 0, d.errAt(off, "invalid escape sequence in IRI (only \\u and \\U are allowed)")
	}
	n := 4
	if raw[1] == 'U' {
		n = 8
	}
	if len(raw) < 2+n {
		return 0, 0, d.errAt(off, "incomplete \\%c escape", raw[1])
	}
	var r rune
	for _, h := range raw[2 : 2+n] {
		if !isHex(int(h)) {
			return 0, 0, d.errAt(off, "invalid hex digit in \\%c escape", raw[1])
		}
		r = r<<4 | hexVal(h)
	}
	if r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
		return 0, 0, d.errAt(off, "escape \\%c%s is not a Unicode scalar value", raw[1], raw[2:2+n])
	}
	return r, 2 + n, nil
}

// resolve makes ref absolute against the current base. An absolute IRI is kept exactly as written (no dot-segment
// removal), as serd and the hub's other parsers (SPARQL, RDF/JSON) do: IRIs compare character by character, so
// a query must find the IRI the data spelled (SPARQL 1.0 test i18n/normalization-02 depends on it).
func (d *Decoder) resolve(ref string) (string, error) {
	if iri.IsAbsolute(ref) {
		return ref, nil
	}
	s, err := iri.Resolve(d.base, ref)
	if err != nil {
		if errors.Is(err, iri.ErrNoBase) {
			return "", d.errAt(0, "relative IRI <%s> and no base IRI to resolve it against", ref)
		}
		return "", d.errAt(0, "IRI <%s>: %v", ref, err)
	}
	return s, nil
}

// pnChars scans the rest of a name from pos+i: (PN_CHARS | '.')* without trailing dots, plus ':' and the PLX forms
// (%hh, \x) when allowColon says it is a local name. The caller has checked the first character. It returns the
// end offset and whether a \ escape was seen.
func (d *Decoder) pnChars(i int, allowColon bool) (int, bool, error) {
	end := i // end after the last non-dot character
	esc := false
	for {
		p := d.pos + i
		var c byte
		if p < len(d.buf) {
			c = d.buf[p]
		} else {
			v := d.at(i)
			if v < 0 {
				return end, esc, nil
			}
			c = byte(v)
		}
		switch {
		case c < utf8.RuneSelf && asciiClass[c]&clsChars != 0:
			i++
			end = i
		case c == '.':
			i++
		case c == ':' && allowColon:
			i++
			end = i
		case allowColon && c == '%':
			if !isHex(d.at(i+1)) || !isHex(d.at(i+2)) {
				return 0, false, d.errAt(i, "'%%' in a local name must be followed by two hex digits")
			}
			i += 3
			end = i
		case allowColon && c == '\\':
			e := d.at(i + 1)
			if e < 0 || !strings.ContainsRune("_~.-!$&'()*+,;=/?#@%", rune(e)) {
				return 0, false, d.errAt(i, "invalid escape %s in a local name", d.describe(i+1))
			}
			esc = true
			i += 2
			end = i
		case c >= utf8.RuneSelf:
			r, n := d.runeAt(i)
			if r < 0 {
				// Nothing valid follows a name with a byte that is not UTF-8: say so rather than end the name
				// and let the statement stumble over the byte.
				return 0, false, d.invalidUTF8(i, "name")
			}
			if !isCharsRune(r) {
				return end, esc, nil
			}
			i += n
			end = i
		default:
			return end, esc, nil
		}
		if i > d.maxTok {
			return 0, false, d.tooLong("name")
		}
	}
}

// maxKeyword is longer than any keyword, so scans for one stop early on hostile input.
const maxKeyword = 16

// word classifies the name at pos. It returns the length of a bare word (a keyword such as "a", "true", "PREFIX") or
// 0 when the input is a prefixed name.
func (d *Decoder) word() int {
	i := 0
	for {
		c := d.at(i)
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			i++
			if i > maxKeyword {
				return 0 // no keyword is this long: let the prefixed-name scanner, which has a limit, deal with it
			}
			continue
		}
		if c == ':' || c == '_' || c == '-' || isDigit(c) || c >= utf8.RuneSelf || c == '.' && d.continuesName(i+1) {
			return 0
		}
		return i
	}
}

// continuesName reports whether a '.' before pos+i is inside a name rather than ending the statement.
func (d *Decoder) continuesName(i int) bool {
	c := d.at(i)
	return c == ':' || c == '.' || c >= utf8.RuneSelf || c >= 0 && asciiClass[c]&clsChars != 0
}

// pname scans a prefixed name at pos and returns its IRI. Short names are memoised: predicates, datatypes and
// classes repeat all the time, and a hit saves building the IRI string.
func (d *Decoder) pname() (string, error) {
	// PN_PREFIX
	i := 0
	r, n := d.runeAt(0)
	if n > 0 && r != ':' {
		if !(r >= 0 && r < utf8.RuneSelf && asciiClass[r]&clsBase != 0 || r >= utf8.RuneSelf && isBaseRune(r)) {
			return "", d.errAt(0, "unexpected %s", d.describe(0))
		}
		var err error
		if i, _, err = d.pnChars(n, false); err != nil {
			return "", err
		}
	}
	if d.at(i) != ':' {
		return "", d.errAt(0, "expected a prefixed name, found %q", string(d.buf[d.pos:d.pos+max(i, 1)]))
	}
	plen := i
	i++
	// PN_LOCAL
	esc := false
	c := d.at(i)
	if c >= 0 && (c < utf8.RuneSelf && (asciiClass[c]&(clsU|clsDigit) != 0 || c == ':' || c == '%' || c == '\\') || c >= utf8.RuneSelf) {
		if c >= utf8.RuneSelf {
			r, _ := d.runeAt(i)
			if r < 0 {
				return "", d.invalidUTF8(i, "name")
			}
			if !isBaseRune(r) {
				goto done
			}
		}
		var err error
		if i, esc, err = d.pnChars(i, true); err != nil {
			return "", err
		}
	}
done:
	raw := d.buf[d.pos : d.pos+i]
	k, err := d.prefixIndex(raw[:plen])
	if err != nil {
		return "", err
	}
	local := raw[plen+1:]
	cache := len(local) <= maxCachedName
	if cache {
		if s, ok := d.pnCache[k][string(local)]; ok {
			d.skip(i)
			return s, nil
		}
	}
	ns := d.order[k].IRI
	var s, key string
	if esc {
		b := append(d.scratch[:0], ns...)
		for j := 0; j < len(local); j++ {
			if local[j] == '\\' {
				j++
			}
			b = append(b, local[j])
		}
		d.scratch = b
		s = string(b)
		key = string(local)
	} else {
		s = ns + string(local)
		key = s[len(ns):] // shares the IRI's bytes: a miss costs one allocation
	}
	if cache {
		if d.pnCount >= maxCache {
			for _, m := range d.pnCache {
				clear(m)
			}
			d.pnCount = 0
		}
		if d.pnCache[k] == nil {
			d.pnCache[k] = map[string]string{}
		}
		d.pnCache[k][key] = s
		d.pnCount++
	}
	d.skip(i)
	return s, nil
}

// prefixIndex finds a declared prefix. Documents use few prefixes and mostly the same one several times in a row,
// so the last one found is checked first.
func (d *Decoder) prefixIndex(name []byte) (int, error) {
	if d.lastPrefix >= 0 && string(name) == d.order[d.lastPrefix].Name {
		return d.lastPrefix, nil
	}
	k, ok := d.prefixes[string(name)]
	if !ok {
		return 0, d.errAt(0, "undefined prefix %q", string(name))
	}
	d.lastPrefix = k
	return k, nil
}

// maxCache and maxCachedName bound the memo tables so that hostile input cannot grow them without limit.
const (
	maxCache      = 4096
	maxCachedName = 256
)

// blankLabel scans BLANK_NODE_LABEL at pos ('_:' ...).
func (d *Decoder) blankLabel() (rdf.Term, error) {
	if d.at(1) != ':' {
		return rdf.Term{}, d.errAt(0, "expected '_:' to start a blank node label")
	}
	r, n := d.runeAt(2)
	if n == 0 || !(r >= 0 && r < utf8.RuneSelf && asciiClass[r]&(clsU|clsDigit) != 0 || r >= utf8.RuneSelf && isBaseRune(r)) {
		return rdf.Term{}, d.errAt(2, "invalid blank node label start %s", d.describe(2))
	}
	i, _, err := d.pnChars(2+n, false)
	if err != nil {
		return rdf.Term{}, err
	}
	t := rdf.Blank(d.blanks.Label(string(d.buf[d.pos+2 : d.pos+i])))
	d.skip(i)
	return t, nil
}

// maxLang bounds language tags (BCP 47 tags are far shorter in practice).
const maxLang = 256

// literal scans a quoted string at pos with its language tag or datatype.
func (d *Decoder) literal() (rdf.Term, error) {
	q := d.buf[d.pos]
	long := d.at(1) == int(q) && d.at(2) == int(q)
	var lex string
	var err error
	if long {
		lex, err = d.longString(q)
	} else {
		lex, err = d.shortString(q)
	}
	if err != nil {
		return rdf.Term{}, err
	}
	// White space may separate the string from its tag or datatype: they are separate tokens in the grammar.
	switch d.ws() {
	case '@':
		i := 1
		for c := d.at(i); (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && i <= maxLang; c = d.at(i) {
			i++
		}
		if i == 1 {
			return rdf.Term{}, d.errAt(0, "empty language tag")
		}
		for d.at(i) == '-' && i <= maxLang {
			j := i + 1
			for c := d.at(j); (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c)) && j <= maxLang; c = d.at(j) {
				j++
			}
			if j == i+1 {
				return rdf.Term{}, d.errAt(i, "empty language subtag")
			}
			i = j
		}
		if i > maxLang {
			return rdf.Term{}, d.errAt(0, "language tag longer than %d bytes", maxLang)
		}
		raw := d.buf[d.pos+1 : d.pos+i]
		lang, ok := d.lastLang, string(raw) == d.lastLang
		if !ok {
			lang, ok = d.langCache[string(raw)]
			if !ok {
				lang = string(raw)
				if len(d.langCache) >= maxCache {
					clear(d.langCache)
				}
				d.langCache[lang] = lang
			}
			d.lastLang = lang
		}
		d.skip(i)
		return rdf.Term{Kind: rdf.KindLiteral, Value: lex, Datatype: rdf.RDFLangString, Lang: lang}, nil
	case '^':
		if d.at(1) != '^' {
			if err := d.n3Unsupported('^'); err != nil {
				return rdf.Term{}, err
			}
			return rdf.Term{}, d.errAt(0, "expected '^^' before a datatype")
		}
		d.skip(2)
		var dt string
		switch c := d.ws(); {
		case c == '<':
			dt, err = d.iriRef()
		case c < 0:
			return rdf.Term{}, d.endErr(0, "datatype")
		default:
			dt, err = d.pname()
		}
		if err != nil {
			return rdf.Term{}, err
		}
		return rdf.Term{Kind: rdf.KindLiteral, Value: lex, Datatype: dt}, nil
	}
	return rdf.Term{Kind: rdf.KindLiteral, Value: lex, Datatype: rdf.XSDString}, nil
}

// stringStop marks the bytes a short string scan must look at: quotes, backslash, line breaks and non-ASCII
// (which needs a UTF-8 check).
var stringStop = func() (t [256]bool) {
	for _, c := range "\"'\\\n\r" {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// shortString scans "..." or '...' at pos and returns the unescaped value.
func (d *Decoder) shortString(q byte) (string, error) {
	i := 1
	esc := false
	var hi byte
	for {
		// Skip the plain bytes in one tight loop; only the stop bytes need a decision.
		p, buf := d.pos+i, d.buf
		for p < len(buf) && !stringStop[buf[p]] {
			p++
		}
		i = p - d.pos
		if i > d.maxTok {
			return "", d.tooLong("literal")
		}
		if p >= len(buf) {
			if !d.fill() {
				return "", d.endErr(i, "string")
			}
			continue
		}
		c := buf[p]
		if c == q {
			break
		}
		switch c {
		case '\\':
			esc = true
			i++ // the escaped byte cannot end the string
		case '\n', '\r':
			return "", d.errAt(i, "line break in a short string (use \"\"\" or an escape)")
		}
		hi |= c
		i++
	}
	if hi >= utf8.RuneSelf && !utf8.Valid(d.buf[d.pos+1:d.pos+i]) {
		return "", d.invalidUTF8(1+firstInvalid(d.buf[d.pos+1:d.pos+i]), "string")
	}
	var s string
	if esc {
		var err error
		if s, err = d.unescape(1, i); err != nil {
			return "", err
		}
	} else {
		s = string(d.buf[d.pos+1 : d.pos+i])
	}
	d.skip(i + 1)
	return s, nil
}

// longString scans a triple-quoted string (either quote character) at pos.
func (d *Decoder) longString(q byte) (string, error) {
	i := 3
	esc := false
	var hi byte
	for {
		p := d.pos + i
		if p+2 >= len(d.buf) {
			if d.at(i+2) < 0 {
				return "", d.endErr(i, "long string")
			}
			continue
		}
		c := d.buf[p]
		if c == q && d.buf[p+1] == q && d.buf[p+2] == q {
			break
		}
		if c == '\\' {
			esc = true
			i++
		}
		hi |= c
		i++
		if i > d.maxTok {
			return "", d.tooLong("literal")
		}
	}
	if hi >= utf8.RuneSelf && !utf8.Valid(d.buf[d.pos+3:d.pos+i]) {
		return "", d.invalidUTF8(3+firstInvalid(d.buf[d.pos+3:d.pos+i]), "string")
	}
	var s string
	if esc {
		var err error
		if s, err = d.unescape(3, i); err != nil {
			return "", err
		}
	} else {
		s = string(d.buf[d.pos+3 : d.pos+i])
	}
	d.skipLines(i + 3)
	return s, nil
}

// unescape decodes the string body buf[pos+from : pos+to].
func (d *Decoder) unescape(from, to int) (string, error) {
	raw := d.buf[d.pos+from : d.pos+to]
	b := d.scratch[:0]
	for j := 0; j < len(raw); j++ {
		c := raw[j]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if j+1 >= len(raw) {
			return "", d.errAt(from+j, "incomplete escape")
		}
		switch raw[j+1] {
		case 't':
			b = append(b, '\t')
		case 'b':
			b = append(b, '\b')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 'f':
			b = append(b, '\f')
		case '"', '\'', '\\':
			b = append(b, raw[j+1])
		case 'u', 'U':
			r, n, err := d.uchar(from+j, raw[j:])
			if err != nil {
				return "", err
			}
			b = utf8.AppendRune(b, r)
			j += n - 2
		default:
			return "", d.errAt(from+j, "invalid escape \\%c in string", raw[j+1])
		}
		j++
	}
	d.scratch = b
	return string(b), nil
}

// maxInternedNumber bounds the numbers that are interned; so few characters can form only some ten thousand.
const maxInternedNumber = 4

// number scans INTEGER, DECIMAL or DOUBLE at pos.
func (d *Decoder) number() (rdf.Term, error) {
	i := 0
	if c := d.at(0); c == '+' || c == '-' {
		i++
	}
	digits := 0
	for isDigit(d.at(i)) && i <= d.maxTok {
		i++
		digits++
	}
	dt := rdf.XSDInteger
	if d.at(i) == '.' && isDigit(d.at(i+1)) {
		i++
		for isDigit(d.at(i)) && i <= d.maxTok {
			i++
		}
		dt = rdf.XSDDecimal
		digits++
	}
	if c := d.at(i); (c == 'e' || c == 'E') && digits > 0 || c == '.' && digits > 0 && dt == rdf.XSDInteger && (d.at(i+1) == 'e' || d.at(i+1) == 'E') {
		j := i
		if c == '.' {
			j++
		}
		j++
		if s := d.at(j); s == '+' || s == '-' {
			j++
		}
		if isDigit(d.at(j)) {
			for isDigit(d.at(j)) && j <= d.maxTok {
				j++
			}
			i = j
			dt = rdf.XSDDouble
		} else if c != '.' {
			return rdf.Term{}, d.errAt(i, "invalid exponent in number")
		}
	}
	if digits == 0 {
		return rdf.Term{}, d.errAt(0, "invalid number")
	}
	if i > d.maxTok {
		return rdf.Term{}, d.tooLong("number")
	}
	raw := d.buf[d.pos : d.pos+i]
	var lex string
	if len(raw) <= maxInternedNumber {
		// Short numbers (ratings, counts, years) repeat all the time; their set is small by construction.
		var ok bool
		if lex, ok = d.numCache[string(raw)]; !ok {
			lex = string(raw)
			d.numCache[lex] = lex
		}
	} else {
		lex = string(raw)
	}
	d.skip(i)
	return rdf.Term{Kind: rdf.KindLiteral, Value: lex, Datatype: dt}, nil
}
