package protocol

import (
	"net/http/httptest"
	"runtime/debug"
	"testing"
)

// TestHeapBound: while a gate with SetHeapBound runs a query, Go's soft memory limit is what the process holds
// plus 1.5 times the shared budget and the slack, never above the limit it found (GOMEMLIMIT); once no query runs
// the limit found is back. (The measurement that it bounds the server is in docs/reliability.md: 8 heavy queries
// at 1 M took ldhub serve to 541 MiB with it, 668–736 without.)
func TestHeapBound(t *testing.T) {
	found := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(found) })
	r := httptest.NewRequest("GET", "/sparql", nil)
	for _, prev := range []int64{found, 1 << 40, 96 << 20} {
		debug.SetMemoryLimit(prev)
		gate := NewGate(0, 0, nil)
		gate.SetMemory(64 << 20)
		gate.SetHeapBound(0)
		leave, _, err := gate.enter(t.Context(), r, false, false, func() {})
		if err != nil {
			t.Fatal(err)
		}
		// A second query leaves the limit where the first set it: nothing is charged yet.
		leave2, _, _ := gate.enter(t.Context(), r, false, false, func() {})
		limit := debug.SetMemoryLimit(-1)
		if least := int64(1.5*float64(64<<20)) + heapSlack; prev > least && (limit < least || limit > least+512<<20) {
			t.Errorf("limit %d MiB while queries run, want %d MiB and what the test process holds (under 512 MiB)", limit>>20, least>>20)
		}
		if limit > prev {
			t.Errorf("limit %d MiB above the %d MiB found", limit>>20, prev>>20)
		}
		leave2()
		// The rest of the process is measured again, never below the spell's first measure.
		if got := debug.SetMemoryLimit(-1); got < limit || got > prev {
			t.Errorf("one query still running: limit %d MiB, want at least %d", got>>20, limit>>20)
		}
		leave()
		if got := debug.SetMemoryLimit(-1); got != prev {
			t.Errorf("no query running: limit %d MiB, want the %d MiB found", got>>20, prev>>20)
		}
	}
}
