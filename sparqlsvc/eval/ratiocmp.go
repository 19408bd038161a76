package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A quotient compared with a number, FILTER(?a / ?b > 1) or IF(?n1 / ?n5 > 1, …) per solution, computed the
// quotient in builtin.Value form (128 bits, 18 places) and compared that: about half of h141's CPU for its 3 250
// products with both values, and the solutions where ?n5 is unbound went through every general step before the
// division met its unbound operand. A ratio site reads the three operands' ids instead.
//
// Why it is exact. The operands a = A/10^sa, b = B/10^sb and c = C/10^sc are numbers held in ids (xsd:integer or
// xsd:decimal, |A|, |B|, |C| < 2^27, scales ≤ 3) and B ≠ 0. The division's value is q' = a/b cut to 18 places
// toward zero (builtin's quo), so |q' − q| < 10^-18 for the exact quotient q. q − c = (A·10^(sb+sc) − C·B·10^sa) /
// (B·10^(sa+sc)): when it is not 0 its size is at least 1/(|B|·10^6) > 7·10^-15, so q' − c has the sign of q − c;
// when it is 0, q = c has at most 3 places and q' = q. The sign of q − c is that of L − R with L = A·10^(sb+sc)·
// sign(B) and R = C·|B|·10^sa (both sides multiplied by |B|·10^(sa+sc) > 0), integers: |L| < 2^47, and |C·B| < 2^54
// fits an int64; where |C·B| ≥ 2^52, |R| > |L| and R's sign decides. An unbound operand is the comparison's error
// (the division and the comparison are strict in their operands). Anything else (a double, a term no id holds, a
// zero divisor) is left to the general path.

// ratioSite is a comparison whose one operand is a quotient of two variables or constants and the other a variable
// or a constant: a (the dividend), b (the divisor), c (the other); per operand its slot or -1 and a constant's id.
type ratioSite struct {
	slots [3]int
	ids   [3]ID
}

// ratioSiteOf returns c's ratio site (flip: the quotient is the right operand), or nil when c has not that form or
// a constant operand is not a number held in an id.
func (e *evaluator) ratioSiteOf(c *algebra.Call) (r *ratioSite, flip bool) {
	for i := range 2 {
		d, isCall := c.Args[i].(*algebra.Call)
		if !isCall || d.Func != "/" || len(d.Args) != 2 {
			continue
		}
		r = &ratioSite{}
		for k, x := range [3]algebra.Expr{d.Args[0], d.Args[1], c.Args[1-i]} {
			switch v := x.(type) {
			case algebra.Var:
				r.slots[k] = e.slot(v)
			case algebra.Constant:
				id, ok := index.InlineID(v.Term)
				if _, _, num := index.InlineNumber(id); !ok || !num {
					return nil, false
				}
				r.slots[k], r.ids[k] = -1, id
			default:
				return nil, false
			}
		}
		return r, i == 1
	}
	return nil, false
}

// ratioCompare answers s, a ratio site, over row: the result, or the error of an unbound operand; ok is false
// where the general path must decide.
func (e *evaluator) ratioCompare(s *cmpSite, row []ID) (result bool, err error, ok bool) {
	if e.noValues || s.opc == 0 {
		return false, nil, false
	}
	var v [3]int64
	var sc [3]int
	for k, slot := range s.ratio.slots {
		id := s.ratio.ids[k]
		if slot >= 0 {
			if id = row[slot]; id == 0 {
				return false, errUnbound, true
			}
		}
		var num bool
		if v[k], sc[k], num = index.InlineNumber(id); !num {
			return false, nil, false
		}
	}
	if v[1] == 0 {
		return false, nil, false // division by zero: the general path's error
	}
	r := ratioSign(v[0], sc[0], v[1], sc[1], v[2], sc[2])
	if s.flip {
		r = -r
	}
	return opTable[s.opc][r+1], nil, true
}

// ratioSign is the sign of (a/10^sa) / (b/10^sb) − c/10^sc for |a|, |b|, |c| < 2^27, scales ≤ 3 and b ≠ 0, as the
// comment above derives it.
func ratioSign(a int64, sa int, b int64, sb int, c int64, sc int) int {
	l := a * pow10[sb+sc]
	if b < 0 {
		l, b = -l, -b
	}
	cb := c * b
	if cb >= 1<<52 || cb <= -(1<<52) {
		if cb > 0 {
			return -1
		}
		return 1
	}
	switch r := cb * pow10[sa]; {
	case l < r:
		return -1
	case l > r:
		return 1
	}
	return 0
}

// pow10 holds 10^0 … 10^6, the scales ratioSign meets.
var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000}
