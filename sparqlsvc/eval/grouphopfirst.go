package eval

import (
	"cmp"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY over a star joined through a hop whose FILTER keeps few values of the hop (h97: `?review rev:reviewer
// ?person ; dc:publisher ?site . ?person bsbm:country ?country FILTER(?country IN (…)) FILTER(?site NOT IN (…))`,
// COUNT per country and site) was the join led by the hop: ~4 000 persons from three countries, the reviews of
// each by POS, then each review's publisher probed by subject: ~82 000 probes in no order at 10 M, each a cache
// miss or two in SPO (or in the predicate's copy by subject), two thirds of its ~60 ms of CPU. groupHop, which reads
// the whole star in subject order, declines it: ~20 reviews per reviewer (hopPays), and it would read every review.
//
// hopFirst starts from R as the join does, but reads the star in subject order: R (with its conjuncts) is evaluated
// once with J unbound; the star's pattern whose object is J (the link) is read by POS per distinct value of J, in
// ascending order of the values; the subjects gathered (with the value each came from) are sorted, and the star's
// other patterns are read for them in ascending subject order, each read a short step after the previous one. The
// star's conjuncts are tested on each of its solutions, R's were on R's, and each star solution goes to the group
// once per R solution with its value of J.
//
// Why it is exact: the split is groupHop's (hopSplit, without its rules of cost): the BGP is S ∪ R, J = vars(S) ∩
// vars(R) is one variable, the link's object, and every FILTER conjunct reads only S's or only R's variables. A
// solution of the BGP is a pair of compatible solutions μ of S and ν of R, once per pair (a person with two
// countries counts each review twice, one with none not at all). The ν are R's solutions, each as often as R has
// it; for each ν the compatible μ are the star's solutions with J = ν(J), which are read once per distinct value
// and joined with every ν of that value. Only the order in which solutions reach the group differs from the join:
// every aggregate must be a COUNT, which no order changes.

// hopFirst is a group's operand seen by groupHopFirst: groupHop's split, the star's subject, its link and its
// other patterns, the star's conjuncts, and R (with its conjuncts) to evaluate first.
type hopFirst struct {
	h       *hopGroup
	ss, js  int            // the star's subject and J's slots
	link    algebra.Triple // the star's pattern whose object is J
	members []algebra.Triple
	conds   []algebra.Expr // the star's conjuncts
}

// hopFirstOf returns x's hopFirst, made once per query, or nil when x is not of that shape.
func (e *evaluator) hopFirstOf(x *algebra.Group) *hopFirst {
	return madeOnce(&e.hopFirsts, x, func() *hopFirst { return e.makeHopFirst(x) })
}

// makeHopFirst is hopFirstOf's work: the shape the comment above proves exact, else nil.
func (e *evaluator) makeHopFirst(x *algebra.Group) *hopFirst {
	for _, a := range x.Aggregates {
		if a.Aggregate.Name != "COUNT" {
			return nil
		}
	}
	h := e.makeHopGroup(x, false)
	if h == nil || len(h.js) != 1 {
		return nil
	}
	f := &hopFirst{h: h, js: h.js[0], ss: -1}
	star := h.star
	if fl, ok := star.(*algebra.Filter); ok {
		for _, c := range fl.Exprs {
			f.conds = appendConjuncts(f.conds, c)
		}
		star = fl.Op
	}
	b, ok := star.(*algebra.BGP)
	if !ok {
		return nil
	}
	seen := varset{}
	links := 0
	for _, t := range b.Triples {
		if !t.S.IsVar() || t.P.IsVar() || !t.O.IsVar() {
			return nil
		}
		o := e.slot(t.O.Var)
		f.ss = e.slot(t.S.Var)
		if o == f.ss || seen.has(o) {
			return nil // an object shared by two patterns, or the subject: a join within the star
		}
		seen = seen.with(o)
		if o == f.js {
			f.link = t
			links++
			continue
		}
		f.members = append(f.members, t)
	}
	if links != 1 {
		return nil
	}
	// R must narrow J's values, by a FILTER or by a constant (restNarrows): an R of every person, or every
	// product's producer (h75), is left to the join or groupHop without being evaluated.
	if _, filtered := h.rest.(*algebra.Filter); !filtered {
		rest, ok := h.rest.(*algebra.BGP)
		if !ok || !e.restNarrows(b.Triples, rest.Triples, h.j) {
			return nil
		}
	}
	f.members = append(f.members, h.tags...) // constant objects: a test per subject
	return f
}

// hopFirstShare: hopFirst is taken when R's solutions number at most 1/hopFirstShare of the values of J that the
// link holds (its rows over their fan-out per object). Past that R narrows the star little, and the planner's
// join, or groupHop, which reads the whole star in order, is left to it; R is evaluated until it passes the bound.
const hopFirstShare = 2

// ledByR reports whether the join of x's operand (the order filteredBGP would take, with the FILTER's conjuncts)
// starts from a pattern of R: it then reads what hopFirst reads, the star's rows of R's values, but probes the
// star's other patterns for each subject in no order, so hopFirst is taken however many values R keeps.
func (e *evaluator) ledByR(x *algebra.Group, f *hopFirst, in []ID) bool {
	op := x.Op
	var filters []algebra.Expr
	if fl, ok := op.(*algebra.Filter); ok {
		op, filters = fl.Op, fl.Exprs
	}
	b, ok := op.(*algebra.BGP)
	if !ok {
		return false
	}
	_, p := e.preparedBGP(b, filters, e.boundSet(in))
	if p.hash != nil || len(p.order) == 0 {
		return false
	}
	first := b.Triples[p.order[0]]
	return !first.S.IsVar() || e.slot(first.S.Var) != f.ss
}

// groupHopFirst groups x's operand into gs as the comment above says when it has that shape; handled is false when
// it does not, or R keeps too many values (the caller evaluates it as usual, gs untouched); ok is false when
// evaluation must stop.
func (e *evaluator) groupHopFirst(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	g := e.outerGraph()
	if g == nil {
		return false, false
	}
	f := e.hopFirstOf(x)
	if f == nil {
		return false, false
	}
	h := f.h
	for i, v := range in {
		if v != 0 && h.vars.has(i) {
			return false, false
		}
	}
	link := e.constID(f.link.P.Term)
	if link == 0 {
		return false, false
	}
	type member struct {
		p, o  ID
		oslot int // -1: a constant object
		cur   index.Cursor
		rows  []index.Row // p's rows in subject order, or nil (memberRows)
		at    int         // where the previous subject's rows start in rows
		m     index.Matches
	}
	ms := make([]member, len(f.members))
	for i, t := range f.members {
		ms[i] = member{p: e.constID(t.P.Term), oslot: -1}
		if !t.O.IsVar() {
			ms[i].o = e.constID(t.O.Term)
			if ms[i].o == 0 {
				return false, false
			}
		} else {
			ms[i].oslot = e.slot(t.O.Var)
		}
		if ms[i].p == 0 {
			return false, false
		}
	}
	fan := g.ObjectFanout(link)
	if fan <= 0 {
		return false, false
	}
	limit := int(float64(g.Match(0, link, 0).Len()) / fan / hopFirstShare)

	// R's solutions: J's value and R's other variables', as many as R has, up to the bound unless the join
	// would start from R too (ledByR).
	w := len(h.rs)
	var jv, sols []ID
	rrow := slices.Clone(in)
	over := false
	held := 0
	if !e.exec(h.rest, rrow, func(r []ID) bool {
		if len(jv) == limit && !e.ledByR(x, f, in) {
			over = true
			return false
		}
		if len(jv)-held == 1024 {
			if err := e.holdBytes(int64(4 * (1 + w) * (len(jv) - held))); err != nil {
				*errp = err
				return false
			}
			held = len(jv)
		}
		jv = append(jv, r[f.js])
		for _, s := range h.rs {
			sols = append(sols, r[s])
		}
		return true
	}, errp) && !over {
		return true, false
	}
	if over {
		return false, false
	}
	if err := e.holdBytes(int64(4 * (1 + w) * (len(jv) - held))); err != nil {
		*errp = err
		return true, false
	}
	if len(jv) == 0 {
		return true, true
	}
	// R's solutions by J's value: vals are the distinct values ascending, spans[k] where value k's start in byJ.
	// Sorted as J's value above each solution's number, by sortHigh32's radix passes: a comparison sort of h122's
	// 23 000 products was a sixth of its CPU.
	if err := e.holdBytes(int64(16 * len(jv))); err != nil { // the key and its place in the sort
		*errp = err
		return true, false
	}
	keyed := make([]uint64, len(jv))
	for i, v := range jv {
		keyed[i] = uint64(v)<<32 | uint64(i)
	}
	keyed = sortHigh32(keyed)
	byJ := make([]int32, len(jv))
	for i, k := range keyed {
		byJ[i] = int32(uint32(k))
	}
	var vals []ID
	var spans []int32
	for i, r := range byJ {
		if i == 0 || jv[r] != jv[byJ[i-1]] {
			vals = append(vals, jv[r])
			spans = append(spans, int32(i))
		}
	}
	spans = append(spans, int32(len(byJ)))

	// The link's subjects of each value, read by POS in ascending order of the values, each with its value's
	// number below it, then sorted by subject.
	var pairs []uint64
	var cur index.Cursor
	for k, v := range vals {
		m := g.MatchFrom(&cur, 0, link, v)
		if err := e.holdBytes(int64(16 * m.Len())); err != nil { // the pair and its place in the sort
			*errp = err
			return true, false
		}
		for i := range m.Len() {
			s, _, _ := m.At(i)
			pairs = append(pairs, uint64(s)<<32|uint64(k))
		}
	}
	pairs = sortHigh32(pairs)
	for i := range ms {
		ms[i].rows = e.memberRows(g, ms[i].p, len(pairs))
	}

	row := slices.Clone(in)
	memo := e.newCondMemo(f.conds)
	// Solutions equal in what the group reads are counted together before the group takes them (solutionCache,
	// as groupHop's): every variable of the operand is bound in each solution, so COUNT(?v) of one reads nothing
	// but that. h97's 82 000 solutions go to 21 groups of (country, site).
	reads := e.groupReadsSkipping(x, func(ag *algebra.Aggregate) bool {
		v, isVar := ag.Expr.(algebra.Var)
		return isVar && ag.Name == "COUNT" && !ag.Distinct && h.vars.has(e.slot(v))
	})
	var vary []int
	for i := range e.nvars {
		if reads.has(i) && h.vars.has(i) {
			vary = append(vary, i)
		}
	}
	var pend *solutionCache
	direct := reads.over
	added := 0
	add := func(row []ID) bool {
		if direct {
			return gs.add(row, 1, errp)
		}
		if pend == nil {
			// Made with the first solution: the variables it does not vary keep their values, bound as the
			// group's COUNTs of them see them in every solution.
			if pend = newSolutionCache(e, gs, vary, row, errp); pend == nil {
				return false
			}
		}
		// Where a solution of every few is new to the table (h122's review dates under MONTH(?d)), the table
		// only adds a probe to the group's: its solutions go to the group and the rest go there directly.
		if added++; added == cmp.Or(e.opt.hopCacheJudged, cacheJudged) && cacheShare*pend.used > added {
			if !pend.flushAll(errp) {
				return false
			}
			pend, direct = nil, true
			return gs.add(row, 1, errp)
		}
		return pend.add(row, 1, errp)
	}
	var bind func(i int, jk int) bool
	bind = func(i int, jk int) bool {
		if i == len(ms) {
			for ci, c := range f.conds {
				if !memo.test(e, ci, c, row, errp) {
					return *errp == nil
				}
			}
			for r := spans[jk]; r < spans[jk+1]; r++ {
				sol := sols[int(byJ[r])*w:][:w]
				for k, s := range h.rs {
					row[s] = sol[k]
				}
				if !add(row) {
					return false
				}
			}
			return true
		}
		mb := &ms[i]
		if mb.oslot < 0 {
			return bind(i+1, jk)
		}
		for r := range mb.m.Len() {
			_, _, o := mb.m.At(r)
			row[mb.oslot] = o
			if !bind(i+1, jk) {
				return false
			}
		}
		row[mb.oslot] = 0
		return true
	}
	var prev ID
	has := false // every member has rows for prev
	for n, pr := range pairs {
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return true, false
			}
		}
		s, jk := ID(pr>>32), int(uint32(pr))
		if n == 0 || s != prev {
			prev, has = s, true
			for i := range ms {
				mb := &ms[i]
				if mb.rows != nil {
					mb.m = seekRows(mb.rows, &mb.at, s, mb.o)
				} else {
					mb.m = g.MatchFrom(&mb.cur, s, mb.p, mb.o)
				}
				if mb.m.Len() == 0 {
					has = false
					break
				}
			}
		}
		if !has {
			continue
		}
		row[f.ss], row[f.js] = s, vals[jk]
		if !bind(0, jk) {
			return true, false
		}
	}
	return true, pend.flushAll(errp)
}

// cacheJudged is the solutions after which groupHopFirst judges its table of solutions, and cacheShare the
// fewest solutions per entry for which it keeps it.
const (
	cacheJudged = 4096
	cacheShare  = 4
)

// memberRows returns p's rows in g sorted by subject, for reading n subjects of a star in ascending order, or nil
// (the subjects are then read in SPO, each a step after the previous one). The step in SPO passes the subject's
// other rows, and at 10 M triples each of h97's 82 000 reviews was a cache miss or two there; in p's copy the
// subjects read lie a few rows apart, read as a stream. A copy the graph keeps is read at no cost; one to sort
// pays when the subjects number 1/16 of p's rows, subjectIndex's rule: about what sorting p's rows costs.
func (e *evaluator) memberRows(g *index.Graph, p ID, n int) []index.Row {
	k := fanoutKey{g, p}
	if sub, ok := e.bySubject[k]; ok {
		return sub.Rows(index.SPO)
	}
	rows := int64(g.Match(0, p, 0).Len())
	if sub := g.KeptBySubject(p); sub != nil && e.charge(12*rows+index.SubjectTableBytes(int(rows))) {
		e.bySubject[k] = sub
		return sub.Rows(index.SPO)
	}
	if int64(n) < rows/16 {
		return nil
	}
	return e.subjectScan(g, p).Rows
}

// sortHigh32 sorts a by its upper 32 bits, stably (radixWords from bit 32), and returns the sorted slice (a or a
// scratch copy).
func sortHigh32(a []uint64) []uint64 {
	if len(a) < 256 {
		slices.SortStableFunc(a, func(x, y uint64) int { return cmp.Compare(x>>32, y>>32) })
		return a
	}
	return radixWords(a, make([]uint64, len(a)), 32)
}

// radixWords sorts a by its bits from bit up, stably, through tmp (as long as a): passes of an 11-bit
// least-significant-digit radix sort, a pass whose digit is the same for every entry skipped (ids' high bits are
// mostly zero). It returns the sorted slice (a or tmp).
func radixWords(a, tmp []uint64, bit uint) []uint64 {
	var count [1 << 11]int32
	for shift := bit; shift < 64; shift += 11 {
		clear(count[:])
		for _, v := range a {
			count[v>>shift&0x7ff]++
		}
		if int(count[a[0]>>shift&0x7ff]) == len(a) {
			continue
		}
		sum := int32(0)
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, v := range a {
			d := v >> shift & 0x7ff
			tmp[count[d]] = v
			count[d]++
		}
		a, tmp = tmp, a
	}
	return a
}

// seekRows returns the rows of subject s (of object o too, when not 0) in rows, sorted by subject, searching from
// *at, which moves to the first row of s: the subjects asked ascend, a few rows apart, so a step or two forward
// finds most; past runStep rows the search gallops.
func seekRows(rows []index.Row, at *int, s, o ID) index.Matches {
	lo := *at
	for n := 0; lo < len(rows) && rows[lo][0] < s; n++ {
		if n == runStep {
			lo = gallopTo(rows, lo, s)
			break
		}
		lo++
	}
	*at = lo
	hi := lo
	for hi < len(rows) && rows[hi][0] == s {
		hi++
	}
	if o != 0 {
		for lo < hi && rows[lo][2] < o {
			lo++
		}
		end := lo
		for end < hi && rows[end][2] == o {
			end++
		}
		hi = end
	}
	return index.Matches{Rows: rows[lo:hi], Perm: index.SPO}
}

// runStep is how many rows seekRows steps forward one by one before it gallops.
const runStep = 8

// condMemo keeps, for each conjunct reading one variable, its verdicts for the ids of that variable met lately: a
// conjunct over the star's objects (h97's `?site NOT IN (…)`) meets a few hundred sites over 82 000 reviews. A
// pushable conjunct is a function of its variables' values, so its verdict for an id is the same on every row.
// A table of condSlots entries per conjunct, indexed by a hash of the id, each holding the last id met there: no
// map to grow or charge, and an id that loses its entry is tested again.
//
// A comparison that its site answers from the ids (a date against a constant, DAY(?d) against an integer: h122's
// window over 108 000 reviews with distinct dates, which no table of recent ids helps) is answered there directly,
// without the general test's lookups of its memo, operator and site, a third of h122's CPU.
type condMemo struct {
	slots []int // the one variable's slot per conjunct, -1: not memoised
	ids   [][]ID
	pass  [][]bool
	sites []*cmpSite // the comparison's site per conjunct, nil: not a comparison
}

// condSlots is the entries of a condMemo's table per conjunct, 1<<condBits.
const (
	condBits  = 10
	condSlots = 1 << condBits
)

func (e *evaluator) newCondMemo(conds []algebra.Expr) *condMemo {
	m := &condMemo{slots: make([]int, len(conds)), ids: make([][]ID, len(conds)), pass: make([][]bool, len(conds)),
		sites: make([]*cmpSite, len(conds))}
	for i, c := range conds {
		m.slots[i] = -1
		if call, ok := c.(*algebra.Call); ok && len(call.Args) == 2 && isComparison(call.Func) {
			m.sites[i] = e.cmpSiteOf(call)
		}
		if s, one := e.varsOfExpr(c).only(); one && pushable(c) {
			m.slots[i], m.ids[i], m.pass[i] = s, make([]ID, condSlots), make([]bool, condSlots)
		}
	}
	return m
}

// test is e.test(c, row), answered from the memo when it has c's verdict for the row's id.
func (m *condMemo) test(e *evaluator, i int, c algebra.Expr, row []ID, errp *error) bool {
	if st := m.sites[i]; st != nil {
		if r, ok := e.compareAt(st, row); ok {
			return r
		}
	}
	s := m.slots[i]
	if s < 0 || row[s] == 0 || isScratch(row[s]) {
		return e.test(c, row, errp)
	}
	id := row[s]
	k := id * 0x9e3779b1 >> (32 - condBits)
	if m.ids[i][k] == id {
		return m.pass[i][k]
	}
	v := e.test(c, row, errp)
	if *errp == nil {
		m.ids[i][k], m.pass[i][k] = id, v
	}
	return v
}
