package iso

import (
	"cmp"
	"slices"
)

// The matcher refines the colourings of both graphs in lock step. A colour stands for a class of blank nodes; a
// node's signature hashes the statements it occurs in, with the colours of the other blank nodes there. A class
// splits when some members' signatures change: those members move to colour mix(old colour, signature), the others
// keep theirs. Only the neighbours of nodes that moved are looked at again, so a long chain costs linear time
// instead of one full pass per link. Every step is a function of the structure alone, never of labels or order, so
// isomorphic graphs give equal colour multisets at every step; any difference proves they are not isomorphic.

const (
	selfMark  = 0x5e1f5e1f5e1f5e1f // the node itself, in a statement that mentions it twice
	termSalt  = 0x7465726d7465726d // keeps fixed-term numbers apart from colours
	posFactor = 0x9e3779b97f4a7c15
)

// mix is the splitmix64 finaliser: a cheap bijective scrambler.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

type side struct {
	g        *graph
	color    []uint64
	classSig map[uint64]uint64  // the signature every member of a class had when the class formed
	members  map[uint64][]int32 // the nodes of each class, in no particular order
	pos      []int32            // index of each node in its class's members
	stamp    []uint32           // dedupes dirty lists
	epoch    uint32
	sign     int // +1 for a, -1 for b in matcher.diff
}

// change is one entry of the undo trail: a node's colour change (old colour), or when event != 0 a new signature
// of class (old signature, known says whether there was one).
type change struct {
	s     *side
	v     int32
	old   uint64
	event uint64
	class uint64
	known bool
}

type matcher struct {
	a, b    *side
	diff    map[uint64]int32 // size in a minus size in b, per colour
	nonzero int              // colours whose diff is not zero
	trail   []change         // colour changes, for undoing a failed guess
	// round counts refinement rounds and guesses. It goes into every new colour, so a colour is never reused by
	// an unrelated class; both graphs advance it together, so it means the same on both sides.
	round uint64
}

func newMatcher(ga, gb *graph) *matcher {
	m := &matcher{diff: map[uint64]int32{}}
	mk := func(g *graph, sign int) *side {
		s := &side{g: g, color: make([]uint64, len(g.blanks)), classSig: map[uint64]uint64{}, members: map[uint64][]int32{},
			pos: make([]int32, len(g.blanks)), stamp: make([]uint32, len(g.blanks)), sign: sign}
		if len(g.blanks) > 0 {
			s.members[0] = allNodes(len(g.blanks))
			copy(s.pos, s.members[0])
		}
		return s
	}
	m.a, m.b = mk(ga, 1), mk(gb, -1)
	return m
}

// sig hashes the statements v occurs in as seen from v.
func (s *side) sig(v int32) uint64 {
	var acc uint64
	for _, qi := range s.g.occ[v] {
		q := &s.g.quads[qi]
		for pos := range q {
			if q[pos].blank != v {
				continue
			}
			h := uint64(pos + 1)
			for j, o := range q {
				val := mix(o.h ^ termSalt)
				switch {
				case o.blank == v:
					val = selfMark
				case o.blank >= 0:
					val = s.color[o.blank]
				}
				h = mix(h ^ mix(val+uint64(j)*posFactor))
			}
			acc += mix(h)
		}
	}
	return acc
}

func (m *matcher) setColor(s *side, v int32, c uint64) {
	old := s.color[v]
	m.trail = append(m.trail, change{s: s, v: v, old: old})
	m.move(s, v, old, c)
}

func (m *matcher) move(s *side, v int32, from, to uint64) {
	s.color[v] = to
	// Swap-remove v from its old class and append it to the new one: O(1) either way.
	old := s.members[from]
	last := old[len(old)-1]
	old[s.pos[v]] = last
	s.pos[last] = s.pos[v]
	if old = old[:len(old)-1]; len(old) == 0 {
		delete(s.members, from)
	} else {
		s.members[from] = old
	}
	s.pos[v] = int32(len(s.members[to]))
	s.members[to] = append(s.members[to], v)
	m.bump(from, -s.sign)
	m.bump(to, s.sign)
}

func (m *matcher) bump(c uint64, d int) {
	before := m.diff[c]
	after := before + int32(d)
	switch {
	case before == 0 && after != 0:
		m.nonzero++
	case before != 0 && after == 0:
		m.nonzero--
	}
	if after == 0 {
		delete(m.diff, c)
	} else {
		m.diff[c] = after
	}
}

// resign records that a class kept its colour but took a new signature. Both graphs must do the same, so the event
// counts in diff like a colour: a class that changed differently on one side proves a mismatch.
func (m *matcher) resign(s *side, c, sig uint64) {
	ev := mix(c^0x5167) ^ sig | 1
	old, known := s.classSig[c]
	s.classSig[c] = sig
	m.trail = append(m.trail, change{s: s, event: ev, class: c, old: old, known: known})
	m.bump(ev, s.sign)
}

// undo rolls colours and class signatures back to trail length n. Signatures recorded for new colours can stay:
// such a colour always comes with the same signature, whichever branch made it.
func (m *matcher) undo(n int) {
	for i := len(m.trail) - 1; i >= n; i-- {
		ch := m.trail[i]
		if ch.event != 0 {
			m.bump(ch.event, -ch.s.sign)
			if ch.known {
				ch.s.classSig[ch.class] = ch.old
			} else {
				delete(ch.s.classSig, ch.class)
			}
			continue
		}
		m.move(ch.s, ch.v, ch.s.color[ch.v], ch.old)
	}
	m.trail = m.trail[:n]
}

type newColor struct {
	v int32
	c uint64
}

type dirtyNode struct {
	v     int32
	color uint64
	sig   uint64
}

// step works out which dirty nodes of one side move, from the current colours. The dirty members of a class are
// grouped by signature; members that are not dirty, or whose signature is unchanged, still have the signature
// the class formed with and keep its colour, while every other group moves to colour mix(colour, signature). When
// no member keeps the old signature, the largest group (ties: smallest signature) keeps the colour and the class
// records its new signature instead: moving a whole class would only make its neighbours move in turn, and moving
// the large remainder of a class again and again would make a long chain cost quadratic time.
func (m *matcher) step(s *side, dirty []int32, scratch []dirtyNode, out []newColor) ([]dirtyNode, []newColor) {
	nodes := scratch[:0]
	for _, v := range dirty {
		nodes = append(nodes, dirtyNode{v, s.color[v], s.sig(v)})
	}
	slices.SortFunc(nodes, func(x, y dirtyNode) int {
		if c := cmp.Compare(x.color, y.color); c != 0 {
			return c
		}
		return cmp.Compare(x.sig, y.sig)
	})
	for i := 0; i < len(nodes); {
		c := nodes[i].color
		j := i
		for j < len(nodes) && nodes[j].color == c {
			j++
		}
		class := nodes[i:j]
		i = j
		have, known := s.classSig[c]
		changed := 0
		keep, keepSize := uint64(0), 0 // the largest group of changed members
		for k := 0; k < len(class); {
			l := k
			for l < len(class) && class[l].sig == class[k].sig {
				l++
			}
			if !known || class[k].sig != have {
				changed += l - k
				if l-k > keepSize {
					keep, keepSize = class[k].sig, l-k
				}
			}
			k = l
		}
		if changed == 0 {
			continue
		}
		stayers := changed < len(s.members[c])
		if !stayers {
			m.resign(s, c, keep)
		}
		for _, n := range class {
			if (known && n.sig == have) || (!stayers && n.sig == keep) {
				continue
			}
			nc := mix(c ^ mix(n.sig^mix(m.round)))
			s.classSig[nc] = n.sig
			out = append(out, newColor{n.v, nc})
		}
	}
	return nodes, out
}

// neighbours appends the blank nodes sharing a statement with any node in moved, each once.
func (s *side) neighbours(moved []newColor, out []int32) []int32 {
	s.epoch++
	for _, mv := range moved {
		for _, qi := range s.g.occ[mv.v] {
			for _, o := range s.g.quads[qi] {
				if o.blank >= 0 && s.stamp[o.blank] != s.epoch {
					s.stamp[o.blank] = s.epoch
					out = append(out, o.blank)
				}
			}
		}
	}
	return out
}

// refine runs synchronous rounds from the given dirty nodes until nothing moves. It reports false as soon as the
// colour multisets differ.
func (m *matcher) refine(dirtyA, dirtyB []int32) bool {
	var movedA, movedB []newColor
	var scratchA, scratchB []dirtyNode
	for len(dirtyA)+len(dirtyB) > 0 {
		m.round++
		scratchA, movedA = m.step(m.a, dirtyA, scratchA, movedA[:0])
		scratchB, movedB = m.step(m.b, dirtyB, scratchB, movedB[:0])
		for _, mv := range movedA {
			m.setColor(m.a, mv.v, mv.c)
		}
		for _, mv := range movedB {
			m.setColor(m.b, mv.v, mv.c)
		}
		if m.nonzero != 0 {
			return false
		}
		dirtyA = m.a.neighbours(movedA, dirtyA[:0])
		dirtyB = m.b.neighbours(movedB, dirtyB[:0])
	}
	return true
}

func allNodes(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// match returns the bijection (blank node of a to blank node of b) if there is one.
func (m *matcher) match() ([]int32, bool) {
	if !m.refine(allNodes(len(m.a.color)), allNodes(len(m.b.color))) {
		return nil, false
	}
	return m.search(0)
}

// search breaks the first remaining tie: it fixes the first node of a (from index from on; the ones before are
// singletons on this branch already) in a class of two or more to each node of b of that colour in turn, refines,
// and recurses.
func (m *matcher) search(from int) ([]int32, bool) {
	x := int32(-1)
	for v := from; v < len(m.a.color); v++ {
		if len(m.a.members[m.a.color[v]]) > 1 {
			x = int32(v)
			break
		}
	}
	if x < 0 {
		return m.bijection()
	}
	c := m.a.color[x]
	// The first guess usually works (the tie is a symmetry), so the candidate list is copied only when it did not:
	// copying it up front would make n interchangeable nodes cost n² time.
	first := m.b.members[c][0]
	if res, ok := m.guess(x, first, c); ok {
		return res, true
	}
	for _, y := range slices.Clone(m.b.members[c]) {
		if y == first {
			continue
		}
		if res, ok := m.guess(x, y, c); ok {
			return res, true
		}
	}
	return nil, false
}

// guess maps x (of a) to y (of b), both of colour c, refines and searches on; on failure it undoes everything.
func (m *matcher) guess(x, y int32, c uint64) ([]int32, bool) {
	m.round++
	nc := mix(c ^ mix(m.round+0x1d1d1d1d))
	m.a.classSig[nc] = m.a.classSig[c]
	m.b.classSig[nc] = m.b.classSig[c]
	mark := len(m.trail)
	m.setColor(m.a, x, nc)
	m.setColor(m.b, y, nc)
	dirtyA := m.a.neighbours([]newColor{{x, nc}}, nil)
	dirtyB := m.b.neighbours([]newColor{{y, nc}}, nil)
	if m.nonzero == 0 && m.refine(dirtyA, dirtyB) {
		if res, ok := m.search(int(x) + 1); ok {
			return res, true
		}
	}
	m.undo(mark)
	return nil, false
}

// bijection pairs nodes of equal colour once every class is a singleton, and verifies the result.
func (m *matcher) bijection() ([]int32, bool) {
	byColor := make(map[uint64]int32, len(m.b.color))
	for j, c := range m.b.color {
		byColor[c] = int32(j)
	}
	res := make([]int32, len(m.a.color))
	for i, c := range m.a.color {
		j, ok := byColor[c]
		if !ok {
			return nil, false
		}
		res[i] = j
	}
	return res, verify(m.a.g, m.b.g, res)
}
