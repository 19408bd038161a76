package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
)

// The access log is written in blocks: nothing per request, everything within the flush interval and on Close.
func TestAccessLogBuffered(t *testing.T) {
	out := &syncBuffer{}
	b := newAccessLog(out, 200*time.Millisecond)
	log := slog.New(slog.NewTextHandler(b, nil))
	logRequest(log, "GET", "/org/open/core", 200, 1171, 3*time.Millisecond)
	if out.String() != "" {
		t.Fatalf("written at once: %q", out.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), `msg=request method=GET path=/org/open/core status=200 bytes=1171 ms=3`) {
		if time.Now().After(deadline) {
			t.Fatalf("not flushed by the interval: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	logRequest(log, "HEAD", "/x", 304, 0, 0)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "method=HEAD path=/x status=304") {
		t.Fatalf("not flushed by Close: %q", out.String())
	}
	logRequest(log, "GET", "/after", 200, 0, 0) // after Close: straight through
	if !strings.Contains(out.String(), "path=/after") {
		t.Fatalf("lost after Close: %q", out.String())
	}
}

// net/http's requests and the fast path's are logged by logRequest alike, with the path only: no query, no header.
func TestAccessLogNoSecrets(t *testing.T) {
	out := &syncBuffer{}
	b := newAccessLog(out, time.Hour)
	h := accessLog(slog.New(slog.NewTextHandler(b, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}))
	r := httptest.NewRequest("GET", "/api/v3/groups?token=hunter2", nil)
	r.SetBasicAuth("root", "correct-horse-battery")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	logs := out.String()
	if !strings.Contains(logs, "method=GET path=/api/v3/groups status=418 bytes=0") {
		t.Errorf("log %q", logs)
	}
	if strings.Contains(logs, "hunter2") || strings.Contains(logs, "correct-horse") || strings.Contains(logs, "cm9vd") {
		t.Errorf("a secret reached the log: %q", logs)
	}
}

// directURL looks up only the paths server.Server hands to the site unseen: a publication of a group named ns (or
// api, git) is served by net/http through the server's own routing, never by the fast path.
func TestDirectURLLookup(t *testing.T) {
	ctx := context.Background()
	hub := pipelinetest.New(t)
	hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	ns, err := hub.Store.CreateGroup(ctx, hub.Admin, model.Group{Name: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := hub.Store.CreateRepository(ctx, hub.Admin, model.Repository{Name: "vocab", ParentID: ns.ID, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	hub.Publish(t, repo.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	lookup := directURL(h)
	if _, ok := lookup("/org/open/core", "", ""); !ok {
		t.Error("/org/open/core is not looked up")
	}
	if _, ok := h.Prepared("/ns/vocab/core", "", ""); !ok {
		t.Fatal("the site has no answer for /ns/vocab/core: the test proves nothing")
	}
	for _, path := range []string{"/ns/vocab/core", "/api/v3/groups", "/git/org/open.git"} {
		if _, ok := lookup(path, "", ""); ok {
			t.Errorf("%s is looked up by the fast path", path)
		}
	}
}
