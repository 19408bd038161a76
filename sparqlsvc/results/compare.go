package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// Equal reports whether two results are the same answer: same variables (in any order), same solutions as a
// multiset (or as a sequence when ordered), with blank nodes equal up to one consistent renaming across the whole
// result (SPARQL 1.1 Query §A "result set equivalence"). The string explains the first difference.
func Equal(a, b *Result, ordered bool) (bool, string) {
	if a.IsBoolean() || b.IsBoolean() {
		if a.IsBoolean() != b.IsBoolean() {
			return false, "one result is boolean, the other is not"
		}
		if *a.Boolean != *b.Boolean {
			return false, fmt.Sprintf("boolean %v, want %v", *a.Boolean, *b.Boolean)
		}
		return true, ""
	}
	av, bv := slices.Sorted(slices.Values(a.Vars)), slices.Sorted(slices.Values(b.Vars))
	if !slices.Equal(av, bv) {
		return false, fmt.Sprintf("variables %v, want %v", a.Vars, b.Vars)
	}
	if len(a.Rows) != len(b.Rows) {
		return false, fmt.Sprintf("%d solutions, want %d", len(a.Rows), len(b.Rows))
	}
	// Re-align b's columns to a's variable order.
	perm := make([]int, len(a.Vars))
	for i, v := range a.Vars {
		perm[i] = slices.Index(b.Vars, v)
	}
	brows := make([][]rdf.Term, len(b.Rows))
	for i, r := range b.Rows {
		row := make([]rdf.Term, len(perm))
		for j, k := range perm {
			row[j] = r[k]
		}
		brows[i] = row
	}
	m := &matcher{fwd: map[string]string{}, back: map[string]string{}}
	if ordered {
		for i := range a.Rows {
			if !m.unify(a.Rows[i], brows[i]) {
				return false, fmt.Sprintf("solution %d differs: %s, want %s", i, rowString(a.Vars, a.Rows[i]), rowString(a.Vars, brows[i]))
			}
		}
		return true, ""
	}
	// Group rows by their shape with blank nodes blanked out: only rows of one shape can match each other, which
	// keeps the backtracking search tiny in practice.
	groups := map[string][2][][]rdf.Term{}
	for _, r := range a.Rows {
		k := shape(r)
		g := groups[k]
		g[0] = append(g[0], r)
		groups[k] = g
	}
	for _, r := range brows {
		k := shape(r)
		g := groups[k]
		g[1] = append(g[1], r)
		groups[k] = g
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range groups {
			if !yield(k) {
				return
			}
		}
	})
	var pairsA, pairsB [][]rdf.Term
	for _, k := range keys {
		g := groups[k]
		if len(g[0]) != len(g[1]) {
			return false, fmt.Sprintf("%d solutions like %s, want %d", len(g[0]), k, len(g[1]))
		}
		pairsA = append(pairsA, g[0]...)
		pairsB = append(pairsB, g[1]...)
	}
	used := make([]bool, len(pairsB))
	if !m.search(pairsA, pairsB, used, 0, 0) {
		return false, "no consistent blank-node mapping makes the solutions equal"
	}
	return true, ""
}

type matcher struct {
	fwd, back map[string]string
	steps     int
}

// search matches a[i:] against unused rows of b; rows of one shape are contiguous in both.
func (m *matcher) search(a, b [][]rdf.Term, used []bool, i, start int) bool {
	if i == len(a) {
		return true
	}
	m.steps++
	if m.steps > 1_000_000 {
		return false
	}
	k := shape(a[i])
	for j := range b {
		if used[j] || shape(b[j]) != k {
			continue
		}
		f, bk := cloneMap(m.fwd), cloneMap(m.back)
		if m.unify(a[i], b[j]) {
			used[j] = true
			if m.search(a, b, used, i+1, 0) {
				return true
			}
			used[j] = false
		}
		m.fwd, m.back = f, bk
		if !hasBlank(a[i]) {
			break // without blank nodes one equal row is as good as another
		}
	}
	return false
}

func (m *matcher) unify(x, y []rdf.Term) bool {
	for i := range x {
		s, t := x[i], y[i]
		if s.Kind == rdf.KindBlank && t.Kind == rdf.KindBlank {
			if f, ok := m.fwd[s.Value]; ok {
				if f != t.Value {
					return false
				}
				continue
			}
			if _, ok := m.back[t.Value]; ok {
				return false
			}
			m.fwd[s.Value], m.back[t.Value] = t.Value, s.Value
			continue
		}
		if !s.Equal(t) {
			return false
		}
	}
	return true
}

func shape(r []rdf.Term) string {
	var b strings.Builder
	for _, t := range r {
		if t.Kind == rdf.KindBlank {
			b.WriteString("_:")
		} else {
			t.Lang = strings.ToLower(t.Lang) // tags compare case-insensitively
			rdf.AppendNTriples(&b, t)
		}
		b.WriteByte('\t')
	}
	return b.String()
}

func hasBlank(r []rdf.Term) bool {
	for _, t := range r {
		if t.Kind == rdf.KindBlank {
			return true
		}
	}
	return false
}

func cloneMap(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func rowString(vars []string, r []rdf.Term) string {
	var parts []string
	for i, t := range r {
		if !t.IsZero() {
			parts = append(parts, "?"+vars[i]+"="+t.String())
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}
