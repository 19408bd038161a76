// Package iso decides whether two RDF graphs or datasets are the same up to blank-node renaming (RDF 1.1 Concepts
// §3.6, extended to graph names), as the W3C evaluation tests require. Blank nodes are coloured by iterated hashing
// of their neighbourhoods; ties left by symmetric structures are broken by trying each candidate (backtracking), and
// every answer of "isomorphic" is checked against an explicit bijection, so hash collisions can never yield a false
// positive.
package iso

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// Isomorphic reports whether a and b hold the same statements up to a bijection between their blank nodes. Both are
// read as sets: duplicate statements count once. Language tags compare case-insensitively.
func Isomorphic(a, b []rdf.Quad) bool {
	_, ok := Mapping(a, b)
	return ok
}

// Mapping returns a bijection from the blank-node labels of a to those of b under which a and b are equal, if
// there is one.
func Mapping(a, b []rdf.Quad) (map[string]string, bool) {
	terms := make(map[rdf.Term]uint64)
	ga, gb := newGraph(a, terms), newGraph(b, terms)
	if len(ga.ground) != len(gb.ground) || len(ga.quads) != len(gb.quads) || len(ga.blanks) != len(gb.blanks) {
		return nil, false
	}
	for q := range ga.ground {
		if _, ok := gb.ground[q]; !ok {
			return nil, false
		}
	}
	if len(ga.blanks) == 0 {
		return map[string]string{}, true
	}
	ca, cb := ga.initialColors(), gb.initialColors()
	m, ok := search(ga, gb, ca, cb, 0)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(m))
	for i, j := range m {
		out[ga.blanks[i]] = gb.blanks[j]
	}
	return out, true
}

// key normalises a quad for set membership: language tags are case-insensitive, an empty datatype is xsd:string.
func key(q rdf.Quad) rdf.Quad {
	for _, t := range []*rdf.Term{&q.S, &q.P, &q.O, &q.G} {
		if t.Kind == rdf.KindLiteral {
			t.Lang = strings.ToLower(t.Lang)
			if t.Datatype == "" {
				t.Datatype = rdf.XSDString
			}
		}
	}
	return q
}

// slot is one position of a statement that mentions a blank node: either blank node number blank, or the fixed term
// numbered h. Both graphs number their fixed terms through one shared table, so equal slots mean equal terms.
type slot struct {
	blank int32 // -1 for a non-blank term
	h     uint64
}

type graph struct {
	ground map[rdf.Quad]struct{} // statements without blank nodes
	quads  [][4]slot             // statements with blank nodes, deduplicated
	set    map[[4]slot]struct{}
	blanks []string // label of each blank node number
}

// newGraph indexes qs; terms numbers the fixed terms and must be shared by the graphs being compared.
func newGraph(qs []rdf.Quad, terms map[rdf.Term]uint64) *graph {
	g := &graph{ground: make(map[rdf.Quad]struct{}), set: make(map[[4]slot]struct{})}
	index := make(map[string]int32)
	for _, q := range qs {
		q = key(q)
		if !hasBlank(q) {
			g.ground[q] = struct{}{}
			continue
		}
		var s [4]slot
		for i, t := range [4]rdf.Term{q.S, q.P, q.O, q.G} {
			if t.Kind == rdf.KindBlank {
				n, ok := index[t.Value]
				if !ok {
					n = int32(len(g.blanks))
					index[t.Value] = n
					g.blanks = append(g.blanks, t.Value)
				}
				s[i] = slot{blank: n}
				continue
			}
			id, ok := terms[t]
			if !ok {
				// Numbers start at 1 so that an absent graph name (the zero Term) also gets a proper number.
				id = uint64(len(terms)) + 1
				terms[t] = id
			}
			s[i] = slot{blank: -1, h: id}
		}
		if _, dup := g.set[s]; dup {
			continue
		}
		g.set[s] = struct{}{}
		g.quads = append(g.quads, s)
	}
	return g
}

func (g *graph) initialColors() []uint64 { return make([]uint64, len(g.blanks)) }

// mix is the splitmix64 finaliser: a cheap bijective scrambler.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// refine runs rounds of colour refinement until the number of colour classes stops growing. Each blank node's new
// colour combines its old one with an order-independent sum over the statements it occurs in.
func (g *graph) refine(colors []uint64) []uint64 {
	classes := countClasses(colors)
	acc := make([]uint64, len(colors))
	for round := 0; round <= len(colors); round++ {
		clear(acc)
		for _, q := range g.quads {
			for pos, s := range q {
				if s.blank < 0 {
					continue
				}
				h := uint64(pos + 1)
				for j, o := range q {
					v := o.h
					switch {
					case o.blank == s.blank:
						v = 0x5e1f // the node itself: distinguishes loops and repeated positions
					case o.blank >= 0:
						v = colors[o.blank]
					}
					h = mix(h ^ mix(v+uint64(j)*0x9e3779b97f4a7c15))
				}
				acc[s.blank] += mix(h)
			}
		}
		next := make([]uint64, len(colors))
		for i := range colors {
			next[i] = mix(colors[i]*31 ^ acc[i])
		}
		colors = next
		n := countClasses(colors)
		if n == classes {
			break
		}
		classes = n
	}
	return colors
}

func countClasses(colors []uint64) int {
	seen := make(map[uint64]struct{}, len(colors))
	for _, c := range colors {
		seen[c] = struct{}{}
	}
	return len(seen)
}

// search refines both colourings, and when ties remain, fixes one node of the smallest tied class of a to each
// candidate of b in turn. It returns the blank-node bijection (index in a to index in b).
func search(ga, gb *graph, ca, cb []uint64, depth int) ([]int32, bool) {
	ca, cb = ga.refine(ca), gb.refine(cb)
	if !sameMultiset(ca, cb) {
		return nil, false
	}
	classA := make(map[uint64][]int32)
	for i, c := range ca {
		classA[c] = append(classA[c], int32(i))
	}
	var tied uint64
	best := 0
	for c, members := range classA {
		if len(members) > 1 && (best == 0 || len(members) < best || (len(members) == best && c < tied)) {
			tied, best = c, len(members)
		}
	}
	if best == 0 {
		m := make([]int32, len(ca))
		byColor := make(map[uint64]int32, len(cb))
		for j, c := range cb {
			byColor[c] = int32(j)
		}
		for i, c := range ca {
			m[i] = byColor[c]
		}
		return m, verify(ga, gb, m)
	}
	x := classA[tied][0]
	mark := mix(uint64(depth) + 0x1d1d1d)
	for j, c := range cb {
		if c != tied {
			continue
		}
		na, nb := slices.Clone(ca), slices.Clone(cb)
		na[x] = mix(na[x] ^ mark)
		nb[j] = mix(nb[j] ^ mark)
		if m, ok := search(ga, gb, na, nb, depth+1); ok {
			return m, true
		}
	}
	return nil, false
}

func sameMultiset(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	return slices.Equal(sa, sb)
}

// verify checks that m maps every blank-node statement of a onto one of b. Both sides are deduplicated and of
// equal size, and m is injective, so this proves equality.
func verify(ga, gb *graph, m []int32) bool {
	used := make([]bool, len(gb.blanks))
	for _, j := range m {
		if used[j] {
			return false
		}
		used[j] = true
	}
	for _, q := range ga.quads {
		for i := range q {
			if q[i].blank >= 0 {
				q[i].blank = m[q[i].blank]
			}
		}
		if _, ok := gb.set[q]; !ok {
			return false
		}
	}
	return true
}

// Diff describes how a and b differ, for test failure messages; it is empty when they are isomorphic. Statements
// without blank nodes are compared exactly; when the blank-node parts differ, both are listed.
func Diff(a, b []rdf.Quad) string {
	if Isomorphic(a, b) {
		return ""
	}
	terms := make(map[rdf.Term]uint64)
	ga, gb := newGraph(a, terms), newGraph(b, terms)
	var out strings.Builder
	var missing, extra []string
	for q := range ga.ground {
		if _, ok := gb.ground[q]; !ok {
			missing = append(missing, q.String())
		}
	}
	for q := range gb.ground {
		if _, ok := ga.ground[q]; !ok {
			extra = append(extra, q.String())
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	// Lists are capped so that a failure on a large graph still gives a readable message.
	list := func(sign string, ss []string, max int) {
		for i, s := range ss {
			if i == max {
				fmt.Fprintf(&out, "%s … %d more\n", sign, len(ss)-max)
				break
			}
			fmt.Fprintf(&out, "%s %s\n", sign, s)
		}
	}
	list("-", missing, 50)
	list("+", extra, 50)
	if !Isomorphic(blankOnly(a), blankOnly(b)) {
		fmt.Fprintf(&out, "statements with blank nodes: %d on the left (%d nodes), %d on the right (%d nodes); no bijection makes them equal\n",
			len(ga.quads), len(ga.blanks), len(gb.quads), len(gb.blanks))
		list("<", blankStatements(a), 25)
		list(">", blankStatements(b), 25)
	}
	return out.String()
}

func hasBlank(q rdf.Quad) bool {
	return q.S.IsBlank() || q.P.IsBlank() || q.O.IsBlank() || q.G.IsBlank()
}

func blankOnly(qs []rdf.Quad) []rdf.Quad {
	var out []rdf.Quad
	for _, q := range qs {
		if hasBlank(q) {
			out = append(out, q)
		}
	}
	return out
}

func blankStatements(qs []rdf.Quad) []string {
	var out []string
	seen := make(map[string]bool)
	for _, q := range qs {
		if hasBlank(q) {
			s := key(q).String()
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}
