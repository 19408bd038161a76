package builtin

import (
	"cmp"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// Key is a term with the value the comparison operators read from it, parsed once. Compare, Equal and OrderCompare
// parse both operands on every call; an ORDER BY compares each sort key O(log n) times, and MIN, MAX and a FILTER
// against a constant meet the same term again and again, so the evaluator parses a term into a Key once and
// compares Keys. Compare, Equal and OrderCompare are themselves these comparisons of two fresh Keys, so both ways
// give the same answers by construction.
type Key struct {
	Term rdf.Term
	kind keyKind
	fx   fixed    // keyFixed
	w    wide     // keyWide
	n    num      // keyNum
	dt   dateTime // keyDate
	b    bool     // keyBool
}

// keyKind is the value space a term's datatype (and a valid lexical form) puts it in.
type keyKind uint8

const (
	keyOther  keyKind = iota // not a literal, a literal of another datatype, or an invalid lexical form
	keyFixed                 // xsd:integer or xsd:decimal that fits the fixed form
	keyWide                  // xsd:integer or xsd:decimal that fits 128 bits but not the fixed form
	keyNum                   // any other valid numeric literal
	keyString                // xsd:string (simple literal)
	keyBool                  // valid xsd:boolean
	keyDate                  // valid xsd:dateTime or xsd:date
)

// NewKey parses t for comparison.
func NewKey(t rdf.Term) Key {
	k := Key{Term: t}
	if t.Kind != rdf.KindLiteral {
		return k
	}
	switch t.Datatype {
	case rdf.XSDString:
		k.kind = keyString
		return k
	case rdf.RDFLangString:
		return k
	case rdf.XSDInteger, rdf.XSDDecimal:
		if w, ok := toWide(t); ok {
			if f, ok := w.fixed(); ok {
				k.kind, k.fx = keyFixed, f
			} else {
				k.kind, k.w = keyWide, w
			}
			return k
		}
	case xsdDT, xsdDate:
		if d, ok := parseDateTime(t); ok {
			k.kind, k.dt = keyDate, d
		}
		return k
	case rdf.XSDBoolean:
		if b, ok := boolValue(t); ok {
			k.kind, k.b = keyBool, b
		}
		return k
	}
	if n, ok := toNum(t); ok {
		k.kind, k.n = keyNum, n
	}
	return k
}

func (k *Key) numeric() bool { return k.kind == keyFixed || k.kind == keyWide || k.kind == keyNum }

// exact reports whether a numeric key holds its value as fixed or wide (an xsd:integer or xsd:decimal that fits
// 128 bits), and returns it in wide form.
func (k *Key) exact() (wide, bool) {
	switch k.kind {
	case keyFixed:
		return wideOf(k.fx), true
	case keyWide:
		return k.w, true
	}
	return wide{}, false
}

// numKind is the numeric type of a numeric key.
func (k *Key) numKind() numKind {
	switch {
	case k.kind == keyWide:
		if k.w.dec {
			return kDecimal
		}
		return kInteger
	case k.kind != keyFixed:
		return k.n.kind
	case k.fx.dec:
		return kDecimal
	}
	return kInteger
}

// promoted returns a numeric key's value in type to (≥ its own), in the big path's form; a fixed value promoted
// to a float type is read straight into a float64 (the nearest double, as big.Rat.Float64 gives) without a
// big.Rat.
func (k *Key) promoted(to numKind) num {
	if k.kind == keyWide {
		return k.w.num().to(to)
	}
	if k.kind != keyFixed {
		return k.n.to(to)
	}
	if to >= kFloat {
		if f, ok := k.fx.float(); ok {
			return num{kind: kDouble, f: f}.to(to)
		}
	}
	return k.fx.num().to(to)
}

// cmpNumKeys is cmpNum on two numeric keys.
func cmpNumKeys(a, b *Key) (int, bool) {
	k := max(a.numKind(), b.numKind())
	return cmpNum(a.promoted(k), b.promoted(k))
}

// CompareKeys is Compare on parsed terms.
func CompareKeys(a, b *Key) (int, error) {
	if a.Term.Kind != rdf.KindLiteral || b.Term.Kind != rdf.KindLiteral {
		return 0, ErrType
	}
	if a.kind == keyFixed && b.kind == keyFixed {
		if c, ok := a.fx.cmp(b.fx); ok {
			return c, nil
		}
	}
	if x, ok := a.exact(); ok && (a.kind == keyWide || b.kind == keyWide) {
		if y, ok := b.exact(); ok {
			if c, ok := x.cmp(y); ok {
				return c, nil
			}
		}
	}
	if a.numeric() {
		if b.numeric() {
			c, ordered := cmpNumKeys(a, b)
			if !ordered {
				return 0, ErrType
			}
			return c, nil
		}
		return 0, ErrType
	}
	switch {
	case a.kind == keyString && b.kind == keyString:
		return strings.Compare(a.Term.Value, b.Term.Value), nil
	case a.kind == keyBool && b.kind == keyBool:
		return b2i(a.b) - b2i(b.b), nil
	case a.kind == keyDate && b.kind == keyDate && a.dt.isDate == b.dt.isDate:
		return a.dt.compare(b.dt)
	}
	return 0, ErrType
}

// EqualKeys is Equal on parsed terms.
func EqualKeys(a, b *Key) (bool, error) {
	x, y := a.Term, b.Term
	if x.Kind != rdf.KindLiteral || y.Kind != rdf.KindLiteral {
		return x.Equal(y), nil
	}
	if a.kind == keyFixed && b.kind == keyFixed {
		if c, ok := a.fx.cmp(b.fx); ok {
			return c == 0, nil
		}
	}
	if x, ok := a.exact(); ok && (a.kind == keyWide || b.kind == keyWide) {
		if y, ok := b.exact(); ok {
			if c, ok := x.cmp(y); ok {
				return c == 0, nil
			}
		}
	}
	if a.numeric() && b.numeric() {
		c, ordered := cmpNumKeys(a, b)
		return ordered && c == 0, nil
	}
	switch {
	case a.kind == keyString && b.kind == keyString:
		return x.Value == y.Value, nil
	case a.kind == keyBool && b.kind == keyBool:
		return a.b == b.b, nil
	case a.kind == keyDate && b.kind == keyDate && a.dt.isDate == b.dt.isDate:
		c, err := a.dt.compare(b.dt)
		return c == 0, err
	}
	if x.Equal(y) {
		return true, nil
	}
	// A language-tagged string's value is the pair (text, tag), which no other literal has: unequal, not an
	// error (the LangTagAwareness behaviour of the SPARQL 1.0 open-world tests).
	if x.Datatype == rdf.RDFLangString || y.Datatype == rdf.RDFLangString {
		return false, nil
	}
	if knownDatatype(x.Datatype) && knownDatatype(y.Datatype) && validLexical(x) && validLexical(y) {
		return false, nil
	}
	return false, ErrType
}

// OrderKeys is OrderCompare on parsed terms. It is a total order on terms (conformance.md, "ORDER BY, MIN and
// MAX"): ORDER BY's sorts and selections, and MIN and MAX, which keep the first of the values they meet when two
// tie, give one answer whatever order the values come in only if no three terms form a cycle and only equal terms
// tie. Numbers are ordered by their exact values (numberOrder), NaN after every other; dates and dateTimes by
// their instants even where < leaves two unordered (a value without a timezone against one with); strings by
// text, then language tag; literals < cannot compare by datatype, valid forms before invalid ones. Terms of one
// value are ordered by their lexical forms, then language tags, then datatypes.
func OrderKeys(a, b *Key) int {
	x, y := a.Term, b.Term
	if x.Kind != y.Kind {
		return rank(x.Kind) - rank(y.Kind)
	}
	switch x.Kind {
	case rdf.KindNone:
		return 0
	case rdf.KindBlank, rdf.KindIRI:
		return strings.Compare(x.Value, y.Value)
	}
	if a.numeric() && b.numeric() {
		if c := numberOrder(a, b); c != 0 {
			return c
		}
	} else if c, err := CompareKeys(a, b); err == nil {
		if c != 0 {
			return c
		}
	} else if c := incomparableOrder(a, b); c != 0 {
		return c
	}
	// One value: the terms decide, so a NumberKey's is written now.
	a.settle()
	b.settle()
	x, y = a.Term, b.Term
	if c := strings.Compare(x.Value, y.Value); c != 0 {
		return c
	}
	if c := strings.Compare(strings.ToLower(x.Lang), strings.ToLower(y.Lang)); c != 0 {
		return c
	}
	if c := strings.Compare(x.Lang, y.Lang); c != 0 {
		return c
	}
	return strings.Compare(x.Datatype, y.Datatype)
}

// incomparableOrder orders two literals that are not both numbers and that < does not compare; 0 leaves them to
// their terms.
func incomparableOrder(a, b *Key) int {
	x, y := a.Term, b.Term
	// Strings with and without language tags sort together by their text, as readers expect; other incomparable
	// literals are grouped by kind, then datatype.
	if isString(x) && isString(y) {
		return strings.Compare(x.Value, y.Value)
	}
	if ga, gb := a.group(), b.group(); ga != gb {
		return ga - gb
	}
	if x.Datatype != y.Datatype {
		return strings.Compare(x.Datatype, y.Datatype)
	}
	// A dateTime without a timezone against one with, within XPath's ±14 hours: < is undefined, and the lexical
	// forms would order them against the instants of the values around them. Their instants, the one without a
	// timezone read as UTC, order them as < does wherever < is defined.
	ta, da := a.orderInstant()
	tb, db := b.orderInstant()
	if da && db {
		return ta.Compare(tb)
	}
	// Other invalid forms ("yes"^^xsd:boolean, 31 February in a dateTime) after the valid ones of their datatype:
	// between them by lexical form they would close cycles with two valid values whose value order is not their
	// lexical order.
	if va, vb := a.kind != keyOther || da, b.kind != keyOther || db; va != vb {
		return b2i(vb) - b2i(va)
	}
	return 0
}

// orderInstant is the instant a date or dateTime key is ordered by: its value's, one without a timezone read as
// UTC; and for an xsd:date written YYYY-MM-DD with a day past its month's end (30 February, which an index holds
// in an id among the valid dates, ordered as written: index.InlineDateBound), the last day of that month, so the
// form sorts after it and before the next month, where the id puts it.
func (k *Key) orderInstant() (time.Time, bool) {
	if k.kind == keyDate {
		return k.dt.t, true
	}
	s := k.Term.Value
	if k.Term.Datatype != xsdDate || len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	y, ok1 := digitsValue(s[:4])
	m, ok2 := digitsValue(s[5:7])
	d, ok3 := digitsValue(s[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	last := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return time.Date(y, time.Month(m), min(d, last), 0, 0, 0, 0, time.UTC), true
}

// digitsValue reads a string of ASCII digits.
func digitsValue(s string) (int, bool) {
	v := 0
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, true
}

// numberOrder is ORDER BY's order of two numeric keys: by their exact values, -INF first, then INF, then NaN, and a
// float's or double's -0 before the other zeros (as Java's Double.compare, which Jena sorts numbers with, places
// them); 0 for one value (1, 1.0, 1e0 and "1"^^xsd:decimal; 0, 0.0 and 0e0).
// Promoting both to one type, as < does, rounds: 2^53 + 1 and 2^53 as integers differ but equal 2^53 as a double,
// and then no order by value and lexical form can hold all three; exact values can, and they agree with < wherever
// < tells two values apart (rounding never reverses an order).
func numberOrder(a, b *Key) int {
	if a.kind == keyFixed && b.kind == keyFixed {
		if c, ok := a.fx.cmp(b.fx); ok {
			return c
		}
	}
	if x, ok := a.exact(); ok {
		if y, ok := b.exact(); ok {
			if c, ok := x.cmp(y); ok {
				return c
			}
		}
	}
	if na, nb := a.isNaN(), b.isNaN(); na || nb {
		return b2i(na) - b2i(nb)
	}
	c, _ := cmpNumKeys(a, b)
	if c == 0 && a.numKind() != b.numKind() {
		// Equal once promoted, which within one type, or between float and double, is exact: else the exact
		// values decide.
		ia, ra := a.exactValue()
		ib, rb := b.exactValue()
		if ia != 0 || ib != 0 {
			c = cmp.Compare(ia, ib)
		} else {
			c = ra.Cmp(rb)
		}
	}
	if c == 0 {
		// A float's or double's negative zero before the other zeros, as Double.compare puts it.
		c = b2i(b.negativeZero()) - b2i(a.negativeZero())
	}
	return c
}

// negativeZero reports whether a numeric key is a float or double -0.
func (k *Key) negativeZero() bool {
	return k.kind == keyNum && k.n.kind >= kFloat && k.n.f == 0 && math.Signbit(k.n.f)
}

// isNaN reports whether a numeric key is a float or double NaN.
func (k *Key) isNaN() bool { return k.kind == keyNum && k.n.kind >= kFloat && math.IsNaN(k.n.f) }

// exactValue is a numeric key's value other than NaN: the sign of an infinity, or 0 and the value as a fraction
// (a float's or double's exactly, as the binary fraction it is).
func (k *Key) exactValue() (int, *big.Rat) {
	if k.kind == keyNum && k.n.kind >= kFloat {
		if math.IsInf(k.n.f, 0) {
			if k.n.f > 0 {
				return 1, nil
			}
			return -1, nil
		}
		return 0, new(big.Rat).SetFloat64(k.n.f)
	}
	return 0, k.promoted(kDecimal).r
}

// group is literalGroup: numbers, then strings, then the rest.
func (k *Key) group() int {
	switch {
	case k.numeric():
		return 0
	case isString(k.Term):
		return 1
	}
	return 2
}

// FixedKey is NewKey(t) for an xsd:integer or xsd:decimal t whose value the caller already holds as v / 10^scale
// (a number held in its term id): no parse. The caller vouches that the value is t's.
func FixedKey(t rdf.Term, v int64, scale int) Key {
	return Key{Term: t, kind: keyFixed, fx: fixed{v: v, scale: scale, dec: t.Datatype == rdf.XSDDecimal}.normal()}
}

// NumberKey is NewKey of n's canonical term (Number.Term) without the term written: an ORDER BY over arithmetic
// computed from numbers held in ids (?n1 / ?n2 per product) made a quotient's lexical form per solution only for
// NewKey to parse it back, and compared by value all but a few of them. The lexical form is written by OrderKeys
// when two keys tie on their values (2 and 2.0 are then ordered by their terms) or cannot be compared; the key is
// for OrderKeys and CompareKeys only, whose callers never read its Term otherwise.
func NumberKey(n Number) Key {
	dt := rdf.XSDInteger
	if n.Dec {
		dt = rdf.XSDDecimal
	}
	return Key{Term: rdf.Term{Kind: rdf.KindLiteral, Datatype: dt}, kind: keyFixed, fx: n.fixed().normal()}
}

// settle writes a NumberKey's lexical form; a valid xsd:integer or xsd:decimal is never empty, so an empty one
// marks a form not written yet.
func (k *Key) settle() {
	if k.kind == keyFixed && k.Term.Value == "" {
		k.Term = k.fx.term()
	}
}
