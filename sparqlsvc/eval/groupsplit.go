package eval

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"time"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY over one pattern whose rows each cost the group a key and aggregates of their own (d07: HOURS of every
// review's distinct dateTime, with SUM(IF(MINUTES(?d) < 30, 1, 0))) spends its time in the group, which the split
// scan (forkScan) leaves on the query's goroutine: it splits the chain, not its consumer. groupSplit splits the
// group instead. The query's goroutine reads the first rows and times them (the thread's CPU, as parallelScan
// does); when what a worker would take over, half of the rest, is at least groupForkMinWork and the pool has a free
// core, a worker groups the second half of the rows into groups of its own while the query's goroutine groups the
// first half, and the worker's groups are then merged into the query's, in their order: the groups and their order
// are those of one goroutine reading every row in turn.
//
// Merged states are exact for COUNT, SUM and AVG of integers and decimals (builtin.Sum.Merge), and SAMPLE (the
// first half's value if it has one). Not split: DISTINCT (each half's set would count values the other met), MIN
// and MAX (OrderCompare is no total order across kinds and timezones: which extreme a group keeps can depend on the
// order values are met, TestGroupPeriodsMatchReference's 2011), GROUP_CONCAT, and expressions that may differ per
// call. A float or double total found at the merge is not merged either: the second half is grouped again on the
// query's goroutine, as it is when the worker fails or the query's budget takes back the worker's share.

// splitRowCost is the least a row must cost the group, as timed, for the split: cheaper rows are mostly the reading
// of memory both cores share. d30 (SECONDS of every offer's start, ~80 ns a row at load 10) took 39–46 ms of CPU
// split against 31–50 on one goroutine with no wall time gained at that load; d07 (~150–200 ns) and d17 (~230–310)
// split into halves of about half the time each.
const splitRowCost = 100 * time.Nanosecond

// groupForkMinWork is the least a group's worker must take over, as timed. It is half of forkMinWork: a split scan's
// worker saves only what its chunks cost beyond handing their solutions back (d16 was expected to save 2–10 ms of
// 19 and took 36 of CPU), while a group's worker takes over its half outright and hands back a few merged groups.
// At 20 ms, d07 (HOURS of every review's date at 10 M, ~40 ms of CPU, its half 18–19 ms as timed) stayed on one
// goroutine on a quiet machine and tied Virtuoso's wall time, which runs it on two threads.
const groupForkMinWork = forkMinWork / 2

// splitMergeable reports whether x's aggregates may be computed over two halves of its solutions and merged.
func (e *evaluator) splitMergeable(x *algebra.Group) bool {
	return e.mergeable(x, false)
}

// splitMergeableMinMax is splitMergeable also taking MIN and MAX of a variable: their states merge where both
// halves met only numbers held in ids (minMaxNumber: compared as numbers, a total order), and otherwise the
// worker's half is grouped again (mergeGroups). Only groupHop takes them so: q09's MIN(?days) over every offer.
func (e *evaluator) splitMergeableMinMax(x *algebra.Group) bool {
	return e.mergeable(x, true)
}

func (e *evaluator) mergeable(x *algebra.Group, minMax bool) bool {
	if e.groupReads(x).over {
		return false
	}
	for _, a := range x.Aggregates {
		ag := a.Aggregate
		if ag.Distinct {
			return false
		}
		_, isVar := ag.Expr.(algebra.Var)
		switch {
		case ag.Name == "COUNT" || ag.Name == "SUM" || ag.Name == "AVG" || ag.Name == "SAMPLE":
		case minMax && isVar && (ag.Name == "MIN" || ag.Name == "MAX"):
		case ag.Name == "MIN" || ag.Name == "MAX":
			// STRLEN's values are integers (or errors, which MIN and MAX pass over), totally ordered: the extreme
			// does not depend on the order the solutions come in, and two halves' merge (minMaxValueID keeps them
			// as ids) or the second half grouped again gives one goroutine's. h116's MAX and MIN of every
			// review's title length kept its star on the join.
			if f, _ := minMaxFormOf(ag.Expr); f != minMaxStrlen {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// groupSplit hands gs the runs of rr's total rows (groupRows), on two goroutines where that pays (see above).
func (e *evaluator) groupSplit(x *algebra.Group, in []ID, gs *groupState, rr []runRange, total, ss, os int, row []ID, errp *error) bool {
	rows := func(from, to int) bool { return e.groupRows(rr, from, to, ss, os, row, gs, errp) }
	if !e.splitMergeable(x) {
		return rows(0, total)
	}
	for _, r := range rr {
		if r.periods != nil || r.local {
			return rows(0, total)
		}
	}
	return e.groupHalves(x, gs, total, minForkRows, 0, splitRowCost, func(k int) int { return k }, rows,
		func(w *evaluator, wgs *groupState) func(from, to int, errp *error) bool {
			wrow := slices.Clone(row) // (row may be longer than in: groupRuns' slot of a constant object)
			return func(from, to int, errp *error) bool { return w.groupRows(rr, from, to, ss, os, wrow, wgs, errp) }
		}, errp)
}

// groupHalves groups the rows 0…total of x's operand into gs, on two goroutines where that pays: rows(from, to)
// groups rows from…to on the query's goroutine, into gs; fork, called on the query's goroutine before a worker w
// starts (so that it may copy the query's state), returns what groups rows on w, into its own wgs; bound(k) is the
// first row from k on where a stretch may start (a subject's first row, for optStarSplit). The caller has checked
// that x's aggregates merge (splitMergeable). Fewer than least rows are grouped on the query's goroutine untimed;
// rows timed at less than rowCost each are too (splitRowCost, or bestRowCost). The timed probe is at least four
// chunks of chunk rows (0: forkChunkRows), so that rows which cost much each (groupClosure's walks) are probed in
// fewer.
func (e *evaluator) groupHalves(x *algebra.Group, gs *groupState, total, least, chunk int, rowCost time.Duration, bound func(int) int, rows func(from, to int) bool,
	fork func(w *evaluator, wgs *groupState) func(from, to int, errp *error) bool, errp *error) bool {
	cores := e.opt.Cores
	if cores == nil || cores.Size() < 2 || e.par != nil || e.work != nil || e.stopWork != 0 ||
		total < cmp.Or(e.opt.forkMin, least) {
		return rows(0, total)
	}
	// The first quarter of the probe is not timed (it pays for caches the rest reuses), and the goroutine stays on
	// its thread while timed, so that the thread's CPU time is its own (startWatch): on a loaded machine a probe of
	// d29 (7 ms in all) was timed as if the query would take 50.
	probe := bound(max(4*cmp.Or(e.opt.forkChunk, chunk, forkChunkRows), total/16))
	warm := bound(probe / 4)
	if !rows(0, warm) {
		return false
	}
	// Two halves are timed and the cheaper taken: a garbage collector's assist charged to one of them (d29 and b15,
	// under 25 ms in all, were timed as worth a worker now and then) does not decide.
	runtime.LockOSThread()
	half := bound(warm + (probe-warm)/2)
	var took time.Duration
	ok := true
	for i, seg := range [2][2]int{{warm, half}, {half, probe}} {
		t := startWatch()
		ok = ok && rows(seg[0], seg[1])
		d, _ := e.costs(costTimed, t.elapsed(), 0)
		if d = d * time.Duration(probe-warm) / time.Duration(max(seg[1]-seg[0], 1)); i == 0 || d < took {
			took = d
		}
	}
	runtime.UnlockOSThread()
	if !ok {
		return false
	}
	rest := total - probe
	if probe <= warm || rest <= 0 || took*time.Duration(rest)/time.Duration(probe-warm)/2 < groupForkMinWork ||
		took/time.Duration(probe-warm) < rowCost || !cores.tryExtra() {
		cores.kept.Add(1)
		return rows(probe, total)
	}
	cores.forks.Add(1)
	mid := bound(probe + rest/2)
	room := e.opt.MaxMemory - e.bytes - e.t.bytes
	run := &forkRun{budget: max(room/2, 0), maxRow: int64(e.opt.MaxRows-e.held) / 2, nvars: e.nvars, ways: 2}
	run.ctx, run.cancel = context.WithCancel(e.ctx)
	w := e.child(run)
	wgs := w.newGroupState(x)
	work := fork(w, wgs)
	done := false // the worker grouped every row of its half
	run.wg.Add(1)
	go func() {
		defer run.wg.Done()
		defer cores.drop()
		defer func() { _ = recover() }() // a panic leaves done false: the half is grouped again here
		var err error
		done = work(mid, total, &err) && err == nil
	}()
	e.par = run
	ok = rows(probe, mid)
	if ok {
		run.wg.Wait() // the worker's ctx is the query's: it ends with the query
	}
	void := run.void.Load() // the query's budget took the worker's share back (checkLent)
	e.endRun(run)
	if !ok {
		return false
	}
	if !done || void || !e.mergeGroups(gs, wgs, w, errp) {
		if *errp != nil {
			return false
		}
		cores.redone.Add(1)
		return rows(mid, total)
	}
	cores.chunks.Add(1)
	return true
}

// mergeGroups adds the groups of wgs, made by the worker w over the rows after gs's, to gs. It reports false with
// gs unchanged when a total is not exact (builtin.Sum.Exact), so that the caller groups the worker's half again;
// and false with *errp set when the budget is spent, after which gs may hold part of the merge (the query stops).
func (e *evaluator) mergeGroups(gs, wgs *groupState, w *evaluator, errp *error) bool {
	exact := func(g *groupState) bool {
		for _, b := range g.order {
			for i := range b.aggs {
				if !b.aggs[i].sum.Exact() {
					return false
				}
				if s := &b.aggs[i]; s.best != nil || s.bestID != 0 && !isInlineNumber(s.bestID) {
					return false // MIN, MAX over values that are not all numbers held in ids
				}
			}
		}
		return true
	}
	if !exact(gs) || !exact(wgs) {
		return false
	}
	key := make([]ID, len(gs.x.Keys))
	for _, wb := range wgs.order {
		for i, id := range wb.key {
			if id != 0 && !w.t.inData(id) { // a value the worker computed: its id is the worker's own
				id = e.t.id(w.t.term(id))
			}
			key[i] = id
		}
		b := gs.find(key, errp)
		if b == nil {
			return false
		}
		for i, a := range gs.x.Aggregates {
			s, o := &b.aggs[i], &wb.aggs[i]
			s.n += o.n
			s.errs += o.errs
			switch a.Aggregate.Name {
			case "SUM", "AVG":
				if s.sumErr == nil {
					s.sumErr = o.sumErr
					if s.sumErr == nil {
						s.sum.Merge(&o.sum)
					}
				}
			case "SAMPLE":
				if s.sample.IsZero() {
					s.sample = o.sample
				}
			case "MIN", "MAX":
				s.bestID = e.mergeBest(s.bestID, o.bestID, a.Aggregate.Name == "MIN")
			}
		}
	}
	return true
}

// isInlineNumber reports whether id is a number held in its id.
func isInlineNumber(id ID) bool {
	_, _, ok := index.InlineNumber(id)
	return ok
}

// mergeBest returns the MIN (min) or MAX of two halves' best numbers held in ids (0: a half met none), as one
// goroutine reading the first half and then the second keeps it: the first half's on a tie. Two ids of one value
// (2 and 2.0) are ordered as the group orders their terms once it meets both (builtin.OrderKeys).
func (e *evaluator) mergeBest(first, second ID, min bool) ID {
	if first == 0 || second == 0 {
		return max(first, second)
	}
	c, _ := compareNumbers(second, first)
	if c == 0 && second != first {
		a, b := builtin.NewKey(e.t.term(second)), builtin.NewKey(e.t.term(first))
		c = builtin.OrderKeys(&a, &b)
	}
	if (min && c < 0) || (!min && c > 0) {
		return second
	}
	return first
}
