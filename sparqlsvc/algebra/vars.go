package algebra

// Vars returns the variables a solution of op may bind, in order of first appearance: the in-scope variables of
// §18.2.1 carried over to the algebra. Evaluators use it for MINUS's shared-variable test, join planning and result
// headers. Blank-node variables ("_:label") are included where a BGP binds them; Project removes them.
func Vars(op Op) []Var {
	var out []Var
	seen := map[Var]bool{}
	add := func(v Var) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	addNode := func(n Node) { add(n.Var) }
	var visit func(Op)
	visit = func(op Op) {
		switch o := op.(type) {
		case *BGP:
			for _, t := range o.Triples {
				addNode(t.S)
				addNode(t.P)
				addNode(t.O)
			}
		case *PathPattern:
			addNode(o.S)
			addNode(o.O)
		case *Join:
			visit(o.Left)
			visit(o.Right)
		case *LeftJoin:
			visit(o.Left)
			visit(o.Right)
		case *Union:
			visit(o.Left)
			visit(o.Right)
		case *Minus:
			visit(o.Left)
		case *Filter:
			visit(o.Op)
		case *Graph:
			addNode(o.Name)
			visit(o.Op)
		case *Service:
			addNode(o.Name)
			visit(o.Op)
		case *Extend:
			visit(o.Op)
			add(o.Var)
		case *Table:
			for _, v := range o.Vars {
				add(v)
			}
		case *Group:
			for _, k := range o.Keys {
				add(k.Var)
			}
			for _, a := range o.Aggregates {
				add(a.Var)
			}
		case *Project:
			for _, v := range o.Vars {
				add(v)
			}
		case *OrderBy:
			visit(o.Op)
		case *Distinct:
			visit(o.Op)
		case *Reduced:
			visit(o.Op)
		case *Slice:
			visit(o.Op)
		}
	}
	visit(op)
	return out
}

// ResultVars returns the variables of a SELECT query's results, in the order of the SELECT clause (the header of
// a result set); nil for other query forms.
func (q *Query) ResultVars() []Var {
	if q.Form != Select {
		return nil
	}
	op := q.Op
	for {
		switch o := op.(type) {
		case *Slice:
			op = o.Op
		case *Distinct:
			op = o.Op
		case *Reduced:
			op = o.Op
		case *Project:
			return o.Vars
		default:
			return Vars(op)
		}
	}
}
