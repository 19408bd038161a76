package html

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

// chromium finds a headless-capable Chromium. CI must have it (apt-get install chromium); elsewhere the browser
// checks are skipped with the reason.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found; CI needs the Debian package chromium")
	}
	t.Skip("chromium not found (apt-get install chromium); the browser check needs it")
	return ""
}

// browsed is what one headless page load left behind.
type browsed struct {
	dom      string
	console  []string // console messages and page errors Chromium logged
	notFound []string // requests the server answered 404
}

// consoleLine matches Chromium's log lines for console messages and uncaught errors.
var consoleLine = regexp.MustCompile(`(?i)CONSOLE|Uncaught|Failed to load resource`)

func browse(t *testing.T, bin, root, path, screenshot string) browsed {
	t.Helper()
	var mu sync.Mutex
	var b browsed
	files := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		files.ServeHTTP(rec, r)
		if rec.status == http.StatusNotFound {
			mu.Lock()
			b.notFound = append(b.notFound, r.URL.Path)
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
		}, extra...)
		args = append(args, srv.URL+path)
		cmd := exec.CommandContext(ctx, bin, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
		}
		return out.String(), errb.String()
	}
	dom, logs := run("--dump-dom")
	b.dom = dom
	for _, l := range strings.Split(logs, "\n") {
		if consoleLine.MatchString(l) {
			b.console = append(b.console, l)
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

// artefacts is build/screenshots at the module root, where CI collects test artefacts.
func artefacts(t *testing.T) string {
	t.Helper()
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

// TestChromium loads rendered pages in a real browser: they must load without console errors or missing
// files and show the publication's name. Screenshots land in build/screenshots/ for a person to look at.
func TestChromium(t *testing.T) {
	bin := chromium(t)
	out := render(t, fixture())
	shots := artefacts(t)
	tests := []struct {
		name, path, want string
	}{
		{"hub", "/", `<a href="./acme/people/">People</a>`},
		{"publication", "/acme/people/staff/", `<h1 id="title">Staff Directory</h1>`},
		{"version", "/acme/people/staff/versions/2026_20spring_2F_CE_B2/", "Staff Directory 2026 spring/β"},
		{"resource", "/acme/people/staff/id/alice/", "Staff Directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := browse(t, bin, out, tc.path, filepath.Join(shots, tc.name+".png"))
			if !strings.Contains(b.dom, tc.want) {
				t.Errorf("page %s does not show %q:\n%s", tc.path, tc.want, b.dom)
			}
			if !strings.Contains(b.dom, "</html>") {
				t.Errorf("page %s: no DOM dumped", tc.path)
			}
			if len(b.console) > 0 {
				t.Errorf("page %s logged to the console:\n%s", tc.path, strings.Join(b.console, "\n"))
			}
			if len(b.notFound) > 0 {
				t.Errorf("page %s asked for missing files: %v", tc.path, b.notFound)
			}
		})
	}
}

// TestChromiumSeesErrors shows the browser check can fail: a theme whose page throws and links a missing
// stylesheet must be caught by both detectors.
func TestChromiumSeesErrors(t *testing.T) {
	bin := chromium(t)
	over := t.TempDir()
	if err := os.MkdirAll(filepath.Join(over, "layouts"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := `{{ define "head" }}<link rel="stylesheet" href="/missing.css">{{ end }}` +
		`{{ define "main" }}<h1>{{ .Title }}</h1><script>undefinedFunction()</script>{{ end }}`
	if err := os.WriteFile(filepath.Join(over, "layouts", "hub.html"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	b := browse(t, bin, render(t, fixture(), over), "/", "")
	if len(b.console) == 0 {
		t.Error("an uncaught exception was not seen in the console log")
	}
	if len(b.notFound) == 0 {
		t.Error("a missing stylesheet was not seen")
	}
}
