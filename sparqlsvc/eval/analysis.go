package eval

import (
	mathbits "math/bits"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// varset is a set of variable slots. Queries with more than 64 variables mark sets as overflowed, which makes
// every safety test fail: evaluation then takes the always-correct independent path.
type varset struct {
	bits uint64
	over bool
}

func (s varset) with(i int) varset {
	if i >= 64 {
		s.over = true
		return s
	}
	s.bits |= 1 << uint(i)
	return s
}
func (s varset) union(t varset) varset { return varset{s.bits | t.bits, s.over || t.over} }
func (s varset) inter(t varset) varset { return varset{s.bits & t.bits, s.over && t.over} }

// minus is s without t's slots (still overflowed when s is: which slots past 64 it held is not known).
func (s varset) minus(t varset) varset { return varset{s.bits &^ t.bits, s.over} }

// subsetOf reports s ⊆ t (false whenever either overflowed, to stay conservative).
func (s varset) subsetOf(t varset) bool { return !s.over && !t.over && s.bits&^t.bits == 0 }
func (s varset) empty() bool            { return !s.over && s.bits == 0 }

// only returns the one slot s holds; ok is false when it holds none or several, or overflowed (past 64 slots a
// set cannot tell which it holds: two sets of one slot each past 64 compare equal).
func (s varset) only() (slot int, ok bool) {
	if s.over || s.bits == 0 || s.bits&(s.bits-1) != 0 {
		return -1, false
	}
	return mathbits.TrailingZeros64(s.bits), true
}

// has reports whether slot i is in the set (a set past 64 slots holds every slot it may).
func (s varset) has(i int) bool { return i >= 0 && (s.over || i < 64 && s.bits&(1<<uint(i)) != 0) }

type opInfo struct {
	mentioned varset // every variable anywhere in the operator, expressions and EXISTS patterns included
	certain   varset // variables bound in every solution of the operator
}

func (e *evaluator) varsOfExpr(x algebra.Expr) varset {
	var s varset
	algebra.WalkExpr(x, func(x algebra.Expr) bool {
		switch v := x.(type) {
		case algebra.Var:
			s = s.with(e.slot(v))
		case *algebra.Exists:
			if v.Pattern != nil {
				s = s.union(e.infoOf(v.Pattern).mentioned)
			}
		}
		return true
	})
	return s
}

func (e *evaluator) nodeVars(ns ...algebra.Node) varset {
	var s varset
	for _, n := range ns {
		if n.IsVar() {
			s = s.with(e.slot(n.Var))
		}
	}
	return s
}

func (e *evaluator) infoOf(op algebra.Op) *opInfo {
	if in, ok := e.info[op]; ok {
		return in
	}
	in := &opInfo{}
	switch x := op.(type) {
	case *algebra.BGP:
		for _, t := range x.Triples {
			in.mentioned = in.mentioned.union(e.nodeVars(t.S, t.P, t.O))
		}
		in.certain = in.mentioned
	case *algebra.PathPattern:
		in.mentioned = e.nodeVars(x.S, x.O)
		in.certain = in.mentioned
	case *algebra.Join:
		l, r := e.infoOf(x.Left), e.infoOf(x.Right)
		in.mentioned = l.mentioned.union(r.mentioned)
		in.certain = l.certain.union(r.certain)
	case *algebra.LeftJoin:
		l, r := e.infoOf(x.Left), e.infoOf(x.Right)
		in.mentioned = l.mentioned.union(r.mentioned)
		if x.Expr != nil {
			in.mentioned = in.mentioned.union(e.varsOfExpr(x.Expr))
		}
		in.certain = l.certain
	case *algebra.Filter:
		p := e.infoOf(x.Op)
		in.mentioned, in.certain = p.mentioned, p.certain
		for _, f := range x.Exprs {
			in.mentioned = in.mentioned.union(e.varsOfExpr(f))
		}
	case *algebra.Union:
		l, r := e.infoOf(x.Left), e.infoOf(x.Right)
		in.mentioned = l.mentioned.union(r.mentioned)
		in.certain = l.certain.inter(r.certain)
	case *algebra.Minus:
		l, r := e.infoOf(x.Left), e.infoOf(x.Right)
		in.mentioned = l.mentioned.union(r.mentioned)
		in.certain = l.certain
	case *algebra.Graph:
		p := e.infoOf(x.Op)
		in.mentioned = p.mentioned.union(e.nodeVars(x.Name))
		in.certain = p.certain.union(e.nodeVars(x.Name))
	case *algebra.Service:
		p := e.infoOf(x.Op)
		in.mentioned = p.mentioned.union(e.nodeVars(x.Name))
	case *algebra.Extend:
		p := e.infoOf(x.Op)
		in.mentioned = p.mentioned.union(e.varsOfExpr(x.Expr)).with(e.slot(x.Var))
		in.certain = p.certain
	case *algebra.Table:
		for i, v := range x.Vars {
			in.mentioned = in.mentioned.with(e.slot(v))
			always := true
			for _, r := range x.Rows {
				if r[i].IsZero() {
					always = false
				}
			}
			if always {
				in.certain = in.certain.with(e.slot(v))
			}
		}
	case *algebra.Group:
		p := e.infoOf(x.Op)
		in.mentioned = p.mentioned
		for _, k := range x.Keys {
			in.mentioned = in.mentioned.union(e.varsOfExpr(k.Expr))
			if k.Var != "" {
				in.mentioned = in.mentioned.with(e.slot(k.Var))
			}
		}
		for _, a := range x.Aggregates {
			in.mentioned = in.mentioned.with(e.slot(a.Var))
			if a.Aggregate.Expr != nil {
				in.mentioned = in.mentioned.union(e.varsOfExpr(a.Aggregate.Expr))
			}
		}
	case *algebra.OrderBy:
		p := e.infoOf(x.Op)
		in.mentioned, in.certain = p.mentioned, p.certain
		for _, c := range x.Conds {
			in.mentioned = in.mentioned.union(e.varsOfExpr(c.Expr))
		}
	case *algebra.Project:
		p := e.infoOf(x.Op)
		var proj varset
		for _, v := range x.Vars {
			proj = proj.with(e.slot(v))
		}
		in.mentioned = p.mentioned.union(proj)
		in.certain = p.certain.inter(proj)
	case *algebra.Distinct:
		*in = *e.infoOf(x.Op)
	case *algebra.Reduced:
		*in = *e.infoOf(x.Op)
	case *algebra.Slice:
		*in = *e.infoOf(x.Op)
	}
	e.info[op] = in
	return in
}

type safeKey struct {
	op    algebra.Op
	bound varset
}

// safe reports whether running op with the bound variables substituted gives the same solutions as evaluating op on
// its own and joining (see the package comment).
func (e *evaluator) safe(op algebra.Op, bound varset) bool {
	if bound.empty() {
		return true
	}
	k := safeKey{op, bound}
	// exec asks once per input row, mostly the same few questions in turn: a glance at the latest answers saves
	// hashing the key.
	for i := range e.safeRecent {
		if r := &e.safeRecent[i]; r.k == k {
			return r.v
		}
	}
	if v, ok := e.safeC[k]; ok {
		e.rememberSafe(k, v)
		return v
	}
	var ok bool
	switch x := op.(type) {
	case *algebra.BGP, *algebra.Table:
		ok = true
	case *algebra.PathPattern:
		// Substituting is exact except for zero-length matches: evaluated on its own, a path between two variables
		// only pairs nodes of the graph, so an outer value that is not a node must not match (pathPattern checks).
		ok = true
	case *algebra.Service:
		ok = true // the remote pattern is sent as written and its answers are joined with the input
	case *algebra.Join:
		ok = e.safe(x.Left, bound) && e.safe(x.Right, bound.union(e.infoOf(x.Left).certain))
	case *algebra.Union:
		ok = e.safe(x.Left, bound) && e.safe(x.Right, bound)
	case *algebra.Filter:
		p := e.infoOf(x.Op)
		ok = e.safe(x.Op, bound)
		for _, f := range x.Exprs {
			ok = ok && e.varsOfExpr(f).inter(bound).subsetOf(p.certain)
		}
	case *algebra.LeftJoin:
		l, r := e.infoOf(x.Left), e.infoOf(x.Right)
		rv := r.mentioned
		if x.Expr != nil {
			rv = rv.union(e.varsOfExpr(x.Expr))
		}
		ok = e.safe(x.Left, bound) && rv.inter(bound).subsetOf(l.certain)
	case *algebra.Minus:
		l, r := e.infoOf(x.Left), e.infoOf(x.Right)
		ok = e.safe(x.Left, bound) && r.mentioned.inter(bound).subsetOf(l.certain)
	case *algebra.Graph:
		ok = e.safe(x.Op, bound)
	case *algebra.Extend:
		p := e.infoOf(x.Op)
		ok = e.safe(x.Op, bound) && e.varsOfExpr(x.Expr).inter(bound).subsetOf(p.certain)
	case *algebra.Project:
		// The operand's variables the projection hides are other variables than the outer ones of that name: none
		// may come in bound. The projected ones reach the operand as they would be joined.
		var proj varset
		for _, v := range x.Vars {
			proj = proj.with(e.slot(v))
		}
		b := bound.inter(e.infoOf(x.Op).mentioned)
		ok = b.subsetOf(proj) && e.safe(x.Op, b)
	case *algebra.Group:
		ok = e.safeGroup(x, bound)
	default: // Service, OrderBy, Distinct, Reduced, Slice
		ok = e.infoOf(op).mentioned.inter(bound).empty()
	}
	e.safeC[k] = ok
	e.rememberSafe(k, ok)
	return ok
}

// safeAnswer is one of the latest answers of safe.
type safeAnswer struct {
	k safeKey
	v bool
}

func (e *evaluator) rememberSafe(k safeKey, v bool) {
	e.safeRecent[e.safeNext%len(e.safeRecent)] = safeAnswer{k, v}
	e.safeNext++
}

func (e *evaluator) boundSet(row []ID) varset {
	var s varset
	for i, id := range row {
		if id != 0 {
			s = s.with(i)
		}
	}
	return s
}

// safeGroup is safe for a GROUP BY: substituting is exact when every bound variable it mentions is a key that is
// a plain variable (GROUP BY ?x) bound in every solution of the operand, and the operand is safe with them. The
// operand's solutions with ?x = v are then exactly the group of key v, aggregated as on its own, and no other
// group joins with ?x = v (none has ?x unbound); a group subquery joined back to the outer pattern (the offers
// and reviews counted per product, for a producer's products) then reads one product's rows per outer solution
// instead of grouping every offer. An aggregate's variable or a key expression bound outside is left to the join.
func (e *evaluator) safeGroup(x *algebra.Group, bound varset) bool {
	b := bound.inter(e.infoOf(x).mentioned)
	if b.empty() {
		return true
	}
	var keys varset
	for _, k := range x.Keys {
		if v, ok := k.Expr.(algebra.Var); ok && v == k.Var {
			keys = keys.with(e.slot(v))
		}
	}
	return b.subsetOf(keys) && b.subsetOf(e.infoOf(x.Op).certain) && e.safe(x.Op, b)
}
