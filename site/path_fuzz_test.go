package site_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
)

const (
	outsideMarker = "OUTSIDE-THE-SITE-TREE-51c2"
	privateMarker = "PRIVATE-CONTENT-9e07"
	viewerAuth    = "Basic dmlld2VyOnNlY3JldA=="
)

// newTraversalBait renders a hub into <tmp>/site and plants copies of a rendered publication, whose every file
// holds outsideMarker, where a path escaping the public tree would land: beside the site folder, beside public/,
// and as a static page beside the pages folder. A private publication holds privateMarker.
func newTraversalBait(f *testing.F) http.Handler {
	hub := pipelinetest.New(f)
	pub := hub.Publish(f, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	hub.Update(f, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	hub.Publish(f, hub.Closed.ID, "secret", ".ttl", "<Thing> <http://example.org/p> \""+privateMarker+"\" .\n")
	tmp := f.TempDir()
	out := filepath.Join(tmp, "site")
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		f.Fatal(err)
	}
	src := filepath.Join(out, "public", "org", "open", "core", ".ld")
	for _, dst := range []string{filepath.Join(tmp, "bait"), filepath.Join(out, "bait"), filepath.Join(tmp, "pages", "..", "bait2")} {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			f.Fatal(err)
		}
		// cp -a keeps the cur symlink the handler follows.
		if b, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
			f.Fatalf("cp: %v %s", err, b)
		}
		err := filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 || d.Name() == "page.json" {
				return err
			}
			return os.WriteFile(p, []byte("<x:a> <x:b> \""+outsideMarker+"\" .\n"), 0o644)
		})
		if err != nil {
			f.Fatal(err)
		}
	}
	pages := filepath.Join(tmp, "pages")
	for dir, body := range map[string]string{pages: "<h1>hub</h1>", filepath.Join(pages, "org"): "<h1>org</h1>",
		filepath.Join(tmp, "outside"): outsideMarker, filepath.Join(out, "public", "leak"): outsideMarker} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	auth := site.AuthorizerFunc(func(r *http.Request, repo string) bool {
		return repo == hub.Closed.ID && r.Header.Get("Authorization") == viewerAuth
	})
	h, err := site.NewHandler(site.Options{Dir: out, Auth: auth, Pages: pages})
	if err != nil {
		f.Fatal(err)
	}
	return h
}

// FuzzPath sends arbitrary request targets to the direct-URL handler. Whatever the path (raw, %-encoded,
// double-encoded, with backslashes or NULs): no crash, no 5xx, nothing from outside the public tree or the pages
// folder is served (bait copies of a publication sit where an escape would land), private content only with
// credentials, a `..` segment is never answered with content, and every error is the JSON error body.
func FuzzPath(f *testing.F) {
	h := newTraversalBait(f)
	seeds := []string{
		"/org/open/core", "/org/open/core.ttl", "/org/open/core.html", "/org/open/core/void.ttl", "/org/open/core/Thing",
		"/org/open/core/Thing.nt", "/org/open/core/versions/1", "/org/open/core/versions/1.jsonld", "/org/closed/secret",
		"/org/closed/secret.nt", "/org/closed/secret/Thing", "/", "/org", "/org/", "/org/open/core/?page=1",
		"/org/open/core/Thing?page=-1", "/org/open/core/.ld/cur/data.ttl", "/org/open/core/.ld/cur/page.json",
		"/../bait", "/../../bait", "/%2e%2e/bait", "/%2e%2e/%2e%2e/bait", "/%2E%2E%2Fbait", "/..%2f..%2fbait",
		"/%252e%252e/bait", "/..\\bait", "/%5c..%5cbait", "/org/../../bait", "/org/open/core/versions/..%2f..%2f..%2f..%2fbait",
		"/org/open/core/versions/%2e%2e", "/org/open/../../../private/org/closed/secret", "/../private/org/closed/secret",
		"/%2e%2e/private/org/closed/secret.ttl", "/../outside", "/../bait2", "/leak", "/org/open/core/..%00/x", "/org/open/core%00",
		"/.ld", "/org/.ld/cur", "//org//open//core", "/org/open/core/versions/", "/org/open/core/versions/%2e",
		"/org/open/core/" + strings.Repeat("a/", 60), "/\u00e9/\u00fc", "/org/open/core/Thing.rdf?page=99999999999999999999",
	}
	accepts := []string{"", "text/turtle", "text/html", "application/n-triples;q=0.5, */*;q=0.1", "image/png"}
	for i, s := range seeds {
		f.Add(uint8(i), s, accepts[i%len(accepts)], i%3 == 0)
	}
	methods := []string{"GET", "HEAD", "POST", "OPTIONS", "DELETE"}
	f.Fuzz(func(t *testing.T, m uint8, target, accept string, authed bool) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return // net/http answers 400 before any handler runs
		}
		// SPARQL has fuzz targets of its own; a query here would only spend the time budget.
		q := u.Query()
		q.Del("query")
		u.RawQuery = q.Encode()
		method := methods[int(m)%len(methods)]
		r := &http.Request{Method: method, URL: u, RequestURI: u.RequestURI(), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{}, Host: "hub.example", Body: http.NoBody}
		r = r.WithContext(context.Background())
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if authed {
			r.Header.Set("Authorization", viewerAuth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		what := method + " " + u.RequestURI()
		body := w.Body.String()
		if w.Code >= 500 {
			t.Fatalf("%s: %d %s", what, w.Code, body)
		}
		if strings.Contains(body, outsideMarker) {
			t.Fatalf("%s: served a file from outside the site tree (%d)", what, w.Code)
		}
		if !authed && strings.Contains(body, privateMarker) {
			t.Fatalf("%s: served private content without credentials (%d)", what, w.Code)
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if seg == ".." && w.Code < 400 && method != "OPTIONS" {
				t.Fatalf("%s: a .. segment answered %d", what, w.Code)
			}
		}
		if w.Code >= 400 && method != "HEAD" {
			var e struct {
				Status int `json:"status"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Status != w.Code {
				t.Fatalf("%s: %d without the JSON error body: %q", what, w.Code, body)
			}
		}
	})
}
