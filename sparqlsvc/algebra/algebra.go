// Package algebra is the SPARQL 1.1 algebra (SPARQL 1.1 §18) that the evaluator runs, the syntax tree the parser
// builds (syntax.go), the translation between the two (translate.go) and an S-expression printer (print.go).
//
// The algebra is a tree of Op values. Every node type is a small struct whose fields are its operands, so a walker
// is a type switch; Walk visits a tree in pre-order. Constants are content/rdf Terms; variables are Var. A blank
// node in a query pattern behaves like a variable that is never projected (§18.2.1), so the translation turns
// _:label (and every [] or collection cell) into the variable "_:label", a name no query can write; the parser
// has checked that each label is used in one basic graph pattern only. CONSTRUCT templates keep blank-node Terms:
// there they mean a fresh blank node per solution.
package algebra

import (
	"github.com/ldhub/ldhub/content/rdf"
)

// Var is a query variable, named without its '?' or '$'. Names the translation invents (aggregate results ".aggN",
// path sequence joints ".pN") start with '.', and pattern blank nodes become "_:label"; no query can write either,
// so they never clash with the query's own variables.
type Var string

// Node is a variable or an RDF term: one position of a triple pattern, a GRAPH or SERVICE name, a DESCRIBE target.
// Exactly one of Var and Term is set.
type Node struct {
	Var  Var
	Term rdf.Term
}

// VarNode returns a Node holding a variable.
func VarNode(v Var) Node { return Node{Var: v} }

// TermNode returns a Node holding a constant.
func TermNode(t rdf.Term) Node { return Node{Term: t} }

// IsVar reports whether n is a variable.
func (n Node) IsVar() bool { return n.Var != "" }

// Triple is a triple pattern: each position is a variable or a term.
type Triple struct {
	S, P, O Node
}

// Op is a node of the algebra. The concrete types are BGP, PathPattern, Join, LeftJoin, Filter, Union, Minus,
// Graph, Service, Extend, Table, Group, OrderBy, Project, Distinct, Reduced and Slice.
type Op interface{ op() }

// BGP is a basic graph pattern: the conjunction of its triple patterns. An empty BGP is the identity of Join (one
// solution binding nothing).
type BGP struct {
	Triples []Triple
}

// PathPattern matches a property path between two nodes (§18.2.2.4): what remains of a triple whose predicate
// is a path that could not be rewritten into plain triples.
type PathPattern struct {
	S    Node
	Path Path
	O    Node
}

// Join is the inner join of its operands (§18.5 Join).
type Join struct{ Left, Right Op }

// LeftJoin is OPTIONAL: every solution of Left, extended by the compatible solutions of Right for which Expr is
// true (§18.5 LeftJoin). A nil Expr means true; it holds the FILTERs written inside the OPTIONAL group.
type LeftJoin struct {
	Left, Right Op
	Expr        Expr
}

// Filter keeps the solutions of Op for which every expression is true. The expressions are the FILTERs of one
// group, which apply to the whole group wherever they were written in it (§18.2.2.6).
type Filter struct {
	Exprs []Expr
	Op    Op
}

// Union is the bag union of its operands.
type Union struct{ Left, Right Op }

// Minus removes from Left the solutions compatible with some solution of Right that shares a variable with it.
type Minus struct{ Left, Right Op }

// Graph evaluates Op against a named graph: the graph named by Name, or every named graph if Name is a variable,
// which is then bound to the graph's name.
type Graph struct {
	Name Node
	Op   Op
}

// Service sends Op to a remote SPARQL endpoint (SPARQL 1.1 Federated Query). With Silent, a failing endpoint gives
// one empty solution instead of an error.
type Service struct {
	Name   Node
	Op     Op
	Silent bool
}

// Extend binds Var to the value of Expr in every solution of Op (BIND and SELECT expressions). An expression that
// raises an error leaves Var unbound.
type Extend struct {
	Op   Op
	Var  Var
	Expr Expr
}

// Table is inline data (VALUES): a solution per row. A zero Term in a row is UNDEF: the variable is unbound.
type Table struct {
	Vars []Var
	Rows [][]rdf.Term
}

// Group partitions the solutions of Op by the values of Keys and evaluates Aggregates over each partition
// (§18.5 Group and Aggregation combined). With no keys there is one group, even when Op has no solutions. The
// result binds the key variables (for keys that have one) and each aggregate's Var.
type Group struct {
	Op         Op
	Keys       []GroupKey
	Aggregates []AggregateBinding
}

// GroupKey is one GROUP BY condition. Var is the variable it binds: the variable itself for `GROUP BY ?x`, the
// AS variable for `GROUP BY (expr AS ?x)`, and empty for a bare expression, whose value groups but is not bound.
type GroupKey struct {
	Var  Var
	Expr Expr
}

// AggregateBinding binds Var to the value of Aggregate over each group.
type AggregateBinding struct {
	Var       Var
	Aggregate *Aggregate
}

// OrderBy sorts the solutions of Op by its conditions, the first condition first.
type OrderBy struct {
	Op    Op
	Conds []OrderCond
}

// OrderCond is one ORDER BY condition.
type OrderCond struct {
	Expr Expr
	Desc bool
}

// Project keeps only Vars of every solution of Op, in that order.
type Project struct {
	Op   Op
	Vars []Var
}

// Distinct removes duplicate solutions.
type Distinct struct{ Op Op }

// Reduced permits, but does not require, removing duplicate solutions.
type Reduced struct{ Op Op }

// Slice skips Offset solutions of Op and keeps at most Limit of the rest. A negative Limit means no limit.
type Slice struct {
	Op     Op
	Offset int64
	Limit  int64
}

func (*BGP) op()         {}
func (*PathPattern) op() {}
func (*Join) op()        {}
func (*LeftJoin) op()    {}
func (*Filter) op()      {}
func (*Union) op()       {}
func (*Minus) op()       {}
func (*Graph) op()       {}
func (*Service) op()     {}
func (*Extend) op()      {}
func (*Table) op()       {}
func (*Group) op()       {}
func (*OrderBy) op()     {}
func (*Project) op()     {}
func (*Distinct) op()    {}
func (*Reduced) op()     {}
func (*Slice) op()       {}

// Path is a property path expression (§9). The concrete types are PathLink, PathInverse, PathSequence,
// PathAlternative, PathZeroOrMore, PathOneOrMore, PathZeroOrOne and PathNegated.
type Path interface{ path() }

// PathLink is a single predicate IRI.
type PathLink struct{ IRI string }

// PathInverse is ^Path: the path traversed from object to subject.
type PathInverse struct{ Path Path }

// PathSequence is Left/Right.
type PathSequence struct{ Left, Right Path }

// PathAlternative is Left|Right.
type PathAlternative struct{ Left, Right Path }

// PathZeroOrMore is Path*.
type PathZeroOrMore struct{ Path Path }

// PathOneOrMore is Path+.
type PathOneOrMore struct{ Path Path }

// PathZeroOrOne is Path?.
type PathZeroOrOne struct{ Path Path }

// PathNegated is a negated property set !(iri|...): one step along any predicate not in IRIs. The syntax's
// inverse members (!^iri) are translated to a PathInverse of a PathNegated (§18.2.2.4), so IRIs here are all
// forward.
type PathNegated struct{ IRIs []string }

func (*PathLink) path()        {}
func (*PathInverse) path()     {}
func (*PathSequence) path()    {}
func (*PathAlternative) path() {}
func (*PathZeroOrMore) path()  {}
func (*PathOneOrMore) path()   {}
func (*PathZeroOrOne) path()   {}
func (*PathNegated) path()     {}

// Walk calls fn for op and then, if fn returns true, for each of its operands in order, recursively. It also
// descends into the patterns of EXISTS expressions.
func Walk(op Op, fn func(Op) bool) {
	if op == nil || !fn(op) {
		return
	}
	walkExprs := func(es ...Expr) {
		for _, e := range es {
			WalkExpr(e, func(e Expr) bool {
				if x, ok := e.(*Exists); ok {
					Walk(x.Pattern, fn)
				}
				return true
			})
		}
	}
	switch o := op.(type) {
	case *Join:
		Walk(o.Left, fn)
		Walk(o.Right, fn)
	case *LeftJoin:
		Walk(o.Left, fn)
		Walk(o.Right, fn)
		walkExprs(o.Expr)
	case *Filter:
		walkExprs(o.Exprs...)
		Walk(o.Op, fn)
	case *Union:
		Walk(o.Left, fn)
		Walk(o.Right, fn)
	case *Minus:
		Walk(o.Left, fn)
		Walk(o.Right, fn)
	case *Graph:
		Walk(o.Op, fn)
	case *Service:
		Walk(o.Op, fn)
	case *Extend:
		Walk(o.Op, fn)
		walkExprs(o.Expr)
	case *Group:
		Walk(o.Op, fn)
	case *OrderBy:
		Walk(o.Op, fn)
	case *Project:
		Walk(o.Op, fn)
	case *Distinct:
		Walk(o.Op, fn)
	case *Reduced:
		Walk(o.Op, fn)
	case *Slice:
		Walk(o.Op, fn)
	}
}
