package protocol

import "github.com/ldhub/ldhub/sparqlsvc/algebra"

// isLookup reports whether q's plan is known cheap, so that the gate may run it outside its slots (Gate.enter):
// every triple pattern is read from a constant subject or from a subject that an earlier pattern of its group, the
// left side of its join or OPTIONAL, or a VALUES or BIND binds, so each is an index lookup and its rows are
// bounded by the fan-out of the constants, not by the size of the data. Property paths (a closure may reach the
// whole graph) and SERVICE are not lookups. It is a judgement on the text, not a proof: a constant with a huge
// fan-out passes it, which is why a lookup runs under lookupLimits.
func isLookup(q *algebra.Query) bool {
	_, ok := anchored(q.Op, nil)
	return ok
}

// anchored checks op given the variables bound before it (bound is not changed) and returns those bound after it.
// Its operands are taken in the order a nested loop reads them, which is how the engine joins patterns that
// share a variable.
func anchored(op algebra.Op, bound map[algebra.Var]bool) (map[algebra.Var]bool, bool) {
	switch o := op.(type) {
	case *algebra.BGP:
		return anchoredTriples(o.Triples, bound)
	case *algebra.Join:
		return anchoredPair(o.Left, o.Right, bound)
	case *algebra.LeftJoin:
		after, ok := anchoredPair(o.Left, o.Right, bound)
		return after, ok && anchoredExprs(after, o.Expr)
	case *algebra.Minus:
		left, ok := anchored(o.Left, bound)
		if !ok {
			return nil, false
		}
		_, ok = anchored(o.Right, left)
		return left, ok
	case *algebra.Union:
		left, ok := anchored(o.Left, bound)
		if !ok {
			return nil, false
		}
		right, ok := anchored(o.Right, bound)
		if !ok {
			return nil, false
		}
		// What one branch leaves unbound is unbound in its solutions.
		both := map[algebra.Var]bool{}
		for v := range left {
			if right[v] {
				both[v] = true
			}
		}
		return both, true
	case *algebra.Filter:
		after, ok := anchored(o.Op, bound)
		return after, ok && anchoredExprs(after, o.Exprs...)
	case *algebra.Extend:
		after, ok := anchored(o.Op, bound)
		if !ok {
			return nil, false
		}
		return with(after, o.Var), anchoredExprs(after, o.Expr)
	case *algebra.Table:
		return with(bound, o.Vars...), true
	case *algebra.Project:
		// A sub-query sees none of the variables outside it: it runs on its own.
		inner, ok := anchored(o.Op, nil)
		if !ok {
			return nil, false
		}
		after := with(bound)
		for _, v := range o.Vars {
			if inner[v] {
				after[v] = true
			}
		}
		return after, true
	case *algebra.Graph:
		return anchored(o.Op, bound)
	case *algebra.Group:
		return anchored(o.Op, bound)
	case *algebra.OrderBy:
		return anchored(o.Op, bound)
	case *algebra.Distinct:
		return anchored(o.Op, bound)
	case *algebra.Reduced:
		return anchored(o.Op, bound)
	case *algebra.Slice:
		return anchored(o.Op, bound)
	}
	return nil, false // PathPattern, Service, and what this file does not know
}

func anchoredPair(left, right algebra.Op, bound map[algebra.Var]bool) (map[algebra.Var]bool, bool) {
	after, ok := anchored(left, bound)
	if !ok {
		return nil, false
	}
	return anchored(right, after)
}

// anchoredTriples takes the patterns in whatever order binds their subjects first, as the engine's planner may.
func anchoredTriples(ts []algebra.Triple, bound map[algebra.Var]bool) (map[algebra.Var]bool, bool) {
	after := with(bound)
	done := make([]bool, len(ts))
	for left, progress := len(ts), true; left > 0; {
		if !progress {
			return nil, false
		}
		progress = false
		for i, t := range ts {
			if done[i] || t.S.IsVar() && !after[t.S.Var] {
				continue
			}
			done[i], progress = true, true
			left--
			for _, n := range []algebra.Node{t.P, t.O} {
				if n.IsVar() {
					after[n.Var] = true
				}
			}
		}
	}
	return after, true
}

// anchoredExprs checks the patterns of EXISTS and NOT EXISTS in es, given what is bound where they are tested.
func anchoredExprs(bound map[algebra.Var]bool, es ...algebra.Expr) bool {
	ok := true
	for _, e := range es {
		algebra.WalkExpr(e, func(e algebra.Expr) bool {
			if x, is := e.(*algebra.Exists); is {
				_, anch := anchored(x.Pattern, bound)
				ok = ok && anch
			}
			return ok
		})
	}
	return ok
}

// with returns a copy of m with vs added.
func with(m map[algebra.Var]bool, vs ...algebra.Var) map[algebra.Var]bool {
	c := make(map[algebra.Var]bool, len(m)+len(vs))
	for v := range m {
		c[v] = true
	}
	for _, v := range vs {
		c[v] = true
	}
	return c
}
