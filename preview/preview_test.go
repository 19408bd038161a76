package preview

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPreviewRendersAndReloadsOnSave(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) { writeFile(t, dir, name, body) }
	write("core.ttl", "<Thing> <p> \"first\" .\n<http://preview.test/core/Res> <p> \"res\" .\n")
	write("sub/more.nt", "<http://x/a> <http://x/b> <http://x/c> .\n")
	write("notes.txt", "not RDF")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pv, err := New(ctx, dir, "http://preview.test", "")
	if err != nil {
		t.Fatal(err)
	}
	defer pv.Close()
	if err := pv.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	go pv.Watch(ctx, io.Discard)
	srv := httptest.NewServer(pv)
	defer srv.Close()
	get := func(path, accept string) (int, string) { return getAs(t, srv.URL+path, accept) }
	cases := []struct {
		path, accept, want string
		status             int
	}{
		{"/", "text/html", `href="/core"`, 200},
		{"/", "text/html", `href="/sub/more"`, 200},
		{"/core", "text/turtle", `"first"`, 200},
		{"/core", "text/html", "/_preview/reload.js", 200},
		// Resource pages are rendered on request, with the preview's title and reload script too.
		{"/core/Res", "text/html", "/_preview/reload.js", 200},
		{"/core/Res", "text/html", "ldhub preview", 200},
		{"/sub/more.nt", "", "<http://x/a>", 200},
		{"/notes", "", "", 404},
	}
	for _, tc := range cases {
		if code, body := get(tc.path, tc.accept); code != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d %.200s; want %d with %q", tc.path, code, body, tc.status, tc.want)
		}
	}

	// A page listening for changes hears about the save, and the next GET shows the new content.
	events, err := http.Get(srv.URL + "/_preview/events")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	time.Sleep(50 * time.Millisecond) // the stream is registered before the save
	write("core.ttl", "<Thing> <p> \"second\" .\n")
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(events.Body).ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if !strings.HasPrefix(line, "data:") {
			t.Errorf("event %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reload event within 10 s of the save")
	}
	if _, body := get("/core", "text/turtle"); !strings.Contains(body, `"second"`) {
		t.Errorf("after the save: %s", body)
	}
	// A broken save is reported and leaves the last good rendering.
	write("core.ttl", "<Thing> <p> .\n")
	if err := pv.Sync(ctx); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("sync of bad Turtle: %v", err)
	}
	if _, body := get("/core", "text/turtle"); !strings.Contains(body, `"second"`) {
		t.Errorf("after a bad save: %s", body)
	}
}

// TestPreviewShowsErrorsAndRealNamespace: a file that does not parse is shown in the browser (on the index,
// without JavaScript, and through /_preview/errors for the banner every page loads), with its line and column,
// until it is fixed; the index wears the theme; --base-url makes the vocabulary's own term IRIs open as pages.
func TestPreviewShowsErrorsAndRealNamespace(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) { writeFile(t, dir, name, body) }
	write("road.ttl", "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n<http://example.org/def/road/Bridge> a skos:Concept ; skos:prefLabel \"Bridge\"@en .\n")
	write("broken.ttl", "@prefix ex: <http://ex/> .\nex:a ex:b \"oops .\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pv, err := New(ctx, dir, "http://example.org/def", "")
	if err != nil {
		t.Fatal(err)
	}
	defer pv.Close()
	_ = pv.Sync(ctx)
	srv := httptest.NewServer(pv)
	defer srv.Close()
	get := func(path, accept string) (int, string) { return getAs(t, srv.URL+path, accept) }
	_, index := get("/", "text/html")
	for _, want := range []string{"broken.ttl", "line 2, column 18", `class="site"`, "--accent"} {
		if !strings.Contains(index, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	if _, errs := get("/_preview/errors", ""); !strings.Contains(errs, "broken.ttl") || !strings.Contains(errs, "line 2") {
		t.Errorf("/_preview/errors: %s", errs)
	}
	if _, page := get("/road", "text/html"); !strings.Contains(page, `<script src="/_preview/reload.js" defer></script>`) || strings.Contains(page, "<script>") {
		t.Error("pages do not load the reload and error script as a file")
	}
	if _, js := get("/_preview/reload.js", ""); !strings.Contains(js, "/_preview/errors") || !strings.Contains(js, "/_preview/events") {
		t.Errorf("reload.js: %s", js)
	}
	// The hub's security headers, with the one addition the reload stream needs, on every answer.
	for _, path := range []string{"/", "/road", "/road/Bridge", "/_preview/reload.js", "/_preview/errors"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get("Content-Security-Policy") != CSP || resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
			resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", path, resp.Header)
		}
	}
	// The term's IRI is the real namespace's; its page answers at the preview's path for it.
	if code, ttl := get("/road/Bridge", "text/turtle"); code != 200 || !strings.Contains(ttl, "<http://example.org/def/road/Bridge>") {
		t.Errorf("term page: %d %s", code, ttl)
	}
	write("broken.ttl", "@prefix ex: <http://ex/> .\nex:a ex:b \"fixed\" .\n")
	if err := pv.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, errs := get("/_preview/errors", ""); strings.TrimSpace(errs) != "[]" {
		t.Errorf("errors after the fix: %s", errs)
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// getAs GETs url with an Accept header and returns the status and body.
func getAs(t *testing.T, url, accept string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
