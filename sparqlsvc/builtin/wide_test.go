package builtin

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// randomWideNumber returns xsd:integer and xsd:decimal literals past the fixed form's int64: quotients' 18 places
// beside an integer part (an AVG of prices), up to 40 digits (past 128 bits, where the big path must take over),
// small values to meet them, signs, zeros and trailing zeros.
func randomWideNumber(r *rand.Rand) rdf.Term {
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	whole := strings.TrimLeft(digits(r.IntN(24)), "0")
	if whole == "" {
		whole = "0"
	}
	sign := ""
	if r.IntN(3) == 0 {
		sign = "-"
	}
	switch r.IntN(6) {
	case 0:
		return rdf.Literal(sign+whole, rdf.XSDInteger)
	case 1: // a small operand: a price or a count
		return rdf.Literal(fmt.Sprintf("%s%d.%02d", sign, r.IntN(10000), r.IntN(100)), rdf.XSDDecimal)
	case 2: // a quotient of DecimalPlaces places
		return rdf.Literal(sign+whole+"."+digits(DecimalPlaces), rdf.XSDDecimal)
	case 3:
		return rdf.Literal(sign+whole+"."+digits(r.IntN(41))+"00", rdf.XSDDecimal)
	case 4: // halves at the 18th and 19th place, where rounding decides
		return rdf.Literal(sign+whole+"."+digits(DecimalPlaces-1+r.IntN(3))+"5", rdf.XSDDecimal)
	}
	return rdf.Literal(sign+whole+"."+digits(r.IntN(22)), rdf.XSDDecimal)
}

// TestWideMatchesBig checks the 128-bit path against the big-number path on operands past int64: every arithmetic
// operator, rounding function and comparison gives the same term (or the same error), and the path is taken.
func TestWideMatchesBig(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	taken := 0
	for range 4000 {
		a, b := randomWideNumber(r), randomWideNumber(r)
		if _, ok := toWide(a); ok {
			if _, ok := toFixed(a); !ok {
				taken++
			}
		}
		for _, op := range []byte("+-*/") {
			got, gerr := Arith(op, a, b)
			want, werr := arithBig(op, a, b)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Fatalf("%v %c %v: wide %v (%v), big %v (%v)", a, op, b, got, gerr, want, werr)
			}
		}
		for _, fn := range []string{"ABS", "CEIL", "FLOOR", "ROUND"} {
			got, gerr := rounding(fn, a)
			want, werr := roundingBig(fn, a)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Fatalf("%s(%v): wide %v (%v), big %v (%v)", fn, a, got, gerr, want, werr)
			}
		}
		x, _ := toNum(a)
		y, _ := toNum(b)
		want, _ := cmpNum(x, y)
		if got, err := Compare(a, b); err != nil || got != want {
			t.Fatalf("compare %v %v: %d (%v), big %d", a, b, got, err, want)
		}
		if got, err := Equal(a, b); err != nil || got != (want == 0) {
			t.Fatalf("equal %v %v: %v (%v), big %d", a, b, got, err, want)
		}
		if got, err := Equal(a, a); err != nil || !got {
			t.Fatalf("equal %v itself: %v (%v)", a, got, err)
		}
	}
	if taken < 1000 {
		t.Fatalf("only %d operands took the wide path", taken)
	}
}

// TestWideTerms pins the 128-bit path's forms on values a reader can check: an AVG-shaped quotient minus a price,
// half of it rounded at the 18th place, and the rounding functions on it.
func TestWideTerms(t *testing.T) {
	avg := rdf.Literal("1234.567890123456789012", rdf.XSDDecimal)
	if _, ok := toFixed(avg); ok {
		t.Fatal("the test needs a value past the fixed form")
	}
	for _, c := range []struct {
		got  func() (rdf.Term, error)
		want string
	}{
		{func() (rdf.Term, error) { return Arith('-', rdf.Literal("75.08", rdf.XSDDecimal), avg) }, "-1159.487890123456789012"},
		{func() (rdf.Term, error) { return Arith('*', rdf.Literal("0.5", rdf.XSDDecimal), avg) }, "617.283945061728394506"},
		{func() (rdf.Term, error) { return Arith('*', rdf.Literal("0.25", rdf.XSDDecimal), avg) }, "308.641972530864197253"},
		{func() (rdf.Term, error) { return Arith('/', avg, rdf.Literal("2", rdf.XSDInteger)) }, "617.283945061728394506"},
		{func() (rdf.Term, error) { return rounding("ROUND", avg) }, "1235"},
		{func() (rdf.Term, error) { return rounding("FLOOR", rdf.Literal("-"+avg.Value, rdf.XSDDecimal)) }, "-1235"},
		{func() (rdf.Term, error) { return rounding("ABS", rdf.Literal("-"+avg.Value, rdf.XSDDecimal)) }, avg.Value},
	} {
		got, err := c.got()
		if err != nil || got.Value != c.want || got.Datatype != rdf.XSDDecimal {
			t.Errorf("got %v (%v), want %s", got, err, c.want)
		}
	}
}

// TestDiv192by128 checks the long division against big integers on random words, with divisors whose top word is
// small, large or has its top bit set, and dividends whose top word equals the divisor's (the estimate's edge).
func TestDiv192by128(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	word := func() uint64 {
		switch r.IntN(4) {
		case 0:
			return r.Uint64() >> r.IntN(64)
		case 1:
			return ^uint64(0) - r.Uint64N(3)
		}
		return r.Uint64()
	}
	big3 := func(ws ...uint64) *big.Int {
		n := new(big.Int)
		for _, w := range ws {
			n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(w))
		}
		return n
	}
	for range 200000 {
		v1, v0 := word(), word()
		if v1 == 0 {
			v1 = 1
		}
		u2, u1, u0 := word(), word(), word()
		if r.IntN(4) == 0 {
			u2 = v1
		}
		qh, ql := div192by128(u2, u1, u0, v1, v0)
		want := new(big.Int).Quo(big3(u2, u1, u0), big3(v1, v0))
		if got := big3(qh, ql); got.Cmp(want) != 0 {
			t.Fatalf("(%x %x %x) / (%x %x): %v, want %v", u2, u1, u0, v1, v0, got, want)
		}
	}
}
