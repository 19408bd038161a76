package eval

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// Options bound and configure one query.
type Options struct {
	// Timeout, when positive, ends the query with ErrTimeout.
	Timeout time.Duration
	// MaxRows bounds the solutions the query may hold in memory at once (sorting, grouping, DISTINCT, materialised
	// operands); 0 means DefaultMaxRows.
	MaxRows int
	// MaxMemory bounds, in bytes, what the query holds: the rows of the operators that must keep them (ORDER BY,
	// GROUP BY, DISTINCT, MINUS, materialised operands, CONSTRUCT's and DESCRIBE's duplicate sets, memoised path
	// closures) and the terms it computes. 0 means DefaultMaxMemory. Rows passed on to the caller are not held.
	MaxMemory int64
	// MaxResults, when positive, bounds the solutions (SELECT) or triples (CONSTRUCT, DESCRIBE) a query answers:
	// Stream delivers that many and returns ErrTruncated.
	MaxResults int
	// Now is the query time NOW() returns; zero means the current time.
	Now time.Time
	// Service, when set, evaluates SERVICE patterns; nil makes them an error (no outbound calls by default).
	Service ServiceClient
	// semiJoin, for tests, makes every EXISTS that may be answered from a set of its pattern's solutions
	// (existsBySet) build it at its first row (> 0), or none do (< 0); 0 decides by the estimates.
	semiJoin int
	// hashStar, for tests, makes every narrowed star of two patterns that hashStar can read that way be read so
	// (> 0), or none (< 0), and plan leave such stars in the order of their narrowed range (no narrowedScan), so
	// the two are compared with the probes they replace; 0 decides by the sizes.
	hashStar int
	// hashJoin, for tests, makes every BGP of two stars that hashJoin can evaluate be evaluated so (> 0), or none
	// (< 0); 0 decides by the plans' costs. onHashJoin, when set, is told of each hash join: true once its table is
	// built, false when the table would pass MaxMemory and the bind join answers instead.
	hashJoin   int
	onHashJoin func(built bool)
	// orderScanRows, for tests, makes orderScan try every ORDER BY … LIMIT it can read in its first key's order,
	// giving up after that many rows (> 0), or none (< 0); 0 decides by the plans' costs.
	orderScanRows int
	// monthSlots, for tests, is the size (a power of two) of a GROUP BY key's table of ids by month (monthMemo);
	// 0: 1<<monthMemoBits.
	monthSlots int
	// optBits, for tests, makes every FILTER over an OPTIONAL that optFilter may answer from a bitmap build it at
	// its first solution (> 0), or none (< 0); 0 decides by the solutions answered as written.
	optBits int
	// plainJoins, for tests, evaluates every join and every FILTER over a join as written: no domain first
	// (pathdomain.go), no conjuncts moved below the join (belowJoin).
	plainJoins bool
	// replayMax, for tests, replaces replayMaxIDs, the ids joinReplay keeps of a right operand evaluated once
	// (> 0), or keeps none, so that every right operand is evaluated per left solution (< 0).
	replayMax int
	// sortedFeed, for tests, replaces sortedFeedGroups (> 0), or keeps no solutions to sort (< 0); sortedKeepMax,
	// when > 0, is the most solutions a cache keeps before it hands them on (in place of the budget's half).
	sortedFeed, sortedKeepMax int
	// noSubMemo, for tests, evaluates every subquery as written: none replays a twin's kept solutions (subMemo).
	noSubMemo bool
	// noGate, for tests, evaluates every OPTIONAL's right side for each left solution (no leftGate).
	noGate bool
	// noNarrow, for tests, evaluates every operand that is not safe with the input's bindings on its own and joins
	// it (independent), never with the narrowed bindings of narrowedExec.
	noNarrow bool
	// noMinusNot, for tests, evaluates every MINUS as written: its right operand on its own, held (no FILTER NOT
	// EXISTS in its place, no OPTIONAL of it made an inner join: minusPlanOf).
	noMinusNot bool
	// Memory, when set, is the server's budget shared by the queries running at once (memory.go): what this
	// query holds is charged on it as well, and a query that would pass it stops with ErrServerMemory.
	Memory *Memory
	// Cores, when set, is the server's pool of core tokens (parallel.go): the query holds one while it runs and
	// may evaluate a large scan on more cores while the pool has free ones. nil: one goroutine.
	Cores *Cores
	// forkMin and forkChunk, when positive, replace minForkRows and forkChunkRows (tests: many small chunks on
	// small data); onChunk, when set, is called as a worker starts a chunk (tests: a worker's panic).
	forkMin, forkChunk int
	// hopPrefillMin, when not 0, replaces hopPrefillMin (grouphop.go): tests fill groupHop's table first on small
	// data (or, negative, never).
	hopPrefillMin int
	// checkAt, when positive, is how many left solutions a join checks against its check pattern before reading the
	// pattern's subjects into a bitmap (checkJoin), so that tests reach the bitmap on small data.
	checkAt int
	// hopCacheJudged, when not 0, replaces cacheJudged (grouphopfirst.go), so that tests reach the judgement on
	// small data.
	hopCacheJudged int
	onChunk        func()
	// onOwnChunk, when set, is called as the query's goroutine starts a chunk while workers run (tests: it leaves
	// workers time to take part on tiny data).
	onOwnChunk func()
	// forkCosts, when set, replaces the measured times of a scan's chunks (their chain's and their consumer's,
	// measured where: costTimed, costWorker, costReplay) on which the split is decided (tests: a decision that
	// does not depend on the machine's speed or load).
	forkCosts func(where int, chain, consumer time.Duration) (time.Duration, time.Duration)
}

// ServiceClient runs a SERVICE pattern at a remote endpoint and returns its solutions.
type ServiceClient interface {
	Query(ctx context.Context, endpoint string, pattern algebra.Op, vars []algebra.Var) (vars2 []string, rows [][]rdf.Term, err error)
}

const (
	DefaultMaxRows = 5_000_000
	// DefaultMaxMemory is the per-query budget of held rows and computed terms when Options.MaxMemory is 0.
	DefaultMaxMemory = 256 << 20
)

var (
	// ErrTimeout reports a query stopped by its time limit.
	ErrTimeout = errors.New("sparql: query exceeded its time limit")
	// ErrTooLarge reports a query stopped by its memory budget.
	ErrTooLarge = errors.New("sparql: query exceeded its memory budget")
	// ErrTruncated reports an answer cut at Options.MaxResults: everything before it was delivered.
	ErrTruncated = errors.New("sparql: the answer was cut at its result limit")
	// ErrService reports a SERVICE pattern without a configured client.
	ErrService = errors.New("sparql: SERVICE is not enabled on this endpoint")
)

// Result is the answer to a query: solutions (SELECT), a boolean (ASK) or triples (CONSTRUCT, DESCRIBE).
type Result struct {
	Form    algebra.Form
	Vars    []string
	Rows    [][]rdf.Term
	Boolean bool
	Triples []rdf.Quad
}

type evaluator struct {
	ctx         context.Context
	ds          *Dataset
	t           *terms
	fn          *builtin.Context
	opt         Options
	slots       map[algebra.Var]int
	names       []algebra.Var
	nvars       int
	active      []graphRef // graphs BGPs match against
	steps       int
	outerNoted  map[algebra.Op]bool             // FILTERs and BINDs whose EXISTS know their operand (noteOuter)
	semiSets    int                             // sets built by existsBySet
	nestedScans int                             // of them, those read by nestedSetScan
	subjectSets int                             // and by subjectSet
	chainSets   int                             // and by chainSet
	narrowSets  int                             // and extremes of a pattern narrowed by the row's bound (narrowExtreme)
	bitStars    int                             // stars' GROUP BYs counted from bitmaps of their subjects (starBits)
	narrowRuns  int                             // operands evaluated with narrowed bindings (narrowedExec)
	spread      map[crossKey]algebra.Op         // a BGP joined with a UNION, as a union of merged BGPs (unionSpread), or nil
	unionGroups map[unionGroupKey][]unionBranch // groups over a UNION, taken branch by branch (groupUnion), or nil
	trial       *trialWatch                     // the trial evaluation in progress (trialSet), or nil
	nextCheck   int                             // the steps at which loops next call interrupted
	probes      int                             // index probes (probe), and those of them far from their cursor's previous one: effort
	farProbes   int
	stopWork    int         // when not zero, the steps at which a trial evaluation ends with errTrialOver (trialSet)
	inExists    *existsJoin // the EXISTS being evaluated per row, whose pattern is running (noteOuter)
	held        int         // rows held in memory by materialising operators
	bytes       int64       // bytes held by materialising operators (the terms overlay counts its own)
	charged     int64       // what the query has charged on opt.Memory (memory.go)
	sent        int         // solutions or triples delivered to the sink
	cache       map[cacheKey][][]ID
	safeC       map[safeKey]bool
	safeRecent  [4]safeAnswer // the latest answers of safe, checked before safeC
	safeNext    int
	orders      map[orderKey][]int
	scans       map[orderKey]scanMode             // plan's choice to read the first pattern in subject order
	splits      map[*algebra.BGP]*starSplit       // BGPs as two stars a hash join may join (split), nil if not
	valuesJoins map[*algebra.Join]*hashPlan       // VALUES joined to a BGP as a hash join (valuesHashPlan), nil if not
	valuesLast  map[*algebra.Join]*algebra.Join   // a BGP joined to a VALUES written after it, as VALUES first (valuesFirst)
	pushed      map[*algebra.Filter]algebra.Op    // FILTERs with conjuncts moved below the BINDs under them (belowBinds)
	crossSplits map[crossKey]algebra.Op           // joins of a cross product that paths connect, as a chain (crossSplit)
	seqJoins    map[crossKey]algebra.Op           // joins with path patterns merged at their joints (seqJoin), nil if none
	jointSeqs   map[*algebra.PathSequence]bool    // the sequences seqJoin made: whether a joint's value must be a node
	seqMerges   int                               // joins seqJoin rewrote (tests)
	distinctAll bool                              // the query has a COUNT(DISTINCT *) (distinctAllIn): no seqJoin
	checkSites  map[*algebra.BGP]*checkSite       // joins checked against a pattern's subjects (checkJoinOf), nil if not
	tables      map[*algebra.Table]*tableIDs      // VALUES's slots and ids, looked up once (tableIDsOf)
	keyBinds    map[*algebra.Group]*keyBind       // groups on a BIND's variable, rewritten (keyBindOf)
	unprojected map[*algebra.Group]*algebra.Group // groups over a subquery's projection, without it (unprojectedOf)
	pathGroups  map[*algebra.Group]*closureGroup  // groups over a closure joined with a pattern (closureGroupOf)
	hopGroups   map[*algebra.Group]*hopGroup      // groups over a star joined through a hop (hopGroupOf)
	hopFirsts   map[*algebra.Group]*hopFirst      // such groups started from the hop (hopFirstOf)
	leafGroups  map[*algebra.Group]*groupLeaf     // groups over a join whose last pattern is only counted (groupLeafOf)
	substVars   map[*algebra.Filter]varset        // the BINDs' variables belowBinds replaced by their expressions
	bgps        map[*algebra.BGP]*bgpState
	fanout      map[fanoutKey]float64
	info        map[algebra.Op]*opInfo
	subst       int  // > 0 inside EXISTS: substitute bindings everywhere
	multi       bool // graphs with their own dictionaries take part (Dataset.Extra)
	consts      map[rdf.Term]ID
	reach       map[reachKey][]ID
	curRow      []ID                               // the solution an Extend is evaluating, which scopes BNODE(label)
	bindVs      varset                             // variables bound by BIND/SELECT expressions
	direct      map[*algebra.Extend]bool           // expressions whose values are read only within their solution (markDirect)
	lowest      map[*algebra.Extend]bool           // the deepest of each chain of them, which empties the scratch list per solution
	topK        map[*algebra.OrderBy]topBound      // ORDER BYs under a LIMIT: how many first solutions the slice can use
	topReads    map[*algebra.OrderBy]*topRead      // ORDER BYs whose BGP may be read in the first key's order (topReadOf)
	lateBinds   map[*algebra.OrderBy]*lateBinds    // ORDER BYs under a LIMIT whose SELECT expressions wait for the survivors (lateBindsOf)
	argStack    []rdf.Term                         // the evaluated arguments of the calls being evaluated (args)
	pathLinks   map[*algebra.PathLink]*pathLink    // per link of a property path (linkState)
	pathSites   map[*algebra.PathPattern]*pathSite // per property path pattern (pathPattern)
	pathOrders  map[pathOrderKey]bool              // pathFirst's costed choices (pathFirstCosted)
	domainPlans map[domainKey]*domainPlan          // joins that start from their path's domain (domainFirstOf)
	farOrders   map[pathOrderKey]bool              // joins that start from their path's far end (farFirst)
	bySubject   map[fanoutKey]*index.Graph         // predicates sorted by subject (subjectIndex)
	scanRows    map[fanoutKey][]index.Row          // predicates' rows in subject order, for reading only (subjectScan)
	narrowRows  map[narrowKey]narrowedRows         // first patterns' narrowed rows in subject order (narrowedScan)
	byObject    map[fanoutKey]*index.ObjectTable   // predicates' tables of objects (objectIndex)
	existsMemos map[*algebra.Exists]*existsMemo    // EXISTS answers by the values the pattern sees
	lastExists  *algebra.Exists                    // the EXISTS existsMemoOf last returned, and its memo
	lastMemo    *existsMemo
	optFilters  map[*algebra.Filter]*optFilter     // EXISTS patterns that are a FILTER over an OPTIONAL (optFilterOf)
	leftGates   map[*algebra.LeftJoin]*leftGate    // OPTIONALs whose right side has a pattern ?s <p> <o> (leftGateOf)
	constKeys   map[*algebra.Call]*[2]*builtin.Key // comparisons' constant operands, parsed (argKey)
	scratchKeys [2]builtin.Key
	keyMemoID   ID // the variable value whose MIN/MAX key keyMemo is (accumulate)
	keyMemo     builtin.Key
	lenMemo     [2]ID                            // a string's dictionary id and the inline id of its STRLEN (minMaxValueID)
	distinctKey []byte                           // the key of a DISTINCT aggregate's value (distinctMet), reused
	lowerBuf    []byte                           // a text lowered by lowerContains, reused
	testRecent  [4]recentTest                    // the last conditions testMemoOf looked up, newest first
	testMemos   map[*algebra.Call]*testMemo      // FILTER conditions' answers by their one variable (testMemoOf); nil: not memoised
	varRefs     []varRef                         // varSlot
	filterVars  map[*algebra.BGP][]varset        // the variables of the pushable FILTER conjuncts over a BGP (greedy)
	filterConj  map[*algebra.BGP][]algebra.Expr  // those conjuncts (rangeShare)
	shares      map[shareKey]float64             // rangeShare's answers
	conjShares  map[conjKey]conjShare            // conjunctShare's answers
	cmpSites    callMemo[cmpSite]                // what each comparison operator is (cmpSiteOf)
	bindMemos   map[*algebra.Extend]*bindMemo    // BIND values by their one input (bindMemoOf); nil: not memoised
	sumMemos    map[*algebra.Aggregate]*sumMemo  // SUM/AVG operands' numbers by their inputs (sumMemoOf); nil: not memoised
	noMemo      bool                             // tests: neither memo (the reference they are held to)
	noValues    bool                             // tests: arithmetic on terms only (the reference values.go is held to)
	noCompile   bool                             // tests: Value trees walked per row (the reference compiled.go is held to)
	plainKeys   bool                             // tests: every computed group key evaluated to a term (the reference keyID is held to)
	progs       callMemo[progEntry]              // arithmetic trees compiled (progOf)
	progNodes   map[string]vnode                 // compiled nodes by their tree's text, one for equal trees (compileShared)
	numProgs    siteMemo[algebra.Expr, numEntry] // numberValue's trees compiled (numProgOf)
	lastDate    struct {                         // the date value read last (dateValue)
		id ID
		v  builtin.DateValue
		ok bool
	}
	runMemo [2]struct { // the runs of index.FieldRuns found last, per level (runField)
		runs [2]fieldRun
		next int
	}
	constNums     [4]constNum // constant operands' numbers met last (constNumber)
	nextConst     int
	constVals     [4]constVal // constant operands' Values met last (argValue)
	nextConstVal  int
	valueSites    [4]algebra.Expr // comparisons' operands numberID could not compute, met last (valueSite)
	nextValueSite int
	eqHalves      map[*algebra.Call]*[2]*algebra.Call // "=" as ">=" and "<=" (valueRanges)
	inEquals      map[inItem]*algebra.Call            // an IN's constants as "=" (valueRanges)
	blocks        [][2]ID                             // valueBlocks
	top           algebra.Op                          // the query's pattern
	askForm       bool                                // ASK: evaluation stops at the first solution
	fork          *forkSite                           // the chain whose first pattern may be shared with workers (parallel.go)
	par           *forkRun                            // the parallel evaluation in progress in this goroutine
	work          *worker                             // set in a worker's evaluator
	limited       map[*algebra.BGP]bool               // BGPs under a LIMIT (limitedLeaf)
	groupKeys     map[*algebra.BGP]int                // BGPs under a GROUP BY of one variable: its slot (groupedBy)
	minusBy       map[*algebra.Minus]minusBuilt       // MINUS's index of its right side, kept for workers (minusIndexOf)
	inMemos       map[*algebra.In]*inMemo             // IN over constants: answers by the value's id (inMemoOf)
	minusNot      map[*algebra.Minus]*minusPlan       // MINUS's right operand as evaluated, and as FILTER NOT EXISTS (minusPlanOf)
	subRoots      map[algebra.Op]*subRoot             // subqueries that share a canonical form (sharedSubqueries), nil if none
	subKept       map[subKey]*subKept                 // their kept solutions (subMemo)
	sortedFeeds   int                                 // solution caches that kept solutions to sort (groupsorted.go)
}

// Sink receives a query's answer as it is produced, so nothing but the operators that must hold rows keeps it in
// memory. An error from a Sink method stops the query and is returned by Stream.
type Sink interface {
	// Begin is called once, first, for SELECT with the projected variables.
	Begin(vars []string) error
	// Row is one solution aligned with Begin's variables (a zero Term is unbound); the slice is reused.
	Row(values []rdf.Term) error
	// Boolean is the answer of ASK.
	Boolean(v bool) error
	// Triple is one triple of a CONSTRUCT or DESCRIBE answer, each delivered once.
	Triple(t rdf.Quad) error
}

// Run evaluates a translated query and returns its whole answer in memory (tests, benchmarks, small answers).
func Run(ctx context.Context, ds *Dataset, q *algebra.Query, opt Options) (*Result, error) {
	c := &collector{res: &Result{Form: q.Form}}
	if err := Stream(ctx, ds, q, opt, c); err != nil {
		return nil, err
	}
	return c.res, nil
}

type collector struct{ res *Result }

func (c *collector) Begin(vars []string) error { c.res.Vars = vars; return nil }
func (c *collector) Row(v []rdf.Term) error {
	c.res.Rows = append(c.res.Rows, slices.Clone(v))
	return nil
}
func (c *collector) Boolean(v bool) error    { c.res.Boolean = v; return nil }
func (c *collector) Triple(t rdf.Quad) error { c.res.Triples = append(c.res.Triples, t); return nil }

// Stream evaluates a translated query and delivers its answer to sink as it is produced. It returns ErrTimeout,
// ErrTooLarge, ErrTruncated (after delivering Options.MaxResults items), a sink's error, or the context's.
func Stream(ctx context.Context, ds *Dataset, q *algebra.Query, opt Options, sink Sink) error {
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	if opt.Cores != nil {
		opt.Cores.hold()
		defer opt.Cores.drop()
	}
	e := newEvaluator(ctx, ds, q, opt)
	defer e.unshare()
	var err error
	switch q.Form {
	case algebra.Select:
		err = e.selectQuery(q, sink)
	case algebra.Ask:
		found := false
		err = e.run(q.Op, e.newRow(), func([]ID) bool {
			found = true
			return false
		})
		if err == nil {
			err = sink.Boolean(found)
		}
	case algebra.Construct:
		err = e.construct(q, sink)
	case algebra.Describe:
		err = e.describe(q, sink)
	default:
		err = fmt.Errorf("sparql: unknown query form %v", q.Form)
	}
	return e.wrapErr(err)
}

// newEvaluator prepares the evaluation of q: defaults, the query's variables, BNODE's scoping.
func newEvaluator(ctx context.Context, ds *Dataset, q *algebra.Query, opt Options) *evaluator {
	if opt.MaxRows <= 0 {
		opt.MaxRows = DefaultMaxRows
	}
	if opt.MaxMemory <= 0 {
		opt.MaxMemory = DefaultMaxMemory
	}
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	e := &evaluator{
		ctx: ctx, ds: ds, t: newTerms(ds.Dict), fn: builtin.NewContext(now, q.Base), opt: opt,
		slots: map[algebra.Var]int{}, cache: map[cacheKey][][]ID{}, safeC: map[safeKey]bool{},
		orders: map[orderKey][]int{}, info: map[algebra.Op]*opInfo{}, bgps: map[*algebra.BGP]*bgpState{},
		fanout: map[fanoutKey]float64{}, topK: map[*algebra.OrderBy]topBound{},
		pathLinks: map[*algebra.PathLink]*pathLink{}, pathSites: map[*algebra.PathPattern]*pathSite{}, pathOrders: map[pathOrderKey]bool{}, bySubject: map[fanoutKey]*index.Graph{},
		byObject:  map[fanoutKey]*index.ObjectTable{},
		constKeys: map[*algebra.Call]*[2]*builtin.Key{}, filterVars: map[*algebra.BGP][]varset{},
		consts: map[rdf.Term]ID{}, reach: map[reachKey][]ID{}, outerNoted: map[algebra.Op]bool{},
	}
	e.top, e.askForm = q.Op, q.Form == algebra.Ask
	e.fn.Room, e.fn.Stop = e.room, ctx.Err
	e.active = e.defaultGraphs()
	// BNODE(label) gives one blank node per label within a solution (§17.4.2.9). A solution is identified by its
	// bindings other than those expressions add, so (BNODE(?a) AS ?x) (BNODE(?a) AS ?y) agree.
	bnodes := map[string]rdf.Term{}
	n := 0
	var kb []byte
	e.fn.BNode = func(label string, hasLabel bool) rdf.Term {
		n++
		fresh := rdf.Blank(fmt.Sprintf("bn%d", n))
		if !hasLabel {
			return fresh
		}
		kb = kb[:0]
		for i, id := range e.curRow {
			if i < 64 && e.bindVs.bits&(1<<uint(i)) != 0 {
				id = 0
			}
			kb = binary.LittleEndian.AppendUint32(kb, id)
		}
		kb = append(kb, label...)
		if b, ok := bnodes[string(kb)]; ok {
			return b
		}
		bnodes[string(kb)] = fresh
		return fresh
	}
	e.collectVars(q)
	e.distinctAll = distinctAllIn(q.Op)
	if !opt.noSubMemo {
		e.subRoots = e.sharedSubqueries(q.Op)
	}
	return e
}

func (e *evaluator) wrapErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return err
}

// check is called in every loop that produces rows: it notices cancellation and time-outs without a syscall per
// row, and terms computed since the last check (the overlay grows with every new value a query binds).
func (e *evaluator) check() error {
	if e.steps++; e.steps >= e.nextCheck {
		if err := e.interrupted(); err != nil {
			return err
		}
	}
	return e.budget()
}

// interrupted notices cancellation, time-outs and the end of a trial evaluation's work (trialSet); loops call it
// once their steps pass nextCheck, which it moves 1024 steps on.
func (e *evaluator) interrupted() error {
	e.nextCheck = e.steps + 1024
	if err := e.ctx.Err(); err != nil {
		return err
	}
	if w := e.effort(); e.stopWork != 0 && (w >= e.stopWork || e.trial.overdue(w)) {
		return errTrialOver
	}
	return nil
}

// room is what the query may still hold, in bytes: what CONCAT and REPLACE may build (builtin.Context.Room).
func (e *evaluator) room() int64 { return e.opt.MaxMemory - e.bytes - e.t.bytes }

// rowCost is what one held row costs: its ids plus the slice header and allocation overhead.
func (e *evaluator) rowCost() int64 { return int64(4*e.nvars) + 48 }

// hold charges n held rows against the budget.
func (e *evaluator) hold(n int) error {
	e.held += n
	if e.held > e.opt.MaxRows {
		return ErrTooLarge
	}
	return e.holdBytes(int64(n) * e.rowCost())
}

// holdBytes charges n bytes of held state (sets, strings, memoised closures) against the budget.
func (e *evaluator) holdBytes(n int64) error {
	e.bytes += n
	if e.par != nil {
		e.checkLent()
	}
	return e.budget()
}

// deliver counts one answer item against Options.MaxResults before it goes to the sink.
func (e *evaluator) deliver() error {
	if e.opt.MaxResults > 0 && e.sent >= e.opt.MaxResults {
		return ErrTruncated
	}
	e.sent++
	return nil
}

func (e *evaluator) newRow() []ID { return make([]ID, e.nvars) }

func (e *evaluator) slot(v algebra.Var) int {
	if i, ok := e.slots[v]; ok {
		return i
	}
	i := len(e.names)
	e.slots[v] = i
	e.names = append(e.names, v)
	e.nvars = len(e.names)
	return i
}

// collectVars gives every variable of the query, including those of sub-queries and EXISTS patterns, a slot.
func (e *evaluator) collectVars(q *algebra.Query) {
	walkVars(q.Op, func(v algebra.Var) { e.slot(v) }, func(x *algebra.Extend) { e.bindVs = e.bindVs.with(e.slot(x.Var)) })
	node := func(n algebra.Node) {
		if n.IsVar() {
			e.slot(n.Var)
		}
	}
	for _, t := range q.Template {
		node(t.S)
		node(t.P)
		node(t.O)
	}
	for _, n := range q.Describe {
		node(n)
	}
}

// walkVars calls onVar for every variable op mentions, in its patterns, expressions, sub-queries and EXISTS
// patterns (repeats included), and onExtend (when not nil) for every BIND or SELECT expression.
func walkVars(op algebra.Op, onVar func(algebra.Var), onExtend func(*algebra.Extend)) {
	var walk func(op algebra.Op)
	walkExpr := func(x algebra.Expr) {
		algebra.WalkExpr(x, func(x algebra.Expr) bool {
			switch v := x.(type) {
			case algebra.Var:
				onVar(v)
			case *algebra.Exists:
				if v.Pattern != nil {
					walk(v.Pattern)
				}
			}
			return true
		})
	}
	node := func(n algebra.Node) {
		if n.IsVar() {
			onVar(n.Var)
		}
	}
	walk = func(op algebra.Op) {
		algebra.Walk(op, func(op algebra.Op) bool {
			switch x := op.(type) {
			case *algebra.BGP:
				for _, t := range x.Triples {
					node(t.S)
					node(t.P)
					node(t.O)
				}
			case *algebra.PathPattern:
				node(x.S)
				node(x.O)
			case *algebra.LeftJoin:
				if x.Expr != nil {
					walkExpr(x.Expr)
				}
			case *algebra.Filter:
				for _, f := range x.Exprs {
					walkExpr(f)
				}
			case *algebra.Graph:
				node(x.Name)
			case *algebra.Service:
				node(x.Name)
			case *algebra.Extend:
				onVar(x.Var)
				if onExtend != nil {
					onExtend(x)
				}
				walkExpr(x.Expr)
			case *algebra.Table:
				for _, v := range x.Vars {
					onVar(v)
				}
			case *algebra.Group:
				for _, k := range x.Keys {
					if k.Var != "" {
						onVar(k.Var)
					}
					walkExpr(k.Expr)
				}
				for _, a := range x.Aggregates {
					onVar(a.Var)
					if a.Aggregate.Expr != nil {
						walkExpr(a.Aggregate.Expr)
					}
				}
			case *algebra.OrderBy:
				for _, c := range x.Conds {
					walkExpr(c.Expr)
				}
			case *algebra.Project:
				for _, v := range x.Vars {
					onVar(v)
				}
			}
			return true
		})
	}
	walk(op)
}

// projection returns the variables of the outermost projection of op.
func projection(op algebra.Op) ([]algebra.Var, bool) {
	for {
		switch x := op.(type) {
		case *algebra.Project:
			return x.Vars, true
		case *algebra.Slice:
			op = x.Op
		case *algebra.Distinct:
			op = x.Op
		case *algebra.Reduced:
			op = x.Op
		case *algebra.OrderBy:
			op = x.Op
		default:
			return nil, false
		}
	}
}

// markDirect finds the expressions (SELECT expressions, BINDs) on the path from a SELECT's root down through
// projections, slices, filters and other such expressions. Their values flow only up that path to the sink, which
// reads them as terms, and nothing on the way holds solutions or compares ids (as joins, DISTINCT, grouping, ORDER
// BY and EXISTS do), so they need no interned id: interning costs a dictionary probe and an overlay entry per new
// value, and the overlay, charged against the memory budget, would grow with every row of a streamed answer.
// Their values go to the terms' scratch list instead, which the deepest of them empties for each new solution.
// The BINDs right under a GROUP BY whose keys and aggregates do not read their variables are marked too
// (markGroupDirect).
func (e *evaluator) markDirect(op algebra.Op) {
	e.direct = map[*algebra.Extend]bool{}
	e.lowest = map[*algebra.Extend]bool{}
	e.markGroupDirect(op)
	var deepest *algebra.Extend
	defer func() {
		if deepest != nil {
			e.lowest[deepest] = true
		}
	}()
	for {
		switch x := op.(type) {
		case *algebra.Project:
			op = x.Op
		case *algebra.Slice:
			op = x.Op
		case *algebra.Filter:
			for _, f := range x.Exprs {
				if hasExists(f) {
					return
				}
			}
			op = x.Op
		case *algebra.Extend:
			if hasExists(x.Expr) {
				return
			}
			e.direct[x] = true
			deepest = x
			op = x.Op
		default:
			return
		}
	}
}

// markGroupDirect marks the BINDs of the chain of BINDs and FILTERs right under each GROUP BY of op (outside EXISTS
// patterns) whose variables the group's keys and aggregates do not read. The group keeps only its keys and its
// aggregates' states, so such a value is read, if at all, by the BINDs and FILTERs above it in the chain, while its
// solution passes through: BIND(?price * 1.19 AS ?gross) BIND(ROUND(?gross) AS ?r) under GROUP BY on a band of ?r
// interned a new term for every offer's ?gross. COUNT(DISTINCT *) reads every variable, so it leaves the chain as
// it is; a chain stops at an EXISTS, which may evaluate another chain between a value and its readers.
func (e *evaluator) markGroupDirect(op algebra.Op) {
	var visit func(op algebra.Op)
	visit = func(op algebra.Op) {
		algebra.Walk(op, func(o algebra.Op) bool {
			switch x := o.(type) {
			case *algebra.Filter:
				// Groups inside an EXISTS pattern are left alone: the pattern is evaluated while the solution
				// testing it may hold scratch values.
				for _, f := range x.Exprs {
					if hasExists(f) {
						visit(x.Op)
						return false
					}
				}
			case *algebra.Extend:
				if hasExists(x.Expr) {
					visit(x.Op)
					return false
				}
			case *algebra.LeftJoin:
				if x.Expr != nil && hasExists(x.Expr) {
					visit(x.Left)
					visit(x.Right)
					return false
				}
			case *algebra.Group:
				e.markGroupChain(x)
			}
			return true
		})
	}
	visit(op)
}

// markGroupChain marks the BINDs of the chain under g that markGroupDirect allows.
func (e *evaluator) markGroupChain(g *algebra.Group) {
	computed := -1
	if r := e.keyBindOf(g); r != nil {
		// The rewritten group is what runs (group). Its key in place of ?k, an expression other than a variable
		// or a date field of one (which keep or read their operand's id), is computed within the solution and its
		// value interned, as the BIND computed it: its operands need no ids of their own, as g's did not. Its
		// marks are then a subset of g's (it reads what g's aggregates read, the BIND's operands in place of ?k
		// at most), so they serve g too where a ?k coming in bound keeps g as written.
		g = r.x
		if !readsIDs(g.Keys[r.key].Expr) {
			computed = r.key
		}
	}
	var read varset
	for i, k := range g.Keys {
		if i != computed {
			read = read.union(e.varsOfExpr(k.Expr))
		}
	}
	for _, a := range g.Aggregates {
		if a.Aggregate.Expr == nil {
			if a.Aggregate.Distinct {
				return
			}
			continue
		}
		read = read.union(e.varsOfExpr(a.Aggregate.Expr))
	}
	if read.over {
		return
	}
	var deepest *algebra.Extend
	for op := g.Op; ; {
		switch x := op.(type) {
		case *algebra.Filter:
			for _, f := range x.Exprs {
				if hasExists(f) {
					op = nil
				}
			}
			if op != nil {
				op = x.Op
				continue
			}
		case *algebra.Extend:
			if !hasExists(x.Expr) {
				if s := e.slot(x.Var); s >= 64 || read.bits&(1<<uint(s)) == 0 {
					if s < 64 {
						e.direct[x] = true
						deepest = x
					}
				}
				op = x.Op
				continue
			}
		}
		break
	}
	if deepest != nil {
		e.lowest[deepest] = true
	}
}

func hasExists(x algebra.Expr) bool {
	found := false
	algebra.WalkExpr(x, func(x algebra.Expr) bool {
		if _, ok := x.(*algebra.Exists); ok {
			found = true
		}
		return !found
	})
	return found
}

func (e *evaluator) selectQuery(q *algebra.Query, sink Sink) error {
	vars, ok := projection(q.Op)
	if !ok {
		return fmt.Errorf("sparql: SELECT without projection")
	}
	idx := make([]int, len(vars))
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = string(v)
		idx[i] = e.slot(v)
	}
	if err := sink.Begin(names); err != nil {
		return err
	}
	out := make([]rdf.Term, len(idx))
	var serr error
	e.markDirect(q.Op)
	err := e.run(q.Op, e.newRow(), func(row []ID) bool {
		if serr = e.deliver(); serr != nil {
			return false
		}
		for i, s := range idx {
			out[i] = e.t.term(row[s])
		}
		serr = sink.Row(out)
		return serr == nil
	})
	if err != nil {
		return err
	}
	return serr
}
