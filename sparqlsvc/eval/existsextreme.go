package eval

import (
	"encoding/binary"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// An EXISTS whose FILTER compares a value of its pattern with a value of the row the pattern does not bind
// (NOT EXISTS { ?other product ?product ; vendor ?vendor ; price ?p2 FILTER(?p2 < ?price) }) is not a semi-join:
// the set of its solutions' keys (?product, ?vendor) does not say whether one of them is cheaper than the row's
// ?price. But "some solution with the row's key has ?p2 < ?price" is "the least ?p2 of the key's solutions is <
// ?price": with the comparison set aside, the pattern is evaluated once on its own, the least (for < and <=) or
// greatest (for > and >=) value per key is kept, and each row's answer is one comparison. v55g walked each of
// 580 000 offers' product's offers at 10 M (2.3 s), where this reads the offers once.
//
// It is the same answer only where the comparison is the order of the values: numbers held in their ids
// (xsd:integer and xsd:decimal, index.InlineNumber), which compareNumbers compares by value as the operator does.
// A key with any other value of the pattern (a double, which may be NaN; a string; a date; a number in the
// dictionary) is marked mixed, and a row with that key, or whose own value is not such a number, is evaluated by
// substitution as before. A solution whose value is unbound makes the comparison an error, so the FILTER false:
// it is left out. The rest of the FILTER (conjuncts that read only the pattern's variables) stays in the pattern;
// the key must satisfy the semi-join's conditions (certain in the pattern, substitution safe) without the
// comparison. When the set is worth building is decided as for the semi-join (existsBySet): it is one.

// extremeShape is an EXISTS's pattern read as "a pattern and a comparison of its inner variable with the row's
// outer one".
type extremeShape struct {
	pattern      algebra.Op // the pattern without the comparison
	inner, outer int        // slots
	innerVar     algebra.Var
	op           uint8 // opIndex of "inner op outer"
	keepMax      bool  // > and >=: the greatest value per key decides
	// limit, when not 0, is a number held in its id that bounds the rows' outer values (from above for the least
	// value, from below for the greatest; narrowExtreme): pattern then keeps only inner values within it.
	limit ID
}

// extremeOf returns x's pattern as an extremeShape, or nil when it is not one: a FILTER one of whose conjuncts,
// and only one, reads a variable its operand does not mention, and that conjunct compares (<, <=, >, >=) a variable
// the operand mentions with that one.
func (e *evaluator) extremeOf(x *algebra.Exists) *extremeShape {
	f, ok := x.Pattern.(*algebra.Filter)
	if !ok {
		return nil
	}
	in := e.infoOf(f.Op).mentioned
	var conj, rest []algebra.Expr
	for _, c := range f.Exprs {
		conj = appendConjuncts(conj, c)
	}
	var sh *extremeShape
	for _, c := range conj {
		if e.varsOfExpr(c).subsetOf(in) {
			rest = append(rest, c)
			continue
		}
		if sh != nil {
			return nil // two conjuncts read the row
		}
		if sh = e.comparisonShape(c, in); sh == nil {
			return nil
		}
	}
	if sh == nil {
		return nil
	}
	sh.pattern = f.Op
	if len(rest) > 0 {
		sh.pattern = &algebra.Filter{Exprs: rest, Op: f.Op}
	}
	return sh
}

// comparisonShape reads c as "?inner op ?outer" (written either way round), ?inner mentioned in the pattern (in)
// and ?outer not.
func (e *evaluator) comparisonShape(c algebra.Expr, in varset) *extremeShape {
	call, ok := c.(*algebra.Call)
	if !ok || len(call.Args) != 2 {
		return nil
	}
	switch call.Func {
	case "<", "<=", ">", ">=":
	default:
		return nil
	}
	a, okA := call.Args[0].(algebra.Var)
	b, okB := call.Args[1].(algebra.Var)
	if !okA || !okB {
		return nil
	}
	sa, sb := e.slot(a), e.slot(b)
	if in.over || sa >= 64 || sb >= 64 {
		return nil
	}
	fn := call.Func
	switch {
	case in.has(sa) && !in.has(sb):
	case in.has(sb) && !in.has(sa):
		sa, sb, fn = sb, sa, flipComparison(fn) // "?outer < ?inner" is "?inner > ?outer"
	default:
		return nil
	}
	inner := a
	if sa != e.slot(a) {
		inner = b
	}
	return &extremeShape{inner: sa, outer: sb, innerVar: inner, op: opIndex(fn), keepMax: fn == ">" || fn == ">="}
}

// An extreme's pattern is evaluated on its own over all its solutions, which may be far more than the rows that
// test it: v55k's 2 900 products (FILTER(?n1 < 200)) test an EXISTS over 580 000 offers' prices (?p < ?n1), so the
// set was never worth building and each product probed its ~20 offers' prices, 57 000 probes a run. But a row
// whose ?n1 is at most 200 can only be answered by a price under 200: the pattern's solutions beyond the bound are
// never the least that decides. narrowExtreme reads such a bound from the conjuncts of the FILTER that tests the
// EXISTS (?outer < c, ?outer <= c, or c > ?outer; for the greatest value ?outer > c and the like), with c a number
// held in its id, and gives the pattern the conjunct "?inner <= c" (">= c"), which the planner reads as a range of
// the inner predicate's objects. That is exact for every row whose outer value is a number held in an id within
// the bound (compareNumbers): a solution left out has an inner value above c (or one "<=" cannot compare with a
// number: an error, as "?inner < ?outer" would be), so it is not below the row's value. extremes.has checks each
// row's value against limit and sends any other row (a FILTER's conjuncts may be tested in another order, or the
// bound may come from a disjunct's sibling) to evaluation by substitution.

// narrowExtreme returns sh narrowed by the tightest bound on its outer variable among the conjuncts of exprs (the
// FILTER that tests the EXISTS), or sh itself when they give none.
func (e *evaluator) narrowExtreme(sh *extremeShape, exprs []algebra.Expr) *extremeShape {
	if sh == nil || e.multi {
		return sh
	}
	var conj []algebra.Expr
	for _, c := range exprs {
		conj = appendConjuncts(conj, c)
	}
	var limit ID
	var bound algebra.Expr
	for _, c := range conj {
		call, ok := c.(*algebra.Call)
		if !ok || len(call.Args) != 2 {
			continue
		}
		fn, v, k := call.Func, call.Args[0], call.Args[1]
		if _, isVar := v.(algebra.Var); !isVar {
			fn, v, k = flipComparison(fn), k, v
		}
		ov, isVar := v.(algebra.Var)
		kc, isConst := k.(algebra.Constant)
		if !isVar || !isConst || e.slot(ov) != sh.outer {
			continue
		}
		switch fn {
		case "<", "<=":
			if sh.keepMax {
				continue
			}
		case ">", ">=":
			if !sh.keepMax {
				continue
			}
		default:
			continue
		}
		id := e.constID(kc.Term)
		if _, _, ok := index.InlineNumber(id); !ok {
			continue
		}
		if r, _ := compareNumbers(id, limit); limit == 0 || r < 0 && !sh.keepMax || r > 0 && sh.keepMax {
			limit, bound = id, kc
		}
	}
	if limit == 0 {
		return sh
	}
	n := *sh
	n.limit = limit
	fn := "<="
	if sh.keepMax {
		fn = ">="
	}
	narrow := []algebra.Expr{&algebra.Call{Func: fn, Args: []algebra.Expr{sh.innerVar, bound}}}
	op := sh.pattern
	if f, ok := op.(*algebra.Filter); ok {
		op, narrow = f.Op, append(slices.Clip(f.Exprs), narrow...)
	}
	// The planner keeps a BGP's FILTER conjuncts by the BGP (evaluator.filterVars, from the first FILTER it ran
	// under: the per-row evaluations' "?p < ?n1"): the narrowed pattern gets a BGP of its own, so that it is
	// planned from its price range and the set's estimate (rowsKept) sees the range's share.
	if b, ok := op.(*algebra.BGP); ok {
		nb := &algebra.BGP{Triples: b.Triples}
		var conj []algebra.Expr
		for _, c := range narrow {
			conj = appendConjuncts(conj, c)
		}
		e.noteFilters(nb, conj)
		op = nb
	}
	n.pattern = &algebra.Filter{Exprs: narrow, Op: op}
	return &n
}

// flipComparison is the operator that compares its operands the other way round (a < b is b > a).
func flipComparison(op string) string {
	switch op {
	case "<":
		return ">"
	case ">":
		return "<"
	case "<=":
		return ">="
	case ">=":
		return "<="
	}
	return op
}

// extremeKey is the key of an extremeShape's set for row: bound without the outer variable, when the row's values
// may be looked up so (the semi-join's conditions on the pattern without the comparison).
func (e *evaluator) extremeKey(sh *extremeShape, bound varset) (varset, bool) {
	if sh == nil || bound.over || !bound.has(sh.outer) || bound.has(sh.inner) {
		return varset{}, false
	}
	key := varset{bits: bound.bits &^ (1 << uint(sh.outer))}
	if !key.subsetOf(e.infoOf(sh.pattern).certain) || !e.safe(sh.pattern, key) {
		return varset{}, false
	}
	return key, true
}

// extremes holds, per key, the least or greatest value of an extremeShape's pattern's solutions.
type extremes struct {
	shape *extremeShape
	one   map[ID]extremeVal     // one key variable
	two   map[uint64]extremeVal // two
	many  map[string]extremeVal // more (the key's ids, as existsSet.many)
}

// extremeVal is a key's least or greatest value: best is a number held in its id (0: none yet), mixed that some
// solution's value was anything else.
type extremeVal struct {
	best  ID
	mixed bool
}

func newExtremes(sh *extremeShape, keys int) *extremes {
	x := &extremes{shape: sh}
	switch keys {
	case 1:
		x.one = map[ID]extremeVal{}
	case 2:
		x.two = map[uint64]extremeVal{}
	default:
		x.many = map[string]extremeVal{}
	}
	return x
}

// fold returns v updated with a solution's value id.
func (x *extremes) fold(v extremeVal, id ID) extremeVal {
	if _, _, ok := index.InlineNumber(id); !ok {
		v.mixed = true
		return v
	}
	if v.best == 0 {
		v.best = id
		return v
	}
	if r, _ := compareNumbers(id, v.best); r < 0 && !x.shape.keepMax || r > 0 && x.shape.keepMax {
		v.best = id
	}
	return v
}

// add folds the solution r into its key's value and returns the bytes the set grew by; the key's ids are in
// slots (none is a scratch id: the caller checked), buf is scratch for a key of more than two.
func (x *extremes) add(r []ID, slots []int, buf []byte) (int64, []byte) {
	id := r[x.shape.inner]
	if id == 0 {
		return 0, buf // unbound: the comparison is an error, the FILTER false
	}
	switch {
	case x.one != nil:
		k := r[slots[0]]
		v, had := x.one[k]
		x.one[k] = x.fold(v, id)
		if !had {
			return mapEntryBytes, buf
		}
	case x.two != nil:
		k := pairKey(r[slots[0]], r[slots[1]])
		v, had := x.two[k]
		x.two[k] = x.fold(v, id)
		if !had {
			return mapEntryBytes + 8, buf
		}
	default:
		buf = appendKey(buf[:0], r, slots)
		v, had := x.many[string(buf)]
		x.many[string(buf)] = x.fold(v, id)
		if !had {
			return int64(len(buf)) + 48, buf
		}
	}
	return 0, buf
}

// has answers the EXISTS for row: whether some solution with row's key compares as the operator asks with the
// row's outer value. ok is false when the key's values or the row's are not all numbers held in ids (or the key
// holds a scratch id): the row is then evaluated by substitution.
func (x *extremes) has(row []ID, slots []int, buf []byte) (found, ok bool, _ []byte) {
	for _, s := range slots {
		if isScratch(row[s]) {
			return false, false, buf
		}
	}
	var v extremeVal
	var had bool
	switch {
	case x.one != nil:
		v, had = x.one[row[slots[0]]]
	case x.two != nil:
		v, had = x.two[pairKey(row[slots[0]], row[slots[1]])]
	default:
		buf = appendKey(buf[:0], row, slots)
		v, had = x.many[string(buf)]
	}
	if lim := x.shape.limit; lim != 0 {
		// A narrowed pattern (narrowExtreme) answers only rows whose value is within its bound.
		r, cmpOK := compareNumbers(row[x.shape.outer], lim)
		if !cmpOK || r > 0 && !x.shape.keepMax || r < 0 && x.shape.keepMax {
			return false, false, buf
		}
	}
	if !had {
		return false, true, buf // no solution with this key (within the bound) at all
	}
	if v.mixed {
		return false, false, buf
	}
	if v.best == 0 {
		return false, true, buf
	}
	r, cmpOK := compareNumbers(v.best, row[x.shape.outer])
	if !cmpOK {
		return false, false, buf // the row's value is not such a number: its comparisons are another matter
	}
	return opTable[x.shape.op][r+1], true, buf
}

// appendKey appends the ids of row in slots to buf.
func appendKey(buf []byte, row []ID, slots []int) []byte {
	for _, s := range slots {
		buf = binary.LittleEndian.AppendUint32(buf, row[s])
	}
	return buf
}

// An extreme's pattern of two patterns on one subject, one giving the key and the other the compared value
// ({ ?offer product ?product ; price ?p FILTER(?p <= 200) }, narrowed), evaluated as a join probes the key's
// predicate by each subject the value's pattern finds, in the order of its values: v55k's 11 300 prices under 200
// at 10 M landed on offers far apart, ~1 µs a probe. extremeStar reads it as starSet reads a star: the value
// pattern's (subject, value) pairs sorted by subject, then the key's rows of those subjects, read in order with a
// bit test per row (or probed by ascending subject where the key's predicate has far more rows, starKeys' rule),
// each pair of a subject with each of its keys passed to add.

// extremeStar passes to add the solutions of st (starOf of an extreme's pattern; inner: the compared value's slot)
// with the key, the subject and inner bound. ok is false when st has no narrowing pattern of its own, or a subject
// past the dictionary's ids was found (the caller evaluates the pattern as a join); the work is counted as a
// trial's and ends it with errTrialOver past its end, memory is charged to the query while it is held.
func (e *evaluator) extremeStar(st starShape, inner int, add emitFn, errp *error) (ok bool) {
	if st.narrow == nil || inner == st.subject || inner == st.object {
		return false
	}
	bits := make([]uint64, e.t.base/64+1)
	held := int64(len(bits)) * 8
	if !e.charge(held) {
		return false
	}
	defer func() { e.bytes -= held }()
	var pairs []uint64 // subject<<32 | value: sorted as numbers, they are in subject order
	past := false
	if !e.exec(st.narrow, e.newRow(), func(r []ID) bool {
		s := r[st.subject]
		if int(s/64) >= len(bits) {
			past = true
			return false
		}
		if len(pairs) == cap(pairs) {
			grow := int64(max(len(pairs), 256)) * 8
			if !e.charge(grow) {
				*errp = ErrTooLarge
				return false
			}
			held += grow
			pairs = slices.Grow(pairs, max(len(pairs), 256))
		}
		bits[s/64] |= 1 << (s % 64)
		pairs = append(pairs, uint64(s)<<32|uint64(r[inner]))
		return true
	}, errp) && (past || *errp != nil) {
		return !past
	}
	slices.Sort(pairs)
	row := e.newRow()
	// emit passes each pair of subject s with the key o.
	emit := func(s, o ID) bool {
		i, _ := slices.BinarySearch(pairs, uint64(s)<<32)
		row[st.subject], row[st.object] = s, o
		for ; i < len(pairs) && ID(pairs[i]>>32) == s; i++ {
			row[inner] = ID(pairs[i])
			if !add(row) {
				return false
			}
		}
		return true
	}
	g := e.active[0].g
	m := g.Match(0, st.key, 0)
	if m.Len() < len(pairs)*starScanRows {
		for from := 0; from < len(m.Rows); from += starScanRows {
			if !e.starCheck(1, errp) {
				return true
			}
			for _, r := range m.Rows[from:min(from+starScanRows, len(m.Rows))] {
				if s := r[2]; bits[s/64]&(1<<(s%64)) != 0 && !emit(s, r[1]) {
					return true
				}
			}
		}
		return true
	}
	var cur index.Cursor
	for i := 0; i < len(pairs); i++ {
		s := ID(pairs[i] >> 32)
		if i > 0 && s == ID(pairs[i-1]>>32) {
			continue
		}
		e.probes++
		km := g.MatchFrom(&cur, s, st.key, 0)
		if !e.starCheck(km.Len(), errp) {
			return true
		}
		for j := 0; j < km.Len(); j++ {
			_, _, o := km.At(j)
			if !emit(s, o) {
				return true
			}
		}
	}
	return true
}
