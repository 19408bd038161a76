package eval

import (
	"cmp"
	"container/heap"
	mathbits "math/bits"
	"slices"
	"strings"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// group evaluates GROUP BY with its aggregates (§18.5 Group, Aggregation). Each group keeps one running state per
// aggregate, updated as the operand's solutions arrive, instead of the solutions themselves: a GROUP BY over every
// offer held 58 000 rows and then walked them once per aggregate.
func (e *evaluator) group(x *algebra.Group, in []ID, emit emitFn, errp *error) bool {
	return e.groupBelow(x, nil, in, emit, errp)
}

// groupBelow is group under a FILTER whose conditions above are tested again on each group it hands on: a group
// they fail is dropped before the aggregates they do not read are made into terms (emitGroups).
func (e *evaluator) groupBelow(x *algebra.Group, above []algebra.Expr, in []ID, emit emitFn, errp *error) bool {
	var having []algebra.Expr
	if r := e.keyBindOf(x); r != nil && in[r.k] == 0 { // groupbind.go; a ?k coming in bound stays as written
		x, having = r.x, r.having
	}
	g := e.newGroupState(x)
	if !e.groupInto(x, in, g, errp) && *errp != nil {
		return false
	}
	return e.emitGroups(x, g, in, having, above, emit, errp)
}

// groupInto hands g the solutions of x's operand extending in, by the first of the group's paths that takes them
// (or the operand's evaluation); false when evaluation must stop. x is g's group, or a group over one branch of
// its UNION with g's keys and aggregates (groupUnion).
func (e *evaluator) groupInto(x *algebra.Group, in []ID, g *groupState, errp *error) bool {
	u := e.unprojectedOf(x)
	handled, ok := e.groupRuns(u, in, g, errp)
	if !handled {
		handled, ok = e.groupStars(u, in, g, errp)
	}
	if !handled {
		handled, ok = e.groupClosure(x, in, g, errp)
	}
	if !handled {
		handled, ok = e.groupOptStars(x, in, g, errp)
	}
	if !handled {
		handled, ok = e.groupHop(x, in, g, errp)
	}
	if !handled {
		handled, ok = e.groupTagStars(x, in, g, errp)
	}
	if !handled {
		handled, ok = e.groupLeaf(x, in, g, errp)
	}
	if !handled {
		handled, ok = e.groupHopFirst(x, in, g, errp)
	}
	if !handled {
		handled, ok = e.groupUnion(x, in, g, errp)
	}
	if !handled {
		ok = e.exec(x.Op, in, func(row []ID) bool { return g.add(row, 1, errp) }, errp)
	}
	return ok
}

// A GROUP BY over a subquery that only projects ({ SELECT ?offer ?vendor WHERE { star FILTER } } GROUP BY ?vendor:
// h135's innermost level) groups the same solutions as over the subquery's pattern itself when its keys and
// aggregates read only projected variables: a projection neither drops nor repeats a solution, and it only hides
// variables the group does not read. unprojectedOf gives the group over the pattern, so that the counting paths
// that read a star or a pattern's runs without binding a solution (groupRuns, groupStars) see through the
// subquery; h135's COUNT per vendor over 580 000 offers bound each solution through the join, the projection and
// the group (four fifths of its time at 10 M).

// unprojectedOf returns x with its operand's projection removed when that is exact (see above), else x itself;
// made once per query, so that what the paths learn about the group (keyed by it) is kept.
func (e *evaluator) unprojectedOf(x *algebra.Group) *algebra.Group {
	return madeOnce(&e.unprojected, x, func() *algebra.Group {
		p, ok := x.Op.(*algebra.Project)
		if !ok {
			return x
		}
		var kept varset
		for _, v := range p.Vars {
			kept = kept.with(e.slot(v))
		}
		if !e.groupReads(x).subsetOf(kept) {
			return x
		}
		return &algebra.Group{Op: p.Op, Keys: x.Keys, Aggregates: x.Aggregates}
	})
}

// emitGroups hands emit each group of g (x's groups, extending in) that passes having, with its aggregates' values.
// above are the conditions of a FILTER over the GROUP (HAVING), which tests every group emit gets: a group they
// fail is passed over once the aggregates they read are made, before the others are. h143 made 35 000 groups'
// MIN(STR(?label)) into terms (each a dictionary probe) for the 40 that HAVING(COUNT(?product) > 3) kept.
func (e *evaluator) emitGroups(x *algebra.Group, g *groupState, in []ID, having, above []algebra.Expr, emit emitFn, errp *error) bool {
	if g.tupleForms != nil {
		for _, b := range g.order {
			for i, a := range x.Aggregates {
				if b.aggs[i].tuples != nil {
					if err := e.finishTuples(&b.aggs[i], a.Aggregate, errp); err != nil {
						*errp = err
						return false
					}
				}
			}
		}
	}
	if len(x.Keys) == 0 && len(g.order) == 0 {
		g.order = append(g.order, g.newBucket(nil)) // one group over no solutions
	}
	// The keys' and aggregates' slots are looked up once, not per group: e.slot is a map lookup by name, and h28's
	// 28 000 groups spent a seventh of the query's CPU there.
	keySlots, aggSlots := make([]int, len(x.Keys)), make([]int, len(x.Aggregates))
	for i, k := range x.Keys {
		keySlots[i] = -1
		if k.Var != "" {
			keySlots[i] = e.slot(k.Var)
		}
	}
	for i, a := range x.Aggregates {
		aggSlots[i] = e.slot(a.Var)
	}
	// The aggregates above reads (first) are made before it is tested, the rest after; none when above may not be
	// tested early (pushable) or reads more variables than a varset tells apart.
	var early []bool
	if len(above) > 0 {
		reads := varset{}
		for _, c := range above {
			reads = reads.union(e.varsOfExpr(c))
			if !pushable(c) {
				reads.over = true
			}
		}
		if !reads.over {
			early = make([]bool, len(x.Aggregates))
			for i := range x.Aggregates {
				early[i] = reads.has(aggSlots[i])
			}
		}
	}
	out := make([]ID, e.nvars)
	for _, b := range g.order {
		copy(out, in)
		for i, s := range keySlots {
			if s >= 0 && b.key[i] != 0 {
				out[s] = b.key[i]
			}
		}
		if !e.testAll(having, out, errp) {
			if *errp != nil {
				return false
			}
			continue
		}
		if early != nil {
			for i, a := range x.Aggregates {
				if early[i] {
					if v, err := e.aggregateValue(&b.aggs[i], a.Aggregate); err == nil && !v.IsZero() {
						out[aggSlots[i]] = e.t.id(v)
					}
				}
			}
			if !e.testAll(above, out, errp) {
				if *errp != nil {
					return false
				}
				continue
			}
		}
		for i, a := range x.Aggregates {
			if early != nil && early[i] {
				continue
			}
			v, err := e.aggregateValue(&b.aggs[i], a.Aggregate)
			if err == nil && !v.IsZero() {
				out[aggSlots[i]] = e.t.id(v)
			}
		}
		if !emit(out) {
			return false
		}
	}
	return true
}

// groupBucket is one group: its key and its aggregates' states.
type groupBucket struct {
	key  []ID
	aggs []aggState
}

// recentGroup is an entry of groupState.recent.
type recentGroup struct {
	id ID
	b  *groupBucket
}

// keyForm is how a GROUP BY key is found, once: a variable (its slot), a date field of a variable (fieldArg; its
// slot and the function), or an expression (slot -1).
type keyForm struct {
	slot  int
	field string
	arith bool // an arithmetic expression numberID may compute (arithExpr)
	// months, for such an expression over YEAR and MONTH of dateTimes, is its table of ids by month (monthkey.go)
	months *monthMemo
	// choice is an IF's or a COALESCE's compiled form, evaluated to an id without a term (groupkeyid.go)
	choice *keyNode
}

// groupState is a GROUP BY's groups as solutions arrive, on the evaluator e (the query's, or a worker's when the
// operand's rows are split: splitGroup).
type groupState struct {
	e     *evaluator
	x     *algebra.Group
	order []*groupBucket
	// A key of one id (or none) is looked up by the id, not by a string of it; and the group of the previous
	// solution is tried first, since solutions often arrive group by group.
	buckets map[string]*groupBucket
	byID    map[ID]*groupBucket
	last    *groupBucket
	// Groups of one id are also found in a small table indexed by a hash of the id, made when a second group
	// appears: GROUP BY SECONDS(?d) over every offer spent a quarter of its time in the map.
	recent []recentGroup
	// Groups of several ids are found first in a small table indexed by a hash of the ids (made with the second
	// group), before the map, whose key is a string of the ids: h53's 570 000 offers, read in subject order, go to
	// a few hundred groups of (country, days) in no order, a map lookup each.
	recentKeys []*groupBucket
	buf        []byte
	key        []ID
	// A group's cost: its key twice (slice and map key), the bucket, and each aggregate's state.
	cost int64
	// Buckets, their states and keys are cut from blocks that double up to 256 groups: GROUP BY ?date over 3 000
	// dates spent half its time allocating them one by one.
	bucketBlock []groupBucket
	stateBlock  []aggState
	keyBlock    []ID
	blockLen    int
	forms       []keyForm
	// lastKeys holds each computed key's value and id from the solution before: rows read in value order give
	// the same key again and again (SUBSTR(STR(?d), 1, 4) over dateTimes in order), and comparing the value
	// costs less than interning it (a hash and a table probe).
	lastKeys []lastKey
	tuples   *fieldTuples // groupfields.go
	// tupleForms is each aggregate's tupleForm (distincttuples.go), nil when none has one.
	tupleForms []*tupleForm
}

// lastKey is a computed key's last value and its interned id (0: none yet).
type lastKey struct {
	v  rdf.Term
	id ID
}

func (e *evaluator) newGroupState(x *algebra.Group) *groupState {
	g := &groupState{e: e, x: x, buckets: map[string]*groupBucket{}, byID: map[ID]*groupBucket{},
		key: make([]ID, len(x.Keys)), cost: int64(8*len(x.Keys) + 96), blockLen: 4, forms: make([]keyForm, len(x.Keys))}
	for _, a := range x.Aggregates {
		g.cost += int64(unsafe.Sizeof(aggState{}))
		if a.Aggregate.Name == "MIN" || a.Aggregate.Name == "MAX" {
			g.cost += int64(unsafe.Sizeof(builtin.Key{}))
		}
	}
	for i, a := range x.Aggregates {
		if f := e.tupleFormOf(a.Aggregate); f != nil {
			if g.tupleForms == nil {
				g.tupleForms = make([]*tupleForm, len(x.Aggregates))
			}
			g.tupleForms[i] = f
			g.cost += int64(unsafe.Sizeof(distinctTuples{}))
		}
	}
	for i, k := range x.Keys {
		g.forms[i].slot = -1
		switch v := k.Expr.(type) {
		case algebra.Var:
			g.forms[i].slot = e.slot(v)
		case *algebra.Call:
			if a, ok := fieldArg(v); ok {
				g.forms[i] = keyForm{slot: e.slot(a), field: v.Func}
			} else {
				g.forms[i].arith = arithExpr(v)
				g.forms[i].months = e.newMonthMemo(v)
				if !e.plainKeys {
					g.forms[i].choice = choiceKey(v)
				}
			}
		}
	}
	return g
}

func (g *groupState) newBucket(k []ID) *groupBucket {
	if len(g.bucketBlock) == 0 {
		g.bucketBlock = make([]groupBucket, g.blockLen)
		g.stateBlock = make([]aggState, g.blockLen*len(g.x.Aggregates))
		g.keyBlock = make([]ID, g.blockLen*len(g.x.Keys))
		g.blockLen = min(2*g.blockLen, 256)
	}
	b := &g.bucketBlock[0]
	na, nk := len(g.x.Aggregates), len(k)
	b.key, b.aggs = g.keyBlock[:nk:nk], g.stateBlock[:na:na]
	copy(b.key, k)
	g.bucketBlock, g.stateBlock, g.keyBlock = g.bucketBlock[1:], g.stateBlock[na:], g.keyBlock[nk:]
	for i, a := range g.x.Aggregates {
		b.aggs[i].init(a.Aggregate, len(g.x.Keys) == 0)
		if g.tupleForms != nil && g.tupleForms[i] != nil {
			b.aggs[i].tuples = &distinctTuples{form: g.tupleForms[i]}
		}
	}
	return b
}

// find returns the group of key, made if new; nil when the budget is spent (*errp says so).
func (g *groupState) find(key []ID, errp *error) *groupBucket {
	var b *groupBucket
	var one ID
	if len(key) == 1 {
		one = key[0]
	}
	switch {
	case g.last != nil && slices.Equal(g.last.key, key):
		return g.last
	case len(key) <= 1:
		if g.recent == nil && len(g.order) > 0 {
			g.recent = make([]recentGroup, 256)
		}
		if g.recent == nil {
			break
		}
		r := &g.recent[uint32(one)*0x9e3779b1>>24]
		if r.b == nil || r.id != one {
			*r = recentGroup{one, g.byID[one]}
		}
		b = r.b
	default:
		if g.recentKeys == nil && len(g.order) > 0 {
			g.recentKeys = make([]*groupBucket, 256)
		}
		var r **groupBucket
		if g.recentKeys != nil {
			r = &g.recentKeys[hashIDs(key)>>56]
			if *r != nil && slices.Equal((*r).key, key) {
				g.last = *r
				return *r
			}
		}
		g.buf = rowKey(g.buf, key)
		if b = g.buckets[string(g.buf)]; b != nil && r != nil {
			*r = b
		}
	}
	if b == nil {
		if err := g.e.hold(1); err != nil {
			*errp = err
			return nil
		}
		if err := g.e.holdBytes(g.cost); err != nil {
			*errp = err
			return nil
		}
		b = g.newBucket(key)
		if len(key) <= 1 {
			g.byID[one] = b
			if g.recent != nil {
				g.recent[uint32(one)*0x9e3779b1>>24] = recentGroup{one, b}
			}
		} else {
			g.buckets[string(g.buf)] = b
			if g.recentKeys != nil {
				g.recentKeys[hashIDs(key)>>56] = b
			}
		}
		g.order = append(g.order, b)
	}
	g.last = b
	return b
}

// add takes n solutions equal to row in every variable the keys and aggregates read (groupRuns); 1 otherwise.
func (g *groupState) add(row []ID, n int64, errp *error) bool {
	e, key := g.e, g.key
	for i, k := range g.x.Keys {
		key[i] = 0
		switch f := g.forms[i]; {
		case f.slot >= 0 && f.field == "": // the common case needs no term round trip
			key[i] = row[f.slot]
			continue
		case f.slot >= 0: // YEAR(?date) and the like: no term either
			if id, ok := e.fieldID(f.field, row[f.slot]); ok {
				key[i] = id
				continue
			}
		case f.arith: // the value from the operands' ids, the id its term has (numberInline), when it has one
			if f.months != nil {
				if id, ok := f.months.key(e, k.Expr, row); ok {
					key[i] = id
					continue
				}
			}
			if id, ok := e.numberID(k.Expr, row, false); ok {
				key[i] = id
				continue
			}
		case f.choice != nil:
			if id, err := e.keyID(f.choice, row, errp); err == nil {
				key[i] = id
			}
			continue
		}
		if v, err := e.eval(k.Expr, row, errp); err == nil {
			if g.lastKeys == nil {
				g.lastKeys = make([]lastKey, len(g.x.Keys))
			}
			if l := &g.lastKeys[i]; l.id != 0 && v == l.v {
				key[i] = l.id
			} else {
				key[i] = e.t.id(v)
				l.v, l.id = v, key[i]
			}
		}
	}
	if *errp != nil {
		return false
	}
	b := g.find(key, errp)
	if b == nil {
		return false
	}
	for i, a := range g.x.Aggregates {
		if err := e.accumulateN(&b.aggs[i], a.Aggregate, row, n, errp); err != nil {
			*errp = err
			return false
		}
	}
	return true
}

// aggState is one aggregate's running state over one group.
type aggState struct {
	n    int64       // COUNT: the values (or solutions) counted
	errs int         // solutions where the expression had no value
	seen distinctIDs // DISTINCT: the values met (by interned id)
	// seenBits holds the dictionary's ids among them once a bitmap of every dictionary id takes less than seen would
	// (meet); only in the one group of an aggregate without GROUP BY (single), so that many groups never take a
	// bitmap each.
	seenBits []uint64
	single   bool
	rows     map[string]bool // COUNT(DISTINCT *): the solutions met
	// DISTINCT over an expression's value that is no number held in an id: the values met, by key (distinctMet)
	values map[string]bool
	// COUNT(DISTINCT f) of a computed value: f's inputs met as tuples of ids until the group's end (distinctTuples)
	tuples *distinctTuples
	sum    builtin.Sum  // SUM, AVG
	sumErr error        // SUM, AVG: a value that is not a number
	best   *builtin.Key // MIN, MAX: the value so far, parsed once
	// MIN, MAX: instead of best, the value so far as an id of a date block (minMaxByID) or of a number held in its
	// id (minMaxNumber)
	bestID ID
	// MIN, MAX, SUM, AVG over an expression: how its value is computed as an inline id (aggnumbers.go), and the
	// variable STRLEN reads
	minMax    minMaxForm
	minMaxVar algebra.Var
	sample    rdf.Term // SAMPLE: the first value
	parts     []string // GROUP_CONCAT
	size      int64    // GROUP_CONCAT: the bytes of parts and separators, charged to the query
	badCat    bool     // GROUP_CONCAT: a value that is not a literal
}

func (s *aggState) init(a *algebra.Aggregate, single bool) {
	s.single = single
	if a.Distinct {
		if a.Expr == nil {
			s.rows = map[string]bool{}
		}
	}
}

// met reports whether a DISTINCT aggregate met id before.
func (s *aggState) met(id ID) bool {
	if int(id/64) < len(s.seenBits) {
		return s.seenBits[id/64]&(1<<(id%64)) != 0
	}
	return s.seen.has(id)
}

// meet records id as met by a DISTINCT aggregate, charging the query for it. The one group of an aggregate without
// GROUP BY moves the dictionary's ids to a bitmap once that pays (bitmapPays), as an EXISTS's set does
// (existsSet.addOne): q10's COUNT(DISTINCT ?product) of 7 200 products grew a map and looked up each of its
// solutions there, a fifth of the query. The bitmap is charged too; where the budget has no room for it the map
// goes on.
func (e *evaluator) meet(s *aggState, id ID) error {
	if int(id/64) < len(s.seenBits) {
		s.seenBits[id/64] |= 1 << (id % 64)
		return nil
	}
	if err := e.holdBytes(48); err != nil {
		return err
	}
	s.seen.add(id)
	words := int64(e.t.base/64 + 1)
	if !s.single || s.seenBits != nil || !bitmapPays(s.seen.n, e.t.base) ||
		e.bytes+e.t.bytes+words*8 > e.opt.MaxMemory {
		return nil
	}
	if err := e.holdBytes(words * 8); err != nil {
		return err
	}
	s.seenBits = make([]uint64, words)
	var rest distinctIDs // ids past the bitmap: values the query made
	for _, k := range s.seen.slots {
		switch {
		case k == 0:
		case int(k/64) < len(s.seenBits):
			s.seenBits[k/64] |= 1 << (k % 64)
		default:
			rest.add(k)
		}
	}
	s.seen = rest
	return nil
}

// distinctIDs is a set of ids (never 0, which marks an empty slot) in an open-addressing table kept at most half full:
// a DISTINCT aggregate's values per group. h04's COUNT(DISTINCT ?vendor) and COUNT(DISTINCT ?product) per country
// and delivery time spent two fifths of its time in a Go map per group.
type distinctIDs struct {
	slots []ID
	n     int
	shift uint // 32 - log2(len(slots))
}

func (s *distinctIDs) slot(id ID) int { return int((id * 0x9e3779b1) >> s.shift) }

// has reports whether id is in the set.
func (s *distinctIDs) has(id ID) bool {
	if s.n == 0 || id == 0 {
		return false
	}
	mask := len(s.slots) - 1
	for i := s.slot(id); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case id:
			return true
		case 0:
			return false
		}
	}
}

// add puts id (not 0) into the set.
func (s *distinctIDs) add(id ID) {
	if 2*(s.n+1) > len(s.slots) {
		old := s.slots
		size := max(2*len(old), 8)
		s.slots, s.n, s.shift = make([]ID, size), 0, uint(32-mathbits.TrailingZeros(uint(size)))
		for _, k := range old {
			if k != 0 {
				s.add(k)
			}
		}
	}
	mask := len(s.slots) - 1
	i := s.slot(id)
	for s.slots[i] != 0 {
		if s.slots[i] == id {
			return
		}
		i = (i + 1) & mask
	}
	s.slots[i] = id
	s.n++
}

// accumulate adds one solution to an aggregate's state; the error is fatal (time-out, budget), an expression error
// is part of the state.
func (e *evaluator) accumulate(s *aggState, a *algebra.Aggregate, row []ID, errp *error) error {
	if a.Name == "COUNT" && a.Expr == nil {
		if !a.Distinct {
			s.n++
			return nil
		}
		k := rowKey(nil, row)
		if !s.rows[string(k)] {
			if err := e.holdBytes(int64(len(k)) + 48); err != nil {
				return err
			}
			s.rows[string(k)] = true
			s.n++
		}
		return nil
	}
	if d := s.tuples; d != nil {
		met, err := e.meetTuple(d, row)
		if err == nil && met && d.rows == memoJudged {
			err = e.judgeTuples(s, a, errp)
		}
		if met || err != nil {
			return err
		}
	}
	// A variable's id is its term's (ids are interned, as GROUP BY's keys assume): COUNT(?x) and DISTINCT ?x
	// need no term at all, and DISTINCT drops a value met before without looking it up. COUNT(DISTINCT ?product)
	// over 280 000 products spent its time fetching and hashing the terms.
	var id ID
	ev, isVar := a.Expr.(algebra.Var)
	if isVar {
		if id = row[e.varSlot(ev)]; id == 0 {
			s.errs++ // unbound: the expression has no value
			return nil
		}
	}
	if a.Distinct && isVar && s.met(id) {
		return nil
	}
	if isVar && !a.Distinct && (a.Name == "MIN" || a.Name == "MAX") &&
		(e.minMaxByID(s, a.Name == "MIN", id) || minMaxNumber(s, a.Name == "MIN", id)) {
		s.n++
		return nil
	}
	if isVar && !a.Distinct && (a.Name == "SUM" || a.Name == "AVG") && s.sumErr == nil {
		// A number held in its id is added from it, without its term (builtin.Sum.AddNumber).
		if v, scale, ok := index.InlineNumber(id); ok && s.sum.AddNumber(v, scale, index.IsInlineDecimal(id)) {
			s.n++
			return nil
		}
	}
	if !isVar && !a.Distinct && (a.Name == "SUM" || a.Name == "AVG") && s.sumErr == nil {
		if e.exprForm(s, a.Expr) == minMaxStrlen {
			if id, ok := e.strlenID(s, row); ok {
				if v, _, _ := index.InlineNumber(id); s.sum.AddNumber(v, 0, false) {
					s.n++
					return nil
				}
			}
		} else if n, ok := e.memoSumValue(a, row); ok && s.sum.AddNumber(n.V, n.Scale, n.Dec) {
			// SUM(?price * ?days): the product of numbers held in ids, added without a term (numberValue).
			s.n++
			return nil
		}
	}
	if !isVar && !a.Distinct && (a.Name == "MIN" || a.Name == "MAX") {
		if id, ok := e.minMaxValueID(s, a.Expr, row); ok && minMaxNumber(s, a.Name == "MIN", id) {
			s.n++
			return nil
		}
	}
	if c, ok := a.Expr.(*algebra.Call); ok && !a.Distinct && (a.Name == "MIN" || a.Name == "MAX") && s.bestID == 0 && arithFunc(c) {
		// MAX(ROUND(ABS(?price − ?avg) * 100 / ?avg)): the value computed without terms, compared with the best
		// key's value, and a term written only for a new best (values.go).
		if p := e.progOf(c); p.arith {
			if v, ok := e.runProg(p, row); ok {
				e.minMaxValue(s, a.Name == "MIN", v)
				s.n++
				return nil
			}
		}
	}
	var t rdf.Term
	if !isVar || a.Name != "COUNT" {
		var err error
		t, err = e.eval(a.Expr, row, errp)
		if *errp != nil {
			return *errp
		}
		if err != nil {
			s.errs++
			return nil
		}
	}
	if a.Distinct {
		if dup, err := e.distinctMet(s, isVar, id, t); dup || err != nil {
			return err
		}
	}
	s.n++
	v := t
	switch a.Name {
	case "SUM", "AVG":
		if s.sumErr == nil {
			s.sumErr = s.sum.Add(v)
		}
	case "MIN", "MAX":
		// A variable's key is made once per solution (MIN(?d) and MAX(?d) read the same value), and a number
		// held in its id is not parsed.
		if s.bestID != 0 { // the best so far is an id of a date block: its key now (minMaxByID)
			k := builtin.NewKey(e.t.term(s.bestID))
			s.best, s.bestID = &k, 0
		}
		var k builtin.Key
		switch {
		case isVar && id == e.keyMemoID:
			k = e.keyMemo
		case isVar && !isScratch(id): // a scratch id names another value in a later solution
			if n, scale, ok := index.InlineNumber(id); ok {
				k = builtin.FixedKey(v, n, scale)
			} else {
				k = builtin.NewKey(v)
			}
			e.keyMemoID, e.keyMemo = id, k
		default:
			k = builtin.NewKey(v)
		}
		if s.best == nil {
			s.best = new(builtin.Key)
			*s.best = k
			return nil
		}
		c := builtin.OrderKeys(&k, s.best)
		if (a.Name == "MIN" && c < 0) || (a.Name == "MAX" && c > 0) {
			*s.best = k
		}
	case "SAMPLE":
		if s.sample.IsZero() {
			s.sample = v
		}
	case "GROUP_CONCAT":
		if v.Kind != rdf.KindLiteral {
			s.badCat = true
			return nil
		}
		// Charged as it grows, so a huge concatenation stops before it is built.
		n := int64(len(v.Value) + len(a.Separator))
		if err := e.holdBytes(n + 16); err != nil {
			return err
		}
		s.size += n + 16
		s.parts = append(s.parts, v.Value)
	}
	return nil
}

// distinctMet reports whether a DISTINCT aggregate met a value before and records it as met if not: a variable's
// by its id, an expression's value t by its key. An expression's value is mostly one the data lacks
// (COUNT(DISTINCT CONCAT(STR(?vendor), " ", STR(?product))), a new value per solution): interning it to compare ids
// asked the dictionary for it and grew the query's overlay of terms on every solution, a third of h56. The key
// tells values apart as interning does (appendTermKey); a number held in an id keeps its id.
func (e *evaluator) distinctMet(s *aggState, isVar bool, id ID, t rdf.Term) (bool, error) {
	if !isVar {
		if iid, ok := index.InlineID(t); ok {
			id = iid
		} else {
			e.distinctKey = appendTermKey(e.distinctKey[:0], t)
			if s.values[string(e.distinctKey)] {
				return true, nil
			}
			if err := e.holdBytes(int64(len(e.distinctKey)) + 48); err != nil {
				return false, err
			}
			if s.values == nil {
				s.values = map[string]bool{}
			}
			s.values[string(e.distinctKey)] = true
			return false, nil
		}
	}
	if s.met(id) {
		return true, nil
	}
	return false, e.meet(s, id)
}

// accumulateN adds n solutions to an aggregate's state that agree on every variable its expression reads, so the
// expression has one value (or error) for all of them: counted n times, met once by DISTINCT, MIN, MAX and SAMPLE,
// and added n times by SUM, AVG and GROUP_CONCAT.
func (e *evaluator) accumulateN(s *aggState, a *algebra.Aggregate, row []ID, n int64, errp *error) error {
	if a.Name == "COUNT" && a.Expr == nil && !a.Distinct {
		s.n += n
		return nil
	}
	errs := s.errs
	if err := e.accumulate(s, a, row, errp); err != nil || n == 1 {
		return err
	}
	switch {
	case s.errs != errs: // no value: an error on each of them
		s.errs += int(n - 1)
	case a.Distinct: // met now or before; the rest are the same value
	case a.Name == "COUNT" || a.Name == "MIN" || a.Name == "MAX" || a.Name == "SAMPLE":
		s.n += n - 1
	case (a.Name == "SUM" || a.Name == "AVG") && s.sumErr == nil && e.addSumN(s, a, row, n-1):
	default:
		for range n - 1 {
			if err := e.accumulate(s, a, row, errp); err != nil {
				return err
			}
		}
	}
	return nil
}

// addSumN adds the value of SUM's or AVG's expression over row n more times in one addition when it is a number
// accumulate adds without its term (builtin.Sum.AddNumberN); false (s unchanged) otherwise.
func (e *evaluator) addSumN(s *aggState, a *algebra.Aggregate, row []ID, n int64) bool {
	var v builtin.Number
	if x, isVar := a.Expr.(algebra.Var); isVar {
		id := row[e.varSlot(x)]
		var ok bool
		if v.V, v.Scale, ok = index.InlineNumber(id); !ok {
			return false
		}
		v.Dec = index.IsInlineDecimal(id)
	} else if n, ok := e.sumValue(a.Expr, row); ok {
		v = n
	} else {
		return false
	}
	if !s.sum.AddNumberN(v.V, v.Scale, v.Dec, n) {
		return false
	}
	s.n += n
	return true
}

// aggregateValue is an aggregate's value over its group, or an error when it has none.
func (e *evaluator) aggregateValue(s *aggState, a *algebra.Aggregate) (rdf.Term, error) {
	switch a.Name {
	case "COUNT":
		return builtin.Integer(s.n), nil
	case "SUM", "AVG":
		if s.errs > 0 {
			return rdf.Term{}, builtin.ErrType
		}
		if s.sumErr != nil {
			return rdf.Term{}, s.sumErr
		}
		if a.Name == "SUM" {
			return s.sum.Total(), nil
		}
		return s.sum.Average()
	case "MIN", "MAX":
		if s.bestID != 0 {
			return e.t.term(s.bestID), nil
		}
		if s.best == nil {
			return rdf.Term{}, builtin.ErrType
		}
		return s.best.Term, nil
	case "SAMPLE":
		if s.sample.IsZero() {
			return rdf.Term{}, builtin.ErrType
		}
		return s.sample, nil
	case "GROUP_CONCAT":
		if s.errs > 0 || s.badCat {
			return rdf.Term{}, builtin.ErrType
		}
		// The result is a simple literal of the values' lexical forms (the W3C tests expect "1 2" even from
		// "1"@en "2"@en, and "1:22" from integers). The parts are let go once it is built; the overlay that
		// interns the result charges it again.
		defer func() { e.bytes -= s.size; s.size = 0 }()
		return rdf.String(strings.Join(s.parts, a.Separator)), nil
	}
	return rdf.Term{}, builtin.ErrUnknownFunction
}

// orderBy sorts the operand's solutions. Order keys are computed and parsed (builtin.Key) once per solution, not
// once per comparison. Under a LIMIT (topK) only the first offset+limit solutions are kept, in a heap whose root is
// the last of them: a solution that sorts after it is dropped at once, so ORDER BY … LIMIT over every review holds
// and sorts a few rows instead of all of them. The arrival order is the last key, so both ways give the order a
// stable sort gives.
func (e *evaluator) orderBy(x *algebra.OrderBy, in []ID, emit emitFn, errp *error) bool {
	bound := e.topK[x]
	if l := e.lateBindsOf(x, in); l != nil && bound.k > 0 && bound.distinct == nil {
		// Not under a DISTINCT: orderDistinctTop keeps one solution per projection, which reads the late bindings.
		return e.orderLate(x, l, bound, in, emit, errp)
	}
	limit := bound.k
	if bound.distinct != nil {
		if e.topBufferFits(limit, len(x.Conds)) {
			return e.orderDistinctTop(x, in, limit, bound.distinct, emit, errp)
		}
		// The first k solutions need not hold k distinct ones: without orderDistinctTop, all are sorted.
		limit = 0
	}
	if e.topBufferFits(limit, len(x.Conds)) {
		return e.orderTop(x, in, limit, emit, errp)
	}
	if bound.distinct == nil && e.selectFits(limit, len(x.Conds)) {
		return e.orderSelect(x, in, limit, bound.skip, emit, errp)
	}
	if limit > maxTopK {
		limit = 0 // all sorted: a heap this large saves little and costs a logarithm per solution
	}
	h := &sortItems{conds: x.Conds, e: e}
	cost := int64(len(x.Conds)) * int64(unsafe.Sizeof(builtin.Key{})+4)
	next := sortItem{keys: make([]builtin.Key, len(x.Conds)), ids: make([]ID, len(x.Conds))}
	seq := 0
	// The buffer is charged by its capacity, not per item: it grows by a quarter at a time (doubling while small),
	// and its items and their slack were most of what 8 sorted products at 1 M held beyond their charges.
	charged := 0
	keyAt := func(i int, row []ID) { e.orderKeyAt(x.Conds[i].Expr, &next, i, row, errp) }
	ok := e.exec(x.Op, in, func(row []ID) bool {
		next.seq = seq
		seq++
		if limit > 0 && int64(len(h.items)) == limit {
			// Full: the new solution replaces the root if it sorts before it, reusing the root's memory. Its keys
			// are computed only while the ones before tie with the root's: most solutions of an ORDER BY … LIMIT
			// over many fall after the root on the first key, and each key costs a term (a cache miss into the
			// dictionary at 10 M triples). All keys tied: it arrived later, so it sorts after the root.
			if before := h.before(&next, &h.items[0], row, keyAt); *errp != nil || !before {
				return *errp == nil
			}
			top := &h.items[0]
			copy(top.row, row)
			top.keys, next.keys = next.keys, top.keys
			top.ids, next.ids = next.ids, top.ids
			top.seq = next.seq
			heap.Fix(h, 0)
			return true
		}
		for i := range x.Conds {
			keyAt(i, row)
		}
		if *errp != nil {
			return false
		}
		if err := e.hold(1); err != nil {
			*errp = err
			return false
		}
		if err := e.holdBytes(cost); err != nil {
			*errp = err
			return false
		}
		it := sortItem{row: slices.Clone(row), keys: next.keys, ids: next.ids, seq: next.seq}
		next.keys, next.ids = make([]builtin.Key, len(x.Conds)), make([]ID, len(x.Conds))
		if limit > 0 {
			heap.Push(h, it)
		} else {
			h.items = append(h.items, it)
		}
		if c := cap(h.items); c != charged {
			if err := e.holdBytes(int64(c-charged) * int64(unsafe.Sizeof(sortItem{}))); err != nil {
				*errp = err
				return false
			}
			charged = c
		}
		return true
	}, errp)
	if !ok && *errp != nil {
		return false
	}
	return h.emitSorted(emit)
}

// before reports whether the solution row sorts before b, next's keys made by keyAt only while they tie with b's
// (all tied, the later arrival sorts after); when it does, next's other keys are made too.
func (h *sortItems) before(next, b *sortItem, row []ID, keyAt func(int, []ID)) bool {
	i, r := 0, 0
	for ; i < len(h.conds) && r == 0; i++ {
		keyAt(i, row)
		r = h.compareKey(next, b, i)
		if h.conds[i].Desc {
			r = -r
		}
	}
	if r >= 0 {
		return false
	}
	for ; i < len(h.conds); i++ {
		keyAt(i, row)
	}
	return true
}

// orderKeyAt sets key i of it, the order expression x, from row: a variable's id (not a scratch id, which a later
// solution reuses), made into a key when a comparison needs it (sortItems.compareKey), if ever; the number of
// arithmetic numberValue computes, as a key without its term (builtin.NumberKey); else x's value.
func (e *evaluator) orderKeyAt(x algebra.Expr, it *sortItem, i int, row []ID, errp *error) {
	it.keys[i], it.ids[i] = builtin.Key{}, 0
	switch v := x.(type) {
	case algebra.Var:
		if id := row[e.varSlot(v)]; id != 0 && !isScratch(id) {
			it.ids[i] = id
			return
		}
	case *algebra.Call, *algebra.FunctionCall:
		// ORDER BY DESC(?n1 / ?n2) over every product wrote each quotient's term for NewKey to parse back.
		if arithExpr(x) {
			if n, ok := e.numberValue(x, row); ok {
				it.keys[i] = builtin.NumberKey(n)
				return
			}
		}
	}
	if v, err := e.eval(x, row, errp); err == nil {
		it.keys[i] = builtin.NewKey(v)
	}
}

// emitSorted sorts the items (their arrival numbers make it stable) and emits their rows in that order.
func (h *sortItems) emitSorted(emit emitFn) bool {
	// pdqsort: slices.SortStableFunc merges in place with O(n log² n) comparisons.
	slices.SortFunc(h.items, func(a, b sortItem) int { return h.compare(&a, &b) })
	for _, it := range h.items {
		if !emit(it.row) {
			return false
		}
	}
	return true
}

// sortItem is a solution with its parsed order keys and its arrival number. ids[i], when not 0, is key i's value
// as an id (a variable's), and keys[i] is made from it only when a comparison needs it (sortItems.compareKey).
type sortItem struct {
	row  []ID
	keys []builtin.Key
	ids  []ID
	seq  int
}

// sortItems is the ORDER BY buffer; as a heap (container/heap) its root is the item that sorts last.
type sortItems struct {
	items []sortItem
	conds []algebra.OrderCond
	e     *evaluator
}

// compareKey is OrderKeys of key i of a and b. Two ids of one date block compare as their terms do (their order
// is OrderCompare's, index.DateBlock), and equal ids are equal terms: neither needs a term. Other keys are made
// from their ids when first compared, so a later key is read only for solutions whose earlier keys tie: reading
// review dates in value order (POS) under ORDER BY DESC(?date) ?review LIMIT made every solution a new first,
// and cost the date's term and the review's each.
func (h *sortItems) compareKey(a, b *sortItem, i int) int {
	if x, y := a.ids[i], b.ids[i]; x != 0 && y != 0 {
		if x == y {
			return 0
		}
		if bx := h.e.orderBlock(x); bx >= 0 && bx == h.e.orderBlock(y) {
			return cmp.Compare(x, y)
		}
		// Numbers held in their ids compare by value as their terms do (OrderKeys); two forms of one value (2 and
		// 2.0) are ordered by their terms. d06 ranks 16 000 groups by their COUNT: a term and a key each.
		if c, ok := compareNumbers(x, y); ok && c != 0 {
			return c
		}
	}
	h.key(a, i)
	h.key(b, i)
	return builtin.OrderKeys(&a.keys[i], &b.keys[i])
}

// key makes key i of a from its id, if not made yet (a bound value's key has a term); the slices are shared by
// the item's copies.
func (h *sortItems) key(a *sortItem, i int) {
	if id := a.ids[i]; id != 0 && a.keys[i].Term.IsZero() {
		a.keys[i] = builtin.NewKey(h.e.t.term(id))
	}
}

func (h *sortItems) compare(a, b *sortItem) int {
	for i, c := range h.conds {
		r := h.compareKey(a, b, i)
		if c.Desc {
			r = -r
		}
		if r != 0 {
			return r
		}
	}
	return a.seq - b.seq
}

func (h *sortItems) Len() int           { return len(h.items) }
func (h *sortItems) Less(i, j int) bool { return h.compare(&h.items[i], &h.items[j]) > 0 }
func (h *sortItems) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *sortItems) Push(x any)         { h.items = append(h.items, x.(sortItem)) }
func (h *sortItems) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}

// minMaxNumber is minMaxByID for numbers held in their ids: MIN(?price) over every offer compares the ids' values
// (compareNumbers) and keeps the best as an id, without a term made per solution. Two forms of one value (10 and
// 10.0) are left to the general path, whose order of terms decides between them.
func minMaxNumber(s *aggState, min bool, id ID) bool {
	switch {
	case s.best == nil && s.bestID == 0:
		if _, _, ok := index.InlineNumber(id); !ok {
			return false
		}
		s.bestID = id
	case s.bestID != 0:
		c, ok := compareNumbers(id, s.bestID)
		if !ok || (c == 0 && id != s.bestID) {
			return false
		}
		if (min && c < 0) || (!min && c > 0) {
			s.bestID = id
		}
	default:
		return false
	}
	return true
}
