package eval

import (
	"math"
	mathbits "math/bits"
	"slices"
	"sort"
	"unsafe"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
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
// variables bound at run time. When the BGP starts from nothing bound, each pattern is also tried first, with the
// same greedy rule after it, and priced by planCost, which knows that probes in the order of the first pattern's
// range are far cheaper than the others.
func (e *evaluator) plan(x *algebra.BGP, bound varset) []int {
	k := orderKey{x, bound, e.activeName()}
	if o, ok := e.orders[k]; ok {
		return o
	}
	order := e.greedy(x, bound, -1)
	scan := scanNone
	// Two patterns are tried in other orders only as a star on one subject (what a subject scan serves): a
	// chain keeps the greedy order, for which its probes were tuned (objectIndex, b17's far probes by vendor).
	n := len(x.Triples)
	star := n == 2 && x.Triples[0].S.IsVar() && x.Triples[0].S == x.Triples[1].S
	if (star || n >= 3) && n <= 8 && !e.bindsAny(x, bound) {
		key := e.groupedBy(x)
		// Under a LIMIT that may stop early the join need not run to its end, but a subject scan sorts all of its
		// first predicate's rows before the first solution.
		limited := e.limitedLeaf(x)
		best := e.planCost(x, order, bound, scanNone, false, false, key)
		if best <= smallJoin {
			// Another order could save less than the greedy one costs, and pricing it with the filter's
			// conjuncts measures them on samples of the index (conjunctShare): q08's reviews of one product
			// spent a fifth of their CPU on measuring langMatches over 256 texts.
			e.orders[k] = order
			if e.scans == nil {
				e.scans = map[orderKey]scanMode{}
			}
			e.scans[k] = scan
			return order
		}
		bestF := e.planCost(x, order, bound, scanNone, false, true, key)
		narrowed := -1.0 // narrowedCost, once needed
		for first := range x.Triples {
			alt := order
			if first != order[0] {
				alt = e.greedy(x, bound, first)
			}
			for _, mode := range []scanMode{scanNone, scanAll} {
				bySubject := mode == scanAll
				if (first == order[0] && !bySubject) || (bySubject && (limited || !e.canScanBySubject(x.Triples[first], bound))) {
					continue
				}
				// A clear margin: the model is coarse, and the greedy order is what every other query was tuned
				// with. A scan of two patterns must also beat the order chosen so far with its first pattern
				// narrowed by the filter's ranges, which the scan cannot use. A longer one must beat every order
				// that starts from a narrowed range, without the margin: with it, d05 (a scan of three patterns
				// that the model prices at 0.96 of the narrowed order) took 30 % more CPU, and without the
				// comparison v55d sorted all 582 000 offers by subject where 28 000 delivering in two days
				// were enough (140 against 18 ms at 10 M).
				c := e.planCost(x, alt, bound, mode, false, false, key)
				if star && bySubject && c >= e.planCost(x, order, bound, scan, true, false, key)/2 {
					continue
				}
				if !star && bySubject {
					if narrowed < 0 {
						narrowed = e.narrowedCost(x, bound, key)
					}
					if c >= narrowed {
						continue
					}
				}
				// And the order must not cost more than the current one once the solutions the filter drops
				// after each step are left out (filtered): b61's scan sorted every price by subject to probe
				// the days of the few hundred its cast filter keeps, which the greedy order probes far at little
				// cost. (As the only test, that model moved d05 off a scan that saves it a quarter; it is a veto.)
				cf := e.planCost(x, alt, bound, mode, false, true, key)
				if c < best/2 && cf < bestF {
					order, best, bestF, scan = alt, c, cf, mode
				}
			}
		}
		if !limited && e.opt.hashStar == 0 {
			order, scan = e.narrowedScanPlan(x, bound, key, order, scan)
		}
		order = e.measuredOrder(x, bound, key, order, scan)
	}
	e.orders[k] = order
	if e.scans == nil {
		e.scans = map[orderKey]scanMode{}
	}
	e.scans[k] = scan
	return order
}

// measuredOrder returns order, or the order greedyBy gives after its first pattern with the shares the FILTER
// conjuncts keep measured (keptShare), when that one costs less once those drops are priced and no more without
// them. The usual guess prices every conjunct alike, so two probes on one subject that each complete a conjunct
// tie, and the first written went first: h120 probed every offer's webpage to test STRSTARTS on it before its
// product, whose STRENDS(STR(?product), "00") keeps one offer in a hundred.
func (e *evaluator) measuredOrder(x *algebra.BGP, bound varset, key int, order []int, scan scanMode) []int {
	if len(e.filterVars[x]) == 0 {
		return order
	}
	alt := e.greedyBy(x, bound, order[0], true)
	if slices.Equal(alt, order) {
		return order
	}
	c, cf := e.planCost(x, order, bound, scan, true, false, key), e.planCost(x, order, bound, scan, true, true, key)
	ac, acf := e.planCost(x, alt, bound, scan, true, false, key), e.planCost(x, alt, bound, scan, true, true, key)
	if acf < cf && ac <= c {
		return alt
	}
	return order
}

// smallJoin is the planCost under which plan keeps the greedy order: about what measuring one filter conjunct on
// conjunctSamples rows costs.
const smallJoin = conjunctSamples

// narrowedCost is the least planCost of x's orders that read their first pattern in its index order, each narrowed
// by the filter's ranges (rangeShare): what a subject scan, which reads all of its first pattern's rows, must beat.
func (e *evaluator) narrowedCost(x *algebra.BGP, bound varset, key int) float64 {
	least := math.Inf(1)
	for first := range x.Triples {
		least = min(least, e.planCost(x, e.greedy(x, bound, first), bound, scanNone, true, false, key))
	}
	return least
}

// scanMode is how a join reads its first pattern: in its index order, or in subject order (all of its rows, or
// those its filter's ranges keep).
type scanMode uint8

const (
	scanNone     scanMode = iota
	scanAll               // every row of the predicate, sorted by subject (subjectScan)
	scanNarrowed          // the rows the filter's value ranges keep, sorted by subject (narrowedScan)
)

// narrowedScanPlan returns the order and scan mode a join of x takes instead of order read with scan, when
// reading a narrowed first pattern in subject order costs less than half of it once the filter's drops are priced
// (and less without them). The greedy order reads such a
// pattern in object order and probes the star on its subjects anywhere in the index, a far search each: v55n's
// 122 000 reviews with a rating2 of 5 or more probed their rating1 at ~500 ns each at 10 M, where sorting those
// rows by subject first (a few ms) makes each probe land just after the previous one. A subject scan of all the
// rows cannot use the filter's ranges, so it had to sort every rating.
func (e *evaluator) narrowedScanPlan(x *algebra.BGP, bound varset, key int, order []int, scan scanMode) ([]int, scanMode) {
	cur, curF := -1.0, 0.0
	for first, t := range x.Triples {
		if !e.canScanBySubject(t, bound) || e.rangeShare(x, first, bound) >= 1 {
			continue
		}
		if cur < 0 {
			cur = e.planCost(x, order, bound, scan, true, false, key)
			curF = e.planCost(x, order, bound, scan, true, true, key)
		}
		alt := e.greedy(x, bound, first)
		c := e.planCost(x, alt, bound, scanNarrowed, true, false, key)
		cf := e.planCost(x, alt, bound, scanNarrowed, true, true, key)
		// Compared with the solutions the filter drops after each step left out (filtered), with the margin
		// plan gives a subject scan: the range already holds only the rows its conjuncts keep, which the greedy
		// order's unfiltered price overlooks after its first step.
		if cf < curF/2 && c < cur {
			order, scan, cur, curF = alt, scanNarrowed, c, cf
		}
	}
	return order, scan
}

// scanModeOf is how plan chose, for x with bound, to read its first pattern.
func (e *evaluator) scanModeOf(x *algebra.BGP, bound varset) scanMode {
	return e.scans[orderKey{x, bound, e.activeName()}]
}

// canScanBySubject reports whether a pattern starting a join can be read in subject order (subjectScan): "?s p ?o"
// with p a constant and neither variable bound.
func (e *evaluator) canScanBySubject(t algebra.Triple, bound varset) bool {
	return t.S.IsVar() && !t.P.IsVar() && t.O.IsVar() && !bound.has(e.slot(t.S.Var)) && !bound.has(e.slot(t.O.Var))
}

// greedy is plan's greedy order, starting with pattern first when it is not -1.
func (e *evaluator) greedy(x *algebra.BGP, bound varset, first int) []int {
	return e.greedyBy(x, bound, first, false)
}

// greedyBy is greedy; with measured, a step's solutions are priced with the share its FILTER conjuncts keep as
// measured on the index (keptShare) rather than the usual guess of a third each, where that measure speaks for the
// join's solutions (sampleFits).
func (e *evaluator) greedyBy(x *algebra.BGP, bound varset, first int, measured bool) []int {
	n := len(x.Triples)
	order := make([]int, 0, n)
	used := make([]bool, n)
	var pops map[int]float64 // per subject variable, the triples of the pattern that bound it (sampleFits)
	for len(order) < n {
		best, bestCost, bestConn := -1, 0.0, false
		if len(order) == 0 && first >= 0 {
			best = first
		} else {
			for i, t := range x.Triples {
				if used[i] {
					continue
				}
				cost, conn := e.estimate(t, bound)
				cost *= e.rangeShare(x, i, bound)
				// Patterns that let the filter drop solutions early go first among their like.
				if after := bound.union(e.nodeVars(t.S, t.P, t.O)); measured && e.sampleFits(t, bound, pops) {
					cost *= e.keptShare(x, i, bound, after, false)
				} else {
					cost = e.filterShare(x, bound, after, cost)
				}
				if best < 0 || (conn && !bestConn) || (conn == bestConn && cost < bestCost) {
					best, bestCost, bestConn = i, cost, conn
				}
			}
		}
		used[best] = true
		order = append(order, best)
		t := x.Triples[best]
		if measured && t.S.IsVar() && !bound.has(e.slot(t.S.Var)) {
			if pops == nil {
				pops = map[int]float64{}
			}
			pops[e.slot(t.S.Var)] = e.patternCount(t)
		}
		bound = bound.union(e.nodeVars(t.S, t.P, t.O))
	}
	return order
}

// sampleFits reports whether the share of t's triples whose objects pass a conjunct (conjunctShare, measured over
// all of t's predicate) speaks for the solutions a join brings to t: its subject is bound by an earlier pattern
// that has at least half as many triples as t's predicate, so the subjects reached are most of those the sample
// was drawn from. The producers of "?producer a bsbm:Producer" are a few hundred of rdfs:label's subjects, whose
// labels are mostly products' (h83: measured on them, STRENDS(UCASE(?name), "INC.") looked selective and went
// first, 40 % more CPU); every offer has one bsbm:product.
func (e *evaluator) sampleFits(t algebra.Triple, bound varset, pops map[int]float64) bool {
	if !t.S.IsVar() || t.P.IsVar() || !bound.has(e.slot(t.S.Var)) {
		return false
	}
	pop, ok := pops[e.slot(t.S.Var)]
	return ok && e.patternCount(algebra.Triple{S: t.S, P: t.P, O: t.S}) <= 2*pop // ?s p ?s: every triple of p
}

// patternCount is the number of triples matching t's constants in the active graphs (its variables match
// anything, a variable used twice too).
func (e *evaluator) patternCount(t algebra.Triple) float64 {
	var ids [3]ID
	for i, nd := range [3]algebra.Node{t.S, t.P, t.O} {
		if !nd.IsVar() {
			if ids[i] = e.constID(nd.Term); ids[i] == 0 {
				return 0
			}
		}
	}
	n := 0
	for _, g := range e.active {
		n += e.count(g, ids[0], ids[1], ids[2])
	}
	return float64(n)
}

// filterShare is n solutions after a step of a join of x that binds after from bound, less those its FILTER
// conjuncts drop: each conjunct the step completes is tested right after it (filteredBGP) and keeps, by the usual
// guess, a third of the solutions.
func (e *evaluator) filterShare(x *algebra.BGP, bound, after varset, n float64) float64 {
	for _, fv := range e.filterVars[x] {
		if fv.subsetOf(after) && !fv.subsetOf(bound) {
			n /= 3
		}
	}
	return n
}

// keptShare is the share of a join's solutions that the FILTER conjuncts over x completed by the step matching
// pattern i (which binds after from bound) keep. A conjunct of the pattern's object alone keeps the share of the
// predicate's triples whose objects pass it (conjunctShare, measured on the index, where the usual guess of a
// third was off by up to a thousand times either way: b61's ?price cast above 9990 against v55h's ?p >= 500.5);
// with narrowed, those valueRanges narrows are already counted by the rows of the first pattern read. Any other
// conjunct keeps a third.
func (e *evaluator) keptShare(x *algebra.BGP, i int, bound, after varset, narrowed bool) float64 {
	share := 1.0
	for j, fv := range e.filterVars[x] {
		if !fv.subsetOf(after) || fv.subsetOf(bound) {
			continue
		}
		if c := e.conjunctShare(x, i, j); c.ok {
			if !narrowed || !c.byRange {
				share *= c.share
			}
		} else {
			share /= 3
		}
	}
	return share
}

// conjunctShare measures the share of pattern i's triples ("?s p ?o" with p a constant) whose objects pass filter
// conjunct j of x, when ?o is j's only variable; ok is false otherwise. Where valueRanges can narrow p's rows by j,
// its ranges give the share (rows whose objects it cannot place, terms in the dictionary, count as passing);
// otherwise j is tested on a sample of p's rows.
func (e *evaluator) conjunctShare(x *algebra.BGP, i, j int) conjShare {
	t := x.Triples[i]
	conj := e.filterConj[x]
	if j >= len(conj) || !t.O.IsVar() || t.P.IsVar() || t.S == t.O {
		return conjShare{}
	}
	if !e.varsOfExpr(conj[j]).subsetOf(e.nodeVars(t.O)) {
		return conjShare{}
	}
	key := conjKey{x, i, j, e.activeName()}
	if s, ok := e.conjShares[key]; ok {
		return s
	}
	var cs conjShare
	if p := e.constID(t.P.Term); p != 0 {
		row := make([]ID, e.nvars)
		var err error
		total, kept, measured, byRange := 0, 0, true, true
		for _, gr := range e.active {
			if gr.f != nil {
				measured = false
				break
			}
			m := gr.g.Match(0, p, 0)
			total += m.Len()
			ranges, proven, _ := e.valueRanges(m, e.slot(t.O.Var), conj[j:j+1], row, &err)
			if proven == nil && len(ranges) == 1 {
				// valueRanges cannot narrow by this conjunct (or p has too few rows to try): it is tested on
				// conjunctSamples rows spread evenly over p's objects, which POS holds in order.
				byRange = false
				n := min(m.Len(), conjunctSamples)
				if n == 0 {
					continue
				}
				pass := 0
				for k := range n {
					row[e.slot(t.O.Var)] = m.Rows[k*m.Len()/n][1]
					if e.test(conj[j], row, &err) {
						pass++
					}
				}
				row[e.slot(t.O.Var)] = 0
				// The share of the rows sampled, with half a row added so that a conjunct no sampled row
				// passes still keeps a few.
				kept += int((float64(pass) + 0.5) / float64(n+1) * float64(m.Len()))
				continue
			}
			for _, r := range ranges {
				kept += r.Len()
			}
		}
		if measured && err == nil && total > 0 {
			cs = conjShare{share: float64(kept) / float64(total), byRange: byRange, ok: true}
		}
	}
	if e.conjShares == nil {
		e.conjShares = map[conjKey]conjShare{}
	}
	e.conjShares[key] = cs
	return cs
}

// conjShare is conjunctShare's answer: the share, whether valueRanges' ranges measured it (rather than a sample),
// and whether it was measured at all.
type conjShare struct {
	share       float64
	byRange, ok bool
}

// conjunctSamples is how many of a predicate's rows conjunctShare tests a conjunct on when no range measures it.
const conjunctSamples = 256

// conjKey names a filter conjunct of a BGP measured on one of its patterns in the graphs active when it was planned.
type conjKey struct {
	x     *algebra.BGP
	i, j  int
	graph ID
}

// bindsAny reports whether bound holds a variable of the BGP.
func (e *evaluator) bindsAny(x *algebra.BGP, bound varset) bool {
	for _, t := range x.Triples {
		if !e.nodeVars(t.S, t.P, t.O).inter(bound).empty() {
			return true
		}
	}
	return false
}

// mergeRowCost is what a merge loop (groupStarKeys, groupHop) is charged in planCost's units for reading one row
// of a pattern in subject order: a step along memory read in sequence, a third of a probe in order. With probeFar
// it prices the join's far probes against the merge's rows read: h45 (2 × 40 000 far probes against 1.7 M rows
// read) was measured 55 ms of CPU by the join and 26–34 by the merge.
const mergeRowCost = 1.0 / 3

// probeFar is what planCost charges for a probe that is not in the order of the outer solutions: a binary search
// of a whole permutation, against a step or two of galloping (index.Cursor).
const probeFar = 16

// planCost estimates the work of a join order: each step's probes, one per solution it starts from, and the
// solutions it produces. The first pattern's range comes sorted by a variable, and the nested loops keep that order,
// so a later probe keyed on that variable ascends; a probe keyed on another variable costs probeFar. A pattern
// probed with its subject bound gives at most one solution per probe here (the fixed guess, a thousandth of the
// predicate, says more, which would price every star of patterns on one subject as a product).
//
// With a scan mode, the first pattern ("?s p ?o") is read in subject order (subjectScan, narrowedScan): its rows
// (with scanNarrowed, only those the filter's ranges keep) are sorted once, at about a quarter of a probe per row
// and step of the sort, and then the star of patterns on ?s probes in order.
//
// key is the slot of the variable a GROUP BY above groups the solutions by (groupedBy), or -1. The solutions come
// in the order of the variable the first pattern's range is sorted by, so when that is key each group's solutions
// arrive together and group finds each one's group as the previous one's; otherwise every solution looks its group
// up in a table, which costs nothing much while the groups stay in the cache and a few misses per solution once
// they do not (groupMiss).
//
// With narrowed, the first pattern's rows are only those its filter conjuncts' ranges keep (rangeShare), unless
// scanAll reads all of them; scanNarrowed narrows them whether or not narrowed says so. With filtered, each step's
// solutions are only those the filter conjuncts it completes keep (keptShare).
func (e *evaluator) planCost(x *algebra.BGP, order []int, bound varset, mode scanMode, narrowed, filtered bool, key int) float64 {
	c, _ := e.planCostRows(x, order, bound, mode, narrowed, filtered, key)
	return c
}

// planCostRows is planCost and the number of solutions it expects the join to give.
func (e *evaluator) planCostRows(x *algebra.BGP, order []int, bound varset, mode scanMode, narrowed, filtered bool, key int) (float64, float64) {
	rows, cost, sorted := 1.0, 0.0, -2
	cut := mode == scanNarrowed || (narrowed && mode == scanNone)
	near := 1.0 // what a probe in the order of the first pattern's rows costs
	for k, i := range order {
		t := x.Triples[i]
		est, _ := e.estimate(t, bound)
		keys := e.routeKeys(t, bound)
		// lead is the first variable of the probe's bound key prefix (-1: the prefix is constants only).
		lead, first := -1, -1
		for _, v := range keys {
			if v < 0 {
				continue
			}
			if bound.has(v) {
				lead = v
			} else {
				first = v
			}
			break
		}
		if k == 0 {
			sorted = first // the range is sorted by its first free position after the bound prefix
			cost += 1
			if cut {
				// Filter conjuncts on the pattern's object narrow its range (valueRanges); a subject scan of
				// all its rows does not use them.
				share := e.rangeShare(x, i, bound)
				est *= share
				if mode == scanNarrowed {
					// The subjects the range keeps lie 1/share apart among the predicate's: each probe in
					// their order gallops that far, a search of log2(1/share) steps, and a range that keeps
					// few rows saves no more than that.
					near = min(probeFar, 1+math.Log2(1/max(share, 1e-9)))
				}
			}
			if mode != scanNone {
				sorted = e.slot(t.S.Var)
				cost += est * math.Log2(max(est, 2)) / 4
			}
		} else {
			if !t.S.IsVar() || bound.has(e.slot(t.S.Var)) {
				est = min(est, 1)
			}
			switch {
			case lead >= 0 && lead != sorted:
				cost += rows * probeFar
			case lead >= 0:
				cost += rows * near
			default:
				cost += rows
			}
		}
		rows *= max(est, 1e-3)
		cost += rows
		after := bound.union(e.nodeVars(t.S, t.P, t.O))
		if filtered {
			// The filter conjuncts this step completes are tested right after it (filteredBGP): the later steps
			// probe only the solutions they keep. (A first pattern narrowed by the conjuncts' ranges counts those
			// already.)
			rows *= e.keptShare(x, i, bound, after, k == 0 && cut)
		}
		bound = after
	}
	if key >= 0 && key != sorted && e.groupCount(x, key) > groupsInCache {
		cost += rows * groupMiss
	}
	return cost, rows
}

// groupsInCache is how many groups of a GROUP BY stay in a core's cache: at a few hundred bytes each (the key, the
// table's slot and the aggregates' states, see group), about a megabyte.
const groupsInCache = 1 << 12

// groupMiss is what planCost charges a solution that looks up its group among more than groupsInCache of them:
// the table's slot and the group's states, a few cache misses, a quarter of a far probe's.
const groupMiss = probeFar / 4

// groupCount estimates how many values key, a variable of x, takes: for "?s p ?key" the number of p's objects
// (its triples over their measured fan-out per object, objectFanout); otherwise as many as the largest pattern with
// key has triples, which is never fewer.
func (e *evaluator) groupCount(x *algebra.BGP, key int) float64 {
	most := 0.0
	for _, t := range x.Triples {
		if !t.O.IsVar() || e.slot(t.O.Var) != key || t.P.IsVar() || !t.S.IsVar() || e.slot(t.S.Var) == key {
			if e.nodeVars(t.S, t.P, t.O).has(key) {
				est, _ := e.estimate(t, varset{})
				most = max(most, est)
			}
			continue
		}
		p := e.constID(t.P.Term)
		if p == 0 {
			return 0
		}
		n := 0.0
		for _, g := range e.active {
			if f := e.objectFanout(g, p); f > 0 {
				n += float64(e.count(g, 0, p, 0)) / f
			}
		}
		return n
	}
	return most
}

// groupedBy returns the slot of the variable of a GROUP BY with one key, a plain variable, that x's solutions feed
// through FILTERs and BINDs only (which keep their order), or -1: planCost's key.
func (e *evaluator) groupedBy(x *algebra.BGP) int {
	if e.groupKeys == nil {
		e.groupKeys = map[*algebra.BGP]int{}
		algebra.Walk(e.top, func(o algebra.Op) bool {
			g, ok := o.(*algebra.Group)
			if !ok || len(g.Keys) != 1 {
				return true
			}
			v, ok := g.Keys[0].Expr.(algebra.Var)
			if !ok {
				return true
			}
			for op := g.Op; ; {
				switch y := op.(type) {
				case *algebra.Filter:
					op = y.Op
					continue
				case *algebra.Extend:
					if y.Var == v {
						return true
					}
					op = y.Op
					continue
				case *algebra.BGP:
					if slot, ok := e.slots[v]; ok {
						e.groupKeys[y] = slot
					}
				}
				return true
			}
		})
	}
	if k, ok := e.groupKeys[x]; ok {
		return k
	}
	return -1
}

// routeKeys returns a pattern's positions in the order of the permutation index.route picks for what is bound
// (constants and variables in bound): each a variable's slot, or -1 for a constant.
func (e *evaluator) routeKeys(t algebra.Triple, bound varset) [3]int {
	slot := func(n algebra.Node) int {
		if n.IsVar() {
			return e.slot(n.Var)
		}
		return -1
	}
	isBound := func(n algebra.Node) bool { return !n.IsVar() || bound.has(e.slot(n.Var)) }
	s, p, o := slot(t.S), slot(t.P), slot(t.O)
	switch sb, pb, ob := isBound(t.S), isBound(t.P), isBound(t.O); {
	case sb && (pb || !ob):
		return [3]int{s, p, o}
	case sb: // s and o bound, p free
		return [3]int{o, s, p}
	case pb:
		return [3]int{p, o, s}
	case ob:
		return [3]int{o, s, p}
	}
	return [3]int{s, p, o}
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

// objectFanout estimates how many triples of predicate p share one object in g (index.Graph.ObjectFanout, counted
// once per graph). Graphs with their own dictionary get the fixed guess.
func (e *evaluator) objectFanout(gr graphRef, p ID) float64 {
	if gr.f != nil {
		return float64(e.count(gr, 0, p, 0)) / 100
	}
	k := fanoutKey{gr.g, p}
	if f, ok := e.fanout[k]; ok {
		return f
	}
	f := gr.g.ObjectFanout(p)
	e.fanout[k] = f
	return f
}

func (e *evaluator) bgp(x *algebra.BGP, in []ID, emit emitFn, errp *error) bool {
	return e.filteredBGP(x, nil, in, emit, errp)
}

// filteredBGP is a FILTER over a BGP (filters nil: the BGP alone). Each conjunct of the filters is tested as soon
// as the join has bound its variables, rather than on the BGP's finished solutions: FILTER(?days <= 3 && ?date >
// …) over offers then drops an offer right after its days are read, before its other patterns are probed.
// Testing a conjunct on the partial solution is the same test (its variables have their final values there), and
// a solution passes a conjunction exactly when it passes each conjunct. Conjuncts with EXISTS, or with functions
// whose value may differ per call (RAND, BNODE, UUID, STRUUID), and those whose variables the BGP never binds,
// are tested on the finished solutions as before.
func (e *evaluator) filteredBGP(x *algebra.BGP, filters []algebra.Expr, in []ID, emit emitFn, errp *error) bool {
	bound := e.boundSet(in)
	if len(x.Triples) == 0 {
		for _, f := range filters {
			if !e.test(f, in, errp) {
				return *errp == nil
			}
		}
		return emit(in)
	}
	st, p := e.preparedBGP(x, filters, bound)
	if p.never {
		return true // a conjunct fails on every solution: there are none to find
	}
	if len(p.late) > 0 {
		// p itself is not captured: it would move to the heap on every call, and an EXISTS's pattern is
		// prepared and matched once per row (v55i: 28 000 at 10 M).
		inner, late, slots := emit, p.late, p.again
		var again []lastAnswer
		if slots != nil && !e.noMemo {
			again = make([]lastAnswer, len(late))
		}
		emit = func(row []ID) bool {
			for i, f := range late {
				if again != nil && slots[i] != nil && !again[i].off {
					pass, known := again[i].test(e, f, slots[i], row, errp)
					if !known {
						return false
					}
					if !pass {
						st.skip, st.skipSlots = &again[i], slots[i]
						return *errp == nil
					}
					continue
				}
				if !e.test(f, row, errp) {
					return *errp == nil
				}
			}
			return inner(row)
		}
	}
	if p.hash != nil && e.trial == nil && e.subst == 0 {
		if done, cont := e.hashJoin(p.hash, in, emit, errp); done {
			return cont
		}
	}
	// The row is the state's own while no other evaluation of this BGP is under way: a BGP evaluated per row of an
	// EXISTS or per left row of an OPTIONAL allocated one per call (v55j: 280 000 at 10 M, a tenth of its CPU).
	// matchFrom binds and unbinds it in place, so what its solutions go to copies them already.
	var row []ID
	own := !st.busy
	if own {
		if cap(st.row) < len(in) {
			st.row = make([]ID, len(in))
		}
		row = st.row[:len(in)]
		st.busy = true
	} else {
		row = make([]ID, len(in))
	}
	copy(row, in)
	st.scan = p.scan
	// A nested evaluation of this BGP (not own) skips by its own answers and gives the outer one's back.
	savedSkip, savedSlots := st.skip, st.skipSlots
	st.skip, st.skipSlots = nil, nil
	ok := e.matchFrom(x.Triples, p.order, 0, row, st, p.checks, emit, errp)
	st.skip, st.skipSlots = savedSkip, savedSlots
	if own {
		st.busy = false
		st.skip, st.skipSlots = nil, nil
	}
	return ok
}

// bgpPrep is what filteredBGP works out for a BGP, its filters and what is bound, before matching: the join order,
// the conjuncts tested after each step and those tested on the finished solutions. A BGP keeps the last one
// (bgpState.prep): an EXISTS evaluated per row prepares its pattern with the same variables bound for every row,
// and doing it anew took an eighth of v55m's CPU in allocations.
type bgpPrep struct {
	ok      bool
	bound   varset
	graph   ID
	filters *algebra.Expr // the filters' slice (a FILTER's own Exprs) and its length
	nf      int
	order   []int
	checks  [][]algebra.Expr
	late    []algebra.Expr
	scan    scanMode  // how plan reads the first pattern
	hash    *hashPlan // a hash join of x's two stars instead (hashJoinPlan), or nil
	never   bool      // a conjunct is an error on every solution (alwaysError): the FILTER keeps none
	// again holds, per late conjunct, the slots its answer depends on when it is answered again from the previous
	// solution's answer while they hold the same values (lateAgain); nil entries and a nil slice: never.
	again [][]int
}

// preparedBGP returns x's state with its preparation for filters and bound, the last one if it still holds.
func (e *evaluator) preparedBGP(x *algebra.BGP, filters []algebra.Expr, bound varset) (*bgpState, bgpPrep) {
	st := e.stateOf(x)
	p := st.prep
	holds := func(p *bgpPrep) bool {
		return p.ok && p.bound == bound && p.graph == e.activeName() && p.filters == unsafe.SliceData(filters) && p.nf == len(filters)
	}
	if !holds(&p) {
		// A BGP joined after a VALUES whose rows leave different columns UNDEF is evaluated with another set of
		// variables bound from one row to the next (h136: four rows for each of 290 000 reviews at 10 M, a
		// sixth of its CPU spent preparing again): the last few preparations are kept, not only the last.
		i := -1
		for k := range st.older {
			if holds(&st.older[k]) {
				i = k
				break
			}
		}
		if i >= 0 {
			p, st.older[i] = st.older[i], p
		} else {
			q := p
			p = e.prepareBGP(x, filters, bound)
			if q.ok {
				if len(st.older) < olderPreps {
					st.older = append(st.older, q)
				} else {
					copy(st.older, st.older[1:])
					st.older[len(st.older)-1] = q
				}
			}
		}
		st.prep = p
	}
	return st, p
}

// olderPreps is how many preparations a BGP keeps besides its last one (bgpState.older).
const olderPreps = 3

// noteFilters notes the pushable conjuncts of the FILTER over x for the planner (filterVars, filterConj), unless a
// FILTER over x was noted before.
func (e *evaluator) noteFilters(x *algebra.BGP, conj []algebra.Expr) {
	if _, ok := e.filterVars[x]; ok || len(conj) == 0 {
		return
	}
	var vs []varset
	for _, c := range conj {
		if pushable(c) {
			vs = append(vs, e.varsOfExpr(c))
		}
	}
	e.filterVars[x] = vs
	if e.filterConj == nil {
		e.filterConj = map[*algebra.BGP][]algebra.Expr{}
	}
	for _, c := range conj {
		if pushable(c) {
			e.filterConj[x] = append(e.filterConj[x], c)
		}
	}
}

// prepareBGP works out filteredBGP's bgpPrep for x under filters with bound bound.
func (e *evaluator) prepareBGP(x *algebra.BGP, filters []algebra.Expr, bound varset) bgpPrep {
	var late []algebra.Expr
	var checks [][]algebra.Expr
	var conj []algebra.Expr
	for _, f := range filters {
		conj = appendConjuncts(conj, f)
	}
	e.noteFilters(x, conj)
	order := e.plan(x, bound)
	var levels []varset // what is bound after each step
	if len(conj) > 0 {
		b := bound
		for _, i := range order {
			t := x.Triples[i]
			b = b.union(e.nodeVars(t.S, t.P, t.O))
			levels = append(levels, b)
		}
	}
next:
	for _, c := range conj {
		if early, vars := pushable(c), e.varsOfExpr(c); early {
			for k := range levels {
				if vars.subsetOf(levels[k]) {
					if checks == nil {
						checks = make([][]algebra.Expr, len(order))
					}
					checks[k] = append(checks[k], c)
					continue next
				}
			}
		}
		late = append(late, c)
	}
	never := slices.ContainsFunc(conj, alwaysError)
	var pushed []algebra.Expr // the conjuncts tested within the join
	for _, cs := range checks {
		pushed = append(pushed, cs...)
	}
	scan := e.scanModeOf(x, bound)
	return bgpPrep{ok: true, bound: bound, graph: e.activeName(), filters: unsafe.SliceData(filters), nf: len(filters),
		order: order, checks: checks, late: late, scan: scan, hash: e.hashJoinPlan(x, pushed, bound, order, scan, e.groupedBy(x)),
		never: never, again: e.lateAgain(late)}
}

// appendConjuncts appends the operands of a chain of && (or the expression itself) to out.
func appendConjuncts(out []algebra.Expr, x algebra.Expr) []algebra.Expr {
	if c, ok := x.(*algebra.Call); ok && c.Func == "&&" && len(c.Args) == 2 {
		return appendConjuncts(appendConjuncts(out, c.Args[0]), c.Args[1])
	}
	return append(out, x)
}

// alwaysError reports whether x is an error whatever the solution, so that a FILTER of it keeps no solution
// (§17.2: an error is not true): a call of a function the evaluator does not know (a FunctionCall that is not one
// of builtin.Cast's targets, such as xsd:time, answers ErrUnknownFunction after its arguments), a cast of such a
// call, and a comparison or "!" with such an operand, which pass their operands' errors on (compareTerms). Forms
// that may absorb an error (||, &&, IF, COALESCE, IN, BOUND) are never said to be.
func alwaysError(x algebra.Expr) bool {
	switch v := x.(type) {
	case *algebra.FunctionCall:
		if !builtin.IsCast(v.IRI) {
			return true
		}
		return len(v.Args) == 1 && alwaysError(v.Args[0])
	case *algebra.Call:
		if (len(v.Args) == 2 && isComparison(v.Func)) || (len(v.Args) == 1 && v.Func == "!") {
			return slices.ContainsFunc(v.Args, alwaysError)
		}
	}
	return false
}

// pushable reports whether a filter conjunct may be tested as soon as its variables are bound: no EXISTS (its
// pattern may mention variables the conjunct's own do not show) and no function whose value may differ per call.
func pushable(x algebra.Expr) bool {
	ok := true
	algebra.WalkExpr(x, func(x algebra.Expr) bool {
		switch v := x.(type) {
		case *algebra.Exists:
			ok = false
		case *algebra.Call:
			switch v.Func {
			case "RAND", "BNODE", "UUID", "STRUUID":
				ok = false
			}
		}
		return ok
	})
	return ok
}

// bgpState is what a BGP keeps for the whole query: the index cursors of its patterns, one per pattern and active
// graph, so a pattern probed once per outer solution, in this BGP or from a join above it, starts each search where
// the previous one ended (index.Cursor); and its patterns' nodes resolved once, so a probe neither looks up a
// variable's slot nor a constant's id in a map keyed by strings.
type bgpState struct {
	cur   []probeCursor
	nodes [][3]patNode
	// scan: how the run in progress reads its first pattern (plan, subjectScan, narrowedScan).
	scan scanMode
	prep bgpPrep // the last call's preparation (filteredBGP)
	// older are the preparations before it for other bound variables, graphs or filters, most recent last.
	older []bgpPrep
	// scanLen is how many rows the run in progress reads in subject order (0: none), and scanSlot their subject's
	// slot: the star's probes on that subject then ascend (runDue).
	scanLen, scanSlot int
	// row is filteredBGP's solution in progress, while busy.
	row  []ID
	busy bool
	// skip is the late conjunct's answer that last failed in the run in progress, and skipSlots the slots it
	// reads (lastAnswer): the last pattern's rows that would give it the same values are passed over (skips).
	skip      *lastAnswer
	skipSlots []int
}

// narrowKey names what narrowedScan's rows depend on: the BGP (its triples), the graph, the FILTER over it and
// what is bound, which decide the conjuncts tested after its first pattern (prepareBGP).
type narrowKey struct {
	ts      *algebra.Triple
	g       *index.Graph
	filters *algebra.Expr
	nf      int
	bound   varset
}

// narrowedRows are the rows of a BGP's first pattern that its first step's conjuncts keep, sorted by subject, and
// the conjuncts left to test on them (narrowedScan).
type narrowedRows struct {
	rows []index.Row
	rest []algebra.Expr
}

// patNode is a pattern position: a variable's slot, or a constant's id (0 when the data cannot hold it).
type patNode struct {
	slot int // -1 for a constant
	id   ID
}

func (e *evaluator) stateOf(x *algebra.BGP) *bgpState {
	st := e.bgps[x]
	if st == nil {
		st = &bgpState{nodes: make([][3]patNode, len(x.Triples))}
		for i, t := range x.Triples {
			for j, n := range [3]algebra.Node{t.S, t.P, t.O} {
				if n.IsVar() {
					st.nodes[i][j] = patNode{slot: e.slot(n.Var)}
				} else {
					st.nodes[i][j] = patNode{slot: -1, id: e.constID(n.Term)}
				}
			}
		}
		e.bgps[x] = st
	}
	if n := len(x.Triples) * len(e.active); len(st.cur) < n {
		st.cur = make([]probeCursor, n)
	}
	return st
}

// resolve resolves a pattern node against a row: a constant's id (ok false when the data cannot contain it), a
// bound variable's id, or 0 with the slot to bind.
func (e *evaluator) resolve(n patNode, row []ID) (id ID, slot int, ok bool) {
	if n.slot < 0 {
		return n.id, -1, n.id != 0
	}
	if v := row[n.slot]; v != 0 {
		return v, n.slot, e.mayMatch(v)
	}
	return 0, n.slot, true
}

func (e *evaluator) matchFrom(ts []algebra.Triple, order []int, k int, row []ID, st *bgpState, checks [][]algebra.Expr, emit emitFn, errp *error) bool {
	if k == len(order) {
		return emit(row)
	}
	nd := &st.nodes[order[k]]
	s, ss, ok1 := e.resolve(nd[0], row)
	p, ps, ok2 := e.resolve(nd[1], row)
	o, os, ok3 := e.resolve(nd[2], row)
	if !ok1 || !ok2 || !ok3 {
		return true
	}
	for gi, gr := range e.active {
		if gr.f != nil {
			if !e.scan(gr, s, p, o, func(ms, mp, mo ID) bool {
				if gi > 0 && e.inEarlierGraph(gi, ms, mp, mo) {
					return true
				}
				return e.bindAndMatch(ts, order, k, row, st, checks, [3]int{ss, ps, os}, [3]bool{s == 0, p == 0, o == 0}, [3]ID{ms, mp, mo}, emit, errp)
			}) {
				return false
			}
			continue
		}
		var m index.Matches
		var proven []bool               // ranges whose rows pass the comparisons valueRanges used
		var restChecks [][]algebra.Expr // checks without those comparisons
		if k == 0 && st.scan != scanNone && s == 0 && p != 0 && o == 0 {
			if st.scan == scanAll {
				m = e.subjectScan(gr.g, p)
			} else if checks != nil {
				var rest []algebra.Expr
				k := narrowKey{unsafe.SliceData(ts), gr.g, st.prep.filters, st.prep.nf, st.prep.bound}
				if m, rest = e.narrowedScan(k, p, os, checks[0], row, errp); rest != nil {
					proven = []bool{true}
					restChecks = append([][]algebra.Expr{rest}, checks[1:]...)
				}
			}
		}
		if k == 0 {
			st.scanLen, st.scanSlot = m.Len(), ss // a scan's rows, which the star's probes follow (runDue)
		}
		parts := [1]index.Matches{m}
		ranges := parts[:]
		if m.Rows == nil {
			c := &st.cur[order[k]*len(e.active)+gi]
			if k > 0 && st.scanLen > 0 && ss == st.scanSlot && s != 0 && p != 0 && e.runDue(c, gr.g, p, st.scanLen) {
				parts[0] = c.matchRun(s, o)
			} else {
				parts[0] = e.probe(c, gr.g, s, p, o)
			}
			if k == 0 && s == 0 && p != 0 && o == 0 && checks != nil && parts[0].Perm == index.POS {
				var rest []algebra.Expr
				ranges, proven, rest = e.valueRanges(parts[0], os, checks[0], row, errp)
				if proven != nil {
					restChecks = append([][]algebra.Expr{rest}, checks[1:]...)
				}
			}
		}
		if k == 0 && len(order) == 2 && len(e.active) == 1 && m.Rows == nil && e.trial == nil && e.work == nil &&
			s == 0 && p != 0 && o == 0 && parts[0].Perm == index.POS {
			if done, cont := e.hashStar(order, row, st, ranges, proven, checks, restChecks, parts[0].Len(), ss, os, gr.g, emit, errp); done {
				return cont
			}
		}
		if k == 0 && e.fork != nil {
			if done, cont := e.forkScan(ts, ranges, proven, order, row, st, checks, restChecks, [3]int{ss, ps, os}, [3]bool{s == 0, p == 0, o == 0}, emit, errp); done {
				return cont
			}
		}
		// The outermost loop of a trial evaluation tells it how far it has got (trialWatch).
		var watch *trialWatch
		if k == 0 && gi == 0 && e.trial != nil && e.trial.st == nil {
			watch = e.trial
			watch.st = st
			for _, m := range ranges {
				watch.total += m.Len()
			}
		}
		for ri, m := range ranges {
			ch := checks
			if proven != nil && proven[ri] {
				ch = restChecks
			}
			for j := 0; j < m.Len(); j++ {
				if watch != nil {
					watch.done++
				}
				if e.steps++; e.steps >= e.nextCheck {
					if err := e.interrupted(); err != nil {
						*errp = err
						return false
					}
				}
				ms, mp, mo := m.At(j)
				if gi > 0 && e.inEarlierGraph(gi, ms, mp, mo) {
					continue // the default graph is a set: a triple in two merged graphs counts once
				}
				if st.skip != nil && k == len(order)-1 && st.skips(row, os, mo) {
					continue
				}
				if !e.bindAndMatch(ts, order, k, row, st, ch, [3]int{ss, ps, os}, [3]bool{s == 0, p == 0, o == 0}, [3]ID{ms, mp, mo}, emit, errp) {
					return false
				}
			}
		}
	}
	return true
}

// bindAndMatch binds the free positions of one matched triple and continues with the next pattern; a variable
// used twice in one pattern must get one value. It restores the row before returning.
func (e *evaluator) bindAndMatch(ts []algebra.Triple, order []int, k int, row []ID, st *bgpState, checks [][]algebra.Expr, slots [3]int, free [3]bool, ids [3]ID, emit emitFn, errp *error) bool {
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
	if ok && checks != nil {
		for _, c := range checks[k] {
			if !e.test(c, row, errp) {
				ok = false
				break
			}
		}
	}
	cont := *errp == nil
	if ok && cont {
		cont = e.matchFrom(ts, order, k+1, row, st, checks, emit, errp)
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

// probeCursor is an index cursor with the subject-sorted copy of its predicate, once the probes have earned it.
type probeCursor struct {
	index.Cursor
	sub  *index.Graph // subP's triples of subG (the same pattern runs in each graph of GRAPH ?g)
	subG *index.Graph
	subP ID
	obj  *index.ObjectTable // objP's objects in objG (objectIndex)
	objG *index.Graph
	objP ID
	// keptG and keptP are the graph and predicate whose kept table of objects c last asked for (adoptTable), and
	// objFar its far probes by object since, which it reports to the graph in batches.
	keptG  *index.Graph
	keptP  ID
	objFar int
	// run holds runP's triples of runG in subject order (SPO rows), or nil when runDue declined them; runAt is
	// where the previous probe, of subject runS, landed in it.
	run   []index.Row
	runG  *index.Graph
	runP  ID
	runAt int
	runS  ID
}

// runShare is how many times the rows of a subject scan a probed predicate may have for its rows to be read in
// subject order beside the scan (runDue): sorting them costs about what as many in-order probes of the whole SPO
// permutation do, each a few cache misses at 10 M triples where a step along the copy is one.
const runShare = 2

// runDue reports whether a probe of "s p ?o" (or "s p o") in g through c, with s the subject of a star read in
// subject order from scanLen rows, is answered from p's triples sorted by subject (subjectScan's copy, charged to
// the query's budget) rather than from the whole SPO permutation: when p has at most runShare times as many
// triples. The probes then ascend along the copy, as a merge of the two reads. The decision is kept per cursor
// and predicate.
func (e *evaluator) runDue(c *probeCursor, g *index.Graph, p ID, scanLen int) bool {
	if c.runG == g && c.runP == p {
		return c.run != nil
	}
	c.run, c.runG, c.runP, c.runAt, c.runS = nil, g, p, 0, 0
	if g.Match(0, p, 0).Len() > runShare*scanLen {
		return false
	}
	c.run = e.subjectScan(g, p).Rows // nil without room in the budget
	return c.run != nil
}

// matchRun answers "s p ?o" (o 0) or "s p o" from c.run: from where the previous probe landed, galloping forward,
// when s ascends; by binary search otherwise.
func (c *probeCursor) matchRun(s, o ID) index.Matches {
	rows := c.run
	start := 0
	if c.runAt > 0 && s > c.runS {
		start = c.runAt // the rows before it hold subjects below the previous probe's, so below s
	}
	lo := gallopTo(rows, start, s)
	c.runAt, c.runS = lo, s
	end := lo
	for end < len(rows) && rows[end][0] == s {
		end++
	}
	if o != 0 {
		a := lo
		for a < end && rows[a][2] < o {
			a++
		}
		b := a
		for b < end && rows[b][2] == o {
			b++
		}
		lo, end = a, b
	}
	return index.Matches{Rows: rows[lo:end], Perm: index.SPO}
}

// gallopTo returns the first row at or after start, in rows sorted by subject, whose subject is not below s:
// galloping forward from start (steps of 1, 2, 4 …), then searching the last step.
func gallopTo(rows []index.Row, start int, s ID) int {
	hi, step := start, 1
	for hi < len(rows) && rows[hi][0] < s {
		start = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(rows))
	return start + sort.Search(hi-start, func(i int) bool { return rows[start+i][0] >= s })
}

// probe matches a pattern in g through c, in p's triples sorted by subject (subjectIndex) when c has earned them.
func (e *evaluator) probe(c *probeCursor, g *index.Graph, s, p, o ID) index.Matches {
	e.probes++ // counted work (effort)
	if s != 0 && p != 0 {
		if c.sub != nil && c.subP == p && c.subG == g {
			return c.sub.MatchSubject(s, p, o)
		}
		if sub := e.subjectIndex(&c.Cursor, g, p); sub != nil {
			c.sub, c.subG, c.subP = sub, g, p
			return sub.MatchSubject(s, p, o)
		}
	}
	byObject := s == 0 && p != 0 && o != 0
	if byObject {
		if c.obj != nil && c.objP == p && c.objG == g {
			return c.obj.Match(o)
		}
		if c.keptG != g || c.keptP != p {
			// The first probe of p by object through c: the graph may keep p's table from earlier queries.
			c.keptG, c.keptP, c.objFar = g, p, 0
			if t := e.adoptTable(g, p, g.KeptObjectTable(p)); t != nil {
				c.obj, c.objG, c.objP = t, g, p
				return t.Match(o)
			}
		}
		if t := e.objectIndex(&c.Cursor, g, p); t != nil {
			c.obj, c.objG, c.objP = t, g, p
			return t.Match(o)
		}
	}
	far := c.Far()
	m := g.MatchFrom(&c.Cursor, s, p, o)
	if c.Far() != far {
		e.farProbes++
		if byObject {
			// Counted for the graph, which keeps p's table once such probes over its queries have earned it.
			if c.objFar++; c.objFar%objectBatch == 0 {
				if t := e.adoptTable(g, p, g.NoteObjectProbes(p, objectBatch)); t != nil {
					c.obj, c.objG, c.objP = t, g, p
				}
			}
		}
	}
	return m
}

// objectBatch is how many far probes by object a cursor counts before it adds them to its graph's count
// (index.Graph.NoteObjectProbes), which takes a lock.
const objectBatch = 64

// adoptTable returns t, a table of p's objects the graph keeps (nil: none), as this evaluator's for p in g when the
// query's budget has room for it: each query that reads a kept table answers for it, as for a copy another
// goroutine of its run built.
func (e *evaluator) adoptTable(g *index.Graph, p ID, t *index.ObjectTable) *index.ObjectTable {
	if t == nil {
		return nil
	}
	k := fanoutKey{g, p}
	if own, ok := e.byObject[k]; ok {
		return own
	}
	if !e.charge(index.ObjectTableBytes(g.Match(0, p, 0).Len())) {
		return nil
	}
	e.byObject[k] = t
	return t
}

// doubled reports whether c's far probes number 256 or more and have just doubled: when subjectIndex and
// objectIndex look again.
func doubled(c *index.Cursor) bool {
	far := c.Far()
	return far >= 256 && far&(far-1) == 0
}

// earned reports whether the far probes through c number 1/per of a predicate's n triples and the query's budget
// has room for cost more bytes, and then charges them.
func (e *evaluator) earned(c *index.Cursor, n, per, cost int64) bool {
	return int64(c.Far())*e.ways() >= n/per && e.charge(cost)
}

// charge reports whether the query's budget has room for cost more bytes, and then charges them; they are held
// until the caller gives them back (e.bytes -= cost), or for the query.
func (e *evaluator) charge(cost int64) bool {
	if e.bytes+e.t.bytes+cost > e.opt.MaxMemory {
		return false
	}
	e.bytes += cost
	return true
}

// objectIndex returns p's table of objects in g (index.Graph.ObjectTable) for a pattern "?s p o" whose probes
// through c have mostly been far from each other, or nil. The table costs a pass over p's rows and two slots per
// object, about what a far search costs per 256 rows, so it is built once the far probes number 1/256 of p's
// rows; it is charged to the query's budget.
func (e *evaluator) objectIndex(c *index.Cursor, g *index.Graph, p ID) *index.ObjectTable {
	if !doubled(c) && !e.adoptDue(c) {
		return nil
	}
	k := fanoutKey{g, p}
	if t, ok := e.byObject[k]; ok {
		return t
	}
	n := int64(g.Match(0, p, 0).Len())
	if _, t := e.sharedCopy(k); t != nil {
		e.bytes += index.ObjectTableBytes(int(n)) // each goroutine that reads it answers for it
		e.byObject[k] = t
		return t
	}
	if !doubled(c) {
		return nil
	}
	if !e.earned(c, n, 256, index.ObjectTableBytes(int(n))) {
		return nil
	}
	t := g.ObjectTable(p)
	e.byObject[k] = t
	e.shareCopy(k, nil, t)
	return t
}

// subjectScan returns p's triples in g in subject order (index.Graph.SubjectRows), for a join that starts from them
// and probes a star of patterns on their subjects: each probe then lands just after the previous one (index.Cursor)
// where the predicate's own order, by object, sent it anywhere in the index. The rows are read in order, never
// probed, so they go without BySubject's table of subjects, which for 580 000 rows took 42-53 ms against the sort's
// 10-25 (an 8 MiB table written at random, each page touched first): a copy subjectIndex made already serves, and
// one it makes later is its own. Without
// room in the budget for the copy, or when p has no triples, the Matches are empty and the pattern is matched as
// usual.
func (e *evaluator) subjectScan(g *index.Graph, p ID) index.Matches {
	k := fanoutKey{g, p}
	if sub, ok := e.bySubject[k]; ok {
		return index.Matches{Rows: sub.Rows(index.SPO), Perm: index.SPO}
	}
	rows, ok := e.scanRows[k]
	if !ok {
		n := int64(g.Match(0, p, 0).Len())
		if n == 0 || e.bytes+e.t.bytes+12*n > e.opt.MaxMemory {
			return index.Matches{}
		}
		e.bytes += 12 * n
		rows = g.SubjectRows(p)
		if e.scanRows == nil {
			e.scanRows = map[fanoutKey][]index.Row{}
		}
		e.scanRows[k] = rows
	}
	return index.Matches{Rows: rows, Perm: index.SPO}
}

// narrowedScan returns the rows of "?s p ?o" in g that the value ranges of conj, the conjuncts tested right after
// the pattern, keep (valueRanges), sorted by subject: the narrowed range read in subject order, so the star of
// patterns on ?s probes each subject just after the previous one. When valueRanges proved every range kept,
// rest (not nil) is the conjuncts left to test on the rows; otherwise each conjunct is tested on every row. The
// rows are kept under k for the BGP's later runs, and for the workers of a split scan, which reach the scan as the
// query's goroutine did and would sort them again. When the ranges narrow nothing, or the copy has no room in the
// query's budget, the Matches are empty and the pattern is matched as usual.
func (e *evaluator) narrowedScan(k narrowKey, p ID, oslot int, conj []algebra.Expr, row []ID, errp *error) (index.Matches, []algebra.Expr) {
	if n, ok := e.narrowRows[k]; ok {
		return index.Matches{Rows: n.rows, Perm: index.SPO}, n.rest
	}
	ranges, proven, rest := e.valueRanges(k.g.Match(0, p, 0), oslot, conj, row, errp)
	if proven == nil || *errp != nil {
		return index.Matches{}, nil
	}
	if slices.Contains(proven, false) {
		rest = nil
	} else if rest == nil {
		rest = []algebra.Expr{} // nothing left to test, which nil would not say
	}
	parts := make([][]index.Row, len(ranges))
	n := int64(0)
	for i, r := range ranges {
		parts[i] = r.Rows
		n += int64(r.Len())
	}
	if e.bytes+e.t.bytes+12*n > e.opt.MaxMemory {
		return index.Matches{}, nil
	}
	e.bytes += 12 * n
	rows := k.g.SortedBySubject(parts...)
	if e.narrowRows == nil {
		e.narrowRows = map[narrowKey]narrowedRows{}
	}
	e.narrowRows[k] = narrowedRows{rows: rows, rest: rest}
	return index.Matches{Rows: rows, Perm: index.SPO}, rest
}

// subjectIndex returns p's triples in g sorted by subject (index.Graph.BySubject) for a pattern "s p ?o" whose
// probes through c have mostly been far from each other, or nil. Such probes (a join whose outer solutions reach
// the subjects in no useful order, such as offers vendor by vendor) each search the whole SPO permutation; once
// they number a sixteenth of p's triples, about what sorting p's triples costs, the rest search p's rows only.
// The copy is charged to the query's budget; without room the probes go on as before.
func (e *evaluator) subjectIndex(c *index.Cursor, g *index.Graph, p ID) *index.Graph {
	if !doubled(c) && !e.adoptDue(c) {
		return nil
	}
	k := fanoutKey{g, p}
	if sub, ok := e.bySubject[k]; ok {
		return sub
	}
	n := int64(g.Match(0, p, 0).Len())
	if sub, _ := e.sharedCopy(k); sub != nil {
		e.bytes += 12*n + index.SubjectTableBytes(int(n)) // each goroutine that reads it answers for it
		e.bySubject[k] = sub
		return sub
	}
	if !doubled(c) {
		return nil
	}
	if !e.earned(c, n, 16, 12*n+index.SubjectTableBytes(int(n))) {
		return nil
	}
	sub := g.BySubject(p)
	e.bySubject[k] = sub
	e.shareCopy(k, sub, nil)
	return sub
}

// inlineBlocks bounds the ids of the numbers and dates held in their ids (index.IsInline) by kind and decimal
// scale: within each block, ids ascend with the values.
var inlineBlocks = func() []ID {
	b := []ID{0x80000000}
	for scale := ID(0); scale <= 4; scale++ {
		b = append(b, 0x90000000+scale<<26)
	}
	return append(b, 0xb0000000)
}()

// narrowTo is the part of [lo, hi) where c passes, for a comparison holding on a prefix or a suffix of it (all
// or none included): found from its ends and by binary search.
func narrowTo(c algebra.Expr, lo, hi int, pass func(algebra.Expr, int) bool) (int, int) {
	if lo == hi {
		return lo, hi
	}
	first, last := pass(c, lo), pass(c, hi-1)
	switch {
	case first && last:
	case first: // a prefix passes: the first row that fails ends it
		hi = lo + sort.Search(hi-lo, func(i int) bool { return !pass(c, lo+i) })
	case last: // a suffix passes
		lo += sort.Search(hi-lo, func(i int) bool { return pass(c, lo+i) })
	default: // neither end passes, so no row between does
		return lo, lo
	}
	return lo, hi
}

// valueRanges narrows the rows of "?s p ?o" (POS, so ordered by ?o's id) to those that can pass the filter
// conjuncts tested right after the pattern, using the order of inline ids and of the dictionary's dateTimes
// (valueBlocks): in each block of numbers of one kind and scale, of dates, or of dateTimes of one class, the ids
// ascend with the values, so a comparison of ?o with a constant holds on a prefix,
// a suffix, all or none of the block, found by binary search with the conjunct itself. FILTER(?p < 0) over every
// offer's price then reads no row at all. Rows whose objects are in the dictionary (other literals, IRIs, numbers
// in other forms) are all kept. Rows of a block of numbers or dateTimes that binary search kept pass each of those
// comparisons, so they need testing only against rest, the other conjuncts: proven says which ranges those are.
// Inline dates are not: a form such as 31 February has an id among them and passes no comparison.
func (e *evaluator) valueRanges(m index.Matches, oslot int, conj []algebra.Expr, row []ID, errp *error) (out []index.Matches, proven []bool, rest []algebra.Expr) {
	rows := m.Rows
	var tests []algebra.Expr
	var ne *algebra.Call   // one "!=" with a constant: it fails on an interval of each block, and holds around it
	var in *algebra.In     // one IN of constants: it holds on the union of the intervals where "=" each holds
	var cls []algebra.Expr // conjuncts with one value over each dictionary date block (classConstant)
	rest = conj
	for _, c := range conj {
		if e.classConstant(c, oslot) {
			cls = append(cls, c)
			continue
		}
		if x, ok := c.(*algebra.In); ok && in == nil && e.inOverSlot(x, oslot) {
			in = x
			continue
		}
		call, ok := c.(*algebra.Call)
		if !ok || len(call.Args) != 2 {
			continue
		}
		switch call.Func {
		case "<", "<=", ">", ">=", "=":
		case "!=":
			if ne != nil {
				continue
			}
		default:
			continue
		}
		v0, isVar0 := call.Args[0].(algebra.Var)
		v1, isVar1 := call.Args[1].(algebra.Var)
		_, isConst0 := call.Args[0].(algebra.Constant)
		_, isConst1 := call.Args[1].(algebra.Constant)
		if (isVar0 && isConst1 && e.slot(v0) == oslot) || (isConst0 && isVar1 && e.slot(v1) == oslot) {
			if call.Func == "=" {
				// Equal values compare as equal (a value block holds numbers or dates, never a term equal
				// only by its form), so the rows that pass lie where both ">=" and "<=" hold: an interval.
				halves := e.equalHalves(call)
				tests = append(tests, halves[0], halves[1])
				continue
			}
			if call.Func == "!=" {
				ne = call
			} else {
				tests = append(tests, c)
			}
			if len(rest) == len(conj) {
				rest = nil
				for _, x := range conj {
					if x != c {
						rest = append(rest, x)
					}
				}
			} else {
				rest = slices.DeleteFunc(rest, func(x algebra.Expr) bool { return x == c })
			}
		}
	}
	if in != nil {
		if ne != nil {
			in = nil // the two are not combined: the IN stays tested on every row
		} else {
			rest = slices.DeleteFunc(slices.Clone(rest), func(x algebra.Expr) bool { return x == algebra.Expr(in) })
		}
	}
	win, hasWin := e.fieldWindowOf(oslot, conj)
	if (len(tests) == 0 && !hasWin && ne == nil && in == nil && cls == nil) || len(rows) < 64 {
		return []index.Matches{m}, nil, conj
	}
	// POS rows are (p, o, s).
	find := func(id ID) int { return sort.Search(len(rows), func(i int) bool { return rows[i][1] >= id }) }
	dictBlocks := 0 // valueBlocks starts with the dictionary's date blocks
	if e.t.dict != nil {
		dictBlocks = len(e.t.dict.DateBlocks())
	}
	if cls != nil {
		bs := e.valueBlocks()
		inDict := 0 // the rows in the dictionary's date blocks
		if dictBlocks > 0 {
			inDict = find(bs[dictBlocks-1][1]) - find(bs[0][0])
		}
		switch {
		case inDict == 0 && len(tests) == 0 && !hasWin && ne == nil && in == nil:
			// cls decide nothing outside the date blocks (b11's isLiteral over labels): the rows stay as they are,
			// not cut into parts that are all tested.
			return []index.Matches{m}, nil, conj
		case inDict == len(rows):
			// Every row is in a block the cls decide: the blocks kept pass them.
			rest = slices.DeleteFunc(slices.Clone(rest), func(x algebra.Expr) bool { return slices.Contains(cls, x) })
		}
		// Otherwise the blocks that fail them are dropped, and they stay tested on the other rows with rest.
	}
	pass := func(c algebra.Expr, i int) bool {
		row[oslot] = rows[i][1]
		ok := e.test(c, row, errp)
		row[oslot] = 0
		return ok
	}
	// search is pass for narrowTo's binary searches. A form such as 31 February has an id between its month's
	// last day and the next month's first and passes no comparison, so a search that lands on one would take it
	// for the boundary and drop the valid dates on its other side. Tested as its month's last day instead, it
	// keeps every comparison with a date monotone over the block (no date lies between the two), and keep drops
	// such forms from what the searches kept.
	search := func(c algebra.Expr, i int) bool {
		id := rows[i][1]
		if index.IsInlineDate(id) {
			if last, _ := index.InlineDateMonth(id); id > last {
				id = last
			}
		}
		row[oslot] = id
		ok := e.test(c, row, errp)
		row[oslot] = 0
		return ok
	}
	// keep adds the rows lo … hi of a block as proven. Among inline dates, forms such as 31 February have ids but
	// pass no comparison: the runs between them are proven and they are dropped, unless the dates span too many
	// months to cut (then all stay tested), or only a window narrowed them (its conjuncts are tested anyway).
	keep := func(lo, hi int, dates bool) {
		if lo >= hi {
			return
		}
		if !dates {
			out = append(out, index.Matches{Rows: rows[lo:hi], Perm: m.Perm})
			proven = append(proven, true)
			return
		}
		cut := len(tests) > 0 || ne != nil
		start, cur := lo, lo
		for months := 0; cut && cur < hi && months < 4096; months++ {
			lastDay, day31 := index.InlineDateMonth(rows[cur][1])
			a := cur + sort.Search(hi-cur, func(i int) bool { return rows[cur+i][1] > lastDay })
			if a == hi || rows[a][1] > day31 {
				cur = a // no form past the month's last day: on to the next month
				continue
			}
			if start < a {
				out = append(out, index.Matches{Rows: rows[start:a], Perm: m.Perm})
				proven = append(proven, true)
			}
			start = a + sort.Search(hi-a, func(i int) bool { return rows[a+i][1] > day31 })
			cur = start
		}
		if start < hi {
			out = append(out, index.Matches{Rows: rows[start:hi], Perm: m.Perm})
			proven = append(proven, cut && cur >= hi)
		}
	}
	prev := 0 // rows before a block, and after the last, are kept
blocks:
	for bi, b := range e.valueBlocks() {
		lo, hi := find(b[0]), find(b[1])
		if prev < lo {
			out = append(out, index.Matches{Rows: rows[prev:lo], Perm: m.Perm})
			proven = append(proven, false)
		}
		prev = hi
		if bi < dictBlocks && lo < hi {
			// Each of cls has one value over the block: its first row says whether the block passes.
			for _, c := range cls {
				if !pass(c, lo) {
					continue blocks
				}
			}
		}
		if hasWin {
			lo, hi = e.windowRows(rows, lo, hi, b, win)
		}
		// Each comparison holds on a prefix or a suffix of the block; together they hold on an interval.
		for _, c := range tests {
			if lo == hi {
				continue blocks
			}
			lo, hi = narrowTo(c, lo, hi, search)
		}
		if ne != nil && lo < hi {
			// "!=" holds where "<" or ">" does (where the values differ and compare), an end of the interval each,
			// and fails between them (equal, or not comparable within the timezone window). A constant for which
			// it means something else (an IRI, NaN) shows at the ends of those parts: then the rows stay tested.
			h := e.equalHalves(ne)
			pre, suf, ok := lo, hi, true // the rows from lo to pre, and from suf to hi, pass
			for _, c := range h {
				switch a, z := narrowTo(c, lo, hi, search); {
				case a == z:
				case a == lo:
					pre = max(pre, z)
				case z == hi:
					suf = min(suf, a)
				default:
					ok = false
				}
			}
			ok = ok && pre <= suf
			if ok && lo < pre {
				ok = pass(ne, lo) && pass(ne, pre-1)
			}
			if ok && suf < hi {
				ok = pass(ne, suf) && pass(ne, hi-1)
			}
			if ok && pre < suf {
				ok = !pass(ne, pre) && !pass(ne, suf-1)
			}
			if !ok {
				out = append(out, index.Matches{Rows: rows[lo:hi], Perm: m.Perm})
				proven = append(proven, false)
				continue
			}
			for _, part := range [2][2]int{{lo, pre}, {suf, hi}} {
				keep(part[0], part[1], index.IsInlineDate(b[0]))
			}
			continue
		}
		if in != nil && lo < hi {
			parts, ok := e.inIntervals(in, lo, hi, pass, search)
			if !ok {
				out = append(out, index.Matches{Rows: rows[lo:hi], Perm: m.Perm})
				proven = append(proven, false)
				continue
			}
			for _, part := range parts {
				keep(part[0], part[1], index.IsInlineDate(b[0]))
			}
			continue
		}
		keep(lo, hi, index.IsInlineDate(b[0]))
	}
	if prev < len(rows) {
		out = append(out, index.Matches{Rows: rows[prev:], Perm: m.Perm})
		proven = append(proven, false)
	}
	return out, proven, rest
}

// maxInRanges bounds the constants of an IN that valueRanges reads as intervals: each costs two binary searches
// per block, each step a test.
const maxInRanges = 64

// inOverSlot reports whether x is "?o IN (constants)" (not NOT IN) over the variable in slot oslot, with at most
// maxInRanges constants.
func (e *evaluator) inOverSlot(x *algebra.In, oslot int) bool {
	v, ok := x.Expr.(algebra.Var)
	if !ok || x.Not || len(x.List) == 0 || len(x.List) > maxInRanges || e.slot(v) != oslot {
		return false
	}
	for _, it := range x.List {
		if _, ok := it.(algebra.Constant); !ok {
			return false
		}
	}
	return true
}

// inIntervals returns the rows lo … hi of one value block where x, "?o IN (c1 … cn)", holds, as ascending disjoint
// intervals. IN holds where some "?o = ci" does (§17.4.1.9: an error elsewhere fails the FILTER as false does),
// and within a block "=" holds on the interval where ">=" and "<=" both do (valueRanges' "="), so the union of
// those intervals is exact. Each interval's ends are tested against x itself: when one fails (a constant for which
// the halves mean something else), ok is false and the block's rows stay tested.
func (e *evaluator) inIntervals(x *algebra.In, lo, hi int, pass, search func(algebra.Expr, int) bool) (parts [][2]int, ok bool) {
	for i := range x.List {
		h := e.equalHalves(e.inEqual(x, i))
		a, z := narrowTo(h[0], lo, hi, search)
		if a < z {
			a, z = narrowTo(h[1], a, z, search)
		}
		if a == z {
			continue
		}
		if !pass(x, a) || !pass(x, z-1) {
			return nil, false
		}
		parts = append(parts, [2]int{a, z})
	}
	slices.SortFunc(parts, func(p, q [2]int) int { return p[0] - q[0] })
	merged := parts[:0]
	for _, p := range parts {
		if n := len(merged); n > 0 && p[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], p[1])
			continue
		}
		merged = append(merged, p)
	}
	return merged, true
}

// inEqual is "?o = c" for x's constant c at i, made once per query (equalHalves keeps its halves by the call).
func (e *evaluator) inEqual(x *algebra.In, i int) *algebra.Call {
	k := inItem{x, i}
	if eq := e.inEquals[k]; eq != nil {
		return eq
	}
	if e.inEquals == nil {
		e.inEquals = map[inItem]*algebra.Call{}
	}
	eq := &algebra.Call{Func: "=", Args: []algebra.Expr{x.Expr, x.List[i]}}
	e.inEquals[k] = eq
	return eq
}

// inItem names one constant of an IN (inEqual).
type inItem struct {
	in *algebra.In
	i  int
}

// hashStarMin is the fewest narrowed rows hashStar reads that way: below it, the far probes cost less than reading
// the second predicate's rows.
const hashStarMin = 1 << 12

// hashStar evaluates a star of two patterns, "?s p ?o" whose rows its filter narrowed (ranges, out of total rows)
// and "?s q ?x", by reading q's rows in their order against a table of the narrowed rows' subjects, instead of
// probing q by each narrowed row's subject. Those subjects lie anywhere among q's: d06's 24 000 reviews before a
// date probed their reviewFor at ~750 ns each at 10 M (cache misses into SPO), where reading all 290 000 reviewFor
// rows in order and testing a bitmap costs a few ns a row. It applies when q has at most probeFar rows per narrowed
// row. The solutions come in q's order (by ?x) instead of p's; the set is the same. done false: evaluate as usual.
func (e *evaluator) hashStar(order []int, row []ID, st *bgpState, ranges []index.Matches, proven []bool, checks, restChecks [][]algebra.Expr, total, ss, os int, g *index.Graph, emit emitFn, errp *error) (done, cont bool) {
	n := 0
	for _, m := range ranges {
		n += m.Len()
	}
	sized := e.opt.hashStar == 0
	if e.opt.hashStar < 0 || (sized && (n < hashStarMin || n*4 > total)) || ss < 0 || os < 0 || ss == os {
		return false, false
	}
	nd := &st.nodes[order[1]]
	xs := nd[2].slot
	if nd[0].slot != ss || nd[1].slot >= 0 || nd[1].id == 0 || xs < 0 || xs == ss || xs == os || row[xs] != 0 {
		return false, false
	}
	qm := g.Match(0, nd[1].id, 0)
	if (sized && qm.Len() > n*probeFar) || qm.Perm != index.POS {
		return false, false
	}
	// The narrowed rows that pass the first step's checks, by subject: head[s] is the last of s's rows (+1) and
	// next links each to the one before it.
	cost := int64(n) * 24
	if !e.charge(cost) {
		return false, false
	}
	subs := make([]ID, 0, n)
	objs := make([]ID, 0, n)
	var lo, hi ID
	for ri, m := range ranges {
		var ch []algebra.Expr
		if checks != nil {
			ch = checks[0]
			if proven != nil && proven[ri] {
				ch = restChecks[0]
			}
		}
	rows:
		for j := 0; j < m.Len(); j++ {
			if e.steps++; e.steps >= e.nextCheck {
				if err := e.interrupted(); err != nil {
					*errp = err
					return true, false
				}
			}
			ms, _, mo := m.At(j)
			row[ss], row[os] = ms, mo
			for _, c := range ch {
				if !e.test(c, row, errp) {
					row[ss], row[os] = 0, 0
					if *errp != nil {
						return true, false
					}
					continue rows
				}
			}
			row[ss], row[os] = 0, 0
			if len(objs) == 0 || ms < lo {
				lo = ms
			}
			if len(objs) == 0 || ms > hi {
				hi = ms
			}
			subs = append(subs, ms)
			objs = append(objs, mo)
		}
	}
	if len(objs) == 0 {
		return true, true
	}
	// A bitmap of the subjects over their span spares each of q's rows whose subject is not among them more than a
	// bit's test; a subject's rank among them (the bits set before it: a count kept per word of the bitmap, plus
	// the word's own bits below it) indexes head, where head[rank] is the last of its rows (+1) and next links
	// each to the one before it. That is two reads where a map of the subjects (h135's 83 000 offers delivering
	// within three days at 10 M, which lie ~40 ids apart) took a hash and a probe per lookup and per insert, most
	// of the join's time.
	span := int64(hi-lo) + 1
	words := span/64 + 1
	if !e.charge(words * 12) {
		return false, false
	}
	bits := make([]uint64, words)
	for _, sub := range subs {
		bits[(sub-lo)/64] |= 1 << ((sub - lo) % 64)
	}
	before := make([]int32, words) // the bits set in the words before each
	var set int32
	for w, b := range bits {
		before[w] = set
		set += int32(mathbits.OnesCount64(b))
	}
	rank := func(sub ID) int32 {
		d := sub - lo
		return before[d/64] + int32(mathbits.OnesCount64(bits[d/64]&(1<<(d%64)-1)))
	}
	head := make([]int32, set)
	next := make([]int32, len(subs))
	for i, sub := range subs {
		r := rank(sub)
		next[i] = head[r] - 1
		head[r] = int32(i + 1)
	}
	var ch []algebra.Expr
	if checks != nil {
		ch = checks[1]
	}
	for j := 0; j < qm.Len(); j++ {
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return true, false
			}
		}
		ms, _, mx := qm.At(j)
		if ms < lo || ms > hi {
			continue
		}
		if bits[(ms-lo)/64]&(1<<((ms-lo)%64)) == 0 {
			continue
		}
		first := head[rank(ms)] - 1
	each:
		for i := first; i >= 0; i = next[i] {
			row[ss], row[os], row[xs] = ms, objs[i], mx
			for _, c := range ch {
				if !e.test(c, row, errp) {
					if *errp != nil {
						row[ss], row[os], row[xs] = 0, 0, 0
						return true, false
					}
					continue each
				}
			}
			ok := emit(row)
			row[ss], row[os], row[xs] = 0, 0, 0
			if !ok || *errp != nil {
				return true, false
			}
		}
	}
	row[ss], row[os], row[xs] = 0, 0, 0
	return true, true
}

// A FILTER (NOT) EXISTS over a BGP is tested on each finished solution, and its answer depends only on the values
// of the variables it reads. The BGP's solutions often come in runs with those values unchanged: a scan in POS order
// gives each object's subjects one after another (h108 tests its vendors' NOT EXISTS for each of 582 000 offers
// at 10 M, 2 941 vendors), and the test itself — the EXISTS's memo, its set or its pattern per row — costs tens of
// steps. So a late conjunct with an EXISTS keeps its last answer and the values it was given for (lastAnswer), and a
// solution with the same values takes that answer without the test. It is the same answer: the conjunct is a
// function of those values (lateAgain keeps only conjuncts with no RAND, BNODE, UUID, STRUUID or SERVICE, and a
// scratch id, which names different values over time, is never remembered), and filteredBGP's call is one active
// graph and one evaluation context throughout.

// lateAgain returns, per late conjunct, the slots of the variables its answer depends on (varsOfExpr: an EXISTS's
// pattern's variables included) when it holds an EXISTS and nothing volatile, nil otherwise; nil when none does.
func (e *evaluator) lateAgain(late []algebra.Expr) [][]int {
	var again [][]int
	for i, c := range late {
		vars := e.varsOfExpr(c)
		if vars.over || !hasExists(c) || volatileExpr(c) {
			continue
		}
		if again == nil {
			again = make([][]int, len(late))
		}
		slots := []int{} // not nil: a conjunct reading no variable is answered once
		for b := vars.bits; b != 0; b &= b - 1 {
			slots = append(slots, mathbits.TrailingZeros64(b))
		}
		again[i] = slots
	}
	return again
}

// volatileExpr reports whether x's value may differ between two evaluations over the same values (volatileOp).
func volatileExpr(x algebra.Expr) bool {
	return volatileOp(&algebra.Filter{Op: &algebra.BGP{}, Exprs: []algebra.Expr{x}})
}

// lastAnswer is a late conjunct's answer for the values vals of its slots (lateAgain), once known. The rows it
// answers again are not counted by the EXISTS's semi-join decision (existsBySet), as the rows its memo answers are
// not: counting them as rows tested at no work priced the rows left lower and let h73's trial (its pattern a
// closure per person) be cut short of its end after 440 000 units of work, then every person evaluated.
type lastAnswer struct {
	vals  []ID
	known bool
	pass  bool
	// tests and hits count the solutions asked and those answered again or skipped; off: the values seldom
	// repeated (fewer than one in againShare of againJudged), so the conjunct is tested as written from then on.
	// v55m's inner NOT EXISTS is keyed on each offer, a new value per row: the compares were a twentieth of it.
	tests, hits int
	off         bool
}

// againJudged and againShare decide when a late conjunct stops being answered again (lastAnswer.off).
const (
	againJudged = 2048
	againShare  = 8
)

// test answers the conjunct c for row: from the last answer when row holds the same values in slots, else by
// testing it (and remembering the answer unless a value is a scratch id or the test failed fatally). ok is false
// when *errp was set.
func (a *lastAnswer) test(e *evaluator, c algebra.Expr, slots []int, row []ID, errp *error) (pass, ok bool) {
	if a.known {
		same := true
		for i, s := range slots {
			if row[s] != a.vals[i] {
				same = false
				break
			}
		}
		if same {
			a.hits++
			return a.pass, true
		}
	}
	if a.tests++; a.tests == againJudged && a.hits*againShare < a.tests {
		a.off = true
	}
	pass = e.test(c, row, errp)
	if *errp != nil {
		a.known = false
		return false, false
	}
	a.known = true
	a.vals = a.vals[:0]
	for _, s := range slots {
		if isScratch(row[s]) {
			a.known = false
		}
		a.vals = append(a.vals, row[s])
	}
	a.pass = pass
	return pass, true
}

// skips reports whether the last pattern's row with object mo (bound to slot os when free, os -1 otherwise) would
// give the late conjunct of st.skip the values its failing answer was for, so that the solution it completes is
// dropped: the row holds the values bound before the last pattern, and the pattern's free slots hold 0, which a
// value the conjunct was answered for never is unless unbound then too. h108's offers of a vendor without a
// country or label are passed over in runs of ~200, each a compare of one id.
func (st *bgpState) skips(row []ID, os int, mo ID) bool {
	a := st.skip
	if !a.known || a.pass || a.off {
		return false
	}
	for i, s := range st.skipSlots {
		v := row[s]
		if s == os {
			v = mo
		}
		if v != a.vals[i] {
			return false
		}
	}
	a.hits++
	return true
}
