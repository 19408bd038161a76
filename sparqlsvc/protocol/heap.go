package protocol

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// DefaultHeapFactor is the factor of the shared budget by which SetHeapBound lets the heap grow while queries run:
// what the queries hold is up to 1.2 times what they charge (1.4 before ORDER BY's buffer was charged: what is
// left is the keys' computed strings, the answers' buffers, what a stopped operator has not yet dropped), and the
// collector needs room to run in.
const DefaultHeapFactor = 1.5

// heldPerCharged is what boundHeap takes the running queries to hold in the live heap per byte they charged: up
// to 1.5 measured (8 sorted products at 1 M: 374 MB live at 256 MiB charged), and garbage a collection in
// progress has not yet freed.
const heldPerCharged = 2

// heapSlack is room the bound leaves besides the queries', for the rest of the server's allocation between two
// collections (requests, renders, the metadata of a larger heap).
const heapSlack = 64 << 20

// SetHeapBound makes the gate hold Go's soft memory limit (runtime/debug.SetMemoryLimit) while it runs queries,
// at the heap the rest of the process keeps live plus factor times the shared budget (SetMemory) and heapSlack,
// and give the limit back (GOMEMLIMIT's, or none) once no query runs. Without it the queries' budget bounds what
// they charge, not the process: the collector lets the heap reach twice the live heap before it collects (GOGC
// 100), so 8 queries stopped at a 256 MiB budget took ldhub serve from 150 to 716 MiB (docs/reliability.md). The
// limit is process-wide and soft: an upload running beside the queries is collected more often while they run,
// never refused. Call it once, before the gate admits a query; factor <= 0 takes DefaultHeapFactor.
func (g *Gate) SetHeapBound(factor float64) {
	if factor <= 0 {
		factor = DefaultHeapFactor
	}
	g.heapFactor = factor
	g.heapPrev = debug.SetMemoryLimit(-1)
}

// boundHeap sets or gives back the soft memory limit as the gate's queries start and end; g.mu is held. The rest
// of the process is measured when the first query of a busy spell starts (the heap live at the last collection and
// the runtime's stacks and metadata); while queries run it is the live heap less what they are taken to hold
// (heldPerCharged times their charge), so that an upload growing meanwhile raises the limit at the next query's start
// or end, but never below the spell's first measure.
func (g *Gate) boundHeap() {
	if g.heapFactor == 0 {
		return
	}
	if len(g.slots)+len(g.lookups) == 0 {
		debug.SetMemoryLimit(g.heapPrev)
		g.heapRest = 0
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	metrics.Read(s)
	var v [6]int64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(min(s[i].Value.Uint64(), math.MaxInt64))
		}
	}
	overhead := max(v[1]-v[2]-v[3]-v[4]-v[5], 0)
	rest := v[0] + overhead - heldPerCharged*g.memory.Used()
	g.heapRest = max(g.heapRest, rest)
	debug.SetMemoryLimit(min(g.heapRest+int64(g.heapFactor*float64(g.memory.Max()))+heapSlack, g.heapPrev))
}
