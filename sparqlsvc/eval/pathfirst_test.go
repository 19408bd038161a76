package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// reviewWorld is random data for an EXISTS over a path anchored on a constant, tested per person: persons in two
// countries, their reviews of products, the products' types (some with two, some with none) and a class hierarchy
// with a cycle and a class under the root through two parents. under holds the brute force's answer: the classes
// from which root is reachable along sub (zero or more steps).
type reviewWorld struct {
	ds      *Dataset
	persons map[string]string   // person → country
	reviews map[string][]string // person → its reviews' products (one entry per review)
	types   map[string][]string // product → classes
	under   map[string]bool
}

func newReviewWorld(t *testing.T, seed uint64) *reviewWorld {
	r := rand.New(rand.NewPCG(seed, 17))
	w := &reviewWorld{persons: map[string]string{}, reviews: map[string][]string{}, types: map[string][]string{},
		under: map[string]bool{}}
	b := index.NewBuilder()
	add := func(s, p, o string) {
		if err := b.Add(rdf.Triple(rdf.IRI("http://ex.org/"+s), rdf.IRI("http://ex.org/"+p), rdf.IRI("http://ex.org/"+o))); err != nil {
			t.Fatal(err)
		}
	}
	// Classes c0…c199: c1…c119 hang under c0 (each under a lower one), c120…c199 under c200, a second root; c5 is
	// also under c150, c30 and c31 form a cycle with c0, and c7 is its own subclass.
	sub := map[string][]string{}
	link := func(a, b string) {
		if !slices.Contains(sub[a], b) {
			sub[a] = append(sub[a], b)
			add(a, "sub", b)
		}
	}
	for i := 1; i < 200; i++ {
		parent := fmt.Sprint("c", r.IntN(i))
		if i >= 120 {
			parent = fmt.Sprint("c", 120+r.IntN(i-119))
			if i == 120 {
				parent = "c200"
			}
		}
		link(fmt.Sprint("c", i), parent)
	}
	link("c5", "c150")
	link("c0", "c30")
	link("c30", "c31")
	link("c31", "c0")
	link("c7", "c7")
	for c := range 201 {
		name := fmt.Sprint("c", c)
		seen, queue := map[string]bool{name: true}, []string{name}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			for _, m := range sub[n] {
				if !seen[m] {
					seen[m] = true
					queue = append(queue, m)
				}
			}
		}
		w.under[name] = seen["c0"]
	}
	for p := range 300 {
		prod := fmt.Sprint("p", p)
		for range r.IntN(3) { // none, one or two types
			c := fmt.Sprint("c", r.IntN(201))
			if !slices.Contains(w.types[prod], c) {
				w.types[prod] = append(w.types[prod], c)
				add(prod, "type", c)
			}
		}
	}
	review := 0
	for i := range 60 {
		person := fmt.Sprint("person", i)
		w.persons[person] = fmt.Sprint("k", i%2)
		add(person, "country", w.persons[person])
		for range r.IntN(6) {
			prod := fmt.Sprint("p", r.IntN(300))
			if r.IntN(3) > 0 { // most reviews are of products under c200, so that few persons have one under c0
				for len(w.types[prod]) == 0 || w.under[w.types[prod][0]] {
					prod = fmt.Sprint("p", r.IntN(300))
				}
			}
			rv := fmt.Sprint("r", review)
			review++
			add(rv, "reviewer", person)
			add(rv, "reviewFor", prod)
			w.reviews[person] = append(w.reviews[person], prod)
		}
	}
	w.ds = FromIndex(b.Build())
	return w
}

// reviewedUnder reports whether person reviewed a product with a type under c0.
func (w *reviewWorld) reviewedUnder(person string) bool {
	for _, prod := range w.reviews[person] {
		for _, c := range w.types[prod] {
			if w.under[c] {
				return true
			}
		}
	}
	return false
}

// TestExistsPathFromTheRow tests, per person of one country, an EXISTS over the person's reviews and a path
// from their products' types up a class hierarchy to a constant (h73's shape): the answers must be the brute
// force's, with the set and without it (per row), and evaluated per row the pattern must start from the person's
// reviews rather than from the constant's closure (pathFirstCosted): the closure of c0 holds about 120 classes,
// each walked to its products and their reviews per person, where a person's own reviews are a few.
func TestExistsPathFromTheRow(t *testing.T) {
	for seed := range uint64(4) {
		w := newReviewWorld(t, seed)
		for _, not := range []bool{true, false} {
			for _, closure := range []string{"*", "+"} {
				neg := ""
				if not {
					neg = "NOT "
				}
				src := `PREFIX : <http://ex.org/>
SELECT ?person (COUNT(?review) AS ?n) WHERE {
  ?person :country :k0 .
  ?review :reviewer ?person .
  FILTER ` + neg + `EXISTS { ?other :reviewer ?person ; :reviewFor/:type/:sub` + closure + ` :c0 }
} GROUP BY ?person`
				var want []string
				for person, country := range w.persons {
					// c0 is on a cycle, so c0+ reaches c0 and the two closures agree on every class.
					if country == "k0" && len(w.reviews[person]) > 0 && w.reviewedUnder(person) != not {
						want = append(want, fmt.Sprintf("%s %d", person, len(w.reviews[person])))
					}
				}
				slices.Sort(want)
				if len(want) == 0 {
					t.Fatalf("seed %d: %s: the brute force found nothing", seed, src)
				}
				for _, semi := range []int{-1, 0, 1} {
					q := mustParse(t, src)
					e := newEvaluator(context.Background(), w.ds, q, Options{})
					e.opt.semiJoin = semi
					c := &collector{res: &Result{Form: q.Form}}
					if err := e.selectQuery(q, c); err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, row := range c.res.Rows {
						got = append(got, strings.TrimSuffix(strings.TrimPrefix(row[0].String(), "<http://ex.org/"), ">")+" "+row[1].Value)
					}
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Errorf("seed %d, semi-join %d: %s:\n got %v\nwant %v", seed, semi, src, got, want)
					}
					// Per row, each person's evaluation reads its few reviews (up to 5, a product and a type or two
					// each): 5 100–6 900 steps of work for the query over the four seeds. From the closure, each
					// person walks ~120 classes and their products' reviews until one is theirs: 21 600–39 000.
					if semi < 0 {
						if work := e.effort(); work > 12000 {
							t.Errorf("seed %d: %s: %d steps of work evaluated per row, want ≤ 12 000 (from the person's reviews)", seed, src, work)
						}
					}
				}
			}
		}
	}
}
