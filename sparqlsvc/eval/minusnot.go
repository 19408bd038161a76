package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// MINUS removes a left solution compatible with some right solution that shares a variable with it (§18.5); the
// right operand is evaluated on its own. FILTER NOT EXISTS { P } removes a left solution for which P, with the
// solution's values substituted, has a solution (§18.6). Evaluated as written, MINUS evaluates its whole right
// operand and holds it before the first left solution: h159 (`MINUS { ?review reviewer ?who OPTIONAL { ?review
// rating1 ?r1 } FILTER(BOUND(?r1) && ?r1 <= 2) }` for the Chinese reviewers) read every review with its rating at
// 10 M to remove a few hundred persons. As NOT EXISTS, the right side is probed per left solution, or a set of its
// key values is built once when the left solutions are many (semijoin.go: the set is charged to the budget, and
// optbits.go and starSet read such patterns without joining their rows).
//
// When the two are the same: every left solution L and right solution R that are compatible must share a variable,
// which holds when a variable is bound in every solution of both operands (opInfo.certain of each); and
// substituting a left solution's values into the right operand must give exactly its own solutions compatible with
// them (safe, with every variable the left operand mentions or the input row binds: safe only gets stricter with
// more variables bound, so this holds for each solution's own bound variables). Then the substituted pattern has a
// solution exactly when some right solution is compatible with L, and that one shares a variable with L. Inside
// EXISTS the input row holds the outer solution; its slots are part of the check, as substitution reads them.
// Operands whose answers may differ per evaluation (RAND, BNODE, UUID, STRUUID, SERVICE) are left as written: MINUS
// evaluates them once, NOT EXISTS would per solution.
//
// A FILTER over OPTIONALs in the right operand often makes them inner joins: FILTER(BOUND(?r1) && ?r1 <= 2) is
// false or an error in every solution where ?r1, which only the OPTIONAL binds, is unbound, so the solutions the
// OPTIONAL keeps without a match are all dropped (innerOptionals). As a join of triple patterns the right operand is
// one BGP under the FILTER, which the planner may start from either side, and which safe accepts with more
// variables bound (a FILTER over an OPTIONAL reading a left variable is not safe; over a BGP binding it, it is).

// minusPlan is how a MINUS is evaluated: right is its right operand, or one with the same solutions
// (innerOptionals); not is FILTER NOT EXISTS { right } over its left operand, nil where that is never the same.
// always: right is a BGP (under FILTERs reading only its variables), which every input row leaves safe.
type minusPlan struct {
	right  algebra.Op
	not    *algebra.Filter
	always bool
}

// minusPlanOf returns x's plan, made once per MINUS so that its NOT EXISTS keeps its memo and its set.
func (e *evaluator) minusPlanOf(x *algebra.Minus) *minusPlan {
	if p, ok := e.minusNot[x]; ok {
		return p
	}
	p := &minusPlan{right: x.Right}
	if e.minusNot == nil {
		e.minusNot = map[*algebra.Minus]*minusPlan{}
	}
	e.minusNot[x] = p
	if e.opt.noMinusNot {
		return p
	}
	if f, ok := x.Right.(*algebra.Filter); ok {
		if r := e.innerOptionals(f); r != nil {
			p.right = r
		}
	}
	right, conds := p.right, []algebra.Expr(nil)
	if rf, ok := right.(*algebra.Filter); ok {
		right, conds = rf.Op, rf.Exprs
	}
	left := e.infoOf(x.Left).certain
	var shared varset
	if b, ok := right.(*algebra.BGP); ok && len(b.Triples) > 0 && e.localConds(conds, e.infoOf(b).mentioned) {
		// A BGP's solutions bind all of its variables, and its FILTERs read only them: safe with any bindings.
		shared, p.always = left.inter(e.infoOf(b).mentioned), true
	} else if !volatileOp(p.right) {
		shared = left.inter(e.infoOf(p.right).certain)
	}
	if !shared.over && !shared.empty() {
		p.not = &algebra.Filter{Exprs: []algebra.Expr{&algebra.Exists{Not: true, Pattern: p.right}}, Op: x.Left}
	}
	return p
}

// minusAsNotExists returns FILTER NOT EXISTS { right } over x's left operand when that answers exactly what x does
// from the input row in (see above), else nil. MINUS evaluated the whole right operand before the first left
// solution, which is all offers of all US vendors to remove a few dozen products (h17: 196 against 8 ms CPU at
// 10 M), or every review with its rating to remove a few hundred reviewers (h159).
func (e *evaluator) minusAsNotExists(x *algebra.Minus, in []ID) *algebra.Filter {
	p := e.minusPlanOf(x)
	if p.not == nil || p.always {
		return p.not
	}
	r := e.infoOf(p.right).mentioned
	if e.safe(p.right, e.infoOf(x.Left).mentioned.union(e.boundSet(in)).inter(r)) {
		return p.not
	}
	return nil
}

// localConds reports whether FILTER conditions inside MINUS's right operand read only variables of its BGP (vars)
// and hold no EXISTS, so that they test a right solution alike in MINUS, which evaluates them without the left
// solution, and in NOT EXISTS, which substitutes the left solution's values: only into variables the BGP binds
// too, to the same values in every right solution compatible with it. A condition on a variable the BGP does not
// bind would be unbound (an error, false) in MINUS but the left value in NOT EXISTS.
func (e *evaluator) localConds(conds []algebra.Expr, vars varset) bool {
	for _, c := range conds {
		if hasExists(c) || !e.varsOfExpr(c).subsetOf(vars) {
			return false
		}
	}
	return true
}

// innerOptionals returns f with the OPTIONALs of its operand that its conditions make inner joins joined into
// its BGP, or nil when there is none. f's operand must be OPTIONALs without conditions of their own, each of one
// BGP, over a BGP (base): LeftJoin(…LeftJoin(base, B1)…, Bk). Bi is made a join when a condition rejects every
// solution in which one of Bi's variables that base does not mention is unbound (rejectsUnbound), and Bi shares
// no variable with another Bj but through base's.
//
// Why that is exact, as an operator on its own (evaluated with nothing bound): base's solutions without a match in
// Bi leave Bi's own variable v unbound, and no other OPTIONAL binds it, so every solution built on them fails the
// FILTER: dropping them is the join. A join and a left join over base commute when their right sides share only
// variables base binds in every solution (a BGP's), so the joined Bi move into base and the other OPTIONALs keep
// their order over it. With a variable bound from outside (substitution, inside EXISTS) base's solutions would
// carry v's value: minusPlanOf uses the result only as MINUS's right operand, which is evaluated on its own, or as
// a NOT EXISTS where safe says the substitution is the same as the join with it.
func (e *evaluator) innerOptionals(f *algebra.Filter) algebra.Op {
	var opts []*algebra.BGP
	op := f.Op
	for {
		lj, ok := op.(*algebra.LeftJoin)
		if !ok {
			break
		}
		b, ok := lj.Right.(*algebra.BGP)
		if !ok || lj.Expr != nil {
			return nil
		}
		opts = append(opts, b)
		op = lj.Left
	}
	base, ok := op.(*algebra.BGP)
	if !ok || len(opts) == 0 {
		return nil
	}
	slices.Reverse(opts) // as written: B1 first
	mentioned := e.infoOf(base).mentioned
	if mentioned.over {
		return nil
	}
	inner := make([]bool, len(opts))
	some := false
	for i, b := range opts {
		own := e.infoOf(b).mentioned.minus(mentioned)
		var others varset
		for j, c := range opts {
			if j != i {
				others = others.union(e.infoOf(c).mentioned)
			}
		}
		if own.over || others.over || !own.inter(others).empty() {
			continue
		}
		for _, t := range b.Triples {
			for _, n := range []algebra.Node{t.S, t.P, t.O} {
				if n.IsVar() && own.has(e.slot(n.Var)) && !inner[i] && rejectsAnyUnbound(f.Exprs, n.Var) {
					inner[i], some = true, true
				}
			}
		}
	}
	if !some {
		return nil
	}
	joined := &algebra.BGP{Triples: slices.Clone(base.Triples)}
	for i, b := range opts {
		if inner[i] {
			joined.Triples = append(joined.Triples, b.Triples...)
		}
	}
	var out algebra.Op = joined
	for i, b := range opts {
		if !inner[i] {
			out = &algebra.LeftJoin{Left: out, Right: b}
		}
	}
	return &algebra.Filter{Exprs: f.Exprs, Op: out}
}

// rejectsAnyUnbound reports whether one of a FILTER's conditions is false or an error in every solution where v is
// unbound (rejectsUnbound).
func rejectsAnyUnbound(conds []algebra.Expr, v algebra.Var) bool {
	for _, c := range conds {
		if rejectsUnbound(c, v) {
			return true
		}
	}
	return false
}

// rejectsUnbound reports whether x's effective boolean value is false or an error wherever v is unbound, whatever
// the other variables hold: v itself; BOUND(v); a && with such a side (false && anything is false, an error && false is
// false, else an error); a || of two such sides (an error or false on both sides is an error or false); a
// comparison whose operand is an error there (errsUnbound). Anything else (!, IF, COALESCE, functions) is not
// looked into: the answer is then no.
func rejectsUnbound(x algebra.Expr, v algebra.Var) bool {
	if w, ok := x.(algebra.Var); ok {
		return w == v // an unbound variable's value is an error
	}
	c, ok := x.(*algebra.Call)
	if !ok {
		return false
	}
	switch c.Func {
	case "BOUND":
		return len(c.Args) == 1 && c.Args[0] == algebra.Expr(v)
	case "&&":
		return len(c.Args) == 2 && (rejectsUnbound(c.Args[0], v) || rejectsUnbound(c.Args[1], v))
	case "||":
		return len(c.Args) == 2 && rejectsUnbound(c.Args[0], v) && rejectsUnbound(c.Args[1], v)
	case "=", "!=", "<", ">", "<=", ">=":
		return len(c.Args) == 2 && (errsUnbound(c.Args[0], v) || errsUnbound(c.Args[1], v))
	}
	return false
}

// errsUnbound reports whether evaluating x is an error wherever v is unbound: v itself, or arithmetic with such an
// operand (§17.3: the operators' operands are evaluated first, and an error is passed on).
func errsUnbound(x algebra.Expr, v algebra.Var) bool {
	switch c := x.(type) {
	case algebra.Var:
		return c == v
	case *algebra.Call:
		switch c.Func {
		case "+", "-", "*", "/":
			for _, a := range c.Args {
				if errsUnbound(a, v) {
					return true
				}
			}
		}
	}
	return false
}
