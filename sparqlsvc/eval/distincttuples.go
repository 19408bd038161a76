package eval

import (
	mathbits "math/bits"
	"slices"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// COUNT(DISTINCT f(?a, ?b)) over a computed value built f's value on every solution and hashed it (h56:
// COUNT(DISTINCT CONCAT(STR(?vendor), " ", STR(?product))) over every offer delivered within two days, a string per
// offer). When f reads only its variables (pushable: no RAND, BNODE, UUID, STRUUID or EXISTS), its value is a
// function of their ids, so the aggregate meets the tuples of ids instead, and at the end counts the distinct values
// of f over the distinct tuples: f computed once per tuple, not once per solution.
//
// When f is one-to-one over the tuples met, that count is the number of tuples and f is never computed. That is
// proven from the terms, never assumed: f is STR(?v), or CONCAT of simple string constants and STR(?v) parts in
// which each part but the last is followed by a non-empty constant. Then if no value of a part holds the first byte
// of the constant after it, a string of f splits back into its parts one way only (each part ends at the first such
// byte); and if no two ids of a part's variable among the tuples have the same STR (an IRI and a literal of the
// same text do), the parts give back the ids. Every id must be an IRI or a literal (STR of a blank node or of an
// unbound variable is an error, which COUNT leaves out). Otherwise every tuple's value is computed and met by its
// key (distinctMet), as a solution's is.

// maxTupleVars is the most variables f may read for its tuples to stand for its values.
const maxTupleVars = 4

// tupleKey is the ids of f's variables in one solution, in the order of tupleForm.slots.
type tupleKey [maxTupleVars]ID

// tupleForm is how a COUNT(DISTINCT f) aggregate meets f's inputs: the slots of the variables f reads, and f's
// parts when f is of the form whose one-to-one-ness the tuples may prove (nil: every tuple's value is computed).
type tupleForm struct {
	expr   algebra.Expr
	slots  []int
	parts  []strPart
	consts int // the bytes of f's constants
}

// strPart is a STR(?v) part of f: its variable's index in the tuple, and the byte its values must not hold (the
// first of the constant after it; -1 for the last part, which ends where the string does).
type strPart struct {
	col  int
	stop int
}

// distinctTuples is one group's COUNT(DISTINCT f) state while it meets tuples.
type distinctTuples struct {
	form *tupleForm
	// The tuples met: of one or two ids as one number (the map's probe is then the cheaper one of 64-bit keys),
	// of more in set.
	pairs      map[uint64]struct{}
	set        map[tupleKey]struct{}
	last       tupleKey // the tuple of the solution before (solutions of one subject come together)
	rows, hits int
	// mixed: a solution with a scratch id among f's inputs (an id naming another value in a later solution) was met
	// by its value, so the tuples' count alone no longer answers; their values are computed.
	mixed bool
}

// tupleFormOf returns how a COUNT(DISTINCT f) aggregate meets f's inputs, or nil when it meets f's values.
func (e *evaluator) tupleFormOf(a *algebra.Aggregate) *tupleForm {
	if a.Name != "COUNT" || !a.Distinct || a.Expr == nil || e.noMemo {
		return nil
	}
	if _, isVar := a.Expr.(algebra.Var); isVar || !pushable(a.Expr) {
		return nil
	}
	vs := e.varsOfExpr(a.Expr)
	n := mathbits.OnesCount64(vs.bits)
	if vs.over || n == 0 || n > maxTupleVars {
		return nil
	}
	f := &tupleForm{expr: a.Expr}
	for b := vs.bits; b != 0; b &= b - 1 {
		f.slots = append(f.slots, mathbits.TrailingZeros64(b))
	}
	f.parts, f.consts = f.strParts(e, a.Expr)
	return f
}

// strParts returns x's STR(?v) parts and the bytes of its constants when x has the form whose one-to-one-ness may
// be proven (see above); nil otherwise.
func (f *tupleForm) strParts(e *evaluator, x algebra.Expr) ([]strPart, int) {
	col := func(v algebra.Var) int {
		s := e.slot(v)
		for i, slot := range f.slots {
			if slot == s {
				return i
			}
		}
		return -1
	}
	strOf := func(x algebra.Expr) int { // STR(?v): v's column; -1 otherwise
		if c, ok := x.(*algebra.Call); ok && c.Func == "STR" && len(c.Args) == 1 {
			if v, ok := c.Args[0].(algebra.Var); ok {
				return col(v)
			}
		}
		return -1
	}
	if i := strOf(x); i >= 0 {
		return []strPart{{col: i, stop: -1}}, 0
	}
	c, ok := x.(*algebra.Call)
	if !ok || c.Func != "CONCAT" {
		return nil, 0
	}
	var parts []strPart
	consts := 0
	after := false // a constant byte came since the last part
	for _, arg := range c.Args {
		if k, ok := arg.(algebra.Constant); ok {
			t := k.Term
			if t.Kind != rdf.KindLiteral || t.Datatype != rdf.XSDString || t.Lang != "" {
				return nil, 0
			}
			if len(parts) > 0 && !after && t.Value != "" {
				parts[len(parts)-1].stop = int(t.Value[0])
				after = true
			}
			consts += len(t.Value)
			continue
		}
		i := strOf(arg)
		if i < 0 || (len(parts) > 0 && !after) { // not STR(?v), or two parts with nothing between them
			return nil, 0
		}
		parts = append(parts, strPart{col: i, stop: -1})
		after = false
	}
	if len(parts) == 0 {
		return nil, 0
	}
	parts[len(parts)-1].stop = -1 // the last part ends where the string does, whatever follows it
	return parts, consts
}

// meetTuple records the tuple of f's inputs in row; false when row has a scratch id among them (then the
// solution's value is met by its key, as without tuples).
func (e *evaluator) meetTuple(d *distinctTuples, row []ID) (bool, error) {
	var k tupleKey
	for i, slot := range d.form.slots {
		id := row[slot]
		if isScratch(id) {
			d.mixed = true
			return false, nil
		}
		k[i] = id
	}
	d.rows++
	if d.rows > 1 && k == d.last {
		d.hits++
		return true, nil
	}
	d.last = k
	if d.has(k) {
		d.hits++
		return true, nil
	}
	if err := e.holdBytes(48); err != nil {
		return false, err
	}
	d.add(k)
	return true, nil
}

func (d *distinctTuples) pack(k tupleKey) uint64 { return uint64(k[0])<<32 | uint64(k[1]) }

func (d *distinctTuples) has(k tupleKey) bool {
	var ok bool
	if len(d.form.slots) <= 2 {
		_, ok = d.pairs[d.pack(k)]
	} else {
		_, ok = d.set[k]
	}
	return ok
}

func (d *distinctTuples) add(k tupleKey) {
	switch {
	case len(d.form.slots) > 2:
		if d.set == nil {
			d.set = map[tupleKey]struct{}{}
		}
		d.set[k] = struct{}{}
	default:
		if d.pairs == nil {
			d.pairs = map[uint64]struct{}{}
		}
		d.pairs[d.pack(k)] = struct{}{}
	}
}

// len returns the number of tuples met.
func (d *distinctTuples) len() int { return len(d.pairs) + len(d.set) }

// each calls fn with each tuple met.
func (d *distinctTuples) each(fn func(k tupleKey)) {
	for p := range d.pairs {
		fn(tupleKey{ID(p >> 32), ID(p)})
	}
	for k := range d.set {
		fn(k)
	}
}

// judgeTuples is asked once memoJudged solutions were met as tuples: when fewer than half repeated one and the
// tuples so far do not prove f one-to-one, tuples only add a map probe to f's value per solution, so the state
// turns to meeting values (finishTuples) and later solutions are met by their values.
func (e *evaluator) judgeTuples(s *aggState, a *algebra.Aggregate, errp *error) error {
	d := s.tuples
	if 2*d.hits >= d.rows || (!d.mixed && e.tuplesProven(d)) {
		return nil
	}
	return e.finishTuples(s, a, errp)
}

// finishTuples ends a COUNT(DISTINCT f) state's tuples: their count when they prove f one-to-one, else f's value
// over each, met as a solution's value is.
func (e *evaluator) finishTuples(s *aggState, a *algebra.Aggregate, errp *error) error {
	d := s.tuples
	s.tuples = nil
	if !d.mixed && e.tuplesProven(d) {
		s.n += int64(d.len())
		return nil
	}
	row := e.newRow()
	var fail error
	d.each(func(k tupleKey) {
		if fail != nil {
			return
		}
		for i, slot := range d.form.slots {
			row[slot] = k[i]
		}
		t, err := e.eval(a.Expr, row, errp)
		if *errp != nil {
			fail = *errp
			return
		}
		if err != nil {
			s.errs++
			return
		}
		dup, err := e.distinctMet(s, false, 0, t)
		if err != nil {
			fail = err
		} else if !dup {
			s.n++
		}
	})
	return fail
}

// tuplesProven reports whether f is one-to-one over d's tuples and has a value on each (see the top of the file).
func (e *evaluator) tuplesProven(d *distinctTuples) bool {
	f := d.form
	if f.parts == nil {
		return false
	}
	// The check holds each part's ids for a moment: only where the budget has room for them.
	if int64(d.len())*int64(len(f.parts))*8 > e.room()/2 {
		return false
	}
	size := int64(f.consts)
	ids := make([]ID, 0, d.len())
	for _, p := range f.parts {
		ids = ids[:0]
		d.each(func(k tupleKey) { ids = append(ids, k[p.col]) })
		// In id order, the terms are read from the dictionary in the order they are stored: 25 000 products of
		// h56 read in the order met took a third of the query, cache misses.
		slices.Sort(ids)
		ids = slices.Compact(ids)
		longest, iris := 0, true
		for _, id := range ids {
			if id == 0 {
				return false
			}
			t := e.t.term(id)
			if t.Kind != rdf.KindIRI && t.Kind != rdf.KindLiteral {
				return false
			}
			if p.stop >= 0 && strings.IndexByte(t.Value, byte(p.stop)) >= 0 {
				return false
			}
			iris = iris && t.Kind == rdf.KindIRI
			longest = max(longest, len(t.Value))
		}
		// Distinct ids are distinct terms (ids are interned), so IRIs have distinct texts; a literal's text may be
		// another literal's or an IRI's.
		if !iris && !distinctTexts(e, ids) {
			return false
		}
		size += int64(longest)
	}
	// CONCAT longer than the query may hold stops the query (ErrTooLong); computing the values says so.
	return size <= e.room()
}

// distinctTexts reports whether no two of ids have the same STR.
func distinctTexts(e *evaluator, ids []ID) bool {
	texts := make(map[string]struct{}, len(ids))
	for _, id := range ids {
		v := e.t.term(id).Value
		if _, dup := texts[v]; dup {
			return false
		}
		texts[v] = struct{}{}
	}
	return true
}
