package index

import (
	"encoding/binary"
	"math"
	"sync"
	"unsafe"
)

// subjectCopies keeps a graph's subject-sorted copies of predicates' POS ranges (SubjectRows, SortedBySubject), and
// its predicates' tables of objects once probes by object have earned them (NoteObjectProbes), for the graph's later
// queries: a star read in subject order sorted the same 582 000 prices and delivery days by
// subject on every run of a query at 10 M triples (a third of its CPU), and every goroutine of a split scan sorted
// them again. The copies are bounded by copyShare of the graph's SPO bytes (30 MiB at 10 M triples), the least
// recently used dropped first; a copy larger than the bound is sorted for its caller and not kept. A dropped copy
// lives on only while a query still reads it. Safe for concurrent queries: one goroutine sorts a copy, the others
// wanting it at the same time wait for it.
type subjectCopies struct {
	mu    sync.Mutex
	m     map[string]*subjectCopy
	bytes int64  // the kept copies' bytes, 12 per row, and the tables'
	tick  uint64 // the last use's stamp
	// objFar counts, per predicate, the probes by object that searched far from any hint, over the graph's queries
	// (NoteObjectProbes).
	objFar map[ID]int64
	// builtTables counts the tables NoteObjectProbes built, kept or not.
	builtTables int
	// sort sorts a copy's rows; nil is sortBySubject. A field of the graph's, not a package variable, so that a test
	// can make one graph's sort fail without touching any other graph.
	sort func(parts ...[]Row) []Row
}

// subjectCopy is one kept copy, valid once sorted is set, or one kept table of objects, set when it is entered.
type subjectCopy struct {
	// mu is held while the copy is sorted, so that callers wanting it at the same time wait for one sort. Not a
	// sync.Once: a sort that panicked would leave the once done and rows nil, read by every later query as a copy
	// with no rows.
	mu     sync.Mutex
	sorted bool
	rows   []Row
	table  *ObjectTable
	tableP ID     // the table's predicate
	sub    *Graph // a kept BySubject graph, set when it is entered
	bytes  int64
	used   uint64
}

// copyShare: the copies of a graph hold at most 1/copyShare of its SPO permutation's bytes.
const copyShare = 4

// copyMin is the fewest rows a copy has for it to be kept: smaller ones sort in well under a millisecond.
const copyMin = 1 << 12

// CopyLimit is the bytes g's kept copies and tables may hold together (CopyBytes never exceeds it).
func (g *Graph) CopyLimit() int64 { return int64(len(g.perms[SPO])) * 12 / copyShare }

// CopyBytes is the bytes of the subject-sorted copies g keeps for later queries (subjectCopies).
func (g *Graph) CopyBytes() int64 {
	g.copies.mu.Lock()
	defer g.copies.mu.Unlock()
	return g.copies.bytes
}

// sortedCopy returns parts, ranges of g's POS permutation in order, sorted by subject (sortBySubject), from the
// copies g keeps, sorting and keeping them when they are not there. Parts that are not g's POS rows, or too few or
// too many rows to keep, are sorted for the caller alone.
func (g *Graph) sortedCopy(parts ...[]Row) []Row {
	key, n, ok := g.copyKey(parts)
	bytes := int64(n) * 12
	if !ok || n < copyMin || bytes > g.CopyLimit() {
		return sortBySubject(parts...)
	}
	c := &g.copies
	c.mu.Lock()
	e := c.entry(key, bytes, g.CopyLimit())
	c.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.sorted {
		sort := c.sort
		if sort == nil {
			sort = sortBySubject
		}
		defer c.forgetUnsorted(key, e) // a sort that panics leaves no entry behind
		e.rows, e.sorted = sort(parts...), true
	}
	return e.rows
}

// forgetUnsorted drops e, kept under key, when its sort did not finish, so that its bytes are not counted for a
// copy that is not there; a later caller makes and sorts a new one. e.mu is held (taken before c.mu, never after).
func (c *subjectCopies) forgetUnsorted(key string, e *subjectCopy) {
	if e.sorted {
		return
	}
	c.mu.Lock()
	if c.m[key] == e {
		delete(c.m, key)
		c.bytes -= e.bytes
	}
	c.mu.Unlock()
}

// entry returns the kept entry under key, made (of the given bytes, older ones dropped to make room) when there is
// none, and marks it used. c.mu is held.
func (c *subjectCopies) entry(key string, bytes, limit int64) *subjectCopy {
	c.tick++
	e := c.m[key]
	if e == nil {
		for c.bytes+bytes > limit {
			c.dropOldest()
		}
		e = &subjectCopy{bytes: bytes}
		if c.m == nil {
			c.m = map[string]*subjectCopy{}
		}
		c.m[key] = e
		c.bytes += bytes
	}
	e.used = c.tick
	return e
}

// objectShare: a predicate's table of objects is kept once its far probes by object, over the graph's queries,
// number 1/objectShare of its rows: the evaluator's rule for building one within a query (about what as many far
// searches cost), counted over every query, as the fences are (noteFar). A query that probes a few thousand
// products' offers each time never earned it alone, and paid ~1.5 µs a probe at 10 M triples.
const objectShare = 256

// tableKey is the key of p's table of objects among the kept copies ('t', where a copy's key starts with 'r').
func tableKey(p ID) string { return string(binary.AppendUvarint([]byte{'t'}, uint64(p))) }

// KeptObjectTable returns the table of p's objects g keeps (NoteObjectProbes), or nil.
func (g *Graph) KeptObjectTable(p ID) *ObjectTable {
	c := &g.copies
	c.mu.Lock()
	e := c.m[tableKey(p)]
	if e != nil {
		c.tick++
		e.used = c.tick
	}
	c.mu.Unlock()
	if e == nil {
		return nil
	}
	return e.table // set before the entry was entered, under c.mu (NoteObjectProbes)
}

// NoteObjectProbes counts n probes of "?s p o" that searched far from any hint, and returns the table of p's
// objects (ObjectTable) once such probes over the graph's queries number 1/objectShare of p's rows: built by the
// probe that crosses the mark and kept for later probes and queries (KeptObjectTable), within the copies' bound;
// nil before, or when it does not fit.
func (g *Graph) NoteObjectProbes(p ID, n int) *ObjectTable {
	rows := int64(g.Match(0, p, 0).Len())
	c := &g.copies
	c.mu.Lock()
	if c.objFar == nil {
		c.objFar = map[ID]int64{}
	}
	c.objFar[p] += int64(n)
	earned := c.objFar[p] >= rows/objectShare
	e := c.m[tableKey(p)]
	c.mu.Unlock()
	if e != nil {
		return g.KeptObjectTable(p)
	}
	if !earned {
		return nil
	}
	// Built before it is entered, as its size (two slots per distinct object) is known only then; two queries
	// crossing the mark together may both build it, and keep the first.
	t := g.ObjectTable(p)
	bytes := int64(len(t.slots)) * 4
	c.mu.Lock()
	c.builtTables++
	if bytes > g.CopyLimit() {
		// Never kept: the count is set back so far that p's later probes do not build it again.
		c.objFar[p] = math.MinInt64 / 2
		c.mu.Unlock()
		return nil
	}
	if e = c.m[tableKey(p)]; e == nil {
		e = c.entry(tableKey(p), bytes, g.CopyLimit())
		e.table, e.tableP = t, p
	}
	c.mu.Unlock()
	return e.table
}

// subKey is the key of p's BySubject graph among the kept copies ('s').
func subKey(p ID) string { return string(binary.AppendUvarint([]byte{'s'}, uint64(p))) }

// keptBySubject returns p's BySubject graph from the copies g keeps, made by build(true) and kept (its rows and
// table of subjects counted) when it is not there and fits; build(false) makes one for the caller alone. Two
// queries wanting it at the same time may both build it, and keep the first.
func (g *Graph) keptBySubject(p ID, build func(kept bool) *Graph) *Graph {
	n := g.Match(0, p, 0).Len()
	bytes := int64(n)*12 + SubjectTableBytes(n)
	if n < copyMin || bytes > g.CopyLimit() {
		return build(false)
	}
	c := &g.copies
	key := subKey(p)
	c.mu.Lock()
	if e := c.m[key]; e != nil {
		c.tick++
		e.used = c.tick
		c.mu.Unlock()
		return e.sub
	}
	c.mu.Unlock()
	sub := build(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[key]
	if e == nil {
		e = c.entry(key, bytes, g.CopyLimit())
		e.sub = sub
	}
	return e.sub
}

// KeptBySubject returns p's BySubject graph when g keeps it (made by an earlier query's BySubject), or nil: it
// costs nothing more to read, so a query adopts it on far fewer probes than would earn building one.
func (g *Graph) KeptBySubject(p ID) *Graph {
	c := &g.copies
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[subKey(p)]
	if e == nil {
		return nil
	}
	c.tick++
	e.used = c.tick
	return e.sub
}

// dropOldest drops the least recently used copy (the map holds a few dozen at most). c.mu is held.
func (c *subjectCopies) dropOldest() {
	var oldest string
	var at *subjectCopy
	for k, e := range c.m {
		if at == nil || e.used < at.used {
			oldest, at = k, e
		}
	}
	delete(c.m, oldest)
	c.bytes -= at.bytes
	if at.table != nil {
		c.objFar[at.tableP] = 0 // to be earned again, not rebuilt by the next batch of probes
	}
}

// copyKey names parts by their places in g's POS permutation ('r', then the first row and length of each), with
// their total rows; ok is false when a part does not lie in it.
func (g *Graph) copyKey(parts [][]Row) (key string, n int, ok bool) {
	pos := g.perms[POS]
	if len(pos) == 0 {
		return "", 0, false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(pos)))
	end := base + uintptr(len(pos))*unsafe.Sizeof(Row{})
	b := make([]byte, 1, 1+16*len(parts))
	b[0] = 'r'
	for _, part := range parts {
		if len(part) == 0 {
			continue
		}
		at := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
		if at < base || at+uintptr(len(part))*unsafe.Sizeof(Row{}) > end {
			return "", 0, false
		}
		b = binary.AppendUvarint(b, uint64((at-base)/unsafe.Sizeof(Row{})))
		b = binary.AppendUvarint(b, uint64(len(part)))
		n += len(part)
	}
	return string(b), n, true
}
