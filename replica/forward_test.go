package replica

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestHandlerServesCredentialedReadsItHas: a credentialed read of a direct URL the copy serves to anyone is answered
// by the replica, without the credentials reaching its own handler; one the copy does not have (a hidden repository,
// a version not fetched yet) goes to the primary with the credentials, and nothing of the local 404 leaks into the
// answer; API routes, pushes and writes with credentials always go to the primary; anonymous reads never do.
func TestHandlerServesCredentialedReadsItHas(t *testing.T) {
	var mu sync.Mutex
	var atPrimary []string
	primary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		atPrimary = append(atPrimary, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("X-From", "primary")
		io.WriteString(w, "primary:"+r.Header.Get("Authorization"))
	}))
	defer primary.Close()
	u, err := url.Parse(primary.URL)
	if err != nil {
		t.Fatal(err)
	}
	local := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the replica's own handler got the credentials of %s %s", r.Method, r.URL.Path)
		}
		w.Header().Set("X-From", "replica")
		if r.URL.Path == "/org/open/core" || strings.HasPrefix(r.URL.Path, "/api/") {
			io.WriteString(w, "replica")
			return
		}
		w.Header().Set("X-Local-Miss", "1")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"status":404}`)
	})
	f := &Follower{primary: u, o: Options{Client: primary.Client(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	h := NewHandler(HandlerOptions{Local: local, Follower: f, Public: func(p string) bool {
		first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		return first != "api" && first != "ns" && first != "git"
	}})
	const auth = "Basic dmlld2VyOnNlY3JldA=="
	cases := []struct {
		method, path, auth, from string
		status                   int
	}{
		{"GET", "/org/open/core", auth, "replica", 200},
		{"HEAD", "/org/open/core", auth, "replica", 200},
		{"GET", "/org/open/core", "", "replica", 200},
		{"GET", "/org/closed/secret", auth, "primary", 200},
		{"GET", "/org/open/core/versions/not-fetched-yet", auth, "primary", 200},
		{"GET", "/org/closed/secret", "", "replica", 404},
		{"GET", "/api/v4/repositories", auth, "primary", 200},
		{"GET", "/api/v4/repositories", "", "replica", 200},
		{"GET", "/git/org/open.git/info/refs?service=git-receive-pack", "", "primary", 200},
		{"POST", "/org/open/core/sparql", auth, "primary", 200},
		{"PUT", "/api/v3/repositories/x/publications", auth, "primary", 200},
	}
	for _, c := range cases {
		mu.Lock()
		atPrimary = nil
		mu.Unlock()
		r := httptest.NewRequest(c.method, c.path, nil)
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.status || w.Header().Get("X-From") != c.from {
			t.Errorf("%s %s (credentials %v): %d from %q, want %d from %s", c.method, c.path, c.auth != "", w.Code, w.Header().Get("X-From"), c.status, c.from)
			continue
		}
		mu.Lock()
		hits := len(atPrimary)
		mu.Unlock()
		if c.from == "replica" && hits != 0 {
			t.Errorf("%s %s: answered by the replica, yet the primary was asked too", c.method, c.path)
		}
		if c.from == "primary" {
			if w.Header().Get("X-Local-Miss") != "" {
				t.Errorf("%s %s: the local 404's headers leaked into the primary's answer", c.method, c.path)
			}
			if want := "primary:" + c.auth; c.method != "HEAD" && w.Body.String() != want {
				t.Errorf("%s %s: body %q, want %q (the credentials go to the primary, the local 404 body nowhere)", c.method, c.path, w.Body.String(), want)
			}
		}
	}
}
