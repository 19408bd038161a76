package algebra

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// Query is a translated query: what the evaluator runs.
type Query struct {
	Form     Form
	Base     string
	Prefixes []rdf.Prefix // as declared, for writers of CONSTRUCT and DESCRIBE results
	Dataset  *Dataset
	Op       Op       // the pattern with all solution modifiers applied
	Template []Triple // CONSTRUCT: instantiated once per solution, blank nodes fresh each time
	// Describe holds what DESCRIBE describes: the targets written, or for DESCRIBE * (DescribeAll) the variables
	// in scope in the pattern.
	Describe    []Node
	DescribeAll bool
	// Syntax is the tree the query was translated from: what a backend that hands the query on to another SPARQL
	// service rewrites and writes out again (QuerySyntax.SPARQL).
	Syntax *QuerySyntax
}

// Translate turns a syntax tree into the algebra (§18.2). It assumes the side conditions the parser checks
// (variable scope, grouping rules) and reports an error only for trees no parser would build.
func Translate(q *QuerySyntax) (*Query, error) {
	t := &translator{}
	op, err := t.query(q)
	if err == nil {
		err = t.err
	}
	if err != nil {
		return nil, err
	}
	describe := q.Describe
	if q.DescribeAll {
		describe = nil
		for _, v := range GroupInScope(q.Where, nil, map[Var]bool{}) {
			describe = append(describe, VarNode(v))
		}
	}
	return &Query{
		Form:        q.Form,
		Base:        q.Base,
		Prefixes:    q.Prefixes,
		Dataset:     q.Dataset,
		Op:          op,
		Template:    q.Template,
		Describe:    describe,
		DescribeAll: q.DescribeAll,
		Syntax:      q,
	}, nil
}

// TranslateGroup translates one group graph pattern on its own (§18.2.2).
func TranslateGroup(g *GroupPattern) (Op, error) {
	t := &translator{}
	op, err := t.group(g)
	if err == nil {
		err = t.err
	}
	return op, err
}

// translator carries the counters that make invented variable names unique within one query.
type translator struct {
	nPath, nAgg int
	err         error // the first error met inside an expression
}

func (t *translator) freshPathVar() Var {
	t.nPath++
	return Var(pathVarPrefix + strconv.Itoa(t.nPath))
}

// pathVarPrefix begins the names of the variables a sequence path's joints get: no query can write a variable
// name that begins with a dot.
const pathVarPrefix = ".p"

// IsPathVar reports whether v is a variable the translation made for a joint of a sequence path (§18.2.2.4): no
// query names it, so only the two steps it joins mention it (and COUNT(DISTINCT *), which reads every variable of
// a solution, sees it).
func IsPathVar(v Var) bool { return strings.HasPrefix(string(v), pathVarPrefix) }

func (t *translator) freshAggVar() Var {
	t.nAgg++
	return Var(".agg" + strconv.Itoa(t.nAgg))
}

// query applies §18.2.4 (grouping, aggregates, HAVING, VALUES, select expressions) and §18.2.5 (ORDER BY,
// projection, DISTINCT, REDUCED, slice).
func (t *translator) query(q *QuerySyntax) (Op, error) {
	var op Op = &BGP{}
	if q.Where != nil {
		var err error
		if op, err = t.group(q.Where); err != nil {
			return nil, err
		}
	}

	var items []SelectItem
	if q.Select != nil {
		items = append(items, q.Select.Items...)
	}
	having := append([]Expr(nil), q.Having...)
	order := append([]OrderCond(nil), q.OrderBy...)

	aggregated := len(q.GroupBy) > 0
	for _, it := range items {
		aggregated = aggregated || HasAggregate(it.Expr)
	}
	for _, h := range having {
		aggregated = aggregated || HasAggregate(h)
	}
	for _, c := range order {
		aggregated = aggregated || HasAggregate(c.Expr)
	}
	if aggregated {
		g := &Group{Op: op}
		for _, k := range q.GroupBy {
			key := GroupKey{Var: k.Var, Expr: t.exprs(k.Expr)}
			g.Keys = append(g.Keys, key)
		}
		replace := func(e Expr) Expr {
			return replaceAggregates(e, func(a *Aggregate) Var {
				a = &Aggregate{Name: a.Name, Distinct: a.Distinct, Expr: t.exprs(a.Expr), Separator: a.Separator}
				for _, b := range g.Aggregates {
					if aggregateEqual(b.Aggregate, a) {
						return b.Var
					}
				}
				v := t.freshAggVar()
				g.Aggregates = append(g.Aggregates, AggregateBinding{Var: v, Aggregate: a})
				return v
			})
		}
		for i := range items {
			if items[i].Expr != nil {
				items[i].Expr = replace(items[i].Expr)
			}
		}
		for i := range having {
			having[i] = replace(having[i])
		}
		for i := range order {
			order[i].Expr = replace(order[i].Expr)
		}
		op = g
	}
	if len(having) > 0 {
		for i := range having {
			having[i] = t.exprs(having[i])
		}
		op = &Filter{Exprs: having, Op: op}
	}
	if q.Values != nil {
		op = join(op, q.Values)
	}
	for _, it := range items {
		if it.Expr != nil {
			op = &Extend{Op: op, Var: it.Var, Expr: t.exprs(it.Expr)}
		}
	}
	if len(order) > 0 {
		for i := range order {
			order[i].Expr = t.exprs(order[i].Expr)
		}
		op = &OrderBy{Op: op, Conds: order}
	}
	if q.Form == Select {
		op = &Project{Op: op, Vars: q.Projected()}
		switch {
		case q.Select.Distinct:
			op = &Distinct{Op: op}
		case q.Select.Reduced:
			op = &Reduced{Op: op}
		}
	}
	if q.Limit >= 0 || q.Offset > 0 {
		op = &Slice{Op: op, Offset: q.Offset, Limit: q.Limit}
	}
	return op, nil
}

// aggregateEqual reports whether two aggregates are written the same, so that a query mentioning COUNT(?x) in
// SELECT and HAVING computes it once.
func aggregateEqual(a, b *Aggregate) bool {
	return a.Name == b.Name && a.Distinct == b.Distinct && a.Separator == b.Separator &&
		FormatExpr(a.Expr) == FormatExpr(b.Expr)
}

// replaceAggregates returns e with every aggregate replaced by the variable f gives it.
func replaceAggregates(e Expr, f func(*Aggregate) Var) Expr {
	switch x := e.(type) {
	case *Aggregate:
		return f(x)
	case *Call:
		c := &Call{Func: x.Func, Args: make([]Expr, len(x.Args))}
		for i, a := range x.Args {
			c.Args[i] = replaceAggregates(a, f)
		}
		return c
	case *FunctionCall:
		c := &FunctionCall{IRI: x.IRI, Distinct: x.Distinct, Args: make([]Expr, len(x.Args))}
		for i, a := range x.Args {
			c.Args[i] = replaceAggregates(a, f)
		}
		return c
	case *In:
		c := &In{Expr: replaceAggregates(x.Expr, f), Not: x.Not, List: make([]Expr, len(x.List))}
		for i, a := range x.List {
			c.List[i] = replaceAggregates(a, f)
		}
		return c
	}
	return e
}

// exprs returns a copy of e in which every EXISTS carries its translated pattern; Translate never modifies the
// syntax tree it is given. It shares the translator so that invented names stay unique; an error is kept in t.err.
func (t *translator) exprs(e Expr) Expr {
	switch x := e.(type) {
	case *Exists:
		op, err := t.group(x.Group)
		if err != nil && t.err == nil {
			t.err = err
		}
		return &Exists{Not: x.Not, Group: x.Group, Pattern: op}
	case *Call:
		c := &Call{Func: x.Func, Args: make([]Expr, len(x.Args))}
		for i, a := range x.Args {
			c.Args[i] = t.exprs(a)
		}
		return c
	case *FunctionCall:
		c := &FunctionCall{IRI: x.IRI, Distinct: x.Distinct, Args: make([]Expr, len(x.Args))}
		for i, a := range x.Args {
			c.Args[i] = t.exprs(a)
		}
		return c
	case *In:
		c := &In{Expr: t.exprs(x.Expr), Not: x.Not, List: make([]Expr, len(x.List))}
		for i, a := range x.List {
			c.List[i] = t.exprs(a)
		}
		return c
	case *Aggregate:
		return &Aggregate{Name: x.Name, Distinct: x.Distinct, Expr: t.exprs(x.Expr), Separator: x.Separator}
	}
	return e
}

// group translates a group graph pattern (§18.2.2.6): elements joined left to right, OPTIONAL as LeftJoin with
// the optional group's own filters, MINUS and BIND applied to what precedes them, and the group's filters over the
// whole group.
func (t *translator) group(g *GroupPattern) (Op, error) {
	if g == nil {
		return &BGP{}, nil
	}
	if len(g.Elements) == 1 {
		if s, ok := g.Elements[0].(*SubSelect); ok {
			return t.query(s.Query)
		}
	}
	var filters []Expr
	var op Op = &BGP{}
	var cur *BGP // the BGP that the group's current run of triples extends
	for _, e := range g.Elements {
		switch e.(type) {
		case *FilterElement, *TriplesBlock:
		default:
			cur = nil
		}
		switch x := e.(type) {
		case *FilterElement:
			filters = append(filters, t.exprs(x.Expr))
		case *TriplesBlock:
			op, cur = t.triples(op, cur, x.Triples)
		case *OptionalElement:
			right, err := t.group(x.Group)
			if err != nil {
				return nil, err
			}
			lj := &LeftJoin{Left: op, Right: right}
			// Only the OPTIONAL group's own FILTERs move into the LeftJoin; a filter of a group nested in it
			// stays inside (OPTIONAL {{ ... FILTER ... }} must not see the left side's bindings).
			if f, ok := right.(*Filter); ok && hasOwnFilter(x.Group) {
				lj.Right = f.Op
				lj.Expr = conjunction(f.Exprs)
			}
			op = lj
		case *MinusElement:
			right, err := t.group(x.Group)
			if err != nil {
				return nil, err
			}
			op = &Minus{Left: op, Right: right}
		case *BindElement:
			op = &Extend{Op: op, Var: x.Var, Expr: t.exprs(x.Expr)}
		case *UnionElement:
			var u Op
			for _, g := range x.Groups {
				right, err := t.group(g)
				if err != nil {
					return nil, err
				}
				if u == nil {
					u = right
				} else {
					u = &Union{Left: u, Right: right}
				}
			}
			op = join(op, u)
		case *GroupElement:
			right, err := t.group(x.Group)
			if err != nil {
				return nil, err
			}
			op = join(op, right)
		case *GraphElement:
			right, err := t.group(x.Group)
			if err != nil {
				return nil, err
			}
			op = join(op, &Graph{Name: x.Name, Op: right})
		case *ServiceElement:
			right, err := t.group(x.Group)
			if err != nil {
				return nil, err
			}
			op = join(op, &Service{Name: x.Name, Op: right, Silent: x.Silent})
		case *ValuesElement:
			op = join(op, x.Data)
		case *SubSelect:
			right, err := t.query(x.Query)
			if err != nil {
				return nil, err
			}
			op = join(op, right)
		default:
			return nil, fmt.Errorf("algebra: unknown group element %T", e)
		}
	}
	if len(filters) > 0 {
		op = &Filter{Exprs: filters, Op: op}
	}
	return op, nil
}

func hasOwnFilter(g *GroupPattern) bool {
	for _, e := range g.Elements {
		if _, ok := e.(*FilterElement); ok {
			return true
		}
	}
	return false
}

// conjunction folds filters into one expression with &&, as LeftJoin carries a single expression.
func conjunction(es []Expr) Expr {
	e := es[0]
	for _, f := range es[1:] {
		e = &Call{Func: "&&", Args: []Expr{e, f}}
	}
	return e
}

// join is Join with the §18.2.2.8 simplification: the empty BGP is the identity.
func join(left, right Op) Op {
	if isEmptyBGP(left) {
		return right
	}
	if isEmptyBGP(right) {
		return left
	}
	return &Join{Left: left, Right: right}
}

func isEmptyBGP(op Op) bool {
	b, ok := op.(*BGP)
	return ok && len(b.Triples) == 0
}

// triples adds a triples block to op (§18.2.2.4-5). Plain triples extend cur, the BGP of the group's current run
// of triples (blocks separated only by FILTERs form one BGP); paths become PathPatterns joined in order. It
// returns the new op and the BGP that further triples of the same run extend.
func (t *translator) triples(op Op, cur *BGP, tps []TriplePath) (Op, *BGP) {
	emit := func(x Op, tr Triple) {
		if x != nil {
			cur = nil
			op = join(op, x)
			return
		}
		if cur == nil {
			cur = &BGP{}
			if isEmptyBGP(op) {
				op = cur
			} else {
				op = &Join{Left: op, Right: cur}
			}
		}
		cur.Triples = append(cur.Triples, tr)
	}
	for _, tp := range tps {
		tp.S, tp.P, tp.O = blankVar(tp.S), blankVar(tp.P), blankVar(tp.O)
		if tp.Path == nil {
			emit(nil, Triple{S: tp.S, P: tp.P, O: tp.O})
			continue
		}
		t.path(tp.S, tp.Path, tp.O, emit)
	}
	return op, cur
}

// blankVar turns a blank node of a query pattern into the variable that stands for it (§18.2.1: blank nodes in
// patterns act as variables that are not projected). "_:label" is a name no query can write as a variable.
func blankVar(n Node) Node {
	if n.Term.IsBlank() {
		return VarNode(Var("_:" + n.Term.Value))
	}
	return n
}

// path translates one path triple (§18.2.2.4): links become triples, inverses swap ends, sequences introduce a
// fresh variable at each joint, and what remains is a PathPattern. emit takes either an op or (op nil) a triple.
func (t *translator) path(s Node, p Path, o Node, emit func(Op, Triple)) {
	switch x := p.(type) {
	case *PathLink:
		emit(nil, Triple{S: s, P: TermNode(rdf.IRI(x.IRI)), O: o})
	case *PathInverse:
		// "X ^path Y" is "Y path X".
		t.path(o, x.Path, s, emit)
	case *PathSequence:
		v := VarNode(t.freshPathVar())
		t.path(s, x.Left, v, emit)
		t.path(v, x.Right, o, emit)
	default:
		emit(&PathPattern{S: s, Path: p, O: o}, Triple{})
	}
}
