package site_test

import (
	"io/fs"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/site"
)

// treeState lists every file of the rendered tree with its size and modification time.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fi.Mode().String() + " " + fi.ModTime().String()
		if !d.IsDir() {
			out[p] += " " + string(rune(fi.Size()))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAdversarySite runs issue 15's probes against the direct-URL site as a caller with an ordinary credential
// (one that holds no role on the private repository): every answer, content and error alike, carries the security
// headers and may be read from any origin without credentials; no method but reads is offered, even to a
// preflight; private content answers exactly like missing content; and the rendered tree is unchanged afterwards.
func TestAdversarySite(t *testing.T) {
	f := newFixture(t)
	before := treeState(t, f.out)
	stranger := map[string]string{"Authorization": "Basic c3RyYW5nZXI6c2VjcmV0", "Origin": "https://evil.example"}
	for _, tc := range connegTable(f.versions) {
		hdr := map[string]string{"Accept": tc.accept}
		for k, v := range stranger {
			hdr[k] = v
		}
		w := f.do(tc.method, tc.path, hdr)
		for _, kv := range httpx.SecurityHeaders {
			if got := w.Header().Get(kv[0]); got != kv[1] {
				t.Errorf("%s: %s = %q", tc.name, kv[0], got)
			}
		}
		if w.Header().Get("Access-Control-Allow-Origin") != "*" || w.Header().Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: CORS %q %q", tc.name, w.Header().Get("Access-Control-Allow-Origin"), w.Header().Get("Access-Control-Allow-Credentials"))
		}
	}
	// The fast path's prepared answers carry them too.
	if p, ok := f.h.(*site.Handler).Prepared("/org/open/core", "text/turtle", "", ""); !ok {
		t.Error("no prepared answer for the public publication")
	} else if p.Header().Get("Content-Security-Policy") != httpx.ContentSecurityPolicy || p.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("prepared header %v", p.Header())
	}
	// Writes: refused, and a preflight offers none of them.
	for _, m := range []string{"PUT", "DELETE", "PATCH"} {
		if w := f.do(m, "/org/open/core", stranger); w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d", m, w.Code)
		}
		pf := f.do("OPTIONS", "/org/open/core", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": m})
		if strings.Contains(pf.Header().Get("Access-Control-Allow-Methods"), m) {
			t.Errorf("preflight for %s offers %q", m, pf.Header().Get("Access-Control-Allow-Methods"))
		}
	}
	// Private content answers exactly like missing content.
	hidden := f.do("GET", "/org/closed/secret", stranger)
	missing := f.do("GET", "/org/closed/nothing", stranger)
	stamp := regexp.MustCompile(`"timestamp":\d+`)
	norm := func(s string) string { return stamp.ReplaceAllString(s, "") }
	if hidden.Code != 404 || missing.Code != 404 || norm(strings.ReplaceAll(hidden.Body.String(), "secret", "nothing")) != norm(missing.Body.String()) {
		t.Errorf("private %d %s vs missing %d %s", hidden.Code, hidden.Body, missing.Code, missing.Body)
	}
	after := treeState(t, f.out)
	for p, s := range after {
		if before[p] != s {
			t.Errorf("%s changed or appeared", p)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d files before, %d after", len(before), len(after))
	}
}
