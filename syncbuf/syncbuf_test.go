package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// Writers and readers at once (run with -race): every write is kept whole, and Len and String agree.
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if b.Len() != 8*100*5 || strings.Count(b.String(), "line\n") != 800 {
		t.Fatalf("%d bytes, %d lines", b.Len(), strings.Count(b.String(), "line\n"))
	}
	b.Reset()
	if b.Len() != 0 || b.String() != "" {
		t.Fatalf("after Reset: %q", b.String())
	}
}
