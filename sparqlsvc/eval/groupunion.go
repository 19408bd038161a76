package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A GROUP BY over a UNION (h157: { ?review dc:publisher ?site . { ?review bsbm:rating1 ?v BIND(1 AS ?kind) } UNION
// { ?review bsbm:rating2 ?v BIND(2 AS ?kind) } } GROUP BY ?site, which unionSpread makes a union of two merged
// BGPs under their BINDs) passed every solution of every branch through the union, the BIND and the join one by
// one: none of the group's paths that read a star in subject order (groupOptStars) or count a pattern's runs
// (groupRuns) sees through a UNION or a BIND. A group's state takes solutions in any order, and a union's solutions
// are its branches', so groupUnion hands the state each branch's solutions by whichever path a GROUP BY with the
// same keys and aggregates over that branch alone takes (groupInto).
//
// A branch ending in BINDs of constants (expressions without variables that give one value per call: pushable)
// binds the same value on every solution: Extend(P, ?k, c) is P's solutions with ?k bound to c's value, or left
// unbound when c is an error, as long as P does not mention ?k (so nothing in P reads or binds it) and ?k comes in
// unbound (else the BIND compares instead). Those BINDs are taken off the branch and their values bound in the
// row the branch is evaluated from: P's solutions extend that row, so they carry them, and the paths see P alone.
// An aggregate reading ?k (SUM(IF(?kind = 1, 1, 0))) then reads one value for the whole branch, which the star
// paths' solution cache takes as one more variable that never changes.

// unionGroupKey is a group and the variables bound in its input: unionSpread's rewrite depends on them.
type unionGroupKey struct {
	x     *algebra.Group
	bound varset
}

// unionBranch is one branch of a group's UNION: the group over it, with the group's keys and aggregates, and the
// constant BINDs taken off it.
type unionBranch struct {
	op    algebra.Op // the branch as written
	x     *algebra.Group
	binds []constBind
}

// constBind is a BIND of an expression without variables, taken off a branch: its variable's slot and expression.
type constBind struct {
	slot int
	expr algebra.Expr
}

// unionGroupMax is the most branches groupUnion takes apart; a union of more is evaluated as written.
const unionGroupMax = 8

// groupUnion hands g the solutions of x's operand, a UNION (or a join unionSpread makes one), branch by branch
// through groupInto; handled is false when the operand is not one.
func (e *evaluator) groupUnion(x *algebra.Group, in []ID, g *groupState, errp *error) (handled, ok bool) {
	if e.opt.plainJoins {
		return false, false
	}
	bound := e.boundSet(in)
	branches := madeOnce(&e.unionGroups, unionGroupKey{x, bound}, func() []unionBranch { return e.unionBranchesOf(x, bound) })
	if branches == nil {
		return false, false
	}
	for _, b := range branches {
		for _, c := range b.binds {
			if in[c.slot] != 0 { // the BIND compares with the value coming in: evaluated as written
				return false, false
			}
		}
	}
	row := slices.Clone(in)
	for _, b := range branches {
		asWritten := false
		for _, c := range b.binds {
			if v, err := e.eval(c.expr, row, errp); *errp != nil {
				return true, false
			} else if err == nil {
				row[c.slot] = e.t.id(v)
				// A value the data lacks has an id of the query's overlay, which a worker splitting the
				// branch's rows (groupHalves) would read as one of its own: such a branch runs as written.
				asWritten = asWritten || !e.t.inData(row[c.slot])
			}
		}
		var ok bool
		if asWritten {
			ok = e.exec(b.op, in, func(row []ID) bool { return g.add(row, 1, errp) }, errp)
		} else {
			ok = e.groupInto(b.x, row, g, errp)
		}
		if !ok {
			return true, false
		}
		for _, c := range b.binds {
			row[c.slot] = 0
		}
	}
	return true, true
}

// unionBranchesOf returns the branches of x's operand when it is a UNION, or a join unionSpread rewrites into one
// for the variables bound, and nil otherwise.
func (e *evaluator) unionBranchesOf(x *algebra.Group, bound varset) []unionBranch {
	op := x.Op
	if j, isJoin := op.(*algebra.Join); isJoin {
		if op = e.unionSpread(j, bound); op == nil {
			return nil
		}
	}
	if _, isUnion := op.(*algebra.Union); !isUnion {
		return nil
	}
	var ops []algebra.Op
	var collect func(op algebra.Op) bool
	collect = func(op algebra.Op) bool {
		if y, ok := op.(*algebra.Union); ok {
			return collect(y.Left) && collect(y.Right)
		}
		ops = append(ops, op)
		return len(ops) <= unionGroupMax
	}
	if !collect(op) {
		return nil
	}
	out := make([]unionBranch, len(ops))
	for i, op := range ops {
		out[i].op = op
		var binds []constBind
		for {
			y, isExtend := op.(*algebra.Extend)
			if !isExtend || !pushable(y.Expr) || !e.varsOfExpr(y.Expr).empty() {
				break
			}
			s, below := e.slot(y.Var), e.infoOf(y.Op).mentioned
			if below.over || s >= 64 || below.has(s) {
				break
			}
			binds = append(binds, constBind{slot: s, expr: y.Expr})
			op = y.Op
		}
		// The BINDs are made in the order they were written, innermost first.
		slices.Reverse(binds)
		out[i].x, out[i].binds = &algebra.Group{Op: op, Keys: x.Keys, Aggregates: x.Aggregates}, binds
	}
	return out
}
