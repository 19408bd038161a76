package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestGroupSplitMatchesReference: a GROUP BY over one pattern grouped on two goroutines, the worker's groups merged
// into the query's (groupSplit), gives what refGroup gives from every solution in one pass, groups in the same
// order: keys of a variable, of date fields and of computed strings (the worker's own ids), COUNT, SUM, AVG and
// SAMPLE over integers, decimals and totals leaving int64, over values that are no numbers, errors only in the
// worker's half, and over doubles (not merged: the second half is grouped again), with a filter tested per row. The
// split must happen where it may, and not where the aggregates do not merge (MIN, DISTINCT).
func TestGroupSplitMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	vals := aggregateValues()
	b := index.NewBuilder()
	ex := func(s string, i int) rdf.Term { return rdf.IRI(fmt.Sprintf("http://ex.org/%s%d", s, i)) }
	for i := range 6000 {
		at := time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(400 * 24 * time.Hour))))
		adds := [][2]rdf.Term{
			{ex("p", 0), vals[r.IntN(len(vals))]},                                    // every kind
			{ex("p", 1), rdf.Literal(fmt.Sprint(r.IntN(2000)-1000), rdf.XSDInteger)}, // integers
			{ex("p", 1), rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(99), r.IntN(100)), rdf.XSDDecimal)},
			{ex("p", 2), rdf.Literal(at.Format("2006-01-02T15:04:05"), rdf.XSDNS+"dateTime")}, // distinct dateTimes
			{ex("p", 3), rdf.Literal(fmt.Sprint(r.Float64()*100), rdf.XSDDouble)},
			{ex("p", 4), rdf.Literal(fmt.Sprint(r.Int64N(1<<62)), rdf.XSDInteger)}, // totals leave int64
		}
		for _, a := range adds {
			if err := b.Add(rdf.Triple(ex("s", i), a[0], a[1])); err != nil {
				t.Fatal(err)
			}
		}
	}
	ds := FromIndex(b.Build())
	aggs := `(COUNT(*) AS ?n) (COUNT(?o) AS ?co) (SUM(?o) AS ?sum) (AVG(?o) AS ?avg) (SAMPLE(?o) AS ?sa)`
	for _, c := range []struct {
		src           string
		split, merged bool
	}{
		{`SELECT ?h (COUNT(*) AS ?n) (SUM(IF(MINUTES(?o) < 30, 1, 0)) AS ?f) { ?s <http://ex.org/p2> ?o } GROUP BY (HOURS(?o) AS ?h)`, true, true},
		{`SELECT ?k ` + aggs + ` { ?s <http://ex.org/p1> ?o } GROUP BY (STR(?o) AS ?k)`, true, true},
		{`SELECT ?k ` + aggs + ` { ?s <http://ex.org/p1> ?o } GROUP BY (CONCAT("k", STR(ROUND(?o / 100))) AS ?k)`, true, true},
		{`SELECT ?k ` + aggs + ` { ?s <http://ex.org/p0> ?o } GROUP BY (DATATYPE(?o) AS ?k)`, true, false},
		{`SELECT ?k ` + aggs + ` { ?s <http://ex.org/p4> ?o } GROUP BY (STRLEN(STR(?o)) AS ?k)`, true, true},
		{`SELECT ?k ` + aggs + ` { ?s <http://ex.org/p3> ?o } GROUP BY (FLOOR(?o / 10) AS ?k)`, true, false},
		{`SELECT ` + aggs + ` { ?s <http://ex.org/p1> ?o FILTER(?o > 10) }`, true, true},
		{`SELECT ?k ` + aggs + ` { ?s <http://ex.org/p1> ?o } GROUP BY (?o > 0 AS ?k)`, true, true},
		// The last decimals (98.5 … 99), in the worker's half, have no value: SUM has none.
		{`SELECT (SUM(IF(?o > 98.5 && ?o < 99, 1/0, 1)) AS ?e) (COUNT(*) AS ?n) { ?s <http://ex.org/p1> ?o }`, true, true},
		{`SELECT ?k (MIN(?o) AS ?m) { ?s <http://ex.org/p1> ?o } GROUP BY (STR(?o) AS ?k)`, false, false},
		{`SELECT ?k (COUNT(DISTINCT ?o) AS ?m) { ?s <http://ex.org/p1> ?o } GROUP BY (ROUND(?o / 100) AS ?k)`, false, false},
	} {
		q, err := parser.Parse(c.src, parser.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		g := firstOp[*algebra.Group](q.Op)
		cores := NewCores(2)
		// Small chunks, and every probe timed as long: the split is taken wherever it may be.
		e := newEvaluator(context.Background(), ds, q, Options{Cores: cores, forkMin: 64, forkChunk: 16,
			forkCosts: func(int, time.Duration, time.Duration) (time.Duration, time.Duration) { return time.Second, 0 }})
		var got []string
		e.group(g, e.newRow(), e.collectRows(&got), &err)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		want, _ := runGroup(t, ds, c.src, true)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.src, got, want)
		}
		if forks, _, _ := cores.Splits(); (forks > 0) != c.split || (cores.Chunks() > 0) != c.merged {
			t.Errorf("%s: %d splits, %d merged (want a split: %v, merged: %v)", c.src, forks, cores.Chunks(), c.split, c.merged)
		}
	}
}
