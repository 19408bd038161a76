package eval

import (
	"fmt"
	"sync/atomic"
)

// Memory is a server's memory budget for queries, shared by every query given it (Options.Memory): what each
// query holds against its own MaxMemory is charged here too, so that the queries running at once hold at most
// this much between them, whatever their number and their own budgets. The server's bound is then one number
// rather than the gate's slots times the per-query budget. Charges move in grains (memoryGrain), so that a query
// touches the shared counter once per grain it grows or shrinks, not once per row.
type Memory struct {
	max  int64
	used atomic.Int64
}

// ErrServerMemory reports a query stopped because the queries running at once hold the server's budget
// (Memory): it is not the query's own fault, and may succeed once others have ended.
// It wraps ErrTooLarge, so that what gives up on a part of the query at its own budget (a trial that does not
// fit) gives up here too.
var ErrServerMemory = fmt.Errorf("sparql: the queries running hold the server's memory budget: %w", ErrTooLarge)

// memoryGrain is the unit in which a query charges the shared budget.
const memoryGrain = 1 << 20

// NewMemory returns a shared budget of n bytes (at least one grain).
func NewMemory(n int64) *Memory {
	return &Memory{max: max(n, memoryGrain)}
}

// Max is the budget in bytes.
func (m *Memory) Max() int64 { return m.max }

// Used is what the running queries have charged, in bytes.
func (m *Memory) Used() int64 { return m.used.Load() }

// budget is ErrTooLarge when what the query holds passes its own budget; otherwise it brings the query's charge on
// the shared budget up to date once that has moved by a grain (share). check and holdBytes both end with it, per
// row, so the common case (within budget, no shared budget) is small enough to be inlined.
func (e *evaluator) budget() error {
	if e.bytes+e.t.bytes <= e.opt.MaxMemory && e.opt.Memory == nil {
		return nil
	}
	return e.budgetShared()
}

// budgetShared is budget's case with a shared budget, or over the query's own.
func (e *evaluator) budgetShared() error {
	h := e.bytes + e.t.bytes
	if h > e.opt.MaxMemory {
		return ErrTooLarge
	}
	if e.opt.Memory != nil && (h > e.charged || h < e.charged-2*memoryGrain) {
		return e.share(h)
	}
	return nil
}

// share brings the query's charge on the shared budget to what it holds, rounded up to a grain, and reports
// ErrServerMemory when growing it passed the budget. It is called where the query's own budget is checked.
func (e *evaluator) share(holds int64) error {
	if holds > e.charged {
		grow := (holds - e.charged + memoryGrain - 1) / memoryGrain * memoryGrain
		if e.opt.Memory.used.Add(grow) > e.opt.Memory.max {
			// The query stops: its growth is taken back at once, not when it has unwound, or every other
			// query charging meanwhile would find the budget passed by it and stop too.
			e.opt.Memory.used.Add(-grow)
			return ErrServerMemory
		}
		e.charged += grow
	} else if holds < e.charged-2*memoryGrain {
		// Given back: keep one grain of slack so that a query near a grain's edge does not flap.
		give := (e.charged - holds - memoryGrain) / memoryGrain * memoryGrain
		e.charged -= give
		e.opt.Memory.used.Add(-give)
	}
	return nil
}

// unshare gives back everything the query charged on the shared budget, as it ends.
func (e *evaluator) unshare() {
	if e.opt.Memory != nil && e.charged != 0 {
		e.opt.Memory.used.Add(-e.charged)
		e.charged = 0
	}
}
