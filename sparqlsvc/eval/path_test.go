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

// pathWorld is random data for the path tests with its own answers worked out by brute force: items typed with
// classes, and class hierarchies (with cycles) that differ between the default graph and two named graphs, so the
// same class walks differently in each. The default graph also holds a chain of 300 classes, longer than a path
// pattern remembers (maxMemoPairs).
type pathWorld struct {
	ds      *Dataset
	graphs  []string               // "" is the default graph
	types   map[string][][2]string // per graph: (item, class)
	sub     map[string]map[string][]string
	nodes   map[string]map[string]bool
	reached map[string][]string // reach's answers
}

func newPathWorld(t *testing.T) *pathWorld {
	r := rand.New(rand.NewPCG(14, 9))
	w := &pathWorld{graphs: []string{"", "g1", "g2", "g3"}, types: map[string][][2]string{},
		sub: map[string]map[string][]string{}, nodes: map[string]map[string]bool{},
		reached: map[string][]string{}}
	b := index.NewBuilder()
	add := func(g, s, p, o string) {
		q := rdf.Triple(rdf.IRI("http://ex.org/"+s), rdf.IRI("http://ex.org/"+p), rdf.IRI("http://ex.org/"+o))
		if g != "" {
			q.G = rdf.IRI("http://ex.org/" + g)
		}
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
		if w.sub[g] == nil {
			w.sub[g], w.nodes[g] = map[string][]string{}, map[string]bool{}
		}
		w.nodes[g][s], w.nodes[g][o] = true, true
		if p == "sub" && !slices.Contains(w.sub[g][s], o) {
			w.sub[g][s] = append(w.sub[g][s], o)
		}
	}
	for _, g := range w.graphs[:3] {
		for range 40 {
			add(g, fmt.Sprint("c", r.IntN(30)), "sub", fmt.Sprint("c", r.IntN(30)))
		}
		for i := range 150 {
			// Items in runs of the same class, as a POS scan delivers them, and some in no order.
			c := fmt.Sprint("c", (i/7)%35) // c30…c34 are in no hierarchy
			if r.IntN(4) == 0 {
				c = fmt.Sprint("c", r.IntN(35))
			}
			if g == "" && i%50 == 0 {
				c = "n0"
			}
			item := fmt.Sprint("i", r.IntN(100))
			add(g, item, "type", c)
		}
	}
	for i := range 300 {
		add("", fmt.Sprint("n", i), "sub", fmt.Sprint("n", i+1))
	}
	// A small graph whose cycles fit in what a path pattern remembers for two free ends.
	for _, e := range [][2]string{{"a", "b"}, {"b", "a"}, {"b", "c"}, {"d", "d"}, {"e", "a"}} {
		add("g3", e[0], "sub", e[1])
	}
	for i := range 5 {
		add("g3", fmt.Sprint("i", i), "type", "a")
	}
	// Duplicates were dropped by the builder; the brute force reads the graph's triples back.
	ds := FromIndex(b.Build())
	w.ds = ds
	for _, g := range w.graphs {
		seen := map[[2]string]bool{}
		q := `SELECT ?x ?c { ?x <http://ex.org/type> ?c }`
		if g != "" {
			q = `SELECT ?x ?c { GRAPH <http://ex.org/` + g + `> { ?x <http://ex.org/type> ?c } }`
		}
		for _, row := range w.run(t, q) {
			k := [2]string{row[0], row[1]}
			if !seen[k] {
				seen[k] = true
				w.types[g] = append(w.types[g], k)
			}
		}
	}
	return w
}

func (w *pathWorld) run(t *testing.T, src string) [][]string {
	t.Helper()
	q := mustParse(t, src)
	res, err := Run(context.Background(), w.ds, q, Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	var out [][]string
	for _, row := range res.Rows {
		var r []string
		for _, v := range row {
			s := v.String()
			s = strings.TrimSuffix(strings.TrimPrefix(s, "<http://ex.org/"), ">")
			r = append(r, s)
		}
		out = append(out, r)
	}
	return out
}

// reach is the brute-force closure: the classes reachable from c in graph g along sub, one or more steps (and c
// itself when zero).
func (w *pathWorld) reach(g, c string, zero bool) (out []string) {
	k := fmt.Sprint(g, " ", c, " ", zero)
	if r, ok := w.reached[k]; ok {
		return r
	}
	defer func() { w.reached[k] = out }()
	seen := map[string]bool{}
	if zero {
		seen[c] = true
		out = append(out, c)
	}
	queue := []string{c}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range w.sub[g][n] {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
				queue = append(queue, m)
			}
		}
	}
	return out
}

func sortedRows(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, " "))
	}
	slices.Sort(out)
	return out
}

// TestPathJoinMatchesBruteForce joins typed items with the closure of their class, the shape that runs one path
// pattern per solution with the same ends again and again (pathSite remembers the answers per pair of ends), and
// compares with closures worked out by brute force: * and + forwards, from the object end (^sub), inside GRAPH ?g
// (one class walks differently per graph), with both ends one variable, over ends that are no graph node, and
// along a chain too long to remember.
func TestPathJoinMatchesBruteForce(t *testing.T) {
	w := newPathWorld(t)
	type want func(g string) [][]string
	closure := func(zero, withGraph bool) want {
		return func(g string) [][]string {
			var rows [][]string
			for _, xc := range w.types[g] {
				for _, c := range w.reach(g, xc[1], zero) {
					row := []string{xc[0], xc[1], c}
					if withGraph {
						row = append([]string{g}, row...)
					}
					rows = append(rows, row)
				}
			}
			return rows
		}
	}
	allGraphs := func(f want) want {
		return func(string) [][]string {
			var rows [][]string
			for _, g := range w.graphs[1:] {
				rows = append(rows, f(g)...)
			}
			return rows
		}
	}
	cases := []struct {
		src  string
		want want
	}{
		{`SELECT ?x ?c ?t { ?x <http://ex.org/type> ?c . ?c <http://ex.org/sub>* ?t }`, closure(true, false)},
		{`SELECT ?x ?c ?t { ?x <http://ex.org/type> ?c . ?c <http://ex.org/sub>+ ?t }`, closure(false, false)},
		{`SELECT ?x ?c ?t { ?x <http://ex.org/type> ?c . ?t ^<http://ex.org/sub>* ?c }`, closure(true, false)},
		// The object end bound, the subject free: the classes below each item's class.
		{`SELECT ?x ?c ?t { ?x <http://ex.org/type> ?c . ?t <http://ex.org/sub>* ?c }`, func(string) [][]string {
			var rows [][]string
			for _, xc := range w.types[""] {
				for n := range w.nodes[""] {
					if slices.Contains(w.reach("", n, true), xc[1]) {
						rows = append(rows, []string{xc[0], xc[1], n})
					}
				}
			}
			return rows
		}},
		{`SELECT ?g ?x ?c ?t { GRAPH ?g { ?x <http://ex.org/type> ?c . ?c <http://ex.org/sub>* ?t } }`,
			allGraphs(closure(true, true))},
		{`SELECT ?g ?x ?c ?t { GRAPH ?g { ?x <http://ex.org/type> ?c . ?c <http://ex.org/sub>+ ?t } }`,
			allGraphs(closure(false, true))},
		// Both ends one variable, free: the pairs remembered for (free, free) must still be filtered on replay.
		{`SELECT ?x ?c { GRAPH <http://ex.org/g3> { ?x <http://ex.org/type> <http://ex.org/a> . ?c <http://ex.org/sub>+ ?c } }`,
			func(string) [][]string {
				var rows [][]string
				for _, xc := range w.types["g3"] {
					if xc[1] != "a" {
						continue
					}
					for n := range w.nodes["g3"] {
						if slices.Contains(w.reach("g3", n, false), n) {
							rows = append(rows, []string{xc[0], n})
						}
					}
				}
				return rows
			}},
		// Ends from VALUES: a value that is no node of the graph matches nothing, even for a zero-length path.
		{`SELECT ?c ?t { VALUES ?c { <http://ex.org/none> <http://ex.org/c1> <http://ex.org/none> <http://ex.org/c1> <http://ex.org/n0> <http://ex.org/n0> } ?c <http://ex.org/sub>* ?t }`,
			func(string) [][]string {
				var rows [][]string
				for _, c := range []string{"none", "c1", "none", "c1", "n0", "n0"} {
					if !w.nodes[""][c] {
						continue
					}
					for _, r := range w.reach("", c, true) {
						rows = append(rows, []string{c, r})
					}
				}
				return rows
			}},
	}
	for _, c := range cases {
		got := sortedRows(w.run(t, c.src))
		exp := sortedRows(c.want(""))
		if len(exp) == 0 {
			t.Fatalf("%s: the brute force found nothing", c.src)
		}
		if !slices.Equal(got, exp) {
			t.Errorf("%s: %d rows, want %d", c.src, len(got), len(exp))
			for i := 0; i < len(got) && i < len(exp); i++ {
				if got[i] != exp[i] {
					t.Errorf("first difference at %d: got %q want %q", i, got[i], exp[i])
					break
				}
			}
		}
	}
}
