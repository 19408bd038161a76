package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestSubstrFastMatchesFunction: SUBSTR of a variable or of STR of one with integer constants, sliced where the
// string lies (substrFast), gives what the function as written gives (the operand wrapped in COALESCE, which
// substrFast does not read) in a BIND, in a GROUP BY key and in a FILTER: over IRIs, simple, xsd:string and
// language-tagged literals (kept tag), dateTimes, numbers held in ids, typed literals (an error unless under STR),
// non-ASCII and empty strings, blank nodes (STR of one is an error) and an unbound OPTIONAL value, with bounds
// before, inside and past the string, zero and negative lengths, a sign and leading zeros.
func TestSubstrFastMatchesFunction(t *testing.T) {
	ds := optionalObjects(t, []rdf.Term{
		rdf.IRI("http://ex.org/Offer100"), rdf.String("Offer100"), rdf.String(""), rdf.String("Ölfarbe Über"),
		rdf.Literal("x00", rdf.XSDString), rdf.LangString("Straße 00", "de"), rdf.LangString("offer", "EN"),
		rdf.Literal("100", rdf.XSDInteger), rdf.Literal("2010-12-20T08:17:52Z", rdf.XSDNS+"dateTime"),
		rdf.Literal("2009-06-13T22:16:32", rdf.XSDNS+"dateTime"), rdf.Literal("Offer00", "http://ex.org/type"),
		rdf.Blank("b00"),
	})
	bounds := []string{"1", "1, 4", "0, 3", "-1, 3", "2", "3, 0", "5, 100", "+2, 2", "007, 2", "4, -2", "100", "1.5, 2", "2, 2.6"}
	bound := 0
	for _, operand := range []string{"?o", "STR(?o)"} {
		slow := "COALESCE(?o)"
		if operand == "STR(?o)" {
			slow = "STR(COALESCE(?o))"
		}
		for _, bs := range bounds {
			call, ref := "SUBSTR("+operand+", "+bs+")", "SUBSTR("+slow+", "+bs+")"
			for _, want := range compareForms(t, ds, call, ref,
				`SELECT ?s ?r { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } BIND(%s AS ?r) }`,
				`SELECT ?r (COUNT(*) AS ?n) { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } } GROUP BY (%s AS ?r)`,
				`SELECT ?s { ?s <http://ex.org/p> ?x OPTIONAL { ?s <http://ex.org/q> ?o } FILTER(STRLEN(%s) > 1) }`,
			)[0] {
				if strings.Contains(want, `"`) { // ?r printed: a literal
					bound++
				}
			}
		}
	}
	if bound == 0 {
		t.Fatal("no substring bound: the data does not test the function")
	}
}

// TestSubstrFastTakesIntegerBounds: the fast path answers for a variable or STR of one with integer constants of a
// few digits, and leaves decimals, long integers, other operands and other functions to the general path.
func TestSubstrFastTakesIntegerBounds(t *testing.T) {
	b, add := builderAdding(t)
	add(rdf.IRI("http://ex.org/s"), rdf.IRI("http://ex.org/q"), rdf.String("abcdef"))
	ds := FromIndex(b.Build())
	q, err := parser.Parse(`SELECT ?o { ?s <http://ex.org/q> ?o }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), ds, q, Options{})
	row := e.newRow()
	if row[e.slot("o")] = e.t.dict.Lookup(rdf.String("abcdef")); row[e.slot("o")] == 0 {
		t.Fatal("no id for the string")
	}
	num := func(s string, dt string) algebra.Expr { return algebra.Constant{Term: rdf.Literal(s, dt)} }
	o := algebra.Var("o")
	str := &algebra.Call{Func: "STR", Args: []algebra.Expr{o}}
	for _, c := range []struct {
		call *algebra.Call
		ok   bool
		want string
	}{
		{&algebra.Call{Func: "SUBSTR", Args: []algebra.Expr{o, num("2", rdf.XSDInteger), num("3", rdf.XSDInteger)}}, true, "bcd"},
		{&algebra.Call{Func: "SUBSTR", Args: []algebra.Expr{str, num("-1", rdf.XSDInteger), num("4", rdf.XSDInteger)}}, true, "ab"},
		{&algebra.Call{Func: "SUBSTR", Args: []algebra.Expr{str, num("+3", rdf.XSDInteger)}}, true, "cdef"},
		{&algebra.Call{Func: "SUBSTR", Args: []algebra.Expr{o, num("1.5", rdf.XSDDecimal)}}, false, ""},
		{&algebra.Call{Func: "SUBSTR", Args: []algebra.Expr{o, num("1234567890", rdf.XSDInteger)}}, false, ""},
		{&algebra.Call{Func: "SUBSTR", Args: []algebra.Expr{&algebra.Call{Func: "UCASE", Args: []algebra.Expr{o}}, num("1", rdf.XSDInteger)}}, false, ""},
		{&algebra.Call{Func: "STRLEN", Args: []algebra.Expr{o}}, false, ""},
	} {
		got, err, ok := e.substrFast(c.call, row)
		if ok != c.ok || (ok && (err != nil || got.Value != c.want)) {
			t.Errorf("%v: got %q %v %v, want %q %v", c.call, got.Value, err, ok, c.want, c.ok)
		}
	}
}

// optionalObjects is a dataset of subjects s0 … with <p> <x> and <q> each of objs, and one subject (lone) without
// <q>: a pattern ?s <p> ?x OPTIONAL { ?s <q> ?o } meets every object and an unbound ?o.
func optionalObjects(t *testing.T, objs []rdf.Term) *Dataset {
	b := index.NewBuilder()
	add := graphAdder(t, b)
	for i, o := range objs {
		add("", exIRI("s%d", i), exIRI("p"), exIRI("x"))
		add("", exIRI("s%d", i), exIRI("q"), o)
	}
	add("", exIRI("lone"), exIRI("p"), exIRI("x"))
	return FromIndex(b.Build())
}

// compareForms runs each form (a query with one %s) with call and with ref in its place, reports where their
// solutions differ, and returns ref's solutions per form.
func compareForms(t *testing.T, ds *Dataset, call, ref string, forms ...string) [][]string {
	t.Helper()
	var out [][]string
	for _, form := range forms {
		got, _ := runQuery(t, ds, fmt.Sprintf(form, call))
		want, _ := runQuery(t, ds, fmt.Sprintf(form, ref))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", fmt.Sprintf(form, call), got, want)
		}
		out = append(out, want)
	}
	return out
}
