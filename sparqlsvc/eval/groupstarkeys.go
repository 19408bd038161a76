package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
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
// Aggregates may read the keyed object, or be COUNT (not DISTINCT) of the subject, which every solution binds: a
// solution of the count is given the subject of the object's first row, so COUNT(?s) counts it like COUNT(*).

// keyCountBits: the counts per object are kept in a table of 1<<keyCountBits slots, an object's count handed to
// the group state when another object takes its slot and at the end: dc:date's few thousand dates stay in it.
const keyCountBits = 12

// keyCount is one slot of the table: an object (0: empty), the subject of its first row and its solutions so far.
type keyCount struct {
	o, s ID
	n    int64
}

// groupStarKeys is groupStars for a GROUP BY with keys: handled is false when x's operand is not one star whose
// keys and aggregates read one of its objects (or COUNT its subject).
func (e *evaluator) groupStarKeys(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	stars, ok := e.countStars(x.Op, in, nil)
	if !ok || len(stars) != 1 || len(stars[0]) < 2 {
		return false, false
	}
	st := stars[0]
	for _, p := range st {
		for _, c := range p.conds {
			if !cheapCond(c) {
				// h19's REGEX per title: the join shares such tests between two cores, this loop would not.
				return false, false
			}
		}
	}
	ss := st[0].ss
	reads := e.groupReadsSkipping(x, func(a *algebra.Aggregate) bool {
		v, isVar := a.Expr.(algebra.Var)
		return a.Name == "COUNT" && !a.Distinct && isVar && e.slot(v) == ss
	})
	kos, one := reads.only()
	if !one {
		return false, false
	}
	kp := slices.IndexFunc(st, func(p countPat) bool { return p.os == kos })
	if kp < 0 {
		return false, false
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
	return true, e.countRowsByKey(ps, kp, ss, row, gs, errp)
}

// countRowsByKey is countRows counting per object of ps[kp] into gs; false when evaluation must stop.
func (e *evaluator) countRowsByKey(ps []patRows, kp, ss int, row []ID, gs *groupState, errp *error) bool {
	table := make([]keyCount, 1<<keyCountBits)
	kos := ps[kp].os
	flush := func(kc *keyCount) bool {
		row[kos], row[ss] = kc.o, kc.s
		ok := gs.add(row, kc.n, errp)
		row[kos], row[ss] = 0, 0
		return ok
	}
	kr := ps[kp].rows
	ok := e.mergeStar(ps, kp, row, errp, func(s ID, prod int64, from, to int) bool {
		for k := from; k < to; k++ {
			o := kr[k][2]
			if !e.passes(&ps[kp], o, row, errp) {
				if *errp != nil {
					return false
				}
				continue
			}
			kc := &table[(uint64(o)*0x9E3779B97F4A7C15)>>(64-keyCountBits)]
			if kc.o != o {
				if kc.o != 0 && !flush(kc) {
					return false
				}
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
