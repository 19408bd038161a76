package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// orderScanData: offers (IRIs and blank nodes) with prices (decimals of two digits, many ties, some offers with
// two), delivery days, a vendor whose countries are 0, 1 or 2 of three, dateTimes with a timezone (one predicate's
// with some on 30 February, a form held as written outside the block of valid ones), a dateTime without one, and numbers of mixed scales (1.5 and 1.50).
func orderScanData(t *testing.T) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(171, 172))
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	var qs []rdf.Quad
	add := func(s, p, o rdf.Term) { qs = append(qs, rdf.Triple(s, p, o)) }
	countries := []rdf.Term{ex("DE"), ex("FR"), ex("US")}
	for v := range 20 {
		for c := range v % 3 {
			add(ex(fmt.Sprint("v", v)), ex("country"), countries[(v+c)%3])
		}
	}
	price := func() rdf.Term {
		return rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(4), r.IntN(100)), rdf.XSDDecimal)
	}
	for i := range 3000 {
		s := ex(fmt.Sprint("o", i))
		if i%5 == 0 {
			s = rdf.Blank(fmt.Sprint("b", i))
		}
		add(s, ex("price"), price())
		if i%11 == 0 {
			add(s, ex("price"), price())
		}
		if i%13 != 0 {
			add(s, ex("days"), rdf.Literal(fmt.Sprint(1+r.IntN(7)), rdf.XSDInteger))
		}
		add(s, ex("vendor"), ex(fmt.Sprint("v", r.IntN(20))))
		day := 1 + r.IntN(28)
		if i%17 == 0 {
			day = 30 // 30 February: a form held as written
		}
		add(s, ex("at"), rdf.Literal(fmt.Sprintf("2008-%02d-%02dT%02d:00:00Z", 1+r.IntN(2), day, r.IntN(24)), rdf.XSDNS+"dateTime"))
		add(s, ex("valid"), rdf.Literal(fmt.Sprintf("2008-%02d-%02dT%02d:30:00+02:00", 1+r.IntN(2), 1+r.IntN(28), r.IntN(24)), rdf.XSDNS+"dateTime"))
		add(s, ex("local"), rdf.Literal(fmt.Sprintf("2008-03-%02dT%02d:00:00", 1+r.IntN(28), r.IntN(24)), rdf.XSDNS+"dateTime"))
		add(s, ex("mixed"), rdf.Literal([]string{"1.5", "1.50", "2.25", "0.7"}[r.IntN(4)], rdf.XSDDecimal))
	}
	b := index.NewBuilder()
	for _, q := range qs {
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	return FromIndex(b.Build())
}

// TestOrderScanMatchesFullSort: ORDER BY … LIMIT read in the first key's order (orderScan) gives the slice of the
// full sort, and of the join it replaces, whether it runs to the end, gives up after a few rows (the join then
// answers from the start) or is left to the model: ascending and descending first keys, runs of ties on the first
// key that the later keys order (a scan that stopped at k solutions without finishing the run fails), offers with
// two prices, filters of the vendor's country that keep few, dateTimes with a timezone and forms that are no
// dates (whose predicate is not scanned), offsets; and DESCRIBE of offers that are blank nodes. Predicates whose values are not in one ordered run
// (mixed decimal scales) are not scanned.
func TestOrderScanMatchesFullSort(t *testing.T) {
	ds := orderScanData(t)
	pre := `PREFIX ex: <http://ex.org/> SELECT ?s ?v WHERE `
	cases := []struct {
		body    string
		scanned bool
	}{
		{`{ ?s ex:price ?v ; ex:days ?d ; ex:vendor ?w . ?w ex:country ex:DE } ORDER BY ?v ?s`, true},
		{`{ ?s ex:price ?v ; ex:days ?d ; ex:vendor ?w . ?w ex:country ex:DE } ORDER BY DESC(?v) ?s`, true},
		{`{ ?s ex:price ?v ; ex:days 1 ; ex:vendor ?w . ?w ex:country ex:FR } ORDER BY ?v DESC(?s)`, true},
		{`{ ?s ex:days ?v ; ex:price ?p } ORDER BY ?v DESC(?p) ?s`, true},
		{`{ ?s ex:days ?v ; ex:price ?p } ORDER BY DESC(?v) ?p ?s`, true},
		{`{ ?s ex:price ?v } ORDER BY ?v ?s`, true},
		{`{ ?s ex:price ?v ; ex:price ?p } ORDER BY DESC(?v) ?p ?s`, true},
		{`{ ?s ex:at ?v ; ex:days 2 } ORDER BY DESC(?v) ?s`, false},
		{`{ ?s ex:at ?v ; ex:vendor ?w } ORDER BY ?v ?s`, false},
		{`{ ?s ex:valid ?v ; ex:days 2 } ORDER BY DESC(?v) ?s`, true},
		{`{ ?s ex:valid ?v ; ex:vendor ?w . ?w ex:country ex:US } ORDER BY ?v ?s`, true},
		{`{ ?s ex:local ?v ; ex:days ?d } ORDER BY ?v ?s`, true},
		{`{ ?s ex:mixed ?v ; ex:days 3 } ORDER BY ?v ?s`, false},
		{`{ ?s ex:days ?d ; ex:price ?v } ORDER BY STR(?v) ?s`, false},
	}
	for _, c := range cases {
		all, err := runText(t, ds, pre+c.body, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all.Rows) < 20 {
			t.Fatalf("%s: %d solutions", c.body, len(all.Rows))
		}
		for _, slice := range [][2]int{{5, 0}, {1, 0}, {7, 3}, {40, 100}} {
			src := pre + c.body + fmt.Sprintf(" LIMIT %d OFFSET %d", slice[0], slice[1])
			want := all.Rows[min(slice[1], len(all.Rows)):min(slice[1]+slice[0], len(all.Rows))]
			for _, rows := range []int{-1, 1 << 30, 3, 0} {
				got, err := runText(t, ds, src, Options{orderScanRows: rows})
				if err != nil {
					t.Fatal(err)
				}
				if !sameResult(got, &Result{Form: all.Form, Vars: all.Vars, Rows: want}) {
					t.Fatalf("%s (orderScanRows %d):\n got %v\nwant %v", src, rows, got.Rows, want)
				}
			}
			if took := orderScanTakes(t, ds, src); took != c.scanned {
				t.Errorf("%s: scanned %v, want %v", src, took, c.scanned)
			}
		}
	}
	for _, src := range []string{
		`PREFIX ex: <http://ex.org/> DESCRIBE ?s WHERE { ?s ex:price ?v ; ex:days 1 } ORDER BY ?v ?s LIMIT 6`,
		`PREFIX ex: <http://ex.org/> DESCRIBE ?s WHERE { ?s ex:price ?v ; ex:vendor ?w . ?w ex:country ex:US } ORDER BY DESC(?v) ?s LIMIT 4`,
	} {
		want, err := runText(t, ds, src, Options{orderScanRows: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Triples) < 10 {
			t.Fatalf("%s: %d triples", src, len(want.Triples))
		}
		got, err := runText(t, ds, src, Options{orderScanRows: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		if !sameResult(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", src, got.Triples, want.Triples)
		}
	}
}

// orderScanTakes reports whether orderScan, not left to its model, reads the first ORDER BY of src to the end.
func orderScanTakes(t *testing.T, ds *Dataset, src string) bool {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), ds, q, Options{orderScanRows: 1 << 30})
	x := firstOp[*algebra.OrderBy](q.Op)
	done, _ := e.orderScan(x, e.newRow(), 5, func([]ID) bool { return true }, &err)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return done
}
