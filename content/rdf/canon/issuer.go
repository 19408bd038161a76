package canon

import (
	"slices"
	"strconv"
)

// issuer is the Issue Identifier state (§4.5) of the canonical issuer: labels prefix0, prefix1, … in order of first
// request. It may hold every blank node of a large dataset and is never copied, so it is a map.
type issuer struct {
	prefix string
	issued map[int32]string
	order  []int32
}

func newIssuer(prefix string) *issuer {
	return &issuer{prefix: prefix, issued: map[int32]string{}}
}

func (i *issuer) issue(id int32) string {
	if l, ok := i.issued[id]; ok {
		return l
	}
	l := i.prefix + strconv.Itoa(len(i.order))
	i.issued[id] = l
	i.order = append(i.order, id)
	return l
}

// tmpIssuer is a temporary issuer of Hash N-Degree Quads (labels b0, b1, …). Every permutation tried copies one,
// so it is kept as two flat slices, copied with memmove, rather than a map that would be rehashed entry by entry:
// on graphs that need deep recursion (a list of identical values) the copies are most of the cost. It holds only
// the nodes one recursion has reached, so keeping byNode sorted on insert stays cheap.
type tmpIssuer struct {
	order  []int32  // issued nodes; the label of order[i] is b<i>
	byNode []issued // sorted by node
}

type issued struct{ node, idx int32 }

func (t *tmpIssuer) find(n int32) (int, bool) {
	return slices.BinarySearchFunc(t.byNode, n, func(e issued, n int32) int {
		switch {
		case e.node < n:
			return -1
		case e.node > n:
			return 1
		}
		return 0
	})
}

// lookup returns the index of n's label, if it has one.
func (t *tmpIssuer) lookup(n int32) (int32, bool) {
	if i, ok := t.find(n); ok {
		return t.byNode[i].idx, true
	}
	return 0, false
}

// issue returns the index of n's label, issuing the next one if n has none.
func (t *tmpIssuer) issue(n int32) int32 {
	i, ok := t.find(n)
	if ok {
		return t.byNode[i].idx
	}
	idx := int32(len(t.order))
	t.order = append(t.order, n)
	t.byNode = slices.Insert(t.byNode, i, issued{n, idx})
	return idx
}

func (t *tmpIssuer) clone() *tmpIssuer {
	return &tmpIssuer{
		order:  append(make([]int32, 0, len(t.order)+4), t.order...),
		byNode: append(make([]issued, 0, len(t.byNode)+4), t.byNode...),
	}
}
