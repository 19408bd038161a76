package httpx_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/httpx"
)

func deadlineServer(t *testing.T, after time.Duration) string {
	d := httpx.Deadlines{Grace: 300 * time.Millisecond, MinRate: 4 << 10, WriteIdle: time.Second}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w, r, done := d.Apply(w, r)
		defer done()
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			w.WriteHeader(http.StatusRequestTimeout)
			return
		}
		// Work after the body, longer than the grace: the request must stay alive.
		time.Sleep(after)
		if r.Context().Err() != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, n)
	}))
	t.Cleanup(hs.Close)
	return hs.Listener.Addr().String()
}

// send writes a request with a body of n bytes in chunks of size every pause, and returns the status line and
// how long it took.
func send(t *testing.T, addr string, n, size int, pause time.Duration) (string, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", n)
	go func() {
		for sent := 0; sent < n; sent += size {
			if _, err := c.Write([]byte(strings.Repeat("x", min(size, n-sent)))); err != nil {
				return
			}
			time.Sleep(pause)
		}
	}()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "closed: " + err.Error(), time.Since(start)
	}
	return strings.TrimSpace(line), time.Since(start)
}

func TestSlowLorisIsCutLegitimateBodiesAreNot(t *testing.T) {
	addr := deadlineServer(t, 600*time.Millisecond)
	// 10 bytes a second against a 4 KiB/s minimum: cut soon after the grace.
	if line, d := send(t, addr, 1000, 10, time.Second); !strings.Contains(line, "408") && !strings.HasPrefix(line, "closed") || d > 3*time.Second {
		t.Errorf("slow loris: %q after %v", line, d)
	}
	// 64 KiB at about 16 KiB/s for 4 s: well above the minimum, and the handler's work after the body (longer
	// than the grace) is not cut short.
	if line, d := send(t, addr, 64<<10, 4<<10, 250*time.Millisecond); !strings.Contains(line, "200") {
		t.Errorf("steady upload: %q after %v", line, d)
	}
}

// TestEndWritesBy: a handler streaming to a client that stops reading is held by a blocked write for WriteIdle, and
// each later write would wait WriteIdle again. Once EndWritesBy's time passes, the blocked write and every later
// one fail, so the handler returns (and frees what it holds) at that time, not WriteIdle after; also when it was
// called while no write was blocked (the handler was computing), so that the next write's own deadline would
// have been WriteIdle away.
func TestEndWritesBy(t *testing.T) {
	for _, pause := range []time.Duration{0, time.Second} {
		d := httpx.Deadlines{WriteIdle: time.Minute}
		returned := make(chan time.Duration, 1)
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w, r, done := d.Apply(w, r)
			defer done()
			start := time.Now()
			time.AfterFunc(500*time.Millisecond, func() { httpx.EndWritesBy(w, time.Now()) })
			time.Sleep(pause)
			chunk := []byte(strings.Repeat("x", 64<<10))
			for time.Since(start) < 30*time.Second {
				if _, err := w.Write(chunk); err != nil {
					break
				}
			}
			returned <- time.Since(start)
		}))
		c, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		// The client reads nothing until the handler has returned.
		select {
		case took := <-returned:
			if took > 10*time.Second {
				t.Errorf("pause %s: the handler returned after %s", pause, took)
			}
		case <-time.After(40 * time.Second):
			t.Errorf("pause %s: the handler is still writing to a client that does not read, 40 s later", pause)
		}
		c.Close()
		hs.Close()
	}
}
