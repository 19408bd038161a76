package builtin

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// IsCast reports whether iri names one of the XPath constructor functions ldhub evaluates, the only functions
// named by IRI it knows: the seven SPARQL 1.1 requires (§17.5), and xsd:date, which §17.5 leaves to the
// implementation but users write (xsd:date(?modified) against a dc:date) and Jena, Virtuoso and Oxigraph answer.
func IsCast(iri string) bool {
	switch iri { // a switch, not a map: casts run per solution
	case rdf.XSDString, rdf.XSDBoolean, rdf.XSDInteger, rdf.XSDDecimal, xsdFloat, rdf.XSDDouble, xsdDT, xsdDate:
		return true
	}
	return false
}

// Cast converts a term with an XPath constructor function (the cast table of §17.5).
func Cast(target string, a rdf.Term) (rdf.Term, error) {
	if !IsCast(target) {
		return rdf.Term{}, ErrUnknownFunction
	}
	if a.Kind == rdf.KindBlank || a.IsZero() {
		return rdf.Term{}, ErrType
	}
	if f, ok := toFixed(a); ok { // the exact numbers most data holds, without big numbers
		if n, ok := NumberCast(target, f.number()); ok { // xsd:integer (toward zero), xsd:decimal
			return n.fixed().term(), nil
		}
		switch target {
		case rdf.XSDString: // the canonical form
			return rdf.String(f.term().Value), nil
		case rdf.XSDDouble, xsdFloat:
			if x, ok := f.float(); ok {
				k := kDouble
				if target == xsdFloat {
					k = kFloat
				}
				return num{kind: kDouble, f: x}.to(k).term(), nil
			}
		}
	}
	if a.Kind == rdf.KindLiteral && a.Datatype == rdf.XSDString && (target == rdf.XSDInteger || target == rdf.XSDDecimal) {
		lex := strings.TrimSpace(a.Value)
		if (target == rdf.XSDInteger && validInteger(lex)) || (target == rdf.XSDDecimal && validDecimal(lex)) {
			if f, ok := toFixed(rdf.Literal(lex, target)); ok {
				return f.term(), nil
			}
		}
	}
	if a.Kind == rdf.KindIRI {
		if target == rdf.XSDString {
			return rdf.String(a.Value), nil
		}
		return rdf.Term{}, ErrType
	}
	if a.Datatype == rdf.RDFLangString {
		return rdf.Term{}, ErrType
	}
	src := a.Datatype
	lex := a.Value
	fromString := src == rdf.XSDString
	if fromString {
		lex = strings.TrimSpace(lex) // XSD whitespace facet "collapse" for these types
	}
	n, isNum := toNum(a)
	if _, numType := numericKind(src); numType && !isNum {
		return rdf.Term{}, ErrType // invalid lexical form of a numeric source
	}
	switch target {
	case rdf.XSDString:
		if isNum {
			return rdf.String(canonicalString(n)), nil
		}
		if b, ok := boolValue(a); ok { // canonical boolean form: "0" casts to "false"
			return rdf.String(strconv.FormatBool(b)), nil
		}
		return rdf.String(a.Value), nil
	case rdf.XSDBoolean:
		switch {
		case fromString || src == rdf.XSDBoolean:
			switch lex {
			case "true", "1":
				return Boolean(true), nil
			case "false", "0":
				return Boolean(false), nil
			}
		case isNum:
			if n.kind >= kFloat {
				return Boolean(n.f != 0 && !math.IsNaN(n.f)), nil
			}
			return Boolean(n.r.Sign() != 0), nil
		}
	case rdf.XSDInteger:
		switch {
		case fromString && validInteger(lex):
			r, _ := new(big.Rat).SetString(lex)
			return num{kind: kInteger, r: r}.term(), nil
		case src == rdf.XSDBoolean:
			if b, ok := boolValue(a); ok {
				return Integer(int64(b2i(b))), nil
			}
		case isNum:
			if n.kind >= kFloat {
				if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
					return rdf.Term{}, ErrType
				}
				if t := math.Trunc(n.f); math.Abs(t) < 1<<63 { // exact in an int64
					return Integer(int64(t)), nil
				}
				r := new(big.Rat)
				r.SetFloat64(math.Trunc(n.f))
				return num{kind: kInteger, r: r}.term(), nil
			}
			q := new(big.Int).Quo(n.r.Num(), n.r.Denom()) // truncates toward zero
			return num{kind: kInteger, r: new(big.Rat).SetInt(q)}.term(), nil
		}
	case rdf.XSDDecimal:
		switch {
		case fromString && validDecimal(lex):
			r, _ := new(big.Rat).SetString(lex)
			return num{kind: kDecimal, r: r}.term(), nil
		case src == rdf.XSDBoolean:
			if b, ok := boolValue(a); ok {
				return rdf.Literal([]string{"0", "1"}[b2i(b)], rdf.XSDDecimal), nil
			}
		case isNum:
			if n.kind >= kFloat {
				if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
					return rdf.Term{}, ErrType
				}
				if f, ok := exactFixed(n.f); ok {
					return f.term(), nil
				}
				r := new(big.Rat)
				r.SetFloat64(n.f)
				return num{kind: kDecimal, r: r}.term(), nil
			}
			return num{kind: kDecimal, r: n.r}.term(), nil
		}
	case xsdFloat, rdf.XSDDouble:
		k := kDouble
		if target == xsdFloat {
			k = kFloat
		}
		switch {
		case fromString:
			if f, ok := parseDouble(lex); ok {
				return num{kind: kDouble, f: f}.to(k).term(), nil
			}
		case src == rdf.XSDBoolean:
			if b, ok := boolValue(a); ok {
				return num{kind: k, f: float64(b2i(b))}.term(), nil
			}
		case isNum:
			return n.to(k).term(), nil
		}
	case xsdDT:
		if fromString || src == xsdDT {
			if _, ok := parseDateTimeLex(lex, false); ok {
				return rdf.Literal(lex, xsdDT), nil
			}
		}
	case xsdDate:
		switch {
		case fromString || src == xsdDate:
			if _, ok := parseDateTimeLex(lex, true); ok {
				return rdf.Literal(lex, xsdDate), nil
			}
		case src == xsdDT:
			if d, ok := parseDateTimeLex(lex, false); ok {
				return rdf.Literal(dateOfDateTime(lex, d), xsdDate), nil
			}
		}
	}
	return rdf.Term{}, ErrType
}

// dateOfDateTime is the lexical form of xs:date(dt) for a valid dateTime lexical form lex read as d: its date
// part and its timezone as written (XPath §19.1.5 keeps the timezone and does not normalise to UTC). Cut from the
// lexical form, so years beyond four digits keep their digits; only 24:00:00, which is the next day's midnight,
// needs the calendar.
func dateOfDateTime(lex string, d dateTime) string {
	datePart, timePart, _ := strings.Cut(lex, "T")
	zone := ""
	if d.hasTZ {
		if strings.HasSuffix(lex, "Z") {
			zone = "Z"
		} else {
			zone = lex[len(lex)-6:]
		}
	}
	if !strings.HasPrefix(timePart, "24") {
		return datePart + zone
	}
	local := d.t // the instant in UTC when zoned; the wall-clock reading otherwise
	if d.hasTZ {
		local = local.Add(time.Duration(d.tzMin) * time.Minute)
	}
	y := local.Year()
	sign := ""
	if y < 0 {
		sign, y = "-", -y
	}
	return fmt.Sprintf("%s%04d-%02d-%02d%s", sign, y, int(local.Month()), local.Day(), zone)
}

// canonicalString is the xsd:string cast of a number: its canonical lexical form (integers and decimals
// without exponent; doubles in XPath's casting form, which uses plain notation for moderate magnitudes).
func canonicalString(n num) string {
	switch n.kind {
	case kInteger:
		return n.r.Num().String()
	case kDecimal:
		return formatDecimal(n.r)
	}
	bits := 64
	if n.kind == kFloat {
		bits = 32
	}
	if abs := math.Abs(n.f); abs >= 1e-6 && abs < 1e6 || n.f == 0 {
		return strconv.FormatFloat(n.f, 'f', -1, bits)
	}
	return formatDouble(n.f, bits)
}

// exactFixed is the exact decimal value of a finite double when it fits the fixed form: the double is m·2^e, which
// is m·5^-e / 10^-e for e < 0, so whenever that numerator fits an int64 and -e is at most 18 places the value is
// exactly what big.Rat.SetFloat64 and an 18-place print give, without big numbers (0.25, 1.75, 12.5, whole values).
func exactFixed(x float64) (fixed, bool) {
	frac, exp := math.Frexp(x) // x = frac · 2^exp, 0.5 ≤ |frac| < 1
	m := int64(frac * (1 << 53))
	e := exp - 53
	for m != 0 && m%2 == 0 && e < 0 {
		m /= 2
		e++
	}
	switch {
	case m == 0:
		return fixed{dec: true}, true
	case e >= 0:
		if e > 62 || absU(m) > math.MaxInt64>>uint(e) {
			return fixed{}, false
		}
		return fixed{v: m << uint(e), dec: true}, true
	case -e > maxScale:
		return fixed{}, false
	}
	p := int64(1)
	for range -e {
		p *= 5
	}
	if absU(m) > math.MaxInt64/uint64(p) {
		return fixed{}, false
	}
	return fixed{v: m * p, scale: -e, dec: true}, true
}
