package eval

import (
	"math"
	mathbits "math/bits"
	"slices"
	"unsafe"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY whose keys and aggregates read one object of a star (h25: offers valid on a day, published in 2008,
// counted per MONTH of the publication date) is groupStars' count with a key: a subject's solutions are the
// product of its passing rows of each pattern, and those of one row of the keyed pattern (object o) all have o's
// key and the same values of whatever the aggregates read. So the star is read in one merge loop in subject order
// as groupStars reads it, and each passing row of the keyed pattern adds the product of the other patterns'
// passing rows to o's count; the group state then takes each object once with its count (groupState.add with n),
// computing its key once and not per solution. The join bound every solution, tested each conjunct and computed the
// key on it.
//
// The aggregates are COUNTs (see groupStarKeys): of the keyed objects, or (not DISTINCT) of the subject, which every
// solution binds: a solution of the count is given the subject of the object's first row, so COUNT(?s) counts it
// like COUNT(*).

// keyCountBits: the counts per object are kept in a table of 1<<keyCountBits slots, an object's count handed to
// the group state when another object takes its slot and at the end: dc:date's few thousand dates stay in it.
const keyCountBits = 12

// keyCount is one slot of the table: an object (0: empty), the subject of its first row and its solutions so far.
type keyCount struct {
	o, s ID
	n    int64
}

// groupStarKeys is groupStars for a GROUP BY with keys: handled is false when x's operand is not one star whose
// keys and aggregates read its objects (or COUNT its subject).
func (e *evaluator) groupStarKeys(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	st, tags, ok := e.tagStar(x.Op, in)
	if !ok || len(st) < 2 {
		return false, false
	}
	for _, p := range st {
		for _, c := range p.conds {
			if !cheapCond(c) {
				// h19's REGEX per title: the join shares such tests between two cores, this loop would not.
				return false, false
			}
		}
	}
	var numeric varset // the variables of MIN and MAX aggregates, whose values must all be numbers held in ids
	for _, a := range x.Aggregates {
		if a.Aggregate.Name == "COUNT" {
			continue
		}
		// Each object's solutions reach the aggregates at once and in another order than the join's: MIN over
		// dateTimes of both timezone classes (not all comparable), SAMPLE, GROUP_CONCAT and a SUM of doubles may
		// answer otherwise. MIN and MAX of a variable whose values are all numbers held in ids do not: numbers
		// are totally ordered, and two forms of one value (10, 10.0) go to the general path, which orders them
		// by their terms (minMaxNumber). h77's MAX(?price) per deliveryDays and b18's MIN(?price) per product
		// probed every offer's price through the join.
		v, isVar := a.Aggregate.Expr.(algebra.Var)
		if (a.Aggregate.Name != "MIN" && a.Aggregate.Name != "MAX") || a.Aggregate.Distinct || !isVar {
			return false, false
		}
		numeric = numeric.with(e.slot(v))
	}
	ss := st[0].ss
	reads := e.groupReadsSkipping(x, func(a *algebra.Aggregate) bool {
		v, isVar := a.Expr.(algebra.Var)
		return a.Name == "COUNT" && !a.Distinct && isVar && e.slot(v) == ss
	})
	if reads.over || reads.bits == 0 {
		return false, false
	}
	var keyed []int // the patterns whose objects the keys and aggregates read
	for i, p := range st {
		if reads.has(p.os) {
			keyed = append(keyed, i)
			reads.bits &^= 1 << uint(p.os)
		}
	}
	if reads.bits != 0 { // the subject or a variable the star does not bind
		return false, false
	}
	g := e.active[0].g
	members := make([][]ID, len(st))
	if len(tags) > 0 {
		// The join starts from the tags' few subjects and probes the star per row, far apart; the merge reads
		// every row of the star's predicates in order. Priced in planCost's units: the merge mergeRowCost a row;
		// the join, led by a tag's T subjects, a far probe of the pattern per subject, and per row of it (T × its
		// fan-out per object) the row and a far probe of each of the star's other patterns. h45 (40 000 offers of
		// French vendors at 10 M, two probes each, against 1.7 M rows) is the merge's; a tag on one vendor of 60
		// is the join's.
		merged := 0.0
		for _, p := range st {
			merged += float64(g.Match(0, e.constID(p.p), 0).Len())
		}
		for _, t := range tags {
			sub := g.Match(0, t.p, t.o) // POS: rows (p, o, s)
			// As long as the tag's subjects, which may be a whole class: charged before it is made.
			if err := e.holdBytes(4 * int64(sub.Len())); err != nil {
				*errp = err
				return true, false
			}
			m := make([]ID, sub.Len())
			for i := range m {
				m[i] = sub.Rows[i][2]
			}
			slices.Sort(m)
			if members[t.pat] != nil {
				m = intersectIDs(members[t.pat], m)
			}
			members[t.pat] = m
		}
		join := math.Inf(1)
		for i, m := range members {
			if m != nil {
				t := float64(len(m))
				rows := t * g.ObjectFanout(e.constID(st[i].p))
				join = min(join, t*probeFar+rows*(1+float64(len(st)-1)*probeFar))
			}
		}
		if join < merged*mergeRowCost {
			return false, false
		}
	}
	if !numeric.empty() && !e.allNumbers(st, numeric) {
		return false, false // before the star's rows are copied: h54's MIN of strings and d09's of dateTimes
	}
	row := slices.Clone(in)
	ps, ok := e.starRows(st, row, errp)
	if *errp != nil {
		return true, false
	}
	if !ok {
		return false, false
	}
	if len(ps) == 0 {
		return true, true // a pattern had no rows: no groups
	}
	for i, m := range members {
		if m != nil {
			ps[i].member = newIDSet(m)
			e.bytes += int64(len(ps[i].member.bits)) * 8
			if ps[i].memo == nil {
				ps[i].memo = make([]passMemo, 1<<passMemoBits)
			}
		}
	}
	if len(keyed) == 1 {
		keys := float64(len(ps[keyed[0]].rows))
		if f := g.ObjectFanout(e.constID(st[keyed[0]].p)); f > 0 {
			keys /= f // the pattern's rows per object: h135's 250 000 offers of 2 941 vendors
		}
		return true, e.countRowsByKey(ps, keyed[0], ss, keys, row, gs, errp)
	}
	if kp, ap, ok := e.bestKeyed(x, ps, keyed, numeric); ok {
		split := g.ObjectFanout(e.constID(st[kp].p)) >= bestSplitFanout
		return true, e.bestRowsByKey(x, ps, kp, ap, split, row, gs, errp)
	}
	return true, e.countRowsByKeys(ps, keyed, ss, row, gs, errp)
}

// bestKeyed returns the pattern whose object the keys read (kp) and the one whose object every aggregate takes the
// MIN or MAX of (ap) when the group is of that form (h77: MAX(?price) per deliveryDays; b18: MIN(?price) per
// product), for bestRowsByKey.
func (e *evaluator) bestKeyed(x *algebra.Group, ps []patRows, keyed []int, numeric varset) (kp, ap int, ok bool) {
	if len(keyed) != 2 || numeric.empty() {
		return 0, 0, false
	}
	kp, ap = keyed[0], keyed[1]
	if numeric.has(ps[kp].os) {
		kp, ap = ap, kp
	}
	for _, a := range x.Aggregates {
		if v, isVar := a.Aggregate.Expr.(algebra.Var); !isVar || a.Aggregate.Name == "COUNT" || e.slot(v) != ps[ap].os {
			return 0, 0, false // a count needs every solution, another variable another pattern
		}
	}
	keys := e.groupReadsSkipping(x, func(*algebra.Aggregate) bool { return true })
	if keys.has(ps[ap].os) || !keys.has(ps[kp].os) {
		return 0, 0, false
	}
	return kp, ap, true
}

// keyBest is one slot of bestRowsByKey's table: a key object (0: empty) and the least and the greatest value met
// with it since it took the slot.
type keyBest struct{ o, lo, hi ID }

// bestRowsByKey is countRowsByKey for MIN and MAX of the numbers of ps[ap] per object of ps[kp]: each object's
// least and greatest value so far are kept in a table and handed to gs when another object takes the slot and at
// the end, instead of every solution. MIN and MAX of numbers depend only on the set of values (builtin.OrderKeys
// orders numbers totally, two forms of one value by their terms), so gs may take fewer of them and in another
// order; a value equal to the least or greatest in another form goes to gs as well, which orders the two.
//
// The loop ran on one goroutine where the join it replaced split its scan over two cores: with split, it is split
// as optStarSplit splits a star (groupHalves), the lead pattern's rows cut at subjects, each goroutine with its own
// table, rows and group state, the worker's groups merged after the query's (mergeGroups: MIN and MAX of numbers
// held in ids merge exactly). The timed probe decides, from any row cost (bestRowCost).
func (e *evaluator) bestRowsByKey(x *algebra.Group, ps []patRows, kp, ap int, split bool, row []ID, gs *groupState, errp *error) bool {
	d := starLead(ps)
	lead := ps[d].rows
	rows := e.bestRows(ps, d, kp, ap, row, gs)
	if !split || !e.splitMergeableMinMax(x) {
		return rows(0, len(lead), errp)
	}
	return e.groupHalves(x, gs, len(lead), minForkRows, 0, bestRowCost, func(k int) int { return subjectStart(lead, k) },
		func(from, to int) bool { return rows(from, to, errp) },
		func(w *evaluator, wgs *groupState) func(from, to int, errp *error) bool {
			return w.bestRows(workerPatRows(ps), d, kp, ap, slices.Clone(row), wgs)
		}, errp)
}

// bestRowCost is the least a lead row must cost bestRowsByKey's loop, as timed, for the split: none. Its rows are
// no mere reading of memory (a table per key, a group state per evicted key): h77's MAX(?price) per deliveryDays
// (about 50 ns a row at 10 M, under splitRowCost) took the same CPU split, and its wall time fell where both
// cores were free.
const bestRowCost = 0

// bestSplitFanout is the fewest rows per key object (the key pattern's ObjectFanout) for which bestRowsByKey's
// loop is split: each half meets nearly every key and makes a group of it, and the merge finds each of the
// worker's groups again, so that few rows per key cost more than the half saves. b18's MIN(?price) per product
// (about 20 offers a product at 10 M) took 65–72 ms of CPU split against 53–54, in no less wall time at load 29;
// h77's 20 delivery days have 28 000 offers each.
const bestSplitFanout = 64

// bestRows returns what reads the rows from…to of ps[d] (bestRowsByKey) into gs with a table of its own, handing
// the table to gs at the end of each call, so that gs holds every value read when the call returns.
func (e *evaluator) bestRows(ps []patRows, d, kp, ap int, row []ID, gs *groupState) func(from, to int, errp *error) bool {
	table := make([]keyBest, 1<<keyCountBits)
	kos, aos := ps[kp].os, ps[ap].os
	return func(from, to int, errp *error) bool {
		add := func(o, v ID) bool {
			row[kos], row[aos] = o, v
			ok := gs.add(row, 1, errp)
			row[kos], row[aos] = 0, 0
			return ok
		}
		flush := func(kb *keyBest) bool { return add(kb.o, kb.lo) && (kb.hi == kb.lo || add(kb.o, kb.hi)) }
		ok := e.mergeStarRange(ps, d, []int{kp, ap}, from, to, row, errp, func(_ ID, _ int64, runs [][2]int) bool {
			return e.eachPassing(&ps[kp], runs[0], row, errp, func(o ID) bool {
				kb := &table[(uint64(o)*0x9E3779B97F4A7C15)>>(64-keyCountBits)]
				return e.eachPassing(&ps[ap], runs[1], row, errp, func(v ID) bool {
					if kb.o != o {
						if kb.o != 0 && !flush(kb) {
							return false
						}
						*kb = keyBest{o: o, lo: v, hi: v}
						return true
					}
					lo, okLo := compareNumbers(v, kb.lo)
					hi, okHi := compareNumbers(v, kb.hi)
					switch {
					case !okLo || !okHi || (lo == 0 && v != kb.lo) || (hi == 0 && v != kb.hi):
						return add(o, v) // another form of an equal value (or no number): gs orders them
					case lo < 0:
						kb.lo = v
					case hi > 0:
						kb.hi = v
					}
					return true
				})
			})
		})
		return ok && flushBest(table, flush)
	}
}

// workerPatRows copies a star's patterns for a worker: its own tables of tested objects (passMemo), which passes
// writes; the rows and the member sets are only read.
func workerPatRows(ps []patRows) []patRows {
	out := slices.Clone(ps)
	for i := range out {
		if out[i].memo != nil {
			out[i].memo = make([]passMemo, len(out[i].memo))
		}
	}
	return out
}

// flushBest hands flush every key of table and empties it; false when flush says so.
func flushBest(table []keyBest, flush func(*keyBest) bool) bool {
	for i := range table {
		if table[i].o != 0 {
			if !flush(&table[i]) {
				return false
			}
			table[i] = keyBest{}
		}
	}
	return true
}

// eachPassing calls each with the object of every row of p in run (from, to) that passes p's conjuncts; false when
// evaluation must stop or each says so.
func (e *evaluator) eachPassing(p *patRows, run [2]int, row []ID, errp *error, each func(o ID) bool) bool {
	for k := run[0]; k < run[1]; k++ {
		o := p.rows[k][2]
		if !e.passes(p, o, row, errp) {
			if *errp != nil {
				return false
			}
			continue
		}
		if !each(o) {
			return false
		}
	}
	return true
}

// allNumbers reports whether every object of the patterns of st whose object is in vars is a number held in its
// id; a variable of vars that no pattern binds fails. A predicate's rows in POS order ascend by object, and the
// ids of numbers held in ids (integers, then decimals) are one interval: the first and the last object tell.
func (e *evaluator) allNumbers(st []countPat, vars varset) bool {
	g := e.active[0].g
	for _, p := range st {
		if !vars.has(p.os) {
			continue
		}
		vars.bits &^= 1 << uint(p.os)
		m := g.Match(0, e.constID(p.p), 0)
		if m.Perm != index.POS || m.Len() == 0 {
			return false
		}
		_, _, lo := m.At(0)
		_, _, hi := m.At(m.Len() - 1)
		if _, _, ok := index.InlineNumber(lo); !ok {
			return false
		}
		if _, _, ok := index.InlineNumber(hi); !ok {
			return false
		}
	}
	return vars.empty()
}

// tagPat is a pattern "?o <p> <c>" of a star's BGP whose ?o is the object of the star's pattern pat: it keeps the
// star's rows whose object is one of its subjects (one solution each, as a graph holds a triple once).
type tagPat struct {
	p, o ID
	pat  int
}

// tagStar returns the star of op (a BGP or a FILTER over one, as countStars reads it) and its tag patterns; ok is
// false for any other form, or a tag whose predicate or object the data lacks.
func (e *evaluator) tagStar(op algebra.Op, in []ID) ([]countPat, []tagPat, bool) {
	var conds []algebra.Expr
	b, isBGP := op.(*algebra.BGP)
	if f, isFilter := op.(*algebra.Filter); isFilter {
		b, isBGP = f.Op.(*algebra.BGP)
		for _, x := range f.Exprs {
			conds = appendConjuncts(conds, x)
		}
	}
	if !isBGP || len(b.Triples) == 0 || len(e.active) != 1 {
		return nil, nil, false
	}
	isTag := func(t algebra.Triple) bool { return t.S.IsVar() && !t.P.IsVar() && !t.O.IsVar() }
	for _, t := range b.Triples {
		if isTag(t) {
			continue
		}
		var star, tagged []int
		for i, u := range b.Triples {
			if u.S.IsVar() && u.S.Var == t.S.Var && !isTag(u) {
				star = append(star, i)
			} else {
				tagged = append(tagged, i)
			}
		}
		st, ok := e.countStarOf(b, star, conds, in)
		if !ok {
			return nil, nil, false
		}
		var tags []tagPat
		for _, i := range tagged {
			u := b.Triples[i]
			pat := slices.IndexFunc(st, func(p countPat) bool { return isTag(u) && p.os == e.slot(u.S.Var) })
			if pat < 0 {
				return nil, nil, false
			}
			p, o := e.constID(u.P.Term), e.constID(u.O.Term)
			if p == 0 || o == 0 {
				return nil, nil, false
			}
			tags = append(tags, tagPat{p: p, o: o, pat: pat})
		}
		if f, isFilter := op.(*algebra.Filter); isFilter {
			for i := range st {
				st[i].key.filters, st[i].key.nf = unsafe.SliceData(f.Exprs), -1-len(f.Exprs)
			}
		}
		return st, tags, true
	}
	return nil, nil, false
}

// intersectIDs returns the ids in both ascending lists.
func intersectIDs(a, b []ID) []ID {
	out := []ID{}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// countRowsByKeys is countRowsByKey for keys reading the objects of several patterns (keyed): each subject's
// combinations of their passing rows, each with the product of the other patterns' passing rows, go to gs with
// the subject and those objects bound.
func (e *evaluator) countRowsByKeys(ps []patRows, keyed []int, ss int, row []ID, gs *groupState, errp *error) bool {
	if len(keyed) == 2 {
		return e.countRowsByPairs(ps, keyed, ss, row, gs, errp)
	}
	return e.mergeStar(ps, keyed, row, errp, func(s ID, prod int64, runs [][2]int) bool {
		row[ss] = s
		ok := e.combineRuns(ps, keyed, runs, prod, row, gs, errp)
		row[ss] = 0
		return ok
	})
}

// combineRuns binds each passing row of the run of ps[keyed[0]] in turn, then the rest's, and adds each
// combination to gs n times.
func (e *evaluator) combineRuns(ps []patRows, keyed []int, runs [][2]int, n int64, row []ID, gs *groupState, errp *error) bool {
	if len(keyed) == 0 {
		return gs.add(row, n, errp)
	}
	p := &ps[keyed[0]]
	for k := runs[0][0]; k < runs[0][1]; k++ {
		o := p.rows[k][2]
		if !e.passes(p, o, row, errp) {
			if *errp != nil {
				return false
			}
			continue
		}
		row[p.os] = o
		ok := e.combineRuns(ps, keyed[1:], runs[1:], n, row, gs, errp)
		row[p.os] = 0
		if !ok {
			return false
		}
	}
	return true
}

// pairCount is one slot of countRowsByPairs' table: a pair of objects (a == 0: empty), the subject of its first
// row and its solutions so far.
type pairCount struct {
	a, b, s ID
	n       int64
}

// countRowsByPairs is countRowsByKeys for keys reading the objects of two patterns: each pair of passing objects
// is counted in a table as countRowsByKey counts one object (the subject of the pair's first row, handed to gs
// with the count when another pair takes the slot and at the end), so gs computes the keys and finds the group
// once per pair and eviction, not per solution. A pair's first solutions go to gs when met, so the groups are
// made, and come out, in the join's order. h171's GROUP BY ((?r1 - ?r2) / 2 AS ?half) over every review's
// two ratings meets about a hundred pairs; each review computed the key and looked its group up.
func (e *evaluator) countRowsByPairs(ps []patRows, keyed []int, ss int, row []ID, gs *groupState, errp *error) bool {
	table := make([]pairCount, 1<<keyCountBits) // fixed size, as countRowsByKey's least table
	mask := uint64(len(table) - 1)
	p, q := &ps[keyed[0]], &ps[keyed[1]]
	add := func(a, b, s ID, n int64) bool {
		row[p.os], row[q.os], row[ss] = a, b, s
		ok := gs.add(row, n, errp)
		row[p.os], row[q.os], row[ss] = 0, 0, 0
		return ok
	}
	flush := func(pc *pairCount) bool { return pc.n == 0 || add(pc.a, pc.b, pc.s, pc.n) }
	ok := e.mergeStar(ps, keyed, row, errp, func(s ID, prod int64, runs [][2]int) bool {
		for i := runs[0][0]; i < runs[0][1]; i++ {
			a := p.rows[i][2]
			if !e.passes(p, a, row, errp) {
				if *errp != nil {
					return false
				}
				continue
			}
			for j := runs[1][0]; j < runs[1][1]; j++ {
				b := q.rows[j][2]
				if !e.passes(q, b, row, errp) {
					if *errp != nil {
						return false
					}
					continue
				}
				h := (uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F) >> (64 - keyCountBits)
				var pc *pairCount
				for k := range uint64(keyCountWindow) {
					if c := &table[(h+k)&mask]; c.a == 0 || c.a == a && c.b == b {
						pc = c
						break
					}
				}
				if pc == nil { // the window is full of other pairs: the first one's count goes to gs
					pc = &table[h]
					if !flush(pc) {
						return false
					}
					pc.a = 0
				}
				if pc.a == 0 {
					// A pair's first solutions go to gs at once, the later ones counted: the groups are made in
					// the order the join meets their keys, as before.
					if !add(a, b, s, prod) {
						return false
					}
					*pc = pairCount{a: a, b: b, s: s}
					continue
				}
				pc.n += prod
			}
		}
		return true
	})
	if !ok {
		return false
	}
	for i := range table {
		if table[i].a != 0 && !flush(&table[i]) {
			return false
		}
	}
	return true
}

// countRowsByKey is countRows counting per object of ps[kp] into gs, for about keys distinct objects; false when
// evaluation must stop.
func (e *evaluator) countRowsByKey(ps []patRows, kp, ss int, keys float64, row []ID, gs *groupState, errp *error) bool {
	table, held := e.keyCountTable(keys)
	defer func() { e.bytes -= held }()
	kos := ps[kp].os
	flush := func(kc *keyCount) bool {
		row[kos], row[ss] = kc.o, kc.s
		ok := gs.add(row, kc.n, errp)
		row[kos], row[ss] = 0, 0
		return ok
	}
	kr := ps[kp].rows
	ok := e.mergeStar(ps, []int{kp}, row, errp, func(s ID, prod int64, runs [][2]int) bool {
		for k := runs[0][0]; k < runs[0][1]; k++ {
			o := kr[k][2]
			if !e.passes(&ps[kp], o, row, errp) {
				if *errp != nil {
					return false
				}
				continue
			}
			kc, evict := keyCountSlot(table, o)
			if evict && !flush(kc) {
				return false
			}
			if kc.o != o {
				*kc = keyCount{o: o, s: s}
			}
			kc.n += prod
		}
		return true
	})
	if !ok {
		return false
	}
	for i := range table {
		if table[i].o != 0 && !flush(&table[i]) {
			return false
		}
	}
	return true
}

// countRowsByKey's table: an object's count is kept in the first slot, of keyCountWindow from the one its hash
// names, that holds it or is empty; when all of them hold other objects, the first one's count is handed to the
// group state (evict) and the slot is the object's. Slots are emptied only at the end, so an object not found in
// its window is not in the table. The star is read in subject order, where the keys interleave: h135's 2 941
// vendors in a table of 4 096 slots, one slot per hash, met another vendor in their slot for most of 250 000
// offers, and each such row cost a find in the group state's map (a third of the query at 10 M). The table has
// about four slots per key the data's fanout lets expect, at least 1<<keyCountBits and at most
// 1<<maxKeyCountBits (1.5 MiB, charged to the query's budget while it is read); more keys are counted still,
// evicting more often.
const (
	keyCountWindow  = 8
	maxKeyCountBits = 16
)

// keyCountTable makes countRowsByKey's table for about keys objects and returns the bytes it charged for it (held
// while it is read): the least table, when the budget has no room for a larger one, is not charged, as it was not
// before (it is of a fixed size).
func (e *evaluator) keyCountTable(keys float64) ([]keyCount, int64) {
	bits := keyCountBits
	for bits < maxKeyCountBits && float64(int64(1)<<bits) < 4*keys {
		bits++
	}
	cost := int64(1) << bits * int64(unsafe.Sizeof(keyCount{}))
	if bits == keyCountBits || !e.charge(cost) {
		return make([]keyCount, 1<<keyCountBits), 0
	}
	return make([]keyCount, 1<<bits), cost
}

// keyCountSlot returns o's slot in table (a power of two long), and whether the object there must be handed on
// first (evict): see keyCountWindow.
func keyCountSlot(table []keyCount, o ID) (kc *keyCount, evict bool) {
	mask := uint64(len(table) - 1)
	h := uint64(o) * 0x9E3779B97F4A7C15 >> (64 - mathbits.Len64(mask))
	for i := range uint64(keyCountWindow) {
		kc = &table[(h+i)&mask]
		if kc.o == o || kc.o == 0 {
			return kc, false
		}
	}
	return &table[h], true
}

// cheapCond reports whether the FILTER conjunct c costs about what reading its variables does: comparisons and IN
// of cheapExpr operands, and !, && and || of those.
func cheapCond(c algebra.Expr) bool {
	switch x := c.(type) {
	case *algebra.In:
		return cheapExpr(x.Expr) && !slices.ContainsFunc(x.List, func(y algebra.Expr) bool { return !cheapExpr(y) })
	case *algebra.Call:
		switch x.Func {
		case "!", "&&", "||":
			return !slices.ContainsFunc(x.Args, func(y algebra.Expr) bool { return !cheapCond(y) })
		case "=", "!=", "<", "<=", ">", ">=":
			return !slices.ContainsFunc(x.Args, func(y algebra.Expr) bool { return !cheapExpr(y) })
		}
	}
	return false
}

// idSet is a set of ids made from an ascending list: a bitmap over their span when it is small (a few hundred
// vendors among the ids met in every offer's row: a search each was a fifth of h45), else the list searched.
type idSet struct {
	lo   ID
	bits []uint64
	ids  []ID
}

// maxSetSpan is the widest span of ids an idSet holds as a bitmap (4 MiB, charged to the query): h45's 1 332
// subjects of country FR (vendors, producers, reviewers) span 2.3 M ids at 10 M, ids being given in the order
// the data first names the terms.
const maxSetSpan = 1 << 25

func newIDSet(ids []ID) *idSet {
	if len(ids) == 0 || ids[len(ids)-1]-ids[0] >= maxSetSpan {
		return &idSet{ids: ids}
	}
	s := &idSet{lo: ids[0], bits: make([]uint64, (ids[len(ids)-1]-ids[0])/64+1)}
	for _, id := range ids {
		s.bits[(id-s.lo)/64] |= 1 << ((id - s.lo) % 64)
	}
	return s
}

func (s *idSet) has(id ID) bool {
	if s.bits == nil {
		_, found := slices.BinarySearch(s.ids, id)
		return found
	}
	i := uint64(id) - uint64(s.lo) // below lo wraps past the bitmap
	return i/64 < uint64(len(s.bits)) && s.bits[i/64]&(1<<(i%64)) != 0
}
