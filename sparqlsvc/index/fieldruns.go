package index

import "sort"

// A query that reads YEAR or MONTH (or DAY) of dateTimes met in subject order (h45: the validity of each offer of
// some vendors, two dateTimes per offer) reads their column entries (DateColumn) far apart: a cache miss per
// dateTime, a quarter of the query. Ids ascend in value order within a block, so the column's YEAR and MONTH stay
// the same over long runs of ids (about a hundred runs a block for BSBM's dates); a table of those runs fits the
// first cache level and answers the fields by a short binary search. The table is the column itself, read once:
// it holds whatever the column holds (the wall clock as written, whatever the timezone), so it can never disagree
// with DateValue. A column with more runs than maxFieldRuns (dateTimes of many timezones crossing month ends in
// turn) has no table, and its readers read the column.

// FieldRuns is one level of the column as runs of ids: run i covers the ids Starts[i] … Starts[i+1]-1 (the last
// run up to Last) and holds Fields[i], the column entry of each of them masked to the level's fields.
type FieldRuns struct {
	Starts []ID
	Fields []uint64
	Last   ID
	// hint[b] is the run holding the id Starts[0] + b<<shift, for about four buckets a run: Find starts there and
	// steps over the few runs that begin within the bucket. A binary search over the starts (h45: two per offer,
	// the months of its validFrom and validTo in no order) mispredicted most of its branches.
	hint  []uint16
	shift uint
}

// Levels of FieldRuns: the fields the runs keep.
const (
	RunsMonth = iota // YEAR and MONTH
	RunsDay          // YEAR, MONTH and DAY
)

// runMasks are the column bits each level keeps (packFields).
var runMasks = [2]uint64{0xffffffff<<32 | 0xff<<24, 0xffffffff<<32 | 0xff<<24 | 0xff<<16}

// maxFieldRuns bounds a table: 8 192 runs are 96 KiB, searched in 13 steps.
const maxFieldRuns = 8192

// FieldRuns returns the runs of level (RunsMonth, RunsDay), made on the first call and kept with the dictionary,
// or nil when the column is empty or has more than maxFieldRuns runs at that level.
func (d *Dict) FieldRuns(level int) *FieldRuns {
	if r := d.fieldRuns[level].Load(); r != nil {
		if r.Starts == nil {
			return nil
		}
		return r
	}
	r := &FieldRuns{} // no table: kept too, so the column is counted once
	if len(d.dateBlocks) > 0 && len(d.dateFields) > 0 {
		if runs := fieldRuns(d.dateFields, d.dateBlocks[0].Lo, runMasks[level]); runs != nil {
			r = runs
		}
	}
	d.fieldRuns[level].Store(r) // two callers at once make equal tables; either is kept
	if r.Starts == nil {
		return nil
	}
	return r
}

// fieldRuns makes the runs of col (entry i: the id lo+i) masked by mask, or nil past maxFieldRuns.
func fieldRuns(col []uint64, lo ID, mask uint64) *FieldRuns {
	n := 0
	for i := range col {
		if i == 0 || col[i]&mask != col[i-1]&mask {
			if n++; n > maxFieldRuns {
				return nil
			}
		}
	}
	r := &FieldRuns{Starts: make([]ID, 0, n), Fields: make([]uint64, 0, n), Last: lo + ID(len(col)-1)}
	for i := range col {
		if i == 0 || col[i]&mask != col[i-1]&mask {
			r.Starts = append(r.Starts, lo+ID(i))
			r.Fields = append(r.Fields, col[i]&mask)
		}
	}
	for len(col)>>r.shift > 4*n {
		r.shift++
	}
	r.hint = make([]uint16, (len(col)-1)>>r.shift+1)
	run := 0
	for b := range r.hint {
		id := lo + ID(b<<r.shift)
		for run+1 < n && r.Starts[run+1] <= id {
			run++
		}
		r.hint[b] = uint16(run)
	}
	return r
}

// Find returns the run holding id: its first and last id and its fields; ok is false for an id outside the
// column.
func (r *FieldRuns) Find(id ID) (first, last ID, fields uint64, ok bool) {
	if id < r.Starts[0] || id > r.Last {
		return 0, 0, 0, false
	}
	var i int
	if r.hint != nil {
		i = int(r.hint[(id-r.Starts[0])>>r.shift])
		for i+1 < len(r.Starts) && r.Starts[i+1] <= id {
			i++
		}
	} else {
		i = sort.Search(len(r.Starts), func(i int) bool { return r.Starts[i] > id }) - 1
	}
	last = r.Last
	if i+1 < len(r.Starts) {
		last = r.Starts[i+1] - 1
	}
	return r.Starts[i], last, r.Fields[i], true
}

// RunField is YEAR, MONTH or DAY of a FieldRuns entry.
func RunField(fields uint64, name string) int32 {
	switch name {
	case "YEAR":
		return int32(fields >> 32)
	case "MONTH":
		return int32(uint8(fields >> 24))
	}
	return int32(uint8(fields >> 16))
}
