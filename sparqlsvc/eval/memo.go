package eval

import (
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
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
