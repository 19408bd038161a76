package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
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
			ids[i] = e.constID(nd.Term)
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
	if ids[1] != 0 && ids[0] == 0 && ids[2] == 0 && nodes[0].IsVar() && nodes[2].IsVar() &&
		bound.with(e.slot(nodes[2].Var)) == bound && !bound.over && bound.with(e.slot(nodes[0].Var)) != bound {
		// "?s p ?o" with ?o bound at run time: the predicate's own fan-out per object, measured, rather than a
		// fixed guess. Between "?offer vendor ?vendor" (30 offers per vendor here) and "?offer deliveryDays
		// ?days" (2 800 per value) the guess saw no difference and could pick the second, a product with
		// everything bound so far.
		for _, g := range e.active {
			cost += e.objectFanout(g, ids[1])
		}
		return cost, true
	}
	var count int
	for _, g := range e.active {
		count += e.count(g, ids[0], ids[1], ids[2])
	}
	cost = float64(count) / factor
	if !anyBound {
		cost *= 10 // a full scan is worse than its count suggests
	}
	return cost, connected
}

// fanoutKey names a predicate in one graph.
type fanoutKey struct {
	g *index.Graph
	p ID
}

// objectFanout estimates how many triples of predicate p share one object in g: its triples over its distinct
// objects, counted once per query in the predicate's POS range (sorted by object; the first 2^20 rows at most).
// Graphs with their own dictionary get the fixed guess.
func (e *evaluator) objectFanout(gr graphRef, p ID) float64 {
	if gr.f != nil {
		return float64(e.count(gr, 0, p, 0)) / 100
	}
	k := fanoutKey{gr.g, p}
	if f, ok := e.fanout[k]; ok {
		return f
	}
	m := gr.g.Match(0, p, 0) // POS: rows are (p, o, s)
	n := min(m.Len(), 1<<20)
	distinct := 0
	for i := 0; i < n; i++ {
		if i == 0 || m.Rows[i][1] != m.Rows[i-1][1] {
			distinct++
		}
	}
	f := 0.0
	if distinct > 0 {
		f = float64(n) / float64(distinct)
	}
	e.fanout[k] = f
	return f
}

func (e *evaluator) bgp(x *algebra.BGP, in []ID, emit emitFn, errp *error) bool {
	if len(x.Triples) == 0 {
		return emit(in)
	}
	order := e.plan(x, e.boundSet(in))
	row := make([]ID, len(in))
	copy(row, in)
	return e.matchFrom(x.Triples, order, 0, row, e.cursorsFor(x), emit, errp)
}

// cursorsFor returns the index cursors of a BGP's patterns, one per pattern and active graph. They live as long as
// the query, so a pattern probed once per outer solution, in this BGP or from a join above it, starts each search
// where the previous one ended (index.Cursor).
func (e *evaluator) cursorsFor(x *algebra.BGP) []index.Cursor {
	n := len(x.Triples) * len(e.active)
	c := e.cursors[x]
	if len(c) < n {
		c = make([]index.Cursor, n)
		e.cursors[x] = c
	}
	return c
}

func (e *evaluator) matchFrom(ts []algebra.Triple, order []int, k int, row []ID, cur []index.Cursor, emit emitFn, errp *error) bool {
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
		if gr.f != nil {
			if !e.scan(gr, s, p, o, func(ms, mp, mo ID) bool {
				if gi > 0 && e.inEarlierGraph(gi, ms, mp, mo) {
					return true
				}
				return e.bindAndMatch(ts, order, k, row, cur, [3]int{ss, ps, os}, [3]bool{s == 0, p == 0, o == 0}, [3]ID{ms, mp, mo}, emit, errp)
			}) {
				return false
			}
			continue
		}
		c, g := &cur[order[k]*len(e.active)+gi], gr.g
		if s != 0 && p != 0 {
			if sub := e.subjectIndex(c, g, p); sub != nil {
				g = sub
			}
		}
		m := g.MatchFrom(c, s, p, o)
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
			if !e.bindAndMatch(ts, order, k, row, cur, [3]int{ss, ps, os}, [3]bool{s == 0, p == 0, o == 0}, [3]ID{ms, mp, mo}, emit, errp) {
				return false
			}
		}
	}
	return true
}

// bindAndMatch binds the free positions of one matched triple and continues with the next pattern; a variable
// used twice in one pattern must get one value. It restores the row before returning.
func (e *evaluator) bindAndMatch(ts []algebra.Triple, order []int, k int, row []ID, cur []index.Cursor, slots [3]int, free [3]bool, ids [3]ID, emit emitFn, errp *error) bool {
	var set [3]int
	n := 0
	ok := true
	for i := 0; i < 3; i++ {
		if !free[i] {
			continue
		}
		if row[slots[i]] != 0 {
			if row[slots[i]] != ids[i] {
				ok = false
				break
			}
			continue
		}
		row[slots[i]] = ids[i]
		set[n] = slots[i]
		n++
	}
	cont := true
	if ok {
		cont = e.matchFrom(ts, order, k+1, row, cur, emit, errp)
	}
	for i := 0; i < n; i++ {
		row[set[i]] = 0
	}
	return cont
}

func (e *evaluator) inEarlierGraph(gi int, s, p, o ID) bool {
	for _, g := range e.active[:gi] {
		if e.count(g, s, p, o) > 0 {
			return true
		}
	}
	return false
}

// subjectIndex returns p's triples in g sorted by subject (index.Graph.BySubject) for a pattern "s p ?o" whose
// probes through c have mostly been far from each other, or nil. Such probes (a join whose outer solutions reach
// the subjects in no useful order, such as offers vendor by vendor) each search the whole SPO permutation; once
// they number a sixteenth of p's triples, about what sorting p's triples costs, the rest search p's rows only.
// The copy is charged to the query's budget; without room the probes go on as before.
func (e *evaluator) subjectIndex(c *index.Cursor, g *index.Graph, p ID) *index.Graph {
	k := fanoutKey{g, p}
	if sub, ok := e.bySubject[k]; ok {
		return sub
	}
	far := c.Far()
	if far < 256 || far&(far-1) != 0 { // look at the predicate's size when the count doubles
		return nil
	}
	n := int64(g.Match(0, p, 0).Len())
	if int64(far) < n/16 || e.bytes+e.t.bytes+12*n > e.opt.MaxMemory {
		return nil
	}
	e.bytes += 12 * n
	sub := g.BySubject(p)
	e.bySubject[k] = sub
	return sub
}
