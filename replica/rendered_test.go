package replica

import (
	"context"
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
	h := &Handler{o: HandlerOptions{CatchUp: time.Minute, Rendered: func(_ context.Context, id string) bool {
		mu.Lock()
		defer mu.Unlock()
		asked[id]++
		return asked[id] >= notBefore[id]
	}}}
	if !h.rendered(context.Background(), []string{"a", "b"}) {
		t.Fatal("rendered gave up on repositories that went live")
	}
	if asked["a"] < 3 || asked["b"] != 5 {
		t.Errorf("asked %v: want a at least 3 times, b until its 5th question", asked)
	}

	h.o.Rendered = func(context.Context, string) bool { return false }
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if h.rendered(ctx, []string{"a"}) {
		t.Error("rendered reported live for a repository never rendered")
	}
	if ctx.Err() == nil {
		t.Error("rendered returned before its context ended")
	}
}
