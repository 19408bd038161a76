package eval

import (
	"encoding/binary"

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
	op           uint8      // opIndex of "inner op outer"
	keepMax      bool       // > and >=: the greatest value per key decides
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
	return &extremeShape{inner: sa, outer: sb, op: opIndex(fn), keepMax: fn == ">" || fn == ">="}
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
	if !had {
		return false, true, buf // no solution with this key at all
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
