package iso_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// parse reads N-Quads with source labels kept recognisable (prefix "x" + order of first use).
func parse(t *testing.T, src string) []rdf.Quad {
	t.Helper()
	d := ntriples.NewQuadDecoder(strings.NewReader(src), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("x")})
	var out []rdf.Quad
	for {
		q, err := d.Next()
		if err != nil {
			if err == io.EOF {
				return out
			}
			t.Fatalf("parsing test input: %v", err)
		}
		out = append(out, q)
	}
}

// edges writes an undirected graph over blank nodes as triples in both directions.
func edges(pairs ...[2]int) string {
	var b strings.Builder
	for _, e := range pairs {
		fmt.Fprintf(&b, "_:n%d <http://ex/e> _:n%d .\n_:n%d <http://ex/e> _:n%d .\n", e[0], e[1], e[1], e[0])
	}
	return b.String()
}

func cycle(offset, n int) [][2]int {
	var out [][2]int
	for i := 0; i < n; i++ {
		out = append(out, [2]int{offset + i, offset + (i+1)%n})
	}
	return out
}

func star(n int, lit func(i int) string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "_:s%d <http://ex/p> %s .\n", i, lit(i))
	}
	return b.String()
}

// lcf builds the cubic graph with LCF notation jumps (a Hamiltonian cycle plus one chord per vertex), with vertex
// i named perm[i].
func lcf(jumps []int, perm []int) string {
	n := len(jumps)
	var pairs [][2]int
	for i := 0; i < n; i++ {
		pairs = append(pairs, [2]int{perm[i], perm[(i+1)%n]}, [2]int{perm[i], perm[((i+jumps[i])%n+n)%n]})
	}
	return edges(pairs...)
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

func TestIsomorphic(t *testing.T) {
	// The Frucht graph is cubic and has no symmetry at all: refinement leaves all 12 nodes tied, and only one of
	// the 12 first guesses leads to the bijection, so the search has to undo wrong guesses.
	frucht := []int{-5, -2, -4, 2, 5, -2, 2, 5, -2, -5, 4, 2}
	truncatedTetrahedron := []int{2, 6, -2, 2, 6, -2, 2, 6, -2, 2, 6, -2}
	shuffled := []int{7, 3, 11, 0, 5, 9, 1, 10, 2, 8, 4, 6}
	var ring, ringRotated, ringBroken strings.Builder
	const ringN = 3000
	for i := 0; i < ringN; i++ {
		fmt.Fprintf(&ring, "_:r%d <http://ex/kind> \"k%d\" .\n_:r%d <http://ex/next> _:r%d .\n", i, i%30, i, (i+1)%ringN)
		j := (i + 30) % ringN // the same ring, labels shifted by a whole period
		fmt.Fprintf(&ringRotated, "_:q%d <http://ex/kind> \"k%d\" .\n_:q%d <http://ex/next> _:q%d .\n", j, i%30, j, (j+1)%ringN)
		k := i % 30
		if i == ringN-1 {
			k = 0
		}
		fmt.Fprintf(&ringBroken, "_:r%d <http://ex/kind> \"k%d\" .\n_:r%d <http://ex/next> _:r%d .\n", i, k, i, (i+1)%ringN)
	}

	twoTriangles := edges(append(cycle(0, 3), cycle(3, 3)...)...)
	hexagon := edges(cycle(0, 6)...)
	// K3,3 and the triangular prism are both 3-regular on 6 nodes: colour refinement alone cannot tell them apart.
	k33 := edges([2]int{0, 3}, [2]int{0, 4}, [2]int{0, 5}, [2]int{1, 3}, [2]int{1, 4}, [2]int{1, 5}, [2]int{2, 3}, [2]int{2, 4}, [2]int{2, 5})
	prism := edges(append(append(cycle(0, 3), cycle(3, 3)...), [2]int{0, 3}, [2]int{1, 4}, [2]int{2, 5})...)
	prismRelabelled := edges(append(append(cycle(10, 3), cycle(13, 3)...), [2]int{11, 14}, [2]int{12, 15}, [2]int{10, 13})...)

	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"empty", "", "", true},
		{"ground equal in any order", "<http://ex/a> <http://ex/p> \"1\" .\n<http://ex/b> <http://ex/p> \"2\" .\n",
			"<http://ex/b> <http://ex/p> \"2\" .\n<http://ex/a> <http://ex/p> \"1\" .\n", true},
		{"ground differs", "<http://ex/a> <http://ex/p> \"1\" .", "<http://ex/a> <http://ex/p> \"2\" .", false},
		{"datatype differs", `<http://ex/a> <http://ex/p> "1" .`, `<http://ex/a> <http://ex/p> "1"^^<http://ex/int> .`, false},
		{"language tags ignore case", `<http://ex/a> <http://ex/p> "x"@en-GB .`, `<http://ex/a> <http://ex/p> "x"@EN-gb .`, true},
		{"duplicates count once", "<http://ex/a> <http://ex/p> _:x .\n<http://ex/a> <http://ex/p> _:x .\n", "<http://ex/a> <http://ex/p> _:y .", true},
		{"relabelled blank nodes", "_:a <http://ex/p> _:b .\n_:b <http://ex/q> \"v\" .", "_:z <http://ex/q> \"v\" .\n_:y <http://ex/p> _:z .", true},
		{"blank vs IRI", "_:a <http://ex/p> <http://ex/o> .", "<http://ex/a> <http://ex/p> <http://ex/o> .", false},
		{"one node vs two", "_:a <http://ex/p> _:a .", "_:a <http://ex/p> _:b .", false},
		{"two nodes vs one shared", "_:a <http://ex/p> \"1\" .\n_:b <http://ex/p> \"2\" .", "_:a <http://ex/p> \"1\" .\n_:a <http://ex/p> \"2\" .", false},
		{"two triangles vs hexagon", twoTriangles, hexagon, false},
		{"hexagon vs hexagon", hexagon, edges(cycle(7, 6)...), true},
		{"K3,3 vs prism", k33, prism, false},
		{"prism vs relabelled prism", prism, prismRelabelled, true},
		{"thousands of interchangeable nodes", star(5000, func(i int) string { return `"x"` }), star(5000, func(i int) string { return `"x"` }), true},
		{"many interchangeable nodes", star(60, func(int) string { return `"x"` }), star(60, func(int) string { return `"x"` }), true},
		{"interchangeable nodes but one differs", star(60, func(int) string { return `"x"` }),
			star(60, func(i int) string {
				if i == 59 {
					return `"y"`
				}
				return `"x"`
			}), false},
		{"blank graph names", "<http://ex/s> <http://ex/p> _:o _:g .\n_:g <http://ex/p> <http://ex/o> .",
			"_:h <http://ex/p> <http://ex/o> .\n<http://ex/s> <http://ex/p> _:x _:h .", true},
		{"graph name vs default graph", "<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> .", "<http://ex/s> <http://ex/p> <http://ex/o> .", false},
		{"same triple in different graphs", "<http://ex/s> <http://ex/p> _:o <http://ex/g1> .", "<http://ex/s> <http://ex/p> _:o <http://ex/g2> .", false},
		{"blank node shared across graphs vs not", "_:a <http://ex/p> \"1\" <http://ex/g1> .\n_:a <http://ex/p> \"1\" <http://ex/g2> .",
			"_:a <http://ex/p> \"1\" <http://ex/g1> .\n_:b <http://ex/p> \"1\" <http://ex/g2> .", false},
		{"list shapes", "_:l1 <http://ex/first> \"a\" .\n_:l1 <http://ex/rest> _:l2 .\n_:l2 <http://ex/first> \"b\" .\n_:l2 <http://ex/rest> <http://ex/nil> .",
			"_:m2 <http://ex/first> \"b\" .\n_:m2 <http://ex/rest> <http://ex/nil> .\n_:m1 <http://ex/first> \"a\" .\n_:m1 <http://ex/rest> _:m2 .", true},
		{"Frucht graph vs relabelled Frucht graph", lcf(frucht, identity(12)), lcf(frucht, shuffled), true},
		{"Frucht graph vs truncated tetrahedron", lcf(frucht, identity(12)), lcf(truncatedTetrahedron, shuffled), false},
		{"two 5-cycles vs a 10-cycle", edges(append(cycle(0, 5), cycle(5, 5)...)...), edges(cycle(0, 10)...), false},
		{"periodic ring vs rotated ring", ring.String(), ringRotated.String(), true},
		{"periodic ring vs ring with one kind changed", ring.String(), ringBroken.String(), false},
		{"list order matters", "_:l1 <http://ex/first> \"a\" .\n_:l1 <http://ex/rest> _:l2 .\n_:l2 <http://ex/first> \"b\" .\n_:l2 <http://ex/rest> <http://ex/nil> .",
			"_:m1 <http://ex/first> \"b\" .\n_:m1 <http://ex/rest> _:m2 .\n_:m2 <http://ex/first> \"a\" .\n_:m2 <http://ex/rest> <http://ex/nil> .", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := parse(t, tt.a), parse(t, tt.b)
			if got := iso.Isomorphic(a, b); got != tt.want {
				t.Errorf("Isomorphic = %v, want %v", got, tt.want)
			}
			if got := iso.Isomorphic(b, a); got != tt.want {
				t.Errorf("Isomorphic (swapped) = %v, want %v", got, tt.want)
			}
			diff := iso.Diff(a, b)
			if (diff == "") != tt.want {
				t.Errorf("Diff = %q, want empty only for isomorphic inputs", diff)
			}
			if m, ok := iso.Mapping(a, b); ok {
				if !tt.want {
					t.Fatal("Mapping found a bijection for non-isomorphic inputs")
				}
				if got := rename(a, m); !sameSet(got, b) {
					t.Errorf("renaming with %v gives %v, not %v", m, got, b)
				}
			}
		})
	}
}

func rename(qs []rdf.Quad, m map[string]string) []rdf.Quad {
	out := make([]rdf.Quad, len(qs))
	for i, q := range qs {
		for _, t := range []*rdf.Term{&q.S, &q.P, &q.O, &q.G} {
			if t.IsBlank() {
				*t = rdf.Blank(m[t.Value])
			}
		}
		out[i] = q
	}
	return out
}

func sameSet(a, b []rdf.Quad) bool {
	key := func(q rdf.Quad) string { return strings.ToLower(q.String()) }
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, q := range a {
		sa[key(q)] = true
	}
	for _, q := range b {
		sb[key(q)] = true
	}
	if len(sa) != len(sb) {
		return false
	}
	for k := range sa {
		if !sb[k] {
			return false
		}
	}
	return true
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name     string
		a, b     string
		contains []string
		absent   []string
	}{
		{"ground only", "<http://ex/a> <http://ex/p> \"1\" .", "<http://ex/a> <http://ex/p> \"2\" .",
			[]string{`- <http://ex/a> <http://ex/p> "1" .`, `+ <http://ex/a> <http://ex/p> "2" .`}, []string{"blank nodes"}},
		{"blank parts differ", "_:a <http://ex/p> _:a .", "_:a <http://ex/p> _:b .",
			[]string{"no bijection", "< _:xb1 <http://ex/p> _:xb1 .", "> _:xb1 <http://ex/p> _:xb2 ."}, nil},
		{"ground differs, blank parts equal", "_:a <http://ex/p> \"x\" .\n<http://ex/a> <http://ex/p> \"1\" .", "_:b <http://ex/p> \"x\" .",
			[]string{`- <http://ex/a> <http://ex/p> "1" .`}, []string{"no bijection"}},
	}
	var many strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&many, "<http://ex/s%d> <http://ex/p> \"%d\" .\n", i, i)
	}
	tests = append(tests, struct {
		name     string
		a, b     string
		contains []string
		absent   []string
	}{"long lists are capped", many.String(), "", []string{"- <http://ex/s0>", "- … 10 more"}, []string{"<http://ex/s59>"}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := iso.Diff(parse(t, tt.a), parse(t, tt.b))
			for _, s := range tt.contains {
				if !strings.Contains(d, s) {
					t.Errorf("Diff lacks %q:\n%s", s, d)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(d, s) {
					t.Errorf("Diff should not mention %q:\n%s", s, d)
				}
			}
		})
	}
}

// A long chain of blank nodes: refinement must separate them without backtracking blowing up.
func TestLargeChain(t *testing.T) {
	var a, b strings.Builder
	const n = 2000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&a, "_:a%d <http://ex/next> _:a%d .\n", i, i+1)
		fmt.Fprintf(&b, "_:b%d <http://ex/next> _:b%d .\n", n-1-i, n-i)
	}
	if !iso.Isomorphic(parse(t, a.String()), parse(t, b.String())) {
		t.Fatal("equal chains reported different")
	}
}
