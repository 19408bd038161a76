package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// ORDER BY ?v … LIMIT k over a BGP ran the whole join and kept the best k of its solutions: h86's five cheapest
// next-day offers of German vendors joined 28 000 next-day offers with their vendor and price (16 ms at 10 M) to
// keep five. When ?v is the object of a pattern "?s p ?v" whose rows all lie in one run of ids that ascend with
// their value (inline numbers of one kind and scale, inline dates, one dictionary date block), the POS rows of p
// come in the order the first ORDER BY key gives (compareKey compares such ids as ids), so orderScan reads them
// in that order (reversed for DESC) and joins each with the rest of the BGP: once k solutions are in and the
// next row's value differs from the last one's, every later solution sorts after them on the first key, and the
// scan stops (topread.go does the same for a FILTER over a BGP whose comparisons prove p's rows to lie in one
// block; orderScan serves the BGP without a FILTER, where the index's ids alone prove it). The solutions go to
// orderTop's buffer as the join's did, which orders them by every key; only which
// of several solutions equal on every key arrive first can differ, which SPARQL leaves open.
//
// The scan pays when solutions are dense among p's rows in value order; when they are rare (a filter on the
// other patterns keeps few), it reads many rows for each solution. It is taken only where the planner's model
// prices the rows expected to be read (k over the solutions' share of p's rows) well under the join's cost, and
// it gives up after rows costing a quarter of the join, which then runs as before: a misjudged query loses at
// most that.

// orderScanMargin is how much cheaper than the join the model must price the scan before it is tried.
const orderScanMargin = 8

// orderScanMinRows is the fewest rows a scan may read before giving up, whatever the model says.
const orderScanMinRows = 256

// orderScan runs x's BGP for orderTop in the order of its first key under a LIMIT of k (offset included), its
// solutions to emit. done false: not taken, or given up before the end with nothing decided (emit may have had
// some solutions, which the caller drops before running the join).
func (e *evaluator) orderScan(x *algebra.OrderBy, in []ID, k int64, emit emitFn, errp *error) (done, cont bool) {
	b, ok := x.Op.(*algebra.BGP)
	v, isVar := x.Conds[0].Expr.(algebra.Var)
	if !ok || !isVar || len(b.Triples) > 8 || len(e.active) != 1 || e.active[0].f != nil ||
		e.trial != nil || e.subst > 0 || e.work != nil || !e.boundSet(in).empty() {
		return false, false
	}
	ti := -1
	for i, t := range b.Triples {
		if t.O.IsVar() && t.O.Var == v && !t.P.IsVar() && t.S.IsVar() && t.S.Var != v {
			ti = i
			break
		}
	}
	if ti < 0 {
		return false, false
	}
	t := b.Triples[ti]
	p := e.constID(t.P.Term)
	if p == 0 {
		return false, false
	}
	g := e.active[0].g
	m := g.Match(0, p, 0)
	n := m.Len()
	if n == 0 || m.Perm != index.POS {
		return false, false
	}
	_, _, lo := m.At(0)
	_, _, hi := m.At(n - 1)
	if !e.valueOrdered(lo, hi) {
		return false, false
	}
	var bound varset
	order := e.greedy(b, bound, ti)
	budget := e.opt.orderScanRows
	if budget < 0 {
		return false, false
	}
	if budget == 0 {
		joinCost, sols := e.planCostRows(b, e.plan(b, bound), bound, scanNone, false, false, -1)
		scanCost, _ := e.planCostRows(b, order, bound, scanNone, false, false, -1)
		rows := float64(n)
		need := min(rows, float64(k)*rows/max(sols, 1)) // rows read for k solutions, solutions spread evenly
		if scanCost*need/rows*orderScanMargin > joinCost {
			return false, false
		}
		budget = max(orderScanMinRows, int(rows*joinCost/4/max(scanCost, 1)))
	}

	st := e.stateOf(b)
	row := make([]ID, len(in))
	copy(row, in)
	st.scanLen = 0 // the probes do not follow a subject scan (runDue)
	slots := [3]int{e.slot(t.S.Var), -1, e.slot(v)}
	free := [3]bool{true, false, true}
	var got int64
	counted := func(r []ID) bool {
		got++
		return emit(r)
	}
	desc := x.Conds[0].Desc
	var last ID
	for i := range n {
		j := i
		if desc {
			j = n - 1 - i
		}
		s, _, o := m.At(j)
		if o != last {
			if got >= k {
				return true, true // every later row's value sorts after the k solutions had
			}
			last = o
		}
		if i >= budget {
			return false, false
		}
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return true, false
			}
		}
		if !e.bindAndMatch(b.Triples, order, 0, row, st, nil, slots, free, [3]ID{s, p, o}, counted, errp) {
			return true, false
		}
	}
	return true, true
}

// valueOrdered reports whether every id from lo to hi (lo <= hi) belongs to one run whose ids ascend with their
// value as ORDER BY compares them (compareKey): inline numbers of one kind and scale, inline xsd:dates, or one
// date block of the dictionary.
func (e *evaluator) valueOrdered(lo, hi ID) bool {
	if index.SameInlineRun(lo, hi) {
		return true
	}
	b := e.dateBlock(lo)
	return b >= 0 && b == e.dateBlock(hi)
}
