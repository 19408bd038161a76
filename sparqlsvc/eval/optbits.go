package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// An EXISTS's pattern is evaluated only for whether it has a solution (per row) or for its solutions' values of the
// key variables (a semi-join's set, keyed only on variables bound in every solution). A FILTER over an OPTIONAL of
// one triple pattern { ?s <p> ?o }, whose conditions read only ?o, which the OPTIONAL's left side does not mention,
//
//	NOT EXISTS { ?review reviewFor ?product OPTIONAL { ?review rating1 ?r } FILTER(!BOUND(?r) || ?r < 2) }
//
// then keeps a left solution exactly when ?s has a value of p that passes the conditions, or has none and they pass
// with ?o unbound; the solutions it would keep differ only in ?o, which nothing reads. Evaluated as written, every
// left solution probes p by its ?s through the OPTIONAL's and the FILTER's operators (v55j at 10 M: ~85 000 probes of
// rating1, each a search of the SPO permutation). Those subjects are a set that p's rows give in one read: in POS
// order the objects come in runs, so the conditions are evaluated once per distinct object, and a bitmap of the
// dictionary's ids holds the subjects that pass. Each left solution is then a bit test.
//
// The bitmap costs a pass over p's rows in order, a bit operation each (a few ns), where a solution answered as
// written costs a probe and the operators' work (~300 ns at 10 M), so it is built once those solutions number
// 1/optBitsEarn of p's rows. With 1/32 v55j's semi-join trial, which evaluates the pattern for every review,
// spent its budget on the solutions before the bitmap and was dropped (37–47 ms CPU at load 14 against 25–31).
// Until then, and for a solution whose ?s is unbound or not a dictionary id, or when the pattern runs with ?o bound,
// the OPTIONAL and the FILTER are evaluated as written. Only one graph of the index's own dictionary is read so.

// optBitsEarn is the share of p's rows that solutions answered as written must reach before the bitmap is built.
const optBitsEarn = 128

// optFilter is such a FILTER over an OPTIONAL, the pattern of an EXISTS.
type optFilter struct {
	left, right algebra.Op // the OPTIONAL's sides
	exprs       []algebra.Expr
	pred        algebra.Node // p
	s, o        int          // slots
	asWritten   int          // left solutions evaluated as written
	graph       *index.Graph // the graph bits were read from (nil: none yet)
	bits        []uint64     // the subjects that pass
	refused     bool         // no room in the budget: evaluated as written from then on
}

// optFilterOf returns pattern as an optFilter when it has that shape: a FILTER whose conditions read only ?o (no
// EXISTS, nothing volatile) over an OPTIONAL without its own condition whose right side is one triple pattern
// { ?s <p> ?o }, ?s mentioned on the left and ?o not.
func (e *evaluator) optFilterOf(pattern algebra.Op) *optFilter {
	f, ok := pattern.(*algebra.Filter)
	if !ok || volatileOp(pattern) {
		return nil
	}
	lj, ok := f.Op.(*algebra.LeftJoin)
	if !ok || lj.Expr != nil {
		return nil
	}
	b, ok := lj.Right.(*algebra.BGP)
	if !ok || len(b.Triples) != 1 {
		return nil
	}
	t := b.Triples[0]
	if !t.S.IsVar() || t.P.IsVar() || !t.O.IsVar() || t.S.Var == t.O.Var {
		return nil
	}
	s, o := e.slot(t.S.Var), e.slot(t.O.Var)
	left := e.infoOf(lj.Left).mentioned
	if s >= 64 || o >= 64 || left.over || !left.has(s) || left.has(o) {
		return nil
	}
	only := varset{}.with(o)
	for _, x := range f.Exprs {
		if hasExists(x) || !e.varsOfExpr(x).subsetOf(only) {
			return nil
		}
	}
	return &optFilter{left: lj.Left, right: lj.Right, exprs: f.Exprs, pred: t.P, s: s, o: o}
}

// optFilter evaluates of, an EXISTS's pattern (see above), extending in.
func (e *evaluator) optFilter(of *optFilter, in []ID, emit emitFn, errp *error) bool {
	var g *index.Graph
	if in[of.o] == 0 {
		g = e.ownGraph()
	}
	return e.exec(of.left, in, func(l []ID) bool {
		if s := l[of.s]; g != nil && s != 0 && s <= e.t.base {
			if of.graph == g || of.earned(e, g, false, errp) {
				if of.bits[s/64]&(1<<(s%64)) != 0 {
					return emit(l)
				}
				return true
			}
			if *errp != nil {
				return false
			}
		}
		return e.optFilterAsWritten(of, l, emit, errp)
	}, errp)
}

// optFilterAsWritten evaluates the OPTIONAL and the FILTER of of for the left solution l as LeftJoin and Filter do.
func (e *evaluator) optFilterAsWritten(of *optFilter, l []ID, emit emitFn, errp *error) bool {
	of.asWritten++
	matched, stopped := false, false
	if !e.exec(of.right, l, func(r []ID) bool {
		matched = true
		if e.testAll(of.exprs, r, errp) && !emit(r) {
			stopped = true
			return false
		}
		return *errp == nil
	}, errp) {
		return !stopped && *errp == nil
	}
	if !matched && e.testAll(of.exprs, l, errp) {
		return emit(l)
	}
	return *errp == nil
}

// earned builds of's bitmap from g once the solutions answered as written have earned it (optBitsEarn), or at
// once when forced (a set's trial: optFilterSet) or a test asks (Options.optBits); it reports whether the bitmap
// of g is ready.
func (of *optFilter) earned(e *evaluator, g *index.Graph, force bool, errp *error) bool {
	if of.refused || of.graph != nil || e.opt.optBits < 0 {
		return false // built for another graph: the rest of this one as written
	}
	p := e.constID(of.pred.Term)
	if p == 0 {
		return false // no such triples: each probe finds none at once
	}
	rows := g.Match(0, p, 0)
	if e.opt.optBits == 0 && !force && of.asWritten < rows.Len()/optBitsEarn {
		return false
	}
	bits := make([]uint64, e.t.base/64+1)
	if !e.charge(int64(len(bits)) * 8) { // held for the query, as the other sets are
		of.refused = true
		return false
	}
	row := e.newRow()
	// With ?o unbound passing, every subject passes but those whose values all fail: their bits are cleared, then
	// those of subjects with a passing value set (a subject may have both).
	unbound := e.testAll(of.exprs, row, errp)
	if unbound {
		for i := range bits {
			bits[i] = ^uint64(0)
		}
	}
	var runs [][2]int // the rows of passing objects
	n := rows.Len()
	for i := 0; i < n; {
		_, _, o := rows.At(i)
		j := objectRunEnd(rows, i)
		row[of.o] = o
		e.steps++ // the conditions, once per distinct object
		switch {
		case e.testAll(of.exprs, row, errp):
			runs = append(runs, [2]int{i, j})
		case *errp != nil:
			return false
		case unbound:
			for k := i; k < j; k++ {
				if s, _, _ := rows.At(k); int(s/64) < len(bits) {
					bits[s/64] &^= 1 << (s % 64)
				}
			}
		}
		i = j
	}
	for _, r := range runs {
		for k := r[0]; k < r[1]; k++ {
			if s, _, _ := rows.At(k); int(s/64) < len(bits) {
				bits[s/64] |= 1 << (s % 64)
			}
		}
	}
	e.steps += n / 16 // a bit set per row read in order: far cheaper than a row of a scan
	of.graph, of.bits = g, bits
	return true
}

// objectRunEnd returns the end of the run of m's rows from i on that share row i's object. m is a range of one
// predicate's POS rows (p, o, s), where each object's rows come together: a condition on the object is tested
// once a run.
func objectRunEnd(m index.Matches, i int) int {
	j := i + 1
	for j < len(m.Rows) && m.Rows[j][1] == m.Rows[i][1] {
		j++
	}
	return j
}

// optFilterSet collects, for a semi-join's set keyed on slots, the solutions of pattern when it is an optFilter whose
// left side is one triple pattern { ?s <q> ?k } with ?k the key: q's rows are read in order, and those whose
// subject is in the bitmap (built at once: the trial reads every left solution) give their object to add, with no
// row of a join evaluated. ok is false when pattern is not that shape or the bitmap cannot be built; the caller
// evaluates it as a pattern. v55j's trial joined 290 000 reviews through the BGP's operators (~10 of its 22 ms).
func (e *evaluator) optFilterSet(pattern algebra.Op, slots []int, add emitFn, errp *error) (ok bool) {
	f, isFilter := pattern.(*algebra.Filter)
	if !isFilter || len(slots) != 1 || e.ownGraph() == nil {
		return false
	}
	of := e.optFilters[f]
	if of == nil {
		return false
	}
	b, isBGP := of.left.(*algebra.BGP)
	if !isBGP || len(b.Triples) != 1 {
		return false
	}
	t := b.Triples[0]
	if !t.S.IsVar() || e.slot(t.S.Var) != of.s || t.P.IsVar() || !t.O.IsVar() || e.slot(t.O.Var) != slots[0] || slots[0] == of.s {
		return false
	}
	q := e.constID(t.P.Term)
	g := e.active[0].g
	if q == 0 || (of.graph != g && !of.earned(e, g, true, errp)) {
		return false
	}
	bits := of.bits
	row := e.newRow()
	m := g.Match(0, q, 0)
	for j := 0; j < m.Len(); j++ {
		if j%starScanRows == 0 && !e.starCheck(1, errp) {
			return true
		}
		s, _, o := m.At(j)
		row[of.s], row[slots[0]] = s, o
		if s > e.t.base { // no bit: as written
			if !e.optFilterAsWritten(of, row, add, errp) {
				return true
			}
			continue
		}
		if bits[s/64]&(1<<(s%64)) != 0 && !add(row) {
			return true
		}
	}
	return true
}
