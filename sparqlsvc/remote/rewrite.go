package remote

import (
	"fmt"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// Dataset is what a query may see in the store, as ldhub resolved it for the caller: the store graphs whose merge
// is the default graph, and the named graphs, each under the name the query knows it by.
type Dataset struct {
	// Default are store graph IRIs; their RDF merge is the query's default graph.
	Default []string
	// Named are the query's named graphs.
	Named []NamedGraph
}

// NamedGraph is one named graph of a query: Name is what GRAPH ?g binds and GRAPH <name> selects, Graph the store
// graph that holds it (they differ for a publication's URI, which names its latest version's graph).
type NamedGraph struct {
	Name  string
	Graph string
}

// emptyGraph stands in the FROM clause when a dataset has no default graph: without any FROM, a store such as
// Virtuoso answers over the union of every graph it holds.
const emptyGraph = "urn:ldhub:no-graph"

// RefusedError is a query ldhub will not send to the store (SERVICE, a function of the store's own); it is the
// caller's mistake, so it carries 400.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string   { return e.Msg }
func (e *RefusedError) HTTPStatus() int { return 400 }

// Rewrite returns the text of q with its dataset replaced by d, so that the store evaluates it over exactly the
// graphs d lists whatever the query says:
//   - FROM and FROM NAMED are replaced by d's store graphs (the caller resolved the query's own into d);
//   - GRAPH ?g { P } becomes { VALUES (?g ?s) { (name graph) ... } GRAPH ?s { P } }, or { VALUES ?g { name1 }
//     GRAPH graph1 { P } } UNION ... with one branch per allowed named graph where Virtuoso needs that
//     (constantGraphs): the store matches P in the allowed graphs only, and ?g is bound to the name the query
//     knows, never to a store graph (a store may range GRAPH ?g over every graph it holds, not only FROM NAMED:
//     Virtuoso does);
//   - GRAPH <name> { P } becomes GRAPH <store graph> { P } for an allowed name, and a pattern without solutions
//     for any other;
//   - SERVICE is refused, and so is every function named by an IRI other than the XSD casts (a store's own
//     functions, such as Virtuoso's bif: and sql:, could reach past the dataset);
//   - SELECT * and DESCRIBE * are spelled out, so the variables the rewriting adds are never answered.
//
// The same holds inside sub-queries and EXISTS patterns. q is changed in place.
func Rewrite(q *algebra.QuerySyntax, d Dataset) (string, error) {
	rw := &rewriter{d: d, used: map[string]bool{}}
	rw.collectVars(q)
	if q.Form == algebra.Describe && q.DescribeAll {
		q.DescribeAll = false
		for _, v := range algebra.GroupInScope(q.Where, nil, map[algebra.Var]bool{}) {
			q.Describe = append(q.Describe, algebra.VarNode(v))
		}
	}
	if err := rw.query(q); err != nil {
		return "", err
	}
	ds := &algebra.Dataset{Default: d.Default}
	if len(ds.Default) == 0 {
		ds.Default = []string{emptyGraph}
	}
	seen := map[string]bool{}
	for _, n := range d.Named {
		if !seen[n.Graph] {
			seen[n.Graph] = true
			ds.Named = append(ds.Named, n.Graph)
		}
	}
	q.Dataset = ds
	return q.SPARQL(), nil
}

type rewriter struct {
	d    Dataset
	used map[string]bool
	n    int
}

// collectVars records every variable name of the query, so the ones the rewriting adds are fresh.
func (rw *rewriter) collectVars(q *algebra.QuerySyntax) {
	// The query text would do, but the tree is what was parsed: walk it through its own writer's output instead
	// of a second walker of every node type.
	for _, f := range strings.FieldsFunc(q.SPARQL(), func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80)
	}) {
		rw.used[f] = true
	}
}

func (rw *rewriter) fresh() algebra.Var {
	for {
		rw.n++
		v := fmt.Sprintf("ldhub_graph%d", rw.n)
		if !rw.used[v] {
			rw.used[v] = true
			return algebra.Var(v)
		}
	}
}

func (rw *rewriter) query(q *algebra.QuerySyntax) error {
	if q.Select != nil && q.Select.Star {
		vars := q.Projected()
		q.Select.Star = false
		for _, v := range vars {
			q.Select.Items = append(q.Select.Items, algebra.SelectItem{Var: v})
		}
		if len(q.Select.Items) == 0 {
			// SELECT * over a pattern without variables: one empty row per solution. A projection of a variable
			// that is never bound keeps that, and is not in the answer's head.
			q.Select.Items = []algebra.SelectItem{{Var: rw.fresh()}}
		}
	}
	if q.Select != nil {
		for _, it := range q.Select.Items {
			if err := rw.expr(it.Expr); err != nil {
				return err
			}
		}
	}
	if q.Where != nil {
		if err := rw.group(q.Where); err != nil {
			return err
		}
	}
	for _, k := range q.GroupBy {
		if err := rw.expr(k.Expr); err != nil {
			return err
		}
	}
	for _, e := range q.Having {
		if err := rw.expr(e); err != nil {
			return err
		}
	}
	for _, c := range q.OrderBy {
		if err := rw.expr(c.Expr); err != nil {
			return err
		}
	}
	return nil
}

func (rw *rewriter) group(g *algebra.GroupPattern) error {
	for i, e := range g.Elements {
		var err error
		switch x := e.(type) {
		case *algebra.FilterElement:
			err = rw.expr(x.Expr)
		case *algebra.BindElement:
			err = rw.expr(x.Expr)
		case *algebra.OptionalElement:
			err = rw.group(x.Group)
		case *algebra.MinusElement:
			err = rw.group(x.Group)
		case *algebra.GroupElement:
			err = rw.group(x.Group)
		case *algebra.UnionElement:
			for _, g := range x.Groups {
				if err = rw.group(g); err != nil {
					break
				}
			}
		case *algebra.SubSelect:
			err = rw.query(x.Query)
		case *algebra.ServiceElement:
			return &RefusedError{Msg: "SERVICE is not allowed: a query runs over ldhub's publications only"}
		case *algebra.GraphElement:
			if err = rw.group(x.Group); err == nil {
				g.Elements[i] = rw.graph(x)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// nothing is a group without solutions.
func nothing() algebra.Element {
	return &algebra.GroupElement{Group: &algebra.GroupPattern{Elements: []algebra.Element{
		&algebra.FilterElement{Expr: algebra.Constant{Term: rdf.Literal("false", rdf.XSDBoolean)}},
	}}}
}

func (rw *rewriter) graph(x *algebra.GraphElement) algebra.Element {
	if !x.Name.IsVar() {
		for _, n := range rw.d.Named {
			if x.Name.Term.IsIRI() && n.Name == x.Name.Term.Value {
				return &algebra.GraphElement{Name: algebra.TermNode(rdf.IRI(n.Graph)), Group: x.Group}
			}
		}
		return nothing()
	}
	if len(rw.d.Named) == 0 {
		return nothing()
	}
	if !constantGraphs(x.Group) {
		s := rw.fresh()
		t := &algebra.Table{Vars: []algebra.Var{x.Name.Var, s}}
		for _, n := range rw.d.Named {
			t.Rows = append(t.Rows, []rdf.Term{rdf.IRI(n.Name), rdf.IRI(n.Graph)})
		}
		return &algebra.GroupElement{Group: &algebra.GroupPattern{Elements: []algebra.Element{
			&algebra.ValuesElement{Data: t},
			&algebra.GraphElement{Name: algebra.VarNode(s), Group: x.Group},
		}}}
	}
	// One branch per allowed graph, each with the store graph as a constant and ?g bound to its name. The pattern
	// is written once per branch, so its blank nodes become variables first: a blank-node label may not appear in
	// two basic graph patterns of one query.
	rw.blanksToVars(x.Group, map[string]algebra.Var{})
	var branches []*algebra.GroupPattern
	seen := map[string]bool{}
	for _, n := range rw.d.Named {
		if seen[n.Name] {
			continue
		}
		seen[n.Name] = true
		branches = append(branches, &algebra.GroupPattern{Elements: []algebra.Element{
			&algebra.ValuesElement{Data: &algebra.Table{Vars: []algebra.Var{x.Name.Var}, Rows: [][]rdf.Term{{rdf.IRI(n.Name)}}}},
			&algebra.GraphElement{Name: algebra.TermNode(rdf.IRI(n.Graph)), Group: x.Group},
		}})
	}
	if len(branches) == 1 {
		return &algebra.GroupElement{Group: branches[0]}
	}
	return &algebra.UnionElement{Groups: branches}
}

// constantGraphs reports whether GRAPH ?g { g } is written with constant graphs, one branch per named graph,
// instead of one GRAPH ?s over a VALUES table of (name, store graph) pairs. The two mean the same; the table is
// shorter, but Virtuoso answers nothing for GRAPH ?s around an empty group, a sub-select or a VALUES block (whether
// ?s is constrained or not), and with a union of constant graphs it answers a group of FILTERs alone wrongly.
func constantGraphs(g *algebra.GroupPattern) bool {
	if len(g.Elements) == 0 {
		return true
	}
	var has func(g *algebra.GroupPattern) bool
	has = func(g *algebra.GroupPattern) bool {
		for _, e := range g.Elements {
			switch x := e.(type) {
			case *algebra.SubSelect, *algebra.ValuesElement:
				return true
			case *algebra.GroupElement:
				if has(x.Group) {
					return true
				}
			}
		}
		return false
	}
	return has(g)
}

// blanksToVars replaces the blank nodes of a pattern (variables that cannot be projected) by fresh variables, the
// same label by the same variable, in nested groups, sub-selects and EXISTS too. The rewriting has already spelled
// out every SELECT *, so the new variables are never answered.
func (rw *rewriter) blanksToVars(g *algebra.GroupPattern, vars map[string]algebra.Var) {
	node := func(n *algebra.Node) {
		if !n.IsVar() && n.Term.IsBlank() {
			v, ok := vars[n.Term.Value]
			if !ok {
				v = rw.fresh()
				vars[n.Term.Value] = v
			}
			*n = algebra.VarNode(v)
		}
	}
	expr := func(e algebra.Expr) {
		algebra.WalkExpr(e, func(e algebra.Expr) bool {
			if x, ok := e.(*algebra.Exists); ok && x.Group != nil {
				rw.blanksToVars(x.Group, vars)
			}
			return true
		})
	}
	var query func(q *algebra.QuerySyntax)
	query = func(q *algebra.QuerySyntax) {
		if q.Select != nil {
			for _, it := range q.Select.Items {
				expr(it.Expr)
			}
		}
		if q.Where != nil {
			rw.blanksToVars(q.Where, vars)
		}
		for _, k := range q.GroupBy {
			expr(k.Expr)
		}
		for _, e := range q.Having {
			expr(e)
		}
		for _, c := range q.OrderBy {
			expr(c.Expr)
		}
	}
	for _, e := range g.Elements {
		switch x := e.(type) {
		case *algebra.TriplesBlock:
			for i := range x.Triples {
				node(&x.Triples[i].S)
				node(&x.Triples[i].O)
			}
		case *algebra.FilterElement:
			expr(x.Expr)
		case *algebra.BindElement:
			expr(x.Expr)
		case *algebra.OptionalElement:
			rw.blanksToVars(x.Group, vars)
		case *algebra.MinusElement:
			rw.blanksToVars(x.Group, vars)
		case *algebra.GroupElement:
			rw.blanksToVars(x.Group, vars)
		case *algebra.GraphElement:
			rw.blanksToVars(x.Group, vars)
		case *algebra.UnionElement:
			for _, g := range x.Groups {
				rw.blanksToVars(g, vars)
			}
		case *algebra.SubSelect:
			query(x.Query)
		}
	}
}

// expr rewrites the EXISTS patterns of an expression and refuses functions named by IRI other than the casts.
func (rw *rewriter) expr(e algebra.Expr) error {
	var err error
	algebra.WalkExpr(e, func(e algebra.Expr) bool {
		switch x := e.(type) {
		case *algebra.Exists:
			if x.Group != nil {
				err = rw.group(x.Group)
			}
		case *algebra.FunctionCall:
			if !builtin.IsCast(x.IRI) {
				err = &RefusedError{Msg: "unknown function <" + x.IRI + ">: only the XSD casts can be called by IRI"}
			}
		}
		return err == nil
	})
	return err
}
