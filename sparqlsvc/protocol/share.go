package protocol

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"
)

// DefaultSlice is what a query runs at least before it yields its slot to a client that waits for one (Gate).
// A count by address cannot tell five heavy clients from five users, and the slots, once full, stayed full for
// the time limit (30 s) of every query in them; so the slots are time-shared while clients wait, and a slice of
// 5 s still answers every BSBM query at 10 M (the slowest takes about 1 s).
const DefaultSlice = 5 * time.Second

// DefaultPatience is how long a client waits for a slot before a running query yields one to it: slots that turn
// over by themselves serve it sooner. Without it a query yielded at its slice whenever anyone waited, and with 20
// clients sending lookups (answered in milliseconds, but queued while the lane was full) beside 4 heavy queries
// of ~5-9 s at 1 M triples, 7 of 18 heavy queries yielded and lost 108 of their 275 s of work, while the waiters
// they yielded to would have had a slot within a second anyway.
const DefaultPatience = 2 * time.Second

// errYielded is the cause of a query's context when the gate ended it to give its slot to a waiting client.
var errYielded = errors.New("sparql: the query yielded its slot to a waiting client")

// errBusy is the gate's refusal: no slot, no room in the lane for a lookup, and no place in the queue (or the wait
// was over).
var errBusy = errors.New("busy")

// slot is a query holding one of the gate's slots.
type slot struct {
	client  string
	network string // networkKey of the client: an IPv6 /48, or the IPv4 address itself
	keep    bool   // an accountable caller's query (Limits.Keep): only another one's wait takes its slot back
	start   time.Time
	yield   func()      // ends the query, from the gate's timer
	cut     *time.Timer // set once the gate chose the query to yield (balance), to call yield at due
	due     time.Time
}

// waiter is a query of a client holding no slot, waiting for one.
type waiter struct {
	s     *slot
	since time.Time     // when it began to wait
	ready chan struct{} // closed once s is taken
}

// enter admits a query from r's client; leave ends it. A query that finds no slot free to it, from a client
// holding none, waits for one in a queue of at most max clients, one query each, for at most g.wait (and while
// ctx lasts), and the gate takes back as many running slots as clients wait (balance): a query yields (yield is
// called, and it should end) once it has run g.slice. A client that holds a slot already is not queued: its own
// queries are its fair share. A lookup (the caller says whether q is one) that finds no slot is admitted to the
// lane instead while it has room and the client runs no other lookup there; lane then says so, and the query
// runs under lookupLimits. A query that keeps its slot (keep: an accountable caller's, Limits.Keep) yields it only
// to another such query waiting, never to an anonymous one. err is errBusy, or ctx's error.
//
// The clients of one network (networkKey: an IPv6 /48) hold at most perNetwork slots, wait in the queue at most
// perClient at a time, and run at most half the lane's lookups: a host or site given many /64s is one party.
func (g *Gate) enter(ctx context.Context, r *http.Request, lookup, keep bool, yield func()) (leave func(), lane bool, err error) {
	addr := g.client(r)
	s := &slot{client: clientKey(addr), network: networkKey(addr), keep: keep, yield: yield}
	client := s.client
	g.mu.Lock()
	if g.admits(s) {
		g.take(s)
		g.mu.Unlock()
		return func() { g.leave(s) }, false, nil
	}
	if _, running := g.lookups[client]; lookup && len(g.lookups) < g.lookupMax && !running && g.laneHeld(s.network) < max(1, g.lookupMax/2) {
		g.lookups[client] = s.network
		g.boundHeap()
		g.mu.Unlock()
		return func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			delete(g.lookups, client)
			g.boundHeap()
		}, true, nil
	}
	if g.byClient[client] > 0 || len(g.queue) >= g.max || slices.ContainsFunc(g.queue, func(w *waiter) bool { return w.s.client == client }) ||
		g.queued(s.network) >= g.perClient {
		g.mu.Unlock()
		return nil, false, errBusy
	}
	w := &waiter{s: s, since: time.Now(), ready: make(chan struct{})}
	g.queue = append(g.queue, w)
	g.balance()
	g.mu.Unlock()

	timer := time.NewTimer(g.wait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return func() { g.leave(w.s) }, false, nil
	case <-timer.C:
		err = errBusy
	case <-ctx.Done():
		err = ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-w.ready: // admitted as the wait ended: it has the slot, so it runs
		return func() { g.leave(w.s) }, false, nil
	default:
	}
	g.queue = slices.DeleteFunc(g.queue, func(x *waiter) bool { return x == w })
	g.balance()
	return nil, false, err
}

// admits reports whether s's client may take a slot now; g.mu is held. The last reserve slots go only to clients
// that hold none: without them four clients with two heavy queries each filled all eight, and every other client
// was refused until one ended. A network holds at most perNetwork slots, whatever number of clients it has.
func (g *Gate) admits(s *slot) bool {
	held := g.byClient[s.client]
	return len(g.slots) < g.max && held < g.perClient && (held == 0 || g.max-len(g.slots) > g.reserve) &&
		g.byNetwork[s.network] < g.perNetwork
}

// laneHeld is the lookups network runs in the lane; queued its clients waiting for a slot. g.mu is held.
func (g *Gate) laneHeld(network string) int {
	n := 0
	for _, nw := range g.lookups {
		if nw == network {
			n++
		}
	}
	return n
}

func (g *Gate) queued(network string) int {
	n := 0
	for _, w := range g.queue {
		if w.s.network == network {
			n++
		}
	}
	return n
}

// take gives s its slot; g.mu is held.
func (g *Gate) take(s *slot) {
	s.start = time.Now()
	g.slots = append(g.slots, s)
	g.byClient[s.client]++
	g.byNetwork[s.network]++
	g.boundHeap()
}

// leave ends s's query, and gives its slot to the client that waited longest.
func (g *Gate) leave(s *slot) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.cut != nil {
		s.cut.Stop()
	}
	g.slots = slices.DeleteFunc(g.slots, func(x *slot) bool { return x == s })
	if g.byClient[s.client]--; g.byClient[s.client] <= 0 {
		delete(g.byClient, s.client)
	}
	if g.byNetwork[s.network]--; g.byNetwork[s.network] <= 0 {
		delete(g.byNetwork, s.network)
	}
	// The oldest waiter that may take a slot takes it: one whose network holds its share waits for its own
	// network's slot, not in front of the others.
	g.queue = slices.DeleteFunc(g.queue, func(w *waiter) bool {
		if !g.admits(w.s) {
			return false
		}
		g.take(w.s)
		close(w.ready)
		return true
	})
	g.balance()
	g.boundHeap()
}

// balance makes as many running queries yield as clients wait, no more; g.mu is held. The query to yield is
// victim's; it yields once it has run g.slice, so every admitted query runs at least that long, and once the
// waiter it yields to has waited g.patience, so slots that turn over by themselves serve waiters first. A query that keeps
// its slot (slot.keep) is taken only for a waiter that keeps its own, and only while no other query is left to
// take. A cut not yet due is called off when a waiter leaves the queue or a slot ends by itself.
func (g *Gate) balance() {
	cuts, keepCuts, keepWaiters := 0, 0, 0
	for _, s := range g.slots {
		if s.cut != nil {
			cuts++
			if s.keep {
				keepCuts++
			}
		}
	}
	for _, w := range g.queue {
		if w.s.keep {
			keepWaiters++
		}
	}
	for cuts > len(g.queue) || keepCuts > keepWaiters {
		// Call off the cut due last (of a kept slot, while more of those are cut than waiters keep theirs); one
		// that fired already stays counted until its query leaves.
		var last *slot
		for _, s := range g.slots {
			if s.cut != nil && (keepCuts <= keepWaiters || s.keep) && (last == nil || s.due.After(last.due)) {
				last = s
			}
		}
		if last == nil || !last.cut.Stop() {
			break
		}
		last.cut = nil
		cuts--
		if last.keep {
			keepCuts--
		}
	}
	for ; cuts < len(g.queue); cuts++ {
		s := g.victim(keepCuts < keepWaiters)
		if s == nil {
			return
		}
		if s.keep {
			keepCuts++
		}
		// The cut stands for the cuts-th oldest waiter: due once the query has run its slice and that waiter has
		// waited its patience.
		s.due = s.start.Add(g.slice)
		if w := g.queue[cuts].since.Add(g.patience); w.After(s.due) {
			s.due = w
		}
		s.cut = time.AfterFunc(max(time.Until(s.due), 0), s.yield)
	}
}

// victim is the slot balance takes back next, or nil when every running query it may take yields already; kept
// slots are taken only when keep is true, and after every other. Among the rest: a query of the network holding
// the most slots, then of its client holding the most; of a client holding two or more (its second query took a
// slot while nobody waited), the youngest, else the oldest.
func (g *Gate) victim(keep bool) *slot {
	held, netHeld := map[string]int{}, map[string]int{}
	for _, s := range g.slots {
		if s.cut == nil {
			held[s.client]++
			netHeld[s.network]++
		}
	}
	var v *slot
	for _, s := range g.slots {
		if s.cut != nil || s.keep && !keep {
			continue
		}
		if v == nil {
			v = s
			continue
		}
		hs, hv := held[s.client], held[v.client]
		switch {
		case s.keep != v.keep:
			if !s.keep {
				v = s
			}
		case netHeld[s.network] != netHeld[v.network]:
			if netHeld[s.network] > netHeld[v.network] {
				v = s
			}
		case hs != hv:
			if hs > hv {
				v = s
			}
		case hs > 1 && s.start.After(v.start), hs <= 1 && s.start.Before(v.start):
			v = s
		}
	}
	return v
}
