package builtin

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// This file checks Arith, the rounding functions, comparisons, casts and SUM/AVG on xsd:integer and xsd:decimal
// operands against a model written here on math/big alone (not against the package's own big path), on operands
// at the edges of the int64 and 128-bit forms: ±2^63, ±2^64, ±2^127, ±2^128 and their neighbours, multiples of
// 10^18, many fractional digits, zeros written with a sign; NumberArith (d9f8270's quotients too) on the operands
// that fit a Number.

// refValue reads a valid xsd:integer or xsd:decimal lexical form exactly.
func refValue(t *testing.T, lex string) *big.Rat {
	t.Helper()
	s := lex
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	m, ok := new(big.Int).SetString("0"+whole+frac, 10)
	if !ok {
		t.Fatalf("bad operand %q", lex)
	}
	if neg {
		m.Neg(m)
	}
	return new(big.Rat).SetFrac(m, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil))
}

// refTerm writes r as the package documents its results: an integer's digits, or a decimal in canonical form
// rounded at DecimalPlaces places with halves away from zero.
func refTerm(r *big.Rat, dec bool) rdf.Term {
	if !dec {
		return rdf.Literal(r.Num().String(), rdf.XSDInteger)
	}
	s := r.FloatString(DecimalPlaces)
	s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return rdf.Literal(s, rdf.XSDDecimal)
}

// refTrunc cuts r to DecimalPlaces places toward zero (a quotient's precision).
func refTrunc(r *big.Rat) *big.Rat {
	d := new(big.Int).Exp(big.NewInt(10), big.NewInt(DecimalPlaces), nil)
	n := new(big.Int).Mul(r.Num(), d)
	n.Quo(n, r.Denom())
	return new(big.Rat).SetFrac(n, d)
}

func refFloor(r *big.Rat) *big.Int {
	q, _ := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	return q
}

// edgeNumber returns an xsd:integer or xsd:decimal literal near the forms' limits.
func edgeNumber(r *rand.Rand) rdf.Term {
	pow := func(b, e int64) *big.Int { return new(big.Int).Exp(big.NewInt(b), big.NewInt(e), nil) }
	var m *big.Int
	switch r.IntN(5) {
	case 0: // a power of two and its neighbours
		m = new(big.Int).Lsh(big.NewInt(1), uint([]int{62, 63, 64, 65, 126, 127, 128, 129}[r.IntN(8)]))
		m.Add(m, big.NewInt(int64(r.IntN(5)-2)))
	case 1: // a multiple of 10^18 and its neighbours
		m = new(big.Int).Mul(pow(10, 18), big.NewInt(int64(r.IntN(1<<20))))
		m.Add(m, big.NewInt(int64(r.IntN(3)-1)))
	case 2: // 10^k and 10^k−1 around 38 and 39 digits
		m = pow(10, int64(17+r.IntN(24)))
		m.Sub(m, big.NewInt(int64(r.IntN(2))))
	case 3: // small
		m = big.NewInt(int64(r.IntN(2001)))
	default: // random width
		m = new(big.Int)
		for range 3 {
			m.Lsh(m, 64).Or(m, new(big.Int).SetUint64(r.Uint64()))
		}
		m.Rsh(m, uint(r.IntN(192)))
	}
	if m.Sign() < 0 {
		m.Neg(m)
	}
	digits := m.String()
	sign := []string{"", "", "-", "+"}[r.IntN(4)]
	if r.IntN(3) == 0 {
		return rdf.Literal(sign+digits, rdf.XSDInteger)
	}
	// A point anywhere in the digits or before them, then maybe trailing zeros.
	places := r.IntN(len(digits) + 22)
	for len(digits) < places {
		digits = "0" + digits
	}
	lex := digits[:len(digits)-places] + "." + digits[len(digits)-places:]
	if r.IntN(4) == 0 {
		lex += strings.Repeat("0", r.IntN(30))
	}
	if strings.HasPrefix(lex, ".") && r.IntN(2) == 0 {
		lex = "0" + lex
	}
	if strings.HasSuffix(lex, ".") && lex != "." {
		lex += "0"
	}
	if lex == "." {
		lex = "0.0"
	}
	return rdf.Literal(sign+lex, rdf.XSDDecimal)
}

func TestWideAgainstMathBig(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 9))
	ops := []rdf.Term{
		rdf.Literal("-0", rdf.XSDInteger), rdf.Literal("-0.0", rdf.XSDDecimal), rdf.Literal("+.0", rdf.XSDDecimal),
		rdf.Literal("-9223372036854775808", rdf.XSDInteger), rdf.Literal("9223372036854775808", rdf.XSDInteger),
		rdf.Literal("-18446744073709551616", rdf.XSDInteger), rdf.Literal("340282366920938463463374607431768211455", rdf.XSDInteger),
		rdf.Literal("-340282366920938463463374607431768211456", rdf.XSDInteger),
		rdf.Literal("3.40282366920938463463374607431768211455", rdf.XSDDecimal),
		rdf.Literal("0.00000000000000000000000000000000000001", rdf.XSDDecimal),
		rdf.Literal("-0.000000000000000000500", rdf.XSDDecimal),
		rdf.Literal("0.0000000000000000005", rdf.XSDDecimal),
	}
	for range 3000 {
		ops = append(ops, edgeNumber(r))
	}
	check := func(what string, got rdf.Term, gerr error, want rdf.Term, werr bool) {
		t.Helper()
		if (gerr != nil) != werr || (!werr && got != want) {
			t.Fatalf("%s: got %v (%v), want %v (error %v)", what, got, gerr, want, werr)
		}
	}
	numberQuotients := 0
	for i, a := range ops {
		x := refValue(t, a.Value)
		adec := a.Datatype == rdf.XSDDecimal
		for _, fn := range []string{"ABS", "CEIL", "FLOOR", "ROUND"} {
			w := new(big.Rat)
			switch fn {
			case "ABS":
				w.Abs(x)
			case "CEIL":
				w.SetInt(new(big.Int).Neg(refFloor(new(big.Rat).Neg(x))))
			case "FLOOR":
				w.SetInt(refFloor(x))
			case "ROUND":
				w.SetInt(refFloor(new(big.Rat).Add(x, big.NewRat(1, 2))))
			}
			got, err := rounding(fn, a)
			check(fn+"("+a.Value+")", got, err, refTerm(w, adec), false)
		}
		// Casts: to xsd:integer toward zero, to xsd:decimal the value, to xsd:string the canonical form, to
		// xsd:double the nearest double.
		trunc := new(big.Int).Quo(x.Num(), x.Denom())
		got, err := Cast(rdf.XSDInteger, a)
		check("integer("+a.Value+")", got, err, rdf.Literal(trunc.String(), rdf.XSDInteger), false)
		got, err = Cast(rdf.XSDDecimal, a)
		check("decimal("+a.Value+")", got, err, refTerm(x, true), false)
		got, err = Cast(rdf.XSDString, a)
		check("string("+a.Value+")", got, err, rdf.String(refTerm(x, adec).Value), false)
		f, _ := x.Float64()
		got, err = Cast(rdf.XSDDouble, a)
		check("double("+a.Value+")", got, err, rdf.Literal(formatDouble(f, 64), rdf.XSDDouble), false)

		for j := 0; j < 12; j++ {
			b := ops[r.IntN(len(ops))]
			if j == 0 {
				b = ops[(i+1)%len(ops)]
			}
			y := refValue(t, b.Value)
			dec := adec || b.Datatype == rdf.XSDDecimal
			name := a.Value + " " + b.Value
			got, err := Arith('+', a, b)
			check("+ "+name, got, err, refTerm(new(big.Rat).Add(x, y), dec), false)
			got, err = Arith('-', a, b)
			check("- "+name, got, err, refTerm(new(big.Rat).Sub(x, y), dec), false)
			got, err = Arith('*', a, b)
			check("* "+name, got, err, refTerm(new(big.Rat).Mul(x, y), dec), false)
			got, err = Arith('/', a, b)
			if y.Sign() == 0 {
				check("/ "+name, got, err, rdf.Term{}, true)
			} else {
				check("/ "+name, got, err, refTerm(refTrunc(new(big.Rat).Quo(x, y)), true), false)
			}
			// The same on Numbers (an evaluator's operands held in ids), where they fit.
			na, okA := NumberOf(a)
			nb, okB := NumberOf(b)
			for _, op := range []byte("+-*/") {
				if !okA || !okB {
					break
				}
				n, ok := NumberArith(op, na, nb)
				if !ok {
					continue
				}
				want := map[byte]*big.Rat{'+': new(big.Rat).Add(x, y), '-': new(big.Rat).Sub(x, y), '*': new(big.Rat).Mul(x, y)}[op]
				d := dec
				if op == '/' {
					want, d = refTrunc(new(big.Rat).Quo(x, y)), true
					numberQuotients++
				}
				check("Number "+string(op)+" "+name, n.Term(), nil, refTerm(want, d), false)
			}
			c, err := Compare(a, b)
			if want := x.Cmp(y); err != nil || c != want {
				t.Fatalf("compare %s: %d (%v), want %d", name, c, err, want)
			}
			ka, kb := NewKey(a), NewKey(b)
			c, err = CompareKeys(&ka, &kb)
			if want := x.Cmp(y); err != nil || c != want {
				t.Fatalf("compare keys %s: %d (%v), want %d", name, c, err, want)
			}
			eq, err := EqualKeys(&ka, &kb)
			if want := x.Cmp(y) == 0; err != nil || eq != want {
				t.Fatalf("equal keys %s: %v (%v), want %v", name, eq, err, want)
			}
		}
	}
	if numberQuotients < 1000 {
		t.Fatalf("only %d quotients of Numbers checked", numberQuotients)
	}
	// SUM and AVG over runs of operands: the exact sum, the average cut at DecimalPlaces places toward zero.
	for range 3000 {
		var s Sum
		total, dec := new(big.Rat), false
		n := 1 + r.IntN(6)
		var lexes []string
		for range n {
			a := ops[r.IntN(len(ops))]
			if r.IntN(3) == 0 {
				a = rdf.Literal(a.Value[:min(len(a.Value), 1+r.IntN(6))], rdf.XSDInteger)
				if _, err := new(big.Int).SetString(strings.TrimPrefix(a.Value, "+"), 10); !err {
					a = rdf.Literal("7", rdf.XSDInteger)
				}
			}
			lexes = append(lexes, a.Value)
			if err := s.Add(a); err != nil {
				t.Fatal(err)
			}
			total.Add(total, refValue(t, a.Value))
			dec = dec || a.Datatype == rdf.XSDDecimal
		}
		if got, want := s.Total(), refTerm(total, dec); got != want {
			t.Fatalf("SUM %v: %v, want %v", lexes, got, want)
		}
		// AVG divides the SUM as written (rounded at DecimalPlaces places), not the exact sum.
		written := refValue(t, refTerm(total, dec).Value)
		got, err := s.Average()
		check("AVG "+strings.Join(lexes, " "), got, err, refTerm(refTrunc(new(big.Rat).Quo(written, big.NewRat(int64(n), 1))), true), false)
	}
}

// TestDiv192by128Edges divides every combination of words from a set of edge values (0, 1, the top bit, all ones
// and their neighbours), where Knuth's estimate needs its corrections and its add-back.
func TestDiv192by128Edges(t *testing.T) {
	words := []uint64{0, 1, 2, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, 1<<63 + 1, ^uint64(0) - 1, ^uint64(0)}
	big3 := func(ws ...uint64) *big.Int {
		n := new(big.Int)
		for _, w := range ws {
			n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(w))
		}
		return n
	}
	for _, v1 := range words[1:] {
		for _, v0 := range words {
			for _, u2 := range words {
				for _, u1 := range words {
					for _, u0 := range words {
						qh, ql := div192by128(u2, u1, u0, v1, v0)
						want := new(big.Int).Quo(big3(u2, u1, u0), big3(v1, v0))
						if got := big3(qh, ql); got.Cmp(want) != 0 {
							t.Fatalf("(%x %x %x) / (%x %x): %v, want %v", u2, u1, u0, v1, v0, got, want)
						}
					}
				}
			}
		}
	}
}

// FuzzWideArith holds the differential check for go test -fuzz; its seeds run as a normal test.
func FuzzWideArith(f *testing.F) {
	for _, s := range [][2]string{
		{"9223372036854775808", "-1"}, {"18446744073709551616.5", "0.000000000000000001"},
		{"-170141183460469231731.687303715884105728", "3"}, {"340282366920938463463374607431768211455", "1"},
		{"0.000000000000000000000000000000000001", "-0.0"}, {"1234.567890123456789012", "7.00"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !validDecimal(a) || !validDecimal(b) {
			return
		}
		x, y := refValue(t, a), refValue(t, b)
		ta, tb := rdf.Literal(a, rdf.XSDDecimal), rdf.Literal(b, rdf.XSDDecimal)
		for _, c := range []struct {
			op   byte
			want *big.Rat
		}{{'+', new(big.Rat).Add(x, y)}, {'-', new(big.Rat).Sub(x, y)}, {'*', new(big.Rat).Mul(x, y)}} {
			if got, err := Arith(c.op, ta, tb); err != nil || got != refTerm(c.want, true) {
				t.Fatalf("%s %c %s: %v (%v), want %v", a, c.op, b, got, err, refTerm(c.want, true))
			}
		}
		if y.Sign() != 0 {
			want := refTerm(refTrunc(new(big.Rat).Quo(x, y)), true)
			if got, err := Arith('/', ta, tb); err != nil || got != want {
				t.Fatalf("%s / %s: %v (%v), want %v", a, b, got, err, want)
			}
		}
		if c, err := Compare(ta, tb); err != nil || c != x.Cmp(y) {
			t.Fatalf("compare %s %s: %d (%v)", a, b, c, err)
		}
	})
}
