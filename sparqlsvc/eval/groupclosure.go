package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY over a closure joined with every solution of another pattern (v28a: `?offer bsbm:product ?p . ?p a
// ?leaf . ?leaf rdfs:subClassOf+ ?type` GROUP BY ?type COUNT(?offer)) met each solution of the pattern once per node
// of its join node's closure: 570 000 offers at 10 M became 2.3 million solutions, each a path lookup and a group's
// update. groupClosure counts the pattern's solutions per join node first and then walks each join node's closure
// once, adding the node's count to the group of each pair the path gives (eager aggregation).
//
// Why it is exact. Let the operand be Join(B, P) with P the path pattern `?j path ?f` (or `?f path ?j`), ?j bound in
// every solution of B and ?f not in B. A solution μ of B and a pair ν of P are compatible exactly when ν(?j) = μ(?j),
// and their merge binds the variables of μ and ?f = ν(?f); as multisets, the join holds card(μ)·card(ν) copies of it.
// When the group's keys and aggregates read nothing but ?j and ?f, except COUNT(*) and COUNT(?v) (not DISTINCT) with
// ?v bound in every solution of the join (?v certain in B, or ?j, or ?f), which count solutions and read no value, the
// merged solutions of one μ and one ν are alike to the group, and each group receives Σ over the join nodes a of
// count_B(a) · Σ over the pairs ν of P from a (with their multiplicity) of one solution for ν: groupState.add's n. P is
// evaluated from a bound ?j as the join evaluates it per solution of B, so the pairs are those the join meets, in
// the same multiplicity: a closure gives every node reachable from a once (§18.5 ALP, set semantics), however many
// paths reach it, so a node reached by a diamond or a cycle adds count_B(a) once. Aggregates that ignore how many
// times a value comes (COUNT(DISTINCT ?f), MIN/MAX/SAMPLE of ?j or ?f) and SUM/AVG of expressions over ?j and ?f
// are exact too, through accumulateN. Keys or aggregates that read another variable of B, COUNT(DISTINCT *) or an
// expression that may differ per call leave the group to the join.
//
// Taken only for closures (p*, p+, p?): their pairs from one start are memoised already, so walking them once per
// join node costs no more than the join's own walks, and B's count per join node costs a group of its own
// (groupRuns when B is one pattern).

// closureGroup is a group's operand seen as Join(B, P) by groupClosure: B, P, the slots of P's join end and far
// end, the group whose solutions are counted once the COUNTs of certain variables read no value (counts), and B
// counted per join node (inner).
type closureGroup struct {
	b      algebra.Op
	p      *algebra.PathPattern
	js, fs int
	counts *algebra.Group
	inner  *algebra.Group
	// When B is a BGP with a pattern `?v <p> ?u` whose ?v no other pattern mentions, B's solutions with ?u = o are
	// the rest's with ?u = o, each as many times as the pattern has rows with object o: the pattern's rows are read
	// in object order (POS), a run of equal objects at a time, and the rest evaluated once per run. v28a's
	// `?offer bsbm:product ?p` becomes one evaluation of `?p a ?leaf` per product, not one per offer.
	rest   *algebra.BGP
	one    algebra.Triple
	us, vs int
}

// closureGroupOf returns x's closureGroup, made once per query, or nil when x is not of that shape.
func (e *evaluator) closureGroupOf(x *algebra.Group) *closureGroup {
	return madeOnce(&e.pathGroups, x, func() *closureGroup { return e.makeClosureGroup(x) })
}

// makeClosureGroup is closureGroupOf's work: the shape the comment above proves exact, else nil.
func (e *evaluator) makeClosureGroup(x *algebra.Group) *closureGroup {
	j, ok := x.Op.(*algebra.Join)
	if !ok {
		return nil
	}
	b, p := j.Left, j.Right
	pp, ok := p.(*algebra.PathPattern)
	if !ok {
		b, p = j.Right, j.Left
		if pp, ok = p.(*algebra.PathPattern); !ok {
			return nil
		}
	}
	switch pp.Path.(type) {
	case *algebra.PathZeroOrMore, *algebra.PathOneOrMore, *algebra.PathZeroOrOne:
	default:
		return nil
	}
	if !pp.S.IsVar() || !pp.O.IsVar() || pp.S.Var == pp.O.Var {
		return nil
	}
	info := e.infoOf(b)
	if info.certain.over || info.mentioned.over {
		return nil
	}
	ss, os := e.slot(pp.S.Var), e.slot(pp.O.Var)
	c := &closureGroup{b: b, p: pp}
	var jv algebra.Var
	switch {
	case info.certain.has(ss) && !info.mentioned.has(os):
		c.js, c.fs, jv = ss, os, pp.S.Var
	case info.certain.has(os) && !info.mentioned.has(ss):
		c.js, c.fs, jv = os, ss, pp.O.Var
	default:
		return nil
	}
	ends := varset{}.with(c.js).with(c.fs)
	if ends.over {
		return nil
	}
	certain := info.certain.union(ends)
	counted := func(a *algebra.Aggregate) bool {
		v, isVar := a.Expr.(algebra.Var)
		return isVar && a.Name == "COUNT" && !a.Distinct && certain.has(e.slot(v))
	}
	if !e.groupReadsSkipping(x, counted).subsetOf(ends) {
		return nil
	}
	// The COUNTs of certain variables become COUNT(*): add reads no value for them (a COUNT's state and value are
	// the same either way), and the rows groupClosure adds bind only ?j and ?f.
	cx := *x
	cx.Aggregates = slices.Clone(x.Aggregates)
	for i, a := range cx.Aggregates {
		if counted(a.Aggregate) {
			cx.Aggregates[i].Aggregate = &algebra.Aggregate{Name: "COUNT"}
		}
	}
	c.counts = &cx
	if bgp, ok := b.(*algebra.BGP); ok {
		c.countedPattern(e, bgp)
	}
	c.inner = &algebra.Group{Op: b, Keys: []algebra.GroupKey{{Var: jv, Expr: jv}},
		Aggregates: []algebra.AggregateBinding{{Aggregate: &algebra.Aggregate{Name: "COUNT"}}}}
	return c
}

// countedPattern sets c.rest and the pattern it leaves out when bgp has one as closureGroup says.
func (c *closureGroup) countedPattern(e *evaluator, bgp *algebra.BGP) {
	uses := map[algebra.Var]int{}
	for _, t := range bgp.Triples {
		for _, n := range [3]algebra.Node{t.S, t.P, t.O} {
			if n.IsVar() {
				uses[n.Var]++
			}
		}
	}
	for k, t := range bgp.Triples {
		if t.P.IsVar() || !t.S.IsVar() || !t.O.IsVar() || t.S.Var == t.O.Var {
			continue
		}
		// ?v (the subject) in this pattern alone; ?u also in another, so each solution of the rest binds it.
		v, u := t.S.Var, t.O.Var
		if uses[v] != 1 || uses[u] < 2 || e.slot(v) == c.js {
			continue
		}
		c.rest, c.one, c.us, c.vs = &algebra.BGP{Triples: slices.Delete(slices.Clone(bgp.Triples), k, k+1)}, t, e.slot(u), e.slot(v)
		return
	}
}

// countB counts c.b's solutions per join node into bs; false when evaluation must stop.
func (e *evaluator) countB(c *closureGroup, in []ID, bs *groupState, errp *error) bool {
	if c.rest == nil || in[c.vs] != 0 || in[c.us] != 0 {
		handled, ok := e.groupRuns(c.inner, in, bs, errp)
		if !handled {
			ok = e.exec(c.b, in, func(row []ID) bool { return bs.add(row, 1, errp) }, errp)
		}
		return ok
	}
	p := e.constID(c.one.P.Term)
	if p == 0 { // the predicate is not in the data: no solutions
		return true
	}
	m := e.active[0].g.Match(0, p, 0)
	if m.Perm != index.POS {
		handled, ok := e.groupRuns(c.inner, in, bs, errp)
		if !handled {
			ok = e.exec(c.b, in, func(row []ID) bool { return bs.add(row, 1, errp) }, errp)
		}
		return ok
	}
	row := slices.Clone(in)
	for i := 0; i < len(m.Rows); {
		o, j := m.Rows[i][1], i+1
		for j < len(m.Rows) && m.Rows[j][1] == o {
			j++
		}
		n := int64(j - i)
		row[c.us] = o
		if !e.exec(c.rest, row, func(r []ID) bool { return bs.add(r, n, errp) }, errp) {
			return false
		}
		i = j
	}
	return true
}

// groupClosure groups x's operand into gs as the comment above says when it has that shape; handled is false when
// it does not (the caller evaluates it as usual), ok is false when evaluation must stop.
func (e *evaluator) groupClosure(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	if e.subst > 0 || e.trial != nil || e.ownGraph() == nil {
		return false, false
	}
	c := e.closureGroupOf(x)
	if c == nil || in[c.js] != 0 || in[c.fs] != 0 {
		return false, false
	}
	// B counted per join node, in a group of its own: its order is the order the join nodes are first met.
	bs := e.newGroupState(c.inner)
	if !e.countB(c, in, bs, errp) {
		return true, false
	}
	gs.x = c.counts // same keys, and COUNTs whose states and values are those of x's
	defer func() { gs.x = x }()
	nodes := bs.order
	walk := func(w *evaluator, wgs *groupState, row []ID) func(from, to int, errp *error) bool {
		return func(from, to int, errp *error) bool {
			for _, b := range nodes[from:to] {
				row[c.js] = b.key[0]
				n := b.aggs[0].n
				if !w.pathPattern(c.p, row, func(r []ID) bool { return wgs.add(r, n, errp) }, errp) {
					return false
				}
			}
			return true
		}
	}
	here := walk(e, gs, slices.Clone(in))
	if !e.splitMergeable(c.counts) {
		return true, here(0, len(nodes), errp)
	}
	// Each join node's walk is its own (the path's memo and the closures' sets are an evaluator's), and one walk
	// may cost many probes (v28d: `?r (^rev:reviewer/rev:reviewer)? ?x` reads the ~20 reviews of each of 14 700
	// reviewers, 190 ms on one goroutine at 10 M): the nodes are split in two halves as groupSplit splits rows,
	// the worker's groups merged after the query's, in their order. Timed in chunks of closureChunk nodes.
	return true, e.groupHalves(c.counts, gs, len(nodes), 4*closureChunk, closureChunk, splitRowCost, func(k int) int { return k },
		func(from, to int) bool { return here(from, to, errp) },
		func(w *evaluator, wgs *groupState) func(from, to int, errp *error) bool {
			return walk(w, wgs, slices.Clone(in))
		}, errp)
}

// closureChunk is the fewest join nodes of groupClosure's chunk: the timed probe is four of them or more.
const closureChunk = 256
