package protocol

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// admission is one query through a gate in TestGateSharesSlots: it ends (leaves the gate) when told to yield, as
// the handler's query does once its context is cancelled.
type admission struct {
	client  string
	leave   func()
	err     error
	yielded chan struct{}
	once    sync.Once
}

func admit(ctx context.Context, gate *Gate, client string) *admission {
	a := &admission{client: client, yielded: make(chan struct{})}
	a.leave, _, a.err = gate.enter(ctx, from(client), false, func() {
		a.once.Do(func() { close(a.yielded) })
	})
	return a
}

// wasYielded reports whether a was told to yield within d.
func (a *admission) wasYielded(d time.Duration) bool {
	select {
	case <-a.yielded:
		return true
	case <-time.After(d):
		return false
	}
}

// TestGateSharesSlots: while a client holding no slot waits, the gate takes a running slot back after its query
// has run the slice: first the youngest query of the client holding the most, then the oldest; the waiter gets
// the slot. A client that holds a slot is refused rather than queued; a waiter that gives up calls off its cut.
func TestGateSharesSlots(t *testing.T) {
	gate := NewGate(4, 2, clientHeader)
	gate.slice, gate.wait = 50*time.Millisecond, 20*time.Second
	running := map[string][]*admission{}
	for _, c := range []string{"a", "a", "b", "c"} {
		a := admit(t.Context(), gate, c)
		if a.err != nil {
			t.Fatalf("%s: %v", c, a.err)
		}
		running[c] = append(running[c], a)
	}
	t.Cleanup(func() {
		for _, as := range running {
			for _, a := range as {
				a.leave()
			}
		}
	})
	if a := admit(t.Context(), gate, "b"); a.err != errBusy {
		t.Errorf("a second query of b, which holds a slot, with the slots full: %v, want errBusy at once", a.err)
	}

	// d waits; a's second query yields after the slice and, once it ends, d has its slot.
	waitFor := func(client string, end *admission) *admission {
		t.Helper()
		done := make(chan *admission)
		go func() { done <- admit(t.Context(), gate, client) }()
		if !end.wasYielded(10 * time.Second) {
			t.Fatalf("%s waits: %s's query was not told to yield", client, end.client)
		}
		end.leave()
		got := <-done
		if got.err != nil {
			t.Fatalf("%s after a slot ended: %v", client, got.err)
		}
		return got
	}
	start := time.Now()
	running["d"] = append(running["d"], waitFor("d", running["a"][1]))
	running["a"] = running["a"][:1]
	if waited := time.Since(start); waited < gate.slice {
		t.Errorf("a's second query yielded after %s, before the slice of %s", waited, gate.slice)
	}
	for _, as := range running {
		for _, a := range as {
			if a.wasYielded(0) {
				t.Errorf("%s told to yield, besides a's second query", a.client)
			}
		}
	}
	// Every client holds one: the oldest query, a's, yields next.
	running["e"] = append(running["e"], waitFor("e", running["a"][0]))
	delete(running, "a")

	// A waiter that gives up calls off the cut it caused, due after a slice of an hour.
	gate.mu.Lock()
	gate.slice = time.Hour
	gate.mu.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for n := 0; n == 0; {
			gate.mu.Lock()
			n = len(gate.queue)
			gate.mu.Unlock()
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if a := admit(ctx, gate, "f"); a.err != context.Canceled {
		t.Errorf("a waiter whose request ended: %v", a.err)
	}
	gate.mu.Lock()
	defer gate.mu.Unlock()
	for _, s := range gate.slots {
		if s.cut != nil {
			t.Errorf("%s still due to yield with nobody waiting", s.client)
		}
	}
}

// TestSlotsAreShared: five addresses fill the gate's eight slots with heavy queries, as in
// TestLookupsWhenTheSlotsAreFull; before, a sixth address's query was refused with 503 until one of them ended (at
// its time limit). Now three more addresses' queries wait, and heavy queries yield their slots once they have run
// the slice (1 s here): the three get answers, the heavy queries that yielded end with 503 and a message that
// says why, and the others keep running. Real clients from nine loopback addresses.
func TestSlotsAreShared(t *testing.T) {
	gate := NewGate(0, 0, nil)
	gate.slice = time.Second
	srv := heavyServer(t, gate)
	load := fillSlots(t, srv.URL, gate)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ip := fmt.Sprintf("127.0.0.%d", 21+i)
			start := time.Now()
			// Not a lookup (isLookup): it needs a slot.
			status, body := getFrom(t, srv.URL, ip, fmt.Sprintf("ASK { ?s <http://ex.org/next> <http://ex.org/n%d> }", 2+i))
			if status != 200 || !strings.Contains(body, "true") {
				t.Errorf("%s with the slots full: %d %s", ip, status, body)
			}
			t.Logf("%s answered after %s", ip, time.Since(start).Round(time.Millisecond))
		}()
	}
	wg.Wait()
	// Each query that yielded was the second of an address running two, and only as many yielded as the waiters
	// needed: one that answered gave its slot to the next (2 or 3 yield, by timing).
	deadline := time.Now().Add(10 * time.Second)
	for load.running()+int(load.yielded.Load()) != DefaultMaxConcurrent && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	y, r := load.yielded.Load(), load.refused.Load()
	t.Logf("%d heavy queries yielded their slots", y)
	if y < 1 || r != 0 {
		t.Errorf("%d heavy queries yielded and %d refused, want 1 to 3 and 0", y, r)
	}
	gate.mu.Lock()
	defer gate.mu.Unlock()
	if len(gate.slots)+int(y) != DefaultMaxConcurrent || len(gate.byClient) != 5 {
		t.Errorf("%d heavy queries of %d addresses still running, want %d of 5", len(gate.slots), len(gate.byClient), DefaultMaxConcurrent-int(y))
	}
	for _, s := range gate.slots {
		if s.cut != nil {
			t.Errorf("%s still due to yield with nobody waiting", s.client)
		}
	}
}
