package eval

import (
	"cmp"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A GROUP BY key of arithmetic over YEAR and MONTH of dateTimes (h45's (YEAR(?to) - YEAR(?from)) * 12 +
// MONTH(?to) - MONTH(?from) over every offer of some vendors) was computed per solution: four field reads and three
// NumberAriths, a third of the query. Its value is a function of the variables' (YEAR, MONTH) alone, which the
// dictionary's field runs give (runField, index.FieldRuns): monthMemo keeps the key's id per pair of those
// readings in a small direct-mapped table, so the arithmetic runs once per pair of months met, not per solution.
// Where a variable's value is not in the runs (an inline date, a string, a column without runs) the key is
// computed as before.

// monthMemoBits: the table has 1<<monthMemoBits slots (96 KiB), several times the pairs of months a few years of
// dates make, so that few pairs share a slot (with 1 024, h45 still computed a key for a tenth of its offers).
const monthMemoBits = 12

// monthMemo is one key's table (groupState.forms).
type monthMemo struct {
	slots []int // the variables the key reads, one or two
	table []monthSlot
	size  int // the table's slots, made after monthMemoAfter solutions
	seen  int
}

// monthMemoAfter is how many solutions a key is computed for before its table is made: a GROUP BY evaluated per
// row of an outer pattern, over a few solutions each time, would otherwise clear 96 KiB per row.
const monthMemoAfter = 256

// monthSlot is a pair of (YEAR, MONTH) readings (index.FieldRuns' masked entries) and the key's id for them.
type monthSlot struct {
	a, b uint64
	id   ID
	set  bool
}

// newMonthMemo returns x's table when x is an arithmetic expression (arithExpr) whose operands are constants and
// YEAR or MONTH of at most two variables, or nil.
func (e *evaluator) newMonthMemo(x algebra.Expr) *monthMemo {
	if !arithExpr(x) {
		return nil
	}
	m := &monthMemo{}
	var walk func(x algebra.Expr) bool
	walk = func(x algebra.Expr) bool {
		switch x := x.(type) {
		case algebra.Constant:
			return true
		case *algebra.Call:
			if v, ok := fieldArg(x); ok {
				if x.Func != "YEAR" && x.Func != "MONTH" {
					return false
				}
				s := e.slot(v)
				for _, t := range m.slots {
					if t == s {
						return true
					}
				}
				m.slots = append(m.slots, s)
				return len(m.slots) <= 2
			}
			if !arithFunc(x) {
				return false
			}
			for _, a := range x.Args {
				if !walk(a) {
					return false
				}
			}
			return true
		}
		return false
	}
	if !walk(x) || len(m.slots) == 0 {
		return nil
	}
	m.size = cmp.Or(e.opt.monthSlots, 1<<monthMemoBits)
	return m
}

// key is x's id for row from m's table, computed (numberID) on a miss; ok false when a variable's value is not
// in the field runs, numberID cannot compute it or the table is not made yet, for the caller's own path.
func (m *monthMemo) key(e *evaluator, x algebra.Expr, row []ID) (ID, bool) {
	if m.table == nil {
		if m.seen++; m.seen < monthMemoAfter {
			return 0, false
		}
		m.table = make([]monthSlot, m.size)
	}
	var f [2]uint64
	for j, s := range m.slots {
		v, ok := e.runField("MONTH", row[s])
		if !ok {
			return 0, false
		}
		f[j] = v
	}
	h := (f[0]*0x9e3779b97f4a7c15 ^ f[1]*0xc2b2ae3d27d4eb4f) >> 40
	sl := &m.table[h&uint64(len(m.table)-1)]
	if sl.set && sl.a == f[0] && sl.b == f[1] {
		return sl.id, true
	}
	id, ok := e.numberID(x, row, false)
	if !ok {
		return 0, false
	}
	*sl = monthSlot{a: f[0], b: f[1], id: id, set: true}
	return id, true
}
