package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"slices"
)

// A VALUES joined to a BGP (`VALUES (?country ?lang) {…} ?reviewer country ?country . ?review reviewer ?reviewer ;
// title ?title`, h15) is evaluated per VALUES row: the BGP with the row's values bound, reaching the reviews
// through their reviewers, each review's title a probe far from the one before (four cache misses a review). Where
// the BGP's triples that read no VALUES variable share only variables of the others (here ?reviewer), they are a
// BGP of their own, evaluated once with nothing bound in its own index order, and the VALUES joined to the other
// triples is the small side: a hash join (hashjoin.go) whose table is the VALUES rows joined to the triples that
// read them, keyed by the shared variables, and whose probe side is the rest. Join(T, BGP) is Join(Join(T, S1), S2)
// for any split of the BGP's triples into S1 and S2, and S2 shares with T ⋈ S1 exactly the variables of S1 it
// mentions, so the answers are the bind join's; only their order differs, which no operator above relies on.

// valuesHashMin is the bind join's price under which valuesHashPlan does not price the hash join: the whole join
// is then a few thousand probes, and planning the two sides cost more than any gain (h09: 4 500 units, 0.3 ms).
const valuesHashMin = 1 << 16

// valuesHashPlan returns the hash join that evaluates x (a VALUES joined to a BGP) with nothing bound, or nil when
// x has another shape or the planner prices the bind join lower.
func (e *evaluator) valuesHashPlan(x *algebra.Join, in []ID) *hashPlan {
	if _, ok := x.Left.(*algebra.Table); !ok || e.opt.hashJoin < 0 || e.trial != nil || e.subst != 0 {
		return nil
	}
	for _, id := range in {
		if id != 0 {
			return nil
		}
	}
	if h, ok := e.valuesJoins[x]; ok {
		return h
	}
	h := e.makeValuesHashPlan(x)
	if e.valuesJoins == nil {
		e.valuesJoins = map[*algebra.Join]*hashPlan{}
	}
	e.valuesJoins[x] = h
	return h
}

func (e *evaluator) makeValuesHashPlan(x *algebra.Join) *hashPlan {
	t, ok := x.Left.(*algebra.Table)
	if !ok || len(t.Rows) == 0 {
		return nil
	}
	b, ok := x.Right.(*algebra.BGP)
	if !ok || len(b.Triples) < 2 || e.limitedLeaf(b) {
		return nil
	}
	var tv varset
	for _, v := range t.Vars {
		tv = tv.with(e.slot(v))
	}
	var s1, s2 []algebra.Triple
	var v1, v2 varset
	for _, tr := range b.Triples {
		v := e.nodeVars(tr.S, tr.P, tr.O)
		if v.inter(tv).empty() {
			s2, v2 = append(s2, tr), v2.union(v)
		} else {
			s1, v1 = append(s1, tr), v1.union(v)
		}
	}
	if len(s1) == 0 || len(s2) == 0 || tv.over || v1.over || v2.over {
		return nil
	}
	shared := v1.inter(v2)
	keys := shared.bits2slots()
	if len(keys) == 0 || len(keys) > maxHashKeys {
		return nil
	}
	build, probe := &algebra.BGP{Triples: s1}, &algebra.BGP{Triples: s2}
	// Prices in planCost's units: the bind join is the BGP planned per VALUES row with the row's variables bound;
	// the hash join the triples reading the VALUES planned so per row, the others once with nothing bound, a kept
	// solution and a lookup each. The hash join is taken when it is priced lower, without the two stars' margin
	// of a half (hashJoinPlan): its probe side is read in its own order, whose near probes planCost prices already,
	// while the bind join's far probes per VALUES row are what it prices high (h15: 2.50 M against 2.85 M, and 2.3×
	// less CPU measured). And only where the bind join is expected to reach a quarter of the probe side's solutions
	// or more (h15: 151 000 of 290 000 expected, 104 000 measured): reading all of them is then at most four times
	// the rows, in order; where it reaches a few, the estimates that price them are the least sure. The other VALUES
	// queries of the benchmarks price the hash join 0.9 to 1 300 times higher.
	rows := float64(len(t.Rows))
	_, pb := e.preparedBGP(b, nil, tv)
	nested, out := e.planCostRows(b, pb.order, tv, pb.scan, true, true, -1)
	if e.opt.hashJoin == 0 && rows*nested < valuesHashMin {
		return nil
	}
	_, p1 := e.preparedBGP(build, nil, tv)
	c1, r1 := e.planCostRows(build, p1.order, tv, p1.scan, true, true, -1)
	_, p2 := e.preparedBGP(probe, nil, varset{})
	c2, r2 := e.planCostRows(probe, p2.order, varset{}, p2.scan, true, true, -1)
	hash := rows*(c1+r1*hashBuildCost) + c2 + r2*hashProbeCost
	if e.opt.hashJoin == 0 && (hash >= rows*nested || r2 > 4*rows*out || rows*r1*float64(hashRowBytes(len(v1.union(tv).bits2slots()))) > float64(e.opt.MaxMemory)/4) {
		return nil
	}
	h := &hashPlan{build: hashSide{x: build, table: t}, probe: hashSide{x: probe}, keys: keys}
	for _, s := range v1.union(tv).bits2slots() {
		if !shared.has(s) {
			h.build.vals = append(h.build.vals, s)
		}
	}
	return h
}

// A VALUES written after the patterns it narrows (`?offer bsbm:product ?product ; bsbm:deliveryDays ?days … VALUES
// (?product ?days) { six rows }`, h106) is the right operand of the join: the BGP was evaluated with nothing bound,
// every offer of every product, and each solution then met the VALUES rows (4 s of CPU at 10 M). The join is
// commutative (its solutions are the same multiset either way; only their order, which nothing above a join relies
// on, differs), so it is evaluated as the VALUES joined to the BGP, as when the VALUES comes first: the BGP per
// VALUES row with the row's values bound, or the hash join valuesHashPlan prices lower.

// valuesFirst returns x with its operands swapped (made once per join) when x joins a BGP, or a FILTER over one, to
// a VALUES sharing a variable with it, else nil.
func (e *evaluator) valuesFirst(x *algebra.Join) *algebra.Join {
	if v, ok := e.valuesLast[x]; ok {
		return v
	}
	var v *algebra.Join
	t, isTable := x.Right.(*algebra.Table)
	left := x.Left
	if f, ok := left.(*algebra.Filter); ok {
		left = f.Op
	}
	if _, isBGP := left.(*algebra.BGP); isTable && isBGP && len(t.Rows) > 0 {
		tv := e.infoOf(t).mentioned
		if bv := e.infoOf(x.Left).mentioned; !tv.over && !bv.over && !tv.inter(bv).empty() {
			v = &algebra.Join{Left: t, Right: x.Left}
		}
	}
	if v == nil {
		v = e.valuesBetween(x)
	}
	if e.valuesLast == nil {
		e.valuesLast = map[*algebra.Join]*algebra.Join{}
	}
	e.valuesLast[x] = v
	return v
}

// valuesBetween returns, for a VALUES written between two runs of triples, `{ A VALUES … B }` (x = Join(Join(A,
// VALUES), B)), that shares no variable with A but some with B, the VALUES joined to one BGP of A's and B's
// patterns; else nil. As written, the VALUES is a cross product with A's solutions, and B is evaluated for each
// of them once per VALUES row (h136: four rows with UNDEF in different columns, for each of 290 000 reviews at
// 10 M); the BGP per VALUES row instead starts from the values the row binds. A join is associative and
// commutative as a bag of solutions, and a BGP's solutions are the join of its patterns', so the solutions are
// the same.
func (e *evaluator) valuesBetween(x *algebra.Join) *algebra.Join {
	if e.opt.plainJoins {
		return nil
	}
	j, ok := x.Left.(*algebra.Join)
	if !ok {
		return nil
	}
	a, okA := j.Left.(*algebra.BGP)
	t, okT := j.Right.(*algebra.Table)
	b, okB := x.Right.(*algebra.BGP)
	if !okA || !okT || !okB || len(t.Rows) == 0 {
		return nil
	}
	tv, av, bv := e.infoOf(t).mentioned, e.infoOf(a).mentioned, e.infoOf(b).mentioned
	if tv.over || av.over || bv.over || !tv.inter(av).empty() || tv.inter(bv).empty() {
		return nil
	}
	both := &algebra.BGP{Triples: append(slices.Clone(a.Triples), b.Triples...)}
	return &algebra.Join{Left: t, Right: both}
}
