package builtin

import (
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// EBV returns the effective boolean value (§17.2.2).
func EBV(t rdf.Term) (bool, error) {
	if t.Kind != rdf.KindLiteral {
		return false, ErrType
	}
	switch {
	case t.Datatype == rdf.XSDBoolean:
		return t.Value == "true" || t.Value == "1", nil
	case t.Datatype == rdf.XSDString || t.Datatype == rdf.RDFLangString:
		return t.Value != "", nil
	}
	if _, ok := numericKind(t.Datatype); ok {
		n, valid := toNum(t)
		if !valid {
			return false, nil // an invalid lexical form has EBV false
		}
		if n.kind >= kFloat {
			return n.f != 0 && n.f == n.f, nil
		}
		return n.r.Sign() != 0, nil
	}
	return false, ErrType
}

func isStringLike(t rdf.Term) bool { return t.Kind == rdf.KindLiteral && t.Datatype == rdf.XSDString }

func boolValue(t rdf.Term) (bool, bool) {
	if t.Kind != rdf.KindLiteral || t.Datatype != rdf.XSDBoolean {
		return false, false
	}
	switch t.Value {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// knownDatatype reports whether ldhub understands the value space of dt, so that two literals of different known
// datatypes can be called unequal instead of raising an error (SPARQL's "KnownTypesDefault2Neq" extension).
func knownDatatype(dt string) bool {
	if _, ok := numericKind(dt); ok {
		return true
	}
	switch dt {
	case rdf.XSDString, rdf.RDFLangString, rdf.XSDBoolean, xsdDT, xsdDate:
		return true
	}
	return false
}

// Equal implements the = operator (§17.3 operator table, falling back to RDFterm-equal).
func Equal(a, b rdf.Term) (bool, error) {
	if a.Kind == rdf.KindLiteral && b.Kind == rdf.KindLiteral {
		if x, ok := toFixed(a); ok {
			if y, ok := toFixed(b); ok {
				if c, ok := x.cmp(y); ok {
					return c == 0, nil
				}
			}
		}
		if x, ok := toNum(a); ok {
			if y, ok := toNum(b); ok {
				c, ordered := cmpNum(x, y)
				return ordered && c == 0, nil
			}
		}
		if isStringLike(a) && isStringLike(b) {
			return a.Value == b.Value, nil
		}
		if x, ok := boolValue(a); ok {
			if y, ok := boolValue(b); ok {
				return x == y, nil
			}
		}
		if x, ok := parseDateTime(a); ok {
			if y, ok := parseDateTime(b); ok && x.isDate == y.isDate {
				c, err := x.compare(y)
				return c == 0, err
			}
		}
		if a.Equal(b) {
			return true, nil
		}
		// A language-tagged string's value is the pair (text, tag), which no other literal has: unequal, not an
		// error (the LangTagAwareness behaviour of the SPARQL 1.0 open-world tests).
		if a.Datatype == rdf.RDFLangString || b.Datatype == rdf.RDFLangString {
			return false, nil
		}
		if knownDatatype(a.Datatype) && knownDatatype(b.Datatype) && validLexical(a) && validLexical(b) {
			return false, nil
		}
		return false, ErrType
	}
	return a.Equal(b), nil
}

// validLexical reports whether a literal of a known datatype has a lexical form in its lexical space.
func validLexical(t rdf.Term) bool {
	if _, ok := numericKind(t.Datatype); ok {
		_, ok := toNum(t)
		return ok
	}
	switch t.Datatype {
	case rdf.XSDBoolean:
		_, ok := boolValue(t)
		return ok
	case xsdDT, xsdDate:
		_, ok := parseDateTime(t)
		return ok
	}
	return true
}

// SameTerm implements sameTerm.
func SameTerm(a, b rdf.Term) bool { return a.Equal(b) }

// Compare implements < (-1), = (0) and > (1) for the ordering operators; it fails for incomparable operands.
func Compare(a, b rdf.Term) (int, error) {
	if a.Kind != rdf.KindLiteral || b.Kind != rdf.KindLiteral {
		return 0, ErrType
	}
	if x, ok := toFixed(a); ok {
		if y, ok := toFixed(b); ok {
			if c, ok := x.cmp(y); ok {
				return c, nil
			}
		}
	}
	if x, ok := toNum(a); ok {
		if y, ok := toNum(b); ok {
			c, ordered := cmpNum(x, y)
			if !ordered {
				return 0, ErrType
			}
			return c, nil
		}
		return 0, ErrType
	}
	if isStringLike(a) && isStringLike(b) {
		return strings.Compare(a.Value, b.Value), nil
	}
	if x, ok := boolValue(a); ok {
		if y, ok := boolValue(b); ok {
			return b2i(x) - b2i(y), nil
		}
	}
	if x, ok := parseDateTime(a); ok {
		if y, ok := parseDateTime(b); ok && x.isDate == y.isDate {
			return x.compare(y)
		}
	}
	return 0, ErrType
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// OrderCompare is the total order of ORDER BY (§15.1): unbound < blank nodes < IRIs < literals; literals that the
// < operator can compare use it, the rest are ordered by lexical form, datatype and language so the order is
// deterministic.
func OrderCompare(a, b rdf.Term) int {
	if a.Kind != b.Kind {
		return rank(a.Kind) - rank(b.Kind)
	}
	switch a.Kind {
	case rdf.KindNone:
		return 0
	case rdf.KindBlank, rdf.KindIRI:
		return strings.Compare(a.Value, b.Value)
	}
	if c, err := Compare(a, b); err == nil {
		if c != 0 {
			return c
		}
	} else {
		// Strings with and without language tags sort together by their text, as readers expect; other
		// incomparable literals are grouped by kind, then datatype.
		if isString(a) && isString(b) {
			if c := strings.Compare(a.Value, b.Value); c != 0 {
				return c
			}
			return strings.Compare(strings.ToLower(a.Lang), strings.ToLower(b.Lang))
		}
		if ga, gb := literalGroup(a), literalGroup(b); ga != gb {
			return ga - gb
		}
		if a.Datatype != b.Datatype {
			return strings.Compare(a.Datatype, b.Datatype)
		}
	}
	if c := strings.Compare(a.Value, b.Value); c != 0 {
		return c
	}
	if c := strings.Compare(strings.ToLower(a.Lang), strings.ToLower(b.Lang)); c != 0 {
		return c
	}
	return strings.Compare(a.Datatype, b.Datatype)
}

func rank(k rdf.Kind) int {
	switch k {
	case rdf.KindNone:
		return 0
	case rdf.KindBlank:
		return 1
	case rdf.KindIRI:
		return 2
	}
	return 3
}

func literalGroup(t rdf.Term) int {
	switch {
	case IsNumeric(t):
		return 0
	case isString(t):
		return 1
	}
	return 2
}
