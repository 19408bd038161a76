package site_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// consoleLine matches Chromium's log lines for console messages, uncaught errors and failed loads.
var consoleLine = regexp.MustCompile(`(?i)CONSOLE|Uncaught|Failed to load resource`)

// TestChromiumLoadsDirectURLs opens direct URLs in headless Chromium through the handler (so the browser's own
// Accept header picks the HTML): each page must load without console errors or failed requests and show its key
// content. Screenshots go to build/screenshots/ at the module root.
func TestChromiumLoadsDirectURLs(t *testing.T) {
	bin := needTool(t, "chromium")
	f := newFixture(t)
	var mu sync.Mutex
	var failed []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, r)
		if rec.Code >= 400 {
			mu.Lock()
			failed = append(failed, r.URL.Path)
			mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer srv.Close()
	shots := screenshotDir(t)
	cases := []struct {
		name, path string
		want       []string
	}{
		{"publication", "/org/open/core", []string{"<h1 id=\"title\">core</h1>", "http://hub.example/org/open/core", "Statistics", "Run query"}},
		{"old version", "/org/open/core/versions/" + f.versions[0], []string{"latest version", "owl#Class"}},
		{"resource", "/org/open/core/Thing", []string{"Thing", "Ding", "anonymous part", "Referenced by"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			failed = nil
			run := func(extra ...string) (string, string) {
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
					"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
					"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
					"--window-size=1280,1400"}, extra...)
				cmd := exec.CommandContext(ctx, bin, append(args, srv.URL+tc.path)...)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil {
					t.Fatalf("chromium: %v\n%s", err, errb.String())
				}
				return out.String(), errb.String()
			}
			dom, logs := run("--dump-dom")
			for _, w := range tc.want {
				if !strings.Contains(dom, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, l := range strings.Split(logs, "\n") {
				if consoleLine.MatchString(l) {
					t.Errorf("browser: %s", l)
				}
			}
			shot := filepath.Join(shots, "direct-url-"+strings.ReplaceAll(tc.name, " ", "-")+".png")
			run("--screenshot=" + shot)
			if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
				t.Errorf("no screenshot at %s: %v", shot, err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, p := range failed {
				if p != "/favicon.ico" {
					t.Errorf("the page requested %s, which failed", p)
				}
			}
		})
	}
}

// screenshotDir is build/screenshots at the module root, where CI collects test artefacts.
func screenshotDir(t *testing.T) string {
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return t.TempDir()
	}
	out := filepath.Join(dir, "build", "screenshots")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}
