package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPrefetchAnyID: the hints take any id — subjects with and without rows, the last one, ids past the starts
// and above the dictionary's range, graphs with and without starts — and change nothing a probe answers.
func TestPrefetchAnyID(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 7))
	var rows []Row
	for range 5000 {
		rows = append(rows, Row{ID(1 + 2*r.IntN(1000)), ID(1 + r.IntN(4)), ID(1 + r.IntN(9))})
	}
	slices.SortFunc(rows, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
	rows = slices.Compact(rows)
	g, plain := withStarts(t, rows)
	ids := []ID{0, 1, 2, 1999, 2000, 2001, 2002, 1 << 20, MaxDictID, MaxDictID + 1, ^ID(0)}
	for range 2000 {
		ids = append(ids, ID(r.IntN(2100)))
	}
	for _, gr := range []*Graph{g, plain} {
		for _, s := range ids {
			before := gr.Match(s, 0, 0)
			gr.PrefetchStarts(s)
			gr.PrefetchRows(s)
			if after := gr.Match(s, 0, 0); !slices.Equal(before.Rows, after.Rows) {
				t.Fatalf("subject %d: %d rows before the hints, %d after", s, before.Len(), after.Len())
			}
		}
	}
}
