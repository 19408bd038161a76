package index

import "unsafe"

// A join that probes SPO once per row of an outer range (h45: each offer of some vendors, its validFrom; h06: each
// next-day offer, its price) pays two dependent cache misses per row at 10 M triples, the subject's starts entry
// and then its rows, each waited for in turn. The outer range knows the subjects ahead, so the evaluator hints
// them a few rows early: the starts entry of the subject d rows ahead, and the rows of the one d/2 ahead (whose
// starts entry the first hint brought in). A hint changes no answer.

// PrefetchStarts hints the starts entry of subject s.
func (g *Graph) PrefetchStarts(s ID) {
	if st := g.starts.Load(); st != nil && int(s)+1 < len(*st) {
		prefetch(unsafe.Pointer(&(*st)[s]))
	}
}

// PrefetchRows hints the first SPO rows of subject s (its starts entry should be in the cache by then).
func (g *Graph) PrefetchRows(s ID) {
	if lo, hi, ok := g.subjectRange(s); ok && lo < hi {
		prefetch(unsafe.Pointer(&g.perms[SPO][lo]))
	}
}
