package builtin

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/ldhub/ldhub/content/rdf"
)

// fixed is an xsd:integer or xsd:decimal value v / 10^scale held in an int64, the form nearly every number in
// published data fits (prices, counts, measures). Arithmetic, comparison, rounding and sums use it first and turn
// to big.Rat (num) only when an operand or a result does not fit, so answers stay exact either way: the results
// are the same digits the big path prints. Derived integer types (xsd:byte, …) keep the big path, which checks
// their ranges.
type fixed struct {
	v     int64
	scale int  // fractional digits, 0..maxScale
	dec   bool // xsd:decimal (else xsd:integer)
}

const maxScale = DecimalPlaces // 18: 10^18 still fits an int64

var pow10 = func() (p [maxScale + 1]int64) {
	p[0] = 1
	for i := 1; i <= maxScale; i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// toFixed reads an xsd:integer or xsd:decimal literal whose value fits; ok is false for anything else, including
// invalid lexical forms (the big path then reports them). It is toWide's reading kept to an int64 and 18 places.
func toFixed(t rdf.Term) (fixed, bool) {
	w, ok := toWide(t)
	if !ok {
		return fixed{}, false
	}
	return w.fixed()
}

// fixed is w in fixed form; ok is false when it does not fit.
func (w wide) fixed() (fixed, bool) {
	if w.hi != 0 || w.lo > math.MaxInt64 || w.scale > maxScale {
		return fixed{}, false
	}
	f := fixed{v: int64(w.lo), scale: w.scale, dec: w.dec}
	if w.neg {
		f.v = -f.v
	}
	return f, true
}

// term writes the canonical form, as num.term does: an integer's digits; a decimal without trailing fractional
// zeros and without a fraction when whole.
func (f fixed) term() rdf.Term {
	if !f.dec {
		return rdf.Literal(strconv.FormatInt(f.v, 10), rdf.XSDInteger)
	}
	f = f.normal()
	if f.scale == 0 {
		return rdf.Literal(strconv.FormatInt(f.v, 10), rdf.XSDDecimal)
	}
	u := uint64(f.v)
	if f.v < 0 {
		u = uint64(-f.v)
	}
	var buf [24]byte
	digits := strconv.AppendUint(buf[:0], u, 10)
	out := make([]byte, 0, len(digits)+f.scale+3)
	if f.v < 0 {
		out = append(out, '-')
	}
	if len(digits) <= f.scale {
		out = append(out, '0', '.')
		for i := len(digits); i < f.scale; i++ {
			out = append(out, '0')
		}
		out = append(out, digits...)
	} else {
		out = append(out, digits[:len(digits)-f.scale]...)
		out = append(out, '.')
		out = append(out, digits[len(digits)-f.scale:]...)
	}
	return rdf.Literal(string(out), rdf.XSDDecimal)
}

// normal drops trailing fractional zeros.
func (f fixed) normal() fixed {
	for f.scale > 0 && f.v%10 == 0 {
		f.v /= 10
		f.scale--
	}
	return f
}

// rescale returns v with scale s ≥ f.scale, false on overflow.
func (f fixed) rescale(s int) (int64, bool) {
	if s == f.scale {
		return f.v, true
	}
	m := pow10[s-f.scale]
	if f.v > math.MaxInt64/m || f.v < -math.MaxInt64/m {
		return 0, false
	}
	return f.v * m, true
}

func align(a, b fixed) (x, y int64, scale int, ok bool) {
	scale = max(a.scale, b.scale)
	if x, ok = a.rescale(scale); !ok {
		return
	}
	y, ok = b.rescale(scale)
	return
}

func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// arith is Arith on two fixed values; ok is false when the result needs the big path.
func (a fixed) arith(op byte, b fixed) (rdf.Term, bool, error) {
	if op != '/' {
		r, ok := a.arithExact(op, b)
		if !ok {
			return rdf.Term{}, false, nil
		}
		return r.term(), true, nil
	}
	if b.v == 0 {
		return rdf.Term{}, true, ErrType
	}
	qhi, qlo, neg, ok := a.quo(b)
	if !ok {
		return rdf.Term{}, false, nil
	}
	return decimal128(qhi, qlo, maxScale, neg), true, nil
}

// quo is the quotient a / b (b ≠ 0) to 18 places, toward zero (exact when it terminates there, as the big path's):
// |a|·10^(18+b.scale−a.scale) / |b|, in 128 bits, so that quotients of any size print without big numbers. ok is
// false when rescaling a overflows.
func (a fixed) quo(b fixed) (qhi, qlo uint64, neg, ok bool) {
	if b.scale > a.scale {
		v, ok := a.rescale(b.scale)
		if !ok {
			return 0, 0, false, false
		}
		a = fixed{v: v, scale: b.scale, dec: a.dec}
	}
	hi, lo := bits.Mul64(absU(a.v), uint64(pow10[maxScale+b.scale-a.scale]))
	qhi, qlo, _ = divSmall(hi, lo, absU(b.v))
	return qhi, qlo, (a.v < 0) != (b.v < 0) && (qhi != 0 || qlo != 0), true
}

// arithExact is + - or * on two fixed values, its result in fixed form (not normalised for + and -); ok is false
// for any other operator and when the result does not fit.
func (a fixed) arithExact(op byte, b fixed) (fixed, bool) {
	dec := a.dec || b.dec
	switch op {
	case '+', '-':
		x, y, scale, ok := align(a, b)
		if !ok {
			return fixed{}, false
		}
		if op == '-' {
			if y == math.MinInt64 {
				return fixed{}, false
			}
			y = -y
		}
		s := x + y
		if (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0) {
			return fixed{}, false
		}
		return fixed{v: s, scale: scale, dec: dec}, true
	case '*':
		hi, lo := bits.Mul64(absU(a.v), absU(b.v))
		if hi != 0 || lo > math.MaxInt64 {
			return fixed{}, false
		}
		r := fixed{v: int64(lo), scale: a.scale + b.scale, dec: dec}
		if (a.v < 0) != (b.v < 0) {
			r.v = -r.v
		}
		if r = r.normal(); r.scale > maxScale {
			return fixed{}, false
		}
		return r, true
	}
	return fixed{}, false
}

// decimal128 writes the xsd:decimal (hi·2^64+lo) / 10^scale, negated when neg, in canonical form.
func decimal128(hi, lo uint64, scale int, neg bool) rdf.Term {
	for scale > 0 { // trailing fractional zeros
		qh, rh := hi/10, hi%10
		ql, rem := bits.Div64(rh, lo, 10)
		if rem != 0 {
			break
		}
		hi, lo, scale = qh, ql, scale-1
	}
	if hi == 0 && lo <= math.MaxInt64 {
		f := fixed{v: int64(lo), scale: scale, dec: true}
		if neg {
			f.v = -f.v
		}
		return f.term()
	}
	// The digits right to left in a buffer on the stack (at most 39 of them, a sign and a point), chunks of 18
	// taken off the 128 bits by 64-bit divisions; the term's string is the one allocation.
	var buf [48]byte
	i, n := len(buf), 0 // n: digits written
	for {
		var c uint64
		hi, lo, c = divSmall(hi, lo, uint64(pow10[18]))
		last := hi == 0 && lo == 0
		for range 18 {
			if last && c == 0 && n > scale { // no digit left but leading zeros
				break
			}
			if n == scale && n > 0 {
				i--
				buf[i] = '.'
			}
			i--
			buf[i] = byte('0' + c%10)
			c /= 10
			n++
		}
		if last && n > scale {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return rdf.Literal(string(buf[i:]), rdf.XSDDecimal)
}

// float is the double nearest to f (one correctly rounded division of two exact doubles); ok is false when v
// has more than 53 bits, where float64(v) would round first.
func (f fixed) float() (float64, bool) {
	if f.v > 1<<53 || f.v < -(1<<53) {
		return 0, false
	}
	return float64(f.v) / float64(pow10[f.scale]), true
}

// cmp compares two fixed values; ok is false when aligning them overflows.
func (a fixed) cmp(b fixed) (int, bool) {
	x, y, _, ok := align(a, b)
	if !ok {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

// round is ABS, CEIL, FLOOR and ROUND (halves toward positive infinity, fn:round) on a fixed value.
func (a fixed) round(name string) (rdf.Term, bool) {
	r, ok := a.roundExact(name)
	if !ok {
		return rdf.Term{}, false
	}
	return r.term(), true
}

// roundExact is round's value in fixed form.
func (a fixed) roundExact(name string) (fixed, bool) {
	if name == "ABS" {
		if a.v < 0 {
			if a.v == math.MinInt64 {
				return fixed{}, false
			}
			a.v = -a.v
		}
		return a, true
	}
	if a.scale == 0 {
		return a, true
	}
	p := pow10[a.scale]
	v := a.v
	if name == "ROUND" {
		half := p / 2
		if v > math.MaxInt64-half {
			return fixed{}, false
		}
		v += half
	}
	q, r := v/p, v%p
	switch {
	case name == "CEIL" && r > 0:
		q++
	case name != "CEIL" && r < 0:
		q--
	}
	return fixed{v: q, dec: a.dec}, true
}

// num is the value in the big path's form.
func (a fixed) num() num {
	k := kInteger
	if a.dec {
		k = kDecimal
	}
	return num{kind: k, r: big.NewRat(a.v, pow10[a.scale])}
}

// Number is an xsd:integer or xsd:decimal V / 10^Scale held in an int64 (Scale 0..DecimalPlaces; Dec: an
// xsd:decimal). An evaluator whose operands are numbers held in their ids computes a BIND or an aggregate's
// expression in this form, without writing each operand's lexical form and parsing it back (NumberArith,
// NumberRound); the results are exactly Arith's and the rounding functions', whose terms Term writes.
type Number struct {
	V     int64
	Scale int
	Dec   bool
}

func (n Number) fixed() fixed { return fixed{v: n.V, scale: n.Scale, dec: n.Dec} }

func (f fixed) number() Number { return Number{V: f.v, Scale: f.scale, Dec: f.dec} }

// NumberOf reads an xsd:integer or xsd:decimal literal as Arith reads its operands; ok is false for any other term
// and for values that do not fit.
func NumberOf(t rdf.Term) (Number, bool) {
	f, ok := toFixed(t)
	return f.number(), ok
}

// NumberArith is Arith on two numbers; ok is false when the result does not fit, and for a division by zero,
// where Arith on their terms gives the answer (or the error). A quotient fits when its 18 places, without their
// trailing zeros, do (GROUP BY (FLOOR(?price / 1000) AS ?band) made a quotient's term per row and parsed it back).
func NumberArith(op byte, a, b Number) (Number, bool) {
	if a.Scale < 0 || a.Scale > maxScale || b.Scale < 0 || b.Scale > maxScale {
		return Number{}, false
	}
	if op == '/' {
		if b.V == 0 {
			return Number{}, false
		}
		qhi, qlo, neg, ok := a.fixed().quo(b.fixed())
		if !ok {
			return Number{}, false
		}
		w := wide{hi: qhi, lo: qlo, neg: neg, scale: maxScale, dec: true}.normal()
		f, ok := w.fixed()
		return f.number(), ok
	}
	r, ok := a.fixed().arithExact(op, b.fixed())
	return r.number(), ok
}

// NumberRound is ABS, CEIL, FLOOR or ROUND of a number; ok is false where the function on its term must decide.
func NumberRound(name string, a Number) (Number, bool) {
	if a.Scale < 0 || a.Scale > maxScale {
		return Number{}, false
	}
	switch name {
	case "ABS", "CEIL", "FLOOR", "ROUND":
		r, ok := a.fixed().roundExact(name)
		return r.number(), ok
	}
	return Number{}, false
}

// NumberCast is xsd:integer or xsd:decimal of a number, as Cast computes it: an integer is the value truncated toward
// zero, a decimal the same value; ok is false for other targets.
func NumberCast(target string, a Number) (Number, bool) {
	if a.Scale < 0 || a.Scale > maxScale {
		return Number{}, false
	}
	switch target {
	case rdf.XSDInteger:
		return fixed{v: a.V / pow10[a.Scale]}.number(), true
	case rdf.XSDDecimal:
		a.Dec = true
		return a, true
	}
	return Number{}, false
}

// Normal is n without trailing fractional zeros: the digits its term has.
func (n Number) Normal() Number { return n.fixed().normal().number() }

// Term is n's canonical term, as Arith and the rounding functions write their results.
func (n Number) Term() rdf.Term { return n.fixed().term() }
