package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// Cores is a server's pool of core tokens, shared by all its queries, which lets one query use a second core
// only while a core is idle. A running query holds one token whatever the count (the server's own concurrency
// limit admits it); a query may take one more token for each extra worker, but only by a non-blocking try that
// succeeds while fewer tokens are out than there are cores, and gives it back when the worker ends. On a busy
// server (as many queries running as cores) no query gets a worker, so no query takes more than its share of the
// CPU and the workers never make the tokens out exceed the cores.
type Cores struct {
	n    int64
	busy atomic.Int64
	// peak is the most tokens out right after an extra one was granted (tests: never above n).
	peak atomic.Int64
	// chunks counts the chunks whose solutions a worker delivered (tests, docs: that workers did take part).
	chunks atomic.Int64
	// redone counts the chunks a worker claimed but the query's goroutine evaluated again (a worker's error,
	// budget or panic, or the budget taken back).
	redone atomic.Int64
	// forks counts the scans that started workers; kept the scans measured and kept on one goroutine (forkPays);
	// stopped the runs whose workers were stopped because their chunks turned out cheap.
	forks, kept, stopped atomic.Int64
}

// Chunks is how many chunks of a scan workers have evaluated and the queries used.
func (c *Cores) Chunks() int64 { return c.chunks.Load() }

// Redone is how many chunks a worker claimed and the query's goroutine evaluated again.
func (c *Cores) Redone() int64 { return c.redone.Load() }

// Splits is how many scans started workers, how many were timed and kept on one goroutine because the chain was
// too cheap against its consumer, and how many runs stopped their workers part-way for the same reason.
func (c *Cores) Splits() (forks, kept, stopped int64) {
	return c.forks.Load(), c.kept.Load(), c.stopped.Load()
}

// NewCores returns a pool of n tokens (n < 1 is 1: no query ever gets a worker).
func NewCores(n int) *Cores {
	return &Cores{n: int64(max(n, 1))}
}

// Size is the number of cores the pool counts.
func (c *Cores) Size() int { return int(c.n) }

// Peak is the most tokens that were out at once when a worker's token was granted.
func (c *Cores) Peak() int { return int(c.peak.Load()) }

func (c *Cores) hold() { c.busy.Add(1) }
func (c *Cores) drop() { c.busy.Add(-1) }

// tryExtra takes a token for a worker when one is free; it never waits.
func (c *Cores) tryExtra() bool {
	for {
		b := c.busy.Load()
		if b >= c.n {
			return false
		}
		if c.busy.CompareAndSwap(b, b+1) {
			for {
				p := c.peak.Load()
				if b+1 <= p || c.peak.CompareAndSwap(p, b+1) {
					break
				}
			}
			return true
		}
	}
}

// minForkRows is the fewest rows of a join's first pattern worth measuring for a split: below it, starting a
// worker costs about what it could save.
const minForkRows = 1 << 15

// forkChunkRows is the least rows in one chunk of the first pattern's range; the range is cut in at most
// maxForkChunks chunks, claimed in turn by the query's own goroutine and its workers.
const (
	forkChunkRows = 1024
	maxForkChunks = 256
)

// The split is chosen from the chain's measured cost, not its row count (forkPays). A worker takes over the
// chain's evaluation of a chunk (the chain's share of its cost); what stays on the query's goroutine is the
// consumer (GROUP BY, ORDER BY, the sink…) of every solution, plus copying each solution out of the worker's
// buffer. When the consumer's share is the larger, the query's goroutine is the bottleneck either way and a worker
// only adds the copying: b13, d03, d04 and d12 (one date pattern under a GROUP BY, ~100 ns a row, nearly all of it
// the consumer's) took 1.5–3× the wall time and up to twice the CPU with a worker at 10 M in session 10.
//
// What a worker saves per chunk is the chain's time less the hand-over of its solutions (appending them to its
// buffer, copying them out, one more call each, their cache lines moving between cores): handoff per solution, an
// estimate from b13's profile (29 % memmove at ~100 ns a row with a worker) and d04's timed chunks (24 ns a row
// for the chain into the buffer, 28 ns for the consumer from it). The chain time measured includes the appending.
const (
	handoff = 40 * time.Nanosecond
	// forkGain: a worker is started only when what it would save per chunk is at least forkGain of what the chunk
	// costs one goroutine (chain and consumer). Below that, the second thread's cold caches and the shared memory
	// bus take the rest (d04 and b13 with gains near zero took twice the CPU at 10 M).
	forkGain = 0.25
	// stopGain: workers stop claiming chunks when, measured on their own chunks, what they save falls under
	// stopGain of a chunk's cost (the chunks turned out cheap against the consumer's).
	stopGain = forkGain / 2
	// forkMinWork is the least a worker must save over the chunks left, as measured: below it a worker's start
	// (its evaluator's copied maps) and its own cold caches cost about what it saves (d16, 19 ms of CPU on one
	// goroutine, took 36 with a worker expected to save 2–10 ms at 10 M).
	forkMinWork = 20 * time.Millisecond
	// measureWork is how much of the scan the query's goroutine times before deciding (at least four chunks, at
	// most a sixteenth; the first may pay for caches later chunks reuse, so it is left out of the estimate when
	// others were timed).
	measureWork = time.Millisecond
	// spillIDs is how many ids a chunk being timed holds before they go to the consumer: the buffer stays small
	// however many solutions one chunk has.
	spillIDs = 1 << 14
)

// chunkCost is what chunks cost, as timed: their chain (into a buffer), their consumer (from it), and how many
// solutions they had.
type chunkCost struct {
	chain, consumer time.Duration
	sols            int64
}

// saving is what a worker would save per chunk of cost c (summed over n chunks): the chain's time less the
// hand-over of its solutions; and what a chunk costs one goroutine.
func (c chunkCost) saving(n int) (save, whole time.Duration) {
	a, b := c.chain/time.Duration(n), c.consumer/time.Duration(n)
	return a - handoff*time.Duration(c.sols/int64(n)), a + b
}

// forkPays reports whether a worker should evaluate some of the left chunks of a scan, given what timed chunks
// cost: a worker must save at least forkGain of a chunk's cost, and forkMinWork over the chunks left.
func forkPays(c chunkCost, timed, left int) bool {
	if timed <= 0 || left < 2 {
		return false
	}
	save, whole := c.saving(timed)
	return save > 0 && float64(save) >= forkGain*float64(whole) && save*time.Duration(left) >= forkMinWork
}

// forkChunk is one chunk of the first pattern's rows.
type forkChunk struct {
	index.Matches
	// rest: the chunk's rows pass the comparisons valueRanges used, so they are checked with the other conjuncts
	// only (as matchFrom does on one goroutine).
	rest bool
}

// forkSite is a chain of streaming operators whose solutions come out in the order of the rows of its leftmost
// BGP's first pattern, each row's solutions together: a BGP, FILTER, a join evaluated as nested loops from its
// left side, OPTIONAL and MINUS over their left side (forkLeaf). Cutting that range in chunks, evaluating the
// chain for each chunk on its own and putting the chunks' solutions back in chunk order gives exactly the
// solutions, in exactly the order, of one evaluation; a worker can therefore evaluate some chunks while the
// query's goroutine evaluates the others.
type forkSite struct {
	root algebra.Op
	x    *algebra.BGP // the leftmost BGP
	emit emitFn       // the consumer of root's solutions
	used bool         // x's first pattern was reached
	// buf, when set, takes root's solutions instead of emit: the query's goroutine evaluating a chunk ahead of
	// those it has delivered, or timing a chunk's chain apart from its consumer (parallelScan).
	buf *chunkResult
	// spill, when set, hands buf's solutions to the consumer once it holds spillIDs ids (a chunk being timed).
	spill func() bool
	pool  chan []ID // blocks for buf (forkRun.pool)
}

// forkRun is one parallel evaluation of a forkSite's chain.
type forkRun struct {
	site   *forkSite
	chunks []forkChunk
	next   atomic.Int64 // the next chunk to claim
	res    []chunkResult
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	void   atomic.Bool  // the query's goroutine reclaimed the budget: workers stop, their chunks are done again
	used   atomic.Int64 // bytes workers hold: finished chunks' rows and their own state
	rows   atomic.Int64 // rows held in finished chunks
	budget int64        // bytes workers may hold together
	maxRow int64        // rows they may hold together
	nvars  int
	ways   int64 // goroutines taking part: the query's and its workers
	// stop: workers claim no more chunks (their chunks turned out cheap against the consumer's); workNs,
	// workSols and workN are the chain time and the solutions of the chunks workers finished, and how many;
	// consumer is the consumer's time per chunk (ns), as timed before the run and then on the workers' chunks the
	// query's goroutine replays.
	stop     atomic.Bool
	workNs   atomic.Int64
	workSols atomic.Int64
	workN    atomic.Int64
	consumer atomic.Int64
	// copies are the predicates' sorted copies and tables of objects that the query's goroutine or a worker built
	// during the run (subjectIndex, objectIndex): built once, by whoever earned it first, and read by all.
	mu   sync.Mutex
	subs map[fanoutKey]*index.Graph
	objs map[fanoutKey]*index.ObjectTable
	// pool holds the blocks of chunks the query's goroutine has replayed, for the next chunks: no allocation
	// and no garbage per chunk.
	pool chan []ID
}

// chunkResult is one chunk's solutions, as a worker left them.
type chunkResult struct {
	ready  chan struct{} // closed when the worker is done with the chunk
	rows   idBuf         // the solutions, nvars ids each
	bytes  int64         // what rows cost against the budget
	failed bool          // no complete answer (an error, the budget, a panic): the query's goroutine does it again
	mine   bool          // evaluated ahead by the query's goroutine, not by a worker
}

// idBuf holds solutions, nvars ids each, in blocks of a fixed size: growing it never copies what it holds (a
// growing slice copied each chunk's rows about twice more, 18 % of b28's CPU with a worker), and its blocks go
// back to a pool once replayed.
type idBuf struct {
	blocks [][]ID
	n      int // ids held
}

// blockIDs is the size of idBuf's blocks (16 KiB), or that of 16 solutions when they are larger.
const blockIDs = 1 << 12

// poolBlocks is how many replayed blocks a scan keeps for reuse (1 MiB).
const poolBlocks = 64

func (b *idBuf) add(row []ID, pool chan []ID) {
	k := len(b.blocks) - 1
	if k < 0 || len(b.blocks[k])+len(row) > cap(b.blocks[k]) {
		var blk []ID
		select {
		case blk = <-pool:
		default:
		}
		if cap(blk) < len(row) {
			blk = make([]ID, 0, max(blockIDs, 16*len(row)))
		}
		b.blocks = append(b.blocks, blk)
		k++
	}
	b.blocks[k] = append(b.blocks[k], row...)
	b.n += len(row)
}

// bytes is what the blocks cost against the budget.
func (b *idBuf) bytes() int64 {
	n := 0
	for _, blk := range b.blocks {
		n += cap(blk)
	}
	return int64(n) * 4
}

// release gives b's blocks to pool (those it has room for) and empties b.
func (b *idBuf) release(pool chan []ID) {
	for i, blk := range b.blocks {
		select {
		case pool <- blk[:0]:
		default:
		}
		b.blocks[i] = nil
	}
	b.blocks, b.n = b.blocks[:0], 0
}

// errWorkerStop ends a worker's evaluation without an answer for its chunk.
var errWorkerStop = errors.New("sparql: parallel worker stopped")

// forkLeaf returns the leftmost BGP of a chain op heads (see forkSite), or nil when op is not such a chain. It
// follows exec's own dispatch, so each operator of the chain evaluates its left side once per evaluation of op and
// streams.
func (e *evaluator) forkLeaf(op algebra.Op) *algebra.BGP {
	switch x := op.(type) {
	case *algebra.BGP:
		if len(x.Triples) > 0 {
			return x
		}
	case *algebra.Filter:
		if op := e.belowBinds(x); op != nil {
			if _, isJoin := x.Op.(*algebra.Join); isJoin {
				return e.forkLeaf(op) // belowJoin's: the same chain with its conjuncts moved into it
			}
			return nil
		}
		for _, f := range x.Exprs {
			if !pushable(f) {
				return nil
			}
		}
		return e.forkLeaf(x.Op)
	case *algebra.Join:
		if e.pathFirst(x, e.newRow()) || e.domainFirstOf(x, e.newRow()) != nil || e.valuesFirst(x) != nil || e.farFirst(x, e.newRow()) {
			return nil
		}
		return e.forkLeaf(x.Left)
	case *algebra.LeftJoin:
		if x.Expr != nil && !pushable(x.Expr) {
			return nil
		}
		return e.forkLeaf(x.Left)
	case *algebra.Minus:
		// Not split: b54 (MINUS with a FILTER over it) took 20–60 % more CPU and more wall time with a worker at
		// 10 M, for a reason not yet found; MINUS's operands still run on one goroutine.
		return nil
	}
	return nil
}

// forkRoot returns the site op heads when op may be evaluated in parallel from in (nil otherwise): a chain
// (forkLeaf) evaluated from nothing bound, outside EXISTS and its trial evaluations (trialSet), over one graph of the index's own dictionary, whose
// solutions are all wanted (no LIMIT streams from it: limited), and not already part of the chain being
// evaluated.
func (e *evaluator) forkRoot(op algebra.Op, in []ID, emit emitFn) *forkSite {
	if e.opt.Cores == nil || e.stopWork != 0 || e.outerGraph() == nil {
		return nil
	}
	if _, ok := op.(*algebra.BGP); !ok {
		switch op.(type) {
		case *algebra.Filter, *algebra.Join, *algebra.LeftJoin, *algebra.Minus:
		default:
			return nil
		}
	}
	for _, id := range in {
		if id != 0 {
			return nil
		}
	}
	x := e.forkLeaf(op)
	if x == nil || e.limitedLeaf(x) {
		return nil
	}
	if s := e.fork; s != nil && !s.used && s.x == x {
		return nil // op is inside the chain already registered
	}
	return &forkSite{root: op, x: x, emit: emit}
}

// limitedLeaf reports whether x's solutions feed a LIMIT, or an ASK, that may stop before the end: a worker would
// evaluate chunks nobody reads.
func (e *evaluator) limitedLeaf(x *algebra.BGP) bool {
	if e.limited == nil {
		e.limited = map[*algebra.BGP]bool{}
		var walk func(op algebra.Op, lim bool)
		walk = func(op algebra.Op, lim bool) {
			algebra.Walk(op, func(o algebra.Op) bool {
				switch y := o.(type) {
				case *algebra.BGP:
					if lim {
						e.limited[y] = true
					}
				case *algebra.Slice:
					if y.Limit >= 0 && !lim {
						walk(y.Op, true)
						return false
					}
				case *algebra.Group: // reads all of its input before its first solution leaves
					if lim {
						walk(y.Op, false)
						return false
					}
				case *algebra.OrderBy:
					if lim {
						walk(y.Op, false)
						return false
					}
				}
				return true
			})
		}
		walk(e.top, e.askForm)
	}
	return e.limited[x]
}

// execFork evaluates a chain op heads with site registered, so that its leftmost BGP's first pattern may be
// shared with workers (forkScan).
func (e *evaluator) execFork(site *forkSite, op algebra.Op, in []ID, emit emitFn, errp *error) bool {
	prev := e.fork
	e.fork = site
	defer func() { e.fork = prev }()
	return e.execOp(op, in, func(row []ID) bool {
		if b := site.buf; b != nil {
			n := b.rows.n
			b.rows.add(row, site.pool)
			if n>>10 != b.rows.n>>10 {
				e.checkLent()
				if site.spill != nil && b.rows.n >= spillIDs {
					return site.spill()
				}
			}
			return true
		}
		return emit(row)
	}, errp)
}

// forkScan is matchFrom's first step over the leftmost BGP of a registered chain. In the query's goroutine it
// times the first chunks and starts workers when the chain pays for them (forkPays) and the pool has free cores;
// in a worker it evaluates the chunks the worker claims. proven and rest are valueRanges' (matchFrom): ranges whose
// rows are checked with rest instead of checks. done false: go on as usual.
func (e *evaluator) forkScan(ts []algebra.Triple, ranges []index.Matches, proven []bool, order []int, row []ID, st *bgpState, checks, rest [][]algebra.Expr, slots [3]int, free [3]bool, emit emitFn, errp *error) (done, cont bool) {
	for _, id := range row {
		if id != 0 {
			return false, false
		}
	}
	if w := e.work; w != nil && w.top != nil && w.top.used && len(ts) > 0 && &w.top.x.Triples[0] == &ts[0] {
		// The chain's first pattern read a second time would add solutions outside any chunk.
		*errp = errWorkerStop
		return true, false
	}
	site := e.fork
	if site == nil || site.used || len(ts) == 0 || &site.x.Triples[0] != &ts[0] {
		return false, false
	}
	site.used = true
	sc := scan{ts: ts, order: order, row: row, st: st, checks: checks, rest: rest, slots: slots, free: free, emit: emit, errp: errp}
	if w := e.work; w != nil {
		if site != w.top {
			return false, false // a chain inside the worker's own (a materialised operand): evaluated as usual
		}
		return true, e.workChunks(w.run, &sc)
	}
	if e.par != nil || e.opt.Cores.Size() < 2 {
		return false, false // one parallel evaluation at a time per query
	}
	total := 0
	for _, m := range ranges {
		total += m.Len()
	}
	if total < cmp.Or(e.opt.forkMin, minForkRows) {
		return false, false
	}
	return e.parallelScan(site, ranges, proven, total, &sc)
}

// scan is what evaluating the rows of a chunk needs of matchFrom's call over the chain's first pattern.
type scan struct {
	ts           []algebra.Triple
	order        []int
	row          []ID
	st           *bgpState
	checks, rest [][]algebra.Expr
	slots        [3]int
	free         [3]bool
	emit         emitFn
	errp         *error
}

// chunk evaluates the chain for each row of m (the first pattern bound to it) into sc.emit.
func (e *evaluator) chunk(sc *scan, m forkChunk) bool {
	ch := sc.checks
	if m.rest && sc.rest != nil {
		ch = sc.rest
	}
	for j := 0; j < m.Len(); j++ {
		if e.steps++; e.steps >= e.nextCheck {
			if err := e.interrupted(); err != nil {
				*sc.errp = err
				return false
			}
			e.checkLent()
		}
		ms, mp, mo := m.At(j)
		if !e.bindAndMatch(sc.ts, sc.order, 0, sc.row, sc.st, ch, sc.slots, sc.free, [3]ID{ms, mp, mo}, sc.emit, sc.errp) {
			return false
		}
	}
	return true
}

// worker is what a worker's evaluator knows of its run.
type worker struct {
	run *forkRun
	top *forkSite // the site its evaluation of the chain registered
	cur *chunkResult
	// published is what of the worker's own state run.used counts.
	published int64
}

// chunkOf cuts ranges into chunks of about size rows; a chunk of a proven range (valueRanges) is marked rest.
func chunkOf(ranges []index.Matches, proven []bool, total, least int) []forkChunk {
	size := max(least, (total+maxForkChunks-1)/maxForkChunks)
	var out []forkChunk
	for i, m := range ranges {
		for lo := 0; lo < len(m.Rows); lo += size {
			out = append(out, forkChunk{index.Matches{Rows: m.Rows[lo:min(lo+size, len(m.Rows))], Perm: m.Perm},
				proven != nil && proven[i]})
		}
	}
	return out
}

// stopwatch times a stretch of one goroutine's work: the thread's CPU time (threadCPU) when it can be read and
// is plausible, else the wall time. A goroutine moved to another thread between the two readings gives a CPU time
// outside [0, wall]; the wall time is taken then.
type stopwatch struct {
	wall time.Time
	cpu  time.Duration
}

func startWatch() stopwatch { return stopwatch{time.Now(), threadCPU()} }

func (s stopwatch) elapsed() time.Duration {
	w := time.Since(s.wall)
	if s.cpu >= 0 {
		if c := threadCPU() - s.cpu; c >= 0 && c <= w {
			return c
		}
	}
	return w
}

// Where a time is measured (Options.forkCosts).
const (
	costTimed  = iota // a chunk timed by the query's goroutine before the decision: its chain and its consumer
	costWorker        // a chunk a worker evaluated: its chain
	costReplay        // a worker's chunk the query's goroutine replayed: its consumer
)

// costs is what was measured (Options.forkCosts replaces it in tests).
func (e *evaluator) costs(where int, chain, consumer time.Duration) (time.Duration, time.Duration) {
	if f := e.opt.forkCosts; f != nil {
		return f(where, chain, consumer)
	}
	return chain, consumer
}

// parallelScan evaluates a registered chain's first pattern over ranges (done true). It times the first chunks,
// their chain apart from their consumer, and goes on alone unless forkPays; otherwise workers claim chunks in
// turn with this goroutine, which delivers every chunk's solutions in chunk order.
func (e *evaluator) parallelScan(site *forkSite, ranges []index.Matches, proven []bool, total int, sc *scan) (done, cont bool) {
	chunks := chunkOf(ranges, proven, total, cmp.Or(e.opt.forkChunk, forkChunkRows))
	if len(chunks) < 2 || e.nvars == 0 || e.opt.MaxMemory-e.bytes-e.t.bytes <= 0 {
		return false, false
	}
	errp := sc.errp
	inline := func(c int) bool { return e.chunk(sc, chunks[c]) }
	scratch := make([]ID, e.nvars)
	emitRows := func(buf *idBuf) bool {
		n := 0
		for _, rows := range buf.blocks {
			for i := 0; i+e.nvars <= len(rows); i += e.nvars {
				if err := e.check(); err != nil {
					*errp = err
					return false
				}
				if n++; n&1023 == 0 {
					e.checkLent()
				}
				copy(scratch, rows[i:i+e.nvars])
				if !site.emit(scratch) {
					return false
				}
			}
		}
		return true
	}
	site.pool = make(chan []ID, poolBlocks)

	// Time the first chunks: the chain into a small buffer, then the consumer from it, chunk by chunk, so the
	// solutions still arrive in order.
	var sum, first chunkCost
	timed := 0
	probe := &chunkResult{}
	measure := func(c int) bool {
		var cons time.Duration
		var sols int64
		site.buf = probe
		site.spill = func() bool {
			t := startWatch()
			ok := emitRows(&probe.rows)
			sols += int64(probe.rows.n / e.nvars)
			probe.rows.release(site.pool)
			cons += t.elapsed()
			return ok
		}
		t0 := startWatch()
		ok := inline(c)
		site.buf, site.spill = nil, nil
		if ok {
			t := startWatch()
			ok = emitRows(&probe.rows)
			cons += t.elapsed()
		}
		sols += int64(probe.rows.n / e.nvars)
		probe.rows.release(site.pool)
		a, b := e.costs(costTimed, max(t0.elapsed()-cons, 0), cons)
		if c == 0 {
			first = chunkCost{a, b, sols}
		} else {
			sum.chain += a
			sum.consumer += b
			sum.sols += sols
		}
		timed++
		return ok
	}
	c := 0
	for c < len(chunks) && (c < 4 || (sum.chain+sum.consumer < measureWork && c < len(chunks)/16)) {
		if !measure(c) {
			return true, false
		}
		c++
	}
	if timed > 1 {
		timed-- // the first chunk's cost is left out: it may have paid for caches the others reuse
	} else {
		sum = first
	}
	started := 0
	if forkPays(sum, timed, len(chunks)-c) {
		for started < e.opt.Cores.Size()-1 && started < (len(chunks)-c)/2 && e.opt.Cores.tryExtra() {
			started++
		}
	} else {
		e.opt.Cores.kept.Add(1)
	}
	if started == 0 {
		for ; c < len(chunks); c++ {
			if !inline(c) {
				return true, false
			}
		}
		return true, true
	}
	e.opt.Cores.forks.Add(1)
	room := e.opt.MaxMemory - e.bytes - e.t.bytes
	run := &forkRun{site: site, chunks: chunks, res: make([]chunkResult, len(chunks)), budget: max(room/2, 0),
		maxRow: int64(e.opt.MaxRows-e.held) / 2, nvars: e.nvars}
	for i := range run.res {
		run.res[i].ready = make(chan struct{})
	}
	run.ctx, run.cancel = context.WithCancel(e.ctx)
	run.pool = site.pool
	run.next.Store(int64(c))
	run.consumer.Store(int64(sum.consumer) / int64(timed)) // before any worker compares its chunks with it
	start := c                                             // the run's first chunk
	own := 0                                               // the run's chunks this goroutine evaluated (share)
	run.ways = int64(started + 1)
	for range started {
		run.wg.Add(1)
		go e.child(run).startWorker() // the child is made here: it copies this goroutine's state
	}
	e.par = run
	defer e.endRun(run)
	if f := e.opt.onOwnChunk; f != nil {
		inner := inline
		inline = func(c int) bool {
			f()
			return inner(c)
		}
	}
	// The consumer's time per replayed chunk, against the workers' chain time per chunk: when the workers' chunks
	// turn out cheap (the consumer is the bottleneck), they stop claiming.
	var replayNs time.Duration
	replayN := 0
	replay := func(c int) bool {
		r := &run.res[c]
		select {
		case <-r.ready:
		case <-e.ctx.Done():
			*errp = e.ctx.Err()
			return false
		}
		if r.failed || run.void.Load() {
			e.opt.Cores.redone.Add(1)
			return inline(c)
		}
		if !r.mine {
			e.opt.Cores.chunks.Add(1)
		}
		// The rows are the query goroutine's from here: off the workers' account.
		run.used.Add(-r.bytes)
		run.rows.Add(-int64(r.rows.n / run.nvars))
		defer r.rows.release(run.pool)
		t := startWatch()
		if !emitRows(&r.rows) {
			return false
		}
		if !r.mine && !run.stop.Load() {
			_, d := e.costs(costReplay, 0, t.elapsed())
			replayNs += d
			replayN++
			run.consumer.Store(int64(replayNs) / int64(replayN))
			run.cheap(e.opt.Cores)
		}
		return true
	}
	ready := func(c int) bool {
		select {
		case <-run.res[c].ready:
			return true
		default:
			return false
		}
	}
	// ahead evaluates chunk c on this goroutine into its result, as a worker would: a worker's chunk before it is
	// still running, and waiting for it would leave this core idle.
	ahead := func(c int) bool {
		r := &run.res[c]
		r.mine = true
		own++
		site.buf = r
		ok := inline(c)
		site.buf = nil
		if ok {
			r.bytes = r.rows.bytes()
			run.rows.Add(int64(r.rows.n / run.nvars))
			run.used.Add(r.bytes)
		}
		close(r.ready)
		return ok
	}
	// share is the part of the run's chunks this goroutine should evaluate itself. The chain is shared, the consumer
	// is all its own: with a chain of C and a consumer of K per chunk and w workers, it spends K on every chunk and C
	// on its own, a worker C on each of its, so all finish together when it takes (C-wK)/(w+1)C of the chunks, and
	// none when wK >= C (replaying alone keeps it the busiest). Taking more makes it the last to finish: v57a (C
	// about K) and b28 (C a little over K once its first chunks are done) lost 20-35 % of wall time at 10 M in
	// session 11 when it evaluated ahead whenever a worker's chunk was not there yet (5af41a9). C and K are as
	// measured so far: the timed chunks at first, then the workers' chains and this goroutine's replays of their
	// chunks (v57a's consumer grows with its groups).
	share := func() float64 {
		chain := sum.chain / time.Duration(timed)
		if n := run.workN.Load(); n > 0 {
			chain = time.Duration(run.workNs.Load() / n)
		}
		if wk := time.Duration(started) * time.Duration(run.consumer.Load()); chain > wk {
			return float64(chain-wk) / float64(time.Duration(started+1)*chain)
		}
		return 0
	}
	// arrives reports whether a worker's chunk c is ready. Below its share this goroutine does not wait: it
	// evaluates a chunk ahead at once (waiting for each chunk leaves its core idle and the split saves only the
	// consumer's share: q06, b67, v28d at 10 M in session 11). At or over it, it waits for about the time a
	// chunk's chain takes; a chunk later than that is from a worker that is slow or not scheduled.
	patience := min(max(sum.chain/time.Duration(timed), 20*time.Microsecond), 2*time.Millisecond)
	var timer *time.Timer
	arrives := func(c int) bool {
		if ready(c) {
			return true
		}
		if float64(own) < share()*float64(int(run.next.Load())-start) {
			return false
		}
		if timer == nil {
			timer = time.NewTimer(patience)
		} else {
			timer.Reset(patience)
		}
		select {
		case <-run.res[c].ready:
			timer.Stop()
			return true
		case <-timer.C:
			return false
		case <-e.ctx.Done():
			return true // replay returns the context's error
		}
	}
	// Chunks are delivered in order. The next one is evaluated straight into the consumer when it is this
	// goroutine's to claim; a worker's is replayed once ready, and while it is late, this goroutine evaluates
	// the next unclaimed chunk ahead.
	emitted := c
	for emitted < len(chunks) {
		if emitted < int(run.next.Load()) {
			if !arrives(emitted) {
				if c := int(run.next.Add(1) - 1); c < len(chunks) {
					if !ahead(c) {
						return true, false
					}
					continue
				}
			}
			if !replay(emitted) {
				return true, false
			}
			emitted++
			continue
		}
		c := int(run.next.Add(1) - 1)
		switch {
		case c >= len(chunks):
		case c == emitted:
			own++
			if !inline(c) {
				return true, false
			}
			emitted++
		default:
			if !ahead(c) {
				return true, false
			}
		}
	}
	return true, true
}

// cheap stops the run's workers when, over at least four chunks, what they save (their chain time less the
// hand-over) has fallen under stopGain of a chunk's cost: the chunks turned out cheap against the consumer's.
func (run *forkRun) cheap(cores *Cores) {
	n := run.workN.Load()
	if n < 4 {
		return
	}
	c := chunkCost{time.Duration(run.workNs.Load()), time.Duration(run.consumer.Load() * n), run.workSols.Load()}
	if save, whole := c.saving(int(n)); float64(save) < stopGain*float64(whole) && run.stop.CompareAndSwap(false, true) {
		cores.stopped.Add(1)
	}
}

// endRun stops a run's workers, waits for them to end (none outlives the query) and forgets the run.
func (e *evaluator) endRun(run *forkRun) {
	run.void.Store(true)
	run.cancel()
	run.wg.Wait()
	e.par = nil
}

// checkLent is the query's goroutine's budget check while workers run: when its own bytes and the workers' pass the
// budget, it takes the workers' share back (they stop and their chunks are done again here), so a query fails
// with ErrTooLarge only where it would on one goroutine.
func (e *evaluator) checkLent() {
	run := e.par
	if run == nil || run.void.Load() {
		return
	}
	if e.bytes+e.t.bytes+run.used.Load() > e.opt.MaxMemory || int64(e.held)+run.rows.Load() > int64(e.opt.MaxRows) {
		run.void.Store(true)
		run.cancel()
		run.wg.Wait()
		for i := range run.res {
			run.res[i].rows = idBuf{}
		}
		run.used.Store(0)
		run.rows.Store(0)
	}
}

// startWorker evaluates the site's chain in a worker: a fresh evaluator for the same query, sharing only what is
// read-only (the dataset, the plan, memoised operands, the predicates' sorted copies), whose first pattern reads
// the chunks it claims. A panic ends the worker, not the server: its chunk is marked failed and done again by the
// query's goroutine, which meets the same panic where the query's own recovery handles it.
func (e *evaluator) startWorker() {
	w := e
	run := w.work.run
	defer run.wg.Done()
	defer w.opt.Cores.drop()
	defer func() {
		r := recover()
		if c := w.work.cur; c != nil {
			c.failed = true
			close(c.ready)
			w.work.cur = nil
		}
		_ = r
	}()
	var err error
	w.exec(run.site.root, w.newRow(), func(row []ID) bool {
		c := w.work.cur
		if c == nil {
			err = fmt.Errorf("sparql: solution outside a chunk")
			return false
		}
		for _, id := range row {
			if id != 0 && !w.t.inData(id) {
				return false // a value of the worker's own: the chunk is done again by the query's goroutine
			}
		}
		n := c.rows.n
		c.rows.add(row, run.pool)
		if n>>10 != c.rows.n>>10 {
			if run.used.Load()+c.rows.bytes()+w.bytes+w.t.bytes-w.work.published > run.budget ||
				run.rows.Load()+int64(c.rows.n/max(run.nvars, 1)) > run.maxRow {
				return false
			}
		}
		return true
	}, &err)
}

// workChunks is a worker's first step over the chain's leftmost BGP: it claims chunks in turn and evaluates each
// one's rows through the rest of the chain into the chunk's result, until none is left or the run stops it.
func (e *evaluator) workChunks(run *forkRun, sc *scan) bool {
	errp := sc.errp
	for {
		if run.stop.Load() {
			return true
		}
		c := int(run.next.Add(1) - 1)
		if c >= len(run.chunks) {
			return true
		}
		r := &run.res[c]
		if run.void.Load() || run.used.Load() > run.budget {
			r.failed = true
			close(r.ready)
			return true
		}
		e.work.cur = r
		if e.opt.onChunk != nil {
			e.opt.onChunk()
		}
		t := startWatch()
		ok := e.chunk(sc, run.chunks[c])
		e.work.cur = nil
		if !ok || *errp != nil {
			r.failed = true
			r.rows.release(run.pool)
			close(r.ready)
			if *errp == nil {
				*errp = errWorkerStop
			}
			return false
		}
		d, _ := e.costs(costWorker, t.elapsed(), 0)
		run.workNs.Add(int64(d))
		run.workSols.Add(int64(r.rows.n / run.nvars))
		run.workN.Add(1)
		run.cheap(e.opt.Cores)
		r.bytes = r.rows.bytes()
		run.rows.Add(int64(r.rows.n / run.nvars))
		// The worker's own state (terms, copies it built) is on the run's account too, as it grows.
		own := e.bytes + e.t.bytes
		run.used.Add(r.bytes + own - e.work.published)
		e.work.published = own
		close(r.ready)
	}
}

// child returns a worker's evaluator. It is built field by field rather than copied, so that state added to the
// evaluator later starts empty in a worker instead of being shared by accident: the query's settings, its
// variables, and copies of the caches the query's goroutine has filled and will only read from now on (plans,
// memoised operands, the predicates' sorted copies); every cache and counter evaluation writes is its own.
func (e *evaluator) child(run *forkRun) *evaluator {
	opt := e.opt
	opt.MaxMemory = run.budget
	opt.Memory = nil // a worker's budget is carved from the query's room, which the query has charged
	opt.MaxRows = int(max(run.maxRow, 1))
	w := &evaluator{
		ctx: run.ctx, ds: e.ds, t: newTerms(e.ds.Dict), fn: builtin.NewContext(e.fn.Now, e.fn.Base), opt: opt,
		slots: maps.Clone(e.slots), names: e.names, nvars: e.nvars, active: e.active, multi: e.multi,
		bindVs: e.bindVs, top: e.top, askForm: e.askForm,
		cache: maps.Clone(e.cache), safeC: maps.Clone(e.safeC), orders: maps.Clone(e.orders),
		scans: maps.Clone(e.scans), pushed: maps.Clone(e.pushed), crossSplits: maps.Clone(e.crossSplits), seqJoins: maps.Clone(e.seqJoins), jointSeqs: maps.Clone(e.jointSeqs), distinctAll: e.distinctAll, keyBinds: maps.Clone(e.keyBinds), unprojected: maps.Clone(e.unprojected), pathGroups: maps.Clone(e.pathGroups), hopGroups: maps.Clone(e.hopGroups), hopFirsts: maps.Clone(e.hopFirsts), splits: maps.Clone(e.splits), valuesJoins: maps.Clone(e.valuesJoins), valuesLast: maps.Clone(e.valuesLast), bgps: map[*algebra.BGP]*bgpState{},
		fanout: maps.Clone(e.fanout), info: map[algebra.Op]*opInfo{}, consts: maps.Clone(e.consts),
		reach: map[reachKey][]ID{}, topK: map[*algebra.OrderBy]topBound{},
		pathLinks: map[*algebra.PathLink]*pathLink{}, pathSites: map[*algebra.PathPattern]*pathSite{},
		pathOrders: maps.Clone(e.pathOrders),
		bySubject:  maps.Clone(e.bySubject), byObject: maps.Clone(e.byObject), scanRows: maps.Clone(e.scanRows),
		narrowRows: maps.Clone(e.narrowRows),
		constKeys:  map[*algebra.Call]*[2]*builtin.Key{},
		filterVars: maps.Clone(e.filterVars), filterConj: maps.Clone(e.filterConj), shares: maps.Clone(e.shares),
		limited: maps.Clone(e.limited), groupKeys: maps.Clone(e.groupKeys), minusBy: maps.Clone(e.minusBy), minusNot: maps.Clone(e.minusNot), outerNoted: map[algebra.Op]bool{}, substVars: maps.Clone(e.substVars),
		work: &worker{run: run},
	}
	w.fn.Room, w.fn.Stop = w.room, run.ctx.Err
	return w
}

// shared is the run this evaluator takes part in, or nil.
func (e *evaluator) shared() *forkRun {
	if e.work != nil {
		return e.work.run
	}
	return e.par
}

// ways is how many goroutines share the scan this evaluator takes part in. Each counts the far probes of its own
// cursors, about 1/ways of them, so a copy is earned (evaluator.earned) after as many far probes in all as on one
// goroutine.
func (e *evaluator) ways() int64 {
	if run := e.shared(); run != nil && run.ways > 0 {
		return run.ways
	}
	return 1
}

// adoptDue reports whether a cursor's probes should look for a copy another goroutine of the run built: every 64
// far probes, not only when they double (subjectIndex, objectIndex), since each goroutine counts only its own.
func (e *evaluator) adoptDue(c *index.Cursor) bool {
	far := c.Far()
	return far > 0 && far&63 == 0 && e.shared() != nil
}

// sharedCopy returns the copies of k that another goroutine of the run built.
func (e *evaluator) sharedCopy(k fanoutKey) (*index.Graph, *index.ObjectTable) {
	run := e.shared()
	if run == nil {
		return nil, nil
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.subs[k], run.objs[k]
}

// shareCopy offers a copy this goroutine built to the others of its run.
func (e *evaluator) shareCopy(k fanoutKey, sub *index.Graph, obj *index.ObjectTable) {
	run := e.shared()
	if run == nil {
		return
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if sub != nil {
		if run.subs == nil {
			run.subs = map[fanoutKey]*index.Graph{}
		}
		run.subs[k] = sub
	}
	if obj != nil {
		if run.objs == nil {
			run.objs = map[fanoutKey]*index.ObjectTable{}
		}
		run.objs[k] = obj
	}
}

// minusBuilt is a MINUS's index of its right side's rows (minusIndex).
type minusBuilt struct {
	right [][]ID
	slot  int
	by    map[ID][]int32
}

// minusIndexOf is minusIndex of x's right side, kept when the query may use workers: a worker evaluating a chain
// with a MINUS in it reads the index the query's goroutine built instead of building its own.
func (e *evaluator) minusIndexOf(x *algebra.Minus, right [][]ID) (int, map[ID][]int32) {
	if e.opt.Cores == nil {
		return e.minusIndex(right, e.infoOf(x.Left).mentioned)
	}
	if b, ok := e.minusBy[x]; ok && len(b.right) == len(right) && (len(right) == 0 || &b.right[0] == &right[0]) {
		return b.slot, b.by
	}
	slot, by := e.minusIndex(right, e.infoOf(x.Left).mentioned)
	if e.minusBy == nil {
		e.minusBy = map[*algebra.Minus]minusBuilt{}
	}
	e.minusBy[x] = minusBuilt{right, slot, by}
	return slot, by
}
