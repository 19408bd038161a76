// Package htmltest loads pages in headless Chromium for the tests of site/html and of what serves its pages: what
// the console logged, which requests failed and the DOM after load, plus a screenshot kept as a test artefact.
package htmltest

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

	"github.com/ldhub/ldhub/content/conformance"
)

// Chromium finds a headless-capable Chromium; without one the test is skipped, or fails under CI=true.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	conformance.Missing(t, "chromium not found (apt-get install chromium); the browser checks need it")
	return ""
}

// Browsed is what one headless page load left behind.
type Browsed struct {
	DOM     string
	Console []string // console messages and page errors Chromium logged
	Failed  []string // requests answered with a status of 400 or more
}

// consoleLine matches Chromium's log lines for console messages, uncaught errors and failed loads.
var consoleLine = regexp.MustCompile(`(?i)CONSOLE|Uncaught|Failed to load resource`)

// Browse serves h, loads path in Chromium and, when screenshot is not "", saves a screenshot there. flags are
// added to Chromium's (a --window-size for a phone's width, --virtual-time-budget for scripts to finish).
func Browse(t testing.TB, bin string, h http.Handler, path, screenshot string, flags ...string) Browsed {
	t.Helper()
	var mu sync.Mutex
	var b Browsed
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if rec.status >= 400 {
			mu.Lock()
			b.Failed = append(b.Failed, r.URL.Path)
			mu.Unlock()
		}
	}))
	defer srv.Close()
	run := func(extra ...string) (stdout, stderr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		args := append([]string{
			"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
			"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
			"--window-size=1280,1700",
		}, flags...)
		args = append(args, extra...)
		cmd := exec.CommandContext(ctx, bin, append(args, srv.URL+path)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
		}
		return out.String(), errb.String()
	}
	dom, logs := run("--dump-dom")
	b.DOM = dom
	for _, l := range strings.Split(logs, "\n") {
		if consoleLine.MatchString(l) {
			b.Console = append(b.Console, l)
		}
	}
	if screenshot != "" {
		if err := os.MkdirAll(filepath.Dir(screenshot), 0o755); err != nil {
			t.Fatal(err)
		}
		run("--screenshot=" + screenshot)
		if fi, err := os.Stat(screenshot); err != nil || fi.Size() == 0 {
			t.Fatalf("no screenshot at %s: %v", screenshot, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return b
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// ArtefactDir is where screenshots are kept: $LDHUB_ARTEFACT_DIR, else build/screenshots at the module root (where
// CI collects test artefacts; git ignores it), else a temporary folder.
func ArtefactDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("LDHUB_ARTEFACT_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "build", "screenshots")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return t.TempDir()
		}
		dir = parent
	}
}
