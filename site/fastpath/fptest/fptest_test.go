package fptest

import (
	"bytes"
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
