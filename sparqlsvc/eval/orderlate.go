package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// SELECT ?product ?n1 ?n2 (?n1 / ?n2 AS ?ratio) … ORDER BY DESC(?n1 / ?n2) OFFSET 9000 LIMIT 15 computes the
// SELECT expression before the ORDER BY (SPARQL's algebra puts the Extend under it), so each of 29 090 products had
// its quotient written and interned for the slice to keep 15: a fifth of h118's CPU. An Extend whose variable no
// order key reads and whose operand never binds that variable adds one binding to each solution and drops none,
// so it commutes with the ORDER BY and with the slice above it: the ORDER BY sorts its operand's solutions and the
// Extends run on the ones the slice keeps. The first OFFSET solutions it emits, which the slice drops whatever they
// bind, pass without them.

// lateBinds is an ORDER BY whose top Extends wait for the solutions the slice keeps.
type lateBinds struct {
	inner *algebra.OrderBy  // the ORDER BY over the operand of the lowest Extend taken off
	binds []*algebra.Extend // copies of the Extends taken off, lowest first, each over an empty BGP (the solution)
	slots []int             // the variables they bind
}

// lateBindsOf returns x's lateBinds when its operand starts with Extends that can wait (no order key reads their
// variables, nor does the operand below them bind one, nor does in); nil otherwise. The nodes are made once per
// ORDER BY, so that what the evaluator keeps per node (topK, memos) stays with them.
func (e *evaluator) lateBindsOf(x *algebra.OrderBy, in []ID) *lateBinds {
	l, ok := e.lateBinds[x]
	if !ok {
		l = e.newLateBinds(x)
		if e.lateBinds == nil {
			e.lateBinds = map[*algebra.OrderBy]*lateBinds{}
		}
		e.lateBinds[x] = l
	}
	if l == nil {
		return nil
	}
	for _, s := range l.slots {
		if in[s] != 0 { // the Extend would compare with the input's value and may drop the solution
			return nil
		}
	}
	return l
}

func (e *evaluator) newLateBinds(x *algebra.OrderBy) *lateBinds {
	var keys varset
	for _, c := range x.Conds {
		keys = keys.union(e.varsOfExpr(c.Expr))
	}
	// The chain of Extends and FILTERs at the top of the operand. An Extend waits when no order key and no FILTER
	// above it reads its variable: a FILTER that does not read ?v keeps or drops a solution whatever ?v is, so
	// Filter(Extend(X, ?v), c) is Extend(Filter(X, c), ?v). h170's BIND(COALESCE(UCASE(?t4), "NONE") AS ?text)
	// stood under FILTER(?score != 0) and was computed (each ?t4's term read) for every product, not for the 100
	// kept.
	var chain []*algebra.Extend
	var filters []*algebra.Filter // kept in place, top first
	op := x.Op
	read := keys // what the order keys and the FILTERs met so far read
walk:
	for {
		switch b := op.(type) {
		case *algebra.Extend:
			if read.has(e.slot(b.Var)) || hasExists(b.Expr) {
				break walk // an EXISTS notes the operator whose rows test it (noteOuter): left where its note says
			}
			chain = append(chain, b)
			op = b.Op
		case *algebra.Filter:
			for _, c := range b.Exprs {
				if hasExists(c) {
					break walk // its rows are noted by the FILTER node (noteOuter), which is rebuilt below
				}
				read = read.union(e.varsOfExpr(c))
			}
			filters = append(filters, b)
			op = b.Op
		default:
			break walk
		}
	}
	if len(chain) == 0 {
		return nil
	}
	for i := len(filters) - 1; i >= 0; i-- {
		if filters[i].Op == op {
			op = filters[i] // a FILTER below every Extend taken stays as it is
			continue
		}
		op = &algebra.Filter{Exprs: filters[i].Exprs, Op: op}
	}
	l := &lateBinds{inner: &algebra.OrderBy{Op: op, Conds: x.Conds}}
	below := e.infoOf(op).mentioned
	for i := len(chain) - 1; i >= 0; i-- {
		s := e.slot(chain[i].Var)
		if below.has(s) {
			return nil
		}
		below = below.with(s) // a later Extend of the same variable compares with this one's value
		l.slots = append(l.slots, s)
		l.binds = append(l.binds, &algebra.Extend{Op: &algebra.BGP{}, Var: chain[i].Var, Expr: chain[i].Expr})
	}
	return l
}

// orderLate is orderBy for x under the slice's bound with l's Extends run on the solutions the slice keeps.
func (e *evaluator) orderLate(x *algebra.OrderBy, l *lateBinds, bound topBound, in []ID, emit emitFn, errp *error) bool {
	e.topK[l.inner] = bound
	row := make([]ID, e.nvars)
	var n int64
	return e.orderBy(l.inner, in, func(sol []ID) bool {
		if n++; n <= bound.skip {
			return emit(sol) // dropped by the slice whatever it binds
		}
		copy(row, sol)
		return e.bindLate(l.binds, row, emit, errp)
	}, errp)
}

// bindLate runs binds on row in turn, each with execOp, not exec: they read the solution's bindings as they did
// below the ORDER BY, where exec would evaluate an Extend apart from them (it is not safe to substitute into) and
// join the results.
func (e *evaluator) bindLate(binds []*algebra.Extend, row []ID, emit emitFn, errp *error) bool {
	if len(binds) == 0 {
		return emit(row)
	}
	return e.execOp(binds[0], row, func(row []ID) bool { return e.bindLate(binds[1:], row, emit, errp) }, errp)
}
