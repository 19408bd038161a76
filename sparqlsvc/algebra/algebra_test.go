package algebra_test

import (
	"reflect"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

func v(name string) algebra.Node  { return algebra.VarNode(algebra.Var(name)) }
func iri(s string) algebra.Node   { return algebra.TermNode(rdf.IRI("http://ex/" + s)) }
func blank(s string) algebra.Node { return algebra.TermNode(rdf.Blank(s)) }
func lit(n string) algebra.Expr   { return algebra.Constant{Term: rdf.Literal(n, rdf.XSDInteger)} }
func tp(s, p, o algebra.Node) algebra.TriplePath {
	return algebra.TriplePath{S: s, P: p, O: o}
}
func block(tps ...algebra.TriplePath) *algebra.TriplesBlock {
	return &algebra.TriplesBlock{Triples: tps}
}
func group(es ...algebra.Element) *algebra.GroupPattern { return &algebra.GroupPattern{Elements: es} }

// TestTranslateGroup checks the §18.2.2 translation of hand-built syntax trees, independent of the parser.
func TestTranslateGroup(t *testing.T) {
	gt := &algebra.Call{Func: ">", Args: []algebra.Expr{algebra.Var("o"), lit("1")}}
	tests := []struct {
		name string
		g    *algebra.GroupPattern
		want string
	}{
		{"empty group is the empty BGP", group(), "(bgp)"},
		{"blank nodes become variables",
			group(block(tp(blank("a"), iri("p"), v("o")))),
			"(bgp (triple ?_:a <http://ex/p> ?o))"},
		{"filter covers the whole group wherever written",
			group(&algebra.FilterElement{Expr: gt}, block(tp(v("s"), iri("p"), v("o")))),
			"(filter (> ?o 1)\n  (bgp (triple ?s <http://ex/p> ?o)))"},
		{"optional's own filter moves into the LeftJoin",
			group(block(tp(v("s"), iri("p"), v("x"))),
				&algebra.OptionalElement{Group: group(block(tp(v("x"), iri("q"), v("o"))), &algebra.FilterElement{Expr: gt})}),
			"(leftjoin\n  (bgp (triple ?s <http://ex/p> ?x))\n  (bgp (triple ?x <http://ex/q> ?o))\n  (> ?o 1))"},
		{"a nested group's filter stays inside the optional",
			group(block(tp(v("s"), iri("p"), v("x"))),
				&algebra.OptionalElement{Group: group(&algebra.GroupElement{Group: group(block(tp(v("x"), iri("q"), v("o"))), &algebra.FilterElement{Expr: gt})})}),
			"(leftjoin\n  (bgp (triple ?s <http://ex/p> ?x))\n  (filter (> ?o 1)\n    (bgp (triple ?x <http://ex/q> ?o))))"},
		{"triples after a group are joined, not lost",
			group(&algebra.GroupElement{Group: group(block(tp(v("a"), iri("p"), v("b"))))}, block(tp(v("b"), iri("q"), v("c")))),
			"(join\n  (bgp (triple ?a <http://ex/p> ?b))\n  (bgp (triple ?b <http://ex/q> ?c)))"},
		{"BIND extends what precedes it",
			group(block(tp(v("s"), iri("p"), v("o"))), &algebra.BindElement{Expr: lit("2"), Var: "two"}, block(tp(v("s"), iri("q"), v("two")))),
			"(join\n  (extend ((?two 2))\n    (bgp (triple ?s <http://ex/p> ?o)))\n  (bgp (triple ?s <http://ex/q> ?two)))"},
		{"inverse link swaps subject and object",
			group(block(algebra.TriplePath{S: v("s"), Path: &algebra.PathInverse{Path: &algebra.PathLink{IRI: "http://ex/p"}}, O: v("o")})),
			"(bgp (triple ?o <http://ex/p> ?s))"},
		{"sequence introduces a joint variable; a closure stays a path",
			group(block(algebra.TriplePath{S: v("s"), Path: &algebra.PathSequence{
				Left:  &algebra.PathLink{IRI: "http://ex/p"},
				Right: &algebra.PathOneOrMore{Path: &algebra.PathLink{IRI: "http://ex/q"}},
			}, O: v("o")})),
			"(join\n  (bgp (triple ?s <http://ex/p> ?.p1))\n  (path ?.p1 (path+ <http://ex/q>) ?o))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op, err := algebra.TranslateGroup(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			if got := algebra.Format(op); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestTranslateAggregates checks that aggregates are computed once per distinct aggregate and replaced by the
// variables the Group binds, in SELECT, HAVING and ORDER BY alike.
func TestTranslateAggregates(t *testing.T) {
	count := &algebra.Aggregate{Name: "COUNT", Expr: algebra.Var("o")}
	q := &algebra.QuerySyntax{
		Form:    algebra.Select,
		Select:  &algebra.SelectClause{Items: []algebra.SelectItem{{Var: "s"}, {Var: "n", Expr: count}}},
		Where:   group(block(tp(v("s"), iri("p"), v("o")))),
		GroupBy: []algebra.GroupKey{{Var: "s", Expr: algebra.Var("s")}},
		Having: []algebra.Expr{&algebra.Call{Func: ">", Args: []algebra.Expr{
			&algebra.Aggregate{Name: "COUNT", Expr: algebra.Var("o")}, lit("1")}}},
		OrderBy: []algebra.OrderCond{{Expr: &algebra.Aggregate{Name: "SUM", Expr: algebra.Var("o")}, Desc: true}},
		Limit:   -1,
	}
	got, err := algebra.Translate(q)
	if err != nil {
		t.Fatal(err)
	}
	want := "(project (?s ?n)\n" +
		"  (order ((desc ?.agg2))\n" +
		"    (extend ((?n ?.agg1))\n" +
		"      (filter (> ?.agg1 1)\n" +
		"        (group (?s) ((?.agg1 (count ?o)) (?.agg2 (sum ?o)))\n" +
		"          (bgp (triple ?s <http://ex/p> ?o)))))))"
	if s := algebra.Format(got.Op); s != want {
		t.Errorf("got:\n%s\nwant:\n%s", s, want)
	}
}

func TestWalkVisitsExistsPatterns(t *testing.T) {
	inner := &algebra.BGP{Triples: []algebra.Triple{{S: v("s"), P: iri("q"), O: v("x")}}}
	op := &algebra.Filter{
		Exprs: []algebra.Expr{&algebra.Exists{Not: true, Pattern: inner}},
		Op:    &algebra.LeftJoin{Left: &algebra.BGP{}, Right: &algebra.Table{Vars: []algebra.Var{"x"}}},
	}
	var seen []string
	algebra.Walk(op, func(o algebra.Op) bool {
		seen = append(seen, reflect.TypeOf(o).Elem().Name())
		return true
	})
	want := []string{"Filter", "BGP", "LeftJoin", "BGP", "Table"}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("Walk visited %v, want %v", seen, want)
	}
}

func TestInScope(t *testing.T) {
	g := group(
		block(tp(v("a"), iri("p"), blank("b"))),
		&algebra.FilterElement{Expr: algebra.Var("f")},
		&algebra.MinusElement{Group: group(block(tp(v("m"), iri("p"), v("a"))))},
		&algebra.OptionalElement{Group: group(block(tp(v("a"), iri("q"), v("c"))))},
		&algebra.BindElement{Expr: lit("1"), Var: "d"},
		&algebra.GraphElement{Name: v("g"), Group: group()},
		&algebra.ValuesElement{Data: &algebra.Table{Vars: []algebra.Var{"e"}}},
		&algebra.SubSelect{Query: &algebra.QuerySyntax{Form: algebra.Select,
			Select: &algebra.SelectClause{Items: []algebra.SelectItem{{Var: "h"}}},
			Where:  group(block(tp(v("h"), iri("p"), v("hidden"))))}},
	)
	got := algebra.GroupInScope(g, nil, map[algebra.Var]bool{})
	want := []algebra.Var{"a", "c", "d", "g", "e", "h"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("in scope %v, want %v (FILTER, MINUS, blank nodes and unprojected sub-select variables are not)", got, want)
	}
}

func TestExprHelpers(t *testing.T) {
	e := &algebra.Call{Func: "+", Args: []algebra.Expr{
		algebra.Var("x"),
		&algebra.Aggregate{Name: "SUM", Expr: algebra.Var("y")},
		&algebra.In{Expr: algebra.Var("x"), List: []algebra.Expr{algebra.Var("z")}},
	}}
	if got, want := algebra.ExprVars(e), []algebra.Var{"x", "y", "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ExprVars = %v, want %v", got, want)
	}
	if !algebra.HasAggregate(e) {
		t.Error("HasAggregate missed SUM")
	}
	if algebra.HasAggregate(algebra.Var("x")) {
		t.Error("HasAggregate found an aggregate in a variable")
	}
	if got, want := algebra.FormatExpr(e), "(+ ?x (sum ?y) (in ?x ?z))"; got != want {
		t.Errorf("FormatExpr = %s, want %s", got, want)
	}
}

func TestVars(t *testing.T) {
	op := &algebra.Minus{
		Left: &algebra.Extend{
			Var:  "e",
			Expr: lit("1"),
			Op: &algebra.LeftJoin{
				Left:  &algebra.BGP{Triples: []algebra.Triple{{S: v("s"), P: iri("p"), O: v("_:b")}}},
				Right: &algebra.Graph{Name: v("g"), Op: &algebra.PathPattern{S: v("s"), Path: &algebra.PathLink{IRI: "http://ex/q"}, O: v("o")}},
			},
		},
		Right: &algebra.BGP{Triples: []algebra.Triple{{S: v("s"), P: iri("p"), O: v("minusOnly")}}},
	}
	want := []algebra.Var{"s", "_:b", "g", "o", "e"}
	if got := algebra.Vars(op); !reflect.DeepEqual(got, want) {
		t.Errorf("Vars = %v, want %v", got, want)
	}
	grouped := &algebra.Group{Op: op, Keys: []algebra.GroupKey{{Var: "s", Expr: algebra.Var("s")}, {Expr: algebra.Var("o")}},
		Aggregates: []algebra.AggregateBinding{{Var: ".agg1", Aggregate: &algebra.Aggregate{Name: "COUNT"}}}}
	if got, want := algebra.Vars(grouped), []algebra.Var{"s", ".agg1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Vars(group) = %v, want %v", got, want)
	}
}

func TestResultVars(t *testing.T) {
	q := &algebra.Query{Form: algebra.Select, Op: &algebra.Slice{Limit: 1, Op: &algebra.Distinct{
		Op: &algebra.Project{Vars: []algebra.Var{"b", "a"}, Op: &algebra.BGP{}}}}}
	if got, want := q.ResultVars(), []algebra.Var{"b", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ResultVars = %v, want %v", got, want)
	}
	if got := (&algebra.Query{Form: algebra.Ask, Op: &algebra.BGP{}}).ResultVars(); got != nil {
		t.Errorf("ResultVars of ASK = %v, want nil", got)
	}
}

// TestTranslateLeavesSyntaxAlone checks that Translate copies what it changes, so one syntax tree can be
// translated twice (or concurrently) with the same result.
func TestTranslateLeavesSyntaxAlone(t *testing.T) {
	exists := &algebra.Exists{Group: group(block(tp(v("s"), iri("q"), v("x"))))}
	q := &algebra.QuerySyntax{
		Form:   algebra.Select,
		Select: &algebra.SelectClause{Star: true},
		Where:  group(block(tp(v("s"), iri("p"), v("o"))), &algebra.FilterElement{Expr: exists}),
		Limit:  -1,
	}
	first, err := algebra.Translate(q)
	if err != nil {
		t.Fatal(err)
	}
	if exists.Pattern != nil {
		t.Error("Translate set Pattern on the syntax tree's EXISTS")
	}
	second, err := algebra.Translate(q)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := algebra.FormatQuery(first), algebra.FormatQuery(second); a != b {
		t.Errorf("translations differ:\n%s\n%s", a, b)
	}
}

func TestBuiltins(t *testing.T) {
	names := algebra.Builtins()
	if len(names) != 50 {
		t.Errorf("%d built-ins, want the 50 of the SPARQL 1.1 BuiltInCall production (without URI, isURI, EXISTS, NOT EXISTS and the aggregates): %v", len(names), names)
	}
	if lo, hi, ok := algebra.BuiltinArity("SUBSTR"); !ok || lo != 2 || hi != 3 {
		t.Errorf("BuiltinArity(SUBSTR) = %d, %d, %v", lo, hi, ok)
	}
	if _, _, ok := algebra.BuiltinArity("COUNT"); ok {
		t.Error("COUNT is an aggregate, not a built-in with an argument list")
	}
}
