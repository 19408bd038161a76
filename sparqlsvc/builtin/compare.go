package builtin

import (
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
	x, y := NewKey(a), NewKey(b)
	return EqualKeys(&x, &y)
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
	x, y := NewKey(a), NewKey(b)
	return CompareKeys(&x, &y)
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
	x, y := NewKey(a), NewKey(b)
	return OrderKeys(&x, &y)
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
