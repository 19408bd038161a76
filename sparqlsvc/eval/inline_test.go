package eval_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// TestInlineNumbersKeepTheirTerms: numbers and dates held in their ids (index.IsInline) are the same terms as
// before. A pattern matches the term, not the value ("01" is not 1); a FILTER compares values across inline and
// dictionary forms; every answer prints its exact lexical form; computed values join with the data's; and a second
// index (its own dictionary) agrees on them.
func TestInlineNumbersKeepTheirTerms(t *testing.T) {
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	xsd := rdf.XSDNS
	objects := []rdf.Term{
		rdf.Literal("1", rdf.XSDInteger), rdf.Literal("01", rdf.XSDInteger), rdf.Literal("1.0", rdf.XSDDecimal),
		rdf.Literal("1.00", rdf.XSDDecimal), rdf.Literal("1.0000", rdf.XSDDecimal), rdf.Literal("1", rdf.XSDDecimal),
		rdf.Literal("1E0", rdf.XSDDouble), rdf.Literal("2", rdf.XSDInteger), rdf.Literal("-0", rdf.XSDInteger),
		rdf.Literal("0", rdf.XSDInteger), rdf.Literal("75.08", rdf.XSDDecimal), rdf.Literal("2008-06-20", xsd+"date"),
		rdf.Literal("2008-06-20Z", xsd+"date"), rdf.Literal("999999999999", rdf.XSDInteger),
	}
	var qs, other []rdf.Quad
	for i, o := range objects {
		s := ex("s" + string(rune('a'+i)))
		qs = append(qs, rdf.Triple(s, ex("v"), o))
		other = append(other, rdf.Triple(ex("t"+string(rune('a'+i))), ex("w"), o))
	}
	ds := eval.FromIndex(build(t, qs))
	od := build(t, other)
	merged := eval.FromIndex(build(t, qs))
	merged.Extra = []eval.Source{{Dict: od.Dict, Graph: od.Default}}
	inline := 0
	for _, o := range objects {
		if index.IsInline(ds.Dict.Lookup(o)) {
			inline++
		}
	}
	if inline != 8 { // 1, 1.0, 1.00, 1 (decimal), 2, 0, 75.08, 2008-06-20
		t.Errorf("%d of %d objects are held in their ids, want 8", inline, len(objects))
	}
	cases := []struct{ query, want string }{
		{`SELECT ?s { ?s <http://ex.org/v> 1 }`, "<http://ex.org/sa>"},
		{`SELECT ?s { ?s <http://ex.org/v> "01"^^<` + rdf.XSDInteger + `> }`, "<http://ex.org/sb>"},
		{`SELECT ?s { ?s <http://ex.org/v> 1.00 }`, "<http://ex.org/sd>"},
		{`SELECT ?o { ?s <http://ex.org/v> ?o FILTER(?o = 1) }`,
			`"01"^^<` + rdf.XSDInteger + `> | "1"^^<` + rdf.XSDDecimal + `> | "1"^^<` + rdf.XSDInteger + `> | "1.0"^^<` +
				rdf.XSDDecimal + `> | "1.00"^^<` + rdf.XSDDecimal + `> | "1.0000"^^<` + rdf.XSDDecimal + `> | "1E0"^^<` + rdf.XSDDouble + `>`},
		{`SELECT ?o { ?s <http://ex.org/v> ?o FILTER(?o = 0) }`, `"-0"^^<` + rdf.XSDInteger + `> | "0"^^<` + rdf.XSDInteger + `>`},
		{`SELECT ?s { ?s <http://ex.org/v> ?o FILTER(?o > 2 && ?o < 100) }`, "<http://ex.org/sk>"},
		{`SELECT ?s { ?s <http://ex.org/v> ?o FILTER(?o = "2008-06-20"^^<` + xsd + `date>) }`, "<http://ex.org/sl>"},
		// computed values: 1 + 1 is the data's 2 (inline on both sides), 0.5 * 2 the decimal "1" (the canonical
		// form arithmetic writes)
		{`SELECT ?s { BIND(1 + 1 AS ?two) ?s <http://ex.org/v> ?two }`, "<http://ex.org/sh>"},
		{`SELECT ?s { BIND(0.5 * 2 AS ?one) ?s <http://ex.org/v> ?one }`, "<http://ex.org/sf>"},
		{`SELECT (SUM(?o) AS ?sum) (MIN(?o) AS ?min) (MAX(?o) AS ?max) { ?s <http://ex.org/v> ?o FILTER(datatype(?o) = <` +
			rdf.XSDDecimal + `>) }`, `"79.08"^^<` + rdf.XSDDecimal + `> | "1"^^<` + rdf.XSDDecimal + `> | "75.08"^^<` + rdf.XSDDecimal + `>`},
		// the second index holds the same terms under its own dictionary
		{`SELECT ?t { ?s <http://ex.org/v> ?o . ?t <http://ex.org/w> ?o FILTER(isNumeric(?o) && ?o < 1) }`,
			"<http://ex.org/ti> | <http://ex.org/tj>"},
		{`SELECT ?t { ?t <http://ex.org/w> 75.08 }`, "<http://ex.org/tk>"},
		// a comparison whose operand holds another: both operands are evaluated before either key is made
		{`SELECT ?s { ?s <http://ex.org/v> ?o FILTER((?o > 1) = (1 < ?o)) }`, "<http://ex.org/sa> | <http://ex.org/sb> | " +
			"<http://ex.org/sc> | <http://ex.org/sd> | <http://ex.org/se> | <http://ex.org/sf> | <http://ex.org/sg> | " +
			"<http://ex.org/sh> | <http://ex.org/si> | <http://ex.org/sj> | <http://ex.org/sk> | <http://ex.org/sn>"},
		{`SELECT ?s { ?s <http://ex.org/v> ?o FILTER(?o > 1.5 && 75.08 >= ?o && ?o != 2.0) }`, "<http://ex.org/sk>"},
	}
	for _, c := range cases {
		for _, d := range []*eval.Dataset{ds, merged} {
			if d == ds && strings.Contains(c.query, "ex.org/w") {
				continue // the second index's triples
			}
			checkRows(t, d, c.query, c.want)
		}
	}
}

func checkRows(t *testing.T, ds *eval.Dataset, query, want string) {
	t.Helper()
	res := eval.MustRun(t, ds, query, eval.Options{})
	var got []string
	for _, row := range res.Rows {
		for _, x := range row {
			got = append(got, x.String())
		}
	}
	if !strings.HasPrefix(query, "SELECT (SUM") {
		slices.Sort(got)
	}
	if g := strings.Join(got, " | "); g != want {
		t.Errorf("%s (%d extra sources):\n got %s\nwant %s", query, len(ds.Extra), g, want)
	}
}

// TestFixedKeyOfInlineIDs: the key a comparison makes from a number held in its id is the key parsing its term
// gives, for every kind of inline number.
func TestFixedKeyOfInlineIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 0
	for range 50000 {
		var lex, dt string
		switch r.IntN(3) {
		case 0:
			lex, dt = strconv.FormatInt(r.Int64N(1<<28)-1<<27, 10), rdf.XSDInteger
		case 1:
			lex, dt = strconv.FormatInt(r.Int64N(1<<26)-1<<25, 10), rdf.XSDDecimal
			if sc := r.IntN(4); sc > 0 && len(lex) > sc+1 {
				lex = lex[:len(lex)-sc] + "." + lex[len(lex)-sc:]
			}
		default:
			lex, dt = strconv.Itoa(r.IntN(1000))+"."+[]string{"0", "00", "000", "5", "50", "05"}[r.IntN(6)], rdf.XSDDecimal
		}
		tm := rdf.Literal(lex, dt)
		id, ok := index.InlineID(tm)
		if !ok {
			continue
		}
		n++
		v, scale, ok := index.InlineNumber(id)
		if !ok {
			t.Fatalf("%v: id %x holds no number", tm, id)
		}
		if got, want := builtin.FixedKey(tm, v, scale), builtin.NewKey(tm); !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: FixedKey %+v, NewKey %+v", tm, got, want)
		}
	}
	if n < 30000 {
		t.Fatalf("only %d numbers held in ids", n)
	}
}
