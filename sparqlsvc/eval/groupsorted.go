package eval

import (
	"cmp"
	"math"
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A GROUP BY over a star read in subject order (optStarRows) hands its solutions to the groups in the subjects'
// order, which is no order of the keys: h76's 280 000 reviews at 10 M go to 14 600 reviewers' groups at random.
// Each group holds its key and a state per aggregate (over 300 bytes each), so once there are thousands of groups
// nearly every solution missed the cache on its group's entry and on each of its states: two thirds of h76's CPU.
//
// Past sortedFeedGroups groups, the solution cache (non-COUNT aggregates: one entry, handed on per solution) keeps
// the solutions still to come, as the values of the slots they vary in with their counts, and at its end sorts
// them by the group keys' ids (a stable radix sort) and hands them to the groups in that order: each group takes
// its solutions together, its state in the cache.
//
// Why it is exact. Each group receives exactly the solutions it received before, and in the same order among
// themselves (the sort is stable), so every aggregate's state, order-dependent ones too (SAMPLE, GROUP_CONCAT, SUM
// of doubles), is what it was; only the interleaving across groups changes, which no group sees. The groups are
// made in the keys' order, so those made from the kept solutions are put back in the order their first solutions
// came in (gs.order: the order the answer lists groups in). Taken only when every key is a variable the solutions
// vary in or hold constant (the ids the sort reads are the keys' own) and the cache hands solutions to gs itself
// (not groupHop's sink).

// sortedFeedGroups is the number of groups past which the solutions still to come are kept and sorted: below it
// the groups' states stay in the cache (h38's few hundred groups, d05's dozens).
const sortedFeedGroups = 4096

// sortedKeys returns, for a one-entry solution cache over vary, the positions in vary of gs's keys (those that
// vary), or nil (ok false) when a key is not a variable or an aggregate is not COUNT, SUM or AVG of a variable (or
// COUNT(*)): those read numbers held in ids. An aggregate of an expression reads terms (h20's SUM(IF(langMatches(LANG(?title), …))
// per review): in subject order the reviews' titles are read about in the order they lie in the dictionary, in the
// keys' order at random, which cost more than the groups' states saved.
func sortedKeys(gs *groupState, vary []int) (pos []int, ok bool) {
	for _, a := range gs.x.Aggregates {
		switch a.Aggregate.Name {
		case "COUNT", "SUM", "AVG":
		default:
			return nil, false
		}
		if _, isVar := a.Aggregate.Expr.(algebra.Var); !isVar && a.Aggregate.Expr != nil {
			return nil, false
		}
	}
	for _, f := range gs.forms {
		if f.slot < 0 || f.field != "" {
			return nil, false
		}
		if i := slices.Index(vary, f.slot); i >= 0 {
			pos = append(pos, i)
		}
	}
	return pos, len(pos) > 0
}

// sortAfter is the number of groups past which c keeps its solutions to sort them.
func (c *solutionCache) sortAfter() int {
	switch n := c.e.opt.sortedFeed; {
	case n > 0:
		return n
	case n < 0:
		return math.MaxInt
	}
	return sortedFeedGroups
}

// keepRoom reports whether c may keep another solution: while what the query holds, with the kept rows twice over
// (feedSorted sorts them into a copy), stays under half its budget, so that keeping turns no query that fits
// into one that does not. Past it, the solutions kept are handed on sorted and the rest as they come.
func (c *solutionCache) keepRoom() bool {
	if m := c.e.opt.sortedKeepMax; m > 0 {
		return c.keptN < m
	}
	return c.e.bytes+c.e.t.bytes+2*c.keptHeld+int64(64*(len(c.vary)+3)) <= c.e.opt.MaxMemory/2
}

// keep holds entry key's n solutions to be handed on sorted (feedSorted), as a row of the key's ids, n's two
// halves and the entry's place in the arrival order; false when the budget is spent.
func (c *solutionCache) keep(key []ID, n int64, errp *error) bool {
	c.kept = append(c.kept, key...)
	c.kept = append(c.kept, ID(n), ID(n>>32), ID(c.keptN))
	c.keptN++
	if need := int64(4 * cap(c.kept)); need > c.keptHeld {
		if err := c.e.holdBytes(need - c.keptHeld); err != nil {
			*errp = err
			return false
		}
		c.keptHeld = need
	}
	return true
}

// feedSorted hands gs the kept solutions sorted by their keys, then puts the groups they made in the order of their
// first solutions.
func (c *solutionCache) feedSorted(errp *error) bool {
	defer func() {
		c.e.bytes -= c.keptHeld
		c.kept, c.keptN, c.keptHeld = nil, 0, 0
	}()
	w, gs := len(c.vary), c.gs
	rows, ok := c.sortKept(errp)
	if !ok {
		return false
	}
	made := len(gs.order)
	var first []ID // per group made here, the arrival index of its first solution
	for k := 0; k < len(rows); k += w + 3 {
		if k&0xfff == 0 {
			if err := c.e.check(); err != nil {
				*errp = err
				return false
			}
		}
		r := rows[k : k+w+3]
		for j, s := range c.vary {
			c.row[s] = r[j]
		}
		before := len(gs.order)
		if !gs.add(c.row, int64(r[w])|int64(r[w+1])<<32, errp) {
			return false
		}
		if len(gs.order) > before {
			first = append(first, r[w+2])
		}
	}
	if len(first) > 1 {
		made := gs.order[made:]
		idx := make([]int, len(made))
		for k := range idx {
			idx[k] = k
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(first[a], first[b]) })
		sorted := make([]*groupBucket, len(made))
		for k, j := range idx {
			sorted[k] = made[j]
		}
		copy(made, sorted)
	}
	return true
}

// sortKept returns the kept rows in the order of their keys' ids (the first key first), equal keys in the order
// they came: a least-significant-digit radix sort moving whole rows, 8 bits a pass (the 256 places written to stay
// in the cache), a pass skipped where every row has one digit.
func (c *solutionCache) sortKept(errp *error) ([]ID, bool) {
	w := len(c.vary) + 3
	src := c.kept
	if len(src) == 0 {
		return src, true
	}
	if err := c.e.holdBytes(int64(4 * len(src))); err != nil {
		*errp = err
		return nil, false
	}
	c.keptHeld += int64(4 * len(src))
	dst := make([]ID, len(src))
	var count [256]int
	for k := len(c.sortPos) - 1; k >= 0; k-- {
		p := c.sortPos[k]
		for shift := uint(0); shift < 32; shift += 8 {
			clear(count[:])
			for i := p; i < len(src); i += w {
				count[src[i]>>shift&0xff]++
			}
			if count[src[p]>>shift&0xff] == c.keptN {
				continue
			}
			sum := 0
			for d := range count {
				count[d], sum = sum, sum+count[d]*w
			}
			for i := 0; i < len(src); i += w {
				d := src[i+p] >> shift & 0xff
				copy(dst[count[d]:count[d]+w], src[i:i+w])
				count[d] += w
			}
			src, dst = dst, src
		}
	}
	return src, true
}
