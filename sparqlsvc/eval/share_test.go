package eval

import (
	"errors"
	"testing"
)

// TestRefusedGrowthIsNotCharged: a query whose growth would pass the shared budget stops without keeping that
// growth charged; before, it stayed charged until the query unwound, and a second query growing by one grain
// meanwhile stopped too, though the budget had room for it.
func TestRefusedGrowthIsNotCharged(t *testing.T) {
	m := NewMemory(8 * memoryGrain)
	a := &evaluator{opt: Options{Memory: m}}
	b := &evaluator{opt: Options{Memory: m}}
	if err := a.share(6 * memoryGrain); err != nil {
		t.Fatal(err)
	}
	if err := b.share(4 * memoryGrain); !errors.Is(err, ErrServerMemory) {
		t.Fatalf("growing past the budget: %v", err)
	}
	if u := m.Used(); u != 6*memoryGrain || b.charged != 0 {
		t.Errorf("after a refused growth: %d MiB charged, the refused query %d", u/memoryGrain, b.charged/memoryGrain)
	}
	if err := a.share(7 * memoryGrain); err != nil {
		t.Errorf("a grain within the budget beside a refused query: %v", err)
	}
	b.unshare()
	a.unshare()
	if u := m.Used(); u != 0 {
		t.Errorf("%d bytes charged after both ended", u)
	}
}
