// Package accesslog writes one line per HTTP request, for net/http's handlers and for servers that answer without
// net/http (site/fastpath) alike, and buffers the lines so that logging does not cost a write per request.
//
// A line holds the method, the path without its query, the status, the body bytes sent and the time taken: never
// a header or a query, so no credential or token reaches the log.
package accesslog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Request writes the line of one request.
func Request(log *slog.Logger, method, path string, status int, n int64, d time.Duration) {
	log.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("method", method),
		slog.String("path", path), slog.Int("status", status), slog.Int64("bytes", n), slog.Int64("ms", d.Milliseconds()))
}

// Handler logs every request h answers.
func Handler(log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		Request(log, r.Method, r.URL.Path, sw.status, sw.n, time.Since(start))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// ReadFrom keeps the connection's sendfile path for large dumps: without it io.Copy inside http.ServeContent
// would see only Write and copy the file through user space.
func (w *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
	}
	w.n += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (git smart HTTP flushes).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Buffered collects whole log lines and writes them in blocks, as nginx's access_log buffer= flush=: every
// interval, when a block fills, and on Close. One write per line was a syscall per request.
type Buffered struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	err    error
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// Block is the size at which the buffered lines are written without waiting for the interval.
const Block = 64 << 10

// NewBuffered writes the lines given to it into w at least every interval. Close it to stop its timer.
func NewBuffered(w io.Writer, interval time.Duration) *Buffered {
	b := &Buffered{w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				_ = b.Flush()
			}
		}
	}()
	return b
}

// Write keeps p, one record of the slog handler, whole in the block, so that lines never interleave with the other
// logs' writes.
func (b *Buffered) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= Block {
		b.flushLocked()
	}
	return len(p), nil
}

// Flush writes what is buffered and returns the first write error met so far.
func (b *Buffered) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	return b.err
}

func (b *Buffered) flushLocked() {
	if len(b.buf) == 0 {
		return
	}
	if _, err := b.w.Write(b.buf); err != nil && b.err == nil {
		b.err = fmt.Errorf("access log: %w", err)
	}
	b.buf = b.buf[:0]
}

// Close flushes and stops the timer; later lines are written straight through.
func (b *Buffered) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.flushLocked()
	err := b.err
	b.mu.Unlock()
	close(b.stop)
	<-b.done
	return err
}
