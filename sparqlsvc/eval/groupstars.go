package eval

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY on nothing whose aggregates read no variable (COUNT(*)) over a star of patterns on one subject
// (?s <p1> ?o1 ; <p2> ?o2 …, FILTERs each reading one object), or over a UNION of such stars, needs only how many
// solutions there are. groupRuns counts one pattern so; groupStars extends it to stars: a subject's solutions are
// the product of its passing rows of each pattern, so the patterns' rows are read in subject order (the graph's
// kept copies, whole or narrowed by the filter's value ranges, as the join reads them) in one merge loop, each
// filter tested once per object id met (a small table of recent ids), and no solution is ever bound. v55h's
// price/days branch emitted 527 000 solutions through the join and the filters only to count them.

// countPat is one pattern "?s <p> ?o" of a counted star, with the filter conjuncts that read its object alone.
type countPat struct {
	p     rdf.Term
	ss    int // the star's subject's slot
	os    int
	conds []algebra.Expr
	// key names the pattern's narrowed rows among the query's (narrowedScan): the pattern and the FILTER's
	// expressions, with a negative length no BGP's join uses.
	key narrowKey
}

// patRows is one pattern's rows in subject order (SPO rows) with the conjuncts left to test on them and a table of
// the objects tested (passMemo).
type patRows struct {
	rows  []index.Row
	os    int
	conds []algebra.Expr
	memo  []passMemo
	// member, when not nil, holds the only objects that pass: the subjects of a tag pattern "?o <p> <c>" over
	// this pattern's object (groupStarKeys).
	member *idSet
}

// passMemo is one slot of patRows' table: an object id (0: empty; objects are never 0) and whether it passed.
type passMemo struct {
	id   ID
	pass bool
}

// passMemoBits: the table of tested objects has 1<<passMemoBits slots, enough for deliveryDays' 20 values and a
// cache-resident share of prices, which repeat within a vendor's offers.
const passMemoBits = 12

// groupStars counts x's operand when it is such a star or UNION of stars and hands gs the count; handled is false
// when it is not (the caller evaluates it as usual), ok is false when evaluation must stop. A single pattern is
// groupRuns' (which may leave it to a split scan on purpose).
func (e *evaluator) groupStars(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	if e.outerGraph() == nil {
		return false, false
	}
	if len(x.Keys) != 0 {
		return e.groupStarKeys(x, in, gs, errp)
	}
	if !e.groupReads(x).empty() {
		return false, false
	}
	stars, ok := e.countStars(x.Op, in, nil)
	if !ok || (len(stars) == 1 && len(stars[0]) == 1) {
		return false, false
	}
	row := slices.Clone(in)
	// Every star's rows before any counting: a copy without room in the budget leaves the whole operand to the
	// join.
	reads := make([][]patRows, len(stars))
	for i, st := range stars {
		r, ok := e.starRows(st, row, errp)
		if *errp != nil {
			return true, false
		}
		if !ok {
			return false, false
		}
		reads[i] = r
	}
	var n int64
	for _, r := range reads {
		c, ok := e.countRows(r, row, errp)
		if !ok {
			return true, false
		}
		n += c
	}
	if n > 0 && !gs.add(row, n, errp) {
		return true, false
	}
	return true, true
}

// countStars appends to out the stars op is: a BGP or a FILTER over one (the star's patterns), or a UNION of them;
// ok is false for any other form.
func (e *evaluator) countStars(op algebra.Op, in []ID, out [][]countPat) ([][]countPat, bool) {
	switch x := op.(type) {
	case *algebra.Union:
		out, ok := e.countStars(x.Left, in, out)
		if !ok {
			return nil, false
		}
		return e.countStars(x.Right, in, out)
	case *algebra.Filter:
		b, ok := x.Op.(*algebra.BGP)
		if !ok {
			return nil, false
		}
		var conds []algebra.Expr
		for _, f := range x.Exprs {
			conds = appendConjuncts(conds, f)
		}
		st, ok := e.countStar(b, conds, in)
		for i := range st {
			st[i].key.filters, st[i].key.nf = unsafe.SliceData(x.Exprs), -1-len(x.Exprs)
		}
		if !ok {
			return nil, false
		}
		return append(out, st), true
	case *algebra.BGP:
		st, ok := e.countStar(x, nil, in)
		if !ok {
			return nil, false
		}
		return append(out, st), true
	}
	return nil, false
}

// countStar returns b's patterns when b is a star "?s <p> ?o" on one unbound subject, with constant predicates and
// distinct unbound object variables, and each conjunct reads one object alone (and no EXISTS or per-call function),
// so that a subject's solutions are the product of its passing rows of each pattern.
func (e *evaluator) countStar(b *algebra.BGP, conds []algebra.Expr, in []ID) ([]countPat, bool) {
	return e.countStarOf(b, nil, conds, in)
}

// countStarOf is countStar over the triples of b at idx (all of them when idx is nil).
func (e *evaluator) countStarOf(b *algebra.BGP, idx []int, conds []algebra.Expr, in []ID) ([]countPat, bool) {
	if idx == nil {
		idx = make([]int, len(b.Triples))
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) == 0 || !b.Triples[idx[0]].S.IsVar() {
		return nil, false
	}
	s := b.Triples[idx[0]].S.Var
	ss := e.slot(s)
	if in[ss] != 0 {
		return nil, false
	}
	pats := make([]countPat, len(idx))
	for i, ti := range idx {
		t := b.Triples[ti]
		if !t.S.IsVar() || t.S.Var != s || t.P.IsVar() || !t.O.IsVar() || t.O.Var == s {
			return nil, false
		}
		os := e.slot(t.O.Var)
		if in[os] != 0 {
			return nil, false
		}
		for _, q := range pats[:i] {
			if q.os == os {
				return nil, false
			}
		}
		pats[i] = countPat{p: t.P.Term, ss: ss, os: os, key: narrowKey{ts: &b.Triples[ti], g: e.active[0].g}}
	}
next:
	for _, c := range conds {
		if !pushable(c) {
			return nil, false
		}
		o, one := e.varsOfExpr(c).only()
		for i := range pats {
			if one && pats[i].os == o {
				pats[i].conds = append(pats[i].conds, c)
				continue next
			}
		}
		return nil, false
	}
	return pats, true
}

// starRows reads each pattern of st in subject order: the rows its conjuncts' value ranges keep (valueRanges),
// sorted by subject from the graph's kept copies, with only the conjuncts those ranges did not prove left to
// test, or all its rows (subjectScan). A pattern without rows gives the star no rows at all (empty result). ok is
// false when a copy has no room in the query's budget.
func (e *evaluator) starRows(st []countPat, row []ID, errp *error) ([]patRows, bool) {
	g := e.active[0].g
	out := make([]patRows, len(st))
	for i, p := range st {
		pid := e.constID(p.p)
		if pid == 0 {
			return nil, true
		}
		all := g.Match(0, pid, 0)
		if all.Len() == 0 {
			return nil, true
		}
		pr := patRows{os: p.os, conds: p.conds}
		if len(p.conds) > 0 {
			// The narrowed rows once per query, as the join's (a GROUP evaluated per outer solution reads them
			// again without being charged again).
			m, rest := e.narrowedScan(p.key, pid, p.os, p.conds, row, errp)
			if *errp != nil {
				return nil, false
			}
			if m.Rows != nil {
				if len(m.Rows) == 0 {
					return nil, true
				}
				pr.rows = m.Rows
				if rest != nil {
					pr.conds = rest
				}
			}
		}
		if pr.rows == nil {
			m := e.subjectScan(g, pid)
			if m.Rows == nil {
				return nil, false
			}
			pr.rows = m.Rows
		}
		if len(pr.conds) > 0 {
			pr.memo = make([]passMemo, 1<<passMemoBits)
		}
		out[i] = pr
	}
	return out, true
}

// countRows returns the solutions of a star whose patterns' rows are ps: over the subjects of the pattern with the
// fewest rows, the product of each pattern's passing rows of that subject. ok is false when evaluation must stop.
func (e *evaluator) countRows(ps []patRows, row []ID, errp *error) (int64, bool) {
	if len(ps) == 0 {
		return 0, true // a pattern had no rows
	}
	d := 0
	for i := range ps {
		if len(ps[i].rows) < len(ps[d].rows) {
			d = i
		}
	}
	pos := make([]int, len(ps))
	lead := ps[d].rows
	var total int64
	for j := 0; j < len(lead); {
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return 0, false
			}
		}
		s := lead[j][0]
		prod, nj := e.passRun(&ps[d], j, s, row, errp)
		j = nj
		for i := range ps {
			if prod == 0 || *errp != nil {
				break
			}
			if i == d {
				continue
			}
			var c int64
			c, pos[i] = e.passRun(&ps[i], skipBelow(ps[i].rows, pos[i], s), s, row, errp)
			prod *= c
		}
		if *errp != nil {
			return 0, false
		}
		total += prod
	}
	return total, true
}

// mergeStar reads ps in subject order as countRows does, led by the pattern with the fewest rows, and calls each
// for every subject whose patterns other than those at keyed all have passing rows: prod is the product of their
// passing rows, and runs[i] the subject's rows (from, to) of ps[keyed[i]], not tested. false when evaluation must
// stop or each says so.
func (e *evaluator) mergeStar(ps []patRows, keyed []int, row []ID, errp *error, each func(s ID, prod int64, runs [][2]int) bool) bool {
	if len(ps) == 0 {
		return true // a pattern had no rows
	}
	d := starLead(ps)
	return e.mergeStarRange(ps, d, keyed, 0, len(ps[d].rows), row, errp, each)
}

// starLead is the index of ps's pattern with the fewest rows, which mergeStar reads in turn.
func starLead(ps []patRows) int {
	d := 0
	for i := range ps {
		if len(ps[i].rows) < len(ps[d].rows) {
			d = i
		}
	}
	return d
}

// mergeStarRange is mergeStar over the lead pattern ps[d]'s rows from…to, from and to each the first row of a
// subject (or the end): the other patterns' rows are found from from's subject by a binary search, so that a
// worker reading the last half does not walk the first.
func (e *evaluator) mergeStarRange(ps []patRows, d int, keyed []int, from, to int, row []ID, errp *error, each func(s ID, prod int64, runs [][2]int) bool) bool {
	runEnd := func(r []index.Row, k int, s ID) int {
		for k < len(r) && r[k][0] == s {
			k++
		}
		return k
	}
	pos := make([]int, len(ps))
	runs := make([][2]int, len(keyed))
	lead := ps[d].rows[:to]
	if from > 0 && from < to {
		s0 := lead[from][0]
		for i := range ps {
			pos[i], _ = slices.BinarySearchFunc(ps[i].rows, s0, func(r index.Row, s ID) int { return cmp.Compare(r[0], s) })
		}
	}
	for j := from; j < len(lead); {
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return false
			}
		}
		s := lead[j][0]
		prod := int64(1)
		if slices.Contains(keyed, d) {
			j = runEnd(lead, j, s)
		} else {
			prod, j = e.passRun(&ps[d], j, s, row, errp)
		}
		for i := range ps {
			if prod == 0 || *errp != nil {
				break
			}
			if i != d && !slices.Contains(keyed, i) {
				var c int64
				c, pos[i] = e.passRun(&ps[i], skipBelow(ps[i].rows, pos[i], s), s, row, errp)
				prod *= c
			}
		}
		if *errp != nil {
			return false
		}
		if prod == 0 {
			continue
		}
		for n, i := range keyed {
			k := skipBelow(ps[i].rows, pos[i], s)
			pos[i] = runEnd(ps[i].rows, k, s)
			runs[n] = [2]int{k, pos[i]}
		}
		if !each(s, prod, runs) {
			return false
		}
	}
	return true
}

// skipBelow returns the first of r's rows from k on whose subject is not below s.
func skipBelow(r []index.Row, k int, s ID) int {
	for k < len(r) && r[k][0] < s {
		k++
	}
	return k
}

// passRun counts p's rows from k on whose subject is s and whose object passes p's conjuncts (an error fails
// the row), and returns the index after them.
func (e *evaluator) passRun(p *patRows, k int, s ID, row []ID, errp *error) (int64, int) {
	r := p.rows
	var c int64
	for ; k < len(r) && r[k][0] == s; k++ {
		if p.memo == nil {
			c++
			continue
		}
		o := r[k][2]
		m := p.memoSlot(o)
		if m.id != o {
			e.testObject(p, m, o, row, errp)
		}
		if m.pass {
			c++
		}
	}
	return c, k
}

// memoSlot is o's slot in p's table of objects tested.
func (p *patRows) memoSlot(o ID) *passMemo {
	return &p.memo[(uint64(o)*0x9E3779B97F4A7C15)>>(64-passMemoBits)]
}

// passes reports whether the object o of one of p's rows passes p's conjuncts (an error fails the row), tested
// once per object in p's table.
func (e *evaluator) passes(p *patRows, o ID, row []ID, errp *error) bool {
	if p.memo == nil {
		return true
	}
	m := p.memoSlot(o)
	if m.id != o {
		e.testObject(p, m, o, row, errp)
	}
	return m.pass
}

// testObject tests p's conjuncts on the object o and notes the answer in m, its slot in p's table.
func (e *evaluator) testObject(p *patRows, m *passMemo, o ID, row []ID, errp *error) {
	if p.member != nil && !p.member.has(o) {
		m.id, m.pass = o, false
		return
	}
	keep := row[p.os]
	row[p.os] = o
	m.id, m.pass = o, e.testAll(p.conds, row, errp)
	row[p.os] = keep
}
