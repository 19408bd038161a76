package eval

import (
	"slices"
	"sort"
	"unsafe"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY over a star on one subject with OPTIONAL stars on the same subject (?s <p1> ?o1 ; <p2> ?o2 OPTIONAL
// { ?s <p3> ?o3 } …) has, per subject, the product of its rows of each mandatory pattern times, per OPTIONAL, the
// product of that OPTIONAL's rows or one solution with its variables unbound when that product is 0. groupOptStars
// reads every pattern's rows in subject order in one merge loop (as groupStars does) and hands the group each
// subject's solutions: only the patterns whose objects the keys or aggregates read are gone through row by row;
// the others only multiply the count (accumulateN). COUNT(?o) of a pattern's object reads only whether it is
// bound, so it does not make its pattern read row by row. h38 (per rating site, COUNT(*) and COUNT of an OPTIONAL
// rating over 290 000 reviews) probed the publisher and the OPTIONAL per review through the join: 130 ms CPU.

// optStar is such an operand: its subject's slot, its mandatory patterns, its OPTIONAL stars, and the conjuncts of
// a FILTER over the OPTIONALs that read more than one mandatory object (an OPTIONAL's variable: !BOUND(?v), ?v >
// ?o), tested on each solution.
type optStar struct {
	ss   int
	must []countPat
	opts [][]countPat
	late []algebra.Expr
	// only, when not nil, holds the only subjects that have solutions: those of the tags on the subject
	// (groupHop's `?offer a bsbm:Offer`).
	only *idSet
}

// starMember is one pattern's rows of a subject while groupOptStars reads them: rows start…end of p have the
// subject, n of them pass, first is the first that passes; read says the group reads its object; group is the
// index of its OPTIONAL (-1: mandatory). An OPTIONAL whose patterns have no rows at all is not a member: its
// objects stay unbound in every solution.
type starMember struct {
	p          *patRows
	start, end int
	n          int64
	first      ID
	read       bool
	group      int
	absent     bool // its OPTIONAL has no solution for the subject: the object stays unbound
	bound      ID   // not read: the value its object holds whenever bound (its first passing row's)
}

// groupOptStars evaluates x's operand when it is such a star with at least one OPTIONAL, or a star of two or
// more patterns whose aggregates may be split (optStarSplit), and hands gs its solutions; handled is false when it
// is not (the caller evaluates it as usual), ok is false when evaluation must stop.
//
// A star without OPTIONALs is otherwise the join's: h76 (GROUP BY ?person over every review's reviewer and
// rating1, 200 000 solutions at 10 M) probed rating1 by subject per review and split that scan over two cores,
// 220–250 ms CPU, where the merge loop reads both patterns' rows in turn. It is taken only where its rows can be
// split too (plainStar): a star the join split over both cores and this loop left on one would lose wall time
// (h25, b66, h19 were split so in the lead's runs); the others keep the join.
func (e *evaluator) groupOptStars(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	if e.outerGraph() == nil {
		return false, false
	}
	optional := hasOptional(x.Op)
	if !optional && !e.plainStar(x) {
		return false, false
	}
	st, ok := e.optStarOf(x.Op, in, nil, nil)
	if !ok || len(st.opts) == 0 && (optional || len(st.must) < 2) {
		return false, false
	}
	return e.starGroup(x, st, in, gs, varset{}, nil, errp)
}

// starGroup hands gs the solutions of st, x's operand, read in subject order (optStarRows); handled is false when
// st's shape or the query's budget leaves it to the join. st may have no OPTIONAL: groupHop reads a plain star so,
// with the variables also read besides x's keys and aggregates (the join's), and sinkFor, which makes for an
// evaluator and its groups a sink that takes each solution (and how many) instead of the groups.
func (e *evaluator) starGroup(x *algebra.Group, st optStar, in []ID, gs *groupState, also varset, sinkFor sinkMaker, errp *error) (handled, ok bool) {
	slots := map[int]bool{st.ss: true}
	for _, p := range st.members() {
		if slots[p.os] { // an object variable shared by two patterns (or the subject): a join on it
			return false, false
		}
		slots[p.os] = true
	}
	reads := e.groupReadsSkipping(x, func(ag *algebra.Aggregate) bool {
		v, isVar := ag.Expr.(algebra.Var)
		return isVar && ag.Name == "COUNT" && !ag.Distinct && slots[e.slot(v)]
	})
	for _, c := range st.late {
		reads = reads.union(e.varsOfExpr(c))
	}
	reads = reads.union(also)
	if reads.over {
		return false, false
	}
	row := slices.Clone(in)
	must, ok := e.starRows(st.must, row, errp)
	if *errp != nil {
		return true, false
	}
	if !ok {
		return false, false
	}
	if len(must) == 0 {
		return true, true // a mandatory pattern has no rows: no solutions
	}
	ms := make([]starMember, 0, len(st.must))
	for i := range must {
		ms = append(ms, starMember{p: &must[i], group: -1, read: reads.has(must[i].os)})
	}
	for gi, o := range st.opts {
		rs, ok := e.starRows(o, row, errp)
		if *errp != nil {
			return true, false
		}
		if !ok {
			return false, false
		}
		if len(rs) == 0 {
			continue
		}
		for i := range rs {
			ms = append(ms, starMember{p: &rs[i], group: gi, read: reads.has(rs[i].os)})
		}
	}
	// groupHop's star is split with its OPTIONALs too (h104: rating1 beside 290 000 reviews, one goroutine's 60–
	// 100 ms of CPU at 10 M): each member seeks its subject's rows from where it stood (seekSubject), from 0 in a
	// worker. groupOptStars' stars with OPTIONALs stay on one goroutine (h38: 18 ms, under what a worker is worth).
	if sinkFor != nil && e.splitMergeableMinMax(x) || sinkFor == nil && len(st.opts) == 0 {
		return true, e.optStarSplit(x, &st, reads.has(st.ss), ms, row, gs, sinkFor, errp)
	}
	if sinkFor == nil && also.empty() {
		if handled, ok := e.starBits(&st, reads.has(st.ss), ms, row, gs, errp); handled || *errp != nil {
			return true, ok
		}
	}
	var sink solutionSink
	if sinkFor != nil {
		sink = sinkFor(e, gs, errp)
	}
	var pend *solutionCache
	return true, e.optStarRows(&st, reads.has(st.ss), ms, 0, -1, row, gs, sink, &pend, errp) && pend.flushAll(errp)
}

// plainStar is the cheap test before optStarOf for a GROUP BY over no OPTIONAL: its aggregates may be split, its
// keys are variables and its operand is a BGP of two or more patterns, or a FILTER over one.
func (e *evaluator) plainStar(x *algebra.Group) bool {
	op := x.Op
	if f, ok := op.(*algebra.Filter); ok {
		op = f.Op
	}
	b, ok := op.(*algebra.BGP)
	if !ok || len(b.Triples) < 2 || !e.splitMergeableMinMax(x) {
		return false
	}
	// A key computed from a term (YEAR(?date), LANG(?title)) reads the dictionary per solution: the join reads its
	// first pattern by value, where consecutive rows share the dictionary's pages, and this loop by subject, where
	// they do not (h74, YEAR and LANG of every review: 210 → 380 ms CPU).
	for _, k := range x.Keys {
		if _, isVar := k.Expr.(algebra.Var); !isVar {
			return false
		}
	}
	return true
}

// hasOptional reports whether op is a LeftJoin, or a FILTER over one: the test that spares every other GROUP BY
// (a subquery's, evaluated once per outer solution) optStarOf's work.
func hasOptional(op algebra.Op) bool {
	if f, ok := op.(*algebra.Filter); ok {
		op = f.Op
	}
	_, ok := op.(*algebra.LeftJoin)
	return ok
}

// members returns every pattern of st, mandatory and optional.
func (st *optStar) members() []countPat {
	out := slices.Clone(st.must)
	for _, o := range st.opts {
		out = append(out, o...)
	}
	return out
}

// optStarOf returns the star op is: a BGP (countStar's star), a FILTER over it whose conjuncts each read one
// object, a LeftJoin of one with a star on the same subject whose filter's conjuncts each read one of that star's
// objects, or a FILTER over such a LeftJoin (a conjunct reading one mandatory object alone keeps or drops that
// pattern's rows, mandatory objects being bound in every solution; the others are late). conds and f are the
// conjuncts and FILTER met above a BGP.
func (e *evaluator) optStarOf(op algebra.Op, in []ID, conds []algebra.Expr, f *algebra.Filter) (optStar, bool) {
	switch x := op.(type) {
	case *algebra.Filter:
		if f != nil {
			return optStar{}, false
		}
		var cs []algebra.Expr
		for _, c := range x.Exprs {
			cs = appendConjuncts(cs, c)
		}
		if _, isLJ := x.Op.(*algebra.LeftJoin); !isLJ {
			return e.optStarOf(x.Op, in, cs, x)
		}
		// Over OPTIONALs: a conjunct that reads one mandatory object alone narrows that pattern's rows; any other
		// is tested on each solution (its variables are then read).
		base, ok := e.optStarOf(x.Op, in, nil, nil)
		if !ok {
			return optStar{}, false
		}
		var down, late []algebra.Expr
	next:
		for _, c := range cs {
			if !pushable(c) {
				return optStar{}, false
			}
			if o, one := e.varsOfExpr(c).only(); one {
				for _, p := range base.must {
					if p.os == o {
						down = append(down, c)
						continue next
					}
				}
			}
			late = append(late, c)
		}
		st, ok := e.optStarOf(x.Op, in, down, x)
		st.late = late
		return st, ok
	case *algebra.LeftJoin:
		st, ok := e.optStarOf(x.Left, in, conds, f)
		b, isBGP := x.Right.(*algebra.BGP)
		if !ok || !isBGP || len(b.Triples) == 0 || !b.Triples[0].S.IsVar() || e.slot(b.Triples[0].S.Var) != st.ss {
			return optStar{}, false
		}
		var oc []algebra.Expr
		if x.Expr != nil {
			oc = appendConjuncts(nil, x.Expr)
		}
		o, ok := e.countStar(b, oc, in)
		if !ok {
			return optStar{}, false
		}
		if x.Expr != nil {
			for i := range o {
				// A key no BGP's join and no FILTER's star uses: the LeftJoin's expression, one of its own.
				o[i].key.filters, o[i].key.nf = &x.Expr, -2
			}
		}
		st.opts = append(st.opts, o)
		return st, true
	case *algebra.BGP:
		st, ok := e.countStar(x, conds, in)
		if !ok {
			return optStar{}, false
		}
		if f != nil {
			for i := range st {
				st[i].key.filters, st[i].key.nf = unsafe.SliceData(f.Exprs), -1-len(f.Exprs)
			}
		}
		return optStar{ss: e.slot(x.Triples[0].S.Var), must: st}, true
	}
	return optStar{}, false
}

// optStarRows reads the members' rows (the mandatory ones first) in subject order, over the subjects of the
// mandatory pattern with the fewest rows, and hands gs each subject's solutions (optStarEmit). A variable the
// group does not read (the subject unless readS, an object whose pattern is not read) holds one bound value
// throughout, so that solutions which differ only there are equal, and gs takes each set of equal ones in one add
// (solutionCache): h38's 290 000 reviews give 20 (10 sites, each with and without the OPTIONAL rating), which
// gs.add took one by one at 60 ns each.
//
// Only the lead's rows from..to are read (to < 0: to its end), both on subject boundaries; *pendp is the cache,
// made with the first solution (whose unread slots then hold their values) and kept across calls: the caller
// flushes it.
func (e *evaluator) optStarRows(st *optStar, readS bool, ms []starMember, from, to int, row []ID, gs *groupState, sink solutionSink, pendp **solutionCache, errp *error) bool {
	ss := st.ss
	d := leadMember(ms)
	lead := ms[d].p.rows
	if to < 0 {
		to = len(lead)
	}
	prod := make([]int64, len(st.opts))
	pend := *pendp
	defer func() { *pendp = pend }()
	for j := from; j < to; {
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return false
			}
		}
		s := lead[j][0]
		if st.only != nil && !st.only.has(s) {
			for j < to && lead[j][0] == s {
				j++
			}
			continue
		}
		l := &ms[d]
		l.start = j
		l.n, l.first, j = e.passFirst(l.p, j, s, row, errp)
		l.end = j
		n := l.n
		// The mandatory members (first in ms) while the subject has solutions, then the OPTIONALs'.
		for i := 0; i < len(ms) && ms[i].group < 0 && n > 0; i++ {
			if i != d {
				n *= e.memberRun(&ms[i], s, row, errp)
			}
		}
		if *errp != nil {
			return false
		}
		if n == 0 {
			continue
		}
		for i := range prod {
			prod[i] = 1
		}
		for i := range ms {
			if m := &ms[i]; m.group >= 0 {
				prod[m.group] *= e.memberRun(m, s, row, errp)
			}
		}
		if *errp != nil {
			return false
		}
		// The members read are gone through row by row (optStarEmit), unless each has one row (set here: the
		// common case, a fifth of h38's CPU went to the walk); the others' rows multiply each solution.
		mult, one := int64(1), true
		for i := range ms {
			m := &ms[i]
			m.absent = m.group >= 0 && prod[m.group] == 0
			switch {
			case m.absent:
				row[m.p.os] = 0
			case !m.read:
				if m.bound == 0 {
					m.bound = m.first
				}
				row[m.p.os] = m.bound
				mult *= m.n
			case m.n == 1:
				row[m.p.os] = m.first
			default:
				one = false
			}
		}
		if readS || row[ss] == 0 {
			row[ss] = s
		}
		if pend == nil {
			var vary []int
			if readS {
				vary = append(vary, ss)
			}
			for i := range ms {
				if ms[i].read || ms[i].group >= 0 {
					vary = append(vary, ms[i].p.os)
				}
			}
			if pend = newSolutionCache(e, gs, vary, row, errp); pend == nil {
				return false
			}
			pend.sink = sink
		}
		if one && len(st.late) == 0 {
			if !pend.add(row, mult, errp) {
				return false
			}
			continue
		}
		if !e.optStarEmit(ms, 0, row, mult, st.late, pend, errp) {
			return false
		}
	}
	return true
}

// leadMember is the mandatory member with the fewest rows, whose subjects optStarRows goes through.
func leadMember(ms []starMember) int {
	d := 0
	for i := range ms {
		if ms[i].group < 0 && len(ms[i].p.rows) < len(ms[d].p.rows) {
			d = i
		}
	}
	return d
}

// solutionCache gathers optStarRows' solutions before gs takes them: a table of the values of the slots that vary
// between them (vary) and how many solutions had each (n; 0: an empty entry), indexed by a hash of the values. When
// every aggregate is a COUNT, the table keeps every set of values met (growing, charged to the query) and gs takes
// each set once at the end: a few thousand vendors' offers with or without an OPTIONAL's value went to gs.add one
// by one when a table of 256 entries handed on whatever a new set displaced. Other aggregates may depend on the
// order solutions come in (GROUP_CONCAT's order, SUM of doubles, SAMPLE, MIN of 2 and 2.0): their table has one
// entry, which merges only equal solutions in a row and hands each run to gs before the next. Every slot not in
// vary holds one value throughout (optStarRows), so an entry's solution is row with its values.
type solutionCache struct {
	e    *evaluator
	gs   *groupState
	vary []int
	keys []ID
	n    []int64
	bits uint // the table has 1<<bits entries
	used int  // entries in use, when the table grows
	// words holds, in a growing table of one or two slots that vary, each entry's values as one word (packKey),
	// which insert hashes and compares in place of the keys: h38's 290 000 reviews each hashed and compared a
	// slice of two ids, a fifth of its CPU at 10 M. nil otherwise.
	words []uint64
	grow  bool
	key   []ID // the values of the solution being added
	row   []ID // the solution of an entry handed on (flush)
	sink  solutionSink
	// Past sortedFeedGroups groups, a one-entry cache keeps the solutions it hands on and gs takes them sorted by
	// their keys at the end (groupsorted.go): sortPos are the keys' positions in vary (nil: not sortable), kept the
	// solutions kept (keptN of them, as rows of keep), keptHeld the bytes charged for them.
	sortPos  []int
	keeping  bool
	kept     []ID
	keptN    int
	keptHeld int64
	// A one-entry cache counts its first solutions (probes) and those that merged with the one before (hits); when
	// under one in cacheSampleHits merged, it hands every later solution on as it comes (direct): h141's products,
	// each distinct, paid a hash, a compare and two copies each for nothing. Handing on the same solutions in the
	// same order, unmerged, gives every aggregate the same state (accumulateN merges only where that is exact).
	probes, hits int
	direct       bool
}

// cacheSample is the number of solutions a one-entry solutionCache counts before it decides whether to go on
// merging them; cacheSampleHits the least share of them (one in …) that must have merged.
const (
	cacheSample     = 1024
	cacheSampleHits = 32
)

// solutionSink takes n solutions equal to row in the variables the group reads, in place of groupState.add; false
// stops evaluation (*errp says why).
type solutionSink func(row []ID, n int64) bool

// sinkMaker makes a solutionSink for evaluator e, handing its solutions to gs (errp: why it stopped).
type sinkMaker func(e *evaluator, gs *groupState, errp *error) solutionSink

func newSolutionCache(e *evaluator, gs *groupState, vary []int, row []ID, errp *error) *solutionCache {
	c := &solutionCache{e: e, gs: gs, vary: vary, grow: true, key: make([]ID, len(vary)), row: slices.Clone(row)}
	for _, a := range gs.x.Aggregates {
		if a.Aggregate.Name != "COUNT" {
			c.grow = false
		}
	}
	if c.grow {
		c.bits = 6
		if !c.charge(errp) {
			return nil
		}
	} else {
		c.sortPos, _ = sortedKeys(gs, vary)
	}
	c.keys, c.n = make([]ID, len(vary)<<c.bits), make([]int64, 1<<c.bits)
	if c.packed() {
		c.words = make([]uint64, 1<<c.bits)
	}
	return c
}

// packed reports whether c's table holds its entries' values as words too (words).
func (c *solutionCache) packed() bool { return c.grow && len(c.vary) >= 1 && len(c.vary) <= 2 }

// packKey is the values of one or two slots as one word, distinct for distinct values.
func packKey(key []ID) uint64 { return uint64(key[0]) | uint64(key[len(key)-1])<<32 }

// charge holds the bytes of a table of 1<<c.bits entries against the query's budget.
func (c *solutionCache) charge(errp *error) bool {
	per := int64(4*len(c.vary) + 8)
	if c.packed() {
		per += 8
	}
	if err := c.e.holdBytes(per << c.bits); err != nil {
		*errp = err
		return false
	}
	return true
}

func (c *solutionCache) add(row []ID, n int64, errp *error) bool {
	if c.direct {
		for _, s := range c.vary {
			c.row[s] = row[s]
		}
		if c.sink != nil {
			return c.sink(c.row, n)
		}
		return c.gs.add(c.row, n, errp)
	}
	for j, s := range c.vary {
		c.key[j] = row[s]
	}
	if !c.grow && !c.keeping && (c.sink != nil || c.sortPos == nil) {
		if c.probes++; c.probes == cacheSample && c.hits*cacheSampleHits < c.probes {
			// The entry held goes on first, then each solution as it comes (flush's steps without the table).
			c.direct = true
			if c.n[0] > 0 && !c.flush(0, errp) {
				return false
			}
			return c.add(row, n, errp)
		}
	}
	return c.insert(c.key, n, errp)
}

// insert adds n solutions with the values key.
func (c *solutionCache) insert(key []ID, n int64, errp *error) bool {
	if c.words != nil {
		return c.insertWord(key, n, errp)
	}
	h := uint64(0)
	for _, v := range key {
		h = (h ^ uint64(v)) * 0x9E3779B97F4A7C15
	}
	w := len(c.vary)
	mask := 1<<c.bits - 1
	i := int(h>>(64-c.bits)) & mask
	for c.n[i] > 0 {
		if slices.Equal(c.keys[i*w:(i+1)*w], key) {
			c.n[i] += n
			c.hits++
			return true
		}
		if !c.grow {
			if !c.flush(i, errp) {
				return false
			}
			break
		}
		i = (i + 1) & mask
	}
	copy(c.keys[i*w:(i+1)*w], key)
	c.n[i] = n
	if c.grow {
		if c.used++; 2*c.used > len(c.n) {
			return c.rehash(errp)
		}
	}
	return true
}

// insertWord is insert into a table of words: the same entries, found by one word's hash and comparison.
func (c *solutionCache) insertWord(key []ID, n int64, errp *error) bool {
	k := packKey(key)
	mask := 1<<c.bits - 1
	i := int((k*0x9E3779B97F4A7C15)>>(64-c.bits)) & mask
	for c.n[i] > 0 {
		if c.words[i] == k {
			c.n[i] += n
			return true
		}
		i = (i + 1) & mask
	}
	w := len(c.vary)
	copy(c.keys[i*w:(i+1)*w], key)
	c.words[i], c.n[i] = k, n
	if c.used++; 2*c.used > len(c.n) {
		return c.rehash(errp)
	}
	return true
}

// rehash doubles a growing table.
func (c *solutionCache) rehash(errp *error) bool {
	keys, n := c.keys, c.n
	c.bits++
	if !c.charge(errp) {
		return false
	}
	c.keys, c.n, c.used = make([]ID, len(c.vary)<<c.bits), make([]int64, 1<<c.bits), 0
	if c.words != nil {
		c.words = make([]uint64, 1<<c.bits)
	}
	w := len(c.vary)
	for i := range n {
		if n[i] > 0 && !c.insert(keys[i*w:(i+1)*w], n[i], errp) {
			return false
		}
	}
	return true
}

// flush hands gs entry i's solutions and empties it.
func (c *solutionCache) flush(i int, errp *error) bool {
	n := c.n[i]
	c.n[i] = 0
	w := len(c.vary)
	if c.keeping {
		if c.keepRoom() {
			return c.keep(c.keys[i*w:(i+1)*w], n, errp)
		}
		// No room to keep more: the kept solutions go on sorted now, the rest as they come.
		c.keeping = false
		if !c.feedSorted(errp) {
			return false
		}
		c.sortPos = nil
	}
	for j, s := range c.vary {
		c.row[s] = c.keys[i*w+j]
	}
	if c.sink != nil {
		return c.sink(c.row, n)
	}
	if !c.gs.add(c.row, n, errp) {
		return false
	}
	if c.sortPos != nil && len(c.gs.order) >= c.sortAfter() {
		c.keeping = true
		c.e.sortedFeeds++
	}
	return true
}

// flushAll hands gs every entry's solutions (none: a nil cache, made by no solution).
func (c *solutionCache) flushAll(errp *error) bool {
	if c == nil {
		return true
	}
	for i := range c.n {
		if c.n[i] > 0 && !c.flush(i, errp) {
			return false
		}
	}
	if c.keptN > 0 {
		return c.feedSorted(errp)
	}
	return true
}

// optStarEmit hands gs the solutions of one subject from member i on: each passing row of a member whose object
// is read in turn (an absent OPTIONAL's member stays unbound), n solutions for each (the other members' product),
// those that pass the late conjuncts.
func (e *evaluator) optStarEmit(ms []starMember, i int, row []ID, n int64, late []algebra.Expr, pend *solutionCache, errp *error) bool {
	for i < len(ms) && (!ms[i].read || ms[i].absent) {
		i++
	}
	if i == len(ms) {
		// A subject's solutions are the product of its read members' rows: checked here, not per subject only.
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return false
			}
		}
		if len(late) > 0 && !e.testAll(late, row, errp) {
			return *errp == nil
		}
		return pend.add(row, n, errp)
	}
	m := &ms[i]
	if m.n == 1 { // the common case: its one passing row
		row[m.p.os] = m.first
		return e.optStarEmit(ms, i+1, row, n, late, pend, errp)
	}
	for k := m.start; k < m.end; k++ {
		o := m.p.rows[k][2]
		if !e.passes(m.p, o, row, errp) {
			if *errp != nil {
				return false
			}
			continue
		}
		row[m.p.os] = o
		if !e.optStarEmit(ms, i+1, row, n, late, pend, errp) {
			return false
		}
	}
	return true
}

// memberRun reads m's rows of subject s (from where its last subject's ended) and returns how many pass.
func (e *evaluator) memberRun(m *starMember, s ID, row []ID, errp *error) int64 {
	m.start = seekSubject(m.p.rows, m.end, s)
	m.n, m.first, m.end = e.passFirst(m.p, m.start, s, row, errp)
	return m.n
}

// passFirst is passRun also returning the first passing object (0: none).
func (e *evaluator) passFirst(p *patRows, k int, s ID, row []ID, errp *error) (int64, ID, int) {
	r := p.rows
	var c int64
	var first ID
	for ; k < len(r) && r[k][0] == s; k++ {
		if p.memo == nil || e.passes(p, r[k][2], row, errp) {
			if c == 0 {
				first = r[k][2]
			}
			c++
		}
	}
	return c, first, k
}

// seekSubject returns the first index from k on of rows (in subject order) whose subject is not below s: by steps
// that double, then a binary search between the last two, so a subject near k costs a few reads and a pattern with
// many more rows than the lead's (dc:publisher of every offer, against the reviews) skips far in a few more.
func seekSubject(rows []index.Row, k int, s ID) int {
	if k >= len(rows) || rows[k][0] >= s {
		return k
	}
	lo, step := k, 1 // rows[lo] is below s
	for lo+step < len(rows) && rows[lo+step][0] < s {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(rows))
	return lo + 1 + sort.Search(hi-lo-1, func(i int) bool { return rows[lo+1+i][0] >= s })
}
