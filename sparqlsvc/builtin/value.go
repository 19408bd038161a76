package builtin

import (
	"math"

	"github.com/ldhub/ldhub/content/rdf"
)

// Value is a number between the operators of an expression: an xsd:integer or xsd:decimal in 128 bits (wide), or
// an xsd:float or xsd:double. ABS(?price − ?avg) * 100 / ?avg wrote each intermediate result as a term and the
// next operator parsed it back (h123: a third of its CPU); an evaluator computes such a tree in this form and
// writes a term only for the value it keeps. Every result is the value its term would read back as (an exact
// result past DecimalPlaces places is rounded there, as the term is; a float is a float32), so each operation
// here gives exactly what Arith, Negate, Plus, the rounding functions and the comparisons give on the terms. ok is
// false wherever those must decide: an error (division by zero), a result past 128 bits, a comparison with NaN.
type Value struct {
	w    wide    // kInteger, kDecimal
	f    float64 // kFloat (a float32's value), kDouble
	kind numKind
}

// ValueOf reads an xsd:integer, xsd:decimal, xsd:float or xsd:double literal as Arith reads it; ok is false for
// any other term (the integer types derived from xsd:integer too, whose ranges the big path checks) and for exact
// values past 128 bits.
func ValueOf(t rdf.Term) (Value, bool) {
	if t.Kind != rdf.KindLiteral {
		return Value{}, false
	}
	switch t.Datatype {
	case rdf.XSDInteger, rdf.XSDDecimal:
		w, ok := toWide(t)
		if !ok {
			return Value{}, false
		}
		return exactValue(w), true
	case rdf.XSDDouble, xsdFloat:
		f, ok := parseDouble(t.Value)
		if !ok {
			return Value{}, false
		}
		if t.Datatype == xsdFloat {
			return Value{f: float64(float32(f)), kind: kFloat}, true
		}
		return Value{f: f, kind: kDouble}, true
	}
	return Value{}, false
}

func exactValue(w wide) Value {
	k := kInteger
	if w.dec {
		k = kDecimal
	}
	return Value{w: w, kind: k}
}

// NumberValue is n as a Value.
func NumberValue(n Number) Value {
	f := n.fixed()
	return exactValue(wideOf(f))
}

// Number is v in fixed form, when it is an xsd:integer or xsd:decimal that fits one.
func (v Value) Number() (Number, bool) {
	if v.kind >= kFloat {
		return Number{}, false
	}
	f, ok := v.w.fixed()
	return f.number(), ok
}

// Term is the term of an operation's result, as Arith and the functions write it. (A Value read by ValueOf is
// not an operation's result: its term is the one it was read from, which may have more places than this writes.)
func (v Value) Term() rdf.Term {
	switch v.kind {
	case kFloat:
		return rdf.Literal(formatDouble(v.f, 32), xsdFloat)
	case kDouble:
		return rdf.Literal(formatDouble(v.f, 64), rdf.XSDDouble)
	}
	t, ok, _ := v.w.term()
	if !ok { // operations settle their results, so this is a Value read by ValueOf: the big path writes it
		return v.w.num().term()
	}
	return t
}

// settle is an exact result as its term reads back.
func settle(w wide) (Value, bool) {
	w, ok := w.settled()
	return exactValue(w), ok
}

// float is v promoted to the float type k (kFloat or kDouble) as promote and toNumFloat do: the double nearest to
// an exact value, then the float nearest to that for kFloat.
func (v Value) float(k numKind) float64 {
	f := v.f
	if v.kind < kFloat {
		if fx, ok := v.w.fixed(); ok {
			if x, ok := fx.float(); ok {
				f = x
			} else {
				f = fx.num().float()
			}
		} else {
			f = v.w.num().float()
		}
	}
	if k == kFloat {
		f = float64(float32(f))
	}
	return f
}

// floatValue is a float result of type k as its term reads back.
func floatValue(f float64, k numKind) Value {
	if k == kFloat {
		f = float64(float32(f))
	}
	return Value{f: f, kind: k}
}

// ValueArith is Arith on two values; ok is false where Arith on their terms must decide (a division by zero, an
// exact result past 128 bits).
func ValueArith(op byte, a, b Value) (Value, bool) {
	if k := max(a.kind, b.kind); k >= kFloat {
		x, y := a.float(k), b.float(k)
		var f float64
		switch op {
		case '+':
			f = x + y
		case '-':
			f = x - y
		case '*':
			f = x * y
		case '/':
			f = x / y
		default:
			return Value{}, false
		}
		return floatValue(f, k), true
	}
	if fa, ok := a.w.fixed(); ok {
		if fb, ok := b.w.fixed(); ok {
			if op != '/' {
				if r, ok := fa.arithExact(op, fb); ok {
					return exactValue(wideOf(r.normal())), true
				}
			} else {
				if fb.v == 0 {
					return Value{}, false
				}
				if qhi, qlo, neg, ok := fa.quo(fb); ok {
					return exactValue(wide{hi: qhi, lo: qlo, neg: neg, scale: maxScale, dec: true}.normal()), true
				}
			}
		}
	}
	if op == '/' {
		if b.w.zero() {
			return Value{}, false
		}
		q, ok := a.w.quoWide(b.w)
		if !ok {
			return Value{}, false
		}
		return exactValue(q.normal()), true
	}
	r, ok := a.w.arithExact(op, b.w)
	if !ok {
		return Value{}, false
	}
	return settle(r)
}

// ValueNeg is Negate (unary minus) of a value.
func ValueNeg(a Value) (Value, bool) {
	if a.kind >= kFloat {
		return Value{f: -a.f, kind: a.kind}, true
	}
	a.w.neg = !a.w.neg && !a.w.zero()
	return settle(a.w)
}

// ValuePlus is Plus (unary plus) of a value: the same number as its canonical term reads back.
func ValuePlus(a Value) (Value, bool) {
	if a.kind >= kFloat {
		return a, true
	}
	return settle(a.w)
}

// ValueRound is ABS, CEIL, FLOOR or ROUND of a value, as the functions compute them on its term.
func ValueRound(name string, a Value) (Value, bool) {
	if a.kind >= kFloat {
		f := a.f
		switch name {
		case "ABS":
			f = math.Abs(f)
		case "CEIL":
			f = math.Ceil(f)
		case "FLOOR":
			f = math.Floor(f)
		case "ROUND":
			f = math.Floor(f + 0.5) // fn:round: halves go toward positive infinity
		default:
			return Value{}, false
		}
		return floatValue(f, a.kind), true
	}
	if fa, ok := a.w.fixed(); ok {
		switch name {
		case "ABS", "CEIL", "FLOOR", "ROUND":
			if r, ok := fa.roundExact(name); ok {
				return exactValue(wideOf(r.normal())), true
			}
		default:
			return Value{}, false
		}
	}
	r, ok := a.w.roundWide(name)
	if !ok {
		return Value{}, false
	}
	return settle(r)
}

// CompareValues is CompareKeys on the values' terms: ok is false where that is not a number (NaN against anything)
// or where the exact comparison needs the big path.
func CompareValues(a, b Value) (int, bool) {
	if k := max(a.kind, b.kind); k >= kFloat {
		x, y := a.float(k), b.float(k)
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return 0, false
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	return a.w.cmp(b.w)
}

// Key is NewKey of v's Term without parsing it back: a MIN or MAX over an arithmetic expression keeps the best
// value's key.
func (v Value) Key() Key {
	k := Key{Term: v.Term()}
	switch {
	case v.kind >= kFloat:
		k.kind, k.n = keyNum, num{kind: v.kind, f: v.f}
	default:
		if f, ok := v.w.fixed(); ok {
			k.kind, k.fx = keyFixed, f
		} else {
			k.kind, k.w = keyWide, v.w
		}
	}
	return k
}

// CompareValueKey is CompareValues of v and a numeric key's value; ok is false when k is not a number Value holds
// or the two do not compare (the caller compares keys).
func CompareValueKey(v Value, k *Key) (int, bool) {
	var b Value
	switch k.kind {
	case keyFixed:
		b = exactValue(wideOf(k.fx))
	case keyWide:
		b = exactValue(k.w)
	case keyNum:
		if k.n.kind < kFloat {
			return 0, false
		}
		b = Value{f: k.n.f, kind: k.n.kind}
	default:
		return 0, false
	}
	return CompareValues(v, b)
}
