package index

import "sort"

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
	switch {
	case s != 0 && p != 0 && o != 0, s != 0 && p != 0, s != 0 && o == 0 && p == 0:
		return Matches{Rows: prefixRange(g.perms[SPO], s, p, o), Perm: SPO}
	case s != 0: // s and o bound, p free
		return Matches{Rows: prefixRange(g.perms[OSP], o, s, 0), Perm: OSP}
	case p != 0:
		return Matches{Rows: prefixRange(g.perms[POS], p, o, 0), Perm: POS}
	case o != 0:
		return Matches{Rows: prefixRange(g.perms[OSP], o, 0, 0), Perm: OSP}
	}
	return Matches{Rows: g.perms[SPO], Perm: SPO}
}

// prefixRange returns the rows whose leading non-zero keys equal a, b, c (zero keys end the prefix).
func prefixRange(rows []Row, a, b, c ID) []Row {
	key := Row{a, b, c}
	n := 0
	for n < 3 && key[n] != 0 {
		n++
	}
	if n == 0 {
		return rows
	}
	less := func(r Row) bool { // r < key on the first n positions
		for i := 0; i < n; i++ {
			if r[i] != key[i] {
				return r[i] < key[i]
			}
		}
		return false
	}
	lo := sort.Search(len(rows), func(i int) bool { return !less(rows[i]) })
	hi := lo + sort.Search(len(rows)-lo, func(i int) bool {
		r := rows[lo+i]
		for j := 0; j < n; j++ {
			if r[j] != key[j] {
				return true
			}
		}
		return false
	})
	return rows[lo:hi]
}
