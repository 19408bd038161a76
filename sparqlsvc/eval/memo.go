package eval

import (
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// Computed values repeat: a BIND over a date (3 000 values on 900 000 reviews at 10 M) or over a group key is the
// same function of the same few inputs again and again. A BIND whose expression reads one variable and nothing
// that changes per call (pushable: no RAND, BNODE, UUID, STRUUID or EXISTS) is a function of that variable's id,
// so its value is computed once per id (bindMemo); a comparison of a variable with a constant is a function of the
// variable's id, which for a computed value is an overlay id interned once (cmpMemo). Both give up when few lookups
// hit, so distinct values pay one map probe per row until then and nothing after.

const (
	memoJudged  = 2048    // lookups after which a memo that mostly misses is dropped
	memoEntries = 1 << 16 // entries a memo holds at most; past that it only answers
)

// memoStats counts a memo's lookups and says whether it is still worth asking.
type memoStats struct {
	lookups, hits int
	off           bool
}

// count records a lookup and turns the memo off after memoJudged lookups of which fewer than half hit.
func (m *memoStats) count(hit bool) {
	m.lookups++
	if hit {
		m.hits++
	}
	if m.lookups == memoJudged && 2*m.hits < m.lookups {
		m.off = true
	}
}

// bindValue is a BIND's outcome for one input: its value (id once interned), or an error (the variable stays
// unbound).
type bindValue struct {
	t   rdf.Term
	id  ID
	err bool
	// repeated: the memo holds this value and was asked for it again. Then an interned id for it is paid once per
	// input id, within the memo's bound, however many rows read it (see the Extend in execOp); a value met once (a
	// SELECT expression over distinct values) keeps its scratch id and costs no dictionary probe.
	repeated bool
}

// bindMemo is an Extend's values by the id of the one variable its expression reads.
type bindMemo struct {
	memoStats
	slot int
	vals map[ID]*bindValue
	// last is the value kept for the input id lastIn: a scan in value order (POS) gives runs of one object, whose
	// rows then skip the map.
	lastIn ID
	last   *bindValue
}

// bindMemoOf returns x's memo, or nil when its expression may not be memoised or the memo was dropped.
func (e *evaluator) bindMemoOf(x *algebra.Extend) *bindMemo {
	m, seen := e.bindMemos[x]
	if !seen {
		m = nil
		if slot, one := e.varsOfExpr(x.Expr).only(); one && pushable(x.Expr) {
			m = &bindMemo{slot: slot, vals: map[ID]*bindValue{}}
		}
		if e.bindMemos == nil {
			e.bindMemos = map[*algebra.Extend]*bindMemo{}
		}
		e.bindMemos[x] = m
	}
	if m == nil || m.off || e.noMemo {
		return nil
	}
	return m
}

// value returns the memoised outcome for the input id (a scratch id names different values over time: never
// memoised), computing and keeping it on a miss; ok is false when the memo cannot answer.
func (m *bindMemo) value(e *evaluator, x algebra.Expr, row []ID, errp *error) (v *bindValue, ok bool) {
	in := row[m.slot]
	if isScratch(in) {
		return nil, false
	}
	if in == m.lastIn && m.last != nil {
		m.count(true)
		m.last.repeated = true
		return m.last, true
	}
	v, hit := m.vals[in]
	m.count(hit)
	if hit {
		m.lastIn, m.last = in, v
		v.repeated = true
		return v, true
	}
	t, err := e.eval(x, row, errp)
	if *errp != nil {
		return nil, false
	}
	v = &bindValue{t: t, err: err != nil}
	// Kept while the query holds less than half its budget: a memo of long values stops growing rather than
	// ending a query that ran without it.
	if size := int64(len(t.Value)+len(t.Datatype)+len(t.Lang)) + 96; len(m.vals) < memoEntries &&
		e.bytes+e.t.bytes+size < e.opt.MaxMemory/2 {
		m.vals[in] = v
		m.lastIn, m.last = in, v
		e.t.bytes += size
	}
	return v, true
}

// cmpMemo is a comparison's answers by the overlay id of its variable operand.
type cmpMemo struct {
	memoStats
	vals map[ID]cmpOutcome
	// last is the outcome kept for lastID (0: none), as bindMemo's.
	lastID ID
	last   cmpOutcome
}

// cmpOutcome is a comparison's answer: r, or the error err.
type cmpOutcome struct {
	r   bool
	err error
}

// testMemo is a FILTER condition's answers by the id of the one variable it reads. A condition of string functions
// over a value that repeats (STRENDS(STRAFTER(?name, " "), "son") over 14 705 reviewers of 660 names, h65) made the
// same strings for every row; its answer is a function of the variable's id as a BIND's value is (bindMemo).
type testMemo struct {
	memoStats
	slot   int
	calls  int
	vals   map[ID]bool
	lastIn ID
	last   bool
}

// recentTest is a condition and its memo (nil: none), as testMemoOf found them.
type recentTest struct {
	c *algebra.Call
	m *testMemo
}

// testStart is the rows a condition is tested on as written before its memo starts: a query's first rows do not
// pay for the memo's map, which over distinct values costs one probe and one entry per row until memoJudged
// lookups turn it off (h46's 900 labels: 15 % of its 2 ms). Past them that cost is a small share of the rows'
// string functions, and values that repeat over thousands of rows (h05, h65) are memoised from then on.
const testStart = 2048

// stringFuncs are the functions that scan or build strings: a condition calling one costs more than a map probe.
var stringFuncs = map[string]bool{
	"REGEX": true, "REPLACE": true, "CONTAINS": true, "STRSTARTS": true, "STRENDS": true, "STRBEFORE": true,
	"STRAFTER": true, "SUBSTR": true, "UCASE": true, "LCASE": true, "STRLEN": true, "CONCAT": true,
	"ENCODE_FOR_URI": true, "LANGMATCHES": true, "MD5": true, "SHA1": true, "SHA256": true, "SHA384": true,
	"SHA512": true,
}

// testMemoOf returns the memo of condition x, or nil when x reads other than one variable, may answer differently
// for one value (RAND, EXISTS: pushable), or calls no string function (a comparison answered from ids, BOUND or
// arithmetic costs less than the memo's probe).
func (e *evaluator) testMemoOf(x algebra.Expr) *testMemo {
	c, ok := x.(*algebra.Call)
	if !ok || e.noMemo {
		return nil
	}
	// The conditions a scan tests are few and asked per row: a few recent ones answer without the map's probe.
	for i := range e.testRecent {
		if r := &e.testRecent[i]; r.c == c {
			if r.m == nil || r.m.off {
				return nil
			}
			return r.m
		}
	}
	m, seen := e.testMemos[c]
	defer func() {
		copy(e.testRecent[1:], e.testRecent[:len(e.testRecent)-1])
		e.testRecent[0] = recentTest{c, m}
	}()
	if !seen {
		m = nil
		if slot, one := e.varsOfExpr(c).only(); one && pushable(c) && callsStringFunc(c) {
			m = &testMemo{slot: slot, vals: map[ID]bool{}}
		}
		if e.testMemos == nil {
			e.testMemos = map[*algebra.Call]*testMemo{}
		}
		e.testMemos[c] = m
	}
	if m == nil || m.off {
		return nil
	}
	return m
}

func callsStringFunc(x algebra.Expr) bool {
	found := false
	algebra.WalkExpr(x, func(x algebra.Expr) bool {
		if c, ok := x.(*algebra.Call); ok && stringFuncs[c.Func] {
			found = true
		}
		return !found
	})
	return found
}

// answer returns the condition's answer for the row's value of the memo's variable, computing and keeping it on a
// miss; ok is false when the memo cannot answer (a scratch id names different values over time; a fatal error).
func (m *testMemo) answer(e *evaluator, x algebra.Expr, row []ID, errp *error) (r, ok bool) {
	in := row[m.slot]
	if isScratch(in) {
		return false, false
	}
	if in == m.lastIn && in != 0 {
		m.count(true)
		return m.last, true
	}
	if m.calls < testStart { // a condition asked a few times is answered as written: the memo's maps cost more
		m.calls++
		return false, false
	}
	r, hit := m.vals[in]
	m.count(hit)
	if !hit {
		b, err := e.ebv(x, row, errp)
		if *errp != nil {
			return false, false
		}
		r = err == nil && b
		if len(m.vals) < memoEntries {
			if err := e.holdBytes(24); err != nil {
				*errp = err
				return false, false
			}
			m.vals[in] = r
		}
	}
	m.lastIn, m.last = in, r
	return r, true
}

// sumMemo is a SUM's or AVG's operand's numbers (sumValue) by the ids of the one or two variables it reads. An
// operand over values that repeat (SUM(IF(xsd:decimal(?r1) > xsd:double(?r2) + 2.5, 1, 0)) over 200 000 reviews
// whose two ratings take 10 values each, h101) cast, compared and parsed the same terms on every row; the number is
// a function of the inputs' ids as a BIND's value is (bindMemo), so it is worked out once per pair of ids.
type sumMemo struct {
	memoStats
	slots []int
	vals  map[[2]ID]sumOutcome
}

// sumMemoJudged is the lookups after which a sumMemo that mostly misses is dropped.
const sumMemoJudged = 256

// sumOutcome is sumValue's answer: n when ok, else the operand is left to the general evaluation.
type sumOutcome struct {
	n  builtin.Number
	ok bool
}

// sumMemoOf returns a's memo, or nil when its operand may not be memoised (it reads no variable or more than two,
// or calls a function whose value changes per call), need not be (sumValue answers it from ids: operators alone),
// or the memo was dropped.
func (e *evaluator) sumMemoOf(a *algebra.Aggregate) *sumMemo {
	m, seen := e.sumMemos[a]
	if !seen {
		m = nil
		vs := e.varsOfExpr(a.Expr)
		if slots := vs.bits2slots(); !vs.over && len(slots) >= 1 && len(slots) <= 2 && pushable(a.Expr) && callsFunction(a.Expr) {
			m = &sumMemo{slots: slots, vals: map[[2]ID]sumOutcome{}}
		}
		if e.sumMemos == nil {
			e.sumMemos = map[*algebra.Aggregate]*sumMemo{}
		}
		e.sumMemos[a] = m
	}
	if m == nil || m.off || e.noMemo {
		return nil
	}
	return m
}

// memoSumValue is sumValue of a's operand, from a's memo when its inputs were met before (a scratch id names
// different values over time: never memoised).
func (e *evaluator) memoSumValue(a *algebra.Aggregate, row []ID) (builtin.Number, bool) {
	m := e.sumMemoOf(a)
	if m == nil {
		return e.sumValue(a.Expr, row)
	}
	var k [2]ID
	for i, s := range m.slots {
		if isScratch(row[s]) {
			return e.sumValue(a.Expr, row)
		}
		k[i] = row[s]
	}
	if v, hit := m.vals[k]; hit {
		m.count(true)
		return v.n, v.ok
	}
	// Judged sooner than the other memos: the inputs of a SUM over every row (d07: SUM(IF(MINUTES(?d) < 30, 1,
	// 0)) over 290 000 review dates) are mostly distinct when they do not repeat within the first few hundred.
	if m.count(false); m.lookups == sumMemoJudged && 2*m.hits < m.lookups {
		m.off = true
	}
	n, ok := e.sumValue(a.Expr, row)
	const size = 64 // an entry of the map, about
	if len(m.vals) < memoEntries && e.bytes+e.t.bytes+size < e.opt.MaxMemory/2 {
		m.vals[k] = sumOutcome{n, ok}
		e.t.bytes += size
	}
	return n, ok
}

// callsFunction reports whether x calls a function (a built-in one other than IF, or one named by an IRI: a cast),
// not only operators (comparisons, arithmetic, logic), whose operands sumValue reads from their ids:
// SUM(IF(?price > 5000, 1, 0)) costs less than a lookup in a memo (h96: 99–146 ms of CPU at 10 M, 106–179 with
// one), a cast, FLOOR or STRLEN does not.
func callsFunction(x algebra.Expr) bool {
	found := false
	algebra.WalkExpr(x, func(x algebra.Expr) bool {
		if _, ok := x.(*algebra.FunctionCall); ok { // a cast, or a function named by its IRI
			found = true
		}
		if c, ok := x.(*algebra.Call); ok {
			switch c.Func {
			case "IF", "||", "&&", "!", "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/":
			default:
				found = true
			}
		}
		return !found
	})
	return found
}
