package index

import (
	"context"
	"runtime"
	"sync"
)

// warming is a Warm in progress, which Close ends and waits for before it unmaps the file.
type warming struct {
	mu     sync.Mutex
	closed bool // Close has run: no Warm starts
	cancel context.CancelFunc
	done   chan struct{}
}

// warmChunk is how much of the mapping Warm faults in between two looks at its context: 2 MiB, a few
// milliseconds, so that Close waits little.
const warmChunk = 2 << 20

// Warm does ahead of the first queries what they would otherwise pay for: it maps every page of the index file into the
// process (each first touch of a 4 KiB page costs several microseconds on this VM: the first query at 10 M triples read
// ~900 ms more than the next) and builds the default graph's SPO fences and subject starts (Graph.noteFar's build,
// which far subject probes earn otherwise) and the dictionary's miss filter (missfilter.go). Its memory is the file's
// pages, which are the page cache's and shared, and the starts and fences: 4 bytes per subject id and 12 per 64
// triples, and the filter's 2 bytes a term. ctx ends it early; so does Close, which waits for it. Only a dataset opened
// from a file is warmed, once; Warm returns when done.
func (d *Dataset) Warm(ctx context.Context) {
	d.warm.mu.Lock()
	if d.warm.closed || d.warm.done != nil || d.mapped == nil {
		d.warm.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	d.warm.cancel, d.warm.done = cancel, done
	d.warm.mu.Unlock()
	for at := 0; at < len(d.mapped); at += warmChunk {
		if ctx.Err() != nil {
			return
		}
		populate(d.mapped[at:min(at+warmChunk, len(d.mapped))])
	}
	d.Default.buildFences(ctx, SPO)
	if ctx.Err() == nil {
		d.Dict.MakeMissFilter()
	}
}

// stopWarm ends a Warm in progress and waits for it, and keeps any other from starting.
func (d *Dataset) stopWarm() {
	d.warm.mu.Lock()
	d.warm.closed = true
	cancel, done := d.warm.cancel, d.warm.done
	d.warm.mu.Unlock()
	if done != nil {
		cancel()
		<-done
	}
}

// touch reads one byte per 4 KiB page of b.
func touch(b []byte) {
	var x byte
	for i := 0; i < len(b); i += 4096 {
		x ^= b[i]
	}
	runtime.KeepAlive(x)
}
