package parser

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// checkSelect enforces the side conditions of SELECT (§18.2.4.1, §19.8 notes): an expression may not assign a
// variable already in scope in the WHERE pattern or assigned earlier in the clause, and in an aggregated query
// SELECT * is not allowed and every projected variable must be a group key or come from an expression over group
// keys and aggregates. pos holds each item's position.
func (p *parser) checkSelect(q *algebra.QuerySyntax, pos []token) error {
	sc := q.Select
	inWhere := map[algebra.Var]bool{}
	algebra.GroupInScope(q.Where, nil, inWhere)
	if q.Values != nil {
		// The trailing VALUES is joined before the SELECT expressions are evaluated (§18.2.4.3).
		for _, v := range q.Values.Vars {
			inWhere[v] = true
		}
	}
	assigned := map[algebra.Var]bool{}
	for i, it := range sc.Items {
		if it.Expr != nil {
			if inWhere[it.Var] {
				return p.errorf(pos[i], "SELECT assigns ?%s, which is already in scope in the WHERE pattern", it.Var)
			}
			if assigned[it.Var] {
				return p.errorf(pos[i], "SELECT assigns ?%s twice", it.Var)
			}
		}
		assigned[it.Var] = true
	}

	aggregated := len(q.GroupBy) > 0 || len(q.Having) > 0
	for _, it := range sc.Items {
		aggregated = aggregated || algebra.HasAggregate(it.Expr)
	}
	for _, c := range q.OrderBy {
		aggregated = aggregated || algebra.HasAggregate(c.Expr)
	}
	if !aggregated {
		return nil
	}
	if sc.Star {
		return p.errorf(pos[0], "SELECT * is not allowed in a query with GROUP BY or aggregates; name the variables")
	}
	grouped := map[algebra.Var]bool{}
	for _, k := range q.GroupBy {
		if k.Var != "" {
			grouped[k.Var] = true
		}
	}
	for i, it := range sc.Items {
		if it.Expr == nil {
			if !grouped[it.Var] {
				return p.errorf(pos[i], "?%s is projected but neither grouped nor aggregated", it.Var)
			}
			continue
		}
		if v, ok := ungrouped(it.Expr, grouped); ok {
			return p.errorf(pos[i], "?%s is used outside an aggregate but is not grouped", v)
		}
		// Later expressions may use this item's variable.
		grouped[it.Var] = true
	}
	return nil
}

// ungrouped returns a variable e uses outside any aggregate that is not in grouped.
func ungrouped(e algebra.Expr, grouped map[algebra.Var]bool) (algebra.Var, bool) {
	var bad algebra.Var
	algebra.WalkExpr(e, func(e algebra.Expr) bool {
		switch x := e.(type) {
		case *algebra.Aggregate:
			return false
		case algebra.Var:
			if !grouped[x] && bad == "" {
				bad = x
			}
		}
		return bad == ""
	})
	return bad, bad != ""
}
