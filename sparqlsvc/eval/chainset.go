package eval

import (
	mathbits "math/bits"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A trial's pattern is often a star of two patterns with a hop from the second one's object, keyed on the first
// one's object and the hop's object: { ?review reviewFor ?product ; reviewer ?who . ?who country ?country } keyed
// on (?product, ?country) (h127, v55i). Evaluated as a join, each of its 290 000 reviews at 10 M probed the
// reviewer's rows by its subject and then the reviewer's country, two searches at random per review on one core
// (~200 ms of CPU). As a set nothing needs the join's order: the star's two predicates are read in subject order
// (each a kept subject-sorted copy, index.Graph.SubjectRows) and merged by subject, and the hop's rows are looked up
// in a table from each hop subject to its rows, built once from the hop's predicate in subject order. Every
// solution of the join comes out once per combination of the subject's rows, as the join gives them: a subject
// without one of the star's predicates, or a hop subject without the hop's predicate, gives none; several values
// give each combination.

// chainShape is a trial's pattern seen as such a chain: "?s a ?x . ?s b ?m . ?m c ?y", keyed on ?x and ?y.
type chainShape struct {
	a, b, c ID  // the predicates: the star's keyed one, the star's linking one, the hop's
	x, y    int // the key slots: a's object and c's object
}

// chainOf returns the chain shape of pattern keyed on slots (two), when it has one: a BGP of three triples with
// constant predicates and four distinct variables in the places above, none of which occurs twice in other places,
// the key variables being exactly ?x and ?y. Only one graph of the index's own dictionary is read so (ownGraph).
func (e *evaluator) chainOf(pattern algebra.Op, slots []int) (chainShape, bool) {
	var no chainShape
	b, ok := pattern.(*algebra.BGP)
	if !ok || len(b.Triples) != 3 || len(slots) != 2 || e.ownGraph() == nil {
		return no, false
	}
	for _, t := range b.Triples {
		if !t.S.IsVar() || t.P.IsVar() || !t.O.IsVar() {
			return no, false
		}
	}
	// The hop is the triple whose subject is another triple's object; the other two share their subject.
	for c := range 3 {
		a, s := (c+1)%3, (c+2)%3
		ta, tb, tc := b.Triples[a], b.Triples[s], b.Triples[c]
		if tb.O.Var != tc.S.Var {
			ta, tb = tb, ta
		}
		if tb.O.Var != tc.S.Var || ta.S.Var != tb.S.Var {
			continue
		}
		vs, vx, vm, vy := e.slot(ta.S.Var), e.slot(ta.O.Var), e.slot(tb.O.Var), e.slot(tc.O.Var)
		if vs == vx || vs == vm || vs == vy || vx == vm || vx == vy || vm == vy {
			return no, false
		}
		if !(slots[0] == vx && slots[1] == vy || slots[0] == vy && slots[1] == vx) {
			return no, false
		}
		pa, pb, pc := e.constID(ta.P.Term), e.constID(tb.P.Term), e.constID(tc.P.Term)
		if pa == 0 || pb == 0 || pc == 0 {
			return no, false // a predicate the data lacks: the join finds nothing at once
		}
		return chainShape{a: pa, b: pb, c: pc, x: vx, y: vy}, true
	}
	return no, false
}

// chainSet fills set, a two-key set (its slots ?x and ?y of a chain, chainOf), with the pairs of the chain's
// solutions: the star's two predicates merged by subject, the hop's rows found through a table of its subjects
// (subjectFirsts). The pairs are collected in a slice, sorted and made unique (sortPairs) rather than put in the set's
// map one by one: h127's 290 000 inserts into a map of 200 000 pairs at random were half of the set's CPU, and a
// lookup by binary search costs about what the map's did. handled is false when pattern is not such a chain or
// the rows it would read exceed what the trial may spend (trialStretch times its budget; the caller then evaluates
// the pattern as a join, which the watch ends as before) or the query's budget has no room for the copies; tooBig
// when the pairs pass limit or the query's budget (the trial then ends, as a set too large does). The work is
// counted as a trial's (starCheck); *errp is set when the trial is past its end.
func (e *evaluator) chainSet(pattern algebra.Op, set *existsSet, limit int64, errp *error) (handled, tooBig bool) {
	st, ok := e.chainOf(pattern, set.slots)
	if !ok {
		return false, false
	}
	g := e.active[0].g
	na, nb, nc := g.Match(0, st.a, 0).Len(), g.Match(0, st.b, 0).Len(), g.Match(0, st.c, 0).Len()
	// The work counted below: the three predicates' rows and a pair per subject of the star (at least).
	if e.trial != nil && float64(na+nb+nc+min(na, nb)) > trialStretch*float64(e.trial.budget) {
		return false, false
	}
	set.two = nil
	set.pairs = []uint64{}
	if na == 0 || nb == 0 || nc == 0 {
		return true, false // no solution
	}
	hop := e.subjectScan(g, st.c)
	ra := e.subjectScan(g, st.a)
	rb := e.subjectScan(g, st.b)
	if hop.Len() == 0 || ra.Len() == 0 || rb.Len() == 0 {
		set.two, set.pairs = map[uint64]struct{}{}, nil
		return false, false
	}
	var ht subjectFirsts
	cost := ht.build(hop.Rows)
	if !e.charge(cost) {
		set.two, set.pairs = map[uint64]struct{}{}, nil
		return false, false
	}
	defer func() { e.bytes -= cost }()
	if !e.starCheck(len(hop.Rows), errp) {
		return true, false
	}
	e.chainSets++
	xHigh := st.x == set.slots[0] // the pair's high word is the lower slot's (pairKey)
	// As many pairs as the star has subjects with both predicates, when they are single-valued: grown by append,
	// h127's 290 000 pairs were copied a dozen times over (a sixth of the query's CPU).
	// Without room for them, the slice grows as it fills (charged per block below).
	var pairs []uint64
	charged := int64(0)
	if want := int64(min(na, nb)) * 8; want <= limit && e.charge(want) {
		pairs, charged = make([]uint64, 0, min(na, nb)), want
	}
	defer func() { e.bytes -= charged }()
	as, bs, cs := ra.Rows, rb.Rows, hop.Rows
	i, j, n := 0, 0, 0
	for i < len(as) && j < len(bs) {
		if n++; n%starScanRows == 0 {
			if !e.starCheck(starScanRows, errp) {
				return true, false
			}
			if more := int64(cap(pairs))*8 - charged; more > 0 {
				if charged+more > limit || !e.charge(more) {
					return true, true
				}
				charged += more
			}
		}
		s := as[i][0]
		if bs[j][0] < s {
			j++
			continue
		}
		if bs[j][0] > s {
			i++
			continue
		}
		ie := i + 1
		for ie < len(as) && as[ie][0] == s {
			ie++
		}
		for ; j < len(bs) && bs[j][0] == s; j++ {
			m := bs[j][2]
			h, found := ht.find(m)
			if !found {
				continue
			}
			for k := int(h); k < len(cs) && cs[k][0] == m; k++ {
				y := cs[k][2]
				if len(pairs)+(ie-i) > cap(pairs) {
					// One subject makes a pair per combination of its rows (as many a-rows × b-rows × hop rows
					// as it has) before they are made unique, with no check of the loop above between: each
					// growth is charged as it comes, so such a subject ends the set at its limit, not past the
					// query's budget (4 M pairs, 64 MB with the copies, under a budget of 16 MB).
					grown := max(2*cap(pairs), len(pairs)+(ie-i), 1024)
					more := int64(grown-cap(pairs)) * 8
					if charged+more > limit || !e.charge(more) {
						return true, true
					}
					charged += more
					pairs = slices.Grow(pairs, grown-len(pairs))
				}
				for _, r := range as[i:ie] {
					if xHigh {
						pairs = append(pairs, pairKey(r[2], y))
					} else {
						pairs = append(pairs, pairKey(y, r[2]))
					}
				}
			}
		}
		i = ie
	}
	e.steps += len(pairs) // each pair's insert, as the set's map counted it
	spare := int64(len(pairs)) * 8
	if charged+spare > limit || !e.charge(spare) {
		return true, true
	}
	pairs = sortPairs(pairs, make([]uint64, len(pairs)))
	e.bytes -= spare
	pairs = slices.Compact(pairs)
	// The set keeps the pairs, charged as the set's own bytes from here (trialSet gives them back on failure).
	kept := int64(cap(pairs)) * 8
	e.bytes -= charged
	charged = 0
	set.pairs = pairs
	set.bytes += kept
	e.bytes += kept
	if set.bytes > limit || e.bytes+e.t.bytes > e.opt.MaxMemory {
		return true, true
	}
	return true, false
}

// subjectFirsts finds a hop subject's first row among rows sorted by subject: through a bitmap of the subjects' ids
// from the least one, with each word's count of the subjects before it (a rank), when the ids are dense enough
// for it to take about what a map would; else through a map. The 19 000 reviewers' and producers' countries at 10 M
// span 2.3 M ids: 430 KB of bitmap and ranks, two reads a lookup, where the map probed its groups.
type subjectFirsts struct {
	lo     ID
	bits   []uint64
	ranks  []uint32
	starts []int32
	m      map[ID]int32
}

// build makes the table of rows' subjects and returns the bytes it takes.
func (t *subjectFirsts) build(rows []index.Row) int64 {
	subjects := 0
	for i, r := range rows {
		if i == 0 || rows[i-1][0] != r[0] {
			subjects++
		}
	}
	t.lo = rows[0][0]
	words := int(rows[len(rows)-1][0]-t.lo)/64 + 1
	if words > 4*subjects+1024 {
		t.m = make(map[ID]int32, subjects)
		for i, r := range rows {
			if i == 0 || rows[i-1][0] != r[0] {
				t.m[r[0]] = int32(i)
			}
		}
		return int64(subjects) * mapEntryBytes
	}
	t.bits, t.ranks, t.starts = make([]uint64, words), make([]uint32, words), make([]int32, 0, subjects)
	for i, r := range rows {
		if i == 0 || rows[i-1][0] != r[0] {
			d := r[0] - t.lo
			t.bits[d/64] |= 1 << (d % 64)
			t.starts = append(t.starts, int32(i))
		}
	}
	rank := uint32(0)
	for w, word := range t.bits {
		t.ranks[w] = rank
		rank += uint32(mathbits.OnesCount64(word))
	}
	return int64(words)*12 + int64(subjects)*4
}

// find returns the first row of subject s, if it has rows.
func (t *subjectFirsts) find(s ID) (int32, bool) {
	if t.m != nil {
		h, ok := t.m[s]
		return h, ok
	}
	d := s - t.lo
	if s < t.lo || int(d/64) >= len(t.bits) {
		return 0, false
	}
	word, bit := t.bits[d/64], uint64(1)<<(d%64)
	if word&bit == 0 {
		return 0, false
	}
	return t.starts[t.ranks[d/64]+uint32(mathbits.OnesCount64(word&(bit-1)))], true
}

// sortPairs sorts keys (radixWords through buf, as long as keys; a comparison sort below 4 096 keys) and returns
// them sorted (keys or buf): a few passes of reads and writes in order, against the comparison sort's ~18 per key.
func sortPairs(keys, buf []uint64) []uint64 {
	if len(keys) < 1<<12 {
		slices.Sort(keys)
		return keys
	}
	return radixWords(keys, buf, 0)
}
