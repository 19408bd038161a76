package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

type orderKey struct {
	bgp   *algebra.BGP
	bound varset
	graph ID
}

// plan orders the triple patterns of a BGP for a bind join: repeatedly take the pattern with the smallest estimated
// number of matches given what is bound so far, preferring patterns connected to bound variables so no step is a
// cartesian product. Estimates use the index's exact counts for constants and fixed selectivity factors for
// variables bound at run time.
func (e *evaluator) plan(x *algebra.BGP, bound varset) []int {
	k := orderKey{x, bound, e.activeName()}
	if o, ok := e.orders[k]; ok {
		return o
	}
	n := len(x.Triples)
	order := make([]int, 0, n)
	used := make([]bool, n)
	for len(order) < n {
		best, bestCost, bestConn := -1, 0.0, false
		for i, t := range x.Triples {
			if used[i] {
				continue
			}
			cost, conn := e.estimate(t, bound)
			if best < 0 || (conn && !bestConn) || (conn == bestConn && cost < bestCost) {
				best, bestCost, bestConn = i, cost, conn
			}
		}
		used[best] = true
		order = append(order, best)
		t := x.Triples[best]
		bound = bound.union(e.nodeVars(t.S, t.P, t.O))
	}
	e.orders[k] = order
	return order
}

func (e *evaluator) estimate(t algebra.Triple, bound varset) (cost float64, connected bool) {
	var ids [3]ID
	var factor float64 = 1
	nodes := [3]algebra.Node{t.S, t.P, t.O}
	divisors := [3]float64{1000, 20, 100} // typical fan-out once a subject, predicate or object is fixed
	anyBound := false
	for i, nd := range nodes {
		if !nd.IsVar() {
			ids[i] = e.t.lookup(nd.Term)
			if ids[i] == 0 {
				return 0, true // matches nothing: run it first and stop early
			}
			anyBound = true
			continue
		}
		if bound.with(e.slot(nd.Var)) == bound && !bound.over {
			factor *= divisors[i]
			connected = true
			anyBound = true
		}
	}
	var count int
	for _, g := range e.active {
		count += g.g.Match(ids[0], ids[1], ids[2]).Len()
	}
	cost = float64(count) / factor
	if !anyBound {
		cost *= 10 // a full scan is worse than its count suggests
	}
	return cost, connected
}

func (e *evaluator) bgp(x *algebra.BGP, in []ID, emit emitFn, errp *error) bool {
	if len(x.Triples) == 0 {
		return emit(in)
	}
	order := e.plan(x, e.boundSet(in))
	row := make([]ID, len(in))
	copy(row, in)
	return e.matchFrom(x.Triples, order, 0, row, emit, errp)
}

func (e *evaluator) matchFrom(ts []algebra.Triple, order []int, k int, row []ID, emit emitFn, errp *error) bool {
	if k == len(order) {
		return emit(row)
	}
	t := ts[order[k]]
	s, ss, ok1 := e.nodeID(t.S, row)
	p, ps, ok2 := e.nodeID(t.P, row)
	o, os, ok3 := e.nodeID(t.O, row)
	if !ok1 || !ok2 || !ok3 {
		return true
	}
	for gi, gr := range e.active {
		m := gr.g.Match(s, p, o)
		for j := 0; j < m.Len(); j++ {
			if e.steps++; e.steps&1023 == 0 {
				if err := e.ctx.Err(); err != nil {
					*errp = err
					return false
				}
			}
			ms, mp, mo := m.At(j)
			if gi > 0 && e.inEarlierGraph(gi, ms, mp, mo) {
				continue // the default graph is a set: a triple in two merged graphs counts once
			}
			// Bind the free positions; a variable used twice in one pattern must get one value.
			var set [3]int
			n := 0
			okRow := true
			for _, b := range [3]struct {
				slot int
				free bool
				id   ID
			}{{ss, s == 0, ms}, {ps, p == 0, mp}, {os, o == 0, mo}} {
				if !b.free {
					continue
				}
				if row[b.slot] != 0 {
					if row[b.slot] != b.id {
						okRow = false
						break
					}
					continue
				}
				row[b.slot] = b.id
				set[n] = b.slot
				n++
			}
			if okRow && !e.matchFrom(ts, order, k+1, row, emit, errp) {
				for i := 0; i < n; i++ {
					row[set[i]] = 0
				}
				return false
			}
			for i := 0; i < n; i++ {
				row[set[i]] = 0
			}
		}
	}
	return true
}

func (e *evaluator) inEarlierGraph(gi int, s, p, o ID) bool {
	for _, g := range e.active[:gi] {
		if g.g.Match(s, p, o).Len() > 0 {
			return true
		}
	}
	return false
}
