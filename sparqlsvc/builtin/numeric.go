// Package builtin implements the operators and functions of SPARQL 1.1 §17 over rdf.Term values: effective boolean
// value, comparisons with XPath value semantics and numeric type promotion (xsd:decimal arithmetic is exact), the
// string, numeric, date-time, hash and constructor functions, casts, and the total order of ORDER BY. The
// evaluator calls it; it knows nothing about solutions or graphs.
package builtin

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// ErrType is the SPARQL expression error (§17.3): a FILTER treats it as false, BIND leaves the variable unbound.
var ErrType = errors.New("sparql: type error")

const (
	xsd        = rdf.XSDNS
	xsdFloat   = xsd + "float"
	xsdDate    = xsd + "date"
	xsdTime    = xsd + "time"
	xsdDT      = xsd + "dateTime"
	xsdDayTime = xsd + "dayTimeDuration"
)

// numKind orders the numeric types by XPath promotion: integer < decimal < float < double.
type numKind int

const (
	kInteger numKind = iota
	kDecimal
	kFloat
	kDouble
)

// integerTypes are the XSD types derived from xsd:integer; they promote to xsd:integer in arithmetic.
var integerTypes = map[string]bool{
	xsd + "integer": true, xsd + "nonPositiveInteger": true, xsd + "negativeInteger": true, xsd + "long": true,
	xsd + "int": true, xsd + "short": true, xsd + "byte": true, xsd + "nonNegativeInteger": true,
	xsd + "unsignedLong": true, xsd + "unsignedInt": true, xsd + "unsignedShort": true, xsd + "unsignedByte": true,
	xsd + "positiveInteger": true,
}

// num is a numeric value: exact (r) for integer and decimal, f for float and double.
type num struct {
	kind numKind
	r    *big.Rat
	f    float64
}

// IsNumeric reports whether t is a literal of a numeric datatype with a valid lexical form.
func IsNumeric(t rdf.Term) bool {
	_, ok := toNum(t)
	return ok
}

func numericKind(dt string) (numKind, bool) {
	switch dt { // the common types before the map, whose lookup hashes the whole IRI
	case rdf.XSDInteger:
		return kInteger, true
	case rdf.XSDDecimal:
		return kDecimal, true
	case xsdFloat:
		return kFloat, true
	case rdf.XSDDouble:
		return kDouble, true
	case rdf.XSDString, rdf.RDFLangString:
		return 0, false
	}
	if integerTypes[dt] {
		return kInteger, true
	}
	return 0, false
}

func toNum(t rdf.Term) (num, bool) {
	if t.Kind != rdf.KindLiteral {
		return num{}, false
	}
	k, ok := numericKind(t.Datatype)
	if !ok {
		return num{}, false
	}
	s := t.Value
	switch k {
	case kInteger:
		if !validInteger(s) || !integerInRange(t.Datatype, s) {
			return num{}, false
		}
		r, ok := new(big.Rat).SetString(s)
		return num{kind: k, r: r}, ok
	case kDecimal:
		if !validDecimal(s) {
			return num{}, false
		}
		r, ok := new(big.Rat).SetString(s)
		return num{kind: k, r: r}, ok
	}
	f, ok := parseDouble(s)
	if k == kFloat {
		f = float64(float32(f))
	}
	return num{kind: k, f: f}, ok
}

// toNumFloat is toNum of t when it meets other in arithmetic: when other is a float or double, t is promoted to
// that type anyway, so a fixed t is read straight into a float64 (the same nearest double big.Rat.Float64 gives)
// instead of into a big.Rat that promote would convert at once.
func toNumFloat(t, other rdf.Term) (num, bool) {
	if k, ok := numericKind(other.Datatype); ok && k >= kFloat && other.Kind == rdf.KindLiteral {
		if f, ok := toFixed(t); ok {
			if x, ok := f.float(); ok {
				return num{kind: kDouble, f: x}.to(k), true
			}
		}
	}
	return toNum(t)
}

func validInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return digits(s)
}

func validDecimal(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	w, f, dot := strings.Cut(s, ".")
	if !dot {
		return digits(w)
	}
	return (w == "" || digits(w)) && (f == "" || digits(f)) && (w != "" || f != "")
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// integerInRange checks the value space of the derived integer types.
func integerInRange(dt, s string) bool {
	neg := strings.HasPrefix(s, "-")
	zero := strings.Trim(strings.TrimLeft(s, "+-"), "0") == ""
	switch dt[len(xsd):] {
	case "nonPositiveInteger":
		return neg || zero
	case "negativeInteger":
		return neg && !zero
	case "nonNegativeInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte":
		if neg && !zero {
			return false
		}
	case "positiveInteger":
		return !neg && !zero
	}
	var bits int
	switch dt[len(xsd):] {
	case "long":
		bits = 64
	case "int":
		bits = 32
	case "short":
		bits = 16
	case "byte":
		bits = 8
	case "unsignedLong":
		_, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 64)
		return err == nil || zero
	case "unsignedInt":
		_, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 32)
		return err == nil || zero
	case "unsignedShort":
		_, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 16)
		return err == nil || zero
	case "unsignedByte":
		_, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 8)
		return err == nil || zero
	default:
		return true
	}
	_, err := strconv.ParseInt(s, 10, bits)
	return err == nil
}

// parseDouble reads the xsd:double lexical space (INF, -INF, NaN, no hex, no underscores).
func parseDouble(s string) (float64, bool) {
	switch s {
	case "INF", "+INF":
		return math.Inf(1), true
	case "-INF":
		return math.Inf(-1), true
	case "NaN":
		return math.NaN(), true
	}
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	m := s
	if e := strings.IndexAny(s, "eE"); e >= 0 {
		m = s[:e]
		if !validInteger(s[e+1:]) {
			return 0, false
		}
	}
	if !validDecimal(m) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

func (n num) float() float64 {
	if n.kind >= kFloat {
		return n.f
	}
	f, _ := n.r.Float64()
	return f
}

// promote brings a and b to their common type.
func promote(a, b num) (num, num) {
	k := max(a.kind, b.kind)
	return a.to(k), b.to(k)
}

func (n num) to(k numKind) num {
	if n.kind == k {
		return n
	}
	switch k {
	case kDecimal:
		return num{kind: kDecimal, r: n.r}
	case kFloat:
		return num{kind: kFloat, f: float64(float32(n.float()))}
	}
	return num{kind: kDouble, f: n.float()}
}

func (n num) term() rdf.Term {
	switch n.kind {
	case kInteger:
		return rdf.Literal(n.r.Num().String(), rdf.XSDInteger)
	case kDecimal:
		return rdf.Literal(formatDecimal(n.r), rdf.XSDDecimal)
	case kFloat:
		return rdf.Literal(formatDouble(n.f, 32), xsdFloat)
	}
	return rdf.Literal(formatDouble(n.f, 64), rdf.XSDDouble)
}

// DecimalPlaces bounds the digits of an inexact decimal quotient (XPath leaves the precision to the
// implementation; 18 fractional digits match Oxigraph's fixed-point decimals).
const DecimalPlaces = 18

// formatDecimal writes the XSD 1.1 canonical decimal form: no trailing fractional zeros, no ".0" for whole values.
func formatDecimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(DecimalPlaces)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// formatDouble writes a double in the shortest form that reads back exactly: plain decimal notation for
// magnitudes people read as numbers ("6", "1050", "0.2", the form Oxigraph and the W3C expected results use),
// scientific notation outside that range ("1.0E21"). Both are in the xsd:double lexical space.
func formatDouble(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	if abs := math.Abs(f); abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	s := strconv.FormatFloat(f, 'E', -1, bits)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// Arith applies + - * / with XPath numeric promotion. Division of integers yields a decimal; division by zero is
// an error for exact types and ±INF/NaN for floating types.
func Arith(op byte, a, b rdf.Term) (rdf.Term, error) {
	if x, ok := toWide(a); ok {
		if y, ok := toWide(b); ok {
			if fx, ok := x.fixed(); ok {
				if fy, ok := y.fixed(); ok {
					if t, ok, err := fx.arith(op, fy); ok {
						return t, err
					}
				}
			}
			if t, ok, err := x.arith(op, y); ok {
				return t, err
			}
		}
	}
	return arithBig(op, a, b)
}

// arithBig is Arith in big numbers, for values the fixed form cannot hold.
func arithBig(op byte, a, b rdf.Term) (rdf.Term, error) {
	x, ok1 := toNumFloat(a, b)
	y, ok2 := toNumFloat(b, a)
	if !ok1 || !ok2 {
		return rdf.Term{}, ErrType
	}
	x, y = promote(x, y)
	if x.kind >= kFloat {
		var f float64
		switch op {
		case '+':
			f = x.f + y.f
		case '-':
			f = x.f - y.f
		case '*':
			f = x.f * y.f
		case '/':
			f = x.f / y.f
		}
		if x.kind == kFloat {
			f = float64(float32(f))
		}
		return num{kind: x.kind, f: f}.term(), nil
	}
	r := new(big.Rat)
	k := x.kind
	switch op {
	case '+':
		r.Add(x.r, y.r)
	case '-':
		r.Sub(x.r, y.r)
	case '*':
		r.Mul(x.r, y.r)
	case '/':
		if y.r.Sign() == 0 {
			return rdf.Term{}, ErrType
		}
		r.Quo(x.r, y.r)
		k = kDecimal
		if !r.IsInt() && !finiteDecimal(r) {
			// Cut to the decimal precision (toward zero, as Oxigraph's fixed-point decimals do) so later
			// arithmetic works on the value that was printed.
			r = truncDecimal(r)
		}
	}
	return num{kind: k, r: r}.term(), nil
}

// truncDecimal cuts r to DecimalPlaces fractional digits, toward zero.
func truncDecimal(r *big.Rat) *big.Rat {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(DecimalPlaces), nil)
	n := new(big.Int).Mul(r.Num(), scale)
	n.Quo(n, r.Denom())
	return new(big.Rat).SetFrac(n, scale)
}

// finiteDecimal reports whether r has a terminating decimal expansion within DecimalPlaces digits.
func finiteDecimal(r *big.Rat) bool {
	d := new(big.Int).Set(r.Denom())
	two, five := big.NewInt(2), big.NewInt(5)
	places := 0
	m := new(big.Int)
	for _, p := range []*big.Int{two, five} {
		n := 0
		for {
			q, rem := new(big.Int).QuoRem(d, p, m)
			if rem.Sign() != 0 {
				break
			}
			d = q
			n++
		}
		places = max(places, n)
	}
	return d.Cmp(big.NewInt(1)) == 0 && places <= DecimalPlaces
}

// Negate returns -a; Plus returns +a (both keep the numeric type).
func Negate(a rdf.Term) (rdf.Term, error) {
	x, ok := toNum(a)
	if !ok {
		return rdf.Term{}, ErrType
	}
	if x.kind >= kFloat {
		x.f = -x.f
	} else {
		x.r = new(big.Rat).Neg(x.r)
	}
	return x.term(), nil
}

// Plus returns a as a numeric term in canonical form.
func Plus(a rdf.Term) (rdf.Term, error) {
	x, ok := toNum(a)
	if !ok {
		return rdf.Term{}, ErrType
	}
	return x.term(), nil
}

// cmpNum compares two numerics; ok is false when either is NaN (no order).
func cmpNum(a, b num) (int, bool) {
	a, b = promote(a, b)
	if a.kind >= kFloat {
		switch {
		case math.IsNaN(a.f) || math.IsNaN(b.f):
			return 0, false
		case a.f < b.f:
			return -1, true
		case a.f > b.f:
			return 1, true
		}
		return 0, true
	}
	return a.r.Cmp(b.r), true
}

// Integer returns an xsd:integer term.
func Integer(n int64) rdf.Term { return rdf.Literal(strconv.FormatInt(n, 10), rdf.XSDInteger) }

// Boolean returns an xsd:boolean term.
func Boolean(b bool) rdf.Term { return rdf.Literal(strconv.FormatBool(b), rdf.XSDBoolean) }

// Sum accumulates numeric values for SUM and AVG without turning the running total back into a term on every
// step. The zero Sum is an empty xsd:integer sum.
type Sum struct {
	acc   num
	n     int64
	valid bool
	// fx holds the total while every value so far fit fixed (isFixed); the first that does not moves it to acc.
	fx      fixed
	isFixed bool
}

// Add adds a numeric term; a non-numeric term is an error (SUM and AVG then have no value).
func (s *Sum) Add(t rdf.Term) error {
	if f, ok := toFixed(t); ok && s.addFixed(f) {
		return nil
	}
	if s.isFixed { // a value that does not fit: the total continues in big numbers
		s.acc, s.isFixed = s.fx.num(), false
	}
	x, ok := toNum(t)
	if !ok {
		return ErrType
	}
	if !s.valid {
		s.acc = num{kind: kInteger, r: new(big.Rat)}
		s.valid = true
	}
	a, b := promote(s.acc, x)
	if a.kind >= kFloat {
		a.f += b.f
		if a.kind == kFloat {
			a.f = float64(float32(a.f))
		}
	} else {
		if a.r == s.acc.r { // promote may share the accumulator's Rat; Add into a fresh one only when it does not
			a.r.Add(a.r, b.r)
		} else {
			a.r = new(big.Rat).Add(a.r, b.r)
		}
	}
	s.acc = a
	s.n++
	return nil
}

// AddNumber adds the xsd:integer (dec false) or xsd:decimal v / 10^scale as Add adds its term, and reports whether
// it could without the term: false when the total has left the int64 form or would leave it, and the caller adds
// the term instead. A value held in its id (index.InlineNumber) then needs no term: AVG(?price) over 580 000 offers
// spent a quarter of its time writing each price's lexical form and reading it back.
func (s *Sum) AddNumber(v int64, scale int, dec bool) bool {
	if scale < 0 || scale > maxScale {
		return false
	}
	for scale > 0 && v%10 == 0 { // as toFixed reads the form: trailing fractional zeros dropped
		v /= 10
		scale--
	}
	return s.addFixed(fixed{v: v, scale: scale, dec: dec})
}

// AddNumberN adds n copies of the xsd:integer (dec false) or xsd:decimal v / 10^scale, as n calls of AddNumber
// would, and reports whether it could: false (s unchanged) when the total would leave the int64 form, and the caller
// adds them one by one. A run of n rows of one value (a GROUP BY read in runs) then costs one addition, not n. The
// additions are of one sign, so when the total v*n and the final sum fit, every partial sum did.
func (s *Sum) AddNumberN(v int64, scale int, dec bool, n int64) bool {
	if n < 1 || scale < 0 || scale > maxScale {
		return false
	}
	for scale > 0 && v%10 == 0 {
		v /= 10
		scale--
	}
	t := v * n
	if t/n != v { // overflow (n >= 1)
		return false
	}
	was := s.n
	if !s.addFixed(fixed{v: t, scale: scale, dec: dec}) {
		return false
	}
	s.n = was + n
	return true
}

// addFixed adds f while the total is held in an int64 and stays so; false leaves s as it was.
func (s *Sum) addFixed(f fixed) bool {
	if !s.valid {
		s.fx, s.isFixed, s.valid = f, true, true
		s.n++
		return true
	}
	if !s.isFixed {
		return false
	}
	if x, y, scale, ok := align(s.fx, f); ok {
		if sum := x + y; !(x > 0 && y > 0 && sum < 0) && !(x < 0 && y < 0 && sum >= 0) {
			s.fx = fixed{v: sum, scale: scale, dec: s.fx.dec || f.dec}
			s.n++
			return true
		}
	}
	return false
}

// Exact reports whether the total is an xsd:integer or xsd:decimal, held exactly: such totals may be added in any
// order (Merge). A float or double total depends on the order of its additions.
func (s *Sum) Exact() bool { return !s.valid || s.isFixed || s.acc.kind < kFloat }

// Merge adds o's values to s, giving the total and count Add gives when o's values are added after s's own. Both
// must be Exact; false (s unchanged) otherwise.
func (s *Sum) Merge(o *Sum) bool {
	if !s.Exact() || !o.Exact() {
		return false
	}
	switch {
	case !o.valid:
		return true
	case !s.valid:
		*s = *o
		if !o.isFixed {
			s.acc.r = new(big.Rat).Set(o.acc.r)
		}
		return true
	case s.isFixed && o.isFixed:
		if x, y, scale, ok := align(s.fx, o.fx); ok {
			if sum := x + y; !(x > 0 && y > 0 && sum < 0) && !(x < 0 && y < 0 && sum >= 0) {
				s.fx = fixed{v: sum, scale: scale, dec: s.fx.dec || o.fx.dec}
				s.n += o.n
				return true
			}
		}
	}
	a, b := s.acc, o.acc
	if s.isFixed {
		a = s.fx.num()
	}
	if o.isFixed {
		b = o.fx.num()
	}
	a, b = promote(a, b)
	s.acc, s.isFixed = num{kind: a.kind, r: new(big.Rat).Add(a.r, b.r)}, false
	s.n += o.n
	return true
}

// Total returns the sum (0 for no values).
func (s *Sum) Total() rdf.Term {
	if !s.valid {
		return Integer(0)
	}
	if s.isFixed {
		return s.fx.term()
	}
	return s.acc.term()
}

// Average returns the mean (0 for no values), dividing as the / operator does.
func (s *Sum) Average() (rdf.Term, error) {
	if s.n == 0 {
		return Integer(0), nil
	}
	return Arith('/', s.Total(), Integer(s.n))
}
