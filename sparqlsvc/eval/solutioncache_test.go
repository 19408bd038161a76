package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// solutionCacheFor makes a growing solutionCache (every aggregate a COUNT) over the first w slots of a query's row.
func solutionCacheFor(t testing.TB, w int) *solutionCache {
	t.Helper()
	q := mustParse(t, `SELECT ?a (COUNT(*) AS ?n) WHERE { ?a ?b ?c } GROUP BY ?a`)
	e := newEvaluator(context.Background(), FromIndex(index.NewBuilder().Build()), q, Options{})
	x := firstOp[*algebra.Group](q.Op)
	vary := make([]int, w)
	for i := range vary {
		vary[i] = i
	}
	row := make([]ID, max(e.nvars, w))
	var err error
	c := newSolutionCache(e, e.newGroupState(x), vary, row, &err)
	if c == nil || err != nil {
		t.Fatal("no cache:", err)
	}
	return c
}

// cacheCounts reads a solutionCache's entries as counts by the text of their values.
func cacheCounts(c *solutionCache) map[string]int64 {
	w := len(c.vary)
	out := map[string]int64{}
	for i, n := range c.n {
		if n > 0 {
			out[fmt.Sprint(c.keys[i*w:(i+1)*w])] += n
		}
	}
	return out
}

// TestSolutionCacheWordsMatchKeys: a growing cache of one or two slots (words) counts what the table of keys counts,
// through rehashes, for values that differ only in one slot or in which slot holds them, unbound (0), inline
// numbers and scratch ids (high bits set), and the same values again; three slots keep the table of keys.
func TestSolutionCacheWordsMatchKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 6))
	pool := []ID{0, 1, 2, 3, 0x7fffffff, 0x80000001, 0x90000000 + 7, 0xc0000002, 0xffffffff}
	for w := 1; w <= 3; w++ {
		packed, plain := solutionCacheFor(t, w), solutionCacheFor(t, w)
		if (packed.words != nil) != (w <= 2) {
			t.Fatalf("w=%d: words %v", w, packed.words != nil)
		}
		plain.words = nil
		want := map[string]int64{}
		key := make([]ID, w)
		var err error
		for i := range 20000 {
			for j := range key {
				if i%3 == 0 {
					key[j] = pool[r.IntN(len(pool))]
				} else {
					key[j] = ID(r.IntN(1 + i/40)) // ever more distinct values: the table grows
				}
			}
			n := int64(1 + r.IntN(3))
			want[fmt.Sprint(key)] += n
			if !packed.insert(key, n, &err) || !plain.insert(key, n, &err) {
				t.Fatal(err)
			}
		}
		for name, c := range map[string]*solutionCache{"words": packed, "keys": plain} {
			got := cacheCounts(c)
			if len(got) != len(want) {
				t.Errorf("w=%d %s: %d entries, want %d", w, name, len(got), len(want))
			}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("w=%d %s: %s counted %d, want %d", w, name, k, got[k], n)
				}
			}
		}
	}
}

// BenchmarkSolutionCacheInsert: h38's stream, two slots (a site of ten and whether an OPTIONAL is bound) at random.
func BenchmarkSolutionCacheInsert(b *testing.B) {
	for _, words := range []bool{true, false} {
		b.Run(fmt.Sprint("words=", words), func(b *testing.B) {
			c := solutionCacheFor(b, 2)
			if !words {
				c.words = nil
			}
			r := rand.New(rand.NewPCG(1, 2))
			keys := make([][]ID, 4096)
			for i := range keys {
				keys[i] = []ID{ID(100 + r.IntN(10)), ID(r.IntN(2) * 7)}
			}
			var err error
			b.ResetTimer()
			for i := range b.N {
				c.insert(keys[i&4095], 1, &err)
			}
		})
	}
}
