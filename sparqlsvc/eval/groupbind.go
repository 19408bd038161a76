package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A GROUP BY on a variable a BIND right under it computes, { P BIND(e AS ?k) FILTER(f(?k)) } GROUP BY ?k, is
// the same question as { P } GROUP BY (e AS ?k) HAVING f(?k); the second form puts the expression where the
// group's fast paths see it (GROUP BY YEAR of a date reads each year's first and last rows: groupperiods.go), and
// tests the FILTER once per group instead of once per row. It is exact when e and f give one value per call
// (pushable), f reads only ?k, and P does not mention ?k:
//   - a row's ?k is e's value on that row, or unbound where e has an error; the rewritten key is e's value, or no
//     value (the unbound key) where e has an error: each row lands in the group of the same key;
//   - f reads only ?k, so its value (true, false or an error, BOUND included) is one function of the key, the same
//     on a row and on the row's group; dropping the rows whose f is not true, before grouping, drops exactly the
//     groups whose f is not true: rows where e errs have ?k unbound, f(unbound) is then usually an error that drops
//     them, and the same f on the unbound-key group drops that group; where f(unbound) is true (!BOUND(?k)) both
//     keep them;
//   - each kept group holds the same rows, so COUNT(*) and every aggregate not reading ?k is the same; an aggregate
//     reading ?k reads e in its place (substExpr: ?k holds e's value or is unbound where e errs, and reading an
//     unbound variable is an error like e's own; BOUND(?k) tells the two apart and declines);
//   - the group's solutions bind the same key variable and aggregates, so the projection, ORDER BY and HAVING
//     above read the same values.
// FILTER conjuncts that do not read ?k are tested on P's rows (a BIND only adds ?k to a row); a conjunct reading
// ?k and another variable, COUNT(DISTINCT *) (which reads ?k as part of the row), a key other than ?k that reads
// ?k, and an EXISTS or a RAND-like call anywhere in what moves decline the rewrite.

// keyBind is the rewritten form of a group (keyBindOf).
type keyBind struct {
	x      *algebra.Group // { P } GROUP BY (e AS ?k), with the FILTER's other conjuncts over P
	having []algebra.Expr // the FILTER's conjuncts reading ?k, tested on each group's solution
	k      int            // ?k's slot: a solution coming in with it bound is evaluated as written
	key    int            // the index of ?k's key in x.Keys
}

// readsIDs reports whether a GROUP BY key keeps or reads its operand's id as it is (a variable, a date field of
// one: groupState.add), rather than the terms an evaluation reads.
func readsIDs(x algebra.Expr) bool {
	switch v := x.(type) {
	case algebra.Var:
		return true
	case *algebra.Call:
		_, ok := fieldArg(v)
		return ok
	}
	return false
}

// keyBindOf returns x's rewritten form, made once per query, or nil when x is not of that shape.
func (e *evaluator) keyBindOf(x *algebra.Group) *keyBind {
	return madeOnce(&e.keyBinds, x, func() *keyBind { return e.makeKeyBind(x) })
}

// madeOnce returns (*m)[k], made by mk the first time k is asked for (nil answers too), and the map when it is nil:
// what a query learns once about one of its operators.
func madeOnce[K comparable, V any](m *map[K]V, k K, mk func() V) V {
	if v, ok := (*m)[k]; ok {
		return v
	}
	if *m == nil {
		*m = map[K]V{}
	}
	v := mk()
	(*m)[k] = v
	return v
}

// makeKeyBind is keyBindOf's work: x rewritten when it has the shape the comment above proves exact, else nil.
func (e *evaluator) makeKeyBind(x *algebra.Group) *keyBind {
	op := x.Op
	var filters []algebra.Expr
	if f, ok := op.(*algebra.Filter); ok {
		filters, op = f.Exprs, f.Op
	}
	ext, ok := op.(*algebra.Extend)
	if !ok || !pushable(ext.Expr) {
		return nil
	}
	k := e.slot(ext.Var)
	kset := varset{}.with(k)
	if kset.over || e.infoOf(ext.Op).mentioned.has(k) {
		return nil
	}
	// The keys: ?k once, as a variable; the others must not read ?k.
	keys := make([]algebra.GroupKey, len(x.Keys))
	found := -1
	for i, key := range x.Keys {
		keys[i] = key
		if v, isVar := key.Expr.(algebra.Var); isVar && v == ext.Var && key.Var == ext.Var && found < 0 {
			keys[i].Expr, found = ext.Expr, i
			continue
		}
		if !pushable(key.Expr) || e.varsOfExpr(key.Expr).has(k) {
			return nil
		}
	}
	if found < 0 {
		return nil
	}
	aggs := make([]algebra.AggregateBinding, len(x.Aggregates))
	for i, a := range x.Aggregates {
		aggs[i] = a
		ag := a.Aggregate
		if ag.Expr == nil {
			if ag.Distinct {
				return nil
			}
			continue
		}
		if !pushable(ag.Expr) {
			return nil
		}
		if !e.varsOfExpr(ag.Expr).has(k) {
			continue
		}
		sub, ok := e.substExpr(ag.Expr, []*algebra.Extend{ext})
		if !ok || e.varsOfExpr(sub).has(k) {
			return nil
		}
		c := *ag
		c.Expr = sub
		aggs[i].Aggregate = &c
	}
	var below, having []algebra.Expr
	for _, f := range filters {
		for _, c := range appendConjuncts(nil, f) {
			reads := e.varsOfExpr(c)
			switch {
			case !pushable(c) || reads.over:
				return nil
			case !reads.has(k):
				below = append(below, c)
			case reads.subsetOf(kset):
				having = append(having, c)
			default:
				return nil
			}
		}
	}
	inner := ext.Op
	if len(below) > 0 {
		inner = &algebra.Filter{Exprs: below, Op: inner}
	}
	return &keyBind{x: &algebra.Group{Op: inner, Keys: keys, Aggregates: aggs}, having: having, k: k, key: found}
}
