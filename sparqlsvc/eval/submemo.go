package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A query may write the same subquery twice under other variable names: h92 asks for each German vendor's average
// offer price in one subquery and for the average of those averages over a copy of it, two deep in another, which
// joinReplay evaluates twice (for the first and the second left solution). Each evaluation is a GROUP BY over
// 580 000 offers at 10 M, so h92 did that work three times. Subqueries whose canonical forms (algebra.Canonical:
// the text with variables numbered by first use) are equal are the same algebra up to a renaming of variables; the
// first evaluated keeps its solutions (the values of its projection), and every later evaluation of it or of a
// twin replays them, renamed position by position into the twin's projection (subMemo).
//
// Why it is exact. A subquery's solutions from an incoming row that binds none of the variables it mentions are
// its solutions on their own, each merged with that row (an operator passes the variables it does not mention
// through unchanged, and the projection hides those it mentions but does not keep, unbound on the way in). Its
// solutions on their own depend only on its algebra and on the graphs its patterns match: a twin has the same
// algebra renamed, so the same solutions renamed, in the same order and multiplicity; the kept solutions are keyed
// by the graph they were read from (GRAPH ?g evaluates a subquery in each named graph). A memo is made only outside
// EXISTS and its trials (which substitute outer values) and on the query's goroutine; a subquery whose projection
// holds values that live only within a solution (a BIND on the query's root path, markDirect) is not kept.
//
// Only subqueries that produce nothing before their operand is read in full (a GROUP BY under the projection,
// through BINDs, FILTERs, ORDER BY, DISTINCT and LIMIT) are kept: evaluating one in full before handing on its first
// solution costs what it would cost anyway, where a streaming subquery under a LIMIT could stop early. Past
// replayMaxIDs ids the kept solutions are dropped and each evaluation runs as written.

// subRoot is a subquery (its outermost SLICE, DISTINCT, REDUCED or projection) whose canonical form another one
// shares.
type subRoot struct {
	key   string
	slots []int             // the slots of its outermost projection's variables, in its order
	binds []*algebra.Extend // the BINDs of the chain down to the group
	// direct is 1 when one of binds has values that live within a solution (markDirect), -1 when not, 0 until
	// looked at (markDirect runs after the evaluator is made).
	direct int8
}

// subKey is a kept subquery's key: its canonical form and the graph its patterns were matched against.
type subKey struct {
	canon string
	g     *index.Graph
}

// subKept is the kept solutions of one subKey: the values of the projection's variables, len(slots) ids each.
type subKept struct {
	vals            []ID
	running, tooBig bool
}

// sharedSubqueries returns the subqueries of op (the query's pattern, itself left out) that produce nothing until
// their operand is read and whose canonical form another such one shares, or nil when there are none.
func (e *evaluator) sharedSubqueries(op algebra.Op) map[algebra.Op]*subRoot {
	var roots []algebra.Op
	var visit func(o algebra.Op, top bool)
	visit = func(o algebra.Op, top bool) {
		algebra.Walk(o, func(x algebra.Op) bool {
			switch x.(type) {
			case *algebra.Slice, *algebra.Distinct, *algebra.Reduced, *algebra.Project:
			default:
				return true
			}
			bottom, _, _ := subChain(x)
			if !top || x != o {
				if _, ok := bottom.(*algebra.Group); ok {
					roots = append(roots, x)
				}
			}
			visit(bottom, false)
			return false
		})
	}
	visit(op, true)
	if len(roots) < 2 {
		return nil
	}
	byKey := map[string][]algebra.Op{}
	for _, r := range roots {
		if volatileOp(r) {
			// Each evaluation must make its own blank nodes, random numbers and UUIDs.
			continue
		}
		k := algebra.Canonical(r)
		byKey[k] = append(byKey[k], r)
	}
	var out map[algebra.Op]*subRoot
	for k, rs := range byKey {
		if len(rs) < 2 {
			continue
		}
		for _, r := range rs {
			_, p, binds := subChain(r)
			if p == nil {
				continue
			}
			sr := &subRoot{key: k, binds: binds}
			for _, v := range p.Vars {
				sr.slots = append(sr.slots, e.slot(v))
			}
			if out == nil {
				out = map[algebra.Op]*subRoot{}
			}
			out[r] = sr
		}
	}
	return out
}

// subChain follows a subquery from its root down through the operators that hand on what they receive (SLICE,
// DISTINCT, REDUCED, projections, ORDER BY, BINDs, FILTERs) and returns the first other operator and the outermost
// projection and BINDs met.
func subChain(op algebra.Op) (bottom algebra.Op, proj *algebra.Project, binds []*algebra.Extend) {
	for {
		switch x := op.(type) {
		case *algebra.Slice:
			op = x.Op
		case *algebra.Distinct:
			op = x.Op
		case *algebra.Reduced:
			op = x.Op
		case *algebra.Project:
			if proj == nil {
				proj = x
			}
			op = x.Op
		case *algebra.OrderBy:
			op = x.Op
		case *algebra.Extend:
			binds = append(binds, x)
			op = x.Op
		case *algebra.Filter:
			op = x.Op
		default:
			return op, proj, binds
		}
	}
}

// subMemo evaluates the shared subquery op (r) from in through its kept solutions, keeping them first when none
// are; done is false when it cannot (the caller evaluates op as written), ok false when evaluation must stop.
func (e *evaluator) subMemo(r *subRoot, op algebra.Op, in []ID, emit emitFn, errp *error) (done, ok bool) {
	if e.subst > 0 || e.trial != nil || e.work != nil || e.par != nil {
		return false, false
	}
	g := e.ownGraph()
	if g == nil {
		return false, false
	}
	if r.direct == 0 {
		r.direct = -1
		for _, x := range r.binds {
			if e.direct[x] {
				r.direct = 1
			}
		}
	}
	m := e.infoOf(op).mentioned
	if r.direct > 0 || m.over || !e.boundSet(in).inter(m).empty() {
		return false, false
	}
	k := subKey{r.key, g}
	kept := e.subKept[k]
	if kept == nil {
		kept = &subKept{running: true}
		if e.subKept == nil {
			e.subKept = map[subKey]*subKept{}
		}
		e.subKept[k] = kept
		if !e.keepSub(r, kept, op, in, errp) {
			return true, false
		}
	}
	if kept.running || kept.tooBig {
		return false, false
	}
	out := make([]ID, len(in))
	w := len(r.slots)
	for i := 0; i < len(kept.vals); i += w {
		if i&4095 == 0 {
			if err := e.check(); err != nil {
				*errp = err
				return true, false
			}
		}
		copy(out, in)
		for j, s := range r.slots {
			// An id of 0 is a variable the solution leaves unbound: the incoming row's value, if any, stays (the
			// projection passes a variable its operand does not mention through).
			if v := kept.vals[i+j]; v != 0 {
				out[s] = v
			}
		}
		if !emit(out) {
			return true, false
		}
	}
	return true, true
}

// keepSub evaluates op from in into kept, at most replayMaxIDs ids (else tooBig, the ids dropped); false when
// evaluation must stop with *errp set.
func (e *evaluator) keepSub(r *subRoot, kept *subKept, op algebra.Op, in []ID, errp *error) bool {
	maxIDs := replayMaxIDs
	if e.opt.replayMax > 0 {
		maxIDs = e.opt.replayMax
	}
	var held int64
	e.exec(op, in, func(row []ID) bool {
		if len(kept.vals)+len(r.slots) > maxIDs {
			kept.tooBig = true
			return false
		}
		for _, s := range r.slots {
			kept.vals = append(kept.vals, row[s])
		}
		if cap(kept.vals) > int(held/4) {
			n := int64(4 * cap(kept.vals))
			if err := e.holdBytes(n - held); err != nil {
				*errp = err
				return false
			}
			held = n
		}
		return true
	}, errp)
	kept.running = false
	if kept.tooBig || *errp != nil {
		kept.vals = nil
		e.bytes -= held
	}
	return *errp == nil
}
