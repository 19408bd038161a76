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

// errYielded is the cause of a query's context when the gate ended it to give its slot to a waiting client.
var errYielded = errors.New("sparql: the query yielded its slot to a waiting client")

// errBusy is the gate's refusal: no slot, no room in the lane for a lookup, and no place in the queue (or the wait
// was over).
var errBusy = errors.New("busy")

// slot is a query holding one of the gate's slots.
type slot struct {
	client string
	start  time.Time
	yield  func()      // ends the query, from the gate's timer
	cut    *time.Timer // set once the gate chose the query to yield (balance), to call yield at due
	due    time.Time
}

// waiter is a query of a client holding no slot, waiting for one.
type waiter struct {
	s     *slot
	ready chan struct{} // closed once s is taken
}

// enter admits a query from r's client; leave ends it. A query that finds no slot free to it, from a client
// holding none, waits for one in a queue of at most max clients, one query each, for at most g.wait (and while
// ctx lasts), and the gate takes back as many running slots as clients wait (balance): a query yields (yield is
// called, and it should end) once it has run g.slice. A client that holds a slot already is not queued: its own
// queries are its fair share. A lookup (the caller says whether q is one) that finds no slot is admitted to the
// lane instead while it has room and the client runs no other lookup there; lane then says so, and the query
// runs under lookupLimits. err is errBusy, or ctx's error.
func (g *Gate) enter(ctx context.Context, r *http.Request, lookup bool, yield func()) (leave func(), lane bool, err error) {
	client := clientKey(g.client(r))
	g.mu.Lock()
	if g.admits(client) {
		s := &slot{client: client, yield: yield}
		g.take(s)
		g.mu.Unlock()
		return func() { g.leave(s) }, false, nil
	}
	if lookup && len(g.lookups) < g.lookupMax && !g.lookups[client] {
		g.lookups[client] = true
		g.boundHeap()
		g.mu.Unlock()
		return func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			delete(g.lookups, client)
			g.boundHeap()
		}, true, nil
	}
	if g.byClient[client] > 0 || len(g.queue) >= g.max || slices.ContainsFunc(g.queue, func(w *waiter) bool { return w.s.client == client }) {
		g.mu.Unlock()
		return nil, false, errBusy
	}
	w := &waiter{s: &slot{client: client, yield: yield}, ready: make(chan struct{})}
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

// admits reports whether client may take a slot now; g.mu is held. The last reserve slots go only to clients
// that hold none: without them four clients with two heavy queries each filled all eight, and every other client
// was refused until one ended.
func (g *Gate) admits(client string) bool {
	held := g.byClient[client]
	return len(g.slots) < g.max && held < g.perClient && (held == 0 || g.max-len(g.slots) > g.reserve)
}

// take gives s its slot; g.mu is held.
func (g *Gate) take(s *slot) {
	s.start = time.Now()
	g.slots = append(g.slots, s)
	g.byClient[s.client]++
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
	for len(g.queue) > 0 && g.admits(g.queue[0].s.client) {
		w := g.queue[0]
		g.queue = g.queue[1:]
		g.take(w.s)
		close(w.ready)
	}
	g.balance()
	g.boundHeap()
}

// balance makes as many running queries yield as clients wait, no more; g.mu is held. The query to yield is the
// youngest of the client holding the most slots, while one holds two or more (its second query took a slot while
// nobody waited), else the oldest; either yields once it has run g.slice, so every admitted query runs at least
// that long. A cut not yet due is called off when a waiter leaves the queue or a slot ends by itself.
func (g *Gate) balance() {
	cuts := 0
	for _, s := range g.slots {
		if s.cut != nil {
			cuts++
		}
	}
	for ; cuts > len(g.queue); cuts-- {
		// Call off the cut due last; one that fired already stays counted until its query leaves.
		var last *slot
		for _, s := range g.slots {
			if s.cut != nil && (last == nil || s.due.After(last.due)) {
				last = s
			}
		}
		if !last.cut.Stop() {
			break
		}
		last.cut = nil
	}
	for ; cuts < len(g.queue); cuts++ {
		s := g.victim()
		if s == nil {
			return
		}
		s.due = s.start.Add(g.slice)
		s.cut = time.AfterFunc(max(time.Until(s.due), 0), s.yield)
	}
}

// victim is the slot balance takes back next, or nil when every running query yields already.
func (g *Gate) victim() *slot {
	held := map[string]int{}
	for _, s := range g.slots {
		if s.cut == nil {
			held[s.client]++
		}
	}
	var v *slot
	for _, s := range g.slots {
		if s.cut != nil {
			continue
		}
		if v == nil {
			v = s
			continue
		}
		hs, hv := held[s.client], held[v.client]
		switch {
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
