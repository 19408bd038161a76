package index

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestFieldRunsMatchColumn: for every id of the date blocks (dateTimes and dates of every class, timezones from
// -14:00 to +14:00, fractions, 24:00:00, years before 1 and past 9999), the run Find gives holds the id and the
// fields DateValue reads from the column; ids outside the column are refused; a column with more runs than
// maxFieldRuns has no table, on a built and on an opened index.
func TestFieldRunsMatchColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 3))
	b := NewBuilder()
	for i := range 4000 {
		s := rdf.IRI("http://ex.org/s" + strconv.Itoa(i%900))
		var o rdf.Term
		if i < len(dateForms) {
			o = rdf.Literal(dateForms[i][1], dateForms[i][0])
		} else {
			o = randomDateForm(r)
		}
		if err := b.Add(rdf.Triple(s, rdf.IRI("http://ex.org/p"), o)); err != nil {
			t.Fatal(err)
		}
		if err := b.Add(rdf.Triple(s, rdf.IRI("http://ex.org/q"), rdf.String("x"+strconv.Itoa(i)))); err != nil {
			t.Fatal(err)
		}
	}
	built := b.Build()
	for name, d := range map[string]*Dataset{"built": built, "opened": saveAndOpen(t, built)} {
		blocks := d.Dict.DateBlocks()
		lo, hi := blocks[0].Lo, blocks[len(blocks)-1].Hi
		for level, fields := range [][]string{{"YEAR", "MONTH"}, {"YEAR", "MONTH", "DAY"}} {
			runs := d.Dict.FieldRuns(level)
			if runs == nil {
				t.Fatalf("%s: no runs at level %d", name, level)
			}
			if len(runs.Starts) < 2 || len(runs.Starts) >= int(hi-lo+1) {
				t.Fatalf("%s: %d runs over %d ids: not runs", name, len(runs.Starts), hi-lo+1)
			}
			for _, id := range []ID{lo - 1, hi + 1, 0} {
				if _, _, _, ok := runs.Find(id); ok {
					t.Errorf("%s: Find(%d) outside the column %d…%d answered", name, id, lo, hi)
				}
			}
			for id := lo; id <= hi; id++ {
				v, ok := d.Dict.DateValue(id)
				first, last, f, found := runs.Find(id)
				if !ok || !found || id < first || id > last {
					t.Fatalf("%s: id %d: DateValue ok %v, run %d…%d found %v", name, id, ok, first, last, found)
				}
				for _, fn := range fields {
					if got, want := RunField(f, fn), v.Field(fn); got != want {
						t.Fatalf("%s: %s of %v (id %d) from the runs %d, column %d", name, fn, d.Dict.Term(id), id, got, want)
					}
				}
			}
		}
	}
	// Runs of uneven lengths (1 to 3 000 ids): the run Find starts from (hint) is the one holding the id or before it.
	var uc []uint64
	for m := uint64(0); len(uc) < 60000; m++ {
		for range 1 + r.IntN([]int{1, 20, 3000}[r.IntN(3)]) {
			uc = append(uc, m<<24)
		}
	}
	uneven := fieldRuns(uc, 7, runMasks[RunsMonth])
	for i := range uc {
		first, last, f, ok := uneven.Find(ID(7 + i))
		if !ok || f != uc[i] || first > ID(7+i) || last < ID(7+i) || uc[first-7] != f || uc[last-7] != f ||
			(first > 7 && uc[first-8] == f) || (int(last-7)+1 < len(uc) && uc[last-6] == f) {
			t.Fatalf("id %d (entry %x): run %d…%d fields %x found %v", 7+i, uc[i], first, last, f, ok)
		}
	}
	// More runs than the bound: no table, and the column is counted once.
	col := make([]uint64, maxFieldRuns+1)
	for i := range col {
		col[i] = uint64(i) << 24
	}
	if fieldRuns(col, 1, runMasks[RunsMonth]) != nil {
		t.Fatal("a column of maxFieldRuns+1 months has a table")
	}
	if got := fieldRuns(col[:maxFieldRuns], 1, runMasks[RunsMonth]); got == nil || len(got.Starts) != maxFieldRuns {
		t.Fatal("a column of maxFieldRuns months has no table")
	}
}
