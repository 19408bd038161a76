package fptest

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ldhub/ldhub/site"
)

// TestExchangeWaitsForTheAnswer holds the harness to what the comparison needs: a handler that takes a while must
// not see its request cancelled by the harness's half-close, on either server. With the half-close sent right
// after the request, net/http cancelled the context and the slow answer said "cancelled".
func TestExchangeWaitsForTheAnswer(t *testing.T) {
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(300 * time.Millisecond):
			_, _ = w.Write([]byte("answered"))
		case <-r.Context().Done():
			_, _ = w.Write([]byte("cancelled"))
		}
	})
	none := func(string, string, string, string) (site.Prepared, bool) { return site.Prepared{}, false }
	p := Start(t, slow, none, nil)
	for _, addr := range []string{p.Fast, p.Plain} {
		one := "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
		out := Exchange(t, addr, []byte(one+one+"GET /cut HTTP/1.1\r\nHost: x"), 0)
		if n := bytes.Count(out, []byte("answered")); n != 2 || bytes.Contains(out, []byte("cancelled")) {
			t.Errorf("%s: want two answers and no cancellation, got %q", addr, out)
		}
	}
}

// TestExchangeWritesBeforeHalfClose sends requests the harness cannot parse (so it waits for no answer) to a server
// that echoes what it read until the half-close: every byte must arrive. The half-close had raced the writes and
// at times overtook them, so the server saw an empty connection (CI, TestAnswersLikeNetHTTP/CR_in_a_value).
func TestExchangeWritesBeforeHalfClose(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, _ := io.ReadAll(c)
				_, _ = c.Write(b)
			}()
		}
	}()
	for _, raw := range []string{"GET / HTTP/1.1\r\nHost: x\r\nAccept: a\rb\r\n\r\n", "GET /cut HTTP/1.1\r\nHost: x", "not http"} {
		for range 200 {
			if out := Exchange(t, l.Addr().String(), []byte(raw), 0); string(out) != raw {
				t.Fatalf("sent %q, the server read %q", raw, out)
			}
		}
	}
}
