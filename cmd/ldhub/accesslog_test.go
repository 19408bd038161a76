package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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
