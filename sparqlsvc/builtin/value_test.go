package builtin

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// valueOperand returns a term for the Value tests: exact numbers at the int64 and 128-bit edges and past them,
// quotients of 18 places and more, doubles and floats with NaN, ±INF and −0, and terms that are no number Value
// reads (derived integer types, invalid forms, strings, booleans, IRIs).
func valueOperand(r *rand.Rand) rdf.Term {
	switch r.IntN(16) {
	case 0, 1, 2:
		return randomWideNumber(r)
	case 3, 4:
		return edgeNumber(r)
	case 5: // int64's limits and their neighbours, as integers and decimals
		v := []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 53, -(1 << 53), (1 << 53) + 1, 0}[r.IntN(8)]
		if r.IntN(2) == 0 {
			return rdf.Literal(strconv.FormatInt(v, 10), rdf.XSDInteger)
		}
		s := strconv.FormatInt(v, 10)
		p := r.IntN(len(s))
		return rdf.Literal(s[:len(s)-p]+"."+s[len(s)-p:]+"0", rdf.XSDDecimal)
	case 6, 7: // prices and counts
		if r.IntN(2) == 0 {
			return rdf.Literal(strconv.Itoa(r.IntN(2001)-1000), rdf.XSDInteger)
		}
		return rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(20000)-100, r.IntN(100)), rdf.XSDDecimal)
	case 8: // zeros
		return []rdf.Term{rdf.Literal("0", rdf.XSDInteger), rdf.Literal("-0", rdf.XSDInteger), rdf.Literal("-0.000", rdf.XSDDecimal),
			rdf.Literal("+0.0", rdf.XSDDecimal), rdf.Literal("0", rdf.XSDDouble), rdf.Literal("-0", rdf.XSDDouble),
			rdf.Literal("-0.0E0", xsdFloat)}[r.IntN(7)]
	case 9, 10: // doubles
		specials := []string{"NaN", "INF", "-INF", "+INF", "1.7976931348623157E308", "4.9E-324", "1E400", "-1e-400", "0.1",
			"2.5", "-2.5", "0.5", "-0.5", "1.0E21", "123456789012345678901234567890", "9007199254740993"}
		if r.IntN(2) == 0 {
			return rdf.Literal(specials[r.IntN(len(specials))], rdf.XSDDouble)
		}
		f := math.Float64frombits(r.Uint64())
		if r.IntN(2) == 0 {
			f = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(40)-20))
		}
		return rdf.Literal(strconv.FormatFloat(f, 'g', -1, 64), rdf.XSDDouble)
	case 11: // floats
		lex := []string{"NaN", "INF", "-INF", "3.4028235E38", "1.4E-45", "0.1", "16777217", "-2.5", "1e39"}[r.IntN(9)]
		if r.IntN(2) == 0 {
			lex = strconv.FormatFloat((r.Float64()-0.5)*1e6, 'g', -1, 64)
		}
		return rdf.Literal(lex, xsdFloat)
	case 12: // other numeric types and invalid forms: Value does not read them, the terms decide
		return []rdf.Term{rdf.Literal("7", xsd+"int"), rdf.Literal("300", xsd+"byte"), rdf.Literal("-1", xsd+"nonNegativeInteger"),
			rdf.Literal("1.2.3", rdf.XSDDecimal), rdf.Literal("1.5", rdf.XSDInteger), rdf.Literal("", rdf.XSDInteger),
			rdf.Literal("abc", rdf.XSDDouble), rdf.Literal("0x10", rdf.XSDDouble)}[r.IntN(8)]
	case 13: // not numbers
		return []rdf.Term{rdf.String("12"), rdf.Literal("true", rdf.XSDBoolean), rdf.IRI("http://example.org/1"),
			rdf.LangString("3", "en"), rdf.Literal("2020-01-01", xsdDate)}[r.IntN(5)]
	}
	// a divisor that makes quotients: small integers and decimals, zero among them
	return rdf.Literal(strconv.Itoa(r.IntN(13)-6), []string{rdf.XSDInteger, rdf.XSDDecimal}[r.IntN(2)])
}

// sameValue reports whether two values are the same number of the same type (NaN equal to NaN, −0 not to 0).
func sameValue(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	if a.kind >= kFloat {
		return math.Float64bits(a.f) == math.Float64bits(b.f) || math.IsNaN(a.f) && math.IsNaN(b.f)
	}
	return a.w == b.w
}

// checkResult checks a Value operation against the term operation it stands for: where the value path gives a
// value, the terms give no error and the same term, and that term reads back as the same value (so the next
// operation sees what it would have parsed).
func checkResult(t *testing.T, what string, v Value, ok bool, want rdf.Term, err error) bool {
	t.Helper()
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s: value %v where the terms give error %v", what, v.Term(), err)
	}
	if got := v.Term(); !got.Equal(want) {
		t.Fatalf("%s: value path %q^^%s, terms %q^^%s", what, got.Value, got.Datatype, want.Value, want.Datatype)
	}
	back, rok := ValueOf(want)
	if !rok || !sameValue(back, v) {
		t.Fatalf("%s: result %q reads back as %+v, the value path holds %+v", what, want.Value, back, v)
	}
	if k, nk := v.Key(), NewKey(want); !sameKey(k, nk) {
		t.Fatalf("%s: Key %+v, NewKey of the term %+v", what, k, nk)
	}
	return true
}

// sameKey reports whether two numeric keys hold the same term and value.
func sameKey(a, b Key) bool {
	fa, fb := a.n.f, b.n.f
	return a.Term.Equal(b.Term) && a.kind == b.kind && a.fx == b.fx && a.w == b.w && a.n.kind == b.n.kind &&
		(a.n.r == nil) == (b.n.r == nil) && (math.Float64bits(fa) == math.Float64bits(fb) || math.IsNaN(fa) && math.IsNaN(fb))
}

// TestValueMatchesTerms is the differential test of the value form: every operator, rounding function, negation
// and comparison on random and boundary operands gives exactly what the term functions give (and, for the
// arithmetic, what the big-number path alone gives), or declines; declining is allowed only where the terms give
// an error or a value past 128 bits, NaN comparisons, or operands Value does not read.
func TestValueMatchesTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	taken, declined := 0, 0
	for i := range 60000 {
		a, b := valueOperand(r), valueOperand(r)
		va, oka := ValueOf(a)
		vb, okb := ValueOf(b)
		if oka != IsNumeric(a) && (a.Datatype == rdf.XSDInteger || a.Datatype == rdf.XSDDecimal || a.Datatype == rdf.XSDDouble || a.Datatype == xsdFloat) {
			if _, wok := toWide(a); wok || a.Datatype == rdf.XSDDouble || a.Datatype == xsdFloat {
				t.Fatalf("ValueOf(%q^^%s) = %v, IsNumeric %v", a.Value, a.Datatype, oka, IsNumeric(a))
			}
		}
		for _, op := range []byte("+-*/") {
			want, err := Arith(op, a, b)
			if big, berr := arithBig(op, a, b); (berr == nil) != (err == nil) || err == nil && !big.Equal(want) {
				t.Fatalf("%q %c %q: Arith %v %v, big path %v %v", a.Value, op, b.Value, want, err, big, berr)
			}
			if !oka || !okb {
				continue
			}
			v, ok := ValueArith(op, va, vb)
			what := fmt.Sprintf("%d: %q^^%s %c %q^^%s", i, a.Value, a.Datatype, op, b.Value, b.Datatype)
			if checkResult(t, what, v, ok, want, err) {
				taken++
			} else if err == nil && !(va.kind < kFloat && vb.kind < kFloat) {
				t.Fatalf("%s: declined with floats, terms give %v", what, want)
			} else {
				declined++
			}
		}
		if oka {
			for _, name := range []string{"ABS", "CEIL", "FLOOR", "ROUND"} {
				want, err := rounding(name, a)
				v, ok := ValueRound(name, va)
				if checkResult(t, fmt.Sprintf("%s(%q^^%s)", name, a.Value, a.Datatype), v, ok, want, err) {
					taken++
				}
			}
			want, err := Negate(a)
			v, ok := ValueNeg(va)
			checkResult(t, fmt.Sprintf("-(%q^^%s)", a.Value, a.Datatype), v, ok, want, err)
			want, err = Plus(a)
			v, ok = ValuePlus(va)
			checkResult(t, fmt.Sprintf("+(%q^^%s)", a.Value, a.Datatype), v, ok, want, err)
		}
		if oka && okb {
			ka, kb := NewKey(a), NewKey(b)
			c, ok := CompareValues(va, vb)
			want, err := CompareKeys(&ka, &kb)
			eq, eqErr := EqualKeys(&ka, &kb)
			if ok && (err != nil || c != want || eqErr != nil || eq != (c == 0)) {
				t.Fatalf("compare %q^^%s, %q^^%s: values %d, keys %d %v, equal %v %v", a.Value, a.Datatype, b.Value, b.Datatype, c, want, err, eq, eqErr)
			}
			if c2, ok2 := CompareValueKey(va, &kb); ok2 != ok || c2 != c {
				t.Fatalf("compare %q, %q: with the key %d %v, values %d %v", a.Value, b.Value, c2, ok2, c, ok)
			}
			if !ok && err == nil && (va.kind >= kFloat || vb.kind >= kFloat) {
				t.Fatalf("compare %q, %q: declined, keys give %d", a.Value, b.Value, want)
			}
		}
	}
	if taken < 100000 || declined > taken/10 {
		t.Fatalf("value path took %d operations and declined %d", taken, declined)
	}
}

// TestValueChains evaluates random expression trees (arithmetic, negation, rounding; up to four levels) once on
// terms, each result written and read by the next operator, and once in Values with one term at the end: the same
// term, or the same error where the value path declines.
func TestValueChains(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	type node struct {
		op   string
		args []*node
		leaf rdf.Term
	}
	var build func(depth int) *node
	build = func(depth int) *node {
		if depth == 0 || r.IntN(4) == 0 {
			return &node{leaf: valueOperand(r)}
		}
		switch k := r.IntN(10); {
		case k < 6:
			return &node{op: string("+-*/"[r.IntN(4)]), args: []*node{build(depth - 1), build(depth - 1)}}
		case k < 9:
			return &node{op: []string{"ABS", "CEIL", "FLOOR", "ROUND"}[r.IntN(4)], args: []*node{build(depth - 1)}}
		}
		return &node{op: []string{"neg", "plus"}[r.IntN(2)], args: []*node{build(depth - 1)}}
	}
	var terms func(n *node) (rdf.Term, error)
	terms = func(n *node) (rdf.Term, error) {
		if n.args == nil {
			return n.leaf, nil
		}
		a, err := terms(n.args[0])
		if err != nil {
			return rdf.Term{}, err
		}
		switch n.op {
		case "neg":
			return Negate(a)
		case "plus":
			return Plus(a)
		case "+", "-", "*", "/":
			b, err := terms(n.args[1])
			if err != nil {
				return rdf.Term{}, err
			}
			return Arith(n.op[0], a, b)
		}
		return rounding(n.op, a)
	}
	var values func(n *node) (Value, bool)
	values = func(n *node) (Value, bool) {
		if n.args == nil {
			return ValueOf(n.leaf)
		}
		a, ok := values(n.args[0])
		if !ok {
			return Value{}, false
		}
		switch n.op {
		case "neg":
			return ValueNeg(a)
		case "plus":
			return ValuePlus(a)
		case "+", "-", "*", "/":
			b, ok := values(n.args[1])
			if !ok {
				return Value{}, false
			}
			return ValueArith(n.op[0], a, b)
		}
		return ValueRound(n.op, a)
	}
	taken := 0
	for range 40000 {
		n := build(4)
		if n.args == nil {
			continue
		}
		want, err := terms(n)
		v, ok := values(n)
		if !ok {
			continue
		}
		taken++
		if err != nil {
			t.Fatalf("value %q where the terms give %v", v.Term().Value, err)
		}
		if got := v.Term(); !got.Equal(want) {
			t.Fatalf("chain: values %q^^%s, terms %q^^%s", got.Value, got.Datatype, want.Value, want.Datatype)
		}
	}
	if taken < 5000 {
		t.Fatalf("only %d chains in values", taken)
	}
}

// TestValueDeclinesErrors: division by zero and operands Value does not read are left to the terms.
func TestValueDeclinesErrors(t *testing.T) {
	one, _ := ValueOf(rdf.Literal("1", rdf.XSDInteger))
	for _, z := range []rdf.Term{rdf.Literal("0", rdf.XSDInteger), rdf.Literal("0.00", rdf.XSDDecimal), rdf.Literal("-0.0", rdf.XSDDecimal)} {
		zv, _ := ValueOf(z)
		if _, ok := ValueArith('/', one, zv); ok {
			t.Errorf("1 / %s: a value", z.Value)
		}
		if _, err := Arith('/', rdf.Literal("1", rdf.XSDInteger), z); !errors.Is(err, ErrType) {
			t.Errorf("Arith 1 / %s: %v", z.Value, err)
		}
	}
	for _, x := range []rdf.Term{rdf.String("1"), rdf.Literal("1", xsd+"int"), rdf.Literal("1.", rdf.XSDInteger), rdf.IRI("http://e/1"),
		rdf.Literal("123456789012345678901234567890123456789012", rdf.XSDInteger)} {
		if _, ok := ValueOf(x); ok {
			t.Errorf("ValueOf(%q^^%s) read", x.Value, x.Datatype)
		}
	}
	// 1 / 0.0e0 is INF in doubles, a value
	zd, _ := ValueOf(rdf.Literal("0.0e0", rdf.XSDDouble))
	if v, ok := ValueArith('/', one, zd); !ok || v.Term().Value != "INF" {
		t.Errorf("1 / 0e0 = %v %v", v.Term(), ok)
	}
}
