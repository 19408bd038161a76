package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A join evaluates its right operand once per solution of its left (a bind join), which is what makes a selective
// left side cheap. When the right operand mentions none of the variables the left one mentions, nothing a left
// solution binds reaches it, and every evaluation gives the same solutions: two subqueries side by side (h92: each
// German vendor's average price, then the average of those averages, a GROUP BY over 580 000 offers, evaluated
// again for each of 226 vendors, 42 s of CPU at 10 M), or a cross product of two patterns. The right operand is
// then evaluated for the second left solution with its solutions' values kept as they stream by, and each later
// left solution is extended with the kept values instead (joinReplay).
//
// Why it is exact: a left solution l agrees with the incoming row in on every variable the right operand
// mentions (the left operand binds none of them), and an operator's solutions depend on its input only through the
// variables it mentions, passing the others through unchanged. So the right operand's solutions from l are those
// from the second left solution with l's values in place of the second's, which is what replaying the kept values
// gives, in the same order and multiplicity. A right operand over a few million solutions is not kept
// (replayMaxIDs): it is evaluated per left solution as before, so no new memory bound is met.

// replayMaxIDs bounds the ids joinReplay keeps (16 MiB); past it the right operand is evaluated per left solution.
const replayMaxIDs = 1 << 22

// replayable reports whether a join's right operand (right, after any swap of the sides) may be evaluated once for
// all left solutions: it mentions no variable the left operand mentions, outside EXISTS's substitution and trial
// evaluations (whose evaluations of a pattern are counted and stopped by the caller).
func (e *evaluator) replayable(left, right algebra.Op) bool {
	if e.subst > 0 || e.trial != nil || e.opt.replayMax < 0 {
		return false
	}
	if _, ok := right.(*algebra.Table); ok {
		return false // a VALUES is its rows already
	}
	l, r := e.infoOf(left).mentioned, e.infoOf(right).mentioned
	return !l.over && !r.over && !r.empty() && l.inter(r).empty()
}

// joinReplay evaluates Join(left, right) from in, right at most twice (see the comment above): for the first left
// solution as it comes, since a left side of one solution (an aggregate's subquery, b19) gains nothing from a
// copy, and for the second with its solutions' values kept, replayed for every later one.
func (e *evaluator) joinReplay(left, right algebra.Op, in []ID, emit emitFn, errp *error) bool {
	slots := e.infoOf(right).mentioned.bits2slots()
	var kept []ID // the right solutions' values in slots, len(slots) ids each
	var held int64
	defer func() { e.bytes -= held }()
	seen, keeping := 0, true
	maxIDs := replayMaxIDs
	if e.opt.replayMax > 0 {
		maxIDs = e.opt.replayMax
	}
	out := make([]ID, e.nvars)
	return e.exec(left, in, func(l []ID) bool {
		seen++
		switch {
		case seen > 2 && keeping:
			for i := 0; i < len(kept); i += len(slots) {
				copy(out, l)
				for k, s := range slots {
					out[s] = kept[i+k]
				}
				if !emit(out) {
					return false
				}
			}
			return true
		case seen != 2 || !keeping:
			return e.exec(right, l, emit, errp)
		}
		return e.exec(right, l, func(r []ID) bool {
			if keeping {
				if len(kept)+len(slots) > maxIDs {
					keeping, kept = false, nil
					e.bytes -= held
					held = 0
				} else {
					for _, s := range slots {
						kept = append(kept, r[s])
					}
					if cap(kept) > int(held/4) {
						n := int64(4 * cap(kept))
						if err := e.holdBytes(n - held); err != nil {
							*errp = err
							return false
						}
						held = n
					}
				}
			}
			return emit(r)
		}, errp)
	}, errp)
}
