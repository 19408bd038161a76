package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY over one pattern whose keys, aggregates and filters read the object only through YEAR … MINUTES of it
// (d07: GROUP BY (HOURS(?d) AS ?h) with SUM(IF(MINUTES(?d) < 30, 1, 0)) over every review) gives every row whose
// dateTime has the same readings of those fields the same key, the same filter results and the same aggregate
// inputs, whether or not the dateTimes are equal: 290 000 distinct review dates have 1 440 (hour, minute) pairs.
// SECONDS is a reading too (60 000 thousandths), taken from the lexical form (secondsMilli): d30 grouped 580 000
// offers by it and d16 filtered 290 000 reviews on it, each row through the group's key, lookup and COUNT.
// groupRows reads each dateTime's fields from the dictionary's column (index.Dict.DateColumn) and sends a tuple's
// first row through the group as usual (its group is made then, so groups keep the order of their first rows); the
// tuple's later rows are only counted, and handed to the group as one solution with their count when groupRows ends
// (accumulateN: COUNT adds the count, SUM and AVG add the number times the count, builtin.Sum.AddNumberN).
//
// Counting a row later than its turn is exact only for aggregates whose state does not depend on the order of
// their inputs: COUNT (DISTINCT or not), SAMPLE (a tuple's first row is met in turn, the rest have its value), and
// SUM and AVG of integers and decimals. MIN, MAX (OrderCompare is no total order across kinds) and GROUP_CONCAT
// decline the path; a tuple whose SUM or AVG input is anything else (a double, a string, an error) turns the
// counting off for the rest of the group's rows, after handing over what was counted: from then on the rows go in
// turn, as float totals need. xsd:dates (their HOURS and MINUTES are not the column's), ids outside the column, and
// new tuples once the table is full go through the group as usual.

// maxFieldTuples bounds a group's table of tuples (fieldTuples): 4 096 entries of 32 bytes, not charged to the
// query, like groupState.recent. HOURS and MINUTES together have 1 440 readings.
const maxFieldTuples = 4096

// fieldReader is what groupRows needs to read a range's rows by tuple: the column and the fields read.
type fieldReader struct {
	col     []uint64
	lo, hi  ID     // the dateTimes' ids (the column's first blocks, with and without a timezone)
	mask    uint64 // the bits of the column entry the expressions read
	seconds bool   // SECONDS is read too: from the lexical form, not the column (secondsMilli)
}

// fieldTuple is one reading of the fields read: its first row's subject and object, the rows counted since the
// last hand-over, and whether its rows pass the filters.
type fieldTuple struct {
	key  uint64
	s, o ID
	n    int64
	sec  uint32 // SECONDS in thousandths, when the reader reads it
	used bool
	fail bool // the filters drop its rows
}

// fieldTuples is a groupState's table of tuples, open addressing by a hash of the key.
type fieldTuples struct {
	slots   []fieldTuple
	len     int
	off     bool // a tuple's SUM or AVG input was no exact number: every row goes in turn
	pending bool // some tuple has rows counted and not handed over
}

// fieldsOf returns the reader for x's groups over the rows of the object in slot os, filtered by ch, when every
// key, aggregate and filter reads the object only through YEAR … MINUTES and no aggregate depends on the order of
// its inputs (above); nil otherwise.
func (e *evaluator) fieldsOf(x *algebra.Group, ch []algebra.Expr, os int) *fieldReader {
	if e.t.dict == nil {
		return nil
	}
	blocks := e.t.dict.DateBlocks()
	col := e.t.dict.DateColumn()
	if len(blocks) == 0 || blocks[0].Class.IsDate() || len(col) == 0 {
		return nil
	}
	f := &fieldReader{col: col, lo: blocks[0].Lo}
	for _, b := range blocks {
		if !b.Class.IsDate() {
			f.hi = b.Hi
		}
	}
	if int(f.hi-f.lo) >= len(col) {
		return nil
	}
	exprs := slices.Clone(ch)
	for _, k := range x.Keys {
		exprs = append(exprs, k.Expr)
	}
	for _, a := range x.Aggregates {
		switch ag := a.Aggregate; {
		case ag.Name == "COUNT" && (ag.Expr != nil || !ag.Distinct):
		case (ag.Name == "SUM" || ag.Name == "AVG") && !ag.Distinct:
		case ag.Name == "SAMPLE":
		default:
			return nil
		}
		if a.Aggregate.Expr != nil {
			exprs = append(exprs, a.Aggregate.Expr)
		}
	}
	for _, x := range exprs {
		if !pushable(x) {
			return nil
		}
		ok := true
		algebra.WalkExpr(x, func(x algebra.Expr) bool {
			switch v := x.(type) {
			case algebra.Var:
				ok = ok && e.slot(v) != os
			case *algebra.Call:
				if a, isField := fieldArg(v); isField && e.slot(a) == os {
					// YEAR … MINUTES from the column; SECONDS (d30: GROUP BY SECONDS(?f) over every offer) from the
					// lexical form, a reading of its own beside the column's.
					if i := slices.Index(fieldFuncs[:], v.Func); i >= 0 {
						f.mask |= fieldBits[i]
					} else {
						f.seconds = true
					}
					return false
				}
			}
			return ok
		})
		if !ok {
			return nil
		}
	}
	if f.mask == 0 && !f.seconds { // nothing reads the object: the range is one run already
		return nil
	}
	return f
}

// fieldBits are the bits of a column entry (index.Dict.DateColumn) that hold YEAR, MONTH, DAY, HOURS and MINUTES.
var fieldBits = [5]uint64{0xffffffff << 32, 0xff << 24, 0xff << 16, 0xff << 8, 0xff}

// tuple returns the tuple of the dateTime id as f reads it, added if new (used false), or nil when id is not a
// dateTime of the column, its SECONDS has more digits than an id holds, the counting is off, or the table is full.
func (gs *groupState) tuple(f *fieldReader, id ID) *fieldTuple {
	if id < f.lo || id > f.hi {
		return nil
	}
	var sec uint32
	if f.seconds {
		var ok bool
		if sec, ok = secondsMilli(gs.e.t.dict.Lexical(id)); !ok {
			return nil
		}
	}
	t := gs.tuples
	if t == nil {
		t = &fieldTuples{slots: make([]fieldTuple, 64)}
		gs.tuples = t
	}
	if t.off {
		return nil
	}
	var key uint64
	if f.mask != 0 {
		key = f.col[id-f.lo] & f.mask
	}
	for {
		m := uint64(len(t.slots) - 1)
		for i := tupleHash(key, sec) & m; ; i = (i + 1) & m {
			s := &t.slots[i]
			if !s.used {
				if 4*(t.len+1) > 3*len(t.slots) {
					break // grow first
				}
				t.len++
				*s = fieldTuple{key: key, sec: sec}
				return s
			}
			if s.key == key && s.sec == sec {
				return s
			}
		}
		if 2*len(t.slots) > maxFieldTuples {
			return nil
		}
		old := t.slots
		t.slots, t.len = make([]fieldTuple, 2*len(old)), 0
		for _, s := range old {
			if s.used {
				n := uint64(len(t.slots) - 1)
				i := tupleHash(s.key, s.sec) & n
				for t.slots[i].used {
					i = (i + 1) & n
				}
				t.slots[i] = s
				t.len++
			}
		}
	}
}

// tupleHash is the table's hash of a reading.
func tupleHash(key uint64, sec uint32) uint64 {
	return (key ^ uint64(sec)<<8) * 0x9e3779b97f4a7c15 >> 40
}

// exactInputs reports whether every SUM and AVG of gs takes a number from row that it adds exactly without its term
// (as accumulate does), so that the tuple's rows may be added later than their turn.
func (gs *groupState) exactInputs(row []ID) bool {
	e := gs.e
	for _, a := range gs.x.Aggregates {
		ag := a.Aggregate
		if ag.Name != "SUM" && ag.Name != "AVG" {
			continue
		}
		if v, isVar := ag.Expr.(algebra.Var); isVar {
			if _, _, ok := index.InlineNumber(row[e.varSlot(v)]); !ok {
				return false
			}
		} else if _, ok := e.sumValue(ag.Expr, row); !ok {
			return false
		}
	}
	return true
}

// handOver adds each tuple's counted rows to its group as one solution of that count; row is the caller's, its
// slots ss and os are overwritten.
func (gs *groupState) handOver(ss, os int, row []ID, errp *error) bool {
	t := gs.tuples
	if t == nil || !t.pending {
		return true
	}
	t.pending = false
	for i := range t.slots {
		s := &t.slots[i]
		if s.n == 0 {
			continue
		}
		row[ss], row[os] = s.s, s.o
		n := s.n
		s.n = 0
		if !gs.add(row, n, errp) {
			return false
		}
	}
	return true
}
