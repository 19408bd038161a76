package store

import (
	"context"
	"testing"
)

func TestSlowSubscriberIsToldToResync(t *testing.T) {
	b := newBroker()
	ctx, cancel := context.WithCancel(context.Background())
	ch := b.subscribe(ctx)
	for i := 0; i < subscriberBuffer+10; i++ {
		b.publish(ChangeEvent{Commit: "c"})
	}
	for i := 0; i < subscriberBuffer; i++ {
		if ev := <-ch; ev.Resync {
			t.Fatalf("event %d already says resync", i)
		}
	}
	b.publish(ChangeEvent{Commit: "after"})
	if ev := <-ch; !ev.Resync || ev.Commit != "after" {
		t.Errorf("first event after the overflow: %+v", ev)
	}
	b.publish(ChangeEvent{Commit: "next"})
	if ev := <-ch; ev.Resync {
		t.Errorf("resync repeated: %+v", ev)
	}
	cancel()
	for range ch {
	} // closed when the context ends
	b.close()
}
