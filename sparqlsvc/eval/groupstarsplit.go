package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A GROUP BY over a star without OPTIONALs (groupOptStars) reads its lead pattern's subjects in one loop on the
// query's goroutine, where the join it replaces split its scan over the pool's cores. optStarSplit splits the loop
// as groupSplit splits one pattern's runs: the query's goroutine reads and times the first subjects; when half of
// the rest is worth a worker (groupForkMinWork, splitRowCost) and the pool has a free core, a worker groups the
// subjects of the last half into groups of its own while the query's goroutine groups the first half, and the
// worker's groups are merged into the query's after them (mergeGroups), so the groups and their order are those of
// one goroutine. The star is taken only when its aggregates merge (plainStar).

// optStarSplit hands gs the solutions of the star st (without OPTIONALs, or groupHop's), on two goroutines where
// that pays; with sinkFor (groupHop), each goroutine's solutions go through a sink of its own into its groups.
func (e *evaluator) optStarSplit(x *algebra.Group, st *optStar, readS bool, ms []starMember, row []ID, gs *groupState, sinkFor sinkMaker, errp *error) bool {
	lead := ms[leadMember(ms)].p.rows
	var sink solutionSink
	if sinkFor != nil {
		sink = sinkFor(e, gs, errp)
	}
	// Each stretch's solutions are flushed to gs at its end: gs holds them all before the worker's are merged.
	var pend *solutionCache
	rows := func(from, to int) bool {
		return e.optStarRows(st, readS, ms, from, to, row, gs, sink, &pend, errp) && pend.flushAll(errp)
	}
	// A star's row costs its rows read in order; groupHop's also the join with the rest and the table, about a
	// microsecond at 10 M (h82: 29 000 products, 45–60 ms of CPU), so that fewer of its rows make a worker's half
	// worth its start: the timed probe decides (groupForkMinWork), and the rows only spare timing a probe that
	// would be the whole input.
	least := minForkRows
	if sinkFor != nil {
		least = 4 * forkChunkRows
	}
	return e.groupHalves(x, gs, len(lead), least, 0, splitRowCost, func(k int) int { return subjectStart(lead, k) }, rows,
		func(w *evaluator, wgs *groupState) func(from, to int, errp *error) bool {
			wms, wrow := workerMembers(ms), slices.Clone(row)
			return func(from, to int, errp *error) bool {
				var wsink solutionSink
				if sinkFor != nil {
					wsink = sinkFor(w, wgs, errp)
				}
				var wpend *solutionCache
				return w.optStarRows(st, readS, wms, from, to, wrow, wgs, wsink, &wpend, errp) && wpend.flushAll(errp)
			}
		}, errp)
}

// subjectStart is the first index from k on of rows (in subject order) that starts a subject: k itself, or past
// the rows of rows[k]'s subject.
func subjectStart(rows []index.Row, k int) int {
	if k <= 0 {
		return 0
	}
	for k < len(rows) && rows[k][0] == rows[k-1][0] {
		k++
	}
	return min(k, len(rows))
}

// workerMembers copies the members for a worker: its own cursors and tables of tested objects (passMemo), which
// optStarRows writes.
func workerMembers(ms []starMember) []starMember {
	out := slices.Clone(ms)
	for i := range out {
		p := *out[i].p
		if p.memo != nil {
			p.memo = make([]passMemo, len(p.memo))
		}
		out[i].p = &p
		out[i].start, out[i].end = 0, 0
	}
	return out
}
