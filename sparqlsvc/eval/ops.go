package eval

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// graphRef is one graph BGPs match against; the active graph is a list (the default graph may be a merge).
type graphRef struct {
	g    *index.Graph
	name ID       // 0 for default graphs
	f    *foreign // set when the graph has its own dictionary
}

func (e *evaluator) defaultGraphs() []graphRef {
	var out []graphRef
	for _, g := range e.ds.Default {
		if g != nil {
			out = append(out, graphRef{g: g})
		}
	}
	for _, x := range e.ds.Extra {
		if x.Graph != nil && x.Dict != nil {
			out = append(out, graphRef{g: x.Graph, f: &foreign{dict: x.Dict, toLocal: map[ID]ID{}, toQuery: map[ID]ID{}}})
			e.multi = true
		}
	}
	return out
}

// scan calls fn for every triple of gr matching the pattern (query ids, 0 = any), translating ids for graphs
// with their own dictionary.
func (e *evaluator) scan(gr graphRef, s, p, o ID, fn func(s, p, o ID) bool) bool {
	return e.scanFrom(gr, nil, s, p, o, fn)
}

// scanFrom is scan starting the index search at a cursor (nil: none).
func (e *evaluator) scanFrom(gr graphRef, cur *probeCursor, s, p, o ID, fn func(s, p, o ID) bool) bool {
	if gr.f == nil {
		var m index.Matches
		if cur != nil {
			m = e.probe(cur, gr.g, s, p, o)
		} else {
			m = gr.g.Match(s, p, o)
		}
		for j := 0; j < m.Len(); j++ {
			if !fn(m.At(j)) {
				return false
			}
		}
		return true
	}
	ls, lp, lo := gr.f.local(e.t, s), gr.f.local(e.t, p), gr.f.local(e.t, o)
	if (s != 0 && ls == 0) || (p != 0 && lp == 0) || (o != 0 && lo == 0) {
		return true
	}
	m := gr.g.Match(ls, lp, lo)
	for j := 0; j < m.Len(); j++ {
		a, b, c := m.At(j)
		if !fn(gr.f.query(e.t, a), gr.f.query(e.t, b), gr.f.query(e.t, c)) {
			return false
		}
	}
	return true
}

// count returns how many triples of gr match the pattern.
func (e *evaluator) count(gr graphRef, s, p, o ID) int {
	if gr.f == nil {
		return gr.g.Match(s, p, o).Len()
	}
	ls, lp, lo := gr.f.local(e.t, s), gr.f.local(e.t, p), gr.f.local(e.t, o)
	if (s != 0 && ls == 0) || (p != 0 && lp == 0) || (o != 0 && lo == 0) {
		return 0
	}
	return gr.g.Match(ls, lp, lo).Len()
}

// constID returns the id a pattern constant matches under: its dictionary id, or, when other dictionaries take
// part, its interned id (0 means it cannot match).
func (e *evaluator) constID(t rdf.Term) ID {
	if id, ok := e.consts[t]; ok {
		return id
	}
	var id ID
	if e.multi {
		id = e.t.id(t)
	} else {
		id = e.t.lookup(t)
	}
	e.consts[t] = id
	return id
}

// ownGraph returns the one graph patterns match against when it is of the index's own dictionary and no graph with
// a dictionary of its own takes part, nil otherwise: only then are ids the index's, so that a bitmap of the
// dictionary's ids, the graph's kept copies, or a split of its rows over workers stands for what patterns match.
func (e *evaluator) ownGraph() *index.Graph {
	if len(e.active) != 1 || e.active[0].f != nil || e.multi {
		return nil
	}
	return e.active[0].g
}

// outerGraph is ownGraph outside EXISTS (subst) and its trial evaluations (trialSet), nil inside them. The paths
// that read a predicate's rows in a loop of their own (groupRuns, groupStars, distinctRuns, a split scan) serve
// neither: inside EXISTS a pattern is evaluated again per outer solution, and a trial learns its progress from
// the BGP's outermost loop (trialWatch).
func (e *evaluator) outerGraph() *index.Graph {
	if e.subst > 0 || e.trial != nil {
		return nil
	}
	return e.ownGraph()
}

// mayMatch reports whether a bound id can occur in the active graphs.
func (e *evaluator) mayMatch(id ID) bool { return e.multi || e.t.inData(id) }

type emitFn func(row []ID) bool

// run evaluates op extending in and reports the first error; emit returning false stops evaluation quietly.
func (e *evaluator) run(op algebra.Op, in []ID, emit emitFn) error {
	var err error
	e.exec(op, in, emit, &err)
	return err
}

// exec pushes every solution of Join({in}, op) to emit. It returns false when evaluation must stop (emit said so or
// *errp was set).
func (e *evaluator) exec(op algebra.Op, in []ID, emit emitFn, errp *error) bool {
	if err := e.check(); err != nil {
		*errp = err
		return false
	}
	if e.subst == 0 && !e.safe(op, e.boundSet(in)) {
		if keep, ok := e.narrowable(op, in); ok {
			return e.narrowedExec(op, in, keep, emit, errp)
		}
		return e.independent(op, in, emit, errp)
	}
	if e.opt.Cores != nil {
		if site := e.forkRoot(op, in, emit); site != nil {
			if e.work != nil && e.work.top == nil {
				e.work.top = site
			}
			return e.execFork(site, op, in, emit, errp)
		}
	}
	return e.execOp(op, in, emit, errp)
}

// execOp is exec's evaluation of op itself.
func (e *evaluator) execOp(op algebra.Op, in []ID, emit emitFn, errp *error) bool {
	if e.subRoots != nil {
		if r := e.subRoots[op]; r != nil {
			if done, ok := e.subMemo(r, op, in, emit, errp); done {
				return ok
			}
		}
	}
	switch x := op.(type) {
	case *algebra.BGP:
		return e.bgp(x, in, emit, errp)
	case *algebra.PathPattern:
		return e.pathPattern(x, in, emit, errp)
	case *algebra.Join:
		if r := e.seqJoinOf(x, in); r != nil { // path patterns merged at their joints (seqJoin)
			return e.exec(r, in, emit, errp)
		}
		if u := e.unionSpread(x, e.boundSet(in)); u != nil {
			return e.exec(u, in, emit, errp)
		}
		if r := e.crossSplitOf(x, in); r != nil { // a cross product that paths connect (crossSplit)
			return e.exec(r, in, emit, errp)
		}
		if v := e.valuesFirst(x); v != nil {
			x = v
		}
		if h := e.valuesHashPlan(x, in); h != nil {
			if done, cont := e.hashJoin(h, in, emit, errp); done {
				return cont
			}
		}
		left, right := x.Left, x.Right
		if e.pathFirst(x, in) { // join is commutative: start from the side anchored on a constant
			left, right = right, left
		} else if d := e.domainFirstOf(x, in); d != nil {
			return e.domainFirst(d, in, emit, errp)
		} else if e.farFirst(x, in) {
			left, right = right, left
		}
		if c := e.checkJoinOf(left, right); c != nil { // right is `?x <p> <o>`: a bitmap of its subjects
			return e.checkJoin(c, left, right, in, emit, errp)
		}
		if e.replayable(left, right) {
			return e.joinReplay(left, right, in, emit, errp)
		}
		return e.exec(left, in, func(l []ID) bool {
			return e.exec(right, l, emit, errp)
		}, errp)
	case *algebra.Union:
		return e.exec(x.Left, in, emit, errp) && e.exec(x.Right, in, emit, errp)
	case *algebra.Filter:
		// A solution coming in with a BIND's variable already bound keeps it where the expression has an error:
		// the substituted copies (belowBinds) would not see that value.
		if op := e.belowBinds(x); op != nil && e.boundSet(in).inter(e.substVars[x]).empty() {
			return e.exec(op, in, emit, errp)
		}
		if !e.outerNoted[x] {
			e.noteOuter(x.Exprs, x.Op, in)
			e.outerNoted[x] = true
		}
		if b, ok := x.Op.(*algebra.BGP); ok && (e.subst > 0 || e.safe(b, e.boundSet(in))) {
			return e.filteredBGP(b, x.Exprs, in, emit, errp)
		}
		if of := e.optFilters[x]; of != nil { // an EXISTS's pattern: only its solutions' existence is read
			return e.optFilter(of, in, emit, errp)
		}
		pass := func(row []ID) bool {
			for _, f := range x.Exprs {
				if !e.test(f, row, errp) {
					return *errp == nil
				}
			}
			return emit(row)
		}
		if g, ok := x.Op.(*algebra.Group); ok { // HAVING: groups it fails are dropped before all is made (emitGroups)
			return e.groupBelow(g, x.Exprs, in, pass, errp)
		}
		return e.exec(x.Op, in, pass, errp)
	case *algebra.LeftJoin:
		// The right side's function is made once per evaluation, not per left row: an OPTIONAL evaluated per row
		// of an EXISTS (v55j: 280 000 reviews at 10 M) allocated it and its flag for every row. A left row's right
		// side is done before the next left row starts, so one flag serves them all.
		matched := false
		right := func(r []ID) bool {
			if x.Expr != nil && !e.test(x.Expr, r, errp) {
				return *errp == nil
			}
			matched = true
			return emit(r)
		}
		gate := e.leftGateOf(x)
		return e.exec(x.Left, in, func(l []ID) bool {
			if gate != nil && gate.absent(e, l) { // no right solution for l (leftGate)
				return emit(l)
			}
			matched = false
			if !e.exec(x.Right, l, right, errp) {
				return false
			}
			if !matched {
				return emit(l)
			}
			return true
		}, errp)
	case *algebra.Minus:
		if f := e.minusAsNotExists(x, in); f != nil {
			return e.exec(f, in, emit, errp)
		}
		if e.minusDisjoint(x) {
			// MINUS removes a left solution only for a right one that shares a variable with it (§18.5), and no
			// left solution can: the right operand is not evaluated (h126: every next-day offer, 110 ms of CPU
			// at 10 M, to remove nothing).
			return e.exec(x.Left, in, emit, errp)
		}
		right, ok := e.materialize(e.minusPlanOf(x).right, errp)
		if !ok {
			return false
		}
		slot, by := e.minusIndexOf(x, right)
		if err := e.holdBytes(int64(len(by))*48 + int64(len(right))*4); err != nil {
			*errp = err
			return false
		}
		// Inside EXISTS the input row holds the outer solution. A slot it binds that the left operand does not
		// mention is not a variable the two operands share: it still selects the right solutions compatible with
		// it, but shares nothing. `EXISTS { ?r :pub ?s MINUS { ?p :name ?n } }` with ?p from outside removed every
		// solution when ?p counted as shared; Jena 4.5 compares only the variables both operands have, and removes
		// none (docs/conformance.md, MINUS inside EXISTS).
		left := e.infoOf(x.Left).mentioned
		return e.exec(x.Left, in, func(l []ID) bool {
			if slot >= 0 && l[slot] != 0 {
				// Every right row binds slot, so only those with l's id there can be compatible.
				for _, i := range by[l[slot]] {
					if compatible(l, right[i]) {
						return true
					}
				}
				return emit(l)
			}
			for _, r := range right {
				if compatible(l, r) && shareVarOutside(l, r, in, left) {
					return true
				}
			}
			return emit(l)
		}, errp)
	case *algebra.Graph:
		return e.graph(x, in, emit, errp)
	case *algebra.Service:
		return e.service(x, in, emit, errp)
	case *algebra.Extend:
		if !e.outerNoted[x] {
			e.noteOuter([]algebra.Expr{x.Expr}, x.Op, in)
			e.outerNoted[x] = true
		}
		s := e.slot(x.Var)
		direct, lowest := e.direct[x], e.lowest[x]
		// An arithmetic expression is tried on the numbers held in its operands' ids first (numberID).
		arith := arithExpr(x.Expr)
		return e.exec(x.Op, in, func(row []ID) bool {
			if lowest { // the values of the previous solution have reached the sink or been filtered out
				e.t.scratch = e.t.scratch[:0]
			}
			e.curRow = row
			var id ID
			fid, isField := e.dateFieldID(x.Expr, row)
			if arith && !isField {
				if nid, ok := e.numberID(x.Expr, row, direct && row[s] == 0); ok {
					fid, isField = nid, true
				}
			}
			var memo *bindValue
			if m := e.bindMemoOf(x); m != nil && !isField {
				memo, _ = m.value(e, x.Expr, row, errp)
				if *errp != nil {
					return false
				}
			}
			if isField {
				// YEAR(?d) and the like from the dictionary's column: the integer's id, without its term made
				// and parsed back; or an arithmetic expression's value from its operands' ids (numberID).
				id = fid
			} else if memo != nil { // the value met for this input before (bindMemo)
				switch {
				case memo.err:
					return emit(row)
				case direct && row[s] == 0 && !memo.repeated:
					id = e.t.scratchID(memo.t)
				default:
					if memo.id == 0 {
						if memo.id = e.t.id(memo.t); e.t.isOverlay(memo.id) {
							if err := e.check(); err != nil {
								*errp = err
								return false
							}
						}
					}
					id = memo.id
				}
			} else if v, err := e.eval(x.Expr, row, errp); *errp != nil {
				return false
			} else if err != nil {
				return emit(row)
			} else if direct && row[s] == 0 {
				if iid, ok := index.InlineID(v); ok { // an id every solution may keep: memos above can use it
					id = iid
				} else {
					id = e.t.scratchID(v)
				}
			} else if id = e.t.id(v); e.t.isOverlay(id) {
				// A new overlay term: the loop that produces the rows may not check the budget per row.
				if err := e.check(); err != nil {
					*errp = err
					return false
				}
			}
			if row[s] != 0 {
				if row[s] != id {
					return true
				}
				return emit(row)
			}
			row[s] = id
			ok := emit(row)
			row[s] = 0
			return ok
		}, errp)
	case *algebra.Table:
		row := slices.Clone(in)
		tab := e.tableIDsOf(x)
		for r := range x.Rows {
			// Per row, not only per exec: a VALUES joined after another runs once per outer row, and the time
			// limit, checked every 1024 checks, came 25 M rows (18 s) late for two VALUES of 25 000.
			if err := e.check(); err != nil {
				*errp = err
				return false
			}
			copy(row, in)
			ok := true
			for i, s := range tab.slots {
				id := tab.ids[r][i]
				if id == 0 { // UNDEF
					continue
				}
				if row[s] != 0 && row[s] != id {
					ok = false
					break
				}
				row[s] = id
			}
			if ok && !emit(row) {
				return false
			}
		}
		return true
	case *algebra.Group:
		return e.group(x, in, emit, errp)
	case *algebra.OrderBy:
		return e.orderBy(x, in, emit, errp)
	case *algebra.Project:
		// Clear what the operand binds but the projection hides; slots of the input stay (they are not mentioned).
		var hide []int
		keep := map[int]bool{}
		for _, v := range x.Vars {
			keep[e.slot(v)] = true
		}
		inner := e.infoOf(x.Op).mentioned
		for i := 0; i < e.nvars; i++ {
			if !keep[i] && (inner.over || i < 64 && inner.bits&(1<<uint(i)) != 0) && in[i] == 0 {
				hide = append(hide, i)
			}
		}
		out := make([]ID, e.nvars)
		return e.exec(x.Op, in, func(row []ID) bool {
			copy(out, row)
			for _, i := range hide {
				out[i] = 0
			}
			return emit(out)
		}, errp)
	case *algebra.Distinct:
		return e.distinct(x.Op, in, emit, errp)
	case *algebra.Reduced:
		return e.distinct(x.Op, in, emit, errp)
	case *algebra.Slice:
		e.boundOrder(x)
		var skipped, taken int64
		stopped := false
		ok := e.exec(x.Op, in, func(row []ID) bool {
			if skipped < x.Offset {
				skipped++
				return true
			}
			if x.Limit >= 0 && taken >= x.Limit {
				stopped = true
				return false
			}
			taken++
			if !emit(row) {
				return false
			}
			if x.Limit >= 0 && taken >= x.Limit {
				stopped = true
				return false
			}
			return true
		}, errp)
		return ok || (stopped && *errp == nil)
	}
	*errp = fmt.Errorf("sparql: cannot evaluate %T", op)
	return false
}

// maxTopK is the largest offset+limit for which ORDER BY keeps a heap of the first solutions rather than sorting
// them all: past it the heap saves little and costs a logarithm per solution.
const maxTopK = 1 << 16

// maxTopSelect is the largest offset+limit a slice tells its ORDER BY (boundOrder): orderSelect serves those past
// maxTopK while its buffer fits the budget.
const maxTopSelect = 1 << 20

// topBound is what a slice above an ORDER BY lets it keep: the first k solutions, or, with a DISTINCT (or
// REDUCED) between them, the first k distinct ones on the projected slots.
type topBound struct {
	k        int64
	distinct []int // the projection's slots when a DISTINCT sits between the slice and the ORDER BY
	skip     int64 // without a DISTINCT, the slice's offset: the first skip of the k are dropped in any order
}

// boundOrder tells an ORDER BY right under a slice (through a projection, which neither drops nor reorders
// solutions, and a DISTINCT, which drops only repeats) how many of its first solutions the slice can use.
func (e *evaluator) boundOrder(x *algebra.Slice) {
	op := x.Op
	distinct := false
	switch d := op.(type) {
	case *algebra.Distinct:
		op, distinct = d.Op, true
	case *algebra.Reduced:
		op, distinct = d.Op, true
	}
	var slots []int
	if p, ok := op.(*algebra.Project); ok {
		op = p.Op
		if distinct {
			for _, v := range p.Vars {
				slots = append(slots, e.slot(v))
			}
		}
	} else if distinct {
		return // a DISTINCT over every variable: not worth a case of its own
	}
	ob, ok := op.(*algebra.OrderBy)
	if !ok || x.Limit < 0 {
		return
	}
	if k := x.Offset + x.Limit; k > 0 && k <= maxTopSelect && x.Offset >= 0 {
		if distinct && k > maxTopBuffered {
			return
		}
		b := topBound{k: k, distinct: slots}
		if !distinct {
			b.skip = x.Offset
		}
		e.topK[ob] = b
	}
}

// pathFirst reports whether a join of a BGP with a property path anchored on a constant (…/p* <const>) should
// start from the path: its closure from the constant is usually far smaller than the BGP, which would otherwise
// run the path once per BGP solution.
func (e *evaluator) pathFirst(x *algebra.Join, in []ID) bool {
	p, ok := x.Right.(*algebra.PathPattern)
	if !ok {
		return false
	}
	b := filteredBGPOf(x.Left) // a FILTER's conjuncts moved onto the BGP (belowJoin) leave the choice as it was
	if b == nil {
		return false
	}
	anchored := func(n algebra.Node) bool { return !n.IsVar() || in[e.slot(n.Var)] != 0 }
	if anchored(p.S) == anchored(p.O) {
		return false // both ends fixed or both free: nothing to start from
	}
	bound := e.boundSet(in)
	if !e.bindsAny(b, bound) {
		return true
	}
	k := pathOrderKey{x, bound, e.activeName()}
	if first, ok := e.pathOrders[k]; ok {
		return first
	}
	e.pathOrders[k] = e.pathFirstCosted(b, p, anchored(p.S), bound)
	return e.pathOrders[k]
}

// pathOrderKey names pathFirst's choice for one join, with what the row binds, in one active graph.
type pathOrderKey struct {
	x     *algebra.Join
	bound varset
	graph ID
}

// pathFirstCosted is pathFirst's choice when the row binds a variable of the BGP: the BGP may then be a handful of
// rows (a person's reviews, inside a NOT EXISTS tested per person), each checking the path with both ends bound
// (its closure memoised per node), while starting from the path walks all of the constant's closure and runs the
// BGP from each node of it until a solution agrees with the row: h73's NOT EXISTS { ?other reviewer ?person ;
// reviewFor/type/subClassOf* <type> } walked 1 365 classes and their products' reviews for each of 1 030 persons
// (240 ms at 10 M), where each person's first few reviews answer. Starting from the path costs about its closure's
// size times the BGP's rows per closure node (the joint bound); starting from the BGP, its rows with what the row
// binds. Only closures (p*, p+) are priced, their reachable set computed (and memoised, as the path-first order
// would have computed it); other paths keep the path first.
func (e *evaluator) pathFirstCosted(b *algebra.BGP, p *algebra.PathPattern, fromS bool, bound varset) bool {
	var inner algebra.Path
	zero := false
	switch c := p.Path.(type) {
	case *algebra.PathZeroOrMore:
		inner, zero = c.Path, true
	case *algebra.PathOneOrMore:
		inner = c.Path
	default:
		return true
	}
	fixed, free := p.O, p.S // the constant (or bound) end, and the end the BGP shares
	if fromS {
		fixed, free = p.S, p.O
	}
	if !free.IsVar() {
		return true
	}
	var start ID
	if fixed.IsVar() {
		return true // bound by the row: its closure differs per row, so it is not priced
	}
	if start = e.constID(fixed.Term); start == 0 {
		return true // absent from the data: the path has at most its zero-length pair, and is the cheaper start
	}
	var err error
	reach, ok := e.reachable(inner, start, !fromS, zero, &err)
	if !ok {
		return true // over the budget: the path-first order meets the same error where it reports it
	}
	bgpRows := e.rowsEstimate(b, bound)
	perNode := e.rowsEstimate(b, bound.with(e.slot(free.Var)))
	return float64(len(reach))*max(perNode, 1) <= bgpRows
}

// narrowable reports whether op, not safe with all of in's bindings, is safe with those of its variables that op
// binds in every solution (keep), and keep is not empty: narrowedExec then substitutes only those. The others are
// the ones op mentions without binding them where it reads them, such as a variable of the outer pattern that a
// FILTER in a nested OPTIONAL reads (out of its scope, so unbound there): substituting it would change what the
// FILTER sees, but the variables op binds itself still select its solutions. Without this, one such FILTER made
// the whole OPTIONAL group around it be evaluated on its own (independent): every offer with its vendor for a
// producer's few products (h158: 3.7 s at 10 M), and each input row then scanned all of those solutions.
func (e *evaluator) narrowable(op algebra.Op, in []ID) (varset, bool) {
	if e.opt.noNarrow {
		return varset{}, false
	}
	bound := e.boundSet(in)
	if bound.over {
		return varset{}, false
	}
	keep := bound.inter(e.infoOf(op).certain)
	if keep.empty() || !e.safe(op, keep) {
		return varset{}, false
	}
	return keep, true
}

// narrowedExec pushes Join({in}, op) to emit by evaluating op with only keep's bindings of in (narrowable) and
// joining each solution with in. That is exact: a solution of op is compatible with in only if it is with in's
// keep part, and op evaluated with that part substituted (safe) gives exactly its solutions compatible with it.
func (e *evaluator) narrowedExec(op algebra.Op, in []ID, keep varset, emit emitFn, errp *error) bool {
	e.narrowRuns++
	narrow := make([]ID, len(in))
	for i, id := range in {
		if i < 64 && keep.bits&(1<<uint(i)) != 0 {
			narrow[i] = id
		}
	}
	out := make([]ID, len(in))
	return e.exec(op, narrow, func(r []ID) bool {
		if !compatible(in, r) {
			return true
		}
		for i := range out {
			out[i] = in[i] | r[i] // compatible: equal where both are bound
		}
		return emit(out)
	}, errp)
}

// independent evaluates op on its own (once per active graph, cached) and joins its solutions with in.
func (e *evaluator) independent(op algebra.Op, in []ID, emit emitFn, errp *error) bool {
	rows, ok := e.materialize(op, errp)
	if !ok {
		return false
	}
	out := make([]ID, e.nvars)
	for _, r := range rows {
		if !compatible(in, r) {
			continue
		}
		for i := range out {
			out[i] = in[i] | r[i] // compatible: equal where both are bound
		}
		if !emit(out) {
			return false
		}
	}
	return true
}

type cacheKey struct {
	op    algebra.Op
	graph ID
}

func (e *evaluator) activeName() ID {
	if len(e.active) == 1 && e.active[0].name != 0 {
		return e.active[0].name
	}
	return 0
}

// materialize returns every solution of op evaluated from an empty row in the active graph.
func (e *evaluator) materialize(op algebra.Op, errp *error) ([][]ID, bool) {
	k := cacheKey{op, e.activeName()}
	if rows, ok := e.cache[k]; ok && e.subst == 0 {
		return rows, true
	}
	var rows [][]ID
	ok := e.exec(op, e.newRow(), func(row []ID) bool {
		if err := e.hold(1); err != nil {
			*errp = err
			return false
		}
		rows = append(rows, slices.Clone(row))
		return true
	}, errp)
	if !ok && *errp != nil {
		return nil, false
	}
	if e.subst == 0 {
		e.cache[k] = rows
	}
	return rows, true
}

// minusDisjoint reports whether no left solution of x can share a variable with a right one: no variable the
// right operand mentions is mentioned by the left operand (a slot bound only by the input row is not shared: see
// the MINUS case of exec).
func (e *evaluator) minusDisjoint(x *algebra.Minus) bool {
	r := e.infoOf(x.Right).mentioned
	return !r.over && r.inter(e.infoOf(x.Left).mentioned).empty()
}

// minusIndex picks, for MINUS, a slot that every right row binds and the left operand can bind, the one with the
// most distinct ids, and groups the right rows by their id there: a left row bound there is then checked against
// its group only, not against every right row (a scan per left row made MINUS quadratic). slot is -1 when no
// slot qualifies.
func (e *evaluator) minusIndex(right [][]ID, left varset) (slot int, by map[ID][]int32) {
	slot = -1
	if len(right) < 8 {
		return slot, nil
	}
	best := 0
	for i := 0; i < e.nvars; i++ {
		if !left.over && (i >= 64 || left.bits&(1<<uint(i)) == 0) {
			continue
		}
		m := map[ID][]int32{}
		for j, r := range right {
			if r[i] == 0 {
				m = nil
				break
			}
			m[r[i]] = append(m[r[i]], int32(j))
		}
		if m != nil && len(m) > best {
			slot, by, best = i, m, len(m)
		}
	}
	return slot, by
}

func compatible(a, b []ID) bool {
	for i := range a {
		if a[i] != 0 && b[i] != 0 && a[i] != b[i] {
			return false
		}
	}
	return true
}

// shareVarOutside reports whether a and b bind a slot in common, not counting the input row's slots the left
// operand does not mention (left): a's values there come from in, not from the left operand.
func shareVarOutside(a, b, in []ID, left varset) bool {
	for i := range a {
		if a[i] != 0 && b[i] != 0 && (in[i] == 0 || left.has(i)) {
			return true
		}
	}
	return false
}

func rowKey(buf []byte, row []ID) []byte {
	buf = buf[:0]
	for _, id := range row {
		buf = binary.LittleEndian.AppendUint32(buf, id)
	}
	return buf
}

func (e *evaluator) distinct(op algebra.Op, in []ID, emit emitFn, errp *error) bool {
	add := e.distinctByKey(op, emit, errp)
	if add == nil {
		seen := map[string]struct{}{}
		var buf []byte
		add = func(row []ID) bool {
			buf = rowKey(buf, row)
			if _, dup := seen[string(buf)]; dup {
				return true
			}
			if err := e.hold(1); err != nil {
				*errp = err
				return false
			}
			seen[string(buf)] = struct{}{}
			return emit(row)
		}
	}
	if handled, ok := e.distinctRuns(op, in, add, errp); handled {
		return ok
	}
	return e.exec(op, in, add, errp)
}

// distinctRuns reads SELECT DISTINCT ?o { ?s <p> ?o } (FILTERs reading only ?o allowed) from p's rows in POS
// order, where each object's rows are adjacent: the projection hides ?s, so every row of a run projects to the
// same solution, and one per run is handed to add (with the run's first subject bound before the projection
// hides it). b44 (the ten countries of 19 000 vendors) passed each vendor through the join, the projection and
// the set: 1.7 ms at 10 M. handled is false when op is not of that form (the caller evaluates it as usual).
func (e *evaluator) distinctRuns(op algebra.Op, in []ID, add emitFn, errp *error) (handled, ok bool) {
	x, isProject := op.(*algebra.Project)
	if !isProject || e.outerGraph() == nil {
		return false, false
	}
	b, filters := runOperand(x.Op)
	if b == nil {
		return false, false
	}
	t := b.Triples[0]
	if !t.S.IsVar() || t.P.IsVar() || !t.O.IsVar() || t.S.Var == t.O.Var {
		return false, false
	}
	ss, os := e.slot(t.S.Var), e.slot(t.O.Var)
	if in[ss] != 0 || in[os] != 0 || !slices.Contains(x.Vars, t.O.Var) || slices.Contains(x.Vars, t.S.Var) {
		return false, false
	}
	var conds []algebra.Expr
	for _, f := range filters {
		conds = appendConjuncts(conds, f)
	}
	for _, c := range conds {
		if !pushable(c) || !e.varsOfExpr(c).subsetOf(varset{}.with(os)) {
			return false, false
		}
	}
	if err := e.check(); err != nil {
		*errp = err
		return true, false
	}
	p := e.constID(t.P.Term)
	if p == 0 { // the predicate is not in the data: no solutions
		return true, true
	}
	e.probes++
	m := e.active[0].g.Match(0, p, 0)
	if m.Perm != index.POS || len(m.Rows) != m.Len() {
		return false, false
	}
	row, out := slices.Clone(in), make([]ID, len(in))
	for i := 0; i < len(m.Rows); {
		o := m.Rows[i][1] // POS rows: p, o, s
		j := objectRunEnd(m, i)
		if !e.starCheck(1+(j-i)/64, errp) {
			return true, false
		}
		row[ss], row[os] = m.Rows[i][2], o
		pass := e.testAll(conds, row, errp)
		if *errp != nil {
			return true, false
		}
		if pass {
			copy(out, row)
			out[ss] = 0 // hidden by the projection, as Project clears what its operand binds and it does not keep
			if !add(out) {
				return true, *errp == nil
			}
		}
		i = j
	}
	return true, true
}

func (e *evaluator) graph(x *algebra.Graph, in []ID, emit emitFn, errp *error) bool {
	saved := e.active
	defer func() { e.active = saved }()
	// Solutions leave the GRAPH pattern: whatever consumes them (the rest of a join) runs in the outer graph.
	within := func(g []graphRef, emit emitFn) emitFn {
		return func(r []ID) bool {
			e.active = saved
			ok := emit(r)
			e.active = g
			return ok
		}
	}
	if !x.Name.IsVar() {
		id := e.t.lookup(x.Name.Term)
		g := e.ds.Named[id]
		if g == nil {
			return true
		}
		e.active = []graphRef{{g: g, name: id}}
		return e.exec(x.Op, in, within(e.active, emit), errp)
	}
	s := e.slot(x.Name.Var)
	names := make([]ID, 0, len(e.ds.Named))
	if in[s] != 0 {
		if e.ds.Named[in[s]] != nil {
			names = append(names, in[s])
		}
	} else {
		for n := range e.ds.Named {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	row := slices.Clone(in)
	for _, n := range names {
		e.active = []graphRef{{g: e.ds.Named[n], name: n}}
		row[s] = n
		// The pattern may bind the graph variable itself; it must agree with the graph's name.
		inner := within(e.active, emit)
		if !e.exec(x.Op, row, func(r []ID) bool {
			if r[s] != n {
				return true
			}
			return inner(r)
		}, errp) {
			return false
		}
	}
	return true
}

// testAll reports whether every expression of xs is true on row (errors count as false; *errp says when
// evaluation must stop).
func (e *evaluator) testAll(xs []algebra.Expr, row []ID, errp *error) bool {
	for _, x := range xs {
		if !e.test(x, row, errp) {
			return false
		}
	}
	return true
}

// test evaluates a filter expression to its effective boolean value; errors count as false.
func (e *evaluator) test(x algebra.Expr, row []ID, errp *error) bool {
	if m := e.testMemoOf(x); m != nil {
		if r, ok := m.answer(e, x, row, errp); ok {
			return r
		}
	}
	b, err := e.ebv(x, row, errp)
	return err == nil && *errp == nil && b
}

// service evaluates a SERVICE pattern through the configured client and joins its solutions with in; without a
// client (the default: no outbound calls) it is an error, or one empty solution when SILENT.
func (e *evaluator) service(x *algebra.Service, in []ID, emit emitFn, errp *error) bool {
	endpoint := x.Name.Term
	if x.Name.IsVar() {
		endpoint = e.t.term(in[e.slot(x.Name.Var)])
	}
	fail := func(err error) bool {
		if x.Silent {
			return emit(in)
		}
		*errp = err
		return false
	}
	if e.opt.Service == nil {
		return fail(ErrService)
	}
	if !endpoint.IsIRI() {
		return fail(fmt.Errorf("sparql: SERVICE needs an IRI"))
	}
	var vars []algebra.Var
	for i, v := range e.names {
		m := e.infoOf(x.Op).mentioned
		if m.over || i < 64 && m.bits&(1<<uint(i)) != 0 {
			vars = append(vars, v)
		}
	}
	names, rows, err := e.opt.Service.Query(e.ctx, endpoint.Value, x.Op, vars)
	if err != nil {
		return fail(fmt.Errorf("sparql: SERVICE <%s>: %w", endpoint.Value, err))
	}
	slots := make([]int, len(names))
	for i, n := range names {
		slots[i] = -1
		if s, ok := e.slots[algebra.Var(n)]; ok {
			slots[i] = s
		}
	}
	out := make([]ID, e.nvars)
	for _, r := range rows {
		copy(out, in)
		ok := true
		for i, t := range r {
			if t.IsZero() || slots[i] < 0 {
				continue
			}
			id := e.t.id(t)
			if out[slots[i]] != 0 && out[slots[i]] != id {
				ok = false
				break
			}
			out[slots[i]] = id
		}
		if ok && !emit(out) {
			return false
		}
	}
	return true
}

// belowBinds moves a FILTER's conjuncts that do not read any variable of the BINDs right under it (Extends) below
// them, onto the pattern the BINDs extend: FILTER(xsd:float(?price) > 9990) over three BINDs of every offer then
// drops an offer before its BINDs are computed, and over a BGP it is tested within the join (filteredBGP). A BIND
// only adds its own variable to a solution, so such a conjunct has the same value below it; conjuncts with EXISTS or
// RAND-like functions (pushable) stay where they were. It returns the rewritten operator, made once per query (the
// BINDs copied, with their marks from markDirect), or nil when nothing moves.
func (e *evaluator) belowBinds(x *algebra.Filter) algebra.Op {
	if op, ok := e.pushed[x]; ok {
		return op
	}
	if e.pushed == nil {
		e.pushed = map[*algebra.Filter]algebra.Op{}
	}
	e.pushed[x] = nil
	var chain []*algebra.Extend
	inner := x.Op
	var bound varset
	for {
		ext, ok := inner.(*algebra.Extend)
		if !ok {
			break
		}
		chain = append(chain, ext)
		bound = bound.with(e.slot(ext.Var))
		inner = ext.Op
	}
	if len(chain) == 0 {
		if _, ok := x.Op.(*algebra.Join); ok {
			if e.opt.plainJoins {
				return nil
			}
			return e.belowJoin(x)
		}
		return e.belowOptional(x)
	}
	var below, above []algebra.Expr
	var substituted varset
	for _, f := range x.Exprs {
		for _, c := range appendConjuncts(nil, f) {
			if !pushable(c) || bound.over {
				above = append(above, c)
				continue
			}
			reads := e.varsOfExpr(c).inter(bound)
			if reads.empty() {
				below = append(below, c)
				continue
			}
			// A conjunct over BINDs of cheap expressions is tested below them with the expressions in place of
			// their variables (FILTER(?y < 2010) after BIND(YEAR(?t) AS ?y) as FILTER(YEAR(?t) < 2010)), where
			// it can narrow the pattern's rows. It has the same value there: the variable holds the
			// expression's value, and where the expression has an error the variable stays unbound, and
			// reading it is an error too. BOUND, which tells the two apart, is not substituted (substExpr);
			// nor is anything when the solution coming in binds the variable already (exec).
			if sub, ok := e.substExpr(c, chain); ok && e.varsOfExpr(sub).inter(bound).empty() {
				below = append(below, sub)
				substituted = substituted.union(reads)
			} else {
				above = append(above, c)
			}
		}
	}
	if len(below) == 0 {
		return nil
	}
	if !substituted.empty() {
		if e.substVars == nil {
			e.substVars = map[*algebra.Filter]varset{}
		}
		e.substVars[x] = substituted
	}
	var op algebra.Op = &algebra.Filter{Exprs: below, Op: inner}
	for i := len(chain) - 1; i >= 0; i-- {
		c := *chain[i]
		c.Op = op
		if e.direct[chain[i]] {
			e.direct[&c] = true
		}
		if e.lowest[chain[i]] {
			e.lowest[&c] = true
		}
		op = &c
	}
	if len(above) > 0 {
		top := &algebra.Filter{Exprs: above, Op: op}
		e.pushed[top] = nil // its conjuncts have moved (or been copied) below already
		op = top
	}
	e.pushed[x] = op
	return op
}

// belowOptional moves a FILTER's conjuncts over the OPTIONAL right under it (a LeftJoin) onto its left side when
// each variable they read is either bound in every left solution or not mentioned on the right side:
// FILTER(?p1 > 200 && !BOUND(?v)) over { ?product … ; <numeric1> ?p1 OPTIONAL { … ?v } } then drops a product
// within the left side's join, right after ?p1 is read, instead of after its other patterns and its OPTIONAL (q04:
// a third of the products). A solution of the OPTIONAL is a left solution, extended or not, by values of
// variables the right side mentions and the left leaves unbound; so such a conjunct reads the same values, and has
// the same value, on both. Conjuncts reading a variable the right side may bind (BOUND of the OPTIONAL's
// variable), EXISTS and RAND-like functions (pushable) stay above. A FILTER that is an EXISTS's pattern read as a
// bitmap (optFilterOf) is left as it is. Called from belowBinds, whose memo it shares; nil when nothing moves.
func (e *evaluator) belowOptional(x *algebra.Filter) algebra.Op {
	lj, ok := x.Op.(*algebra.LeftJoin)
	if !ok || e.optFilterOf(x) != nil {
		return nil
	}
	certain, right := e.infoOf(lj.Left).certain, e.infoOf(lj.Right).mentioned
	var below, above []algebra.Expr
	for _, f := range x.Exprs {
		for _, c := range appendConjuncts(nil, f) {
			if pushable(c) && e.varsOfExpr(c).inter(right).subsetOf(certain) {
				below = append(below, c)
			} else {
				above = append(above, c)
			}
		}
	}
	if len(below) == 0 {
		return nil
	}
	return e.pushedOver(x, &algebra.LeftJoin{Left: &algebra.Filter{Exprs: below, Op: lj.Left}, Right: lj.Right, Expr: lj.Expr}, above)
}

// pushedOver records op, under a FILTER of the conjuncts left above (none: op alone), as x rewritten, and returns it.
func (e *evaluator) pushedOver(x *algebra.Filter, op algebra.Op, above []algebra.Expr) algebra.Op {
	if len(above) > 0 {
		top := &algebra.Filter{Exprs: above, Op: op}
		e.pushed[top] = nil // what could move has moved
		op = top
	}
	e.pushed[x] = op
	return op
}

// belowJoin moves a FILTER's conjuncts over the join right under it onto the side that binds every variable they
// read in each of its solutions: FILTER(?date >= … && STRSTARTS(?label, "a")) over { ?p dc:date ?date ; a ?c . ?c
// rdfs:subClassOf+ ?a . ?a rdfs:label ?label } then drops a resource by its date before its classes' closure is
// joined, and an ancestor by its label before its solutions reach the FILTER (h81 tested both on every solution of
// the whole join). A variable bound in every solution of a side has in each solution of the join the value that
// side gave it, so such a conjunct reads the same values, and has the same value, on both. Conjuncts reading
// variables of both sides, or one that a side may leave unbound, EXISTS and RAND-like functions (pushable) stay
// above; a FILTER read as an EXISTS's bitmap (optFilterOf) is left as it is. Called from belowBinds, whose memo it
// shares; nil when nothing moves.
func (e *evaluator) belowJoin(x *algebra.Filter) algebra.Op {
	j := x.Op.(*algebra.Join)
	if e.optFilterOf(x) != nil {
		return nil
	}
	left, right := e.infoOf(j.Left).certain, e.infoOf(j.Right).certain
	var toLeft, toRight, above []algebra.Expr
	for _, f := range x.Exprs {
		for _, c := range appendConjuncts(nil, f) {
			reads := e.varsOfExpr(c)
			switch {
			case !pushable(c) || reads.over || reads.empty():
				above = append(above, c)
			case reads.subsetOf(left):
				toLeft = append(toLeft, c)
			case reads.subsetOf(right):
				toRight = append(toRight, c)
			default:
				above = append(above, c)
			}
		}
	}
	if len(toLeft) == 0 && len(toRight) == 0 {
		return nil
	}
	nj := &algebra.Join{Left: j.Left, Right: j.Right}
	if len(toLeft) > 0 {
		nj.Left = &algebra.Filter{Exprs: toLeft, Op: j.Left}
	}
	if len(toRight) > 0 {
		nj.Right = &algebra.Filter{Exprs: toRight, Op: j.Right}
	}
	return e.pushedOver(x, nj, above)
}

// substExpr is x with the variables of the BINDs in chain replaced by their expressions, when each of those is
// cheap (a variable, a constant, or YEAR … MINUTES of a variable, which the dictionary's column answers), so
// that testing the copy as well as x costs little; ok is false when a replaced variable is under BOUND, or x holds
// an EXISTS or an aggregate.
func (e *evaluator) substExpr(x algebra.Expr, chain []*algebra.Extend) (algebra.Expr, bool) {
	switch v := x.(type) {
	case algebra.Var:
		for _, ext := range chain {
			if ext.Var == v {
				if !cheapExpr(ext.Expr) {
					return nil, false
				}
				return ext.Expr, true
			}
		}
		return v, true
	case algebra.Constant:
		return v, true
	case *algebra.Call:
		if v.Func == "BOUND" {
			return v, e.varsOfExpr(v).inter(e.chainVars(chain)).empty()
		}
		c := &algebra.Call{Func: v.Func, Args: make([]algebra.Expr, len(v.Args))}
		for i, a := range v.Args {
			var ok bool
			if c.Args[i], ok = e.substExpr(a, chain); !ok {
				return nil, false
			}
		}
		return c, true
	case *algebra.FunctionCall:
		c := *v
		c.Args = make([]algebra.Expr, len(v.Args))
		for i, a := range v.Args {
			var ok bool
			if c.Args[i], ok = e.substExpr(a, chain); !ok {
				return nil, false
			}
		}
		return &c, true
	case *algebra.In:
		in := &algebra.In{Not: v.Not, List: make([]algebra.Expr, len(v.List))}
		var ok bool
		if in.Expr, ok = e.substExpr(v.Expr, chain); !ok {
			return nil, false
		}
		for i, a := range v.List {
			if in.List[i], ok = e.substExpr(a, chain); !ok {
				return nil, false
			}
		}
		return in, true
	}
	return nil, false
}

// chainVars is the variables the BINDs of chain bind.
func (e *evaluator) chainVars(chain []*algebra.Extend) varset {
	var s varset
	for _, ext := range chain {
		s = s.with(e.slot(ext.Var))
	}
	return s
}

// cheapExpr reports whether x costs about what reading a variable does: a variable, a constant, YEAR … MINUTES
// of a variable (from the dictionary's column for the dates it numbers), or arithmetic and casts numberValue
// computes from the numbers held in ids (b61's xsd:integer(xsd:decimal(STR(?price)) * 100)).
func cheapExpr(x algebra.Expr) bool {
	if arithExpr(x) {
		return true
	}
	switch v := x.(type) {
	case algebra.Var, algebra.Constant:
		return true
	case *algebra.Call:
		if len(v.Args) != 1 || !slices.Contains(fieldFuncs[:], v.Func) {
			return false
		}
		_, isVar := v.Args[0].(algebra.Var)
		return isVar
	}
	return false
}

// tableIDs are a VALUES's variables' slots and its rows' ids (0 for UNDEF), looked up once per query: a VALUES
// joined after another pattern is evaluated once per outer solution (h136: four rows for each of 290 000 reviews
// at 10 M), and looking its terms up by their strings took a sixth of the query's CPU.
type tableIDs struct {
	slots []int
	ids   [][]ID
}

// tableIDsOf is x's tableIDs.
func (e *evaluator) tableIDsOf(x *algebra.Table) *tableIDs {
	if tab := e.tables[x]; tab != nil {
		return tab
	}
	tab := &tableIDs{slots: make([]int, len(x.Vars)), ids: make([][]ID, len(x.Rows))}
	for i, v := range x.Vars {
		tab.slots[i] = e.slot(v)
	}
	for r, tr := range x.Rows {
		tab.ids[r] = make([]ID, len(x.Vars))
		for i := range x.Vars {
			if !tr[i].IsZero() {
				tab.ids[r][i] = e.t.id(tr[i])
			}
		}
	}
	if e.tables == nil {
		e.tables = map[*algebra.Table]*tableIDs{}
	}
	e.tables[x] = tab
	return tab
}
