package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A BGP joined with a UNION of BGPs ({ ?review dc:publisher ?site . { ?review bsbm:rating1 ?v } UNION { ?review
// bsbm:rating2 ?v } }, h157) was a bind join from the BGP: every subject with a publisher (935 000 at 10 M:
// offers, reviews, persons, products) probed each branch, though only the 400 000 ratings' reviews match. A join
// distributes over a union (Join(L, Union(A, B)) = Union(Join(L, A), Join(L, B)), bags included), and a BGP
// joined with a BGP is one BGP: each branch with L's patterns added is planned as one BGP, which starts from its
// smaller side. A branch may end in BINDs (Extend): Join(L, Extend(P, ?v, e)) = Extend(Join(L, P), ?v, e) when L
// does not mention ?v and every variable of e that L mentions is one P binds (a BGP binds all it mentions), so e
// reads the same values; e may not hold an EXISTS, whose pattern would see L's variables.

// spreadMaxBranches is the most branches a union may have to be spread: L is evaluated once per branch.
const spreadMaxBranches = 4

// unionSpread returns the union of x's BGP side merged into each branch of its UNION side, when x is such a join,
// its branches each start with fewer rows than the BGP alone (the planner's estimates with the input's bound
// variables), and nil otherwise. The rewritten union is made once per join and bound set.
func (e *evaluator) unionSpread(x *algebra.Join, bound varset) algebra.Op {
	return joinRewrite(&e.spread, crossKey{x, bound}, func() algebra.Op { return e.spreadOf(x, bound) })
}

func (e *evaluator) spreadOf(x *algebra.Join, bound varset) algebra.Op {
	if e.opt.plainJoins {
		return nil
	}
	l, isBGP := x.Left.(*algebra.BGP)
	u := x.Right
	if !isBGP {
		l, isBGP = x.Right.(*algebra.BGP)
		u = x.Left
	}
	if _, isUnion := u.(*algebra.Union); !isUnion || !isBGP || len(l.Triples) == 0 {
		return nil
	}
	var branches []algebra.Op
	var collect func(op algebra.Op) bool
	collect = func(op algebra.Op) bool {
		if y, ok := op.(*algebra.Union); ok {
			return collect(y.Left) && collect(y.Right)
		}
		branches = append(branches, op)
		return len(branches) <= spreadMaxBranches
	}
	if !collect(u) {
		return nil
	}
	lv := e.infoOf(l).mentioned
	var out algebra.Op
	var branchRows float64
	for _, b := range branches {
		merged, ok := e.spreadBranch(l, lv, b)
		if !ok {
			return nil
		}
		if p := spreadCore(b); len(p.Triples) > 0 {
			branchRows += e.rowsEstimate(p, bound)
		} else {
			return nil // a branch of BINDs alone starts from L anyway
		}
		if out == nil {
			out = merged
		} else {
			out = &algebra.Union{Left: out, Right: merged}
		}
	}
	if branchRows >= e.rowsEstimate(l, bound) {
		return nil
	}
	return out
}

// spreadCore is the BGP under a branch's BINDs, or nil when the branch is not a BGP under BINDs.
func spreadCore(op algebra.Op) *algebra.BGP {
	for {
		switch y := op.(type) {
		case *algebra.Extend:
			op = y.Op
		case *algebra.BGP:
			return y
		default:
			return nil
		}
	}
}

// spreadBranch returns Join(l, b) as one BGP under b's BINDs, or false when b is not a BGP under BINDs that
// may be moved above the join (see above).
func (e *evaluator) spreadBranch(l *algebra.BGP, lv varset, b algebra.Op) (algebra.Op, bool) {
	switch y := b.(type) {
	case *algebra.BGP:
		ts := make([]algebra.Triple, 0, len(l.Triples)+len(y.Triples))
		ts = append(append(ts, l.Triples...), y.Triples...)
		return &algebra.BGP{Triples: ts}, true
	case *algebra.Extend:
		if hasExists(y.Expr) || lv.has(e.slot(y.Var)) {
			return nil, false
		}
		core := spreadCore(y.Op)
		if core == nil || !e.varsOfExpr(y.Expr).inter(lv).subsetOf(e.infoOf(core).mentioned) {
			return nil, false
		}
		inner, ok := e.spreadBranch(l, lv, y.Op)
		if !ok {
			return nil, false
		}
		return &algebra.Extend{Op: inner, Var: y.Var, Expr: y.Expr}, true
	}
	return nil, false
}
