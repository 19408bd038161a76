package eval

import (
	mathbits "math/bits"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A set's pattern may be a star of more than two patterns, several narrowing the subjects (or of two, whose
// narrowing pattern is read the same way rather than evaluated as a pattern when valueRanges narrows its range):
//
//	EXISTS { ?offer product ?product ; deliveryDays ?d ; price ?p FILTER(?d = 2 && ?p < 2000) }
//
// As a join it reads the narrowest range (28 000 offers delivering in two days at 10 M) and probes the other
// narrowing predicate by each of its subjects (price: 582 000 rows, each probe a search far from the previous one),
// then the key's. As a set, each narrowing pattern is a set of subjects: its range narrowed by valueRanges (the
// filter's conjuncts that read its object only) is read in POS order, its conditions tested once per distinct
// object, into a bitmap. The narrowest is read first; each other one is read the same way and intersected when its
// range has fewer than starScanRows rows per subject still found, and otherwise probed by those subjects in
// ascending order, clearing those without a passing value. The key is then read as for two patterns (starKeys).
// Session 12b tried such stars as a join of the narrowing patterns followed by the key: no faster, since the far
// probes of price remained.

// starPartsOf returns b, a BGP of two patterns or more under filters, as a star keyed on key when it is one: one
// subject variable, constant predicates, the key the object of one pattern and nowhere else, every other object a
// constant or a variable found nowhere else, and each filter conjunct reading only one such variable.
func (e *evaluator) starPartsOf(b *algebra.BGP, filters []algebra.Expr, key int) (starShape, bool) {
	var no starShape
	sv := b.Triples[0].S
	if !sv.IsVar() {
		return no, false
	}
	subject := e.slot(sv.Var)
	seen := map[int]int{} // variables' occurrences
	for _, t := range b.Triples {
		if !t.S.IsVar() || t.S.Var != sv.Var || t.P.IsVar() {
			return no, false
		}
		if t.O.IsVar() {
			seen[e.slot(t.O.Var)]++
		}
	}
	if seen[subject] > 0 || seen[key] != 1 || subject == key {
		return no, false
	}
	st := starShape{subject: subject, object: key}
	for _, t := range b.Triples {
		p := e.constID(t.P.Term)
		if p == 0 {
			return no, false // no such triples: the join finds none at once
		}
		switch {
		case t.O.IsVar() && e.slot(t.O.Var) == key:
			st.key = p
		case t.O.IsVar():
			o := e.slot(t.O.Var)
			if seen[o] != 1 {
				return no, false
			}
			st.parts = append(st.parts, starPart{p: p, oslot: o})
		default:
			o := e.constID(t.O.Term)
			if o == 0 {
				return no, false
			}
			st.parts = append(st.parts, starPart{p: p, o: o, oslot: -1})
		}
	}
	var conj []algebra.Expr
	for _, f := range filters {
		conj = appendConjuncts(conj, f)
	}
next:
	for _, c := range conj {
		if !pushable(c) {
			return no, false
		}
		o, one := e.varsOfExpr(c).only()
		for i := range st.parts {
			if one && st.parts[i].oslot == o {
				st.parts[i].conj = append(st.parts[i].conj, c)
				continue next
			}
		}
		return no, false
	}
	return st, true
}

// starPartsSet evaluates a star of several narrowing patterns for a set (see above), each key row passed to add.
// ok is false when a subject past the dictionary's ids was found (the caller evaluates the pattern as a join); the
// work is counted as a trial's and ends it past its end.
func (e *evaluator) starPartsSet(st starShape, add emitFn, errp *error) (ok bool) {
	g := e.active[0].g
	row := e.newRow()
	type narrowed struct {
		part   starPart
		ranges []index.Matches
		proven []bool // ranges whose rows pass every conjunct
		rows   int
		tested bool // conditions that narrowed nothing: every row's object is tested
	}
	ns := make([]narrowed, len(st.parts))
	for i, p := range st.parts {
		n := narrowed{part: p}
		if p.oslot < 0 {
			n.ranges, n.proven = []index.Matches{g.Match(0, p.p, p.o)}, []bool{true}
		} else {
			ranges, proven, rest := e.valueRanges(g.Match(0, p.p, 0), p.oslot, p.conj, row, errp)
			if *errp != nil {
				return true
			}
			if proven == nil { // nothing narrowed: every row is tested
				ranges, proven = []index.Matches{g.Match(0, p.p, 0)}, []bool{len(p.conj) == 0}
				n.tested = len(p.conj) > 0
			} else if len(rest) > 0 {
				proven = make([]bool, len(ranges))
			}
			n.ranges, n.proven = ranges, proven
		}
		for _, r := range n.ranges {
			n.rows += r.Len()
		}
		ns[i] = n
	}
	// A two-pattern star whose conditions valueRanges cannot narrow evaluates its pattern (starSet), whose trial
	// watch stops it early when it would not finish: b23's LANG of each of 290 000 titles, tested here once per
	// distinct object, is every row, and was read to its end past the budget (150 → 230 ms CPU at 10 M).
	if st.narrow != nil && ns[0].tested {
		return e.starSet(st, add, errp)
	}
	words := int(e.t.base/64 + 1)
	cost := 2 * int64(words) * 8
	if !e.charge(cost) {
		return false
	}
	defer func() { e.bytes -= cost }()
	slices.SortStableFunc(ns, func(a, b narrowed) int { return a.rows - b.rows })
	// pass tests a part's conjuncts on the object o.
	pass := func(p starPart, o ID) bool {
		row[p.oslot] = o
		return e.testAll(p.conj, row, errp)
	}
	// fill sets in into the subjects of n's rows that pass, testing the conjuncts once per distinct object of a
	// range not proven; past reports a subject past the bitmap.
	fill := func(n narrowed, into []uint64) (past bool) {
		for ri, r := range n.ranges {
			if n.proven[ri] {
				if !e.starCheck(r.Len()/16+1, errp) {
					return false
				}
				for _, row := range r.Rows { // POS rows: p, o, s
					s := row[2]
					if int(s/64) >= len(into) {
						return true
					}
					into[s/64] |= 1 << (s % 64)
				}
				continue
			}
			for i := 0; i < r.Len(); {
				_, _, o := r.At(i)
				j := objectRunEnd(r, i)
				if !e.starCheck(1, errp) { // the conditions, once per distinct object
					return false
				}
				if pass(n.part, o) {
					for k := i; k < j; k++ {
						s, _, _ := r.At(k)
						if int(s/64) >= len(into) {
							return true
						}
						into[s/64] |= 1 << (s % 64)
					}
				} else if *errp != nil {
					return false
				}
				i = j
			}
		}
		return false
	}
	bits := make([]uint64, words)
	if fill(ns[0], bits) {
		return false
	}
	found := 0
	for _, w := range bits {
		found += mathbits.OnesCount64(w)
	}
	var more []uint64
	for _, n := range ns[1:] {
		if *errp != nil || found == 0 {
			break
		}
		if n.rows < found*starScanRows {
			if more == nil {
				more = make([]uint64, words)
			} else {
				clear(more)
			}
			if fill(n, more) {
				return false
			}
			found = 0
			for i := range bits {
				bits[i] &= more[i]
				found += mathbits.OnesCount64(bits[i])
			}
			continue
		}
		var cur index.Cursor
		for w := range bits {
			for word := bits[w]; word != 0; word &= word - 1 {
				s := ID(w*64 + mathbits.TrailingZeros64(word))
				e.probes++
				m := g.MatchFrom(&cur, s, n.part.p, n.part.o)
				if !e.starCheck(m.Len(), errp) {
					return true
				}
				kept := false
				for j := 0; j < m.Len() && !kept; j++ {
					_, _, o := m.At(j)
					kept = n.part.oslot < 0 || pass(n.part, o)
				}
				if !kept {
					bits[w] &^= 1 << (s % 64)
					found--
				}
			}
		}
	}
	if *errp != nil {
		return true
	}
	e.starKeys(st, bits, found, add, errp)
	return true
}
