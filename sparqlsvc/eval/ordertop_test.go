package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestOrderTopMatchesFullSort: ORDER BY … LIMIT through orderTop's buffer (trimmed by the first key, the ties
// with the cut kept, or ordered whole when they fill half of it) gives the slice of the full sort: first keys
// that arrive ascending and descending, few values with many ties, one value for all (every trim orders the
// ties), computed keys, several keys and directions, offsets; with a buffer that grows for the ties and one that
// may not (the ties ordered by every key at each trim).
func TestOrderTopMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	b := index.NewBuilder()
	for i := range 6000 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", r.IntN(100000)))
		adds := []rdf.Quad{
			rdf.Triple(s, rdf.IRI("http://ex.org/d"), rdf.Literal(fmt.Sprintf("2008-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28)), index.XSDDate)),
			rdf.Triple(s, rdf.IRI("http://ex.org/n"), rdf.Literal(fmt.Sprint(r.IntN(40)), rdf.XSDInteger)),
			rdf.Triple(s, rdf.IRI("http://ex.org/one"), rdf.String("same")),
			rdf.Triple(s, rdf.IRI("http://ex.org/w"), rdf.String(fmt.Sprint(i%7))),
		}
		for _, a := range adds {
			if err := b.Add(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	ds := FromIndex(b.Build())
	bodies := []string{
		`{ ?s <http://ex.org/d> ?v } ORDER BY DESC(?v) ?s`,
		`{ ?s <http://ex.org/d> ?v } ORDER BY ?v DESC(?s)`,
		`{ ?s <http://ex.org/n> ?v } ORDER BY DESC(?v) DESC(?s)`,
		`{ ?s <http://ex.org/one> ?v } ORDER BY ?v ?s`,
		`{ ?s <http://ex.org/one> ?v } ORDER BY DESC(?v)`,
		`{ ?s <http://ex.org/d> ?d BIND(xsd:dateTime(CONCAT(STR(?d), "T12:00:00Z")) AS ?v) } ORDER BY DESC(?v) ?s`,
		`{ ?s <http://ex.org/w> ?w ; <http://ex.org/n> ?v } ORDER BY DESC(STR(?w)) ?v ?s`,
		// About 600 solutions: the buffer never trims, and the cut by the first key before the final sort alone
		// decides which candidates the sort sees (four values, many ties with the cut).
		`{ ?s <http://ex.org/n> ?v FILTER(?v < 4) } ORDER BY DESC(?v) DESC(?s)`,
		`{ ?s <http://ex.org/n> ?v FILTER(?v < 4) } ORDER BY ?v ?s`,
	}
	pre := `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT ?s ?v `
	for _, body := range bodies {
		want := runOrdered(t, ds, pre+body)
		if len(want) < 5000 && !strings.Contains(body, "FILTER(?v < 4)") || len(want) < 500 {
			t.Fatalf("%s: %d solutions", body, len(want))
		}
		for _, slice := range [][2]int{{10, 0}, {1, 0}, {7, 3}, {256, 0}, {100, 150}} {
			src := pre + body + fmt.Sprintf(" LIMIT %d OFFSET %d", slice[0], slice[1])
			// A budget of 3 000 rows lets the buffer of 1 024 start but not grow: the ties are ordered at each trim.
			for _, maxRows := range []int{0, 3000} {
				got := runOrderedWith(t, ds, src, Options{MaxRows: maxRows})
				if strings.Join(got, "\n") != strings.Join(want[slice[1]:slice[1]+slice[0]], "\n") {
					t.Fatalf("%s (%d rows): not the full sort's slice", src, maxRows)
				}
			}
		}
	}
}

// TestOrderDistinctTopMatchesFullSort: SELECT DISTINCT … ORDER BY … LIMIT through orderDistinctTop gives the slice
// of the full sort's distinct solutions: projections that repeat with order keys not projected (each projection
// placed by its best solution), projected keys with many ties, computed keys, descending keys, offsets, and a
// REDUCED. Dropping the check for a held projection, or keeping its first solution instead of its best, fails.
func TestOrderDistinctTopMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	b := index.NewBuilder()
	for range 4000 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", r.IntN(100000)))
		adds := []rdf.Quad{
			rdf.Triple(s, rdf.IRI("http://ex.org/d"), rdf.Literal(fmt.Sprintf("2008-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28)), index.XSDDate)),
			rdf.Triple(s, rdf.IRI("http://ex.org/n"), rdf.Literal(fmt.Sprint(r.IntN(40)), rdf.XSDInteger)),
			rdf.Triple(s, rdf.IRI("http://ex.org/w"), rdf.String(fmt.Sprint(r.IntN(9)))),
		}
		for _, a := range adds {
			if err := b.Add(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	ds := FromIndex(b.Build())
	queries := []string{
		`SELECT DISTINCT ?w ?n { ?s <http://ex.org/w> ?w ; <http://ex.org/n> ?n ; <http://ex.org/d> ?d } ORDER BY ?d`,
		`SELECT DISTINCT ?w ?n { ?s <http://ex.org/w> ?w ; <http://ex.org/n> ?n ; <http://ex.org/d> ?d } ORDER BY DESC(?d) ?s`,
		`SELECT DISTINCT ?n ?w { ?s <http://ex.org/w> ?w ; <http://ex.org/n> ?n } ORDER BY DESC(?n) ?w`,
		`SELECT DISTINCT ?w ?n { ?s <http://ex.org/w> ?w ; <http://ex.org/n> ?n } ORDER BY DESC(STR(?w)) ?s`,
		`SELECT REDUCED ?w ?n { ?s <http://ex.org/w> ?w ; <http://ex.org/n> ?n ; <http://ex.org/d> ?d } ORDER BY ?d ?s`,
	}
	// A budget of 1 500 rows leaves no room for orderDistinctTop's buffer: the ORDER BY then sorts all ~600
	// solutions, not the first k, which need not hold k distinct ones.
	small := `SELECT DISTINCT ?w ?n { ?s <http://ex.org/w> ?w ; <http://ex.org/n> ?n ; <http://ex.org/d> ?d FILTER(?n < 6) } ORDER BY ?d`
	want := runOrdered(t, ds, small)
	got := runOrderedWith(t, ds, small+" LIMIT 20", Options{MaxRows: 1500})
	if strings.Join(got, "\n") != strings.Join(want[:20], "\n") {
		t.Fatalf("%s LIMIT 20 (1 500 rows): not the full sort's slice\ngot  %v\nwant %v", small, got, want[:20])
	}
	for _, src := range queries {
		want := runOrdered(t, ds, src)
		if len(want) < 200 || len(want) > 360 {
			t.Fatalf("%s: %d solutions", src, len(want))
		}
		for _, slice := range [][2]int{{20, 0}, {1, 0}, {7, 3}, {256, 0}, {100, 150}} {
			got := runOrdered(t, ds, src+fmt.Sprintf(" LIMIT %d OFFSET %d", slice[0], slice[1]))
			end := min(slice[1]+slice[0], len(want))
			if strings.Join(got, "\n") != strings.Join(want[slice[1]:end], "\n") {
				t.Fatalf("%s LIMIT %d OFFSET %d: not the full sort's slice\ngot  %v\nwant %v", src, slice[0], slice[1], got, want[slice[1]:end])
			}
		}
	}
}

// TestOrderSelectMatchesFullSort: ORDER BY … OFFSET … LIMIT past orderTop's reach through orderSelect's buffer
// (trimmed by selection, the first offset solutions emitted unordered for the slice to drop) gives the slice of
// the full sort: keys arriving ascending, descending and with many ties, computed keys, several keys and
// directions, offsets that end inside, at and past the solutions; under a budget that lets the buffer grow to
// twice offset+limit, and one that does not (the heap then serves).
func TestOrderSelectMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(85, 86))
	b := index.NewBuilder()
	for i := range 6000 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", r.IntN(100000)))
		adds := []rdf.Quad{
			rdf.Triple(s, rdf.IRI("http://ex.org/d"), rdf.Literal(fmt.Sprintf("2008-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28)), index.XSDDate)),
			rdf.Triple(s, rdf.IRI("http://ex.org/n"), rdf.Literal(fmt.Sprint(r.IntN(40)), rdf.XSDInteger)),
			rdf.Triple(s, rdf.IRI("http://ex.org/one"), rdf.String("same")),
			rdf.Triple(s, rdf.IRI("http://ex.org/u"), rdf.Literal(fmt.Sprint(i), rdf.XSDInteger)),
		}
		for _, a := range adds {
			if err := b.Add(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	ds := FromIndex(b.Build())
	bodies := []string{
		`{ ?s <http://ex.org/d> ?v } ORDER BY DESC(?v) ?s`,
		`{ ?s <http://ex.org/u> ?v } ORDER BY ?v`,
		`{ ?s <http://ex.org/u> ?v } ORDER BY DESC(?v)`,
		`{ ?s <http://ex.org/n> ?v } ORDER BY DESC(?v) DESC(?s)`,
		`{ ?s <http://ex.org/one> ?v } ORDER BY ?v`,
		`{ ?s <http://ex.org/n> ?n BIND(?n * -3 AS ?v) } ORDER BY ?v STR(?s)`,
	}
	pre := `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT ?s ?v `
	for _, body := range bodies {
		want := runOrdered(t, ds, pre+body)
		if len(want) < 5000 {
			t.Fatalf("%s: %d solutions", body, len(want))
		}
		for _, slice := range [][2]int{{300, 0}, {20, 1000}, {1000, 2500}, {600, len(want) - 300}, {10, len(want) - 10}, {50, len(want) + 5}} {
			src := pre + body + fmt.Sprintf(" LIMIT %d OFFSET %d", slice[0], slice[1])
			end := min(slice[1]+slice[0], len(want))
			start := min(slice[1], len(want))
			// 4·(offset+limit) rows let orderSelect's buffer reach twice offset+limit; 3·(offset+limit) do not.
			for _, maxRows := range []int{0, 4 * (slice[0] + slice[1]), 3 * (slice[0] + slice[1])} {
				got := runOrderedWith(t, ds, src, Options{MaxRows: maxRows})
				if strings.Join(got, "\n") != strings.Join(want[start:end], "\n") {
					t.Fatalf("%s (%d rows): not the full sort's slice", src, maxRows)
				}
			}
		}
	}
}
