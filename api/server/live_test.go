package server_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ldhub/ldhub/api/server"
	"github.com/ldhub/ldhub/content/model"
)

// TestUploadWaitsUntilLive: an upload that publishes a version (create with content, a new version by
// publicationUri or name) answers only once Pending says the version is live, so that a client reading the
// publication's URL right after the answer gets it; past Settle it answers anyway and says so in LiveHeader; a
// meta-data change that publishes nothing does not wait.
func TestUploadWaitsUntilLive(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	asked, liveAfter := 0, 0 // Pending answers true liveAfter times, then false
	var askedFor string
	cfg := f.cfg
	cfg.Pending = func(_ context.Context, p model.Publication) bool {
		mu.Lock()
		defer mu.Unlock()
		asked++
		askedFor = p.Version.ID
		return asked <= liveAfter
	}
	f.srv = server.New(cfg)
	reset := func(n int) {
		mu.Lock()
		asked, liveAfter, askedFor = 0, n, ""
		mu.Unlock()
	}
	calls := func() (int, string) {
		mu.Lock()
		defer mu.Unlock()
		return asked, askedFor
	}
	upload := func(method, meta, content string) response {
		t.Helper()
		metaPart, contentPart := "metadata", "content"
		if method == "PUT" {
			metaPart, contentPart = "meta-data", "Content"
		}
		body, ct := multipartBody(mpart{name: metaPart, contentType: "application/json", data: meta},
			mpart{name: contentPart, filename: "x.ttl", contentType: "text/turtle", data: content})
		res := f.do(request{method: method, path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher",
			body: body, contentType: ct})
		wantStatus(t, res, http.StatusOK)
		return res
	}
	check := func(what string, res response, wantCalls int, wantLive string) {
		t.Helper()
		n, ver := calls()
		if n != wantCalls {
			t.Errorf("%s: answered after Pending was asked %d times, want %d", what, n, wantCalls)
		}
		if got := res.header.Get(server.LiveHeader); got != wantLive {
			t.Errorf("%s: %s = %q, want %q", what, server.LiveHeader, got, wantLive)
		}
		pub := decodeJSON[map[string]any](t, res)
		versions, _ := pub["versions"].([]any)
		if len(versions) == 0 {
			t.Fatalf("%s: no versions in %v", what, pub)
		}
		last, _ := versions[len(versions)-1].(map[string]any)
		if ver != last["id"] {
			t.Errorf("%s: waited for version %q, the answer's latest is %v", what, ver, last["id"])
		}
	}

	reset(5)
	res := upload("POST", `{"name": "live"}`, turtleA)
	check("create", res, 6, "true")

	reset(3)
	res = upload("PUT", `{"name": "live"}`, turtleB)
	check("new version", res, 4, "true")

	reset(1 << 30)
	cfg.Settle = 150 * time.Millisecond
	f.srv = server.New(cfg)
	start := time.Now()
	res = upload("PUT", `{"name": "live"}`, turtleA)
	if d := time.Since(start); d < cfg.Settle {
		t.Errorf("answered after %v, before Settle (%v) while pending", d, cfg.Settle)
	}
	if n, _ := calls(); n < 2 {
		t.Errorf("Pending asked %d times within Settle", n)
	}
	if got := res.header.Get(server.LiveHeader); got != "false" {
		t.Errorf("past Settle: %s = %q, want false", server.LiveHeader, got)
	}

	reset(1 << 30)
	res = f.do(request{method: "PATCH", path: f.path("/api/v3/publications/{vis.pub}?description=d"), as: "publisher"})
	wantStatus(t, res, http.StatusOK)
	if n, _ := calls(); n != 0 {
		t.Errorf("a meta-data change asked Pending %d times", n)
	}
	if got := res.header.Get(server.LiveHeader); got != "" {
		t.Errorf("a meta-data change has %s: %q", server.LiveHeader, got)
	}
}
