package replica

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestRenderedWaitsForEveryRepository: a forwarded write's answer is held until Rendered says yes for every
// repository the sync moved, asking again while one is not; past CatchUp it goes out marked not synced.
func TestRenderedWaitsForEveryRepository(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	notBefore := map[string]int{"a": 3, "b": 5} // live from the nth question on
	h := &Handler{o: HandlerOptions{CatchUp: time.Minute, Rendered: func(_ context.Context, id string) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked[id]++
		return asked[id] >= notBefore[id], nil
	}}}
	if !h.rendered(context.Background(), []string{"a", "b"}) {
		t.Fatal("rendered gave up on repositories that went live")
	}
	if asked["a"] < 3 || asked["b"] != 5 {
		t.Errorf("asked %v: want a at least 3 times, b until its 5th question", asked)
	}

	h.o.Rendered = func(context.Context, string) (bool, error) { return false, nil }
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if h.rendered(ctx, []string{"a"}) {
		t.Error("rendered reported live for a repository never rendered")
	}
	if ctx.Err() == nil {
		t.Error("rendered returned before its context ended")
	}
}

// TestRenderedStopsAtAFailedRender: a repository whose render failed (on the replica as on the primary, whose
// answer says so) ends the wait as soon as the others are live, reported as synced: the replica serves what the
// primary serves. It used to be asked again until CatchUp.
func TestRenderedStopsAtAFailedRender(t *testing.T) {
	asked := map[string]int{}
	h := &Handler{o: HandlerOptions{CatchUp: time.Hour, Rendered: func(_ context.Context, id string) (bool, error) {
		asked[id]++
		if id == "broken" && asked[id] >= 2 {
			return false, errors.New("core version abc could not be rendered")
		}
		return id == "fine" && asked[id] >= 3, nil
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !h.rendered(ctx, []string{"broken", "fine"}) {
		t.Error("rendered did not report the replica as synced")
	}
	if ctx.Err() != nil || asked["fine"] != 3 {
		t.Errorf("rendered did not stop once the failure was known and the rest live (asked %v, %v)", asked, ctx.Err())
	}
}
