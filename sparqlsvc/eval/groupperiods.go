package eval

import (
	"slices"
	"sort"
	"time"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// GROUP BY YEAR(?d) (or YEAR and MONTH, DAY, HOURS, MINUTES of ?d) over one pattern ?s <p> ?d: the dictionary
// numbers dateTimes in value order (index.DateBlock), so POS holds p's dateTimes by instant, and the rows of one
// local year (month, day …) lie next to each other. When every aggregate is met by a run's extremes (COUNT without
// DISTINCT, MIN, MAX and SAMPLE of ?d), a run of rows with one reading of the keys' fields is handed to the group
// as its first row once and its last row for the rest: COUNT counts them all, MIN meets the first, MAX the last.
// The run's end is found by galloping and bisection over the rows, so GROUP BY YEAR over 290 000 reviews reads a
// few dozen dates instead of every one.
//
// The keys read the wall clock as written (YEAR of "2020-01-01T00:30:00+02:00" is 2020), while the ids ascend with
// the instant. Without a timezone the two are one clock. With one, a value's wall clock lies within tzSlack of its
// instant, so a row between rows j and k has its wall clock within 2·tzSlack of theirs: rows j … k are one
// period's when j's wall clock is at least 2·tzSlack after the period's start and k's at least 2·tzSlack before
// its end. Rows nearer a period's boundary are read one by one.

// periodField returns the finest date field (an index in fieldFuncs) x's keys read when every key is YEAR …
// MINUTES of the variable in slot os and every aggregate is met by a run's extremes, -1 otherwise; and whether an
// aggregate is MIN or MAX.
func (e *evaluator) periodField(x *algebra.Group, os int) (field int, minMax bool) {
	if len(x.Keys) == 0 {
		return -1, false
	}
	finest := -1
	for _, k := range x.Keys {
		c, ok := k.Expr.(*algebra.Call)
		if !ok {
			return -1, false
		}
		v, ok := fieldArg(c)
		f := slices.Index(fieldFuncs[:], c.Func) // SECONDS is not in a period's reading
		if !ok || f < 0 || e.slot(v) != os {
			return -1, false
		}
		finest = max(finest, f)
	}
	for _, a := range x.Aggregates {
		ag := a.Aggregate
		if ag.Expr == nil {
			if ag.Name != "COUNT" || ag.Distinct {
				return -1, false
			}
			continue
		}
		v, ok := ag.Expr.(algebra.Var)
		if !ok || e.slot(v) != os {
			return -1, false
		}
		switch ag.Name {
		case "MIN", "MAX": // DISTINCT or not: the extremes are the same
			minMax = true
		case "SAMPLE": // the first value met: a run's first
		case "COUNT":
			if ag.Distinct {
				return -1, false
			}
		default:
			return -1, false
		}
	}
	return finest, minMax
}

// oneDateBlock reports whether every row of the ranges whose object has a date reading is of one dictionary date
// block. MIN and MAX meet a group's values in turn, and values of two blocks (with and without a timezone, dates
// and dateTimes) may not compare, so which one they keep can depend on the values between: a run's middle may be
// skipped only where the group's values are of one block, whose ids ascend in a total order. DateTimes after the
// blocks (invalid forms, years beyond the column's) and inline dates count as other blocks.
func (e *evaluator) oneDateBlock(ranges []index.Matches) bool {
	blocks := e.t.dict.DateBlocks()
	one := -1
	for _, m := range ranges {
		rows := m.Rows
		at := func(id ID) int { return sort.Search(len(rows), func(i int) bool { return rows[i][1] >= id }) }
		if k := at(index.InlineDateBound(0, 0, 0)); k < len(rows) && index.IsInlineDate(rows[k][1]) {
			return false
		}
		a, b := at(blocks[0].Lo), at(index.MaxDictID+1)
		if a == b {
			continue
		}
		bi := e.dateBlock(rows[a][1])
		if bi < 0 || rows[b-1][1] > blocks[bi].Hi || (one >= 0 && bi != one) {
			return false
		}
		one = bi
	}
	return true
}

// periodReader finds runs of one period in object-ordered rows (POS) of dateTimes of the dictionary's blocks.
type periodReader struct {
	e     *evaluator
	field int // the finest field read, an index in fieldFuncs
	// Where the rows of the date block last met end (or of the objects in no block), and whether runs are read in it.
	end    int
	usable bool
	slack  time.Duration
}

// wall is a wall-clock reading to the minute: year, month, day, hour, minute.
type wall [5]int64

func (a wall) before(b wall) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func wallOfTime(t time.Time) wall {
	return wall{int64(t.Year()), int64(t.Month()), int64(t.Day()), int64(t.Hour()), int64(t.Minute())}
}

func (w wall) time() time.Time {
	return time.Date(int(w[0]), time.Month(w[1]), int(w[2]), int(w[3]), int(w[4]), 0, 0, time.UTC)
}

// periodUnits is a period's length by its finest field, for the estimate of a run's length.
var periodUnits = [5]float64{365.25 * 86400, 30.44 * 86400, 86400, 3600, 60}

// wallAt returns the wall clock of row k's object, which must be of a date block.
func (p *periodReader) wallAt(m index.Matches, k int) wall {
	v, _ := p.e.t.dict.DateValue(m.Rows[k][1])
	return wall{int64(v.Year), int64(v.Month), int64(v.Day), int64(v.Hour), int64(v.Minute)}
}

// enter reads the date block of row j's object: where its rows end among the n, and whether runs are worth
// reading in it (an xsd:date has no hours or minutes for the general path to fail on, but they are not read here;
// a run expected shorter than 4 rows is not sought).
func (p *periodReader) enter(m index.Matches, j, n int) {
	p.usable = false
	o := m.Rows[j][1]
	blocks := p.e.t.dict.DateBlocks()
	bi := p.e.dateBlock(o)
	if bi < 0 { // up to the next block's first row
		next := ^ID(0)
		for _, b := range blocks {
			if b.Lo > o {
				next = min(next, b.Lo)
			}
		}
		p.end = j + 1 + sort.Search(n-j-1, func(i int) bool { return m.Rows[j+1+i][1] >= next })
		return
	}
	b := blocks[bi]
	p.end = j + sort.Search(n-j, func(i int) bool { return m.Rows[j+i][1] > b.Hi })
	if b.Class.IsDate() && p.field > 2 {
		return
	}
	p.slack = 0
	if b.Class.HasZone() {
		p.slack = 2 * tzSlack * time.Second
	}
	span := p.wallAt(m, p.end-1).time().Sub(p.wallAt(m, j).time()).Seconds()
	unit := periodUnits[p.field]
	p.usable = float64(p.end-j)*unit/(span+unit) >= 4
}

// run returns how many rows from j on are of the period of row j's object: all of them have one reading of the
// fields up to p.field. 0 or 1 when there is no such run to read (the caller reads row j as before).
func (p *periodReader) run(m index.Matches, j, n int) int {
	if j >= p.end {
		p.enter(m, j, n)
	}
	if !p.usable {
		return 0
	}
	w := p.wallAt(m, j)
	start := w
	for f := p.field + 1; f < len(start); f++ {
		start[f] = fieldDomain[f][0]
	}
	t0 := start.time()
	var t1 time.Time
	switch p.field {
	case 0:
		t1 = t0.AddDate(1, 0, 0)
	case 1:
		t1 = t0.AddDate(0, 1, 0)
	case 2:
		t1 = t0.AddDate(0, 0, 1)
	case 3:
		t1 = t0.Add(time.Hour)
	default:
		t1 = t0.Add(time.Minute)
	}
	if w.before(wallOfTime(t0.Add(p.slack))) {
		return 1
	}
	bound := wallOfTime(t1.Add(-p.slack))
	in := func(k int) bool { return p.wallAt(m, k).before(bound) }
	if !in(j) {
		return 1
	}
	// Gallop, then bisect: in(lo) holds, and hi is the end or in(hi) fails. With a timezone the readings are not
	// monotone, but in(lo) alone is what makes rows j … lo one period's.
	lo, hi, step := j, j, 1
	for {
		hi = lo + step
		if hi >= p.end {
			hi = p.end
			break
		}
		if !in(hi) {
			break
		}
		lo, step = hi, 2*step
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if in(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo - j + 1
}
