package eval

import (
	"slices"
	"strings"
	"testing"
)

// TestSortedFeedMatchesArrivalOrder: a GROUP BY over a star whose solutions are kept past a few groups and handed
// on sorted by their keys (groupsorted.go) gives the groups, their aggregates and their order (the order their first
// solutions came in) that handing each solution on as it comes gives: keys of one and two variables, COUNT, COUNT(*),
// SUM and AVG of integers and decimals (exact), HAVING, ORDER BY an unprojected aggregate with LIMIT (h76), an
// OPTIONAL's values unbound in some solutions (AVG then unbound); split over two cores too, and with the kept
// solutions handed on partway when there is no room to keep more. Aggregates of an
// expression or other than COUNT, SUM and AVG, and a key computed from a term, keep nothing to sort.
func TestSortedFeedMatchesArrivalOrder(t *testing.T) {
	ds := optStarData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	for _, c := range []struct {
		src    string
		sorted bool
	}{
		{`SELECT ?k ?a (COUNT(*) AS ?n) (SUM(?c) AS ?sc) (AVG(?d) AS ?ad) { ?s ex:p0 ?a ; ex:p1 ?k ; ex:p2 ?c ; ex:p3 ?d } GROUP BY ?k ?a`, true},
		{`SELECT ?a (COUNT(?c) AS ?n) (AVG(?d) AS ?ad) { ?s ex:p0 ?a ; ex:p2 ?c ; ex:p3 ?d } GROUP BY ?a`, true},
		{`SELECT ?a (COUNT(?c) AS ?n) { ?s ex:p0 ?a ; ex:p2 ?c } GROUP BY ?a HAVING (COUNT(?c) >= 20) ORDER BY DESC(AVG(?c)) ?a LIMIT 7`, true},
		{`SELECT ?a (COUNT(?c) AS ?n) (AVG(?c) AS ?ac) (SUM(?d) AS ?sd) { ?s ex:p0 ?a ; ex:p3 ?d OPTIONAL { ?s ex:p2 ?c } } GROUP BY ?a`, true},
		{`SELECT ?a (SAMPLE(?k) AS ?sk) (COUNT(*) AS ?n) { ?s ex:p0 ?a ; ex:p1 ?k } GROUP BY ?a`, false},
		{`SELECT ?a (SUM(?c * 2) AS ?s2) { ?s ex:p0 ?a ; ex:p2 ?c } GROUP BY ?a`, false},
		{`SELECT ?a (MAX(?c) AS ?m) (AVG(?c) AS ?ac) { ?s ex:p0 ?a ; ex:p2 ?c OPTIONAL { ?s ex:p3 ?d } } GROUP BY ?a`, false},
	} {
		src := pre + c.src
		want, _ := runTopWith(t, ds, src, false, Options{sortedFeed: -1})
		if len(want) < 5 {
			t.Fatalf("%s: %d groups: the data does not test it", src, len(want))
		}
		got, e := runTopEval(t, ds, src, false, Options{sortedFeed: 3})
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
		if took := e.sortedFeeds > 0; took != c.sorted {
			t.Errorf("%s: sorted %v, want %v", src, took, c.sorted)
		}
		// Kept solutions handed on partway (no room to keep more), the rest as they come: the same answer.
		part, _ := runTopWith(t, ds, src, false, Options{sortedFeed: 3, sortedKeepMax: 40})
		if strings.Join(part, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s partway:\n got %q\nwant %q", src, part, want)
		}
		if strings.Contains(src, "LIMIT") {
			continue
		}
		pool := Options{Cores: NewCores(2), sortedFeed: 3}
		pool.forkMin, pool.forkChunk = 64, 16
		split, _ := runGroupWith(t, ds, src, false, pool)
		whole, _ := runGroupWith(t, ds, src, false, Options{sortedFeed: -1})
		slices.Sort(split)
		slices.Sort(whole)
		if strings.Join(split, "\n") != strings.Join(whole, "\n") {
			t.Errorf("%s split:\n got %q\nwant %q", src, split, whole)
		}
	}
}
