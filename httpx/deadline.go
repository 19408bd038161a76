package httpx

import (
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// Deadlines bound how long a request may hold its connection while its body or its answer moves: a body must
// arrive at MinRate on average after Grace, and an answer must make progress every WriteIdle. A slow-loris body,
// or a client that stops reading, loses its connection; a large upload or a long SPARQL stream at a decent rate
// does not. (http.Server's ReadTimeout and WriteTimeout bound the whole request instead, which would cut both.)
type Deadlines struct {
	// Grace is how long a body may take before its rate counts (default 10s).
	Grace time.Duration
	// MinRate is the least average body rate after Grace, in bytes per second (default 16 KiB/s).
	MinRate int64
	// WriteIdle is the longest a write of the answer may block (default 60s).
	WriteIdle time.Duration
}

func (d Deadlines) withDefaults() Deadlines {
	if d.Grace <= 0 {
		d.Grace = 10 * time.Second
	}
	if d.MinRate <= 0 {
		d.MinRate = 16 << 10
	}
	if d.WriteIdle <= 0 {
		d.WriteIdle = 60 * time.Second
	}
	return d
}

// Apply wraps r's body and w with the deadlines. The returned done must be called when the handler has returned:
// net/http does not reset a write deadline between the requests of a kept-alive connection when its WriteTimeout is
// zero, so done clears it; and net/http reads what the handler left of a body (up to 256 KiB) before the next
// request, so done gives that read Grace, not forever. On a ResponseWriter that cannot set deadlines (a test
// recorder) nothing is bounded.
func (d Deadlines) Apply(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, func()) {
	d = d.withDefaults()
	rc := http.NewResponseController(w)
	if err := rc.SetWriteDeadline(time.Now().Add(d.WriteIdle)); err != nil {
		return w, r, func() {}
	}
	var rb *rateBody
	if r.Body != nil && r.Body != http.NoBody {
		// Due at once, not only when the handler reads: net/http itself reads an unread body before it writes a
		// large answer, and that read must be bounded too.
		start := time.Now()
		_ = rc.SetReadDeadline(start.Add(d.Grace))
		rb = &rateBody{rc: rc, body: r.Body, start: start, d: d}
		r.Body = rb
	}
	return &idleWriter{ResponseWriter: w, rc: rc, idle: d.WriteIdle}, r, func() {
		_ = rc.SetWriteDeadline(time.Time{})
		switch {
		case rb != nil && rb.late:
			_ = rc.SetReadDeadline(time.Now()) // too slow already: no second wait for the rest
		case rb != nil:
			_ = rc.SetReadDeadline(time.Now().Add(d.Grace))
		}
	}
}

// rateBody sets the read deadline before each read: the next byte is due before the average since start falls
// below MinRate (after Grace).
type rateBody struct {
	rc    *http.ResponseController
	body  io.ReadCloser
	start time.Time
	n     int64
	d     Deadlines
	late  bool // a read missed its deadline
}

func (b *rateBody) Read(p []byte) (int, error) {
	due := b.start.Add(b.d.Grace + time.Duration(float64(b.n)/float64(b.d.MinRate)*float64(time.Second)))
	_ = b.rc.SetReadDeadline(due)
	n, err := b.body.Read(p)
	b.n += int64(n)
	switch {
	case errors.Is(err, io.EOF):
		// net/http now reads the connection in the background to notice a client going away; a deadline left
		// here would end that read, and with it the request's context, while a long handler still works.
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		b.late = true
		err = &TimeoutError{Err: err}
	}
	return n, err
}

func (b *rateBody) Close() error { return b.body.Close() }

// TimeoutError is a request body that arrived too slowly; the API answers 408.
type TimeoutError struct{ Err error }

func (e *TimeoutError) Error() string {
	return "the request body arrived too slowly (see the hub's minimum upload rate)"
}
func (e *TimeoutError) Unwrap() error { return e.Err }

// idleWriter pushes the write deadline out before each write and flush, never past the end EndWritesBy set.
type idleWriter struct {
	http.ResponseWriter
	rc   *http.ResponseController
	idle time.Duration
	// mu orders EndWritesBy against a write setting its own deadline, so that a write cannot move the deadline
	// back out after the end was set.
	mu  sync.Mutex
	end time.Time
}

// extend sets the deadline of the next write: idle from now, or the end if sooner.
func (w *idleWriter) extend(idle time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	due := time.Now().Add(idle)
	if !w.end.IsZero() && w.end.Before(due) {
		due = w.end
	}
	_ = w.rc.SetWriteDeadline(due)
}

func (w *idleWriter) Write(p []byte) (int, error) {
	w.extend(w.idle)
	return w.ResponseWriter.Write(p)
}

func (w *idleWriter) Flush() {
	w.extend(w.idle)
	_ = w.rc.Flush()
}

// EndWritesBy makes every write to w, the one blocked now included, fail once t passes. A handler whose time limit
// includes sending (a SPARQL query's) calls it when its time is up: otherwise a client that reads a byte a second
// holds the handler, and what it holds (a query slot), WriteIdle longer.
func EndWritesBy(w http.ResponseWriter, t time.Time) {
	for x := w; x != nil; {
		if iw, ok := x.(*idleWriter); ok {
			iw.mu.Lock()
			defer iw.mu.Unlock()
			iw.end = t
			break
		}
		u, ok := x.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		x = u.Unwrap()
	}
	_ = http.NewResponseController(w).SetWriteDeadline(t)
}

// ReadFrom keeps net/http's sendfile path for a file of known length (http.ServeContent copies through an
// io.LimitedReader): the deadline then covers the whole copy at 64 KiB/s on top of the idle time. Anything else is
// copied through Write, each write with its own deadline.
func (w *idleWriter) ReadFrom(src io.Reader) (int64, error) {
	lr, ok := src.(*io.LimitedReader)
	rf, canRF := w.ResponseWriter.(io.ReaderFrom)
	if !ok || !canRF {
		return io.Copy(struct{ io.Writer }{w}, src)
	}
	w.extend(w.idle + time.Duration(lr.N/(64<<10))*time.Second)
	return rf.ReadFrom(src)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *idleWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
