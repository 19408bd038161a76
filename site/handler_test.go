package site_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
)

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

type fixture struct {
	h        http.Handler
	out      string
	versions []string // labels, oldest first
	commits  []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, site.Options{})
}

// newFixtureWith is newFixture with handler options (Dir and Auth are the fixture's); themes are the pipeline's
// theme overrides, which the handler's Theme must share (the term pages are pre-rendered with them).
func newFixtureWith(t *testing.T, o site.Options, themes ...string) *fixture {
	t.Helper()
	hub := pipelinetest.New(t)
	pub := hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	pub = hub.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	hub.Publish(t, hub.Closed.ID, "secret", ".ttl", pipelinetest.Vocab)
	hub.Publish(t, hub.Open.ID, "ds", ".trig", "<http://x/g> { <http://x/s> <http://x/p> \"in a graph\" . }\n")
	out := t.TempDir()
	// Term pages too, so that the web servers' replays (nginx_test.go, apache_test.go) serve resources from files.
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example", HTML: &pipeline.HTML{TermPages: true, Themes: themes}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitTermPages(context.Background()); err != nil {
		t.Fatal(err)
	}
	auth := site.AuthorizerFunc(func(r *http.Request, repo string) bool {
		return repo == hub.Closed.ID && r.Header.Get("Authorization") == "Basic dmlld2VyOnNlY3JldA=="
	})
	o.Dir, o.Auth = out, auth
	h, err := site.NewHandler(o)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{h: h, out: out}
	for _, v := range pub.Versions {
		f.versions = append(f.versions, v.Label)
		f.commits = append(f.commits, v.Commit)
	}
	return f
}

// renderTree renders every publication of hub (without pages, as `ldhub serve` without HTML would) into a fresh
// folder and returns a handler over it, closed with the test, and the folder; o.Dir is set here.
func renderTree(t *testing.T, hub *pipelinetest.Hub, o site.Options) (*site.Handler, string) {
	t.Helper()
	return renderTreeWith(t, hub, nil, o)
}

// renderTreeWith is renderTree with the pipeline's pages made with pages (nil: none).
func renderTreeWith(t *testing.T, hub *pipelinetest.Hub, pages *pipeline.HTML, o site.Options) (*site.Handler, string) {
	t.Helper()
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example", HTML: pages})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	o.Dir = out
	h, err := site.NewHandler(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, out
}

func (f *fixture) do(method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

// ConnegCase is one row of the content-negotiation table; the nginx test replays the same rows.
type connegCase struct {
	name, method, path, accept string
	auth                       bool
	status                     int
	ctype                      string // media type without parameters
	location                   string
	body                       string // a fragment the body must contain
}

func connegTable(versions []string) []connegCase {
	old := versions[0]
	return []connegCase{
		{"no Accept is Turtle", "GET", "/org/open/core", "", false, 200, "text/turtle", "/org/open/core.ttl", "Third"},
		// Issue 15: the registry's other name for Turtle is Turtle too, as on /statements (was 406).
		{"x-turtle alias", "GET", "/org/open/core", "application/x-turtle", false, 200, "text/turtle", "/org/open/core.ttl", "Third"},
		{"x-turtle alias on a resource", "GET", "/org/open/core/Thing", "application/x-turtle", false, 200, "text/turtle", "/org/open/core/Thing.ttl", "anonymous part"},
		{"*/* is Turtle", "GET", "/org/open/core", "*/*", false, 200, "text/turtle", "/org/open/core.ttl", "Third"},
		{"browser gets HTML", "GET", "/org/open/core", browserAccept, false, 200, "text/html", "/org/open/core.html", "<h1"},
		{"JSON-LD", "GET", "/org/open/core", "application/ld+json", false, 200, "application/ld+json", "/org/open/core.jsonld", "Third"},
		// A reader asking for JSON gets JSON-LD (JSON-LD 1.1 §9), as Turtle for x-turtle (was 406).
		{"JSON is JSON-LD", "GET", "/org/open/core", "application/json", false, 200, "application/ld+json", "/org/open/core.jsonld", "Third"},
		{"JSON is JSON-LD for a version", "GET", "/org/open/core/versions/" + old, "application/json", false, 200, "application/ld+json", "/org/open/core/versions/" + old + ".jsonld", "Other"},
		{"JSON is JSON-LD for a resource", "GET", "/org/open/core/Thing", "application/json", false, 200, "application/ld+json", "/org/open/core/Thing.jsonld", "anonymous part"},
		{"JSON is JSON-LD for a dataset", "GET", "/org/open/ds", "application/json", false, 200, "application/ld+json", "/org/open/ds.jsonld", "in a graph"},
		{"q-values pick RDF/XML", "GET", "/org/open/core", "application/n-triples;q=0.5, application/rdf+xml", false, 200, "application/rdf+xml", "/org/open/core.rdf", "Third"},
		{"q=0 excludes Turtle", "GET", "/org/open/core", "text/turtle;q=0, */*;q=0.1", false, 200, "application/n-triples", "/org/open/core.nt", "Third"},
		{"nothing acceptable", "GET", "/org/open/core", "image/png", false, 406, "application/json", "", `"status":406`},
		{"extension overrides Accept", "GET", "/org/open/core.nt", "text/html", false, 200, "application/n-triples", "/org/open/core.nt", "Third"},
		{"HTML by extension", "GET", "/org/open/core.html", "", false, 200, "text/html", "/org/open/core.html", "owl#Class"},
		{"old version", "GET", "/org/open/core/versions/" + old, "", false, 200, "text/turtle", "/org/open/core/versions/" + old + ".ttl", "Other"},
		{"old version by extension", "GET", "/org/open/core/versions/" + old + ".jsonld", "", false, 200, "application/ld+json", "/org/open/core/versions/" + old + ".jsonld", "Other"},
		{"unknown version", "GET", "/org/open/core/versions/nope", "", false, 404, "application/json", "", `"status":404`},
		{"VoID", "GET", "/org/open/core/void.ttl", "", false, 200, "text/turtle", "/org/open/core/void.ttl", "void:Dataset"},
		{"resource as Turtle", "GET", "/org/open/core/Thing", "", false, 200, "text/turtle", "/org/open/core/Thing.ttl", "anonymous part"},
		{"resource as HTML", "GET", "/org/open/core/Thing", browserAccept, false, 200, "text/html", "/org/open/core/Thing.html", "Ding"},
		{"resource by extension", "GET", "/org/open/core/Thing.nt", "", false, 200, "application/n-triples", "/org/open/core/Thing.nt", "<http://hub.example/org/open/core/Third>"},
		{"unknown resource", "GET", "/org/open/core/Nothing", "", false, 404, "application/json", "", `"status":404`},
		{"unknown publication", "GET", "/org/open/nope", "", false, 404, "application/json", "", `"status":404`},
		{"tree internals are hidden", "GET", "/org/open/core/.ld/cur/data.ttl", "", false, 404, "application/json", "", ""},
		{"private without credentials", "GET", "/org/closed/secret", "", false, 404, "application/json", "", `"status":404`},
		{"private with VIEWER", "GET", "/org/closed/secret", "", true, 200, "text/turtle", "/org/closed/secret.ttl", "Thing"},
		{"POST to a resource is not allowed", "POST", "/org/open/core/Thing", "", false, 405, "application/json", "", `"status":405`},
		{"SPARQL GET", "GET", "/org/open/core?query=ASK%7B%7D", "application/sparql-results+json", false, 200, "application/sparql-results+json", "", "true"},
		{"dataset is TriG by default", "GET", "/org/open/ds", "", false, 200, "application/trig", "/org/open/ds.trig", "in a graph"},
		{"dataset as JSON-LD", "GET", "/org/open/ds", "application/ld+json", false, 200, "application/ld+json", "/org/open/ds.jsonld", "in a graph"},
		{"dataset page", "GET", "/org/open/ds", browserAccept, false, 200, "text/html", "/org/open/ds.html", "TriG"},
		{"dataset has no Turtle", "GET", "/org/open/ds.ttl", "", false, 404, "application/json", "", `"status":404`},
		{"DELETE is not allowed", "DELETE", "/org/open/core", "", false, 405, "application/json", "", `"status":405`},
	}
}

func TestConneg(t *testing.T) {
	f := newFixture(t)
	for _, tc := range connegTable(f.versions) {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{"Accept": tc.accept}
			if tc.auth {
				hdr["Authorization"] = "Basic dmlld2VyOnNlY3JldA=="
			}
			w := f.do(tc.method, tc.path, hdr)
			ct, _, _ := strings.Cut(w.Header().Get("Content-Type"), ";")
			if w.Code != tc.status || ct != tc.ctype {
				t.Fatalf("%d %s, want %d %s\n%s", w.Code, ct, tc.status, tc.ctype, w.Body)
			}
			if got := w.Header().Get("Content-Location"); got != tc.location {
				t.Errorf("Content-Location %q, want %q", got, tc.location)
			}
			if !strings.Contains(w.Body.String(), tc.body) {
				t.Errorf("body lacks %q:\n%.600s", tc.body, w.Body)
			}
			if w.Code == 200 && w.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Error("no CORS header")
			}
			if syn, isRDF := codec.Default().ByMediaType(ct); w.Code == 200 && isRDF {
				dec := syn.NewDecoder(bytes.NewReader(w.Body.Bytes()), rdf.DecodeOptions{Base: "http://x/"})
				for {
					if _, err := dec.Next(); err == io.EOF {
						break
					} else if err != nil {
						t.Fatalf("body does not parse as %s: %v", ct, err)
					}
				}
			}
			if w.Code >= 400 {
				var e map[string]any
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil && tc.method != "HEAD" {
					t.Errorf("error body is not JSON: %v", err)
				}
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	f := newFixture(t)
	latest := f.do("GET", "/org/open/core", nil)
	h := latest.Header()
	if !strings.Contains(h.Get("Vary"), "Accept") {
		t.Errorf("Vary %q", h.Values("Vary"))
	}
	for _, want := range []string{`</org/open/core.nt>; rel="alternate"; type="application/n-triples"`, `</org/open/core.html>; rel="alternate"; type="text/html"`} {
		if !strings.Contains(h.Get("Link"), want) {
			t.Errorf("Link %q lacks %q", h.Get("Link"), want)
		}
	}
	if h.Get("ETag") == "" || h.Get("Last-Modified") == "" {
		t.Fatalf("no validators: %v", h)
	}
	if cc := h.Get("Cache-Control"); strings.Contains(cc, "immutable") {
		t.Errorf("latest is cached as immutable: %q", cc)
	}
	version := f.do("GET", "/org/open/core/versions/"+f.versions[0], nil)
	if cc := version.Header().Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
		t.Errorf("version Cache-Control %q", cc)
	}
	if version.Header().Get("ETag") == h.Get("ETag") {
		t.Error("an old version has the latest's ETag")
	}
	private := f.do("GET", "/org/closed/secret", map[string]string{"Authorization": "Basic dmlld2VyOnNlY3JldA=="})
	if cc := private.Header().Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
		t.Errorf("private Cache-Control %q", cc)
	}

	cases := []struct {
		name   string
		method string
		hdr    map[string]string
		status int
		check  func(t *testing.T, w *httptest.ResponseRecorder)
	}{
		{"If-None-Match", "GET", map[string]string{"If-None-Match": h.Get("ETag")}, 304, nil},
		{"If-Modified-Since", "GET", map[string]string{"If-Modified-Since": h.Get("Last-Modified")}, 304, nil},
		{"stale ETag", "GET", map[string]string{"If-None-Match": `"other"`}, 200, nil},
		{"HEAD", "HEAD", nil, 200, func(t *testing.T, w *httptest.ResponseRecorder) {
			if w.Body.Len() != 0 || w.Header().Get("Content-Length") != h.Get("Content-Length") {
				t.Errorf("HEAD: body %d bytes, Content-Length %q", w.Body.Len(), w.Header().Get("Content-Length"))
			}
		}},
		{"Range", "GET", map[string]string{"Range": "bytes=0-9"}, 206, func(t *testing.T, w *httptest.ResponseRecorder) {
			if w.Body.String() != latest.Body.String()[:10] {
				t.Errorf("range body %q", w.Body)
			}
		}},
		{"gzip", "GET", map[string]string{"Accept-Encoding": "gzip, deflate, br"}, 200, func(t *testing.T, w *httptest.ResponseRecorder) {
			if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("ETag") == h.Get("ETag") {
				t.Fatalf("Content-Encoding %q ETag %q", w.Header().Get("Content-Encoding"), w.Header().Get("ETag"))
			}
			zr, err := gzip.NewReader(w.Body)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(zr)
			if string(b) != latest.Body.String() {
				t.Error("gunzipped body differs")
			}
		}},
		{"gzip refused", "GET", map[string]string{"Accept-Encoding": "gzip;q=0"}, 200, func(t *testing.T, w *httptest.ResponseRecorder) {
			if w.Header().Get("Content-Encoding") != "" {
				t.Error("compressed although refused")
			}
		}},
		// RFC 9110 §12.5.3: gzip's own weight of 0 wins over "*".
		{"gzip refused beside *", "GET", map[string]string{"Accept-Encoding": "gzip;q=0, *"}, 200, func(t *testing.T, w *httptest.ResponseRecorder) {
			if w.Header().Get("Content-Encoding") != "" {
				t.Error("compressed although gzip;q=0")
			}
		}},
		{"any coding", "GET", map[string]string{"Accept-Encoding": "*"}, 200, func(t *testing.T, w *httptest.ResponseRecorder) {
			if w.Header().Get("Content-Encoding") != "gzip" {
				t.Error("not compressed for *")
			}
		}},
		{"CORS preflight", "OPTIONS", map[string]string{"Origin": "http://yasgui.example", "Access-Control-Request-Headers": "authorization"}, 204, func(t *testing.T, w *httptest.ResponseRecorder) {
			if w.Header().Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(w.Header().Get("Access-Control-Allow-Headers"), "Authorization") {
				t.Errorf("preflight headers %v", w.Header())
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := f.do(tc.method, "/org/open/core", tc.hdr)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			if tc.check != nil {
				tc.check(t, w)
			}
		})
	}
}

func TestResourceIncomingLinksArePaged(t *testing.T) {
	hub := pipelinetest.New(t)
	var b strings.Builder
	for i := range 25 {
		b.WriteString("<s" + string(rune('a'+i)) + "> <p> <Target> .\n")
	}
	hub.Publish(t, hub.Open.ID, "many", ".ttl", b.String())
	out := t.TempDir()
	p, _ := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out, PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for page, want := range []int{10, 10, 5} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/org/open/many/Target.nt?page="+string(rune('0'+page)), nil))
		n := strings.Count(w.Body.String(), "\n")
		if w.Code != 200 || n != want {
			t.Errorf("page %d: %d, %d lines, want %d", page, w.Code, n, want)
		}
		if hasNext := strings.Contains(w.Header().Get("Link"), `rel="next"`); hasNext != (page < 2) {
			t.Errorf("page %d: Link %q", page, w.Header().Get("Link"))
		}
		total += n
	}
	if total != 25 {
		t.Errorf("%d incoming links over all pages, want 25", total)
	}
}

func TestSPARQLOnTheDirectURL(t *testing.T) {
	f := newFixture(t)
	q := "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
	cases := []struct {
		name, method, target, body, want string
		status                           int
	}{
		{"GET latest", "GET", "/org/open/core?query=" + url.QueryEscape(q), "", `"value":"12"`, 200},
		{"form POST to an old version", "POST", "/org/open/core/versions/" + f.versions[0], "query=" + url.QueryEscape(q), `"value":"11"`, 200},
		{"syntax error", "GET", "/org/open/core?query=SELEKT", "", `"status":400`, 400},
		{"other graphs refused", "GET", "/org/open/core?default-graph-uri=x&query=" + url.QueryEscape(q), "", `"status":400`, 400},
		{"private without credentials", "GET", "/org/closed/secret?query=" + url.QueryEscape(q), "", `"status":404`, 404},
		{"private endpoint form without credentials", "GET", "/org/closed/secret/sparql?query=" + url.QueryEscape(q), "", `"status":404`, 404},
		// Every URL form: <publication URL>, <publication URL>/sparql, <version URL>, <version URL>/sparql, each
		// with GET, a form POST and a POST of application/sparql-query.
		{"GET endpoint form", "GET", "/org/open/core/sparql?query=" + url.QueryEscape(q), "", `"value":"12"`, 200},
		{"form POST endpoint form", "POST", "/org/open/core/sparql", "query=" + url.QueryEscape(q), `"value":"12"`, 200},
		{"direct POST endpoint form", "POST", "/org/open/core/sparql", "!" + q, `"value":"12"`, 200},
		{"direct POST latest", "POST", "/org/open/core", "!" + q, `"value":"12"`, 200},
		{"form POST latest", "POST", "/org/open/core", "query=" + url.QueryEscape(q), `"value":"12"`, 200},
		{"GET version", "GET", "/org/open/core/versions/" + f.versions[0] + "?query=" + url.QueryEscape(q), "", `"value":"11"`, 200},
		{"direct POST version", "POST", "/org/open/core/versions/" + f.versions[0], "!" + q, `"value":"11"`, 200},
		{"GET version endpoint form", "GET", "/org/open/core/versions/" + f.versions[0] + "/sparql?query=" + url.QueryEscape(q), "", `"value":"11"`, 200},
		{"form POST version endpoint form", "POST", "/org/open/core/versions/" + f.versions[0] + "/sparql", "query=" + url.QueryEscape(q), `"value":"11"`, 200},
		{"direct POST version endpoint form", "POST", "/org/open/core/versions/" + f.versions[0] + "/sparql", "!" + q, `"value":"11"`, 200},
		{"service description", "GET", "/org/open/core/sparql", "", "sd:Service", 200},
		{"version service description", "GET", "/org/open/core/versions/" + f.versions[0] + "/sparql", "", "/versions/" + f.versions[0] + "/sparql>", 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, ctype := tc.body, "application/x-www-form-urlencoded"
			if direct, ok := strings.CutPrefix(body, "!"); ok {
				body, ctype = direct, "application/sparql-query"
			}
			r := httptest.NewRequest(tc.method, tc.target, strings.NewReader(body))
			if body != "" {
				r.Header.Set("Content-Type", ctype)
			}
			if tc.want == "sd:Service" || strings.HasSuffix(tc.want, "/sparql>") {
				r.Header.Set("Accept", "text/turtle")
			}
			w := httptest.NewRecorder()
			f.h.ServeHTTP(w, r)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
				t.Errorf("%d %s, want %d with %s", w.Code, w.Body, tc.status, tc.want)
			}
		})
	}
}

// A publication deleted and published again under the same URI reuses version folder names (INCREMENTAL labels
// start at 1 again); the handler must not serve the old folder's cached page or bytes.
func TestRepublishedFolderIsNotServedFromCache(t *testing.T) {
	hub := pipelinetest.New(t)
	ctx := context.Background()
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		return w.Body.String()
	}
	var labels []string
	for i, obj := range []string{"first", "second"} {
		pub, err := hub.Store.CreatePublication(ctx, hub.Admin, hub.Open.ID, model.PublicationMeta{Name: "p", VersioningMode: model.Incremental},
			store.Content{Ext: ".ttl", Data: []byte(`<s> <p> "` + obj + `" .`)})
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, pub.Version.Label)
		if _, err := p.SyncRepository(ctx, hub.Open.ID); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/org/open/p.nt", "/org/open/p/versions/" + pub.Version.Label + ".nt"} {
			if body := get(path); !strings.Contains(body, obj) {
				t.Errorf("round %d: %s = %q, want %q", i, path, body, obj)
			}
		}
		if _, err := hub.Store.DeletePublication(ctx, hub.Admin, pub.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := p.SyncRepository(ctx, hub.Open.ID); err != nil {
			t.Fatal(err)
		}
	}
	if labels[0] != labels[1] {
		t.Logf("labels %v differ; the folder names were not reused", labels)
	}
}

func TestVersionByCommit(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{f.commits[0], f.commits[0][:10]} {
		w := f.do("GET", "/org/open/core/versions/"+id+".nt", nil)
		if w.Code != 200 || strings.Contains(w.Body.String(), "Third") {
			t.Errorf("%s: %d, body has the latest's statement: %v", id, w.Code, strings.Contains(w.Body.String(), "Third"))
		}
		if loc := w.Header().Get("Content-Location"); loc != "/org/open/core/versions/"+f.versions[0]+".nt" {
			t.Errorf("%s: Content-Location %q", id, loc)
		}
	}
	if w := f.do("GET", "/org/open/core/versions/"+f.commits[0][:5], nil); w.Code != 404 {
		t.Errorf("a 5-digit prefix answered %d", w.Code)
	}
}

func TestStaticPages(t *testing.T) {
	f := newFixture(t)
	pages := t.TempDir()
	for dir, body := range map[string]string{"": "hub front page", "org": "group page", "org/open": "repository page"} {
		if err := os.MkdirAll(filepath.Join(pages, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pages, dir, "index.html"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := site.NewHandler(site.Options{Dir: f.out, Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, accept string
		status       int
		want         string
	}{
		{"/", browserAccept, 200, "hub front page"},
		{"/org/", "", 200, "group page"},
		{"/org/open", browserAccept, 200, "repository page"},
		{"/org/open", "text/turtle", 406, `"status":406`},
		{"/org/open/core", "", 200, "Third"}, // publications win
		{"/org/none", "", 404, `"status":404`},
		{"/org/../org", "", 404, ""},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", "http://hub.example"+tc.path, nil)
		r.URL.Path = tc.path
		if tc.accept != "" {
			r.Header.Set("Accept", tc.accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("GET %s: %d %.100s, want %d with %q", tc.path, w.Code, w.Body, tc.status, tc.want)
		}
	}
}

// The handler caches where each URL is served from and what it answers. With the cache warm, a switch of the
// latest version, a repository hidden or shown again and a deletion by the pipeline must show on the very next
// request, whether the tree's changes are watched (inotify) or resolved on every request (after Close).
func TestChangesShowOnTheNextRequest(t *testing.T) {
	for _, watched := range []bool{true, false} {
		t.Run(map[bool]string{true: "watched", false: "unwatched"}[watched], func(t *testing.T) {
			hub := pipelinetest.New(t)
			ctx := context.Background()
			pub := hub.Publish(t, hub.Open.ID, "core", ".ttl", `<s> <p> "v0" .`)
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
			if !watched {
				if err := h.Close(); err != nil {
					t.Fatal(err)
				}
			}
			cur := filepath.Join(out, "public", "org", "open", "core", ".ld", "cur")
			urls := []struct{ path, accept, file string }{
				{"/org/open/core", "application/n-triples", "data.nt"},
				{"/org/open/core", "", "data.ttl"},
				{"/org/open/core.jsonld", "", "data.jsonld"},
				{"/org/open/core/void.ttl", "", "void.ttl"},
			}
			get := func(path, accept string) *httptest.ResponseRecorder {
				r := httptest.NewRequest("GET", path, nil)
				if accept != "" {
					r.Header.Set("Accept", accept)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			// check asks every URL twice (the second answer comes from the cache) for what cur points at now.
			check := func(step, literal string) {
				t.Helper()
				for _, u := range urls {
					want, err := os.ReadFile(filepath.Join(cur, u.file))
					if err != nil {
						t.Fatalf("%s: %v", step, err)
					}
					for range 2 {
						w := get(u.path, u.accept)
						if w.Code != 200 || w.Body.String() != string(want) {
							t.Fatalf("%s: %s (%q): %d, body is not %s:\n%.300s", step, u.path, u.accept, w.Code, u.file, w.Body)
						}
					}
					if strings.HasPrefix(u.file, "data.") && !strings.Contains(string(want), literal) {
						t.Fatalf("%s: %s lacks %s", step, u.file, literal)
					}
				}
			}
			gone := func(step string) {
				t.Helper()
				for _, u := range urls {
					if w := get(u.path, u.accept); w.Code != 404 {
						t.Fatalf("%s: %s answered %d", step, u.path, w.Code)
					}
				}
			}
			sync := func() {
				t.Helper()
				if _, err := p.SyncRepository(ctx, hub.Open.ID); err != nil {
					t.Fatal(err)
				}
			}
			check("first version", `"v0"`)
			for i := 1; i <= 3; i++ {
				hub.Update(t, pub.ID, ".ttl", fmt.Sprintf(`<s> <p> "v%d" .`, i))
				sync()
				check(fmt.Sprintf("update %d", i), fmt.Sprintf(`"v%d"`, i))
			}
			visible := false
			if _, err := hub.Store.UpdateRepository(ctx, hub.Admin, hub.Open.ID, catalog.RepositoryPatch{Visible: &visible}); err != nil {
				t.Fatal(err)
			}
			sync()
			gone("repository hidden")
			visible = true
			if _, err := hub.Store.UpdateRepository(ctx, hub.Admin, hub.Open.ID, catalog.RepositoryPatch{Visible: &visible}); err != nil {
				t.Fatal(err)
			}
			sync()
			check("repository shown again", `"v3"`)
			if _, err := hub.Store.DeletePublication(ctx, hub.Admin, pub.ID); err != nil {
				t.Fatal(err)
			}
			sync()
			gone("publication deleted")
		})
	}
}

// A tree moved away above the watched folders raises no inotify event for them; the handler notices within a
// second or so all the same (it compares its cache with the file system once a second) and serves the tree again
// once it is back.
func TestTreeMovedBehindTheWatch(t *testing.T) {
	f := newFixture(t)
	get := func() int {
		w := f.do("GET", "/org/open/core.nt", nil)
		return w.Code
	}
	for range 3 {
		if code := get(); code != 200 {
			t.Fatalf("before the move: %d", code)
		}
	}
	org := filepath.Join(f.out, "public", "org")
	if err := os.Rename(org, org+".moved"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for get() != 404 {
		if time.Now().After(deadline) {
			t.Fatal("the moved tree is still served")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.Rename(org+".moved", org); err != nil {
		t.Fatal(err)
	}
	if code := get(); code != 200 {
		t.Errorf("after moving the tree back: %d", code)
	}
}

// ETags are nginx's, "<mtime hex>-<size hex>" of the file sent (the .gz sibling when compressed), so that a cache
// keeps its validators whichever server answers.
func TestETagIsNginxs(t *testing.T) {
	f := newFixture(t)
	cur := filepath.Join(f.out, "public", "org", "open", "core", ".ld", "cur")
	for _, tc := range []struct{ path, encoding, file string }{
		{"/org/open/core.nt", "", "data.nt"},
		{"/org/open/core.nt", "gzip", "data.nt.gz"},
		{"/org/open/core.html", "", "index.html"},
		{"/org/open/core/versions/" + f.versions[0] + ".ttl", "", "../v/" + f.versions[0] + "/data.ttl"},
	} {
		fi, err := os.Stat(filepath.Join(cur, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`"%x-%x"`, fi.ModTime().Unix(), fi.Size())
		w := f.do("GET", tc.path, map[string]string{"Accept-Encoding": tc.encoding})
		if got := w.Header().Get("ETag"); got != want {
			t.Errorf("%s (%s): ETag %s, want %s", tc.path, tc.encoding, got, want)
		}
		if got := w.Header().Get("Last-Modified"); got != fi.ModTime().UTC().Format(http.TimeFormat) {
			t.Errorf("%s: Last-Modified %s", tc.path, got)
		}
	}
}

// A dump larger than what is kept in memory is sent from its file (sendfile), with the same headers, ranges and
// conditional answers as a small one.
func TestLargeDumpIsSentFromItsFile(t *testing.T) {
	hub := pipelinetest.New(t)
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "<http://example.org/s%d> <http://example.org/p> \"a literal long enough to make the dump large %d\" .\n", i, i)
	}
	hub.Publish(t, hub.Open.ID, "big", ".nt", b.String())
	h, out := renderTree(t, hub, site.Options{})
	want, err := os.ReadFile(filepath.Join(out, "public", "org", "open", "big", ".ld", "cur", "data.nt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 128<<10 {
		t.Fatalf("the dump is only %d bytes; the test needs one larger than the in-memory limit", len(want))
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	do := func(method string, hdr map[string]string) (*http.Response, []byte) {
		req, _ := http.NewRequest(method, srv.URL+"/org/open/big", nil)
		req.Header.Set("Accept", "application/n-triples")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	for range 2 {
		resp, body := do("GET", nil)
		if resp.StatusCode != 200 || !bytes.Equal(body, want) || resp.Header.Get("Content-Length") != fmt.Sprint(len(want)) {
			t.Fatalf("GET: %d, %d bytes (Content-Length %s), want %d", resp.StatusCode, len(body), resp.Header.Get("Content-Length"), len(want))
		}
		if resp.Header.Get("ETag") == "" || resp.Header.Get("Link") == "" || resp.Header.Get("Vary") == "" {
			t.Errorf("headers %v", resp.Header)
		}
		if resp, body := do("HEAD", nil); resp.StatusCode != 200 || len(body) != 0 || resp.ContentLength != int64(len(want)) {
			t.Errorf("HEAD: %d, %d bytes, length %d", resp.StatusCode, len(body), resp.ContentLength)
		}
		if resp2, _ := do("GET", map[string]string{"If-None-Match": resp.Header.Get("ETag")}); resp2.StatusCode != 304 {
			t.Errorf("If-None-Match: %d", resp2.StatusCode)
		}
		if resp, body := do("GET", map[string]string{"Range": "bytes=100000-100009"}); resp.StatusCode != 206 || string(body) != string(want[100000:100010]) {
			t.Errorf("Range: %d %q", resp.StatusCode, body)
		}
	}
}

// Requests running while the pipeline switches versions each get one whole, consistent answer: a body of some
// version with that body's own length and ETag (run with -race for the caches' locking).
func TestRequestsDuringSwitches(t *testing.T) {
	hub := pipelinetest.New(t)
	ctx := context.Background()
	pub := hub.Publish(t, hub.Open.ID, "core", ".ttl", `<s> <p> "v0" .`)
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
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			accept := []string{"application/n-triples", "text/turtle"}[g%2]
			for n := 0; ; n++ {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				r := httptest.NewRequest("GET", "/org/open/core", nil)
				r.Header.Set("Accept", accept)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				body := w.Body.String()
				size := fmt.Sprintf(`-%x"`, len(body))
				if w.Code != 200 || !strings.Contains(body, `"v`) || w.Header().Get("Content-Length") != fmt.Sprint(len(body)) ||
					!strings.HasSuffix(w.Header().Get("ETag"), size) {
					errs <- fmt.Errorf("request %d: %d, ETag %s, Content-Length %s, body %q", n, w.Code, w.Header().Get("ETag"), w.Header().Get("Content-Length"), body)
					return
				}
			}
		}()
	}
	for i := 1; i <= 4; i++ {
		hub.Update(t, pub.ID, ".ttl", fmt.Sprintf(`<s> <p> "v%d" .`+"\n<s> <p> \"%s\" .", i, strings.Repeat("x", i)))
		if _, err := p.SyncRepository(ctx, hub.Open.ID); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// The pipeline replaces a version's page in place (a rename over index.html) when the theme changes; the next
// request gets the new page.
func TestPageReplacedInPlace(t *testing.T) {
	f := newFixture(t)
	pub := filepath.Join(f.out, "public", "org", "open", "core", ".ld")
	for _, tc := range []struct{ path, dir string }{
		{"/org/open/core/versions/" + f.versions[0] + ".html", filepath.Join(pub, "v", f.versions[0])},
		{"/org/open/core.html", filepath.Join(pub, "cur")},
	} {
		for range 2 {
			if w := f.do("GET", tc.path, nil); w.Code != 200 || strings.Contains(w.Body.String(), "new theme") {
				t.Fatalf("%s before: %d", tc.path, w.Code)
			}
		}
		tmp := filepath.Join(tc.dir, ".tmp-page")
		if err := os.WriteFile(tmp, []byte("<html>new theme</html>"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(tc.dir, "index.html")); err != nil {
			t.Fatal(err)
		}
		if w := f.do("GET", tc.path, nil); w.Body.String() != "<html>new theme</html>" {
			t.Errorf("%s after the page was replaced: %d %.100s", tc.path, w.Code, w.Body)
		}
	}
}
