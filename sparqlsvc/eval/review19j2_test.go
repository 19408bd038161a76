package eval

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestReview19jCrossPaths: cross products of two or three parts that property paths connect (crossSplit) — paths
// of zero length (*, ?), cycles (a variable at both ends), both ends in one part, a constant end, alternatives and
// inverses, sequences through the data, several paths, FILTERs across parts, the whole inside OPTIONAL or a
// nested group — give what the plain joins give (about one query in ten is split).
func TestReview19jCrossPaths(t *testing.T) {
	parts := []string{`?a ex:type ?t1 . `, `?b ex:type ?t2 . `, `?r ex:by ?a . `, `?b ex:country ?c . `,
		`?a ex:name ?n . `, `?t3 ex:sub ex:t0 . `, `?b ex:name ?n . `}
	paths := []string{`?t1 ex:sub* ?t2 . `, `?t1 ex:sub+ ?t2 . `, `?t1 ex:sub? ?t2 . `, `?t2 ^ex:sub* ?t1 . `,
		`?t1 ex:sub* ex:t0 . `, `?t1 (ex:sub|^ex:sub)* ?t2 . `, `?a ex:type/ex:sub* ?t2 . `, `?t1 ex:sub* ?t1 . `,
		`?t1 ex:sub* ?t3 . `, `?a (ex:type/ex:sub)? ?b . `, `?t2 ex:sub* ?t3 . `, `?c ex:sub* ?t1 . `}
	filters := []string{``, `FILTER(?t1 != ?t2) `, `FILTER(?a != ?b) `, `FILTER(!BOUND(?c)) `, `FILTER(?t3 = ?t1) `}
	for seed := range uint64(2) {
		ds := reviewData(t, seed+71, 40)
		r := rand.New(rand.NewPCG(seed, 19))
		for range 50 {
			var b strings.Builder
			for range 2 {
				b.WriteString(pick(r, parts...))
			}
			for range 1 + r.IntN(2) {
				b.WriteString(pick(r, paths...))
			}
			b.WriteString(pick(r, filters...))
			body := b.String()
			switch r.IntN(4) {
			case 0:
				body = `?a ex:name ?n0 OPTIONAL { ` + body + `} `
			case 1:
				body = `?t1 ex:sub ?t9 . { ` + body + `} `
			}
			src := `PREFIX ex: <http://ex.org/> SELECT * WHERE { ` + body + `}`
			want, err := runSorted(ds, src, plainOptions(), true)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			if got, err := runSorted(ds, src, Options{}, false); err != nil || got != want {
				t.Errorf("seed %d: %s: %v\n got %d lines %.300s\nwant %d lines %.300s", seed, src, err,
					strings.Count(got, "\n"), got, strings.Count(want, "\n"), want)
			}
		}
	}
}
