package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A group's plain triples form one BGP and its property paths PathPatterns joined after it, in the order written
// (algebra's translation). When the BGP is a cross product of patterns that only the paths connect, the BGP's
// plan can do no better than the whole product before the first path prunes it: h147 pairs producer 4's
// products with every resource labelled with c, { ?p1 … a ?t1 . ?p2 … a ?t2 . ?top rdfs:label ?l . FILTER(…)
// ?t1 rdfs:subClassOf* ?top . ?t2 rdfs:subClassOf* ?top }, 54 × 54 typed products times 57 000 labels at 10 M
// before either closure was read (minutes; Virtuoso 7 answers in 0.2 s of CPU).
//
// crossSplit evaluates such a join as a chain of its parts instead: the BGP's connected components (crossParts)
// as BGPs of their own and the paths, each next part one that the variables bound so far reach — a path with both
// ends bound (a check) first, then a component sharing a bound variable (a lookup), then a path with one end
// bound (a walk from it) — and a part reached by none (a cross product) only when nothing is reached, in the
// order the BGP's plan takes its patterns. Each FILTER conjunct over the join is tested on the one component
// that binds all its variables (a cross product's operand is then kept once filtered, joinReplay), else right
// after the first part that completes them.
//
// Why it is exact: an inner join is associative and commutative as a bag of solutions, and each part is joined
// with the solutions of the parts before it as before; a conjunct whose variables are bound in every solution of
// a part (every variable of a BGP or a path is) has there the value it has over the whole join, and a solution
// is kept exactly when it passes each conjunct. Conjuncts with EXISTS or RAND-like functions (pushable) are not
// moved: the join is then left as it is.

// crossKey names crossSplit's answer for a join with some variables bound by the incoming solution.
type crossKey struct {
	j     *algebra.Join
	bound varset
}

// crossSplitOf is crossSplit's rewrite of x for the solution in (nil: evaluate x as it is), worked out once per
// join and bound variables.
func (e *evaluator) crossSplitOf(x *algebra.Join, in []ID) algebra.Op {
	if e.opt.plainJoins {
		return nil
	}
	bound := e.boundSet(in)
	if bound.over {
		return nil
	}
	return joinRewrite(&e.crossSplits, crossKey{x, bound}, func() algebra.Op { return e.crossSplit(x, bound) })
}

// joinRewrite returns a join's rewrite for a bound set from *m (nil: none), making it with rewrite the first time.
func joinRewrite(m *map[crossKey]algebra.Op, k crossKey, rewrite func() algebra.Op) algebra.Op {
	if op, ok := (*m)[k]; ok {
		return op
	}
	op := rewrite()
	if *m == nil {
		*m = map[crossKey]algebra.Op{}
	}
	(*m)[k] = op
	return op
}

// crossSplit is x rewritten as described above, or nil when x is not a join of BGPs, paths and FILTERs over them
// in which a path links two components of one BGP's cross product.
func (e *evaluator) crossSplit(x *algebra.Join, bound varset) algebra.Op {
	var bgps []*algebra.BGP
	var paths []*algebra.PathPattern
	var conj []algebra.Expr
	ok := true
	var flatten func(op algebra.Op)
	flatten = func(op algebra.Op) {
		switch v := op.(type) {
		case *algebra.Join:
			flatten(v.Left)
			flatten(v.Right)
		case *algebra.Filter:
			if e.optFilterOf(v) != nil {
				ok = false
				return
			}
			// A FILTER inside the join is a nested group's (or a conjunct already moved below the join): it
			// is tested over its operand's solutions alone, where a variable its operand does not bind is
			// unbound ({ ?x :name ?n FILTER(!BOUND(?y)) } keeps every name). Moved onto the chain, the same
			// conjunct would see ?y bound by another part; so it moves only when its operand binds every
			// variable it reads, whose values the chain's solutions keep.
			certain := e.infoOf(v.Op).certain
			for _, f := range v.Exprs {
				for _, c := range appendConjuncts(nil, f) {
					reads := e.varsOfExpr(c)
					if !pushable(c) || reads.over || !reads.minus(bound).subsetOf(certain) {
						ok = false
					}
					conj = append(conj, c)
				}
			}
			flatten(v.Op)
		case *algebra.BGP:
			bgps = append(bgps, v)
		case *algebra.PathPattern:
			paths = append(paths, v)
		default:
			ok = false
		}
	}
	flatten(x)
	if !ok || len(paths) == 0 || len(bgps) == 0 {
		return nil
	}
	var parts []algebra.Op // the components, then the paths
	var vars []varset      // the unbound variables of each part
	crossed := false
	for _, b := range bgps {
		cs := e.crossParts(b, bound)
		crossed = crossed || len(cs) > 1
		for _, c := range cs {
			parts = append(parts, c)
			vars = append(vars, e.infoOf(c).mentioned.minus(bound))
		}
	}
	nComp := len(parts)
	for _, p := range paths {
		parts = append(parts, p)
		vars = append(vars, e.nodeVars(p.S, p.O).minus(bound))
	}
	if !crossed || !linksParts(vars, nComp) {
		return nil
	}
	// The chain: parts in the order described above.
	used := make([]bool, len(parts))
	var order []int
	placed := bound
	for len(order) < len(parts) {
		next := -1
		for _, want := range []func(i int) bool{
			func(i int) bool { return i >= nComp && vars[i].subsetOf(placed) },
			func(i int) bool { return i < nComp && !vars[i].inter(placed).empty() },
			func(i int) bool { return i >= nComp && !vars[i].inter(placed).empty() },
			func(i int) bool { return true },
		} {
			for i := range parts {
				if !used[i] && want(i) {
					next = i
					break
				}
			}
			if next >= 0 {
				break
			}
		}
		used[next] = true
		order = append(order, next)
		placed = placed.union(vars[next])
	}
	// Each conjunct on the one component that binds its variables, else after the first prefix that does.
	own := make([][]algebra.Expr, len(parts))
	after := make([][]algebra.Expr, len(parts))
	var top []algebra.Expr
next:
	for _, c := range conj {
		reads := e.varsOfExpr(c).minus(bound)
		if reads.empty() {
			top = append(top, c)
			continue
		}
		for i := 0; i < nComp; i++ {
			if reads.subsetOf(vars[i]) {
				own[i] = append(own[i], c)
				continue next
			}
		}
		have := varset{}
		for k, i := range order {
			have = have.union(vars[i])
			if reads.subsetOf(have) {
				after[k] = append(after[k], c)
				continue next
			}
		}
		top = append(top, c)
	}
	var op algebra.Op
	for k, i := range order {
		part := parts[i]
		if len(own[i]) > 0 {
			part = &algebra.Filter{Exprs: own[i], Op: part}
		}
		if op == nil {
			op = part
		} else {
			op = &algebra.Join{Left: op, Right: part}
		}
		if len(after[k]) > 0 {
			op = &algebra.Filter{Exprs: after[k], Op: op}
		}
	}
	if len(top) > 0 {
		op = &algebra.Filter{Exprs: top, Op: op}
	}
	return op
}

// linksParts reports whether a path (parts from nComp on) has variables in two of the components (parts before
// nComp).
func linksParts(vars []varset, nComp int) bool {
	for _, pv := range vars[nComp:] {
		n := 0
		for _, cv := range vars[:nComp] {
			if !pv.inter(cv).empty() {
				n++
			}
		}
		if n > 1 {
			return true
		}
	}
	return false
}

// crossParts splits b into its connected components, patterns linked by a variable that bound leaves unbound, as
// BGPs in the order b's plan reaches them (b itself when it is connected). A pattern with no unbound variable is
// a component of its own.
func (e *evaluator) crossParts(b *algebra.BGP, bound varset) []algebra.Op {
	n := len(b.Triples)
	comp := make([]int, n) // union-find over the patterns
	for i := range comp {
		comp[i] = i
	}
	var find func(i int) int
	find = func(i int) int {
		for comp[i] != i {
			comp[i] = comp[comp[i]]
			i = comp[i]
		}
		return i
	}
	tv := make([]varset, n)
	for i, t := range b.Triples {
		tv[i] = e.nodeVars(t.S, t.P, t.O).minus(bound)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if !tv[i].inter(tv[j]).empty() {
				comp[find(i)] = find(j)
			}
		}
	}
	var roots []int // in plan order
	for _, i := range e.plan(b, bound) {
		if r := find(i); !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	if len(roots) < 2 {
		return []algebra.Op{b}
	}
	out := make([]algebra.Op, 0, len(roots))
	for _, r := range roots {
		c := &algebra.BGP{}
		for i, t := range b.Triples {
			if find(i) == r {
				c.Triples = append(c.Triples, t)
			}
		}
		out = append(out, c)
	}
	return out
}
