package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// ORDER BY ?v … LIMIT k over a BGP, or a FILTER over one, where a pattern "?s p ?v" binds the first key: orderTop
// kept k candidates but the join still made every solution first. q13 (widths over 150 by DESC(?width), LIMIT 25)
// probed the heights and products of 2 174 widths at 10 M, far probes each, for 25 rows. When the FILTER's
// comparisons narrow p's rows to one block of numbers or dateTimes (valueRanges, proven: ids ascend with the
// values there, strictly), reading those rows from the end the ORDER BY wants and joining each with the other
// patterns gives the solutions in the order of the first key: once k have come and a row's ?v differs from the
// one the k-th came with, every later solution sorts after k others on the first key alone, and the read stops.
// orderTop still orders what it got by every key. The order is taken only where the planner's model prices it,
// read to the expected stop, at under half the order it chose: a selective rest (few solutions per row) reads far.

// topRead is how an ORDER BY under a LIMIT reads its BGP in the order of its first key (topReadOf).
type topRead struct {
	x       *algebra.BGP
	first   int            // the pattern "?s p ?v" read in order
	rest    *algebra.BGP   // the other patterns, joined per row
	filters []algebra.Expr // the FILTER's expressions over x (nil: none)
	conj    []algebra.Expr // their conjuncts
	sslot   int
	vslot   int
	desc    bool
}

// topReadOf returns the ordered read x's solutions can be made with, or nil (the shape does not fit). The
// conditions that depend on the data and the input are topReadRange's.
func (e *evaluator) topReadOf(x *algebra.OrderBy) *topRead {
	return memoized(&e.topReads, x, e.makeTopRead)
}

// memoized returns (*m)[k], made by mk the first time k is asked for (nil included), the map made when nil.
func memoized[K comparable, V any](m *map[K]V, k K, mk func(K) V) V {
	if v, ok := (*m)[k]; ok {
		return v
	}
	if *m == nil {
		*m = map[K]V{}
	}
	v := mk(k)
	(*m)[k] = v
	return v
}

func (e *evaluator) makeTopRead(x *algebra.OrderBy) *topRead {
	if len(x.Conds) == 0 {
		return nil
	}
	v, ok := x.Conds[0].Expr.(algebra.Var)
	if !ok {
		return nil
	}
	b, filters := e.pushedOperand(x.Op)
	if b == nil || len(b.Triples) == 0 || len(b.Triples) > 8 || len(filters) == 0 {
		return nil // without a FILTER nothing proves p's objects lie in one block of values
	}
	first := -1
	for i, t := range b.Triples {
		if t.S.IsVar() && !t.P.IsVar() && t.O.IsVar() && t.O.Var == v && t.S.Var != v {
			first = i
			break
		}
	}
	if first < 0 {
		return nil
	}
	r := &topRead{x: b, first: first, filters: filters, rest: &algebra.BGP{},
		sslot: e.slot(b.Triples[first].S.Var), vslot: e.slot(v), desc: x.Conds[0].Desc}
	for i, t := range b.Triples {
		if i != first {
			r.rest.Triples = append(r.rest.Triples, t)
		}
	}
	for _, f := range filters {
		r.conj = appendConjuncts(r.conj, f)
	}
	return r
}

// pushedOperand returns op as a BGP, alone or under a FILTER whose conjuncts filteredBGP tests within the join
// (pushable, none moved below BINDs: belowBinds), with the FILTER's expressions; nil when op is not such a BGP.
func (e *evaluator) pushedOperand(op algebra.Op) (*algebra.BGP, []algebra.Expr) {
	var filters []algebra.Expr
	if f, ok := op.(*algebra.Filter); ok {
		if e.belowBinds(f) != nil {
			return nil, nil
		}
		for _, c := range f.Exprs {
			if !pushable(c) {
				return nil, nil
			}
		}
		filters, op = f.Exprs, f.Op
	}
	b, _ := op.(*algebra.BGP)
	return b, filters
}

// topReadRange returns the rows of r's first pattern to read in order, or ok false when the ordered read does not
// fit: more than one graph, something bound on entry, objects not proven to lie in one value block, or a price
// over half the planner's order's for k solutions.
func (e *evaluator) topReadRange(r *topRead, in []ID, k int64, errp *error) (m index.Matches, ok bool) {
	g := e.outerGraph()
	if g == nil {
		return m, false
	}
	for _, id := range in {
		if id != 0 {
			return m, false
		}
	}
	st := e.stateOf(r.x)
	p, _, okp := e.resolve(st.nodes[r.first][1], in)
	if !okp {
		return m, false
	}
	all := g.Match(0, p, 0)
	if all.Perm != index.POS {
		return m, false
	}
	ranges, proven, _ := e.valueRanges(all, r.vslot, r.conj, in, errp)
	if *errp != nil || len(ranges) != 1 || len(proven) != 1 || !proven[0] {
		return m, false
	}
	var bound varset
	best := e.planCost(r.x, e.plan(r.x, bound), bound, e.scanModeOf(r.x, bound), true, true, -1)
	alt := e.greedy(r.x, bound, r.first)
	cost, rows := e.planCostRows(r.x, alt, bound, scanNone, true, true, -1)
	// The read stops after about k solutions (ties on the first key aside): twice k of the rows expected.
	if share := 2 * float64(k) / max(rows, 1); share < 1 {
		cost *= share
	}
	if cost >= best/2 {
		return m, false
	}
	return ranges[0], true
}

// execTop evaluates x.Op for orderTop, which keeps the first limit solutions: by an ordered read that stops early
// where one fits (topRead), by exec otherwise.
func (e *evaluator) execTop(x *algebra.OrderBy, in []ID, limit int64, emit emitFn, errp *error) bool {
	r := e.topReadOf(x)
	if r == nil {
		return e.exec(x.Op, in, emit, errp)
	}
	m, ok := e.topReadRange(r, in, limit, errp)
	if *errp != nil {
		return false
	}
	if !ok {
		return e.exec(x.Op, in, emit, errp)
	}
	row := make([]ID, len(in))
	copy(row, in)
	var got int64
	var stopAt ID // the first key the limit-th solution came with
	count := func(sol []ID) bool {
		got++
		return emit(sol)
	}
	n := m.Len()
	for j := range n {
		if r.desc {
			j = n - 1 - j
		}
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return false
			}
		}
		s, _, o := m.At(j)
		if stopAt != 0 && o != stopAt {
			return true // every later row's ?v sorts after stopAt: its solutions after limit others
		}
		row[r.sslot], row[r.vslot] = s, o
		if !e.filteredBGP(r.rest, r.filters, row, count, errp) {
			return false
		}
		if stopAt == 0 && got >= limit {
			stopAt = o
		}
	}
	return true
}
