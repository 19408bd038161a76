package builtin

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// randomNumber returns xsd:integer and xsd:decimal literals of every shape the fixed form meets: small and near
// its int64 limit, up to and past 18 fractional digits, trailing zeros, signs, leading dot, trailing dot.
func randomNumber(r *rand.Rand) rdf.Term {
	whole := fmt.Sprint(r.Int64N([]int64{10, 1000, 1e9, 1e17, 9e18}[r.IntN(5)]))
	if r.IntN(4) == 0 {
		whole = "-" + whole
	}
	if r.IntN(3) == 0 {
		return rdf.Literal(whole, rdf.XSDInteger)
	}
	frac := ""
	for range r.IntN(21) {
		frac += fmt.Sprint(r.IntN(10))
	}
	if r.IntN(5) == 0 {
		frac += "000"
	}
	lex := whole + "." + frac
	switch r.IntN(10) {
	case 0:
		lex = strings.TrimSuffix(whole, "0") + "."
	case 1:
		lex = "." + frac + "1"
	}
	return rdf.Literal(lex, rdf.XSDDecimal)
}

// TestFixedMatchesBig checks the fixed-point fast path against the big-number path on random operands: every
// arithmetic operator, comparison, rounding function, cast and sum gives the same term (or the same error).
func TestFixedMatchesBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	same := func(what string, a, b rdf.Term, got, want rdf.Term, gerr, werr error) {
		t.Helper()
		if got != want || (gerr == nil) != (werr == nil) {
			t.Fatalf("%s %v %v: fast %v (%v), big %v (%v)", what, a, b, got, gerr, want, werr)
		}
	}
	for range 5000 {
		a, b := randomNumber(r), randomNumber(r)
		if _, ok := toFixed(a); !ok && r.IntN(2) == 0 {
			continue
		}
		for _, op := range []byte("+-*/") {
			got, gerr := Arith(op, a, b)
			want, werr := arithBig(op, a, b)
			same(string(op), a, b, got, want, gerr, werr)
		}
		for _, fn := range []string{"ABS", "CEIL", "FLOOR", "ROUND"} {
			got, gerr := rounding(fn, a)
			want, werr := roundingBig(fn, a)
			same(fn, a, a, got, want, gerr, werr)
		}
		x, ok1 := toNum(a)
		y, ok2 := toNum(b)
		if !ok1 || !ok2 { // an invalid lexical form: the operators above agreed on the error
			continue
		}
		wc, _ := cmpNum(x, y)
		if gc, err := Compare(a, b); err != nil || gc != wc {
			t.Fatalf("compare %v %v: %d (%v), big %d", a, b, gc, err, wc)
		}
		for _, target := range []string{rdf.XSDInteger, rdf.XSDDecimal, rdf.XSDString, rdf.XSDDouble, xsdFloat} {
			got, gerr := Cast(target, a)
			var want rdf.Term
			var werr error
			switch n := x; target {
			case rdf.XSDInteger:
				q := new(big.Int).Quo(n.r.Num(), n.r.Denom()) // toward zero
				want = rdf.Literal(q.String(), rdf.XSDInteger)
			case rdf.XSDDecimal:
				want = num{kind: kDecimal, r: n.r}.term()
			case rdf.XSDString:
				want = rdf.String(canonicalString(n))
			case rdf.XSDDouble:
				want = n.to(kDouble).term()
			default:
				want = n.to(kFloat).term()
			}
			same("cast "+target, a, a, got, want, gerr, werr)
		}
		// From a string holding the number (with spaces around), to the integer or decimal it spells.
		src := rdf.String(" " + a.Value + "\t")
		for _, target := range []string{rdf.XSDInteger, rdf.XSDDecimal} {
			got, gerr := Cast(target, src)
			var want rdf.Term
			var werr error = ErrType
			lex := strings.TrimSpace(a.Value)
			if target == rdf.XSDInteger && validInteger(lex) || target == rdf.XSDDecimal && validDecimal(lex) {
				v, _ := new(big.Rat).SetString(lex)
				k := kInteger
				if target == rdf.XSDDecimal {
					k = kDecimal
				}
				want, werr = num{kind: k, r: v}.term(), nil
			}
			same("cast string "+target, src, src, got, want, gerr, werr)
		}
	}
	// Sums that overflow the fixed form carry on in big numbers.
	var s Sum
	large := rdf.Literal("9000000000000000000", rdf.XSDInteger)
	for range 3 {
		if err := s.Add(large); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(rdf.Literal("0.5", rdf.XSDDecimal)); err != nil {
		t.Fatal(err)
	}
	if got := s.Total(); got != rdf.Literal("27000000000000000000.5", rdf.XSDDecimal) {
		t.Errorf("sum %v", got)
	}
	if got, _ := s.Average(); got != rdf.Literal("6750000000000000000.125", rdf.XSDDecimal) {
		t.Errorf("average %v", got)
	}
}

// TestSumAddNumberMatchesAdd adds random integers and decimals to one Sum through AddNumber (the term only when it
// declines) and to another through Add: totals and averages must be the same terms, also where the total leaves
// the int64 form part-way.
func TestSumAddNumberMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for run := range 400 {
		var byNumber, byTerm Sum
		for range 1 + r.IntN(40) {
			dec := r.IntN(2) == 0
			scale := 0
			if dec {
				scale = r.IntN(4)
				if run%7 == 0 {
					scale = r.IntN(maxScale + 1)
				}
			}
			v := r.Int64N([]int64{100, 1 << 27, 1e17, 9e18}[r.IntN(4)])
			if r.IntN(3) == 0 {
				v = -v
			}
			lex := fmt.Sprint(v)
			dt := rdf.XSDInteger
			if dec {
				dt = rdf.XSDDecimal
				if scale > 0 {
					neg := v < 0
					digits := fmt.Sprintf("%0*d", scale+1, absU(v))
					lex = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
					if neg {
						lex = "-" + lex
					}
				}
			}
			term := rdf.Literal(lex, dt)
			if !byNumber.AddNumber(v, scale, dec) {
				if err := byNumber.Add(term); err != nil {
					t.Fatal(err)
				}
			}
			if err := byTerm.Add(term); err != nil {
				t.Fatal(err)
			}
		}
		sameSums(t, fmt.Sprintf("run %d, by terms", run), &byNumber, &byTerm)
	}
}

// TestNumberMatchesArith holds the evaluator's arithmetic on numbers (NumberArith, NumberRound, Term) to the big
// path of Arith and of the rounding functions on the terms: every operand shape randomNumber makes, the operands
// read as NumberOf reads them and also as an id holds them (trailing fractional zeros kept), results that do not
// fit refused.
func TestNumberMatchesArith(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	// unnormal is n with k trailing fractional zeros added, as an inline id holds "1.50" (150, scale 2).
	unnormal := func(n Number, k int) Number {
		for ; k > 0 && n.Dec && n.Scale < maxScale && n.V > -1e17 && n.V < 1e17; k-- {
			n.V, n.Scale = n.V*10, n.Scale+1
		}
		return n
	}
	checked := 0
	for range 20000 {
		a, b := randomNumber(r), randomNumber(r)
		x, okA := NumberOf(a)
		y, okB := NumberOf(b)
		if !okA || !okB {
			continue
		}
		x, y = unnormal(x, r.IntN(3)), unnormal(y, r.IntN(3))
		for _, op := range []byte("+-*/") {
			n, ok := NumberArith(op, x, y)
			if !ok {
				continue
			}
			checked++
			if want, err := arithBig(op, a, b); err != nil || n.Term() != want || n.Normal().Term() != want {
				t.Fatalf("%v %c %v: number %v (%v), Arith %v (%v)", a, op, b, n, n.Term(), want, err)
			}
		}
		for _, fn := range []string{"ABS", "CEIL", "FLOOR", "ROUND"} {
			n, ok := NumberRound(fn, x)
			if !ok {
				continue
			}
			if want, err := roundingBig(fn, a); err != nil || n.Term() != want {
				t.Fatalf("%s(%v): number %v (%v), rounding %v (%v)", fn, a, n, n.Term(), want, err)
			}
		}
	}
	if checked < 10000 {
		t.Errorf("only %d results fit a Number", checked)
	}
}

// TestSumMergeMatchesAdd: values added to two Sums, the second merged into the first, give the total and average of
// adding them all to one in turn, where either part or the total leaves the int64 form (integers, decimals of every
// scale, an integer of a derived type); a part holding a double is not merged.
func TestSumMergeMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for run := range 600 {
		var whole, first, second Sum
		n := r.IntN(30)
		cut := r.IntN(n + 1)
		double := run%10 == 0 && n > 0
		for i := range n {
			v := r.Int64N([]int64{100, 1 << 27, 1e17, 9e18}[r.IntN(4)])
			if r.IntN(3) == 0 {
				v = -v
			}
			var term rdf.Term
			switch k := r.IntN(5); {
			case double && i == n-1:
				term = rdf.Literal(fmt.Sprint(float64(v)/3), rdf.XSDNS+"double")
			case k == 0:
				term = rdf.Literal(fmt.Sprint(v%100), rdf.XSDNS+"byte")
			case k == 1 || k == 2:
				scale := r.IntN(maxScale + 1)
				digits := fmt.Sprintf("%0*d", scale+1, absU(v))
				lex := digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
				if v < 0 {
					lex = "-" + lex
				}
				term = rdf.Literal(lex, rdf.XSDDecimal)
			default:
				term = rdf.Literal(fmt.Sprint(v), rdf.XSDInteger)
			}
			part := &first
			if i >= cut {
				part = &second
			}
			if err := part.Add(term); err != nil {
				t.Fatal(err)
			}
			if err := whole.Add(term); err != nil {
				t.Fatal(err)
			}
		}
		before := first.Total()
		if !first.Merge(&second) {
			if !double {
				t.Fatalf("run %d: exact parts not merged", run)
			}
			if first.Total() != before {
				t.Fatalf("run %d: a refused merge changed the total", run)
			}
			continue
		}
		if double {
			t.Fatalf("run %d: a double merged", run)
		}
		sameSums(t, fmt.Sprintf("run %d, in turn", run), &first, &whole)
	}
}

// sameSums fails the test unless got and want have the same total and average (or both no average).
func sameSums(t *testing.T, what string, got, want *Sum) {
	t.Helper()
	if g, w := got.Total(), want.Total(); g != w {
		t.Fatalf("%s: total %v, want %v", what, g, w)
	}
	g, gerr := got.Average()
	w, werr := want.Average()
	if g != w || (gerr == nil) != (werr == nil) {
		t.Fatalf("%s: average %v (%v), want %v (%v)", what, g, gerr, w, werr)
	}
}
