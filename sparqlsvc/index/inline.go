package index

import (
	"strconv"

	"github.com/ldhub/ldhub/content/rdf"
)

// Small numbers and dates are held in their id instead of the dictionary. An aggregate or a FILTER over a numeric
// predicate met one dictionary entry per solution, and at 10 M triples nearly every one was a cache miss (the
// offsets, then the key): half of an AVG over 580 000 offer prices. An inlined value is read from the id itself.
//
// Only lexical forms that the id prints back byte for byte are inlined, so a term keeps its exact form and one term
// still has one id: "01"^^xsd:integer, "+1", "1.50"^^xsd:integer or "-0" stay in the dictionary, while "1" and
// "1.50"^^xsd:decimal (two fractional digits, printed with two) are inlined. Whether a form is inlined depends on
// the form alone, so the builder and Lookup agree without consulting each other, and every dictionary gives a
// term the same inline id.
//
// An inline id has bit 31 set and bit 30 clear; the dictionary's ids stay below 1<<30 and the top quarter of the
// range is left to the query evaluator's scratch ids. Bits 28–29 are the kind, bits 0–27 the value, laid out so
// that ids of one kind (and, for decimals, of one scale) ascend with the value.
const (
	inlineMask = 0xc0000000
	inlineTag  = 0x80000000
	kindShift  = 28
	valueBits  = 28

	inlineInteger = 0
	inlineDecimal = 1
	inlineDate    = 2

	// integers: value + 2^27 in 28 bits.
	intBias = 1 << (valueBits - 1)
	// decimals: 2 bits of scale (fractional digits 0..3; 0 means no '.'), then mantissa + 2^25 in 26 bits.
	decBits  = valueBits - 2
	decBias  = 1 << (decBits - 1)
	maxScale = 3
)

// MaxDictID is the largest id the dictionary assigns: ids above it are inlined values or a query's own.
const MaxDictID = 1<<30 - 1

// XSDDate is the datatype IRI of xsd:date.
const XSDDate = rdf.XSDNS + "date"

// IsInline reports whether id holds its term's value itself (a small xsd:integer, xsd:decimal or xsd:date).
func IsInline(id ID) bool { return id&inlineMask == inlineTag }

// inlineID returns the inline id of the literal with datatype dt and lexical form lex, when it has one.
func inlineID[S string | []byte](dt, lex S) (ID, bool) {
	switch string(dt) {
	case rdf.XSDInteger:
		v, ok := plainInteger(lex, 0)
		if !ok || v < -intBias || v >= intBias {
			return 0, false
		}
		return inlineTag | inlineInteger<<kindShift | ID(v+intBias), true
	case rdf.XSDDecimal:
		return inlineDecimalID(lex)
	case XSDDate:
		return inlineDateID(lex)
	}
	return 0, false
}

// plainInteger reads -?(0|[1-9][0-9]*) from lex[from:] (no '+', no leading zero, no "-0"), up to 9 digits.
func plainInteger[S string | []byte](lex S, from int) (int64, bool) {
	s := lex[from:]
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 9 || (s[0] == '0' && (len(s) > 1 || neg)) {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// inlineDecimalID inlines -?(0|[1-9][0-9]*)(\.[0-9]{1,3})? whose digits, read as one integer, fit the mantissa.
func inlineDecimalID[S string | []byte](lex S) (ID, bool) {
	n := len(lex)
	dot := -1
	for i := 0; i < n; i++ {
		if lex[i] == '.' {
			dot = i
			break
		}
	}
	intPart, scale := n, 0
	if dot >= 0 {
		intPart, scale = dot, n-dot-1
		if scale < 1 || scale > maxScale {
			return 0, false
		}
	}
	neg := n > 0 && lex[0] == '-'
	from := 0
	if neg {
		from = 1 // "-0.5" is printed back as it is, unlike the integer "-0"
	}
	if from >= intPart || lex[from] == '-' {
		return 0, false
	}
	m, ok := plainInteger(lex[:intPart], from)
	if !ok {
		return 0, false
	}
	for i := intPart + 1; i < n; i++ {
		c := lex[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		m = m*10 + int64(c-'0')
		if m >= decBias {
			return 0, false
		}
	}
	if m >= decBias || (neg && m == 0) { // "-0.0" is not what the id would print
		return 0, false
	}
	if neg {
		m = -m
	}
	return inlineTag | inlineDecimal<<kindShift | ID(scale)<<decBits | ID(m+decBias), true
}

// inlineDateID inlines YYYY-MM-DD without a timezone, months 01–12 and days 01–31.
func inlineDateID[S string | []byte](lex S) (ID, bool) {
	if len(lex) != 10 || lex[4] != '-' || lex[7] != '-' {
		return 0, false
	}
	num := func(s S) (int, bool) {
		v := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		return v, true
	}
	y, ok1 := num(lex[:4])
	m, ok2 := num(lex[5:7])
	d, ok3 := num(lex[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, false
	}
	return InlineDateBound(int64(y), int64(m), int64(d)), true
}

// AppendInline appends the lexical form of an inline id to b and returns it with the term's datatype IRI.
func AppendInline(b []byte, id ID) ([]byte, string) {
	v := id &^ (inlineMask | 3<<kindShift)
	switch id >> kindShift & 3 {
	case inlineInteger:
		return strconv.AppendInt(b, int64(v)-intBias, 10), rdf.XSDInteger
	case inlineDecimal:
		scale := int(v >> decBits)
		m := int64(v&(1<<decBits-1)) - decBias
		if m < 0 {
			b = append(b, '-')
			m = -m
		}
		if scale == 0 {
			return strconv.AppendInt(b, m, 10), rdf.XSDDecimal
		}
		p := int64(10)
		for i := 1; i < scale; i++ {
			p *= 10
		}
		b = strconv.AppendInt(b, m/p, 10)
		b = append(b, '.')
		frac := m % p
		for q := p / 10; q > 0; q /= 10 { // fractional digits with their leading zeros
			b = append(b, byte('0'+frac/q%10))
		}
		return b, rdf.XSDDecimal
	default:
		y, m, d := v>>9, v>>5&15, v&31
		return append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
			byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10)), XSDDate
	}
}

// inlineTerm is the term of an inline id, in fresh memory.
func inlineTerm(id ID) rdf.Term {
	var buf [24]byte
	lex, dt := AppendInline(buf[:0], id)
	return rdf.Term{Kind: rdf.KindLiteral, Value: string(lex), Datatype: dt}
}

// InlineID returns t's inline id when its value is held in the id (see IsInline). The id is the same in every
// dictionary, so a computed number needs neither the dictionary nor an overlay of its own.
func InlineID(t rdf.Term) (ID, bool) {
	if t.Kind != rdf.KindLiteral || t.Lang != "" {
		return 0, false
	}
	return inlineID(t.Datatype, t.Value)
}

// InlineNumber returns the value of an inline xsd:integer or xsd:decimal id as v / 10^scale; ok is false for other
// ids (dates, dictionary ids).
func InlineNumber(id ID) (v int64, scale int, ok bool) {
	if !IsInline(id) {
		return 0, 0, false
	}
	p := id &^ (inlineMask | 3<<kindShift)
	switch id >> kindShift & 3 {
	case inlineInteger:
		return int64(p) - intBias, 0, true
	case inlineDecimal:
		return int64(p&(1<<decBits-1)) - decBias, int(p >> decBits), true
	}
	return 0, 0, false
}

// IsInlineDecimal reports whether id holds an xsd:decimal itself (else InlineNumber's value is an xsd:integer's).
func IsInlineDecimal(id ID) bool { return IsInline(id) && id>>kindShift&3 == inlineDecimal }

// IntegerID returns the inline id of the xsd:integer v, when v fits one.
func IntegerID(v int64) (ID, bool) {
	if v < -intBias || v >= intBias {
		return 0, false
	}
	return inlineTag | inlineInteger<<kindShift | ID(v+intBias), true
}

// DecimalID returns the inline id of the xsd:decimal m / 10^scale written with exactly scale fractional digits
// (scale 0: no '.'), as InlineID gives for that lexical form, when it fits one.
func DecimalID(m int64, scale int) (ID, bool) {
	if scale < 0 || scale > maxScale || m <= -decBias || m >= decBias {
		return 0, false
	}
	return inlineTag | inlineDecimal<<kindShift | ID(scale)<<decBits | ID(m+decBias), true
}

// SameInlineRun reports whether a and b, and so every id between them, are inline values of one kind (and, for
// decimals, one scale): ids whose order is their values' (integers, decimals of one scale, xsd:dates by year,
// month and day). An ORDER BY reads such a range in its order instead of sorting it.
func SameInlineRun(a, b ID) bool {
	if !IsInline(a) || !IsInline(b) || a>>kindShift != b>>kindShift || a>>kindShift&3 > inlineDate {
		return false
	}
	return a>>kindShift&3 != inlineDecimal || a>>decBits == b>>decBits
}

// IsInlineDate reports whether id holds an xsd:date (YYYY-MM-DD) itself.
func IsInlineDate(id ID) bool { return IsInline(id) && id>>kindShift&3 == inlineDate }

// InlineDateMonth returns, for an inline xsd:date's id, the id of the last day its month has and the id of day 31
// of that month: the ids between (31 February and the like) are forms held as written that are no dates.
func InlineDateMonth(id ID) (lastDay, day31 ID) {
	p := id &^ (inlineMask | 3<<kindShift)
	y, m := int64(p>>9), int64(p>>5&15)
	return InlineDateBound(y, m, int64(daysIn(int32(y), uint8(m)))), InlineDateBound(y, m, 31)
}

// InlineDateBound is the id an inline xsd:date of year y, month m and day d would have (0 ≤ y ≤ 9999, 1 ≤ m ≤ 12,
// 1 ≤ d ≤ 31), whether or not that day exists: a bound for the rows of a range of dates, whose ids ascend with
// (year, month, day).
func InlineDateBound(y, m, d int64) ID {
	return inlineTag | inlineDate<<kindShift | ID(y<<9|m<<5|d)
}
