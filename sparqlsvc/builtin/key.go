package builtin

import (
	"strings"

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

// OrderKeys is OrderCompare on parsed terms.
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
	c, err := CompareKeys(a, b)
	if err == nil && c != 0 {
		return c
	}
	// Tied or incomparable: the terms decide, so a NumberKey's is written now.
	a.settle()
	b.settle()
	x, y = a.Term, b.Term
	if err != nil {
		// Strings with and without language tags sort together by their text, as readers expect; other
		// incomparable literals are grouped by kind, then datatype.
		if isString(x) && isString(y) {
			if c := strings.Compare(x.Value, y.Value); c != 0 {
				return c
			}
			return strings.Compare(strings.ToLower(x.Lang), strings.ToLower(y.Lang))
		}
		if ga, gb := a.group(), b.group(); ga != gb {
			return ga - gb
		}
		if x.Datatype != y.Datatype {
			return strings.Compare(x.Datatype, y.Datatype)
		}
	}
	if c := strings.Compare(x.Value, y.Value); c != 0 {
		return c
	}
	if c := strings.Compare(strings.ToLower(x.Lang), strings.ToLower(y.Lang)); c != 0 {
		return c
	}
	return strings.Compare(x.Datatype, y.Datatype)
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
