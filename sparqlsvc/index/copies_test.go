package index

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"
)

// copiesGraph is a graph of preds predicates with n triples each, random subjects and objects (of objs values).
func copiesGraph(r *rand.Rand, preds, n, objs int) *Graph {
	var spo []Row
	for p := 1; p <= preds; p++ {
		for range n {
			spo = append(spo, Row{ID(r.IntN(1<<20) + 1), ID(p), ID(r.IntN(objs) + 1)})
		}
	}
	slices.SortFunc(spo, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
	spo = slices.Compact(spo)
	pos := make([]Row, len(spo))
	osp := make([]Row, len(spo))
	for i, t := range spo {
		pos[i] = Row{t[1], t[2], t[0]}
		osp[i] = Row{t[2], t[0], t[1]}
	}
	for _, rows := range [][]Row{pos, osp} {
		slices.SortFunc(rows, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
	}
	return &Graph{perms: [3][]Row{SPO: spo, POS: pos, OSP: osp}}
}

func sameArray(a, b []Row) bool { return len(a) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b) }

// TestSubjectCopiesKeptAndBounded: a predicate's subject-sorted rows are sorted once and kept for later calls,
// whole or as the parts a filter keeps; the copies never hold more than the graph's bound, the least recently used
// dropped first; rows not of the graph's POS are sorted and not kept; concurrent callers share one copy. Every
// answer equals the sort's.
func TestSubjectCopiesKeptAndBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := copiesGraph(r, 6, 5000, 1<<20) // bound: 30 000 rows / copyShare, room for one predicate's 5 000 rows
	check := func(what string, got []Row, parts ...[]Row) {
		t.Helper()
		if want := sortBySubject(parts...); !slices.Equal(got, want) {
			t.Fatalf("%s: rows differ from the sort's", what)
		}
		if b := g.CopyBytes(); b > g.CopyLimit() {
			t.Fatalf("%s: copies hold %d bytes, over the bound %d", what, b, g.CopyLimit())
		}
	}
	p1, p2 := g.SubjectRows(1), g.SubjectRows(1)
	check("p1", p1, g.Match(0, 1, 0).Rows)
	if !sameArray(p1, p2) {
		t.Fatal("p1's rows were sorted again, not kept")
	}
	if g.CopyBytes() != int64(len(p1))*12 {
		t.Fatalf("copies hold %d bytes, want %d", g.CopyBytes(), len(p1)*12)
	}
	q := g.SubjectRows(2)
	check("p2", q, g.Match(0, 2, 0).Rows)
	if !sameArray(q, g.SubjectRows(2)) {
		t.Fatal("p2's rows were not kept")
	}
	if again := g.SubjectRows(1); sameArray(again, p1) {
		t.Fatal("p1's copy was kept beside p2's, over the bound")
	} else {
		check("p1 again", again, g.Match(0, 1, 0).Rows)
	}
	// Parts of a predicate's range, as a filter's value ranges keep them.
	pr := g.Match(0, 3, 0).Rows
	parts := [][]Row{pr[100:1500], pr[2000:4900]}
	a := g.SortedBySubject(parts...)
	check("parts", a, parts...)
	if !sameArray(a, g.SortedBySubject(parts...)) {
		t.Fatal("the parts' rows were not kept")
	}
	if b := g.SortedBySubject(pr[100:1500], pr[2000:4901]); sameArray(a, b) {
		t.Fatal("other parts were answered with the first parts' copy")
	} else {
		check("other parts", b, pr[100:1500], pr[2000:4901])
	}
	// Rows of no graph's POS: sorted, not kept.
	own := slices.Clone(g.Match(0, 4, 0).Rows)
	before := g.CopyBytes()
	o := g.SortedBySubject(own)
	check("own rows", o, own)
	if g.CopyBytes() != before || sameArray(o, g.SortedBySubject(own)) {
		t.Fatal("rows not of the graph's POS were kept")
	}
	// Concurrent callers of a copy not yet kept share one.
	var wg sync.WaitGroup
	got := make([][]Row, 8)
	for i := range got {
		wg.Go(func() { got[i] = g.SubjectRows(5) })
	}
	wg.Wait()
	check("concurrent", got[0], g.Match(0, 5, 0).Rows)
	for _, rows := range got[1:] {
		if !sameArray(rows, got[0]) {
			t.Fatal("concurrent callers sorted their own copies")
		}
	}
}

// TestObjectTableKeptOnceEarned: a predicate's table of objects is built and kept once far probes by object over
// the graph's queries number 1/objectShare of its rows, not before; it answers as POS does, and is found again by
// later queries (KeptObjectTable).
func TestObjectTableKeptOnceEarned(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g := copiesGraph(r, 3, 20000, 2000)
	need := g.Match(0, 2, 0).Len() / objectShare
	if g.KeptObjectTable(2) != nil {
		t.Fatal("a table was kept before any probe")
	}
	if g.NoteObjectProbes(2, need/2) != nil || g.NoteObjectProbes(1, need) == nil {
		t.Fatal("the table was built before it was earned, or not once it was")
	}
	if g.KeptObjectTable(2) != nil {
		t.Fatal("p2's table was kept after half the probes that earn it")
	}
	tab := g.NoteObjectProbes(2, need-need/2) // a later query's probes complete the count
	if tab == nil || g.KeptObjectTable(2) != tab {
		t.Fatal("p2's table was not kept once earned")
	}
	if g.CopyBytes() > g.CopyLimit() {
		t.Fatalf("kept %d bytes, over the bound %d", g.CopyBytes(), g.CopyLimit())
	}
	for _, row := range g.Match(0, 2, 0).Rows[:500] {
		if got, want := tab.Match(row[1]), g.Match(0, 2, row[1]); !slices.Equal(got.Rows, want.Rows) {
			t.Fatalf("object %d: the table's rows differ from POS's", row[1])
		}
	}
	if got := tab.Match(1 << 20); got.Len() != 0 {
		t.Fatal("an absent object matched rows")
	}
}

// TestObjectTableTooLargeBuiltOnce: a table of objects over the copies' bound is built once, when its probes earn
// it, and not kept; later probes neither build it again nor find it.
func TestObjectTableTooLargeBuiltOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	g := copiesGraph(r, 1, 20000, 1<<20) // ~20 000 distinct objects: 64 Ki slots, 256 KiB over a 60 KiB bound
	need := g.Match(0, 1, 0).Len() / objectShare
	for range 20 {
		if g.NoteObjectProbes(1, need) != nil {
			t.Fatal("a table over the bound was kept")
		}
	}
	if g.copies.builtTables != 1 || g.KeptObjectTable(1) != nil || g.CopyBytes() != 0 {
		t.Fatalf("built %d times (want 1), kept %v, %d bytes", g.copies.builtTables, g.KeptObjectTable(1) != nil, g.CopyBytes())
	}
}

// TestSubjectCopyAfterFailedSort: a sort that fails (panics) for one caller leaves no entry that a later caller
// takes for a sorted copy: the later caller gets the sorted rows, and the copy is kept for the ones after it.
func TestSubjectCopyAfterFailedSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g := copiesGraph(r, 6, 5000, 1<<20)
	failed := false
	g.copies.sort = func(parts ...[]Row) []Row {
		if !failed {
			failed = true
			panic("sort failed")
		}
		return sortBySubject(parts...)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the failing sort did not panic")
			}
		}()
		g.SubjectRows(1)
	}()
	want := sortBySubject(g.Match(0, 1, 0).Rows)
	got := g.SubjectRows(1)
	if !slices.Equal(got, want) {
		t.Fatalf("after a failed sort: %d rows, want the %d sorted rows", len(got), len(want))
	}
	if again := g.SubjectRows(1); !sameArray(got, again) {
		t.Fatal("the copy sorted after the failure was not kept")
	}
	if b, w := g.CopyBytes(), int64(len(want))*12; b != w {
		t.Fatalf("copies hold %d bytes, want %d", b, w)
	}
}

// TestBySubjectKept: a predicate's BySubject graph, rows and table of subjects, is built once and kept for later
// calls while it fits (before, its table was built on every call), the least recently used dropped within the
// bound; one too large for the bound is built for each caller. Every graph answers each subject's probe as the
// whole graph does.
func TestBySubjectKept(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	answers := func(g, sub *Graph, p ID) {
		t.Helper()
		for _, row := range g.Match(0, p, 0).Rows[:200] {
			s := row[2]
			for _, q := range [][3]ID{{s, p, 0}, {s + 1, p, 0}} {
				want, got := g.Match(q[0], q[1], q[2]), sub.MatchSubject(q[0], q[1], q[2])
				if want.Len() != got.Len() {
					t.Fatalf("p%d s%d: %d rows, want %d", p, q[0], got.Len(), want.Len())
				}
			}
		}
	}
	g := copiesGraph(r, 20, 5000, 1<<20) // bound 300 000 bytes: two BySubject graphs of 125 000 bytes with their rows
	a, b := g.BySubject(1), g.BySubject(1)
	if a != b {
		t.Fatal("p1's graph was built again, not kept")
	}
	answers(g, a, 1)
	for p := ID(2); p <= 6; p++ {
		answers(g, g.BySubject(p), p)
		if g.CopyBytes() > g.CopyLimit() {
			t.Fatalf("p%d: copies hold %d bytes, over the bound %d", p, g.CopyBytes(), g.CopyLimit())
		}
	}
	if c := g.BySubject(1); c == a {
		t.Fatal("p1's graph was kept past the bound")
	} else {
		answers(g, c, 1)
	}
	small := copiesGraph(r, 2, 5000, 1<<20) // bound 30 000 bytes: none fits
	if x, y := small.BySubject(1), small.BySubject(1); x == y || small.CopyBytes() > small.CopyLimit() {
		t.Fatalf("a graph over the bound was kept (%d bytes, bound %d)", small.CopyBytes(), small.CopyLimit())
	} else {
		answers(small, x, 1)
	}
}
