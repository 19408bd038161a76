package eval

import (
	"math/bits"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// ORDER BY … OFFSET n LIMIT m with n+m past what orderTop serves kept a heap of the first n+m solutions and then
// sorted all of them, for the slice to drop the first n: a deep page (OFFSET 100 000 LIMIT 20 over every review by
// date) pushed about a third of the solutions through a heap of 100 020 (a logarithm of comparisons each) and
// sorted the 100 020 at the end. orderSelect keeps instead a buffer of up to twice n+m candidates; when it is
// full, a selection (quickselect, about three comparisons per candidate) keeps the first n+m and the last of them
// becomes the cut, which later solutions are compared with first (keys read only while they tie, as the heap's
// root was). At the end the first n+m are selected, then the first n among them, and only the m after them are
// sorted: the slice drops the first n whatever their order.

// selectStart is the number of candidates orderSelect's buffer starts with; it doubles up to twice n+m.
const selectStart = 1024

// selectFits reports whether orderSelect's buffer of 2k candidates leaves half the query's row and memory budgets
// (the heap of k solutions serves the others).
func (e *evaluator) selectFits(k int64, nk int) bool {
	return k > maxTopBuffered && e.bufferFits(int(2*k), nk)
}

// orderSelect is orderBy under a slice that uses the first k solutions and drops the first skip of them
// (selectFits).
func (e *evaluator) orderSelect(x *algebra.OrderBy, in []ID, k, skip int64, emit emitFn, errp *error) bool {
	h := &sortItems{conds: x.Conds, e: e}
	nk, limit := len(x.Conds), int(k)
	// The candidates live in fixed slots (items[j], its slices into slabs of their own); live lists the slots in
	// use and free the others, so a selection moves slot numbers, not solutions.
	var items []sortItem
	var live, free []int32
	var held int
	var charge int64
	defer func() { e.held -= held; e.bytes -= charge }()
	grow := func() {
		n := min(max(2*len(items), selectStart), 2*limit)
		more := n - len(items)
		for j := range more {
			free = append(free, int32(len(items)+j))
		}
		items = append(items, sortSlots(more, nk, e.nvars)...)
		c := topBytes(more, nk, e.rowCost())
		e.held += more
		held += more
		e.bytes += c
		charge += c
	}
	cmpSlots := func(a, b int32) int { return h.compare(&items[a], &items[b]) }
	cut := int32(-1) // the last of the first k at the last selection; -1 before it
	trim := func() {
		selectFirst(live, limit, cmpSlots)
		free = append(free, live[limit:]...)
		live = live[:limit]
		cut = live[0]
		for _, j := range live[1:] {
			if cmpSlots(j, cut) > 0 {
				cut = j
			}
		}
	}
	next := sortItem{keys: make([]builtin.Key, nk), ids: make([]ID, nk)}
	keyAt := func(i int, row []ID) { e.orderKeyAt(x.Conds[i].Expr, &next, i, row, errp) }
	seq := 0
	ok := e.exec(x.Op, in, func(row []ID) bool {
		next.seq = seq
		seq++
		if cut >= 0 {
			if before := h.before(&next, &items[cut], row, keyAt); *errp != nil || !before {
				return *errp == nil
			}
		} else {
			for i := range nk {
				keyAt(i, row)
			}
		}
		if *errp != nil {
			return false
		}
		if len(free) == 0 {
			if len(items) < 2*limit {
				grow()
			} else {
				trim()
			}
		}
		free, live = fillSlot(items, free, live, &next, row)
		return true
	}, errp)
	if !ok && *errp != nil {
		return false
	}
	if len(live) > limit {
		selectFirst(live, limit, cmpSlots)
		live = live[:limit]
	}
	first := min(int(skip), len(live))
	selectFirst(live, first, cmpSlots)
	slices.SortFunc(live[first:], cmpSlots)
	for _, j := range live {
		if !emit(items[j].row) {
			return false
		}
	}
	return true
}

// selectFirst reorders s so that s[:n] holds the n first elements by cmp, a total order, in no particular order:
// a quickselect on the median of three, whose ranges are sorted instead once they are short or once it has
// split more often than twice the logarithm of len(s) (an input that defeats the pivot).
func selectFirst(s []int32, n int, cmp func(a, b int32) int) {
	lo, hi := 0, len(s)
	splits := 2 * bits.Len(uint(len(s)))
	for lo < n && n < hi && hi-lo > 16 && splits > 0 {
		splits--
		a, m, c := lo, lo+(hi-lo)/2, hi-1
		if cmp(s[m], s[a]) < 0 {
			s[a], s[m] = s[m], s[a]
		}
		if cmp(s[c], s[m]) < 0 {
			s[m], s[c] = s[c], s[m]
			if cmp(s[m], s[a]) < 0 {
				s[a], s[m] = s[m], s[a]
			}
		}
		// s[a] <= s[m] <= s[c]: the median is the pivot, kept at hi-1 while [lo, hi-1) is split around it.
		s[m], s[hi-1] = s[hi-1], s[m]
		p := s[hi-1]
		store := lo
		for i := lo; i < hi-1; i++ {
			if cmp(s[i], p) < 0 {
				s[i], s[store] = s[store], s[i]
				store++
			}
		}
		s[store], s[hi-1] = s[hi-1], s[store]
		// [lo, store) sorts before s[store], which sorts before (store, hi).
		if n <= store {
			hi = store
		} else {
			lo = store + 1
		}
	}
	if lo < n && n < hi {
		slices.SortFunc(s[lo:hi], cmp)
	}
}
