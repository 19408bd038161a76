package index

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// Perm names a permutation: the order in which a row stores a triple's positions.
type Perm uint8

const (
	SPO Perm = iota // rows are (s, p, o)
	POS             // rows are (p, o, s)
	OSP             // rows are (o, s, p)
)

// Row is one triple in a permutation's order.
type Row = [3]ID

// Graph is one RDF graph: the same triples sorted three ways, with no duplicates.
type Graph struct {
	perms [3][]Row
	// subjects, in a graph from BySubject, maps each subject to its first SPO row (slots hold row+1, 0 is empty;
	// open addressing, Fibonacci hashing by the top bits): MatchSubject's one probe instead of a search.
	subjects  []uint32
	slotShift uint
	// fences holds, per permutation, every fenceStride-th row, built once far probes of the permutation have
	// cost about what building it does (noteFar); nil until then. A probe that must search a wide range first
	// searches these rows, which stay in the cache, and then one stretch of fenceStride rows.
	fences   [3]atomic.Pointer[[]Row]
	farCount [3]atomic.Int64
	building [3]atomic.Bool
	// starts maps each subject s in the dictionary's range to its first SPO row: s's rows are
	// starts[s]:starts[s+1]. It is built with SPO's fences (noteFar), when the subjects are dense enough
	// (subjectStarts), and then answers a probe by a subject other than the previous one's with two reads of it
	// and a search within the subject's few rows, where a search of the permutation missed the cache a dozen
	// times.
	starts atomic.Pointer[[]uint32]
	// fanouts holds ObjectFanout's answers by predicate (ID → float64): the graph never changes, and counting read
	// up to 2^20 rows, 3-4 ms per run of a query joining offers to their vendors at 10 M (a tenth of h01's CPU).
	fanouts sync.Map
	// copies holds subject-sorted copies of predicates' rows for later queries (SubjectRows, SortedBySubject).
	copies subjectCopies
}

// fenceStride is the distance between fence rows: the fences hold 1/fenceStride of the permutation (12 bytes per
// 64 rows), and a search ends in 64 rows, a few cache lines.
const fenceStride = 64

// fenceMin is the fewest rows a permutation has for fences, and the narrowest range a search narrows with them.
const fenceMin = 1 << 16

// farBatch is how many far probes a cursor counts before it adds them to its graph's shared count (noteFar): an
// atomic addition per probe waited for the search's cache misses.
const farBatch = 64

// noteFar counts n probes of perm that searched far from any hint. Once such probes number 1/(16·fenceStride) of
// the permutation's rows (over every query of the graph: the fences stay), the probe builds the fences. The build
// reads every fenceStride-th row, a cache miss each, about what a sixteenth as many far searches of ~16 misses
// each cost (10 000 probes, 16 ms, for a permutation of 10 M triples).
func (g *Graph) noteFar(perm Perm, n int) {
	rows := g.perms[perm]
	if len(rows) < fenceMin || g.fences[perm].Load() != nil {
		return
	}
	if g.farCount[perm].Add(int64(n)) < int64(len(rows)/(16*fenceStride)) {
		return
	}
	g.buildFences(context.Background(), perm)
}

// buildFences builds perm's fences, and for SPO the subjects' starts, unless they are built or being built, or ctx
// ends first (Dataset.Warm: a later far probe may build them then).
func (g *Graph) buildFences(ctx context.Context, perm Perm) {
	rows := g.perms[perm]
	if len(rows) < fenceMin || g.fences[perm].Load() != nil || !g.building[perm].CompareAndSwap(false, true) {
		return
	}
	f := make([]Row, 0, len(rows)/fenceStride+1)
	for i := 0; i < len(rows); i += fenceStride {
		if i%(fenceStride<<12) == 0 && ctx.Err() != nil {
			g.building[perm].Store(false)
			return
		}
		f = append(f, rows[i])
	}
	if perm == SPO {
		st := subjectStarts(rows)
		if ctx.Err() != nil {
			g.building[perm].Store(false)
			return
		}
		if st != nil {
			g.starts.Store(&st)
		}
	}
	g.fences[perm].Store(&f)
}

// subjectStarts returns the starts of SPO rows' subjects (Graph.starts), or nil when the largest subject id in the
// dictionary's range is more than twice the number of rows (4 bytes per id would then be more than 8 per triple;
// such a graph is a small part of a large dictionary). Subjects above the dictionary's range (literals as
// subjects, which generalized RDF allows) have no start and are searched as before.
func subjectStarts(rows []Row) []uint32 {
	n := sort.Search(len(rows), func(i int) bool { return rows[i][0] > MaxDictID })
	if n == 0 || int64(rows[n-1][0]) > 2*int64(len(rows)) || len(rows) >= 1<<32-1 {
		return nil
	}
	maxS := rows[n-1][0]
	st := make([]uint32, int(maxS)+2)
	s := ID(0)
	for i := 0; i < n; i++ {
		for r := rows[i][0]; s < r; {
			s++
			st[s] = uint32(i)
		}
	}
	for s <= maxS {
		s++
		st[s] = uint32(n)
	}
	return st
}

// subjectRange returns the bounds of subject s's SPO rows from the starts, when they are built and hold s.
func (g *Graph) subjectRange(s ID) (lo, hi int, ok bool) {
	st := g.starts.Load()
	if st == nil || int(s)+1 >= len(*st) {
		return 0, 0, false
	}
	return int((*st)[s]), int((*st)[s+1]), true
}

// fence returns perm's fence rows, or nil.
func (g *Graph) fence(perm Perm) []Row {
	if f := g.fences[perm].Load(); f != nil {
		return *f
	}
	return nil
}

// ObjectFanout estimates how many triples of predicate p share one object: its triples over its distinct objects,
// counted in p's POS range (sorted by object; the first 2^20 rows at most) on the first call for p and kept for the
// graph's later queries; 0 when p has no triples.
func (g *Graph) ObjectFanout(p ID) float64 {
	if f, ok := g.fanouts.Load(p); ok {
		return f.(float64)
	}
	m := g.Match(0, p, 0) // POS: rows are (p, o, s)
	n := min(m.Len(), 1<<20)
	distinct := 0
	for i := 0; i < n; i++ {
		if i == 0 || m.Rows[i][1] != m.Rows[i-1][1] {
			distinct++
		}
	}
	f := 0.0
	if distinct > 0 {
		f = float64(n) / float64(distinct)
	}
	g.fanouts.Store(p, f)
	return f
}

// Len returns the number of triples.
func (g *Graph) Len() int { return len(g.perms[SPO]) }

// Rows returns the rows of one permutation (for full scans in that order).
func (g *Graph) Rows(p Perm) []Row { return g.perms[p] }

// Matches is the result of a triple pattern: a contiguous range of one permutation.
type Matches struct {
	Rows []Row
	Perm Perm
}

// Len returns the number of matching triples.
func (m Matches) Len() int { return len(m.Rows) }

// At returns the i-th match in (s, p, o) order.
func (m Matches) At(i int) (s, p, o ID) {
	r := m.Rows[i]
	switch m.Perm {
	case POS:
		return r[2], r[0], r[1]
	case OSP:
		return r[1], r[2], r[0]
	}
	return r[0], r[1], r[2]
}

// Match returns the triples matching a pattern; 0 in a position matches anything. The permutation is chosen so
// that the bound positions form a prefix, so the answer is one binary search and a slice (no allocation). Matches
// of a pattern with every position bound has Len 0 or 1.
func (g *Graph) Match(s, p, o ID) Matches {
	perm, key := route(s, p, o)
	rows := g.perms[perm]
	if perm == SPO && s != 0 {
		if lo, hi, ok := g.subjectRange(s); ok {
			lo, hi = within(rows, lo, hi, key)
			return Matches{Rows: rows[lo:hi], Perm: SPO}
		}
	}
	lo, hi := prefixRangeFenced(rows, key, 0, gallopLimit, g.fence(perm))
	return Matches{Rows: rows[lo:hi], Perm: perm}
}

// within returns the bounds of the rows of rows[lo:hi], one subject's SPO rows, that match key.
func within(rows []Row, lo, hi int, key Row) (int, int) {
	if key[1] == 0 {
		return lo, hi
	}
	if hi-lo <= withinScan {
		// A subject's few rows lie on a cache line or two: read in order, without the search's set-up (a tenth of
		// a query probing 57 000 offers' prices).
		p, o := key[1], key[2]
		a := lo
		for a < hi && (rows[a][1] < p || (rows[a][1] == p && rows[a][2] < o)) {
			a++
		}
		b := a
		for b < hi && rows[b][1] == p && (o == 0 || rows[b][2] == o) {
			b++
		}
		return a, b
	}
	a, b := prefixRange(rows[lo:hi], key, 0)
	return lo + a, lo + b
}

// withinScan is the most rows of one subject within reads in order rather than searches.
const withinScan = 32

// Cursor remembers where the previous probe of one triple pattern landed. A bind join probes an inner pattern once
// per outer solution, and when the outer solutions come from an index range their ids ascend, so each probe's
// range lies a little after the previous one: MatchFrom then gallops forward from there instead of searching the
// whole permutation. The zero Cursor is ready; a cursor is only a hint, so any position gives the right answer.
type Cursor struct {
	perm Perm
	at   int // the previous probe's first row, plus one (0: none)
	far  int // probes that landed before the previous one or past the gallop: searches of the whole permutation
	miss int // consecutive far probes of a fully bound pattern in perm (see MatchFrom)
	// streak counts consecutive far probes; from farStreak on, a probe gallops shortGallop rows at most.
	streak int
	costly int // near probes of SPO that galloped past costlyGallop rows
}

// costlyGallop is the distance in rows past which a near probe of SPO counts towards building the subjects'
// starts (noteFar): a gallop that far reads about six rows on cache lines of their own.
const costlyGallop = 64

const (
	farStreak   = 4
	shortGallop = 16
)

// Far counts the probes through c that were not near the previous one, each a binary search over the whole
// permutation (a miss in the cache at most steps): the evaluator then reads the pattern's predicate through
// BySubject instead.
func (c *Cursor) Far() int { return c.far }

// MatchFrom is Match starting its search at c, and leaves c at the range it found.
//
// A pattern with every position bound is a membership test that SPO and POS answer alike, and which of them the
// probes ascend in depends on the join: "?x a <Class>" probed with the members of a subclass, in their order,
// ascends in POS (one class, subjects ascending) but jumps about SPO, where each subject's other triples lie
// between them. Such a probe stays in its permutation while it lands near the previous one, and tries the other
// after two far ones in a row; probes in no order in either cost one search each, as before.
func (g *Graph) MatchFrom(c *Cursor, s, p, o ID) Matches {
	perm, key := route(s, p, o)
	full := s != 0 && p != 0 && o != 0
	if full && c.perm == POS {
		perm, key = POS, Row{p, o, s}
	}
	from := 0
	if c.perm == perm {
		from = c.at
	}
	rows := g.perms[perm]
	if perm == SPO && s != 0 && !(c.perm == SPO && c.at > 0 && c.at <= len(rows) && rows[c.at-1][0] == s) {
		// Another subject than the previous probe's: its rows from the starts, a probe as cheap as a near one.
		if lo, hi, ok := g.subjectRange(s); ok {
			lo, hi = within(rows, lo, hi, key)
			far := from == 0 || lo < from-1 || lo > from+gallopLimit
			if far {
				// Still a far probe for Far: the starts spare it the search, not the cache misses of reading
				// the subject's rows among all of SPO's, which the evaluator's copy of the predicate (subjectIndex)
				// keeps together.
				c.far++
			}
			c.streak = 0
			c.perm, c.at = SPO, lo+1
			if full {
				// A membership test far from the previous one may ascend in POS: it tries it as a searched probe
				// does (the starts answer SPO's probes, not which permutation the join ascends in).
				c.switchIfFar(far)
			}
			return Matches{Rows: rows[lo:hi], Perm: SPO}
		}
	}
	limit := gallopLimit
	if c.streak >= farStreak {
		// The probes have been landing anywhere: galloping far from the hint would mostly add a dozen cache
		// misses to the search. A few rows are still tried, so a probe next to the previous one stays cheap.
		limit = shortGallop
	}
	lo, hi := prefixRangeFenced(rows, key, from, limit, g.fence(perm))
	far := from == 0 || lo < from-1 || lo > from+gallopLimit
	if far {
		if c.far++; c.far%farBatch == 0 {
			g.noteFar(perm, farBatch)
		}
		c.streak++
	} else {
		c.streak = 0
		if perm == SPO && lo-from > costlyGallop {
			// Galloping this far from the hint missed the cache several times: the starts would answer it in two
			// reads, so it counts towards building them.
			if c.costly++; c.costly%farBatch == 0 {
				g.noteFar(perm, farBatch)
			}
		}
	}
	c.perm, c.at = perm, lo+1 // an empty range's lo is still where the key would be
	if full {
		c.switchIfFar(far)
	}
	return Matches{Rows: rows[lo:hi], Perm: perm}
}

// switchIfFar moves a cursor of a fully bound pattern, after two far probes in a row, to the other of SPO and POS
// with no hint yet (MatchFrom).
func (c *Cursor) switchIfFar(far bool) {
	if c.miss++; !far {
		c.miss = 0
	} else if c.miss >= 2 {
		c.miss = 0
		c.perm, c.at = POS+SPO-c.perm, 0
	}
}

// BySubject returns the triples of predicate p as a graph of their own, sorted by subject: for patterns "s p ?o"
// and "s p o" with that p, probed with subjects in no useful order (a join on values many outer solutions reach
// in another order, such as each vendor's offers). Its rows are 12 bytes per triple of p, copied and sorted once,
// against a binary search of the whole SPO permutation per probe; a probe then searches p's rows only, which are
// far fewer and stay in the cache. Only patterns with p bound may be matched in it (POS is g's own range of p;
// OSP is empty).
//
// The graph is kept among g's copies (keptBySubject) for later queries when it fits: its rows are sortedCopy's, but
// its table of subjects was built again on every query, ~35 ms of h97's ~100 ms of CPU at 10 M triples (the
// publishers of 890 000 products, offers and reviews, probed for 82 000 reviews).
func (g *Graph) BySubject(p ID) *Graph {
	return g.keptBySubject(p, func(kept bool) *Graph {
		pos := g.Match(0, p, 0).Rows
		var spo []Row
		if kept {
			spo = sortBySubject(pos) // the kept graph holds its rows: not kept twice
		} else {
			spo = g.sortedCopy(pos)
		}
		sub := &Graph{perms: [3][]Row{SPO: spo, POS: pos}}
		sub.hashSubjects()
		return sub
	})
}

// SubjectRows returns the triples of predicate p as SPO rows sorted by subject: BySubject's rows without its
// table of subjects, for a join that reads them in order rather than probing them. The rows are g's kept copy
// (subjectCopies) when it has room for them: they must not be written.
func (g *Graph) SubjectRows(p ID) []Row { return g.sortedCopy(g.Match(0, p, 0).Rows) }

// radixMin is the fewest rows sortBySubject sorts by radix: below it a comparison sort is as quick.
const radixMin = 1 << 12

// SortedBySubject returns parts of g's POS permutation, ranges of one predicate that follow each other in POS order
// (the ranges a filter on the objects keeps), as SPO rows sorted by subject (sortBySubject): for a join that reads
// only those rows in subject order. The rows are g's kept copy (subjectCopies) when it has room for them: they must
// not be written.
func (g *Graph) SortedBySubject(parts ...[]Row) []Row { return g.sortedCopy(parts...) }

// sortBySubject returns POS rows of one predicate, which are ordered by object then subject, as SPO rows ordered
// by subject then object. As the rows already ascend by object, a stable sort by subject alone gives that order:
// two passes of 16 bits of a least-significant-digit radix sort (a pass whose digit is the same for every row is
// skipped), in place of a comparison sort that took ~25 ms for 200 000 rows (a query's first probes by subject
// pay for it). The rows may come in several parts, in POS order one after the other.
func sortBySubject(parts ...[]Row) []Row {
	n := 0
	for _, pos := range parts {
		n += len(pos)
	}
	spo := make([]Row, n)
	if n < radixMin {
		i := 0
		for _, pos := range parts {
			for _, r := range pos {
				spo[i] = Row{r[2], r[0], r[1]}
				i++
			}
		}
		slices.SortFunc(spo, func(a, b Row) int {
			if a[0] != b[0] {
				return cmp.Compare(a[0], b[0])
			}
			return cmp.Compare(a[2], b[2])
		})
		return spo
	}
	var count [2][1 << 16]uint32
	for _, pos := range parts {
		for _, r := range pos {
			count[0][r[2]&0xffff]++
			count[1][r[2]>>16]++
		}
	}
	// Each pass reads src (subject in position sp) and writes dst in SPO form.
	pass := func(parts [][]Row, dst []Row, sp int, shift uint, c *[1 << 16]uint32) {
		var sum uint32
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		for _, src := range parts {
			for _, r := range src {
				s := r[sp]
				d := (s >> shift) & 0xffff
				if sp == 2 {
					r = Row{r[2], r[0], r[1]}
				}
				dst[c[d]] = r
				c[d]++
			}
		}
	}
	single := func(c *[1 << 16]uint32) bool {
		for _, k := range c {
			if k != 0 {
				return int(k) == n
			}
		}
		return true
	}
	lowSame, highSame := single(&count[0]), single(&count[1])
	switch {
	case lowSame && highSame:
		pass(parts, spo, 2, 0, &count[0])
	case lowSame:
		pass(parts, spo, 2, 16, &count[1])
	case highSame:
		pass(parts, spo, 2, 0, &count[0])
	default:
		tmp := make([]Row, n)
		pass(parts, tmp, 2, 0, &count[0])
		pass([][]Row{tmp}, spo, 0, 16, &count[1])
	}
	return spo
}

// narrow returns the part of [base, top] that holds the first row not less than the key, found in the fence rows:
// if fence[j] is the first fence row not less than the key, that row lies in ((j-1)·stride, j·stride].
func narrow(fence []Row, less func(Row) bool, base, top, n int) (int, int) {
	b, t := 0, len(fence)
	for b < t {
		mid := int(uint(b+t) >> 1)
		if less(fence[mid]) {
			b = mid + 1
		} else {
			t = mid
		}
	}
	fl, fh := 0, n
	if b > 0 {
		fl = (b-1)*fenceStride + 1
	}
	if b < len(fence) {
		fh = b * fenceStride
	}
	switch {
	case fh < base: // the first row not less than the key lies before base: the search's answer is base
		return base, base
	case fl > top: // … after top: the answer is top
		return top, top
	}
	return max(base, fl), min(top, fh)
}

// ObjectTable finds the rows of one predicate with a given object in a graph's POS permutation by one probe of a
// hash table instead of a search, for patterns "?s p o" probed with objects in no order (each reviewer's
// reviews, for reviewers in the order of their names), which otherwise search the whole permutation each. It
// refers to the graph's own rows (POS is already grouped by object): only the table is built, in one pass over p's
// rows, two slots per distinct object.
type ObjectTable struct {
	rows  []Row // p's rows of POS
	slots []uint32
	shift uint
}

// ObjectTable builds p's table of objects.
func (g *Graph) ObjectTable(p ID) *ObjectTable {
	rows := g.Match(0, p, 0).Rows
	distinct := 0
	for i, r := range rows {
		if i == 0 || rows[i-1][1] != r[1] {
			distinct++
		}
	}
	bits := subjectTableBits(distinct)
	t := &ObjectTable{rows: rows, slots: make([]uint32, 1<<bits), shift: 32 - bits}
	mask := uint32(len(t.slots) - 1)
	for i, r := range rows {
		if i > 0 && rows[i-1][1] == r[1] {
			continue
		}
		j := (r[1] * 0x9e3779b1) >> t.shift
		for t.slots[j] != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = uint32(i + 1)
	}
	return t
}

// ObjectTableBytes is what ObjectTable holds for a predicate of n triples at most (its rows are the graph's).
func ObjectTableBytes(n int) int64 { return 4 << subjectTableBits(n) }

// Match returns the rows of "?s p o" (POS) for the table's predicate p; o must be bound.
func (t *ObjectTable) Match(o ID) Matches {
	if len(t.slots) == 0 {
		return Matches{Perm: POS}
	}
	mask := uint32(len(t.slots) - 1)
	for j := (o * 0x9e3779b1) >> t.shift; ; j = (j + 1) & mask {
		r := t.slots[j]
		if r == 0 {
			return Matches{Perm: POS}
		}
		lo := int(r - 1)
		if t.rows[lo][1] != o {
			continue
		}
		// The end by galloping: most objects have a few rows, in the cache lines lo brought in.
		end, step := lo+1, 1
		for end+step <= len(t.rows) && t.rows[end+step-1][1] == o {
			end += step
			step *= 2
		}
		hi := end + sort.Search(min(step, len(t.rows)-end), func(i int) bool { return t.rows[end+i][1] != o })
		return Matches{Rows: t.rows[lo:hi], Perm: POS}
	}
}

// hashSubjects fills g.subjects from g's SPO rows, which must be sorted by subject.
func (g *Graph) hashSubjects() {
	rows := g.perms[SPO]
	if len(rows) == 0 || len(rows) >= 1<<31 {
		return
	}
	bits := subjectTableBits(len(rows))
	g.subjects, g.slotShift = make([]uint32, 1<<bits), 32-bits
	mask := uint32(len(g.subjects) - 1)
	for i, r := range rows {
		if i > 0 && rows[i-1][0] == r[0] {
			continue
		}
		j := g.subjectSlot(r[0])
		for g.subjects[j] != 0 {
			j = (j + 1) & mask
		}
		g.subjects[j] = uint32(i + 1)
	}
}

// subjectTableBits sizes the table for n rows: under half full even if every row has its own subject.
func subjectTableBits(n int) uint {
	bits := uint(1)
	for 1<<bits < 2*n {
		bits++
	}
	return bits
}

func (g *Graph) subjectSlot(s ID) uint32 { return (s * 0x9e3779b1) >> g.slotShift }

// SubjectTableBytes is what BySubject's table of subjects holds beside the rows, for a predicate of n triples.
func SubjectTableBytes(n int) int64 { return 4 << subjectTableBits(n) }

// MatchSubject is Match(s, p, o) with s and p bound, for a graph from BySubject: the subject's rows are found by
// one probe of its table instead of a search, which for probes in no order (the vendor of each offer, at random)
// was a search of ~30 steps each. Other graphs and patterns go to Match.
func (g *Graph) MatchSubject(s, p, o ID) Matches {
	rows := g.perms[SPO]
	if g.subjects == nil || s == 0 || p == 0 {
		return g.Match(s, p, o)
	}
	mask := uint32(len(g.subjects) - 1)
	for j := g.subjectSlot(s); ; j = (j + 1) & mask {
		r := g.subjects[j]
		if r == 0 {
			return Matches{Perm: SPO}
		}
		lo := int(r - 1)
		if rows[lo][0] != s {
			continue
		}
		hi := lo + 1
		for hi < len(rows) && rows[hi][0] == s {
			hi++
		}
		if o != 0 || rows[lo][1] != p {
			l, h := prefixRange(rows[lo:hi], Row{s, p, o}, 0)
			lo, hi = lo+l, lo+h
		}
		return Matches{Rows: rows[lo:hi], Perm: SPO}
	}
}

// route picks the permutation in which the bound positions of a pattern form a prefix, and that prefix.
func route(s, p, o ID) (Perm, Row) {
	switch {
	case s != 0 && p != 0 && o != 0, s != 0 && p != 0, s != 0 && o == 0 && p == 0:
		return SPO, Row{s, p, o}
	case s != 0: // s and o bound, p free
		return OSP, Row{o, s, 0}
	case p != 0:
		return POS, Row{p, o, 0}
	case o != 0:
		return OSP, Row{o, 0, 0}
	}
	return SPO, Row{}
}

// gallopLimit is how far a probe gallops from its hint before it searches the rest in one binary search.
const gallopLimit = 1 << 12

// prefixRange returns the bounds of the rows whose leading non-zero keys equal key's (a zero key ends the prefix).
// from, when not 0, is one past a row at or before which the search may start (a Cursor's hint).
func prefixRange(rows []Row, key Row, from int) (lo, hi int) {
	return prefixRangeFenced(rows, key, from, gallopLimit, nil)
}

// prefixRangeFenced is prefixRange galloping at most limit rows past the hint before it searches the rest, and
// narrowing a wide search with fence (every fenceStride-th row of rows; nil: none).
func prefixRangeFenced(rows []Row, key Row, from, limit int, fence []Row) (lo, hi int) {
	n := 0
	for n < 3 && key[n] != 0 {
		n++
	}
	if n == 0 {
		return 0, len(rows)
	}
	less := func(r Row) bool { // r < key on the first n positions
		for i := 0; i < n; i++ {
			if r[i] != key[i] {
				return r[i] < key[i]
			}
		}
		return false
	}
	match := func(r Row) bool {
		for j := 0; j < n; j++ {
			if r[j] != key[j] {
				return false
			}
		}
		return true
	}
	// lo, the first row not less than key, lies in [base, top).
	base, top := 0, len(rows)
	if from > 0 && from <= len(rows) {
		if at := from - 1; less(rows[at]) {
			// Gallop forward from the hint: a join probing ascending keys finds the next range nearby. Past
			// 2^12 rows the rest is one binary search, so a far or random probe costs at most a dozen extra
			// comparisons.
			base = at + 1
			for step := 1; ; step *= 2 {
				if step > limit || at+step >= len(rows) {
					break
				}
				if !less(rows[at+step]) {
					top = at + step + 1
					break
				}
				base = at + step + 1
			}
		} else {
			top = at + 1
		}
	}
	if top-base >= fenceMin {
		// A wide search starts over from the whole permutation (the key lies within [base, top], so the answer is
		// the same): its first steps then fall on the same rows in every search, which stay in the cache, where a
		// search bounded by a hint steps on rows of its own and misses the cache ~twice as often. Fences narrow it
		// further.
		base, top = 0, len(rows)
		if fence != nil {
			base, top = narrow(fence, less, base, top, len(rows))
		}
	}
	// A binary search written out rather than sort.Search: its predicate is a call through a func value per step,
	// a tenth of a GROUP BY over every offer at 10 M triples.
	for base < top {
		mid := int(uint(base+top) >> 1)
		if less(rows[mid]) {
			base = mid + 1
		} else {
			top = mid
		}
	}
	lo = base
	// The end is found by galloping from lo rather than by a second binary search over everything after it: most
	// ranges a join probes are a few rows long (one subject's values of one predicate), so this costs a probe or
	// two in the cache lines lo already brought in instead of ~log2(n) misses across the index.
	end, step := lo, 1
	for end+step <= len(rows) && match(rows[end+step-1]) {
		end += step
		step *= 2
	}
	hi = end + sort.Search(min(step, len(rows)-end), func(i int) bool { return !match(rows[end+i]) })
	return lo, hi
}
