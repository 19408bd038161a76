package eval

import (
	"encoding/binary"
	"errors"
	"math"
	mathbits "math/bits"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// An EXISTS is defined per solution, by substitution (§18.6), and evaluated so: its pattern runs once per row that
// tests it, with the row's values in place of its variables. When many rows test it and the pattern on its own is
// cheap (FILTER EXISTS { ?review reviewFor ?product ; rating2 ?r FILTER(?r = 10) } over 29 000 products: 20 000
// reviews rate 10, while each product walks all of its reviews), evaluating the pattern once, keeping the values
// its solutions give the row's variables in a set, and looking each row up is far less work: a semi-join (an
// anti-join for NOT EXISTS).
//
// When it is the same answer: the pattern's variables bound in the row (the key) must be bound in every solution
// of the pattern (opInfo.certain), so a row is compatible with a solution exactly when their key values are equal;
// and substituting them must give what evaluating the pattern on its own and joining gives (safe): a FILTER
// inside that reads a variable of the row which the pattern does not bind, an OPTIONAL or a sub-query that mentions
// one, or a key variable of a nested EXISTS, each make it differ, and such rows are evaluated by substitution as
// before. The set is built per active graph (GRAPH ?g evaluates the pattern in each graph) and per set of key
// variables (a row with another variable unbound has another key). Patterns whose answers may differ per
// evaluation (RAND, BNODE, UUID, STRUUID, SERVICE: volatileOp) are never decorrelated, nor rows holding a scratch
// id (a value valid for one solution only).
//
// When it is worth it is decided by counted work, not by time, so that the choice is the same from run to run
// whatever else the machine is doing: a row step of a scan (evaluator.steps), an index probe (probeWork, and
// farWork more when the probe searched far from its cursor's previous one), a term read from the dictionary
// (termWork) and an EXISTS evaluated per row (callWork), summed by effort. The planner's estimate of the rows that
// will test the EXISTS (the rows of the FILTER's operand: a BGP's plan, priced as planCost prices it, times the
// tests of an enclosing EXISTS when the operand runs once per row of it) times the work per row measured so far is
// what evaluating the rest per row is expected to cost, R. After trialCalls rows, and again each time their number
// doubles, a trial is considered: the pattern is evaluated on its own with a budget of R/2 work (it may run to
// trialStretch times that while on pace to finish). If it finishes, the set answers every later row; if not, or if its
// progress through its first pattern's rows shows it would not finish in time (trialWatch), the trial is dropped and
// the rows go on being evaluated one by one. When more rows have tested the EXISTS than were estimated, as many again
// are expected. The planner's estimate of the pattern on its own is not used: it prices every probe of a join by a
// value that is not its range's first as far from the previous one, and was a hundred times too high for the pattern
// above, whose reviews come in runs of ascending ids. The set is charged to the query's memory budget; a
// set that would take more than an eighth of the budget ends the trial.
//
// Session 11 decided by wall time: at load 10–14 the same query's trial finished in some runs and was dropped in
// others (v55c, v55f, b23 varied by 3–5 times between runs), and each row evaluated per row read the clock twice.

// The weights of counted work, in row steps (a row of a scan bound and tested, ~20–40 ns at 10 M): a probe near
// its cursor's previous one about four, one that searches far (cache and TLB misses in the mapping: ~600 ns at
// 10 M, session 11d) about sixteen, a term read from the dictionary about eight, and an EXISTS evaluated per row
// (its key, its memo, its operators) about six. They were checked, not fitted: session 12b forced the set and
// forbade it for each EXISTS query of the bench at 1 M and 10 M, and the counted decision took the cheaper of the
// two or came near it (single runs at load 15, whose noise was about a third).
const (
	probeWork = 4
	farWork   = 12
	callWork  = 6
	termWork  = 8
)

// effort is the evaluator's counted work so far: its steps (rows), probes and the terms it read.
func (e *evaluator) effort() int {
	return e.steps + probeWork*e.probes + farWork*e.farProbes + termWork*e.t.loads
}

// trialCalls is how many evaluations per row are measured before a trial is first considered.
const trialCalls = 64

// trialMinWork is the least budget worth a trial: below it, evaluating the rest per row costs about what
// considering it would.
const trialMinWork = 2048

// errTrialOver ends a trial evaluation that has used its work (evaluator.stopWork).
var errTrialOver = errors.New("sparql: trial evaluation over its steps")

// existsSet holds the key values of an EXISTS pattern's solutions in one active graph.
type existsSet struct {
	graph ID
	bound varset // the key variables
	slots []int  // the same, ascending
	one   map[ID]struct{}
	// bits holds a one-key set's dictionary ids once a bitmap of them all takes less than the map would (addOne):
	// the set of 580 000 offers at 10 M is 14 MB of map, a cache miss per lookup, against 0.4 MB of bits.
	bits []uint64
	// two holds a two-key set's pairs as one word (the lower slot's id high): hashing a string of eight bytes per
	// lookup and insert was over a third of h127's CPU (290 000 (product, country) pairs at 10 M).
	two map[uint64]struct{}
	// pairs holds a two-key set's pairs sorted and unique instead, when two is nil (chainSet).
	pairs []uint64
	many  map[string]struct{}
	last  ID   // the id addOne last added
	any   bool // no key variable: whether the pattern has a solution
	bytes int64
	buf   []byte
	// ext holds, instead of the keys alone, each key's least or greatest value of a comparison with the row
	// (existsextreme.go); slots are then bound's variables but the row's compared one.
	ext *extremes
}

// has reports whether a solution of the pattern agrees with row on the key; ok is false when row holds a
// scratch id there.
func (s *existsSet) has(row []ID) (found, ok bool) {
	if s.ext != nil {
		found, ok, s.buf = s.ext.has(row, s.slots, s.buf)
		return found, ok
	}
	switch len(s.slots) {
	case 0:
		return s.any, true
	case 1:
		id := row[s.slots[0]]
		if isScratch(id) {
			return false, false
		}
		if int(id/64) < len(s.bits) {
			return s.bits[id/64]&(1<<(id%64)) != 0, true
		}
		_, found = s.one[id]
		return found, true
	case 2:
		a, b := row[s.slots[0]], row[s.slots[1]]
		if isScratch(a) || isScratch(b) {
			return false, false
		}
		if s.two == nil {
			_, found = slices.BinarySearch(s.pairs, pairKey(a, b))
			return found, true
		}
		_, found = s.two[pairKey(a, b)]
		return found, true
	}
	s.buf = s.buf[:0]
	for _, sl := range s.slots {
		id := row[sl]
		if isScratch(id) {
			return false, false
		}
		s.buf = binary.LittleEndian.AppendUint32(s.buf, id)
	}
	_, found = s.many[string(s.buf)]
	return found, true
}

// addOne adds id to a one-key set and returns the bytes the set takes beyond what it took. Once the map takes more
// than 1/bitsShare of the bytes a bitmap of every dictionary id (up to top) would take, the dictionary's ids move to
// a bitmap.
func (s *existsSet) addOne(id, top ID) int64 {
	if id == s.last && id != 0 {
		return 0 // a run of one value, as a scan in POS order gives its objects: no lookup
	}
	s.last = id
	if int(id/64) < len(s.bits) {
		s.bits[id/64] |= 1 << (id % 64)
		return 0
	}
	if _, dup := s.one[id]; dup {
		return 0
	}
	s.one[id] = struct{}{}
	if s.bits != nil || !bitmapPays(len(s.one), top) {
		return mapEntryBytes
	}
	before := int64(len(s.one)-1) * mapEntryBytes // id is not counted yet
	s.bits = make([]uint64, top/64+1)
	rest := map[ID]struct{}{} // ids past the dictionary's: inline numbers and dates, the query's own terms
	for k := range s.one {
		if int(k/64) < len(s.bits) {
			s.bits[k/64] |= 1 << (k % 64)
		} else {
			rest[k] = struct{}{}
		}
	}
	s.one = rest
	return int64(len(s.bits))*8 + int64(len(rest))*mapEntryBytes - before
}

// reserve starts an empty one-key set as a bitmap of every dictionary id (up to top) when n keys are expected, as
// many as would make addOne switch to it: a star's set (starKeys) knows how many subjects it found before it adds a
// key, and v55c's set of 13 700 products grew its map through a dozen rehashes to the switch, a tenth of the
// query. It returns the bytes taken (0: not reserved).
func (s *existsSet) reserve(n int, top ID) int64 {
	if s.bits != nil || len(s.one) > 0 || len(s.slots) != 1 || !bitmapPays(n, top) {
		return 0
	}
	s.bits = make([]uint64, top/64+1)
	return int64(len(s.bits)) * 8
}

// mapEntryBytes is what an id in a set's map takes.
const mapEntryBytes = 24

// bitsShare is how much more memory a set's bitmap may take than the map it replaces. A lookup in a map of
// thousands of ids hashes and misses the cache, one in the bitmap reads a word: v55c's set of 13 700 products at
// 10 M, a map to the end with the switch at equal bytes, spent a third of the query growing it and looking up
// each of 29 000 products (a bitmap there is 0.45 MB, a sixth of a millisecond to clear).
const bitsShare = 8

// bitmapPays reports whether a map of n ids takes more than 1/bitsShare of the bytes of a bitmap of every
// dictionary id up to top: from there a set of ids keeps the dictionary's in a bitmap (existsSet.addOne and
// reserve, evaluator.meet).
func bitmapPays(n int, top ID) bool { return int64(n)*mapEntryBytes*bitsShare > int64(top/64+1)*8 }

// pairKey is two ids as one map key (the two-key sets of EXISTS and of its extremes).
func pairKey(a, b ID) uint64 { return uint64(a)<<32 | uint64(b) }

// isScratch reports whether id is a scratch id, which names a value for one solution only (terms.scratchID).
func isScratch(id ID) bool { return id&0xc0000000 == 0xc0000000 }

// existsJoin is an EXISTS's state for deciding and keeping its semi-join.
type existsJoin struct {
	calls int   // evaluations per row
	work  int64 // their counted work (steps)
	next  int   // the calls at which a trial is next considered
	// outer is the operator whose rows test the EXISTS (a FILTER's operand), with the variables bound when it
	// ran, noted by noteOuter; parent is the EXISTS evaluated per row whose pattern ran it then (nil: none).
	// total is the estimate of the rows that test the EXISTS in all, once asked.
	outer      algebra.Op
	outerBound varset
	siblings   []algebra.Expr // the FILTER's expressions that hold the EXISTS (narrowExtreme reads their bounds)
	parent     *existsJoin
	total      float64
	asked      bool
	tried      bool
	star       bool // the last trial read a star (starSet)
	sets       []*existsSet
}

// measure counts an evaluation per row that took work steps.
func (j *existsJoin) measure(work int) {
	j.calls++
	j.work += int64(work) + callWork
}

// expected is the planner's estimate of the rows that test the EXISTS in all: its operand's rows, times the tests
// of the EXISTS whose pattern runs that operand once per row.
func (e *evaluator) expected(j *existsJoin) float64 {
	if !j.asked {
		j.asked = true
		j.total = e.rowsKept(j.outer, j.outerBound, true)
		if j.parent != nil && j.parent != j {
			j.total *= max(e.expected(j.parent), 1)
		}
	}
	return j.total
}

// noteOuter notes, for each EXISTS in exprs, the operator op whose rows test it and what was bound when it ran.
func (e *evaluator) noteOuter(exprs []algebra.Expr, op algebra.Op, in []ID) {
	for _, x := range exprs {
		algebra.WalkExpr(x, func(x algebra.Expr) bool {
			if v, ok := x.(*algebra.Exists); ok {
				if m := e.existsMemoOf(v); m.join.outer == nil {
					m.join.outer, m.join.outerBound, m.join.parent = op, e.boundSet(in), e.inExists
					m.join.siblings = exprs
				}
				return false // a nested EXISTS is tested by its pattern's rows
			}
			return true
		})
	}
}

// rowsEstimate is the planner's estimate of the solutions of op with bound variables bound: a BGP's plan, step by
// step as planCost counts them, through FILTERs (which only drop solutions); 0 for other operators.
func (e *evaluator) rowsEstimate(op algebra.Op, bound varset) float64 {
	return e.rowsKept(op, bound, false)
}

// rowsKept is rowsEstimate, and with kept the share of each step's solutions that the BGP's own FILTER conjuncts
// keep (keptShare: measured on the index for a conjunct of one pattern's object, else a third). The rows that
// test an EXISTS are those its FILTER's other conjuncts keep: v55k's 28 000 products with a productPropertyNumeric1
// at 10 M, of which its FILTER(?n1 < 200) keeps 2 900, were expected in full, and a trial ten times too large
// was thought to pay.
func (e *evaluator) rowsKept(op algebra.Op, bound varset, kept bool) float64 {
	switch x := op.(type) {
	case *algebra.Filter:
		return e.rowsKept(x.Op, bound, kept)
	case *algebra.BGP:
		rows := 1.0
		for _, i := range e.plan(x, bound) {
			t := x.Triples[i]
			est, _ := e.estimate(t, bound)
			if !t.S.IsVar() || bound.has(e.slot(t.S.Var)) {
				est = min(est, 1)
			}
			rows *= max(est, 1e-3)
			after := bound.union(e.nodeVars(t.S, t.P, t.O))
			if kept {
				rows *= e.keptShare(x, i, bound, after, false)
			}
			bound = after
		}
		return rows
	}
	return 0
}

// existsBySet answers the EXISTS x for row from a set of its pattern's solutions when there is one for row's key
// and active graph, or when the work the rows have taken earns a trial and the trial finishes (see above). ok is
// false when row must be evaluated by substitution; *errp is set on a fatal error.
func (e *evaluator) existsBySet(m *existsMemo, x *algebra.Exists, row []ID, errp *error) (found, ok bool) {
	j := &m.join
	if m.volatile || (j.tried && len(j.sets) == 0) || e.opt.semiJoin < 0 {
		return false, false
	}
	var bound varset
	for _, s := range m.slots {
		if row[s] != 0 {
			bound = bound.with(s)
		}
	}
	if s := j.setFor(e.activeName(), bound); s != nil {
		return s.has(row)
	}
	always := e.opt.semiJoin > 0
	if j.tried || (!always && (j.calls < max(j.next, trialCalls) || j.outer == nil)) {
		return false, false
	}
	var ext *extremeShape
	if bound.over || !bound.subsetOf(e.infoOf(x.Pattern).certain) || !e.safe(x.Pattern, bound) {
		if !m.extDone {
			m.ext, m.extDone = e.narrowExtreme(e.extremeOf(x), j.siblings), true
		}
		if _, ok := e.extremeKey(m.ext, bound); !ok {
			return false, false // rows with other key variables may still try
		}
		ext = m.ext
	}
	budget := int64(math.MaxInt64 / 4)
	if !always {
		left := e.expected(j) - float64(j.calls)
		if left < 0 {
			left = float64(j.calls) // the estimate was short: expect as many again
		}
		budget = int64(float64(j.work) / float64(j.calls) * left / 2)
		// An extreme's pattern has no star to read it by: its solutions are at least what the trial reads.
		if budget < trialMinWork || ext != nil && trialStretch*float64(budget) < e.rowsKept(ext.pattern, varset{}, true) {
			j.next = 2 * j.calls
			return false, false
		}
	}
	j.tried = true
	s, done := e.trialSet(m, x, bound, ext, budget, errp)
	if !done {
		return false, false
	}
	j.sets = append(j.sets, s)
	e.semiSets++
	if ext != nil && ext.limit != 0 {
		e.narrowSets++
	}
	return s.has(row)
}

// trialWatch follows a trial evaluation's progress through the rows of its first pattern (the outermost loop of
// its joins): once a quarter of its budget has been used, a trial whose progress shows it would take more than
// trialStretch times its budget ends then (interrupted) rather than at its end; once a sixteenth has, one whose
// progress shows more than trialFar times its budget. The first rows may cost more than
// the rest, so the projection is only trusted when clearly over. A trial on pace to finish within that stretch runs
// until trialStretch times its budget: with the end at the budget itself, trials the watch let go on were stopped
// just short of their end and all their work lost (v55d's in session 11d).
type trialWatch struct {
	st          *bgpState // the BGP whose first pattern's rows are the outermost loop (the first to claim it)
	done, total int
	start       int   // the evaluator's steps when the trial began
	budget      int64 // in steps
	// reserve tells the set the number of keys expected (existsSet.reserve); nil when the set is not one-key.
	reserve func(keys int)
}

// trialStretch is how far past its budget a trial on pace to finish may run (trialWatch).
const trialStretch = 1.5

// trialFar is the projection, in budgets, that the watch trusts once a sixteenth of the budget is used rather than a
// quarter. At 10 M the watched trials that finished never projected more than half their budget (b23 0.52, b54
// 0.24, v55m 0.18, b56 0.11), those that did not 5 to 430 times it; each of the latter spent a quarter of its
// budget before the watch let it go (v55i 300 000 steps of work, a tenth of its CPU; h36 13 000, a sixth).
const trialFar = 4

// overdue reports whether the watched trial, at steps now, would not finish within trialStretch times its budget
// at the pace it has gone so far.
func (w *trialWatch) overdue(now int) bool {
	el := int64(now - w.start)
	if w.done == 0 || el <= w.budget/16 {
		return false
	}
	projected := float64(el) * float64(w.total) / float64(w.done)
	return projected > trialFar*float64(w.budget) || (el > w.budget/4 && projected > trialStretch*float64(w.budget))
}

// end is the steps at which the watched trial ends whatever its pace.
func (w *trialWatch) end() int {
	return w.start + int(min(trialStretch*float64(w.budget), math.MaxInt64/4))
}

// trialSet evaluates x's pattern on its own in the active graph, for at most budget steps, and collects its
// solutions' values of the key variables in bound. done is false when the trial ran out of steps or memory (the
// latter refuses further trials) or a fatal error was set in *errp. With ext (not nil), the pattern is ext's, the
// key is bound without ext's outer variable, and the set keeps each key's extreme value (existsextreme.go).
func (e *evaluator) trialSet(m *existsMemo, x *algebra.Exists, bound varset, ext *extremeShape, budget int64, errp *error) (s *existsSet, done bool) {
	s = &existsSet{graph: e.activeName(), bound: bound}
	for _, sl := range m.slots {
		if bound.has(sl) && (ext == nil || sl != ext.outer) {
			s.slots = append(s.slots, sl)
		}
	}
	slices.Sort(s.slots)
	pattern := x.Pattern
	switch {
	case ext != nil:
		s.ext, pattern = newExtremes(ext, len(s.slots)), ext.pattern
	case len(s.slots) == 0:
	case len(s.slots) == 1:
		s.one = map[ID]struct{}{}
	case len(s.slots) == 2:
		s.two = map[uint64]struct{}{}
	default:
		s.many = map[string]struct{}{}
	}
	limit := e.opt.MaxMemory / 8
	// The pattern is evaluated on its own (a join, not a substitution), even within another EXISTS's pattern.
	savedSubst, savedStop, savedWatch, savedIn := e.subst, e.stopWork, e.trial, e.inExists
	e.subst, e.inExists = 0, nil
	e.trial = &trialWatch{start: e.effort(), budget: budget}
	if len(s.slots) == 1 && ext == nil {
		e.trial.reserve = func(keys int) {
			// Only where the bitmap fits the set's share and the query's budget: else the map grows as before.
			if words := int64(e.t.base/64+1) * 8; s.bytes+words <= limit && e.bytes+e.t.bytes+words <= e.opt.MaxMemory {
				cost := s.reserve(keys, e.t.base)
				s.bytes += cost
				e.bytes += cost
			}
		}
	}
	e.stopWork = e.trial.end()
	if savedStop != 0 && savedStop < e.stopWork {
		e.stopWork = savedStop
	}
	tooBig := false
	var err error
	collect := func(r []ID) bool {
		e.steps++ // the set's insert
		var cost int64
		switch {
		case s.ext != nil:
			for _, sl := range s.slots {
				if isScratch(r[sl]) {
					tooBig = true
					return false
				}
			}
			cost, s.buf = s.ext.add(r, s.slots, s.buf)
		case len(s.slots) == 0:
			s.any = true
			return false
		case len(s.slots) == 1:
			id := r[s.slots[0]]
			if isScratch(id) {
				tooBig = true
				return false
			}
			cost = s.addOne(id, e.t.base)
		case len(s.slots) == 2:
			a, b := r[s.slots[0]], r[s.slots[1]]
			if isScratch(a) || isScratch(b) {
				tooBig = true
				return false
			}
			k := pairKey(a, b)
			if _, dup := s.two[k]; !dup {
				s.two[k] = struct{}{}
				cost = 8 + 40 // charged as the string keys were, so that trials end where they did
			}
		default:
			s.buf = s.buf[:0]
			for _, sl := range s.slots {
				if isScratch(r[sl]) {
					tooBig = true
					return false
				}
				s.buf = binary.LittleEndian.AppendUint32(s.buf, r[sl])
			}
			if _, dup := s.many[string(s.buf)]; !dup {
				s.many[string(s.buf)] = struct{}{}
				cost = int64(len(s.buf)) + 40
			}
		}
		s.bytes += cost
		e.bytes += cost
		if s.bytes > limit || e.bytes+e.t.bytes > e.opt.MaxMemory {
			tooBig = true
			return false
		}
		return true
	}
	st, star := e.starOf(x.Pattern, s.slots)
	switch {
	case ext == nil && len(s.slots) == 2:
		star, tooBig = e.chainSet(x.Pattern, s, limit, &err)
	case ext != nil:
		// A star's set gives the keys alone; an extreme's star of two patterns is read by its pairs (extremeStar).
		if st, star = e.starOf(ext.pattern, s.slots); star {
			star = e.extremeStar(st, ext.inner, collect, &err)
		}
	case star && st.parts != nil:
		star = e.starPartsSet(st, collect, &err)
	case star:
		star = e.starSet(st, collect, &err)
	}
	if !star && ext == nil {
		star = e.optFilterSet(x.Pattern, s.slots, collect, &err)
	}
	if !star && ext == nil {
		star = e.nestedSetScan(x.Pattern, s.slots, collect, &err) || e.subjectSet(x.Pattern, s.slots, collect, &err)
	}
	if !star {
		e.trial.st, e.trial.done, e.trial.total = nil, 0, 0
		e.exec(pattern, e.newRow(), collect, &err)
	}
	m.join.star = star
	e.subst, e.stopWork, e.trial, e.inExists = savedSubst, savedStop, savedWatch, savedIn
	switch {
	case err == nil && !tooBig:
		return s, true
	case err != nil && !errors.Is(err, errTrialOver) && !errors.Is(err, ErrTooLarge):
		*errp = err
	case tooBig || errors.Is(err, ErrTooLarge):
	}
	e.bytes -= s.bytes
	return nil, false
}

// A trial's pattern is often a star of two patterns on one subject, one giving the key and the other narrowing the
// subjects ({ ?review reviewer ?reviewer ; rating1 ?r FILTER(?r < 5) } keyed on ?reviewer). Evaluated as a join,
// each subject the narrowing pattern finds probes the key's predicate by subject: 81 000 probes landing far apart in
// SPO at 10 M, ~600 ns each. As a set nothing needs their order, so the subjects go into a bitmap first; the key's
// rows are then read either by probing each subject in ascending order (near probes) or, when the predicate has
// fewer than starScanRows rows per subject found, by reading its rows in order and keeping those whose subject is
// in the bitmap (a bit test per row, no probe at all).

// starScanRows is how many rows of a predicate read in order cost about one probe of it by subject, kept low. At
// 10 M a probe by ascending subjects 5 % apart costs ~750 ns (a subject's range and its rows, two cache misses),
// a row read in order with its bit test 2–3 ns: v55d's key, 582 000 rows of product for 5 600 offers found (103
// rows each), read in order took 7–10 ms CPU against 11 for the probes (load 12). With 32 it was probed.
const starScanRows = 128

// starShape is a trial's pattern seen as such a star: narrow (with its filters) binds the subject, key is the
// predicate whose objects are the set's key.
type starShape struct {
	narrow          algebra.Op
	parts           []starPart // its narrowing patterns as parts (starPartsOf); narrow is nil past two patterns
	key             ID
	subject, object int // slots
}

// starPart is one narrowing pattern of a larger star: "?s p o", or "?s p ?o" with the filter conjuncts that read
// only ?o, which occurs nowhere else in the star.
type starPart struct {
	p, o  ID
	oslot int // -1 when o is a constant
	conj  []algebra.Expr
}

// starOf returns the star shape of pattern, a set's pattern keyed on slots, when it has one: a BGP (or a FILTER over
// one) of two triples with one subject variable and constant predicates, where one triple's object is the only key
// variable, which occurs nowhere else, and the filters read only the other triple's variables; a star of more
// triples is starPartsOf's. Only one graph of the index's own dictionary (ownGraph), the default graph or one of
// GRAPH, is read so.
func (e *evaluator) starOf(pattern algebra.Op, slots []int) (starShape, bool) {
	var no starShape
	if len(slots) != 1 || e.ownGraph() == nil {
		return no, false
	}
	var filters []algebra.Expr
	if f, ok := pattern.(*algebra.Filter); ok {
		pattern, filters = f.Op, f.Exprs
	}
	b, ok := pattern.(*algebra.BGP)
	if !ok || len(b.Triples) < 2 {
		return no, false
	}
	if len(b.Triples) > 2 {
		return e.starPartsOf(b, filters, slots[0])
	}
	t0, t1 := b.Triples[0], b.Triples[1]
	if !t0.S.IsVar() || t0.S.Var != t1.S.Var || t0.P.IsVar() || t1.P.IsVar() {
		return no, false
	}
	subject := e.slot(t0.S.Var)
	isKey := func(n algebra.Node) bool { return n.IsVar() && e.slot(n.Var) == slots[0] }
	keyT, narrowT := t0, t1
	if isKey(t1.O) {
		keyT, narrowT = t1, t0
	}
	if !isKey(keyT.O) || isKey(narrowT.O) || subject == slots[0] {
		return no, false
	}
	vars := e.nodeVars(narrowT.S, narrowT.O)
	for _, f := range filters {
		if hasExists(f) || !e.varsOfExpr(f).subsetOf(vars) {
			return no, false
		}
	}
	p := e.constID(keyT.P.Term)
	if p == 0 {
		return no, false
	}
	var narrow algebra.Op = &algebra.BGP{Triples: []algebra.Triple{narrowT}}
	if len(filters) > 0 {
		narrow = &algebra.Filter{Op: narrow, Exprs: filters}
	}
	st := starShape{narrow: narrow, key: p, subject: subject, object: slots[0]}
	if parts, ok := e.starPartsOf(b, filters, slots[0]); ok {
		st.parts = parts.parts // read as a part when its range is proven (starPartsSet)
	}
	return st, true
}

// starSet evaluates a star's solutions for a set (starOf): the narrowing pattern's subjects into a bitmap, then the
// key's rows of those subjects, each row passed to add with the key bound. ok is false when a subject past the
// dictionary's ids was found (the caller evaluates the pattern as a join instead); the work is counted as a
// trial's (evaluator.effort) and ends it with errTrialOver past its end.
func (e *evaluator) starSet(st starShape, add emitFn, errp *error) (ok bool) {
	bits := make([]uint64, e.t.base/64+1)
	cost := int64(len(bits)) * 8
	if !e.charge(cost) {
		return false
	}
	defer func() { e.bytes -= cost }()
	found, past := 0, false
	if !e.exec(st.narrow, e.newRow(), func(r []ID) bool {
		s := r[st.subject]
		if int(s/64) >= len(bits) {
			past = true
			return false
		}
		if bits[s/64]&(1<<(s%64)) == 0 {
			bits[s/64] |= 1 << (s % 64)
			found++
		}
		return true
	}, errp) && (past || *errp != nil) {
		return !past
	}
	e.starKeys(st, bits, found, add, errp)
	return true
}

// starCheck counts n rows of a star's work (starSet, starPartsSet) and reports false, with *errp set, once the
// trial is past its end or the query interrupted.
func (e *evaluator) starCheck(n int, errp *error) bool {
	if e.steps += n; e.steps >= e.nextCheck {
		if err := e.interrupted(); err != nil {
			*errp = err
			return false
		}
	}
	return true
}

// starKeys passes to add the key's rows of the found subjects in bits: reading the key's predicate in order with a
// bit test per row when it has fewer than starScanRows rows per subject found, probing it by each subject in
// ascending order otherwise.
func (e *evaluator) starKeys(st starShape, bits []uint64, found int, add emitFn, errp *error) {
	g := e.active[0].g
	row := e.newRow()
	check := func(n int) bool { return e.starCheck(n, errp) }
	if e.trial != nil && e.trial.reserve != nil {
		e.trial.reserve(found)
	}
	m := g.Match(0, st.key, 0)
	if m.Len() < found*starScanRows {
		// POS rows (p, o, s): read without At's switch, ~a tenth of the loop; in blocks, each counted as a step.
		for from := 0; from < len(m.Rows); from += starScanRows {
			if !check(1) {
				return
			}
			for _, r := range m.Rows[from:min(from+starScanRows, len(m.Rows))] {
				if s := r[2]; bits[s/64]&(1<<(s%64)) != 0 {
					row[st.object] = r[1]
					if !add(row) {
						return
					}
				}
			}
		}
		return
	}
	var cur index.Cursor
	for w, word := range bits {
		for word != 0 {
			s := ID(w*64 + mathbits.TrailingZeros64(word))
			word &= word - 1
			e.probes++
			km := g.MatchFrom(&cur, s, st.key, 0)
			if !check(km.Len()) {
				return
			}
			for j := 0; j < km.Len(); j++ {
				_, _, o := km.At(j)
				row[st.object] = o
				if !add(row) {
					return
				}
			}
		}
	}
}
