package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

type pairFn func(s, o ID) bool

func (e *evaluator) pathPattern(x *algebra.PathPattern, in []ID, emit emitFn, errp *error) bool {
	end := func(n algebra.Node) (ID, int) {
		if !n.IsVar() {
			return e.t.id(n.Term), -1 // constants get an id even when absent: a zero-length path still matches them
		}
		s := e.varSlot(n.Var) // per solution of the join it is in: by the name's address, not a map of names
		return in[s], s
	}
	s, ss := end(x.S)
	o, os := end(x.O)
	site := e.pathSites[x]
	if site == nil {
		site = &pathSite{memo: map[pathEnds][]ID{}}
		e.pathSites[x] = site
	}
	var row []ID
	if site.busy { // a nested evaluation of the same pattern keeps its own row
		row = slices.Clone(in)
	} else {
		if len(site.row) != len(in) {
			site.row = make([]ID, len(in))
		}
		row = site.row
		site.busy = true
		defer site.done()
	}
	// A pattern whose two ends are one variable matches only the pairs whose ends agree.
	same := ss >= 0 && ss == os && s == 0
	k := pathEnds{s, o, e.activeName()}
	if pairs, ok := site.lookup(k); ok {
		for i := 0; i < len(pairs); i += 2 {
			if same && pairs[i] != pairs[i+1] {
				continue
			}
			if !emit(setEnds(row, in, ss, os, pairs[i], pairs[i+1])) {
				return false
			}
		}
		return true
	}
	out := func(ms, mo ID) bool {
		if same && ms != mo {
			return true
		}
		return emit(setEnds(row, in, ss, os, ms, mo))
	}
	if x.S.IsVar() && x.O.IsVar() && ((s != 0 && !e.isNode(s)) || (o != 0 && !e.isNode(o))) {
		site.store(e, k, nil) // see safe(): between two variables only graph nodes can match
		return true
	}
	var pairs []ID
	keep := true
	ok := e.path(x.Path, s, o, func(ms, mo ID) bool {
		if keep {
			if len(pairs) < 2*maxMemoPairs {
				pairs = append(pairs, ms, mo)
			} else {
				keep, pairs = false, nil
			}
		}
		return out(ms, mo)
	}, errp)
	if ok && keep {
		if err := site.store(e, k, pairs); err != nil {
			*errp = err
			return false
		}
	}
	return ok
}

// setEnds fills row with in and the ends of a path's pair in their slots (-1: a constant end).
func setEnds(row, in []ID, ss, os int, ms, mo ID) []ID {
	copy(row, in)
	if ss >= 0 {
		row[ss] = ms
	}
	if os >= 0 {
		row[os] = mo
	}
	return row
}

// maxMemoPairs is the most pairs a path pattern remembers for one pair of ends; longer answers are computed
// again (a closure's reachable set is memoised on its own, in reachable).
const maxMemoPairs = 256

// maxMemoIDs bounds what one path pattern remembers in all: past it, only the latest ends are kept.
const maxMemoIDs = 1 << 16

// pathEnds is what a path's answer depends on: its two ends (0 when free) and the active graph.
type pathEnds struct{ s, o, graph ID }

// pathSite is one path pattern's state for the query. A join runs the pattern once per solution of the patterns
// before it, often with the same ends again and again (every product of a type starts the same walk up the class
// hierarchy), so the pairs found for each pair of ends are remembered, and the row is reused.
type pathSite struct {
	row      []ID
	busy     bool
	last     pathEnds
	lastOK   bool
	lastPair []ID
	memo     map[pathEnds][]ID
	ids      int // ids held in memo
}

func (p *pathSite) done() { p.busy = false }

func (p *pathSite) lookup(k pathEnds) ([]ID, bool) {
	if p.lastOK && p.last == k {
		return p.lastPair, true
	}
	pairs, ok := p.memo[k]
	if ok {
		p.last, p.lastPair, p.lastOK = k, pairs, true
	}
	return pairs, ok
}

// store remembers pairs for k, counting them against the query's memory budget.
func (p *pathSite) store(e *evaluator, k pathEnds, pairs []ID) error {
	p.last, p.lastPair, p.lastOK = k, pairs, true
	if p.ids+len(pairs)+4 > maxMemoIDs {
		return nil
	}
	if err := e.holdBytes(int64(4*len(pairs)) + 64); err != nil {
		return err
	}
	p.ids += len(pairs) + 4
	p.memo[k] = pairs
	return nil
}

// path enumerates the (subject, object) pairs connected by p; 0 leaves an end free.
func (e *evaluator) path(p algebra.Path, s, o ID, emit pairFn, errp *error) bool {
	if err := e.check(); err != nil {
		*errp = err
		return false
	}
	switch x := p.(type) {
	case *algebra.PathLink:
		ls := e.linkState(x)
		pid, curs := ls.pid, ls.curs
		if pid == 0 || (s != 0 && !e.mayMatch(s)) || (o != 0 && !e.mayMatch(o)) {
			return true
		}
		for gi, g := range e.active {
			if !e.scanFrom(g, &curs[gi], s, pid, o, func(ms, _, mo ID) bool {
				if gi > 0 && e.inEarlierGraph(gi, ms, pid, mo) {
					return true
				}
				return emit(ms, mo)
			}) {
				return false
			}
		}
		return true
	case *algebra.PathInverse:
		return e.path(x.Path, o, s, func(a, b ID) bool { return emit(b, a) }, errp)
	case *algebra.PathSequence:
		check := e.jointSeqs[x] // a joint of path patterns seqJoin merged: its value must be a node (see seqJoin)
		if s == 0 && o != 0 {   // only the object is fixed: walk from it, so the search starts narrow
			return e.path(x.Right, 0, o, func(mid, b ID) bool {
				if check && !e.jointNode(mid, s, o) {
					return true
				}
				return e.path(x.Left, 0, mid, func(a, _ ID) bool { return emit(a, b) }, errp)
			}, errp)
		}
		return e.path(x.Left, s, 0, func(a, mid ID) bool {
			if check && !e.jointNode(mid, s, o) {
				return true
			}
			return e.path(x.Right, mid, o, func(_, b ID) bool { return emit(a, b) }, errp)
		}, errp)
	case *algebra.PathAlternative:
		return e.path(x.Left, s, o, emit, errp) && e.path(x.Right, s, o, emit, errp)
	case *algebra.PathNegated:
		excluded := map[ID]bool{}
		for _, iri := range x.IRIs {
			if id := e.constID(rdfIRI(iri)); id != 0 {
				excluded[id] = true
			}
		}
		if (s != 0 && !e.mayMatch(s)) || (o != 0 && !e.mayMatch(o)) {
			return true
		}
		for gi, g := range e.active {
			if !e.scan(g, s, 0, o, func(ms, mp, mo ID) bool {
				if excluded[mp] || (gi > 0 && e.inEarlierGraph(gi, ms, mp, mo)) {
					return true
				}
				return emit(ms, mo)
			}) {
				return false
			}
		}
		return true
	case *algebra.PathZeroOrOne:
		seen := map[[2]ID]bool{}
		once := func(a, b ID) bool {
			if seen[[2]ID{a, b}] {
				return true
			}
			seen[[2]ID{a, b}] = true
			return emit(a, b)
		}
		if !e.zeroLength(s, o, once, errp) {
			return false
		}
		return e.path(x.Path, s, o, once, errp)
	case *algebra.PathZeroOrMore:
		return e.closure(x.Path, s, o, true, emit, errp)
	case *algebra.PathOneOrMore:
		return e.closure(x.Path, s, o, false, emit, errp)
	}
	return true
}

// zeroLength emits the pairs of a zero-length path: a bound end with itself, or every node of the active graph.
func (e *evaluator) zeroLength(s, o ID, emit pairFn, errp *error) bool {
	switch {
	case s != 0 && o != 0:
		if s == o {
			return emit(s, s)
		}
		return true
	case s != 0:
		return emit(s, s)
	case o != 0:
		return emit(o, o)
	}
	nodes, ok := e.nodes(errp)
	if !ok {
		return false
	}
	for _, n := range nodes {
		if !emit(n, n) {
			return false
		}
	}
	return true
}

// jointNode reports whether mid may be the value of a joint of path patterns seqJoin merged, walked from the ends
// s and o (0: free): a value that is no node is reached only by zero-length steps from an end it equals, and the
// step beside the joint, a pattern between two variables as written, would not pair it.
func (e *evaluator) jointNode(mid, s, o ID) bool {
	return (mid != s && mid != o) || e.isNode(mid)
}

// isNode reports whether id is a subject or object of the active graph.
func (e *evaluator) isNode(id ID) bool {
	if !e.mayMatch(id) {
		return false
	}
	for _, g := range e.active {
		if e.count(g, id, 0, 0) > 0 || e.count(g, 0, 0, id) > 0 {
			return true
		}
	}
	return false
}

// nodes returns every subject and object of the active graph, ascending.
func (e *evaluator) nodes(errp *error) ([]ID, bool) {
	seen := map[ID]bool{}
	var out []ID
	for _, g := range e.active {
		e.scan(g, 0, 0, 0, func(s, _, o ID) bool {
			for _, n := range [2]ID{s, o} {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
					if len(out)&1023 == 0 {
						if *errp = e.holdBytes(40 << 10); *errp != nil {
							return false
						}
					}
				}
			}
			return true
		})
		if *errp != nil {
			return nil, false
		}
	}
	slices.Sort(out)
	return out, true
}

// closure evaluates p* (zero true) or p+ from the reachable sets of each start node, so cycles end and every
// reachable node is reported once per start (§18.5 ALP).
func (e *evaluator) closure(p algebra.Path, s, o ID, zero bool, emit pairFn, errp *error) bool {
	if s == 0 && o != 0 { // walk backwards from the bound object
		reach, ok := e.reachable(p, o, true, zero, errp)
		if !ok {
			return false
		}
		for _, n := range reach {
			if !emit(n, o) {
				return false
			}
		}
		return true
	}
	starts := []ID{s}
	if s == 0 {
		var ok bool
		if starts, ok = e.nodes(errp); !ok {
			return false
		}
	}
	for _, start := range starts {
		reach, ok := e.reachable(p, start, false, zero, errp)
		if !ok {
			return false
		}
		for _, n := range reach {
			if (o == 0 || o == n) && !emit(start, n) {
				return false
			}
		}
	}
	return true
}

type reachKey struct {
	p              algebra.Path
	start, graph   ID
	backward, zero bool
}

// reachable returns the nodes reachable from start along p one or more times (and start itself when zero),
// breadth first, each once. Results are memoised for the query: a join often asks for the closure of the same
// node many times (every product of a type walks the same class hierarchy).
func (e *evaluator) reachable(p algebra.Path, start ID, backward, zero bool, errp *error) ([]ID, bool) {
	k := reachKey{p, start, e.activeName(), backward, zero}
	if r, ok := e.reach[k]; ok {
		return r, true
	}
	var out []ID
	visited := map[ID]bool{}
	if zero {
		visited[start] = true
		out = append(out, start)
	}
	queue := []ID{start}
	var walked int64
	defer func() { e.bytes -= walked }()
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		step := func(m ID) bool {
			if !visited[m] {
				visited[m] = true
				queue = append(queue, m)
				out = append(out, m)
				// The walk's own sets (visited, queue, out: about 48 bytes a node) count while it runs, so a
				// closure over a large graph ends at the budget instead of after it.
				if len(out)&1023 == 0 {
					if err := e.holdBytes(48 << 10); err != nil {
						*errp = err
						return false
					}
					walked += 48 << 10
				}
			}
			return true
		}
		var ok bool
		if backward {
			ok = e.path(p, 0, n, func(m, _ ID) bool { return step(m) }, errp)
		} else {
			ok = e.path(p, n, 0, func(_, m ID) bool { return step(m) }, errp)
		}
		if !ok && *errp != nil {
			return nil, false
		}
	}
	if err := e.holdBytes(int64(4*len(out)) + 64); err != nil { // memoised sets are held for the whole query
		*errp = err
		return nil, false
	}
	e.reach[k] = out
	return out, true
}

// pathLink is one link of a path as the evaluator keeps it for the query: its predicate's id and its index
// cursors, one per active graph. A sequence such as vendor/country probes its second link once per value of the
// first, as a BGP's join does, and gets the same galloping and memo (index.Cursor); and the id is found once, not
// by hashing the IRI per probe (v28d: ~290 000 probes of rev:reviewer, 8 % of its CPU in constID).
type pathLink struct {
	pid  ID
	curs []probeCursor
}

// linkState returns x's pathLink, made when x is first met, with cursors for every active graph.
func (e *evaluator) linkState(x *algebra.PathLink) *pathLink {
	l := e.pathLinks[x]
	if l == nil {
		l = &pathLink{pid: e.constID(rdfIRI(x.IRI))}
		e.pathLinks[x] = l
	}
	if len(l.curs) < len(e.active) {
		l.curs = make([]probeCursor, len(e.active))
	}
	return l
}
