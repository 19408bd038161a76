package eval

import (
	"container/heap"
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// ORDER BY … LIMIT k with a heap of k solutions compares each solution that enters with the heap's, on every key
// the comparison reaches. When the solutions arrive in the order of the first key and the LIMIT wants the other
// end (ORDER BY DESC(?date) ?x over reviews read by ascending date), every solution enters, ties with the others
// on the date and has its ?x made from the dictionary (a cache miss at 10 M triples), only to be pushed out by the
// next date's. orderTop keeps instead a buffer of candidates compared by their first key only: a solution whose
// first key sorts after the cut (the k-th candidate's first key at the last trim) is dropped, the others are
// appended; a full buffer is trimmed to the candidates whose first key sorts before or with the cut. Later keys
// are read only to order what is left at the end, or when the ties with the cut alone fill half the buffer.

// maxTopBuffered is the largest LIMIT (offset included) orderTop serves; its buffer holds topBuffer(k) solutions.
const maxTopBuffered = 256

// maxTopGrown is the most candidates orderTop's buffer grows to for the ties with its cut.
const maxTopGrown = 1 << 16

func topBuffer(k int64) int { return int(max(4*k, 1024)) }

// topStart is the number of slots orderTop's buffer starts with.
const topStart = 64

// topBufferFits reports whether orderTop's buffer for a LIMIT of k leaves half the query's row and memory budgets
// (the heap of k solutions serves the others).
func (e *evaluator) topBufferFits(k int64, nk int) bool {
	return k > 0 && k <= maxTopBuffered && e.bufferFits(topBuffer(k), nk)
}

// bufferFits reports whether size candidates of nk keys leave half the query's row and memory budgets, as the
// buffers of orderTop and orderSelect must.
func (e *evaluator) bufferFits(size, nk int) bool {
	return e.held+size <= e.opt.MaxRows/2 && e.bytes+e.t.bytes+topBytes(size, nk, e.rowCost()) <= e.opt.MaxMemory/2
}

func topBytes(size, nk int, rowCost int64) int64 {
	return int64(size) * (rowCost + int64(nk)*int64(unsafe.Sizeof(builtin.Key{})+4))
}

// orderTop is orderBy under a LIMIT of limit solutions (topBufferFits).
func (e *evaluator) orderTop(x *algebra.OrderBy, in []ID, limit int64, emit emitFn, errp *error) bool {
	h := &sortItems{conds: x.Conds, e: e}
	nk, size := len(x.Conds), topBuffer(limit)
	// The candidates live in fixed slots (items[j] with its slices into the slabs); live lists the slots in use
	// and free the others, so a trim moves slot numbers, not solutions.
	var items []sortItem
	var live, free []int32
	alloc := func(n int) { // n slots, the old ones kept where they are
		// New slots come from slabs of their own, as orderSelect's do: copying the old candidates' keys (terms,
		// with the write barriers of their pointers) into larger slabs at each doubling was a tenth of h12, whose
		// 1 300 groups grow the buffer from 64 to 2 048 slots.
		old := len(items)
		if old == 0 {
			items = sortSlots(n, nk, e.nvars)
		} else {
			items = append(items, sortSlots(n-old, nk, e.nvars)...)
		}
		for j := old; j < n; j++ {
			free = append(free, int32(j))
		}
	}
	// The slots are made as candidates come, doubling up to size: a query with a few hundred solutions made and
	// cleared all 1 024 (q13 at 10 M: a third of its CPU once its join read 50 rows), while the budgets are
	// charged for size from the start, as before.
	alloc(min(size, topStart))
	charge := topBytes(size, nk, e.rowCost())
	held := size
	e.held += size
	e.bytes += charge
	defer func() { e.held -= held; e.bytes -= charge }()
	var cut *sortItem // a copy of the cut's first key (keys[0], ids[0]); nil before the first trim
	seq := 0
	next := sortItem{keys: make([]builtin.Key, nk), ids: make([]ID, nk)}
	keyAt := func(it *sortItem, i int, row []ID) { e.orderKeyAt(x.Conds[i].Expr, it, i, row, errp) }
	first := func(a, b *sortItem) int { // the first key's order, the direction applied
		r := h.compareKey(a, b, 0)
		if x.Conds[0].Desc {
			r = -r
		}
		return r
	}
	best := make([]int32, 0, limit)
	// cutLive keeps the candidates whose first key sorts before or with the limit-th best first key, and returns
	// that candidate's slot: every candidate dropped has limit others before it on the first key alone.
	cutLive := func() int32 {
		// The limit best first keys among the candidates, by insertion into a short ordered list: most fail
		// against its last at once, so a trim costs about two comparisons per candidate, not a sort.
		best = best[:0]
		for _, j := range live {
			n := len(best)
			if n == int(limit) && first(&items[j], &items[best[n-1]]) >= 0 {
				continue
			}
			pos := n
			for pos > 0 && first(&items[j], &items[best[pos-1]]) < 0 {
				pos--
			}
			if n < int(limit) {
				best = append(best, 0)
			}
			copy(best[pos+1:], best[pos:len(best)-1])
			best[pos] = j
		}
		c := best[limit-1]
		kept := live[:0]
		for _, j := range live {
			if j == c || first(&items[j], &items[c]) <= 0 {
				kept = append(kept, j)
			} else {
				free = append(free, j)
			}
		}
		live = kept
		return c
	}
	trim := func() {
		c := cutLive()
		if len(live) > size/2 { // the ties with the cut fill half the buffer: a buffer twice as large, while it fits
			if size < maxTopGrown && e.bufferFits(size, nk) {
				more := topBytes(size, nk, e.rowCost())
				e.held += size
				held += size
				e.bytes += more
				charge += more
				size *= 2
				alloc(size)
			} else { // order the ties by every key and keep limit
				slices.SortFunc(live, func(a, b int32) int { return h.compare(&items[a], &items[b]) })
				free = append(free, live[limit:]...)
				live = live[:limit]
				c = live[limit-1]
			}
		}
		cut = &sortItem{keys: slices.Clone(items[c].keys[:1]), ids: slices.Clone(items[c].ids[:1])}
	}
	take := func(row []ID) bool {
		next.seq = seq
		seq++
		keyAt(&next, 0, row)
		if *errp != nil {
			return false
		}
		if cut != nil && first(&next, cut) > 0 {
			return true // after the cut on the first key: limit candidates sort before it
		}
		for i := 1; i < nk; i++ {
			keyAt(&next, i, row)
		}
		if *errp != nil {
			return false
		}
		if len(free) == 0 {
			if len(items) < size {
				alloc(min(2*len(items), size))
			} else {
				trim()
			}
		}
		free, live = fillSlot(items, free, live, &next, row)
		return true
	}
	done, ok := e.orderScan(x, in, limit, take, errp)
	if !done {
		if seq > 0 { // the scan gave up: its candidates are dropped and the join runs from the start
			free, live, cut, seq = free[:0], live[:0], nil, 0
			for j := range items {
				free = append(free, int32(j))
			}
		}
		ok = e.execTop(x, in, limit, take, errp)
	}
	if !ok && *errp != nil {
		return false
	}
	if len(live) > 2*int(limit) {
		// The candidates since the last trim (all of them when none was needed: h12's 1 300 groups) are cut by
		// their first key before the sort, which compares later keys on ties and makes their terms: h12's
		// ORDER BY DESC(?products) ?type sorted every type's IRI among the 1 300 to keep 20.
		cutLive()
	}
	slices.SortFunc(live, func(a, b int32) int { return h.compare(&items[a], &items[b]) })
	for _, j := range live[:min(len(live), int(limit))] {
		if !emit(items[j].row) {
			return false
		}
	}
	return true
}

// fillSlot copies next's keys, ids and arrival number and row into the last free slot of items, which becomes the
// last live one (orderTop, orderSelect).
// sortSlots returns n candidate slots whose keys, ids and rows are slices of three slabs, capped so that no slot's
// append reaches the next one's.
func sortSlots(n, nk, nvars int) []sortItem {
	keys, ids, rows := make([]builtin.Key, n*nk), make([]ID, n*nk), make([]ID, n*nvars)
	items := make([]sortItem, n)
	for j := range items {
		items[j] = sortItem{keys: keys[j*nk : (j+1)*nk : (j+1)*nk], ids: ids[j*nk : (j+1)*nk : (j+1)*nk],
			row: rows[j*nvars : (j+1)*nvars : (j+1)*nvars]}
	}
	return items
}

// The keys change hands rather than being copied: next's slices go to the slot and the slot's old ones to next,
// whose keys are all set again (orderKeyAt) before it is filled next. A key is 232 bytes with pointers, copied
// under write barriers: h12's 1 300 groups spent a tenth of their CPU here.
func fillSlot(items []sortItem, free, live []int32, next *sortItem, row []ID) ([]int32, []int32) {
	j := free[len(free)-1]
	it := &items[j]
	it.keys, next.keys = next.keys, it.keys
	it.ids, next.ids = next.ids, it.ids
	copy(it.row, row)
	it.seq = next.seq
	return free[:len(free)-1], append(live, j)
}

// orderDistinctTop is orderBy under SELECT DISTINCT … ORDER BY … LIMIT k: the slice wants the first k solutions
// that differ on the projected slots, so only the best solution of each of the k best projections is kept, in a
// heap whose root sorts last, with the projections it holds in a map. Without it every distinct solution was held
// and sorted for the DISTINCT to keep twenty (a vendor's name and product over every offer of a country's
// vendors). A solution that sorts after a full heap's root is dropped before its projection is read: its
// projection is either not among the k or held by a solution that sorts before it. The DISTINCT above still
// runs, over k solutions.
func (e *evaluator) orderDistinctTop(x *algebra.OrderBy, in []ID, limit int64, slots []int, emit emitFn, errp *error) bool {
	h := &sortItems{conds: x.Conds, e: e}
	nk := len(x.Conds)
	charge := topBytes(int(limit), nk, e.rowCost()) + limit*int64(4*len(slots)+48)
	e.held += int(limit)
	e.bytes += charge
	defer func() { e.held -= int(limit); e.bytes -= charge }()
	held := make(map[string]int, limit) // projection → the seq of the item that holds it
	var buf []byte
	project := func(row []ID) []byte {
		buf = buf[:0]
		for _, s := range slots {
			buf = binary.LittleEndian.AppendUint32(buf, row[s])
		}
		return buf
	}
	seq := 0
	next := sortItem{keys: make([]builtin.Key, nk), ids: make([]ID, nk)}
	keyAt := func(i int, row []ID) { e.orderKeyAt(x.Conds[i].Expr, &next, i, row, errp) }
	// before reports whether next sorts before it, computing next's keys from the first as far as the comparison
	// needs them; all computed when it does.
	before := func(it *sortItem, row []ID) bool {
		i, r := 0, 0
		for ; i < nk && r == 0; i++ {
			keyAt(i, row)
			r = h.compareKey(&next, it, i)
			if x.Conds[i].Desc {
				r = -r
			}
		}
		if r == 0 {
			r = next.seq - it.seq
		}
		if r >= 0 {
			return false
		}
		for ; i < nk; i++ {
			keyAt(i, row)
		}
		return true
	}
	// put moves next and row into item j (its key slices swapped, not copied) and re-establishes the heap.
	put := func(j int, row []ID, key string) {
		it := &h.items[j]
		copy(it.row, row)
		it.keys, next.keys = next.keys, it.keys
		it.ids, next.ids = next.ids, it.ids
		it.seq = next.seq
		held[key] = it.seq
		heap.Fix(h, j)
	}
	ok := e.exec(x.Op, in, func(row []ID) bool {
		next.seq = seq
		seq++
		full := int64(len(h.items)) == limit
		if full && !before(&h.items[0], row) {
			return *errp == nil
		}
		if *errp != nil {
			return false
		}
		key := project(row)
		if s, dup := held[string(key)]; dup {
			// The better of two solutions with one projection stays. k is small (maxTopBuffered): a search by
			// arrival number beats keeping positions through the heap's swaps.
			j := slices.IndexFunc(h.items, func(it sortItem) bool { return it.seq == s })
			if before(&h.items[j], row) {
				if *errp != nil {
					return false
				}
				put(j, row, string(key))
			}
			return *errp == nil
		}
		if !full {
			for i := range nk {
				keyAt(i, row)
			}
			if *errp != nil {
				return false
			}
			h.items = append(h.items, sortItem{row: slices.Clone(row), keys: next.keys, ids: next.ids, seq: next.seq})
			next.keys, next.ids = make([]builtin.Key, nk), make([]ID, nk)
			held[string(key)] = next.seq
			heap.Fix(h, len(h.items)-1)
			return true
		}
		delete(held, string(project(h.items[0].row)))
		put(0, row, string(project(row)))
		return true
	}, errp)
	if !ok && *errp != nil {
		return false
	}
	return h.emitSorted(emit)
}
