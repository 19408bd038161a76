package eval

import (
	"cmp"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A GROUP BY whose key is an attribute of an entity the solutions reach through a hop (h53: `?offer bsbm:vendor
// ?vendor ; bsbm:deliveryDays ?days ; bsbm:price ?price . ?vendor bsbm:country ?country` GROUP BY ?country ?days
// with COUNT and AVG(?price)) met every offer through the join on two cores: two probes of the star per offer, a
// probe of the hop per offer, 850 ms of CPU at 10 M. groupHop reads the star in subject order in one merge loop
// (starGroup, as groupOptStars reads a star with OPTIONALs) and joins each of its solutions with the rest of the
// pattern through a table of the rest's solutions per value of the join variables, each evaluated once, when a
// value first comes (a few thousand vendors for 570 000 offers).
//
// Why it is exact. Let the operand be the BGP S ∪ R (or a FILTER over it) where S is the star of patterns on one
// subject variable ?s and R the rest, J = vars(S) ∩ vars(R) not empty and without ?s. A solution μ of S and ν of R
// are compatible exactly when they agree on J, and the BGP's solutions are their merges, once per pair (multiset
// join: a vendor with two countries counts its offers twice, one with none not at all). R evaluated with J bound
// to μ's values gives exactly the ν compatible with μ, each as often as R has it. A FILTER conjunct that reads only
// S's or only R's variables (all bound in a BGP's solutions) is evaluated on that side. The star's solutions come
// as groupOptStars hands them (equal ones in the variables read, J among them, taken together with their count),
// so the group receives every solution of the join, with R's variables bound; any keys and aggregates may read
// them.
//
// A partial aggregation (S grouped per J and S's keys first, the partial groups' states merged per solution of R)
// was tried first: at 10 M the partial groups of (vendor, days) are 58 000, and updating them cost more than the
// few hundred final groups of (country, days) each star solution goes to here.

// hopGroup is a group's operand seen by groupHop: the star S (star, a BGP or a FILTER over one), R (rest), the slots
// of J (js) and of R's other variables (rs), and every variable of the operand (which must come in unbound).
type hopGroup struct {
	star, rest algebra.Op
	js, rs     []int
	j, vars    varset
	// tags are the star's patterns with a constant object (q09's `?offer a bsbm:Offer`): each keeps the subjects
	// it holds, one solution each (a graph holds a triple once), so the star's solutions are those of its other
	// patterns on the subjects every tag holds.
	tags []algebra.Triple
	// triples are the star's patterns besides the tags; narrowed is set when a FILTER conjunct or a tag keeps only
	// some of its subjects (hopPrefill then leaves the rest to be evaluated per value that comes).
	triples  []algebra.Triple
	narrowed bool
}

// hopGroupOf returns x's hopGroup, made once per query, or nil when x is not of that shape.
func (e *evaluator) hopGroupOf(x *algebra.Group) *hopGroup {
	return madeOnce(&e.hopGroups, x, func() *hopGroup { return e.makeHopGroup(x, true) })
}

// makeHopGroup is hopGroupOf's work: the shape the comment above proves exact, else nil. The star's subject is
// the subject variable with the most patterns for which the split holds. priced: the split must also pass
// groupHop's rules of cost (hopPays, restFromJ, restNarrows); hopFirst, which starts from R, has its own.
func (e *evaluator) makeHopGroup(x *algebra.Group, priced bool) *hopGroup {
	if e.groupReads(x).over {
		return nil
	}
	op := x.Op
	// OPTIONALs over the BGP, innermost first: each may join the star (hopSplit says when).
	var opts []*algebra.LeftJoin
	for lj, ok := op.(*algebra.LeftJoin); ok; lj, ok = op.(*algebra.LeftJoin) {
		opts = append(opts, lj)
		op = lj.Left
	}
	slices.Reverse(opts)
	var conds []algebra.Expr
	if f, ok := op.(*algebra.Filter); ok {
		for _, c := range f.Exprs {
			conds = appendConjuncts(conds, c)
		}
		op = f.Op
	}
	b, ok := op.(*algebra.BGP)
	if !ok || len(b.Triples) < 2 {
		return nil
	}
	uses := map[algebra.Var]int{}
	for _, t := range b.Triples {
		if t.P.IsVar() {
			return nil
		}
		if t.S.IsVar() {
			uses[t.S.Var]++
		}
	}
	subjects := make([]algebra.Var, 0, len(uses))
	for v := range uses {
		subjects = append(subjects, v)
	}
	slices.SortFunc(subjects, func(a, b algebra.Var) int { return cmp.Or(uses[b]-uses[a], cmp.Compare(a, b)) })
	for _, s := range subjects {
		if h := e.hopSplit(x, b, conds, opts, s, priced); h != nil {
			return h
		}
	}
	return nil
}

// hopSplit returns the hopGroup with S the patterns of b on subject s, or nil when that split does not hold (or,
// priced, does not pay as groupHop).
func (e *evaluator) hopSplit(x *algebra.Group, b *algebra.BGP, conds []algebra.Expr, opts []*algebra.LeftJoin, s algebra.Var, priced bool) *hopGroup {
	var star, rest []algebra.Triple
	var sv, rv varset
	vars := func(t algebra.Triple) varset {
		var v varset
		for _, n := range [3]algebra.Node{t.S, t.P, t.O} {
			if n.IsVar() {
				v = v.with(e.slot(n.Var))
			}
		}
		return v
	}
	var tags []algebra.Triple
	for _, t := range b.Triples {
		switch {
		case t.S.IsVar() && t.S.Var == s && !t.O.IsVar():
			tags = append(tags, t)
		case t.S.IsVar() && t.S.Var == s:
			star, sv = append(star, t), sv.union(vars(t))
		default:
			rest, rv = append(rest, t), rv.union(vars(t))
		}
	}
	j := sv.inter(rv)
	// The OPTIONALs join the star when each is a BGP on ?s whose variables met in R are the star's and whose
	// expression reads only its own and the star's: then a solution of S ∪ R is compatible with an OPTIONAL's
	// solution exactly when its S part is, and (S ⋈ R) ⟕ O = (S ⟕ O) ⋈ R, multiplicities included.
	ov := sv
	for _, lj := range opts {
		ob, ok := lj.Right.(*algebra.BGP)
		if !ok || len(ob.Triples) == 0 {
			return nil
		}
		var v varset
		for _, t := range ob.Triples {
			if !t.S.IsVar() || t.S.Var != s {
				return nil
			}
			v = v.union(vars(t))
		}
		if !v.inter(rv).subsetOf(sv) {
			return nil
		}
		ov = ov.union(v)
		if lj.Expr != nil && !e.varsOfExpr(lj.Expr).subsetOf(ov) {
			return nil
		}
	}
	// A star of one pattern gains nothing from the merge loop: the join reads its rows in runs of the object (POS)
	// and probes the hop once per run (b17: COUNT(DISTINCT ?offer) per country, 170 ms of CPU, 400–530 so). With
	// an OPTIONAL the join probes that per row too, where the loop reads its rows in the same pass (h104: rating1
	// of 290 000 reviews).
	if len(star) < 2 && len(opts) == 0 || len(rest) == 0 || j.empty() || j.has(e.slot(s)) || ov.over || rv.over {
		return nil
	}
	if priced && (!e.hopPays(star, j, len(opts) > 0, e.hopCacheSmall(x, sv, ov, j)) || !e.restFromJ(rest, j) || e.restNarrows(star, rest, j)) {
		return nil
	}
	var sc, rc []algebra.Expr
	for _, c := range conds {
		v := e.varsOfExpr(c)
		switch {
		case !pushable(c):
			return nil
		case v.subsetOf(sv):
			sc = append(sc, c)
		case v.subsetOf(rv):
			rc = append(rc, c)
		default:
			return nil
		}
	}
	h := &hopGroup{j: j, vars: ov.union(rv), tags: tags, triples: star, narrowed: len(sc) > 0 || len(tags) > 0}
	for i := range e.nvars {
		switch {
		case j.has(i):
			h.js = append(h.js, i)
		case rv.has(i):
			h.rs = append(h.rs, i)
		}
	}
	h.star = &algebra.BGP{Triples: star}
	if len(sc) > 0 {
		h.star = &algebra.Filter{Exprs: sc, Op: h.star}
	}
	for _, lj := range opts {
		h.star = &algebra.LeftJoin{Left: h.star, Right: lj.Right, Expr: lj.Expr}
	}
	h.rest = &algebra.BGP{Triples: rest}
	if len(rc) > 0 {
		h.rest = &algebra.Filter{Exprs: rc, Op: h.rest}
	}
	return h
}

// hopFanIn is the least number of the star's rows per value of J for which groupHop is taken whatever its tables
// cost: the rest is evaluated once per value, where the join evaluates it once per run of a value, and the table
// of its solutions pays when it saves most of the join's probes. With ~20 offers per product (h75: per vendor,
// COUNT(DISTINCT) of products and of their producers) the join, which reads the offers in runs of one product and
// probes the producer once per run, took 670–685 ms of CPU at 10 M and groupHop 910–980; with ~190 offers per
// vendor (h53, h29, h18, h04, q09) groupHop is the faster.
const hopFanIn = 32

// hopPays reports whether j is one variable that a pattern of the star binds as its object and groupHop costs
// less than the join. Per row of the star's k patterns, in planCost's units: groupHop reads k rows in subject order
// (mergeRowCost each), looks J's value up in its table of D values (D = the pattern's rows over their fan-out per
// object f) and adds the solution to its cache of solutions (solutionCache); the join reads the row of J's pattern
// (1), probes the k−1 others (1 or more each) and the rest once per run of f rows (probeFar/f). While the table and
// the cache stay in a core's cache (D ≤ groupsInCache, and a cache that holds few distinct solutions, hopCacheSmall)
// a lookup is about hashProbeCost and groupHop costs k/3 + 1 against the join's k + 16/f or more: groupHop's, at any
// fan-in (h82: ~20 products per producer, 1 460 producers at 10 M, 92–108 ms of CPU by the join, 47–74 so). Where
// the cache grows by a solution per row (COUNT-only groups that read a variable of the star besides J: h75's
// ?vendor, h04's ?vendor and ?product), each row is a miss more, and the measured fan-in decides (hopFanIn): h04
// gains at 190 rows per value, h75 loses at 20 even at 1 M, where its 2 900 products fit.
//
// With OPTIONALs on the star (opt) the join probes each OPTIONAL pattern once per row of the star, in the whole
// graph's SPO order, where groupHop reads its rows in the same pass as the star's: groupHop's at any fan-in and
// table size. h104 (rating1 of 290 000 reviews, 27 700 products, ~10 reviews each) 177, 188 → 94, 76 ms of CPU at
// 10 M; with AVG of an OPTIONAL over offers per producer, two OPTIONALs, COUNT of the OPTIONAL's object (the cache
// growing) or an OPTIONAL of two patterns, 200–360 → 70–130.
func (e *evaluator) hopPays(star []algebra.Triple, j varset, opt, small bool) bool {
	js, one := j.only()
	if !one {
		return false
	}
	g := e.active[0].g
	for _, t := range star {
		if !t.O.IsVar() || e.slot(t.O.Var) != js || t.P.IsVar() {
			continue
		}
		p := e.constID(t.P.Term)
		if p == 0 {
			continue
		}
		f := g.ObjectFanout(p)
		if f <= 0 {
			continue
		}
		if opt || f >= hopFanIn || small && float64(g.Match(0, p, 0).Len())/f <= groupsInCache {
			return true
		}
	}
	return false
}

// hopCacheSmall reports whether groupHop's cache of solutions holds few distinct ones: it keeps every distinct
// solution of the variables read only when every aggregate is a COUNT (solutionCache.grow), and those are then as
// many as the rows when the group reads a variable of the star (sv) besides J (and COUNT(?v) of a star variable
// reads only whether it is bound; an OPTIONAL's variable, in ov but not sv, may be unbound, so reading it counts).
func (e *evaluator) hopCacheSmall(x *algebra.Group, sv, ov, j varset) bool {
	for _, a := range x.Aggregates {
		if a.Aggregate.Name != "COUNT" {
			return true // one entry, handed on when another solution comes
		}
	}
	reads := e.groupReadsSkipping(x, func(ag *algebra.Aggregate) bool {
		v, isVar := ag.Expr.(algebra.Var)
		return isVar && ag.Name == "COUNT" && !ag.Distinct && sv.has(e.slot(v))
	})
	return !reads.over && reads.inter(ov).subsetOf(j)
}

// restFromJ reports whether every pattern of rest has as its subject j's variable or an object of another (rest is
// the hop's attributes: `?vendor bsbm:country ?country`, then perhaps `?country rdfs:label ?name`). A rest that
// reaches j only as an object (another star joined on a shared value) is the hash join's.
func (e *evaluator) restFromJ(rest []algebra.Triple, j varset) bool {
	reach := j
	for grown := true; grown; {
		grown = false
		for _, t := range rest {
			if t.S.IsVar() && reach.has(e.slot(t.S.Var)) && t.O.IsVar() && !reach.has(e.slot(t.O.Var)) {
				reach, grown = reach.with(e.slot(t.O.Var)), true
			}
		}
	}
	for _, t := range rest {
		if !t.S.IsVar() || !reach.has(e.slot(t.S.Var)) {
			return false
		}
	}
	return true
}

// restNarrows reports whether a pattern of rest keeps under half of the values of a variable of j that the star
// binds as an object (as many as its rows over their fanout), by its rows alone (with its constants): the join,
// led by rest, then reads only the star's rows of the values kept, where the merge loop reads all of them (h45:
// the offers of French vendors, a tenth of the vendors, 55 ms of CPU, 260 so).
func (e *evaluator) restNarrows(star, rest []algebra.Triple, j varset) bool {
	g := e.active[0].g
	id := func(n algebra.Node) (ID, bool) {
		if n.IsVar() {
			return 0, true
		}
		id := e.constID(n.Term)
		return id, id != 0
	}
	for _, r := range rest {
		for _, n := range [2]algebra.Node{r.S, r.O} {
			if !n.IsVar() || !j.has(e.slot(n.Var)) {
				continue
			}
			s, okS := id(r.S)
			p, okP := id(r.P)
			o, okO := id(r.O)
			if !okS || !okP || !okO {
				return true // a constant the data lacks: no solutions, the join ends at once
			}
			kept := g.Match(s, p, o).Len()
			for _, t := range star {
				if !t.O.IsVar() || t.O.Var != n.Var || t.P.IsVar() {
					continue
				}
				sp := e.constID(t.P.Term)
				if sp == 0 {
					continue
				}
				if f := g.ObjectFanout(sp); f > 0 && float64(2*kept) < float64(g.Match(0, sp, 0).Len())/f {
					return true
				}
			}
		}
	}
	return false
}

// groupHop groups x's operand into gs as the comment above says when it has that shape; handled is false when it
// does not (the caller evaluates it as usual, gs untouched), ok is false when evaluation must stop.
func (e *evaluator) groupHop(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	if e.outerGraph() == nil {
		return false, false
	}
	h := e.hopGroupOf(x)
	if h == nil {
		return false, false
	}
	for i, v := range in {
		if v != 0 && h.vars.has(i) {
			return false, false
		}
	}
	st, isStar := e.optStarOf(h.star, in, nil, nil)
	if !isStar {
		return false, false
	}
	if len(h.tags) > 0 {
		only, taken, ok := e.tagSubjects(h.tags, st.must, errp)
		if !taken || !ok {
			return taken, ok
		}
		st.only = only
	}
	full, ok := e.hopPrefill(h, in, errp)
	if !ok {
		return true, false
	}
	// Each goroutine (the query's, and a worker's when starGroup splits the star's subjects) joins through a table
	// of its own, evaluating the rest on its own evaluator into its own groups; a table filled before (hopPrefill)
	// is shared, each goroutine with its own last entry found.
	sinkFor := func(e *evaluator, gs *groupState, errp *error) solutionSink {
		t := &hopTable{w: len(h.js), ws: len(h.rs)}
		if full != nil {
			c := *full
			t = &c
		}
		key := make([]ID, len(h.js))
		rrow := slices.Clone(in)
		return func(row []ID, c int64) bool {
			for k, s := range h.js {
				key[k] = row[s]
			}
			lo, n, found := t.find(key)
			if !found && t.complete {
				return true // R has no solution with this value
			}
			if !found {
				var ok bool
				if lo, n, ok = e.hopRest(h, t, key, rrow, errp); !ok {
					return false
				}
			}
			// Each of R's solutions (R may bind nothing but J: then each is a copy of the star's solution).
			for i := range n {
				for k, s := range h.rs {
					row[s] = t.sols[lo+i*t.ws+k]
				}
				if !gs.add(row, c, errp) {
					return false
				}
			}
			return true
		}
	}
	return e.starGroup(x, st, in, gs, h.j, sinkFor, errp)
}

// hopRest evaluates R once for the J values key (in rrow) and adds its solutions to t: where they start in t.sols
// and how many. Apart from the sink so that the sink's variables do not escape to the heap through the closure
// handed to exec: a sink that captured them allocated on every solution (h53, a tenth of its CPU).
func (e *evaluator) hopRest(h *hopGroup, t *hopTable, key, rrow []ID, errp *error) (lo, n int, ok bool) {
	for k, s := range h.js {
		rrow[s] = key[k]
	}
	lo = len(t.sols)
	if !e.exec(h.rest, rrow, func(r []ID) bool {
		for _, s := range h.rs {
			t.sols = append(t.sols, r[s])
		}
		n++
		return true
	}, errp) {
		return 0, 0, false
	}
	if err := e.holdBytes(int64(4*(len(t.sols)-lo+t.w) + 16)); err != nil {
		*errp = err
		return 0, 0, false
	}
	t.insert(key, lo, n)
	return lo, n, true
}

// hopPrefillMin is the least number of values of J (the star's rows of J's pattern over their fan-out per object)
// for which hopPrefill evaluates R once for all of them. Each evaluation of R for one value (hopRest) costs
// exec's set-up, ~1.5 µs, where one evaluation of all of R costs a row of a join per solution: h104 evaluated R
// (`?product bsbm:producer ?producer . ?producer bsbm:country ?country`) for 27 700 products one at a time, on each
// of the two goroutines, a third of its CPU at 10 M. Under a few thousand values (h53's vendors, h82's producers)
// the gain is a few milliseconds at most, and those queries are left as they were.
const hopPrefillMin = groupsInCache

// hopPrefillShare bounds R's solutions that hopPrefill reads: at most that many per value of J the star reaches.
// Past it R is left to be evaluated per value that comes (what was read is dropped).
const hopPrefillShare = 2

// hopPrefill returns groupHop's table of R's solutions for every value of J, from one evaluation of R with J
// unbound, when the star reaches many values of J (hopPrefillMin), all of its subjects' values (no FILTER conjunct
// or tag narrows it), R has no more than hopPrefillShare solutions a value, and each value of J has one solution
// in R (a product's producer's country). With one solution a value, the table hands each star solution the very
// solution that R evaluated for its value would give, so the group receives the same solutions in the same order;
// with more, their order within a value could differ from R's evaluated per value, and R is left to that. The table
// is nil (ok) where it is not made; ok is false when evaluation must stop.
func (e *evaluator) hopPrefill(h *hopGroup, in []ID, errp *error) (t *hopTable, ok bool) {
	if h.narrowed || len(h.js) != 1 {
		return nil, true
	}
	g := e.active[0].g
	values := 0.0
	for _, tr := range h.triples {
		if !tr.O.IsVar() || e.slot(tr.O.Var) != h.js[0] || tr.P.IsVar() {
			continue
		}
		p := e.constID(tr.P.Term)
		if p == 0 {
			return nil, true
		}
		if f := g.ObjectFanout(p); f > 0 {
			values = max(values, float64(g.Match(0, p, 0).Len())/f)
		}
	}
	if least := cmp.Or(e.opt.hopPrefillMin, hopPrefillMin); least < 0 || values < float64(least) {
		return nil, true
	}
	limit := int(hopPrefillShare * values)
	t = &hopTable{w: 1, ws: len(h.rs)}
	rrow := slices.Clone(in)
	js := h.js[0]
	held, n := 0, 0
	single := true
	if !e.exec(h.rest, rrow, func(r []ID) bool {
		if n == limit {
			single = false
			return false
		}
		key := r[js : js+1]
		if _, _, found := t.find(key); found {
			single = false // a second solution for one value
			return false
		}
		if n-held == 1024 {
			if err := e.holdBytes(int64(4*(1+t.ws)+24) * int64(n-held)); err != nil {
				*errp = err
				return false
			}
			held = n
		}
		lo := len(t.sols)
		for _, s := range h.rs {
			t.sols = append(t.sols, r[s])
		}
		t.insert(key, lo, 1)
		n++
		return true
	}, errp) && single {
		return nil, false
	}
	if !single {
		return nil, true // what was charged stays charged, as hopFirst's R past its bound
	}
	if err := e.holdBytes(int64(4*(1+t.ws)+24) * int64(n-held)); err != nil {
		*errp = err
		return nil, false
	}
	t.complete, t.hasOne = true, false
	return t, true
}

// hopTable is groupHop's table of R's solutions per value of J: an open-addressing table of J's values (w ids an
// entry) with where each one's solutions start in sols (ws ids a solution) and how many there are, and the entry
// found last, tried first.
type hopTable struct {
	w, ws  int
	keys   []ID
	spans  [][2]int // start, count+1 (0: an empty entry)
	used   int
	sols   []ID
	last   int // the entry found last, or -1
	hasOne bool
	// complete: the table holds every value of J that R has solutions for (hopPrefill), so a value not found has
	// none and nothing is ever inserted; the slices may then be shared by goroutines.
	complete bool
}

// find returns where key's solutions start in sols and how many there are; found is false when key has no entry
// yet.
func (t *hopTable) find(key []ID) (lo, n int, found bool) {
	if t.hasOne && slices.Equal(t.keys[t.last*t.w:(t.last+1)*t.w], key) {
		sp := t.spans[t.last]
		return sp[0], sp[1] - 1, true
	}
	if len(t.spans) == 0 {
		return 0, 0, false
	}
	mask := len(t.spans) - 1
	for i := int(hashIDs(key)) & mask; t.spans[i][1] != 0; i = (i + 1) & mask {
		if slices.Equal(t.keys[i*t.w:(i+1)*t.w], key) {
			t.last, t.hasOne = i, true
			return t.spans[i][0], t.spans[i][1] - 1, true
		}
	}
	return 0, 0, false
}

// insert adds key with its n solutions from sols[lo] on, growing the table past half full.
func (t *hopTable) insert(key []ID, lo, n int) {
	if 2*(t.used+1) > len(t.spans) {
		keys, spans := t.keys, t.spans
		n := max(2*len(spans), 64)
		t.keys, t.spans, t.used, t.hasOne = make([]ID, n*t.w), make([][2]int, n), 0, false
		for i, sp := range spans {
			if sp[1] != 0 {
				t.insert(keys[i*t.w:(i+1)*t.w], sp[0], sp[1]-1)
			}
		}
	}
	mask := len(t.spans) - 1
	i := int(hashIDs(key)) & mask
	for t.spans[i][1] != 0 {
		i = (i + 1) & mask
	}
	copy(t.keys[i*t.w:(i+1)*t.w], key)
	t.spans[i] = [2]int{lo, n + 1}
	t.used++
}

// tagSubjects returns the subjects every tag holds, as a set the star's merge loop tests each subject against.
// taken is false when a tag keeps under half of the subjects of the star's pattern with the fewest rows: the
// join, led by the tag's subjects (POS, in subject order), then reads the star's rows of those alone, where the
// merge loop reads all of them. A tag the data lacks leaves no solutions (taken, with nil). ok is false when the
// copy has no room in the query's budget.
func (e *evaluator) tagSubjects(tags []algebra.Triple, st []countPat, errp *error) (only *idSet, taken, ok bool) {
	g := e.active[0].g
	least := -1
	for _, p := range st {
		n := 0
		if id := e.constID(p.p); id != 0 {
			n = g.Match(0, id, 0).Len()
		}
		if least < 0 || n < least {
			least = n
		}
	}
	var subs []ID
	for i, t := range tags {
		p, o := e.constID(t.P.Term), e.constID(t.O.Term)
		if p == 0 || o == 0 {
			return &idSet{}, true, true // no subject holds it
		}
		m := g.Match(0, p, o) // POS: rows (p, o, s), in subject order
		if 2*m.Len() < least {
			return nil, false, false
		}
		// As long as the tag's subjects, which may be a whole class: charged before it is made.
		if err := e.holdBytes(4 * int64(m.Len())); err != nil {
			*errp = err
			return nil, true, false
		}
		l := make([]ID, m.Len())
		for k := range l {
			l[k] = m.Rows[k][2]
		}
		if !slices.IsSorted(l) {
			slices.Sort(l)
		}
		if i > 0 {
			l = intersectIDs(subs, l)
		}
		subs = l
	}
	only = newIDSet(subs)
	if err := e.holdBytes(int64(len(only.bits)) * 8); err != nil {
		*errp = err
		return nil, true, false
	}
	return only, true, true
}
