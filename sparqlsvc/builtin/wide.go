package builtin

import (
	"math/big"
	"math/bits"

	"github.com/ldhub/ldhub/content/rdf"
)

// wide is an xsd:integer or xsd:decimal ±(hi·2^64+lo) / 10^scale: the exact numbers fixed's int64 cannot hold but
// 128 bits can. Above all these are quotients: a division or an AVG prints 18 places, so any quotient of 10 or more
// (an average price, 1234.567890123456789012) has 20 digits or more, and every later operation on it (price − avg,
// 0.5 · avg, ABS, ROUND, a comparison) used to parse it into a big.Rat, normalise it (a GCD) and print it back
// through FloatString. wide gives the same digits as the big path without any of that; ok is false wherever the
// big path must decide (a divisor past 64 bits, 128 bits not enough), so answers stay exact either way.
type wide struct {
	hi, lo uint64
	neg    bool // never set on zero
	scale  int  // fractional digits, 0..maxWideScale
	dec    bool // xsd:decimal (else xsd:integer)
}

// maxWideScale bounds the fractional digits wide holds (the product of two 18-place values has 36).
const maxWideScale = 38

func (w wide) zero() bool { return w.hi == 0 && w.lo == 0 }

// mulSmall returns (hi, lo)·m, false on overflow past 128 bits.
func mulSmall(hi, lo, m uint64) (uint64, uint64, bool) {
	h1, l1 := bits.Mul64(lo, m)
	h2, l2 := bits.Mul64(hi, m)
	if h2 != 0 {
		return 0, 0, false
	}
	h, c := bits.Add64(h1, l2, 0)
	return h, l1, c == 0
}

// divSmall returns (hi, lo) / d and the remainder (d > 0).
func divSmall(hi, lo, d uint64) (qhi, qlo, rem uint64) {
	qhi, r := hi/d, hi%d
	qlo, rem = bits.Div64(r, lo, d)
	return
}

// toWide reads an xsd:integer or xsd:decimal literal as toFixed does, into 128 bits; ok is false for anything else,
// invalid lexical forms included.
func toWide(t rdf.Term) (wide, bool) {
	if t.Kind != rdf.KindLiteral {
		return wide{}, false
	}
	var w wide
	switch t.Datatype {
	case rdf.XSDInteger:
	case rdf.XSDDecimal:
		w.dec = true
	default:
		return wide{}, false
	}
	s := t.Value
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	// Digits gather in acc, 18 at a time, before they meet the 128 bits (one multiplication per 18 digits).
	n, dot, zeros := 0, false, 0
	var acc uint64
	accN := 0
	flush := func() bool {
		h, l, ok := mulSmall(w.hi, w.lo, uint64(pow10[accN]))
		if !ok {
			return false
		}
		l, c := bits.Add64(l, acc, 0)
		h, c = bits.Add64(h, 0, c)
		w.hi, w.lo, acc, accN = h, l, 0, 0
		return c == 0
	}
	push := func(d uint64) bool {
		if dot {
			if w.scale == maxWideScale {
				return false
			}
			w.scale++
		}
		if accN == maxScale && !flush() {
			return false
		}
		acc, accN = acc*10+d, accN+1
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' && w.dec && !dot {
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			return wide{}, false
		}
		n++
		if dot && c == '0' { // trailing fractional zeros do not change the value: held until a digit follows
			zeros++
			continue
		}
		for ; zeros > 0; zeros-- {
			if !push(0) {
				return wide{}, false
			}
		}
		if !push(uint64(c - '0')) {
			return wide{}, false
		}
	}
	if n == 0 || !flush() {
		return wide{}, false
	}
	w.neg = neg && !w.zero()
	return w, true
}

// wideOf is f in wide form.
func wideOf(f fixed) wide {
	w := wide{lo: absU(f.v), neg: f.v < 0, scale: f.scale, dec: f.dec}
	return w
}

// normal drops trailing fractional zeros.
func (w wide) normal() wide {
	// The last digit from the words' remainders (2^64 ≡ 6 mod 10; by a constant, so multiplications), so that a
	// value without trailing zeros, most of them, costs no 128-bit division.
	for w.scale > 0 && (w.hi%10*6+w.lo%10)%10 == 0 {
		qh, ql, r := divSmall(w.hi, w.lo, 10)
		if r != 0 {
			break
		}
		w.hi, w.lo, w.scale = qh, ql, w.scale-1
	}
	return w
}

// rescale returns w with scale s ≥ w.scale, false on overflow.
func (w wide) rescale(s int) (wide, bool) {
	for w.scale < s {
		k := min(s-w.scale, maxScale)
		h, l, ok := mulSmall(w.hi, w.lo, uint64(pow10[k]))
		if !ok {
			return wide{}, false
		}
		w.hi, w.lo, w.scale = h, l, w.scale+k
	}
	return w, true
}

// cmpMag compares the magnitudes of two values of the same scale.
func cmpMag(a, b wide) int {
	switch {
	case a.hi != b.hi:
		if a.hi < b.hi {
			return -1
		}
		return 1
	case a.lo != b.lo:
		if a.lo < b.lo {
			return -1
		}
		return 1
	}
	return 0
}

// cmp compares two wide values; ok is false when aligning them overflows.
func (a wide) cmp(b wide) (int, bool) {
	s := max(a.scale, b.scale)
	a, ok1 := a.rescale(s)
	b, ok2 := b.rescale(s)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch {
	case a.neg != b.neg:
		if a.neg {
			return -1, true
		}
		return 1, true
	case a.neg:
		return -cmpMag(a, b), true
	}
	return cmpMag(a, b), true
}

// arithExact is + - or * on two wide values, exact; ok is false for any other operator and when the result does
// not fit.
func (a wide) arithExact(op byte, b wide) (wide, bool) {
	dec := a.dec || b.dec
	switch op {
	case '-':
		b.neg = !b.neg && !b.zero()
		fallthrough
	case '+':
		s := max(a.scale, b.scale)
		a, ok1 := a.rescale(s)
		b, ok2 := b.rescale(s)
		if !ok1 || !ok2 {
			return wide{}, false
		}
		if a.neg == b.neg {
			lo, c := bits.Add64(a.lo, b.lo, 0)
			hi, c := bits.Add64(a.hi, b.hi, c)
			if c != 0 {
				return wide{}, false
			}
			return wide{hi: hi, lo: lo, neg: a.neg, scale: s, dec: dec}, true
		}
		if cmpMag(a, b) < 0 {
			a, b = b, a
		}
		lo, bw := bits.Sub64(a.lo, b.lo, 0)
		hi, _ := bits.Sub64(a.hi, b.hi, bw)
		r := wide{hi: hi, lo: lo, neg: a.neg, scale: s, dec: dec}
		r.neg = r.neg && !r.zero()
		return r, true
	case '*':
		x, y := a, b
		if x.hi != 0 {
			x, y = y, x
		}
		if x.hi != 0 {
			return wide{}, false
		}
		h1, l1 := bits.Mul64(y.lo, x.lo)
		h2, l2 := bits.Mul64(y.hi, x.lo)
		if h2 != 0 {
			return wide{}, false
		}
		hi, c := bits.Add64(h1, l2, 0)
		if c != 0 {
			return wide{}, false
		}
		r := wide{hi: hi, lo: l1, neg: a.neg != b.neg, scale: a.scale + b.scale, dec: dec}
		r.neg = r.neg && !r.zero()
		if r = r.normal(); r.scale > maxWideScale {
			return wide{}, false
		}
		return r, true
	}
	return wide{}, false
}

// quo is a / b as the big path computes it: the exact quotient when it ends within DecimalPlaces places, else cut
// there toward zero, which is |a|·10^(18+b.scale−a.scale) / |b| truncated in both cases. ok is false when the
// quotient needs more than 128 bits.
func (a wide) quo(b wide) (rdf.Term, bool, error) {
	if b.zero() {
		return rdf.Term{}, true, ErrType
	}
	q, ok := a.quoWide(b)
	if !ok {
		return rdf.Term{}, false, nil
	}
	return decimal128(q.hi, q.lo, q.scale, q.neg), true, nil
}

// quoWide is quo's value (b ≠ 0): the quotient with DecimalPlaces places, not normalised; ok is false when it
// needs more than 128 bits.
func (a wide) quoWide(b wide) (wide, bool) {
	s := DecimalPlaces + b.scale // the dividend's scale for a quotient of DecimalPlaces places
	if a.scale > s {
		return wide{}, false
	}
	// The dividend |a|·10^(s−a.scale) in three words, then one division by the divisor's one or two words.
	u2, u1, u0 := uint64(0), a.hi, a.lo
	for k := s - a.scale; k > 0; k -= maxScale {
		var ok bool
		if u2, u1, u0, ok = mul3(u2, u1, u0, uint64(pow10[min(k, maxScale)])); !ok {
			return wide{}, false
		}
	}
	var qh, ql uint64
	if b.hi == 0 {
		q2, r := u2/b.lo, u2%b.lo
		if q2 != 0 {
			return wide{}, false
		}
		qh, r = bits.Div64(r, u1, b.lo)
		ql, _ = bits.Div64(r, u0, b.lo)
	} else {
		qh, ql = div192by128(u2, u1, u0, b.hi, b.lo)
	}
	neg := (a.neg != b.neg) && (qh != 0 || ql != 0)
	return wide{hi: qh, lo: ql, neg: neg, scale: DecimalPlaces, dec: true}, true
}

// mul3 returns (u2, u1, u0)·m, false on overflow past 192 bits.
func mul3(u2, u1, u0, m uint64) (uint64, uint64, uint64, bool) {
	h0, l0 := bits.Mul64(u0, m)
	h1, l1 := bits.Mul64(u1, m)
	h2, l2 := bits.Mul64(u2, m)
	r1, c := bits.Add64(l1, h0, 0)
	r2, c := bits.Add64(l2, h1, c)
	return r2, r1, l0, h2 == 0 && c == 0
}

// div192by128 returns (u2, u1, u0) / (v1, v0) for v1 ≠ 0, a quotient below 2^128: long division in base 2^64 with
// the divisor shifted until its top bit is set, so that each estimated quotient word is at most one too large
// after the usual correction (Knuth's algorithm D, two quotient words).
func div192by128(u2, u1, u0, v1, v0 uint64) (qhi, qlo uint64) {
	s := uint(bits.LeadingZeros64(v1))
	v1, v0 = v1<<s|v0>>(64-s), v0<<s
	u3 := u2 >> (64 - s)
	u2, u1, u0 = u2<<s|u1>>(64-s), u1<<s|u0>>(64-s), u0<<s
	qhi, u2, u1 = divStep(u3, u2, u1, v1, v0)
	qlo, _, _ = divStep(u2, u1, u0, v1, v0)
	return qhi, qlo
}

// divStep divides (x2, x1, x0) by the normalised (v1, v0), given (x2, x1) < (v1, v0): the quotient word and the
// remainder's two words.
func divStep(x2, x1, x0, v1, v0 uint64) (q, r1, r0 uint64) {
	var rhat uint64
	over := false // rhat past 64 bits: the estimate needs no correction
	if x2 >= v1 {
		var c uint64
		q = ^uint64(0)
		rhat, c = bits.Add64(x1, v1, 0) // x2 = v1: (v1·2^64 + x1) − (2^64 − 1)·v1
		over = c != 0
	} else {
		q, rhat = bits.Div64(x2, x1, v1)
	}
	for !over {
		ph, pl := bits.Mul64(q, v0)
		if ph < rhat || ph == rhat && pl <= x0 {
			break
		}
		q--
		var c uint64
		rhat, c = bits.Add64(rhat, v1, 0)
		over = c != 0
	}
	p0h, p0l := bits.Mul64(q, v0)
	p1h, p1l := bits.Mul64(q, v1)
	m1, c := bits.Add64(p1l, p0h, 0)
	m2 := p1h + c
	r0, bw := bits.Sub64(x0, p0l, 0)
	r1, bw = bits.Sub64(x1, m1, bw)
	if _, bw = bits.Sub64(x2, m2, bw); bw != 0 { // one too large: add the divisor back
		q--
		r0, c = bits.Add64(r0, v0, 0)
		r1, _ = bits.Add64(r1, v1, c)
	}
	return q, r1, r0
}

// magnitude is hi·2^64+lo, the value without its sign and scale, as a big integer.
func (w wide) magnitude() *big.Int {
	m := new(big.Int).SetUint64(w.hi)
	m.Lsh(m, 64)
	return m.Or(m, new(big.Int).SetUint64(w.lo))
}

// arith is Arith on two wide values; ok is false when the result needs the big path.
func (a wide) arith(op byte, b wide) (rdf.Term, bool, error) {
	if op == '/' {
		return a.quo(b)
	}
	r, ok := a.arithExact(op, b)
	if !ok {
		return rdf.Term{}, false, nil
	}
	return r.term()
}

// term writes the value as the big path's num.term does: an integer's digits; a decimal in canonical form, past
// DecimalPlaces places rounded there with halves away from zero (big.Rat.FloatString's rounding). ok is false
// when that rounding would need a divisor past 64 bits.
func (w wide) term() (rdf.Term, bool, error) {
	w, ok := w.settled()
	if !ok {
		return rdf.Term{}, false, nil
	}
	t := decimal128(w.hi, w.lo, w.scale, w.neg)
	if !w.dec {
		t.Datatype = rdf.XSDInteger
	}
	return t, true, nil
}

// settled is the value term writes, as toWide reads it back: normalised, past DecimalPlaces places rounded there
// with halves away from zero. ok is false when that rounding would need a divisor past 64 bits.
func (w wide) settled() (wide, bool) {
	w = w.normal()
	if w.scale > DecimalPlaces {
		k := w.scale - DecimalPlaces
		if k > maxScale {
			return wide{}, false
		}
		d := uint64(pow10[k])
		qh, ql, r := divSmall(w.hi, w.lo, d)
		if r >= d-r { // r ≥ d/2: halves away from zero on the magnitude
			var c uint64
			ql, c = bits.Add64(ql, 1, 0)
			qh += c
		}
		w.hi, w.lo, w.scale = qh, ql, DecimalPlaces
		w.neg = w.neg && !w.zero()
		w = w.normal()
	}
	return w, true
}

// round is ABS, CEIL, FLOOR and ROUND (halves toward positive infinity, fn:round) on a wide value; ok is false when
// the scale is past 64 bits of divisor.
func (w wide) round(name string) (rdf.Term, bool) {
	r, ok := w.roundWide(name)
	if !ok {
		return rdf.Term{}, false
	}
	t, ok, _ := r.term()
	return t, ok
}

// roundWide is round's value, not yet settled (term settles it).
func (w wide) roundWide(name string) (wide, bool) {
	switch {
	case name == "ABS":
		w.neg = false
	case w.scale == 0:
	case w.scale > maxScale:
		return wide{}, false
	default:
		d := uint64(pow10[w.scale])
		qh, ql, r := divSmall(w.hi, w.lo, d)
		up := false // whether the magnitude's quotient goes up by one
		switch name {
		case "CEIL":
			up = !w.neg && r > 0
		case "FLOOR":
			up = w.neg && r > 0
		case "ROUND":
			if w.neg {
				up = r > d-r // −2.5 rounds to −2, −2.6 to −3
			} else {
				up = r >= d-r
			}
		default:
			return wide{}, false
		}
		if up {
			var c uint64
			ql, c = bits.Add64(ql, 1, 0)
			qh += c
		}
		w.hi, w.lo, w.scale = qh, ql, 0
		w.neg = w.neg && !w.zero()
	}
	return w, true
}

// num is the value in the big path's form.
func (w wide) num() num {
	m := w.magnitude()
	if w.neg {
		m.Neg(m)
	}
	d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(w.scale)), nil)
	k := kInteger
	if w.dec {
		k = kDecimal
	}
	return num{kind: k, r: new(big.Rat).SetFrac(m, d)}
}
