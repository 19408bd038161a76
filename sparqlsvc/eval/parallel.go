package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

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
}

// Chunks is how many chunks of a scan workers have evaluated and the queries used.
func (c *Cores) Chunks() int64 { return c.chunks.Load() }

// Redone is how many chunks a worker claimed and the query's goroutine evaluated again.
func (c *Cores) Redone() int64 { return c.redone.Load() }

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

// minForkRows is the fewest rows of a join's first pattern worth a worker: below it, starting one costs about
// what it saves.
const minForkRows = 1 << 15

// forkChunkRows is the least rows in one chunk of the first pattern's range; the range is cut in at most
// maxForkChunks chunks, claimed in turn by the query's own goroutine and its workers.
const (
	forkChunkRows = 1024
	maxForkChunks = 256
)

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
	// those it has delivered (parallelScan).
	buf *chunkResult
}

// forkRun is one parallel evaluation of a forkSite's chain.
type forkRun struct {
	site   *forkSite
	chunks []index.Matches
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
	// copies are the predicates' sorted copies and tables of objects that the query's goroutine or a worker built
	// during the run (subjectIndex, objectIndex): built once, by whoever earned it first, and read by all.
	mu   sync.Mutex
	subs map[fanoutKey]*index.Graph
	objs map[fanoutKey]*index.ObjectTable
	// free holds chunk buffers the query's goroutine has replayed, for workers to fill again: no allocation and
	// no garbage per chunk.
	free chan []ID
}

// chunkResult is one chunk's solutions, as a worker left them.
type chunkResult struct {
	ready  chan struct{} // closed when the worker is done with the chunk
	rows   []ID          // the solutions, nvars ids each
	bytes  int64         // what rows cost against the budget
	failed bool          // no complete answer (an error, the budget, a panic): the query's goroutine does it again
	mine   bool          // evaluated ahead by the query's goroutine, not by a worker
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
		if e.belowBinds(x) != nil {
			return nil
		}
		for _, f := range x.Exprs {
			if !pushable(f) {
				return nil
			}
		}
		return e.forkLeaf(x.Op)
	case *algebra.Join:
		if e.pathFirst(x, e.newRow()) {
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
	if e.opt.Cores == nil || e.subst > 0 || e.trial != nil || !e.stopAt.IsZero() || e.multi || len(e.active) != 1 ||
		e.active[0].f != nil {
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
			b.rows = append(b.rows, row...)
			if len(b.rows)&1023 == 0 {
				e.checkLent()
			}
			return true
		}
		return emit(row)
	}, errp)
}

// forkScan is matchFrom's first step over the leftmost BGP of a registered chain. In the query's goroutine it
// starts workers when the range is large and the pool has free cores; in a worker it evaluates the chunks the
// worker claims. done false: go on as usual.
func (e *evaluator) forkScan(ts []algebra.Triple, ranges []index.Matches, order []int, row []ID, st *bgpState, checks [][]algebra.Expr, slots [3]int, free [3]bool, emit emitFn, errp *error) (done, cont bool) {
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
	if w := e.work; w != nil {
		if site != w.top {
			return false, false // a chain inside the worker's own (a materialised operand): evaluated as usual
		}
		return true, e.workChunks(w.run, ts, order, row, st, checks, slots, free, emit, errp)
	}
	if e.par != nil {
		return false, false // one parallel evaluation at a time per query
	}
	total := 0
	for _, m := range ranges {
		total += m.Len()
	}
	if total < cmp.Or(e.opt.forkMin, minForkRows) {
		return false, false
	}
	return e.parallelScan(site, ranges, total, ts, order, row, st, checks, slots, free, emit, errp)
}

// worker is what a worker's evaluator knows of its run.
type worker struct {
	run *forkRun
	top *forkSite // the site its evaluation of the chain registered
	cur *chunkResult
	// published is what of the worker's own state run.used counts.
	published int64
}

// chunkOf cuts ranges into chunks of about size rows.
func chunkOf(ranges []index.Matches, total, least int) []index.Matches {
	size := max(least, (total+maxForkChunks-1)/maxForkChunks)
	var out []index.Matches
	for _, m := range ranges {
		for lo := 0; lo < len(m.Rows); lo += size {
			out = append(out, index.Matches{Rows: m.Rows[lo:min(lo+size, len(m.Rows))], Perm: m.Perm})
		}
	}
	return out
}

func (e *evaluator) parallelScan(site *forkSite, ranges []index.Matches, total int, ts []algebra.Triple, order []int, row []ID, st *bgpState, checks [][]algebra.Expr, slots [3]int, free [3]bool, emit emitFn, errp *error) (done, cont bool) {
	chunks := chunkOf(ranges, total, cmp.Or(e.opt.forkChunk, forkChunkRows))
	room := e.opt.MaxMemory - e.bytes - e.t.bytes
	if len(chunks) < 2 || room <= 0 || e.nvars == 0 {
		return false, false
	}
	run := &forkRun{site: site, chunks: chunks, res: make([]chunkResult, len(chunks)), budget: room / 2,
		maxRow: int64(e.opt.MaxRows-e.held) / 2, nvars: e.nvars}
	for i := range run.res {
		run.res[i].ready = make(chan struct{})
	}
	run.ctx, run.cancel = context.WithCancel(e.ctx)
	run.free = make(chan []ID, 4)
	started := 0
	for started < e.opt.Cores.Size()-1 && started < len(chunks)/2 && e.opt.Cores.tryExtra() {
		started++
	}
	if started == 0 {
		run.cancel()
		return false, false
	}
	run.ways = int64(started + 1)
	for range started {
		run.wg.Add(1)
		go e.child(run).startWorker() // the child is made here: it copies this goroutine's state
	}
	e.par = run
	defer e.endRun(run)
	inline := func(c int) bool {
		m := chunks[c]
		for j := 0; j < m.Len(); j++ {
			if e.steps++; e.steps >= e.nextCheck {
				if err := e.interrupted(); err != nil {
					*errp = err
					return false
				}
				e.checkLent()
			}
			ms, mp, mo := m.At(j)
			if !e.bindAndMatch(ts, order, 0, row, st, checks, slots, free, [3]ID{ms, mp, mo}, emit, errp) {
				return false
			}
		}
		return true
	}
	scratch := make([]ID, e.nvars)
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
		rows := r.rows
		r.rows = nil
		run.used.Add(-r.bytes)
		run.rows.Add(-int64(len(rows) / run.nvars))
		defer func() {
			select {
			case run.free <- rows[:0]:
			default:
			}
		}()
		for i, n := 0, 0; i+run.nvars <= len(rows); i, n = i+run.nvars, n+1 {
			if err := e.check(); err != nil {
				*errp = err
				return false
			}
			if n&1023 == 0 {
				e.checkLent()
			}
			copy(scratch, rows[i:i+run.nvars])
			if !site.emit(scratch) {
				return false
			}
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
		select {
		case r.rows = <-run.free:
		default:
		}
		site.buf = r
		ok := inline(c)
		site.buf = nil
		if ok {
			r.bytes = int64(cap(r.rows)) * 4
			run.rows.Add(int64(len(r.rows) / run.nvars))
			run.used.Add(r.bytes)
		}
		close(r.ready)
		return ok
	}
	// Chunks are delivered in order. The next one is evaluated straight into the consumer when it is this
	// goroutine's to claim; a worker's is replayed once ready, and while it is not, this goroutine evaluates the
	// next unclaimed chunk ahead.
	emitted := 0
	for emitted < len(chunks) {
		if emitted < int(run.next.Load()) {
			if !ready(emitted) {
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
			run.res[i].rows = nil
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
		c.rows = append(c.rows, row...)
		if len(c.rows)&1023 == 0 {
			if run.used.Load()+int64(cap(c.rows))*4+w.bytes+w.t.bytes-w.work.published > run.budget ||
				run.rows.Load()+int64(len(c.rows)/max(run.nvars, 1)) > run.maxRow {
				return false
			}
		}
		return true
	}, &err)
}

// workChunks is a worker's first step over the chain's leftmost BGP: it claims chunks in turn and evaluates each
// one's rows through the rest of the chain into the chunk's result.
func (e *evaluator) workChunks(run *forkRun, ts []algebra.Triple, order []int, row []ID, st *bgpState, checks [][]algebra.Expr, slots [3]int, free [3]bool, emit emitFn, errp *error) bool {
	for {
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
		select {
		case r.rows = <-run.free:
		default:
		}
		m := run.chunks[c]
		ok := true
		for j := 0; j < m.Len() && ok; j++ {
			if e.steps++; e.steps >= e.nextCheck {
				if err := e.interrupted(); err != nil {
					*errp = err
					ok = false
					break
				}
			}
			ms, mp, mo := m.At(j)
			ok = e.bindAndMatch(ts, order, 0, row, st, checks, slots, free, [3]ID{ms, mp, mo}, emit, errp)
		}
		e.work.cur = nil
		if !ok || *errp != nil {
			r.failed, r.rows = true, nil
			close(r.ready)
			if *errp == nil {
				*errp = errWorkerStop
			}
			return false
		}
		r.bytes = int64(cap(r.rows)) * 4
		run.rows.Add(int64(len(r.rows) / run.nvars))
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
	opt.MaxRows = int(max(run.maxRow, 1))
	w := &evaluator{
		ctx: run.ctx, ds: e.ds, t: newTerms(e.ds.Dict), fn: builtin.NewContext(e.fn.Now, e.fn.Base), opt: opt,
		slots: maps.Clone(e.slots), names: e.names, nvars: e.nvars, active: e.active, multi: e.multi,
		bindVs: e.bindVs, top: e.top, askForm: e.askForm,
		cache: maps.Clone(e.cache), safeC: maps.Clone(e.safeC), orders: maps.Clone(e.orders),
		scans: maps.Clone(e.scans), pushed: maps.Clone(e.pushed), bgps: map[*algebra.BGP]*bgpState{},
		fanout: maps.Clone(e.fanout), info: map[algebra.Op]*opInfo{}, consts: maps.Clone(e.consts),
		reach: map[reachKey][]ID{}, topK: map[*algebra.OrderBy]int64{},
		pathCursors: map[*algebra.PathLink][]probeCursor{}, pathSites: map[*algebra.PathPattern]*pathSite{},
		bySubject: maps.Clone(e.bySubject), byObject: maps.Clone(e.byObject),
		constKeys:  map[*algebra.Call]*[2]*builtin.Key{},
		filterVars: maps.Clone(e.filterVars), filterConj: maps.Clone(e.filterConj), shares: maps.Clone(e.shares),
		limited: maps.Clone(e.limited), groupKeys: maps.Clone(e.groupKeys), minusBy: maps.Clone(e.minusBy), outerNoted: map[algebra.Op]bool{}, substVars: maps.Clone(e.substVars),
		work: &worker{run: run},
	}
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
