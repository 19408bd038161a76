package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestHavingTestedBeforeAggregatesMade: a HAVING over a GROUP BY drops the groups it fails before the aggregates it
// does not read are made into terms (emitGroups' above), and the answers are those of the same HAVING made
// untestable early (a RAND() beside it): conditions on one aggregate, two, a key, an error (MIN of strings compared
// with a number), an unbound aggregate (AVG over no numbers), under ORDER BY and LIMIT. The computed MIN of the
// 300 groups that fail becomes no term: on the old code the query interned one per group.
func TestHavingTestedBeforeAggregatesMade(t *testing.T) {
	b, add := builderAdding(t)
	for i := range 1000 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		k := i % 300 // keys 0–99 have four members, the rest three
		add(s, rdf.IRI("http://ex.org/k"), rdf.String(fmt.Sprintf("K%d", k)))
		add(s, rdf.IRI("http://ex.org/n"), rdf.Literal(fmt.Sprint(i%7), rdf.XSDInteger))
		if i%5 == 0 {
			add(s, rdf.IRI("http://ex.org/t"), rdf.String(fmt.Sprintf("t%d", i)))
		}
	}
	ds := FromIndex(b.Build())
	body := `SELECT ?k (COUNT(?s) AS ?c) (MIN(CONCAT("m-", STR(?s))) AS ?m) (SUM(?n) AS ?sum) (AVG(?t) AS ?a)
		(GROUP_CONCAT(?n) AS ?all) WHERE { ?s <http://ex.org/k> ?k ; <http://ex.org/n> ?n OPTIONAL { ?s <http://ex.org/t> ?t } }
		GROUP BY ?k HAVING (%s) ORDER BY ?k`
	for _, h := range []string{"COUNT(?s) > 3", "COUNT(?s) > 3 && SUM(?n) > 12", "?k = \"K7\" || COUNT(?s) < 4",
		"MIN(CONCAT(\"m-\", STR(?s))) > 3", "BOUND(?a)", "!BOUND(?a) && COUNT(?s) = 4", "STRSTARTS(?k, \"K1\")"} {
		fast := fmt.Sprintf(body, h)
		slow := fmt.Sprintf(body, "("+h+") && RAND() >= 0")
		got, _ := runQuery(t, ds, fast)
		want, _ := runQuery(t, ds, slow)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("HAVING %s:\n got %q\nwant %q", h, got, want)
		}
		for _, lim := range []string{" LIMIT 5", " OFFSET 3 LIMIT 4"} {
			got, _ := runQuery(t, ds, fast+lim)
			want, _ := runQuery(t, ds, slow+lim)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("HAVING %s%s:\n got %q\nwant %q", h, lim, got, want)
			}
		}
	}
	q, err := parser.Parse(fmt.Sprintf(body, "COUNT(?s) > 3"), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), ds, q, Options{})
	var rows []string
	var rerr error
	e.exec(q.Op, e.newRow(), e.collectRows(&rows), &rerr)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(rows) != 100 {
		t.Fatalf("%d groups kept, want 100", len(rows))
	}
	if n := len(e.t.extra); n > 150 {
		t.Errorf("%d terms made for 100 groups kept of 300: the groups HAVING drops made theirs", n)
	}
}
