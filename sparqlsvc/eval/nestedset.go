package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A trial's pattern is often one pattern filtered by a nested EXISTS that already answers from a set of its own
// (v55m: NOT EXISTS { ?offer vendor ?vendor FILTER NOT EXISTS { ?offer price ?p FILTER(?p > 10) } }, keyed on
// ?vendor: the nested set of offers priced above 10 is built while the outer rows are still evaluated one by one).
// Evaluated as a join, each of the pattern's 580 000 rows at 10 M went through the evaluator's calls per row (the
// FILTER, the EXISTS's memo, its set) to look its subject up. Read here, the pattern's rows come in POS order, by
// the key: each is tested against the nested sets directly, and a key found is not tested again for its other
// subjects. It is the same answer as the join's: the row a nested EXISTS sees binds the pattern's two variables
// and nothing else, so its set for those variables (the one existsBySet would look up) answers it.

// nestedSetScan adds to the trial's set, through add, the key of each row of pattern "?s p ?k" FILTER(e1, e2, …)
// that passes, where every ei is an EXISTS (or NOT EXISTS) answered by a set of keys it already holds for the
// variables of ?s and ?k it reads, and slots is ?k's alone. ok is false when the pattern is not such, or a nested
// set is missing: the trial then evaluates the pattern as a join.
func (e *evaluator) nestedSetScan(pattern algebra.Op, slots []int, add emitFn, errp *error) (ok bool) {
	f, isFilter := pattern.(*algebra.Filter)
	if !isFilter || len(slots) != 1 || e.ownGraph() == nil {
		return false
	}
	b, isBGP := f.Op.(*algebra.BGP)
	if !isBGP || len(b.Triples) != 1 {
		return false
	}
	t := b.Triples[0]
	if !t.S.IsVar() || t.P.IsVar() || !t.O.IsVar() || t.S.Var == t.O.Var || e.slot(t.O.Var) != slots[0] {
		return false
	}
	ss, ks := e.slot(t.S.Var), slots[0]
	p := e.constID(t.P.Term)
	if p == 0 {
		return false
	}
	rows := e.active[0].g.Match(0, p, 0).Rows // POS: p, then ?k, then ?s
	type nestedSet struct {
		set *existsSet
		not bool
	}
	var nested []nestedSet
	g := e.activeName()
	for _, c := range f.Exprs {
		x, isExists := c.(*algebra.Exists)
		if !isExists {
			return false
		}
		m := e.existsMemoOf(x)
		var bound varset
		for _, sl := range m.slots {
			if sl == ss || sl == ks {
				bound = bound.with(sl)
			}
		}
		set := m.join.setFor(g, bound)
		if set == nil && len(rows) > 0 {
			// None yet: the first row asks for one as the join's first row would (existsBySet decides).
			row := e.newRow()
			row[ss], row[ks] = rows[0][2], rows[0][1]
			if e.existsBySet(m, x, row, errp); *errp != nil {
				return true
			}
			set = m.join.setFor(g, bound)
		}
		if set == nil || set.ext != nil { // an extreme's set may send a row back to substitution
			return false
		}
		nested = append(nested, nestedSet{set, x.Not})
	}
	if len(rows) == 0 {
		return false
	}
	row := e.newRow()
	e.nestedScans++
	for j := 0; j < len(rows); j++ {
		if j%starScanRows == 0 && !e.starCheck(1, errp) {
			return true
		}
		row[ss], row[ks] = rows[j][2], rows[j][1]
		pass := true
		for _, n := range nested {
			if found, _ := n.set.has(row); found == n.not { // the index's ids are never scratch ids
				pass = false
				break
			}
		}
		if !pass {
			continue
		}
		if !add(row) {
			return true
		}
		for j+1 < len(rows) && rows[j+1][1] == row[ks] {
			j++ // the key is in the set: its other subjects need no test
		}
	}
	return true
}

// setFor returns the EXISTS's set for active graph g and key variables bound, or nil.
func (j *existsJoin) setFor(g ID, bound varset) *existsSet {
	for _, s := range j.sets {
		if s.graph == g && s.bound == bound {
			return s
		}
	}
	return nil
}

// A trial's pattern keyed on its subject is often one pattern narrowed by FILTER conjuncts on its object (v55m's
// nested NOT EXISTS { ?offer price ?p FILTER(?p > 10) }, keyed on ?offer). As a join, each of the 580 000 prices
// at 10 M went through the BGP's calls per row to reach the set; read here, the ranges valueRanges keeps are
// walked, the conjuncts it has not proved tested on the object, and each subject added. The same answer: a
// solution of the pattern is a row of the predicate whose object passes every conjunct.

// subjectSet adds to the trial's set, through add, the subject of each row of pattern "?s p ?o" FILTER(c1, …) whose
// object passes every ci, where each ci is pushable and reads ?o alone, and slots is ?s's alone. ok is false
// when the pattern is not such: the trial then evaluates it as a join.
func (e *evaluator) subjectSet(pattern algebra.Op, slots []int, add emitFn, errp *error) (ok bool) {
	var filters []algebra.Expr
	if f, isFilter := pattern.(*algebra.Filter); isFilter {
		pattern, filters = f.Op, f.Exprs
	}
	b, isBGP := pattern.(*algebra.BGP)
	if !isBGP || len(b.Triples) != 1 || len(slots) != 1 || e.ownGraph() == nil {
		return false
	}
	t := b.Triples[0]
	if !t.S.IsVar() || t.P.IsVar() || !t.O.IsVar() || t.S.Var == t.O.Var || e.slot(t.S.Var) != slots[0] {
		return false
	}
	ss, os := slots[0], e.slot(t.O.Var)
	var conj []algebra.Expr
	for _, f := range filters {
		conj = appendConjuncts(conj, f)
	}
	for _, c := range conj {
		if o, one := e.varsOfExpr(c).only(); !pushable(c) || !one || o != os {
			return false
		}
	}
	p := e.constID(t.P.Term)
	if p == 0 {
		return false
	}
	row := e.newRow()
	all := e.active[0].g.Match(0, p, 0)
	ranges, proven, rest := e.valueRanges(all, os, conj, row, errp)
	if *errp != nil {
		return true
	}
	if proven == nil { // nothing narrowed: every row is tested
		ranges, proven = []index.Matches{all}, []bool{len(conj) == 0}
	}
	e.subjectSets++
	if e.trial != nil && e.trial.reserve != nil {
		n := 0
		for _, r := range ranges {
			n += r.Len()
		}
		e.trial.reserve(n)
	}
	for i, m := range ranges {
		for j := 0; j < m.Len(); j++ {
			if j%starScanRows == 0 && !e.starCheck(1, errp) {
				return true
			}
			s, _, o := m.At(j)
			row[ss], row[os] = s, o
			tests := conj // a range valueRanges did not prove is tested on every conjunct, a proven one on the rest
			if proven[i] {
				tests = rest
			}
			if !e.testAll(tests, row, errp) {
				if *errp != nil {
					return true
				}
				continue
			}
			if !add(row) {
				return true
			}
		}
	}
	return true
}
