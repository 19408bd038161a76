package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A GROUP BY over a BGP whose join ends with a pattern "?x p ?k" (or "?k p ?x") where ?x is in no other pattern,
// no FILTER conjunct, no key and no aggregate but COUNT(?x) or COUNT(*), gets from that last pattern only how many
// rows each solution of the others has: every one of them is the solution before it with ?x bound, which nothing
// reads. groupLeaf hands the group each solution of the other patterns once with that count (accumulateN), the
// rows found by one probe and never visited. h57's first subquery, the offers of Japanese vendors counted per
// vendor, passed 38 000 offers through the join and the group one by one for 170 vendors.

// groupLeaf is x's operand as the join of the other patterns and a counted last pattern (groupLeafOf).
type groupLeaf struct {
	leaf    int            // the last pattern in x's order
	rest    *algebra.BGP   // the other patterns
	filters []algebra.Expr // the FILTER's expressions over x (nil: none)
	xslot   int            // ?x
}

// groupLeafOf returns how x's operand is read as groupLeaf reads it, or nil when it is not of that form; the
// form depends on x alone (the plan, what is bound, are checked per evaluation).
func (e *evaluator) groupLeafOf(x *algebra.Group) *groupLeaf {
	return memoized(&e.leafGroups, x, e.makeGroupLeaf)
}

func (e *evaluator) makeGroupLeaf(x *algebra.Group) *groupLeaf {
	b, filters := e.pushedOperand(x.Op)
	if b == nil || len(b.Triples) < 2 || len(b.Triples) > 8 {
		return nil
	}
	var fvars varset
	for _, f := range filters {
		fvars = fvars.union(e.varsOfExpr(f))
	}
	uses := func(v algebra.Var, skip int) bool {
		for i, t := range b.Triples {
			if i != skip && (t.S.Var == v || t.P.Var == v || t.O.Var == v) {
				return true
			}
		}
		return false
	}
	for i, t := range b.Triples {
		if t.P.IsVar() || !t.S.IsVar() || !t.O.IsVar() || t.S.Var == t.O.Var {
			continue
		}
		for _, xv := range []algebra.Var{t.S.Var, t.O.Var} {
			k := t.O.Var
			if xv == t.O.Var {
				k = t.S.Var
			}
			xs := e.slot(xv)
			if uses(xv, i) || !uses(k, i) || fvars.has(xs) {
				continue
			}
			reads := e.groupReadsSkipping(x, func(ag *algebra.Aggregate) bool {
				v, isVar := ag.Expr.(algebra.Var)
				return isVar && ag.Name == "COUNT" && !ag.Distinct && e.slot(v) == xs
			})
			if reads.has(xs) {
				continue
			}
			l := &groupLeaf{leaf: i, filters: filters, xslot: xs, rest: &algebra.BGP{}}
			for j, u := range b.Triples {
				if j != i {
					l.rest.Triples = append(l.rest.Triples, u)
				}
			}
			return l
		}
	}
	return nil
}

// groupLeaf evaluates x's operand from in as groupLeafOf's form, when the join would read that pattern last, and
// hands gs each solution of the other patterns with its count; handled is false otherwise.
func (e *evaluator) groupLeaf(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	l := e.groupLeafOf(x)
	if l == nil || e.outerGraph() == nil || in[l.xslot] != 0 {
		return false, false
	}
	bgp, _ := e.pushedOperand(x.Op)
	bound := e.boundSet(in)
	st, prep := e.preparedBGP(bgp, l.filters, bound)
	if prep.never || prep.hash != nil || len(prep.late) > 0 || prep.order[len(prep.order)-1] != l.leaf {
		return false, false
	}
	if err := e.check(); err != nil {
		*errp = err
		return true, false
	}
	g := e.active[0].g
	nd := st.nodes[l.leaf]
	c := &st.cur[l.leaf]
	if nd[1].id == 0 {
		return true, true // the predicate is not in the data: no solutions
	}
	return true, e.filteredBGP(l.rest, l.filters, in, func(row []ID) bool {
		s, _, ok1 := e.resolve(nd[0], row)
		o, _, ok2 := e.resolve(nd[2], row)
		if !ok1 || !ok2 {
			return true
		}
		m := e.probe(c, g, s, nd[1].id, o)
		n := m.Len()
		if n == 0 {
			return true
		}
		ms, _, mo := m.At(0)
		row[l.xslot] = ms
		if s != 0 {
			row[l.xslot] = mo
		}
		ok := gs.add(row, int64(n), errp)
		row[l.xslot] = 0
		return ok
	}, errp)
}
