package eval

import (
	"math/bits"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A BGP of two stars, each on a subject variable the other does not mention, that share other variables (h27:
// `?o1 product ?p ; vendor ?v . ?o2 product ?p ; vendor ?v`) is a join the bind join serves badly: whatever order
// it takes, the second star is reached through a shared object, so each solution of the first star probes every
// subject with that object (each offer meets its product's 20 offers before their vendors are read). A hash join
// evaluates each star once, on its own, keeps the smaller one's solutions in a table keyed by the shared
// variables and looks each solution of the other up in it: every star's row is read once, in its own index order.
// The planner takes it when planCost prices the two stars, the table and the join's solutions at less than half of
// the bind join's order (the margin plan gives a subject scan: the model is coarse).

// starSplit is x's triples as two stars (split), made once per BGP; its sides are BGPs of their own, so each is
// planned and evaluated as any BGP is.
type starSplit struct {
	side [2]*algebra.BGP
	vars [2]varset // the variables each side binds
	keys []int     // the shared variables' slots, in slot order
}

// hashSide is a hash join's plan for one side: its BGP and the FILTER conjuncts it tests itself.
type hashSide struct {
	x       *algebra.BGP
	table   *algebra.Table // build side of a VALUES joined to a BGP (valuesjoin.go): x evaluated per row of table
	filters []algebra.Expr
	vals    []int // build side: the slots it binds besides the keys
}

// hashPlan is prepareBGP's choice of a hash join: the side whose solutions are kept, the side looked up, and the
// FILTER conjuncts that read both, tested on each joined solution.
type hashPlan struct {
	build, probe hashSide
	keys         []int
	joint        []algebra.Expr
}

// maxHashKeys is the most variables a hash join joins on (hashJoin's key array).
const maxHashKeys = 8

// hashBuildCost and hashProbeCost are what planCost's units charge a hash join for keeping one solution (its ids
// copied, a slot of the table written) and for looking one up (a hash and, mostly, a cache miss into the table):
// about one and a half and one near probe.
const (
	hashBuildCost = 1.5
	hashProbeCost = 1
)

// split returns x's triples as two stars, or two sets of stars linked by their subjects, joined on variables that
// are no subject on either side, or nil.
func (e *evaluator) split(x *algebra.BGP) *starSplit {
	if s, ok := e.splits[x]; ok {
		return s
	}
	s := e.makeSplit(x)
	if e.splits == nil {
		e.splits = map[*algebra.BGP]*starSplit{}
	}
	e.splits[x] = s
	return s
}

func (e *evaluator) makeSplit(x *algebra.BGP) *starSplit {
	n := len(x.Triples)
	if n < 2 || n > 8 {
		return nil
	}
	// The triples by subject (a variable's slot, or -1-id for a constant), and the groups linked where one's
	// subject is a variable of the other: the bind join reaches a linked group by its subject, a probe of one
	// place. Two sets of linked groups that share only other variables are what a hash join joins.
	var subjects []int64
	var subj, vars []varset
	group := make([]int, n)
	for i, t := range x.Triples {
		var k int64
		var sv varset
		if t.S.IsVar() {
			k = int64(e.slot(t.S.Var))
			sv = sv.with(int(k))
		} else {
			id := e.constID(t.S.Term)
			if id == 0 {
				return nil
			}
			k = -1 - int64(id)
		}
		g := slices.Index(subjects, k)
		if g < 0 {
			g = len(subjects)
			subjects, subj, vars = append(subjects, k), append(subj, sv), append(vars, varset{})
		}
		group[i] = g
		vars[g] = vars[g].union(e.nodeVars(t.S, t.P, t.O))
	}
	root := make([]int, len(subjects))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			i = root[i]
		}
		return i
	}
	for a := range subjects {
		for b := range subjects {
			if a != b && !subj[a].empty() && subj[a].subsetOf(vars[b]) {
				root[find(a)] = find(b)
			}
		}
	}
	var sides []int // the two sets' roots
	for g := range subjects {
		if r := find(g); !slices.Contains(sides, r) {
			sides = append(sides, r)
		}
	}
	if len(sides) != 2 {
		return nil
	}
	var parts [2][]algebra.Triple
	var vs [2]varset
	for i, t := range x.Triples {
		side := 0
		if find(group[i]) == sides[1] {
			side = 1
		}
		parts[side] = append(parts[side], t)
		vs[side] = vs[side].union(vars[group[i]])
	}
	shared := vs[0].inter(vs[1])
	if vs[0].over || vs[1].over || shared.empty() {
		return nil
	}
	sp := &starSplit{vars: vs}
	for i := range parts {
		sp.side[i] = &algebra.BGP{Triples: parts[i]}
	}
	sp.keys = shared.bits2slots()
	if len(sp.keys) > maxHashKeys {
		return nil
	}
	return sp
}

// hashJoinPlan decides, for prepareBGP, whether x with nothing bound is evaluated as a hash join of its two stars:
// conj are the pushable FILTER conjuncts over x that it binds all the variables of (prepareBGP's checks), order,
// scan and key the bind join's plan. nil: the bind join.
func (e *evaluator) hashJoinPlan(x *algebra.BGP, conj []algebra.Expr, bound varset, order []int, scan scanMode, key int) *hashPlan {
	if e.opt.hashJoin < 0 || !bound.empty() || e.limitedLeaf(x) {
		return nil
	}
	sp := e.split(x)
	if sp == nil {
		return nil
	}
	var sides [2]hashSide
	var joint []algebra.Expr
	for _, c := range conj {
		v := e.varsOfExpr(c)
		switch {
		case v.subsetOf(sp.vars[0]):
			sides[0].filters = append(sides[0].filters, c)
		case v.subsetOf(sp.vars[1]):
			sides[1].filters = append(sides[1].filters, c)
		default:
			joint = append(joint, c)
		}
	}
	var cost, rows [2]float64
	for i := range sides {
		sides[i].x = sp.side[i]
		_, p := e.preparedBGP(sp.side[i], sides[i].filters, bound)
		cost[i], rows[i] = e.planCostRows(sp.side[i], p.order, bound, p.scan, true, true, -1)
	}
	b := 0 // the side kept in the table: the one with fewer solutions
	if rows[1] < rows[0] {
		b = 1
	}
	nested, out := e.planCostRows(x, order, bound, scan, true, true, key)
	hash := cost[0] + cost[1] + rows[b]*hashBuildCost + rows[1-b]*hashProbeCost + out
	if e.opt.hashJoin == 0 && (hash >= nested/2 || rows[b]*float64(hashRowBytes(len(sp.vars[b].bits2slots()))) > float64(e.opt.MaxMemory)/4) {
		return nil
	}
	h := &hashPlan{build: sides[b], probe: sides[1-b], keys: sp.keys, joint: joint}
	for _, s := range sp.vars[b].bits2slots() {
		if !slices.Contains(sp.keys, s) {
			h.build.vals = append(h.build.vals, s)
		}
	}
	return h
}

// bits2slots lists the slots in s (which must not be over).
func (s varset) bits2slots() []int {
	var out []int
	for b := s.bits; b != 0; b &= b - 1 {
		out = append(out, bits.TrailingZeros64(b))
	}
	return out
}

// hashRowBytes is what a build row of n ids costs the budget: the ids (twice, for the slice's growth), its link in
// the chain of its key and its share of the table's slots (up to four per row).
func hashRowBytes(n int) int64 { return int64(8*n) + 4 + 16 }

// hashJoin evaluates h: the build side's solutions into a table keyed by h.keys, then each of the probe side's
// solutions joined with those of its key. The solutions come in the probe side's order, and within one probe
// solution in the order the build side produced them. done false: the table would pass the query's memory budget
// or its MaxRows, nothing was emitted, evaluate as usual.
func (e *evaluator) hashJoin(h *hashPlan, in []ID, emit emitFn, errp *error) (done, cont bool) {
	nk, nv := len(h.keys), len(h.build.vals)
	w := nk + nv
	var ids []ID   // per build solution: its keys, then its other values
	var held int64 // bytes charged
	heldRows := 0
	over := false
	keep := func(row []ID) bool {
		for _, s := range h.keys {
			ids = append(ids, row[s])
		}
		for _, s := range h.build.vals {
			ids = append(ids, row[s])
		}
		// The table holds rows as a materialised operand does: counted against MaxRows as well as MaxMemory.
		if n := len(ids) / w; n&1023 == 1 {
			more := int64(1024) * hashRowBytes(w)
			if e.held+heldRows+1024 > e.opt.MaxRows || !e.charge(more) {
				over = true
				return false
			}
			held += more
			heldRows += 1024
		}
		return true
	}
	var ok bool
	if h.build.table != nil {
		ok = e.execOp(h.build.table, in, func(row []ID) bool {
			return e.filteredBGP(h.build.x, h.build.filters, row, keep, errp)
		}, errp)
	} else {
		ok = e.filteredBGP(h.build.x, h.build.filters, in, keep, errp)
	}
	if over {
		e.bytes -= held
		if e.opt.onHashJoin != nil {
			e.opt.onHashJoin(false)
		}
		return false, false
	}
	e.held += heldRows
	defer func() { e.bytes -= held; e.held -= heldRows }()
	if !ok || *errp != nil {
		return true, false
	}
	if e.opt.onHashJoin != nil {
		e.opt.onHashJoin(true)
	}
	n := len(ids) / w
	if n == 0 {
		return true, true
	}
	// Open addressing over the keys' hash: slots[i] is the last build row (+1) of one key, next links each row to
	// the one of the same key before it. Rows are linked in reverse, so a key's rows are read back from a list in
	// their own order (rev).
	size := 1 << bits.Len(uint(2*n-1))
	mask := uint64(size - 1)
	slots := make([]int32, size)
	next := make([]int32, n)
	for r := range n {
		k := ids[r*w : r*w+nk]
		i := hashIDs(k) & mask
		for {
			head := slots[i]
			if head == 0 {
				next[r] = -1
				slots[i] = int32(r + 1)
				break
			}
			if slices.Equal(ids[int(head-1)*w:int(head-1)*w+nk], k) {
				next[r] = head - 1
				slots[i] = int32(r + 1)
				break
			}
			i = (i + 1) & mask
		}
	}
	var chain []int32
	var key [maxHashKeys]ID
	ok = e.filteredBGP(h.probe.x, h.probe.filters, in, func(row []ID) bool {
		k := key[:nk]
		for j, s := range h.keys {
			k[j] = row[s]
		}
		i := hashIDs(k) & mask
		head := int32(0)
		for {
			head = slots[i]
			if head == 0 || slices.Equal(ids[int(head-1)*w:int(head-1)*w+nk], k) {
				break
			}
			i = (i + 1) & mask
		}
		if head == 0 {
			return true
		}
		chain = chain[:0]
		for r := head - 1; r >= 0; r = next[r] {
			chain = append(chain, r)
		}
		for c := len(chain) - 1; c >= 0; c-- {
			if e.steps++; e.steps >= e.nextCheck {
				if err := e.interrupted(); err != nil {
					*errp = err
					return false
				}
			}
			v := ids[int(chain[c])*w+nk : int(chain[c]+1)*w]
			for j, s := range h.build.vals {
				row[s] = v[j]
			}
			if !e.testAll(h.joint, row, errp) {
				if *errp != nil {
					clearSlots(row, h.build.vals)
					return false
				}
				continue
			}
			if !emit(row) || *errp != nil {
				clearSlots(row, h.build.vals)
				return false
			}
		}
		clearSlots(row, h.build.vals)
		return true
	}, errp)
	return true, ok && *errp == nil
}

func clearSlots(row []ID, slots []int) {
	for _, s := range slots {
		row[s] = 0
	}
}

func hashIDs(k []ID) uint64 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, id := range k {
		h = (h ^ uint64(id)) * 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	return h
}
