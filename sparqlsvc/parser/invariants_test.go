package parser_test

import (
	"fmt"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// checkAlgebra checks invariants the evaluator relies on: aggregates occur only in Group.Aggregates (everywhere
// else they have been replaced by variables), every EXISTS has a translated pattern, no op or path is nil, and
// Table rows are as wide as their variables.
func checkAlgebra(q *algebra.Query) error {
	var err error
	fail := func(format string, args ...any) {
		if err == nil {
			err = fmt.Errorf("algebra invariant: "+format, args...)
		}
	}
	var checkExpr func(e algebra.Expr, aggOK bool)
	var checkOp func(op algebra.Op)
	checkExpr = func(e algebra.Expr, aggOK bool) {
		algebra.WalkExpr(e, func(x algebra.Expr) bool {
			switch x := x.(type) {
			case *algebra.Aggregate:
				if !aggOK {
					fail("aggregate %s outside a Group", algebra.FormatExpr(x))
				}
			case *algebra.Exists:
				if x.Pattern == nil {
					fail("EXISTS without a translated pattern")
				} else {
					checkOp(x.Pattern)
				}
			}
			return true
		})
	}
	checkOp = func(op algebra.Op) {
		algebra.Walk(op, func(o algebra.Op) bool {
			switch o := o.(type) {
			case nil:
				fail("nil op")
			case *algebra.Filter:
				for _, e := range o.Exprs {
					checkExpr(e, false)
				}
			case *algebra.LeftJoin:
				checkExpr(o.Expr, false)
			case *algebra.Extend:
				checkExpr(o.Expr, false)
			case *algebra.OrderBy:
				for _, c := range o.Conds {
					checkExpr(c.Expr, false)
				}
			case *algebra.Group:
				for _, k := range o.Keys {
					checkExpr(k.Expr, false)
				}
				for _, a := range o.Aggregates {
					checkExpr(a.Aggregate.Expr, false)
				}
			case *algebra.PathPattern:
				if o.Path == nil {
					fail("path pattern without a path")
				}
			case *algebra.Table:
				for _, row := range o.Rows {
					if len(row) != len(o.Vars) {
						fail("table row of %d values for %d variables", len(row), len(o.Vars))
					}
				}
			}
			return true
		})
	}
	if q.Op == nil {
		return fmt.Errorf("algebra invariant: query without an op")
	}
	checkOp(q.Op)
	return err
}
