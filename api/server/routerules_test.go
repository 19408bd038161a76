package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ldhub/ldhub/api/server"
	"github.com/ldhub/ldhub/httpx"
)

var paramRE = regexp.MustCompile(`\{[A-Za-z]+\}`)

// concrete fills a route pattern with ids no object has: every rule below must hold on error answers too.
func concrete(pattern string) string {
	return paramRE.ReplaceAllString(pattern, "00000000-0000-4000-8000-000000000000")
}

// TestEveryRouteKeepsTheRules is issue 15's one table-driven test over the route table: on every route the
// security headers are set; a JSON body must be application/json and an upload multipart/form-data (415
// otherwise); a write from a foreign origin is refused (403, no CORS grant) while a configured origin gets its
// grant and reads stay open to any origin; and a slow-loris body loses its connection within the deadline.
func TestEveryRouteKeepsTheRules(t *testing.T) {
	f := newFixture(t)
	cfg := f.cfg
	cfg.CORSOrigins = httpx.Origins{"https://app.example"}
	cfg.Deadlines = httpx.Deadlines{Grace: 300 * time.Millisecond, MinRate: 1 << 10, WriteIdle: time.Second}
	srv := server.New(cfg)
	pub := f.callers["publisher"]
	do := func(rt server.RouteInfo, hdr map[string]string, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(rt.Method, concrete(rt.Pattern), strings.NewReader(body))
		r.SetBasicAuth(pub.id, pub.secret)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w
	}
	routes := srv.Routes()
	if len(routes) < 60 {
		t.Fatalf("only %d routes", len(routes))
	}
	for _, rt := range routes {
		name := rt.Method + " " + rt.Pattern
		w := do(rt, nil, "")
		for _, kv := range httpx.SecurityHeaders {
			if got := w.Header().Get(kv[0]); got != kv[1] {
				t.Errorf("%s: %s = %q", name, kv[0], got)
			}
		}
		if !strings.Contains(w.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: no frame-ancestors", name)
		}
		switch {
		case strings.HasPrefix(rt.Body, "json:"):
			for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", ""} {
				if w := do(rt, map[string]string{"Content-Type": ct}, `{"name":"x"}`); w.Code != http.StatusUnsupportedMediaType {
					t.Errorf("%s as %q: %d, want 415", name, ct, w.Code)
				}
			}
		case strings.HasPrefix(rt.Body, "multipart:"):
			if w := do(rt, map[string]string{"Content-Type": "application/json"}, `{}`); w.Code != http.StatusUnsupportedMediaType {
				t.Errorf("%s as JSON: %d, want 415", name, w.Code)
			}
		}
		foreign := do(rt, map[string]string{"Origin": "https://evil.example", "Content-Type": "application/json"}, `{}`)
		configured := do(rt, map[string]string{"Origin": "https://app.example", "Content-Type": "application/json"}, `{}`)
		if rt.Read {
			if foreign.Header().Get("Access-Control-Allow-Origin") != "*" || foreign.Code == http.StatusForbidden && strings.Contains(foreign.Body.String(), "cross-origin") {
				t.Errorf("%s: a read from any origin: %d %q", name, foreign.Code, foreign.Header().Get("Access-Control-Allow-Origin"))
			}
		} else {
			if foreign.Code != http.StatusForbidden || foreign.Header().Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s: a write from a foreign origin: %d, Allow-Origin %q", name, foreign.Code, foreign.Header().Get("Access-Control-Allow-Origin"))
			}
			if configured.Code == http.StatusForbidden || configured.Header().Get("Access-Control-Allow-Origin") != "https://app.example" {
				t.Errorf("%s: a write from the configured origin: %d, Allow-Origin %q", name, configured.Code, configured.Header().Get("Access-Control-Allow-Origin"))
			}
		}
		// Preflights: reads for anyone, writes only for the configured origin.
		pf := func(origin string) http.Header {
			r := httptest.NewRequest(http.MethodOptions, concrete(rt.Pattern), nil)
			r.Header.Set("Origin", origin)
			r.Header.Set("Access-Control-Request-Method", rt.Method)
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			return w.Header()
		}
		if got := pf("https://evil.example").Get("Access-Control-Allow-Origin"); rt.Read != (got == "*") {
			t.Errorf("%s: preflight from a foreign origin: Allow-Origin %q", name, got)
		}
		if got := pf("https://app.example").Get("Access-Control-Allow-Origin"); got == "" {
			t.Errorf("%s: preflight from the configured origin refused", name)
		}
	}

	// Deadlines, over a real connection: a body that claims 100 kB and sends 10 bytes is cut within the grace plus
	// what 10 bytes earn, on every route at once; a claim above the upload limit is refused before it is read.
	hs := httptest.NewServer(srv)
	defer hs.Close()
	var wg sync.WaitGroup
	for _, rt := range routes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, err := slowLoris(hs.Listener.Addr().String(), rt, pub.id, pub.secret, 100000); err != nil || d > 5*time.Second {
				t.Errorf("%s %s: slow body held the connection %v (%v)", rt.Method, rt.Pattern, d, err)
			}
		}()
	}
	wg.Wait()
	status, err := claim(hs.Listener.Addr().String(), "/api/v3/groups", pub.id, pub.secret, 2<<30)
	if err != nil || status != "413" {
		t.Errorf("2 GB Content-Length claim: %q %v", status, err)
	}
}

// slowLoris sends a request whose body claims n bytes, sends 10 and stalls; it returns how long the server kept
// the connection before answering or closing it.
func slowLoris(addr string, rt server.RouteInfo, id, secret string, n int) (time.Duration, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	req, _ := http.NewRequest(rt.Method, "http://"+addr+concrete(rt.Pattern), nil)
	req.SetBasicAuth(id, secret)
	start := time.Now()
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n0123456789",
		rt.Method, req.URL.RequestURI(), addr, req.Header.Get("Authorization"), n)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	// Read until the server closes: an early answer (a 404 that never reads the body) must not leave the
	// connection held either.
	for {
		if _, err := br.ReadByte(); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return time.Since(start), err
			}
			return time.Since(start), nil
		}
	}
}

// claim sends only the header of a request with a huge Content-Length and returns the status of the answer.
func claim(addr, path, id, secret string, n int64) (string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	req, _ := http.NewRequestWithContext(context.Background(), "POST", "http://"+addr+path, nil)
	req.SetBasicAuth(id, secret)
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		path, addr, req.Header.Get("Authorization"), n)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", err
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return "", fmt.Errorf("status line %q", line)
	}
	return fields[1], nil
}
