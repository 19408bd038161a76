package algebra

import "github.com/ldhub/ldhub/content/rdf"

// This file is the syntax tree: the query as written, after prefixes and relative IRIs are resolved and
// abbreviations ([], collections, ';' and ',') are expanded into triples, but before the §18.2 translation.

// Form is the query form.
type Form uint8

const (
	Select Form = iota + 1
	Construct
	Ask
	Describe
)

func (f Form) String() string {
	switch f {
	case Select:
		return "SELECT"
	case Construct:
		return "CONSTRUCT"
	case Ask:
		return "ASK"
	case Describe:
		return "DESCRIBE"
	}
	return "?"
}

// Dataset is the RDF dataset a query names with FROM (Default) and FROM NAMED (Named). Nil means the service's
// default dataset.
type Dataset struct {
	Default []string
	Named   []string
}

// QuerySyntax is a query or sub-select as written. Sub-selects have Form Select and no Base, Prefixes or Dataset.
type QuerySyntax struct {
	Form     Form
	Base     string
	Prefixes []rdf.Prefix
	Dataset  *Dataset

	Select *SelectClause // SELECT only
	// Template is the CONSTRUCT template; for CONSTRUCT WHERE it is the WHERE pattern's triples.
	Template []Triple
	// DescribeAll is DESCRIBE *; otherwise Describe lists the resources to describe.
	DescribeAll bool
	Describe    []Node

	// Where is the query pattern; nil only for a DESCRIBE without WHERE.
	Where *GroupPattern

	GroupBy []GroupKey
	Having  []Expr
	OrderBy []OrderCond
	Limit   int64 // -1 when absent
	Offset  int64
	// Values is the trailing VALUES clause, nil when absent.
	Values *Table
}

// SelectClause is SELECT [DISTINCT|REDUCED] (* | items).
type SelectClause struct {
	Distinct, Reduced bool
	Star              bool
	Items             []SelectItem
}

// SelectItem is a projected variable, or (Expr AS Var) when Expr is not nil.
type SelectItem struct {
	Var  Var
	Expr Expr
}

// GroupPattern is a group graph pattern { ... }: its elements in the order written.
type GroupPattern struct {
	Elements []Element
}

// Element is one part of a group graph pattern: *TriplesBlock, *FilterElement, *OptionalElement, *UnionElement,
// *MinusElement, *GraphElement, *ServiceElement, *BindElement, *ValuesElement, *SubSelect or *GroupElement.
type Element interface{ element() }

// TriplePath is a triple pattern whose predicate is a variable or term (P) or, when Path is not nil, a property
// path.
type TriplePath struct {
	S    Node
	P    Node
	Path Path
	O    Node
}

// TriplesBlock is a run of triple patterns.
type TriplesBlock struct{ Triples []TriplePath }

// FilterElement is FILTER(Expr).
type FilterElement struct{ Expr Expr }

// OptionalElement is OPTIONAL { ... }.
type OptionalElement struct{ Group *GroupPattern }

// UnionElement is { ... } UNION { ... } ...: at least two groups.
type UnionElement struct{ Groups []*GroupPattern }

// MinusElement is MINUS { ... }.
type MinusElement struct{ Group *GroupPattern }

// GraphElement is GRAPH name { ... }.
type GraphElement struct {
	Name  Node
	Group *GroupPattern
}

// ServiceElement is SERVICE [SILENT] name { ... }.
type ServiceElement struct {
	Name   Node
	Silent bool
	Group  *GroupPattern
}

// BindElement is BIND(Expr AS Var).
type BindElement struct {
	Expr Expr
	Var  Var
}

// ValuesElement is an inline VALUES block.
type ValuesElement struct{ Data *Table }

// SubSelect is a nested SELECT query.
type SubSelect struct{ Query *QuerySyntax }

// GroupElement is a nested group { ... }.
type GroupElement struct{ Group *GroupPattern }

func (*TriplesBlock) element()    {}
func (*FilterElement) element()   {}
func (*OptionalElement) element() {}
func (*UnionElement) element()    {}
func (*MinusElement) element()    {}
func (*GraphElement) element()    {}
func (*ServiceElement) element()  {}
func (*BindElement) element()     {}
func (*ValuesElement) element()   {}
func (*SubSelect) element()       {}
func (*GroupElement) element()    {}

// InScope returns the variables in scope after element e (§18.2.1), in order of first appearance, appending them
// to vars and recording them in seen. FILTER and MINUS bring no variable into scope.
func InScope(e Element, vars []Var, seen map[Var]bool) []Var {
	add := func(n Node) {
		if n.IsVar() && !seen[n.Var] {
			seen[n.Var] = true
			vars = append(vars, n.Var)
		}
	}
	switch x := e.(type) {
	case *TriplesBlock:
		for _, t := range x.Triples {
			add(t.S)
			add(t.P)
			add(t.O)
		}
	case *OptionalElement:
		vars = GroupInScope(x.Group, vars, seen)
	case *UnionElement:
		for _, g := range x.Groups {
			vars = GroupInScope(g, vars, seen)
		}
	case *GraphElement:
		add(x.Name)
		vars = GroupInScope(x.Group, vars, seen)
	case *ServiceElement:
		add(x.Name)
		vars = GroupInScope(x.Group, vars, seen)
	case *BindElement:
		add(VarNode(x.Var))
	case *ValuesElement:
		for _, v := range x.Data.Vars {
			add(VarNode(v))
		}
	case *SubSelect:
		for _, v := range x.Query.Projected() {
			add(VarNode(v))
		}
	case *GroupElement:
		vars = GroupInScope(x.Group, vars, seen)
	}
	return vars
}

// MarkInScope records in seen the variables in scope after element e, like InScope without building a list.
func MarkInScope(e Element, seen map[Var]bool) {
	switch x := e.(type) {
	case *TriplesBlock:
		for _, t := range x.Triples {
			for _, n := range [3]Node{t.S, t.P, t.O} {
				if n.IsVar() {
					seen[n.Var] = true
				}
			}
		}
	case *BindElement:
		seen[x.Var] = true
	default:
		InScope(e, nil, seen)
	}
}

// GroupInScope appends the in-scope variables of every element of g.
func GroupInScope(g *GroupPattern, vars []Var, seen map[Var]bool) []Var {
	if g == nil {
		return vars
	}
	for _, e := range g.Elements {
		vars = InScope(e, vars, seen)
	}
	return vars
}

// Projected returns the variables a SELECT query returns: its items, or for SELECT * the variables in scope in
// its WHERE pattern (and trailing VALUES).
func (q *QuerySyntax) Projected() []Var {
	if q.Select == nil {
		return nil
	}
	if !q.Select.Star {
		vars := make([]Var, len(q.Select.Items))
		for i, it := range q.Select.Items {
			vars[i] = it.Var
		}
		return vars
	}
	seen := map[Var]bool{}
	vars := GroupInScope(q.Where, nil, seen)
	if q.Values != nil {
		for _, v := range q.Values.Vars {
			if !seen[v] {
				seen[v] = true
				vars = append(vars, v)
			}
		}
	}
	return vars
}
