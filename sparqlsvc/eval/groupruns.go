package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY over one triple pattern (?s <p> ?o, with FILTERs on it) reads the pattern's rows in the index's order:
// by object, so the rows of one object value are adjacent. When the keys, the aggregates and the filters read the
// object and not the subject, every row of such a run gives the same key, passes or fails the filters together and
// adds the same value to each aggregate: groupRuns hands the group one solution per run with its length, and
// accumulateN counts it n times. GROUP BY ?date over 936 000 reviews of 3 000 dates then does 3 000 steps instead
// of passing each review through the join and the group; when nothing is read (COUNT(*) over a range a FILTER
// narrowed) a whole range is one step. Where the subject is read, each row is its own run, still without the
// join's per-row calls.

// groupRuns evaluates x's operand from in when it is such a pattern and hands gs each run; handled is false when
// x is not of that form (the caller evaluates it as usual), ok is false when evaluation must stop.
func (e *evaluator) groupRuns(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	b, filters := runOperand(x.Op)
	if b == nil || e.outerGraph() == nil {
		return false, false
	}
	if f, isFilter := x.Op.(*algebra.Filter); isFilter && e.belowBinds(f) != nil {
		return false, false
	}
	t := b.Triples[0]
	if !t.S.IsVar() || t.P.IsVar() || t.O.IsVar() && t.S.Var == t.O.Var {
		return false, false
	}
	row := slices.Clone(in)
	ss, os := e.slot(t.S.Var), len(row)
	if t.O.IsVar() {
		os = e.slot(t.O.Var)
	} else {
		row = append(row, 0) // a constant object: its slot is one past the row's, which nothing reads
	}
	if in[ss] != 0 || row[os] != 0 {
		return false, false
	}
	bound := e.boundSet(in)
	st, prep := e.preparedBGP(b, filters, bound)
	// Conjuncts that are not pushable (an EXISTS) are taken only over a constant object, whose rows are read in
	// subject order as the join reads them: an EXISTS evaluated per row probes by the subject in ascending order.
	// A variable object's rows come by value, and v55k's EXISTS, which reads the row's ?n1 and so stays per row,
	// probed its offers far apart (10.6 → 17.1 ms CPU at 10 M).
	if len(prep.late) > 0 && (t.O.IsVar() || !e.safe(b, bound)) {
		return false, false
	}
	if err := e.check(); err != nil {
		*errp = err
		return true, false
	}
	p, o := st.nodes[0][1].id, ID(0)
	if !t.O.IsVar() {
		if o = st.nodes[0][2].id; o == 0 {
			return true, true // the object is not in the data: no solutions
		}
	}
	if p == 0 { // the predicate is not in the data: no solutions
		return true, true
	}
	var conds []algebra.Expr
	if prep.checks != nil {
		conds = prep.checks[0]
	}
	// Conjuncts that are not pushable are tested after the pushable ones on each row, as filteredBGP tests them on
	// its finished solutions: with one pattern, the row it binds. Each row is then a run of its own,
	// on the query's goroutine, where the EXISTS keeps its set (existsBySet); its FILTER's operand is noted as
	// filteredBGP's caller notes it, for the set's estimate of the rows that will test it.
	late := prep.late
	if len(late) > 0 {
		conds = append(slices.Clip(conds), late...)
		if f, isFilter := x.Op.(*algebra.Filter); isFilter && !e.outerNoted[f] {
			e.noteOuter(f.Exprs, f.Op, in)
			e.outerNoted[f] = true
		}
	}
	groupReads := e.runReads(x, ss, os)

	g := e.active[0].g
	var m index.Matches
	if prep.scan == scanAll && o == 0 { // (a single pattern is never planned as a narrowed scan, which needs a star)
		m = e.subjectScan(g, p)
	}
	parts := [1]index.Matches{m}
	ranges := parts[:]
	var proven []bool
	var rest []algebra.Expr
	if m.Rows == nil {
		parts[0] = e.probe(&st.cur[0], g, 0, p, o)
		if conds != nil && o == 0 && parts[0].Perm == index.POS {
			ranges, proven, rest = e.valueRanges(parts[0], os, conds, row, errp)
			if *errp != nil {
				return true, false
			}
		}
	}
	// Filters tested per row are the chain a split scan shares with a worker (forkScan), which this loop does
	// not: with a second core, a filter that is not a comparison answered from ids is left to it (TZ(?d) = "Z"
	// over every offer took 260 ms CPU here, against a split over two cores).
	if e.opt.Cores != nil && e.opt.Cores.Size() > 1 && len(late) == 0 {
		for ri := range ranges {
			if (proven != nil && proven[ri]) || ranges[ri].Len() == 0 {
				continue
			}
			for _, c := range conds {
				if !e.answeredByID(c) {
					return false, false
				}
			}
		}
	}
	period := -1 // keys of date fields of the object: runs of one period (groupperiods.go)
	if e.t.dict != nil && len(e.t.dict.DateBlocks()) > 0 {
		var minMax bool
		if period, minMax = e.periodField(x, os); minMax && !e.oneDateBlock(ranges) {
			period = -1
		}
	}
	rr := make([]runRange, len(ranges))
	total := 0
	for ri, m := range ranges {
		ch := conds
		if proven != nil && proven[ri] {
			ch = rest // the comparisons valueRanges proved are neither tested nor read
		}
		reads := groupReads
		for _, c := range ch {
			reads = reads.union(e.varsOfExpr(c))
		}
		rr[ri] = runRange{m: m, ch: ch, bySubject: reads.has(ss) || len(late) > 0, byObject: reads.has(os), local: len(late) > 0}
		if period >= 0 && len(ch) == 0 && m.Perm == index.POS {
			rr[ri].periods = &periodReader{e: e, field: period}
		} else if !rr[ri].bySubject && rr[ri].byObject {
			rr[ri].fields = e.fieldsOf(x, ch, os) // groupfields.go
		}
		total += m.Len()
	}
	// Rows read by tuple and rows read in turn must not meet in one group (groupfields.go): all ranges or none.
	for _, r := range rr {
		if r.fields == nil {
			for i := range rr {
				rr[i].fields = nil
			}
			break
		}
	}
	return true, e.groupSplit(x, in, gs, rr, total, ss, os, row, errp)
}

// runRange is one range of groupRuns' rows with what reading it needs: the filters tested per run, whether the
// subject and the object are read, and the periods reader (nil: none).
type runRange struct {
	m                   index.Matches
	ch                  []algebra.Expr
	bySubject, byObject bool
	periods             *periodReader
	local               bool         // its conjuncts hold an EXISTS: not split (a worker has no set of its own)
	fields              *fieldReader // rows read by tuple of date fields (groupfields.go); nil: none
}

// groupRows hands gs the runs of rows from … to of rr (counted over the ranges in turn), with the subject in slot
// ss and the object in slot os of row. A run ends at to.
func (e *evaluator) groupRows(rr []runRange, from, to, ss, os int, row []ID, gs *groupState, errp *error) bool {
	off := 0
	for _, r := range rr {
		m := r.m
		j, n := max(from-off, 0), min(to-off, m.Len())
		off += m.Len()
		for j < n {
			if e.steps++; e.steps >= e.nextCheck {
				if err := e.interrupted(); err != nil {
					*errp = err
					return false
				}
				if w := e.work; w != nil { // a worker's groups count against the query's budget (checkLent)
					own := e.bytes + e.t.bytes
					w.run.used.Add(own - w.published)
					w.published = own
				}
			}
			ms, _, mo := m.At(j)
			if r.periods != nil {
				// The run's first row once, its last for the rest (periodField's aggregates).
				if run := r.periods.run(m, j, n); run > 1 {
					row[ss], row[os] = ms, mo
					if !gs.add(row, 1, errp) {
						return false
					}
					row[ss], _, row[os] = m.At(j + run - 1)
					if !gs.add(row, int64(run-1), errp) {
						return false
					}
					j += run
					continue
				}
			}
			run := 1
			switch {
			case r.bySubject:
			case r.byObject && m.Perm == index.POS:
				for j+run < n && m.Rows[j+run][1] == mo {
					run++
				}
			case r.byObject:
				for j+run < n {
					if _, _, o := m.At(j + run); o != mo {
						break
					}
					run++
				}
			default: // nothing read varies within the range
				run = n - j
			}
			var tu *fieldTuple
			if r.fields != nil {
				if tu = gs.tuple(r.fields, mo); tu != nil && tu.used { // a tuple met before: counted
					if !tu.fail {
						tu.n += int64(run)
						gs.tuples.pending = true
					}
					j += run
					continue
				}
			}
			row[ss], row[os] = ms, mo
			pass := e.testAll(r.ch, row, errp)
			if *errp != nil {
				return false
			}
			if tu != nil { // a new tuple: its later rows are counted
				*tu = fieldTuple{key: tu.key, sec: tu.sec, s: ms, o: mo, used: true, fail: !pass}
			}
			if r.fields != nil && pass && gs.tuples != nil && !gs.tuples.off && !gs.exactInputs(row) {
				// A SUM or AVG input that is no exact number: the rows counted are added now, and every later row
				// in turn (groupfields.go).
				if !gs.handOver(ss, os, row, errp) {
					return false
				}
				gs.tuples.off = true
				row[ss], row[os] = ms, mo
			}
			if pass && !gs.add(row, int64(run), errp) {
				return false
			}
			j += run
		}
	}
	return gs.handOver(ss, os, row, errp)
}

// answeredByID reports whether c is a comparison its site answers from ids for the values it was made for (a
// date against a constant, two dates, a date field against a number: cmpSite).
func (e *evaluator) answeredByID(c algebra.Expr) bool {
	call, ok := c.(*algebra.Call)
	return ok && len(call.Args) == 2 && isComparison(call.Func) && e.cmpSiteOf(call).kind != siteGeneral
}

// runOperand returns the BGP of one pattern that op is, alone or under a FILTER, with the filter's expressions; nil
// otherwise.
func runOperand(op algebra.Op) (*algebra.BGP, []algebra.Expr) {
	var filters []algebra.Expr
	if f, ok := op.(*algebra.Filter); ok {
		op, filters = f.Op, f.Exprs
	}
	if b, ok := op.(*algebra.BGP); ok && len(b.Triples) == 1 {
		return b, filters
	}
	return nil, nil
}

// runReads is groupReads for groupRuns' pattern, whose subject (slot ss) and object (os) are bound in every row:
// COUNT(?s) or COUNT(?o) without DISTINCT counts a run's rows whatever their values (accumulateN adds the run's
// length), so it reads neither. h28's COUNT(?review) per product over reviewFor made each of 290 000 reviews its
// own run.
func (e *evaluator) runReads(x *algebra.Group, ss, os int) varset {
	return e.groupReadsSkipping(x, func(ag *algebra.Aggregate) bool {
		v, isVar := ag.Expr.(algebra.Var)
		return isVar && ag.Name == "COUNT" && !ag.Distinct && (e.slot(v) == ss || e.slot(v) == os)
	})
}

// groupReads is the set of variables x's keys and aggregates read; an expression that may differ per call (RAND,
// EXISTS …) and COUNT(DISTINCT *) read every variable.
func (e *evaluator) groupReads(x *algebra.Group) varset {
	return e.groupReadsSkipping(x, nil)
}

// groupReadsSkipping is groupReads leaving out the aggregates over an expression that skip (when not nil) says the
// caller answers without reading them.
func (e *evaluator) groupReadsSkipping(x *algebra.Group, skip func(*algebra.Aggregate) bool) varset {
	all := varset{bits: ^uint64(0), over: true}
	var r varset
	for _, k := range x.Keys {
		if !pushable(k.Expr) {
			return all
		}
		r = r.union(e.varsOfExpr(k.Expr))
	}
	for _, a := range x.Aggregates {
		switch {
		case a.Aggregate.Expr == nil && a.Aggregate.Distinct:
			return all
		case a.Aggregate.Expr == nil:
		case skip != nil && skip(a.Aggregate):
		case !pushable(a.Aggregate.Expr):
			return all
		default:
			r = r.union(e.varsOfExpr(a.Aggregate.Expr))
		}
	}
	return r
}
