package iso_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
)

// randomGraph draws a graph over n blank nodes and two IRIs with m statements, using few predicates so that
// symmetric and near-symmetric structures are common.
func randomGraph(r *rand.Rand, n, m int) []rdf.Quad {
	node := func() rdf.Term {
		k := r.IntN(n + 2)
		if k < n {
			return rdf.Blank(string(rune('a' + k)))
		}
		return rdf.IRI("http://ex/i" + string(rune('0'+k-n)))
	}
	var out []rdf.Quad
	for i := 0; i < m; i++ {
		p := rdf.IRI("http://ex/p" + string(rune('0'+r.IntN(2))))
		q := rdf.Triple(node(), p, node())
		if r.IntN(4) == 0 {
			q.G = node()
		}
		out = append(out, q)
	}
	return out
}

func relabel(qs []rdf.Quad, perm map[string]string) []rdf.Quad {
	out := make([]rdf.Quad, len(qs))
	for i, q := range qs {
		for _, t := range []*rdf.Term{&q.S, &q.O, &q.G} {
			if t.IsBlank() {
				*t = rdf.Blank(perm[t.Value])
			}
		}
		out[i] = q
	}
	return out
}

// bruteForce tries every bijection between the blank nodes a and b use.
func bruteForce(a, b []rdf.Quad) bool {
	blanks := func(qs []rdf.Quad) []string {
		seen := map[string]bool{}
		var out []string
		for _, q := range qs {
			for _, t := range []rdf.Term{q.S, q.O, q.G} {
				if t.IsBlank() && !seen[t.Value] {
					seen[t.Value] = true
					out = append(out, t.Value)
				}
			}
		}
		return out
	}
	ba, bb := blanks(a), blanks(b)
	if len(ba) != len(bb) {
		return false
	}
	set := func(qs []rdf.Quad) map[rdf.Quad]bool {
		m := map[rdf.Quad]bool{}
		for _, q := range qs {
			m[q] = true
		}
		return m
	}
	sb := set(b)
	perm := map[string]string{}
	used := map[string]bool{}
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(ba) {
			sa := set(relabel(a, perm))
			if len(sa) != len(sb) {
				return false
			}
			for q := range sa {
				if !sb[q] {
					return false
				}
			}
			return true
		}
		for _, y := range bb {
			if !used[y] {
				used[y], perm[ba[i]] = true, y
				if try(i + 1) {
					return true
				}
				used[y] = false
			}
		}
		return false
	}
	return try(0)
}

// TestAgainstBruteForce compares Isomorphic with an exhaustive search on thousands of small random graphs, half of
// them shuffled, relabelled copies and half independent draws of the same size.
func TestAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	agreeTrue, agreeFalse := 0, 0
	for i := 0; i < 3000; i++ {
		n, m := 1+r.IntN(6), 1+r.IntN(10)
		a := randomGraph(r, n, m)
		var b []rdf.Quad
		if i%2 == 0 {
			perm := map[string]string{}
			for j, k := range r.Perm(n) {
				perm[string(rune('a'+j))] = string(rune('a' + k))
			}
			b = relabel(a, perm)
			r.Shuffle(len(b), func(x, y int) { b[x], b[y] = b[y], b[x] })
		} else {
			b = randomGraph(r, n, m)
		}
		want := bruteForce(a, b)
		if got := iso.Isomorphic(a, b); got != want {
			t.Fatalf("case %d: Isomorphic = %v, brute force says %v\na: %v\nb: %v", i, got, want, a, b)
		}
		if want {
			agreeTrue++
		} else {
			agreeFalse++
		}
	}
	if agreeTrue < 1000 || agreeFalse < 500 {
		t.Errorf("too one-sided a sample: %d isomorphic, %d not", agreeTrue, agreeFalse)
	}
}
