package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY over a UNION of tagged stars ({ ?v a <Vendor> ; <country> ?c } UNION { ?p a <Producer> ; <country> ?c
// } …, h71) was evaluated by the join: each branch read its tag's subjects and probed every other pattern once per
// subject, a search of SPO whose rows lie far apart (a cache miss or two each; 60 % of h71's CPU, 15 000 reviewers
// at 10 M). The tag's subjects come from POS sorted by subject, and a pattern's kept copy sorted by subject
// (subjectScan) is in the same order, so groupTagStars reads both in one merge, with no probe, and hands each
// solution to the group state as the join would, branch by branch: no union rows are built.

// tagBranch is one branch: its subject's slot, the constant objects its subject must have (tags: predicate,
// object), and its star patterns "?s <p> ?o".
type tagBranch struct {
	ss   int
	tags [][2]ID
	star []countPat
	// batch: the group reads neither the subject (but for COUNT(?s)) nor, unless byObject, the one pattern's
	// object, so solutions are counted per object (or all together) and handed over with their counts (tagCounts).
	batch, byObject bool
}

// tagCount is the solutions counted for one object: the first solution's subject and object, and how many.
type tagCount struct {
	s, o ID
	n    int64
}

// tagCountMax is the most objects counted before the counts go to the group state.
const tagCountMax = 1 << 12

// tagMergeShare: a pattern whose rows number more than this many times the branch's subjects is probed per subject
// rather than merged (the merge would read, and the first query copy and sort, rows no subject has).
const tagMergeShare = 16

// groupTagStars evaluates x when its operand is a UNION whose branches are each such a star (a BGP of patterns on
// one unbound subject with constant predicates: one or more with a constant object, one or more with distinct
// unbound object variables) and its aggregates are COUNTs over variable keys; handled is false otherwise.
func (e *evaluator) groupTagStars(x *algebra.Group, in []ID, gs *groupState, errp *error) (handled, ok bool) {
	if _, isUnion := x.Op.(*algebra.Union); !isUnion || e.outerGraph() == nil || len(e.active) != 1 {
		return false, false
	}
	for _, a := range x.Aggregates {
		if a.Aggregate.Name != "COUNT" {
			// The solutions reach the aggregates in another order than the join's: only COUNT answers alike.
			return false, false
		}
	}
	for _, k := range x.Keys {
		if _, isVar := k.Expr.(algebra.Var); !isVar {
			return false, false
		}
	}
	var branches []tagBranch
	var collect func(op algebra.Op) bool
	collect = func(op algebra.Op) bool {
		switch y := op.(type) {
		case *algebra.Union:
			return collect(y.Left) && collect(y.Right)
		case *algebra.BGP:
			b, ok := e.tagBranchOf(y, in)
			branches = append(branches, b)
			return ok
		}
		return false
	}
	if !collect(x.Op) {
		return false, false
	}
	g := e.active[0].g
	row := slices.Clone(in)
	for _, b := range branches {
		// A star of one pattern whose subject the group reads only through COUNT(?s) (bound in every solution)
		// gives the group one row per object with its number of solutions (or one row for all when the object is
		// not read either): h71's 15 000 reviewers go to the group state as 10 countries.
		reads := e.groupReadsSkipping(x, func(a *algebra.Aggregate) bool {
			v, isVar := a.Expr.(algebra.Var)
			return a.Name == "COUNT" && !a.Distinct && isVar && e.slot(v) == b.ss
		})
		b.batch = len(b.star) == 1 && !reads.over && !reads.has(b.ss)
		b.byObject = reads.has(b.star[0].os)
		if !e.tagBranchRows(g, b, row, gs, errp) {
			return true, false
		}
	}
	return true, true
}

// tagBranchOf returns b as a tagBranch; ok is false when b is not one.
func (e *evaluator) tagBranchOf(b *algebra.BGP, in []ID) (tagBranch, bool) {
	var out tagBranch
	var star []int
	for i, t := range b.Triples {
		if !t.S.IsVar() || t.P.IsVar() || t.S.Var != b.Triples[0].S.Var {
			return out, false
		}
		if t.O.IsVar() {
			star = append(star, i)
			continue
		}
		out.tags = append(out.tags, [2]ID{e.constID(t.P.Term), e.constID(t.O.Term)})
	}
	if len(out.tags) == 0 || len(star) == 0 {
		return out, false
	}
	st, ok := e.countStarOf(b, star, nil, in)
	if !ok {
		return out, false
	}
	out.ss, out.star = st[0].ss, st
	return out, true
}

// tagBranchRows hands gs the solutions of b: for each subject having every tag, in ascending order, each
// combination of its rows of the star's patterns. false when evaluation must stop.
func (e *evaluator) tagBranchRows(g *index.Graph, b tagBranch, row []ID, gs *groupState, errp *error) bool {
	var members []ID
	for i, t := range b.tags {
		if t[0] == 0 || t[1] == 0 {
			return true // a term the data lacks: no solutions
		}
		m := g.Match(0, t[0], t[1]) // POS: rows (p, o, s), subjects ascending
		// The copy is as long as the class: charged, so that a class of every subject counts against the budget.
		if err := e.holdBytes(4 * int64(m.Len())); err != nil {
			*errp = err
			return false
		}
		s := make([]ID, m.Len())
		for k, r := range m.Rows {
			s[k] = r[2]
		}
		if i > 0 {
			s = intersectIDs(members, s)
		}
		members = s
	}
	if len(members) == 0 {
		return true
	}
	pids := make([]ID, len(b.star))
	merged := make([][]index.Row, len(b.star)) // nil: probed per subject
	for i, p := range b.star {
		if pids[i] = e.constID(p.p); pids[i] == 0 {
			return true
		}
		if n := g.Match(0, pids[i], 0).Len(); n == 0 {
			return true
		} else if n <= tagMergeShare*len(members) {
			merged[i] = e.subjectScan(g, pids[i]).Rows // nil without room in the budget: probed
		}
	}
	pos := make([]int, len(b.star))
	runs := make([][]index.Row, len(b.star))
	var counts []tagCount
	var at map[ID]int
	if b.batch {
		at = map[ID]int{}
	}
	flush := func() bool {
		for _, c := range counts {
			row[b.ss], row[b.star[0].os] = c.s, c.o
			if !gs.add(row, c.n, errp) {
				return false
			}
		}
		counts = counts[:0]
		clear(at)
		return true
	}
	for _, s := range members {
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*errp = err
				return false
			}
		}
		empty := false
		for i := range b.star {
			if r := merged[i]; r != nil {
				k := skipBelow(r, pos[i], s)
				j := k
				for j < len(r) && r[j][0] == s {
					j++
				}
				pos[i], runs[i] = j, r[k:j]
			} else {
				runs[i] = g.Match(s, pids[i], 0).Rows // SPO: rows (s, p, o)
			}
			if len(runs[i]) == 0 {
				empty = true
				break
			}
		}
		if empty {
			continue
		}
		if b.batch {
			for _, r := range runs[0] {
				k := ID(0)
				if b.byObject {
					k = r[2]
				}
				if i, ok := at[k]; ok {
					counts[i].n++
					continue
				}
				if len(counts) == tagCountMax && !flush() {
					return false
				}
				at[k] = len(counts)
				counts = append(counts, tagCount{s: s, o: r[2], n: 1})
			}
			continue
		}
		row[b.ss] = s
		if !e.tagCombine(b.star, runs, row, gs, errp) {
			return false
		}
	}
	if !flush() {
		return false
	}
	row[b.ss] = 0
	for _, p := range b.star {
		row[p.os] = 0
	}
	return true
}

// tagCombine binds each row of runs[0] in turn, then the rest's, and adds each combination to gs.
func (e *evaluator) tagCombine(star []countPat, runs [][]index.Row, row []ID, gs *groupState, errp *error) bool {
	if len(star) == 0 {
		return gs.add(row, 1, errp)
	}
	for _, r := range runs[0] {
		row[star[0].os] = r[2]
		if !e.tagCombine(star[1:], runs[1:], row, gs, errp) {
			return false
		}
	}
	return true
}
