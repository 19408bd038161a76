package eval

import (
	"sort"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// An OPTIONAL's right side is evaluated for each left solution, and its solutions are what the left one is extended
// with; when it has none, the left solution goes on as it is. A right side that is a BGP (or a FILTER over one) with a
// pattern "?s <p> <o>" whose subject the left solution binds has no solution for a left solution whose ?s has no
// such triple. Those subjects are the rows of (p, o) in POS order, sorted by subject: a left solution's ?s is looked
// up there by binary search, and when it is absent the left solution goes on without the right side evaluated.
// q04's OPTIONAL { ?product productFeature ProductFeature3 . ?product label ?testVar } (1 647 rows at 10 M) was a
// search of the whole SPO permutation for each of 4 345 products, then the BGP's operators; a binary search in its
// 1 647 rows stays in the cache. Only a range of at most gateMaxRows rows is searched (a larger one misses the cache
// as the probe does), only in one graph of the index's own dictionary (ownGraph), and only for a ?s that is a
// dictionary id; other left solutions are evaluated as written.

// gateMaxRows is the most rows of (p, o) a left solution's subject is searched in (leftGate).
const gateMaxRows = 1 << 14

// leftGate is an OPTIONAL's right-side pattern "?s <p> <o>" read as the subjects that may have a right solution.
type leftGate struct {
	slot int          // ?s
	g    *index.Graph // the graph rows were read from
	rows []index.Row  // (p, o) in POS order: ascending subjects
	at   int          // where the previous search landed, to gallop from when subjects ascend
}

// leftGateOf returns the gate of x in the active graph, or nil when its right side has no such pattern.
func (e *evaluator) leftGateOf(x *algebra.LeftJoin) *leftGate {
	g := e.ownGraph()
	if g == nil || e.opt.noGate {
		return nil
	}
	if gt, ok := e.leftGates[x]; ok && (gt == nil || gt.g == g) {
		return gt
	}
	gt := e.makeLeftGate(x, g)
	if e.leftGates == nil {
		e.leftGates = map[*algebra.LeftJoin]*leftGate{}
	}
	e.leftGates[x] = gt
	return gt
}

// makeLeftGate picks, among the right side's patterns "?s <p> <o>" with ?s mentioned on the left, the one with the
// fewest rows in g, if it has at most gateMaxRows.
func (e *evaluator) makeLeftGate(x *algebra.LeftJoin, g *index.Graph) *leftGate {
	right := x.Right
	if f, ok := right.(*algebra.Filter); ok {
		right = f.Op
	}
	b, ok := right.(*algebra.BGP)
	if !ok {
		return nil
	}
	left := e.infoOf(x.Left).mentioned
	var best *leftGate
	for _, t := range b.Triples {
		if !t.S.IsVar() || t.P.IsVar() || t.O.IsVar() {
			continue
		}
		s := e.slot(t.S.Var)
		p, o := e.constID(t.P.Term), e.constID(t.O.Term)
		if left.over || !left.has(s) || p == 0 || o == 0 {
			continue
		}
		m := g.Match(0, p, o)
		if m.Perm != index.POS || m.Len() > gateMaxRows || (best != nil && m.Len() >= len(best.rows)) {
			continue
		}
		best = &leftGate{slot: s, g: g, rows: m.Rows}
	}
	return best
}

// absent reports whether the left solution l's ?s has no row of the gate's pattern, so that the right side has no
// solution for l; false when ?s is unbound or not a dictionary id.
func (gt *leftGate) absent(e *evaluator, l []ID) bool {
	s := l[gt.slot]
	if s == 0 || s > e.t.base {
		return false
	}
	rows := gt.rows
	lo := 0
	if gt.at < len(rows) && rows[gt.at][2] <= s {
		lo = gt.at // subjects ascend, as a scan in subject order gives them: gallop from the previous landing
		step := 1
		for lo+step < len(rows) && rows[lo+step][2] <= s {
			lo += step
			step *= 2
		}
	}
	i := lo + sort.Search(len(rows)-lo, func(i int) bool { return rows[lo+i][2] >= s })
	gt.at = i
	return i == len(rows) || rows[i][2] != s
}
