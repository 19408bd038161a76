// Package fptest compares the fast path with net/http alone over raw connections: the same request bytes go to a
// fastpath.Server and to a plain http.Server in front of the same handler, and the answers must be equal byte for
// byte but for the Date field.
package fptest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldhub/ldhub/site/fastpath"
)

// Pair is a fast-path server and a plain net/http server with the same handler.
type Pair struct {
	Fast, Plain string       // addresses
	Answered    atomic.Int64 // requests the fast path answered itself
}

// Start serves h both ways; opts, when not nil, adjusts the fast path's http.Server (timeouts) before it starts.
// Both stop when the test ends.
func Start(t testing.TB, h http.Handler, lookup fastpath.Lookup, opts func(*http.Server)) *Pair {
	t.Helper()
	p := &Pair{}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if opts != nil {
		opts(hs)
	}
	fs, err := fastpath.New(fastpath.Options{HTTP: hs, Lookup: lookup,
		Log: func(string, string, int, int64, time.Duration) { p.Answered.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	fl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = fs.Serve(fl) }()
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	plain := &http.Server{Handler: h, ReadHeaderTimeout: hs.ReadHeaderTimeout, IdleTimeout: hs.IdleTimeout}
	go func() { _ = plain.Serve(pl) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = fs.Shutdown(ctx)
		_ = plain.Shutdown(ctx)
	})
	p.Fast, p.Plain = fl.Addr().String(), pl.Addr().String()
	return p
}

// Exchange writes raw to a new connection to addr in pieces of chunk bytes (all at once when chunk is 0) and
// returns everything read until the server closes the connection.
//
// The writing side is closed only once the server has answered every complete request in raw (or has closed the
// connection): net/http reads a client's half-close while a handler runs as a client that has gone and cancels the
// request's context, so closing at once would let a slow answer (a SPARQL query on a loaded machine) be cancelled
// on one server and not the other. The half-close is still needed afterwards: it ends a keep-alive connection and
// tells a server waiting on an incomplete request that nothing more comes.
func Exchange(t testing.TB, addr string, raw []byte, chunk int) []byte {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	reqs := completeRequests(raw)
	got := make(chan []byte, 1)
	written := make(chan struct{}) // closed once every byte is written: the half-close must not overtake them
	go func() {
		var all bytes.Buffer
		br := bufio.NewReader(io.TeeReader(c, &all))
		for answered := 0; answered < len(reqs); {
			resp, err := http.ReadResponse(br, reqs[answered])
			if err != nil {
				break
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil {
				break
			}
			if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
				answered++
			}
		}
		<-written
		_ = c.(*net.TCPConn).CloseWrite()
		_, _ = io.Copy(io.Discard, br)
		got <- all.Bytes()
	}()
	if chunk <= 0 {
		chunk = len(raw)
	}
	for len(raw) > 0 {
		n := min(chunk, len(raw))
		if _, err := c.Write(raw[:n]); err != nil {
			break // the server may close early (Connection: close, an error answer)
		}
		raw = raw[n:]
		if len(raw) > 0 {
			time.Sleep(time.Millisecond)
		}
	}
	close(written)
	return <-got
}

// completeRequests parses the requests raw holds in full, in order; it stops at the first one that is malformed
// or cut short, which the server answers (or waits on) after the half-close.
func completeRequests(raw []byte) []*http.Request {
	var reqs []*http.Request
	br := bufio.NewReader(bytes.NewReader(raw))
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return reqs
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return reqs
		}
		reqs = append(reqs, req)
	}
}

var (
	dateLine  = regexp.MustCompile(`(?m)^Date: [^\r\n]*\r\n`)
	timestamp = regexp.MustCompile(`"timestamp":[0-9]{13}`)
)

// StripDate removes the Date fields and the timestamps of JSON error bodies (always 13 digits, so lengths stay
// equal): the only parts of two answers that may differ.
func StripDate(b []byte) []byte {
	return timestamp.ReplaceAll(dateLine.ReplaceAll(b, nil), []byte(`"timestamp":T`))
}

// Compare sends raw to both servers and fails the test when the answers differ; it returns the fast path's
// answer and how many requests the fast path answered itself.
func (p *Pair) Compare(t testing.TB, raw []byte, chunk int) ([]byte, int64) {
	t.Helper()
	before := p.Answered.Load()
	fast := StripDate(Exchange(t, p.Fast, raw, chunk))
	answered := p.Answered.Load() - before
	plain := StripDate(Exchange(t, p.Plain, raw, chunk))
	if !bytes.Equal(fast, plain) {
		i := 0
		for i < len(fast) && i < len(plain) && fast[i] == plain[i] {
			i++
		}
		from := max(0, i-200)
		t.Errorf("request %q\nanswers differ at byte %d (the fast path answered %d requests itself)\nfast path: %q\nnet/http:  %q",
			raw, i, answered, fast[from:min(len(fast), i+200)], plain[from:min(len(plain), i+200)])
	}
	return fast, answered
}
