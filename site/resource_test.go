package site_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/html"
)

// TestResourcePageHTML: a resource's HTML page, rendered by Hugo on request, shows the crumbs, the IRI, its
// properties with their labels, its blank node's statements nested under it, what points at it and links to every
// other format, with the validators of every direct URL.
func TestResourcePageHTML(t *testing.T) {
	f := newFixture(t)
	w := f.do("GET", "/org/open/core/Thing", map[string]string{"Accept": browserAccept})
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("status %d, Content-Type %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	body := w.Body.String()
	for _, want := range []string{
		`<h1 id="title" lang="en">Thing</h1>`, `<code id="uri" class="iri">http://hub.example/org/open/core/Thing</code>`,
		`<li><a href="/org/">org</a></li>`, `<a href="/org/open/core">core</a>`,
		`>rdf:type</a>`, `>owl:Class</a>`, `<span class="literal" lang="nl">Ding</span>`,
		// The blank node's statements sit in a nested list under the value of ex:part, with the label the data
		// gives its property.
		`<dd><span class="blank">_:`, `<dl class="props">`, `>size</a>`, `anonymous part`,
		`<h2 id="incoming">Referenced by</h2>`, `title="http://hub.example/org/open/core/Other" lang="en">Other</a>`,
		`href="/org/open/core/Thing.ttl" type="text/turtle"`, `href="/org/open/core/Thing.nt"`,
		`href="/org/open/core/Thing.jsonld"`, `href="/org/open/core/Thing.rdf"`,
		`<link rel="alternate" type="text/turtle" href="/org/open/core/Thing.ttl"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if regexp.MustCompile(`<dd><span class="blank">_:[^<]*</span>\s*<dl class="props">`).FindString(body) == "" {
		t.Error("the blank node's statements are not nested under it")
	}
	if strings.Contains(body, `rel="next"`) {
		t.Error("a next page without more incoming links")
	}
	etag, lm := w.Header().Get("ETag"), w.Header().Get("Last-Modified")
	if etag == "" || lm == "" {
		t.Fatalf("no validators: %v", w.Header())
	}
	if w := f.do("GET", "/org/open/core/Thing", map[string]string{"Accept": browserAccept, "If-None-Match": etag}); w.Code != 304 {
		t.Errorf("If-None-Match: %d", w.Code)
	}
	// A version's page of the same resource names the version in its crumbs and links the version's formats.
	v := f.do("GET", "/org/open/core/versions/"+f.versions[0]+"/Thing.html", nil)
	if v.Code != 200 || !strings.Contains(v.Body.String(), `href="/org/open/core/versions/`+f.versions[0]+`/Thing.ttl"`) ||
		strings.Contains(v.Body.String(), "Third") {
		t.Errorf("version page: %d\n%s", v.Code, v.Body)
	}
	if v.Header().Get("ETag") == etag {
		t.Error("the version's page has the latest's ETag")
	}
}

// TestResourcePageHTMLIsPaged: the references are paged in HTML as in the other formats, with links both ways.
func TestResourcePageHTMLIsPaged(t *testing.T) {
	hub := pipelinetest.New(t)
	var b strings.Builder
	for i := range 25 {
		fmt.Fprintf(&b, "<s%02d> <p> <Target> .\n", i)
	}
	hub.Publish(t, hub.Open.ID, "many", ".ttl", b.String())
	h, _ := renderTree(t, hub, site.Options{PageSize: 10})
	cases := []struct {
		query      string
		page, rows int
		first      string
		prev, next string
	}{
		{"", 0, 10, "s00", "", `/org/open/many/Target.html?page=1`},
		{"?page=1", 1, 10, "s10", `/org/open/many/Target.html`, `/org/open/many/Target.html?page=2`},
		{"?page=2", 2, 5, "s20", `/org/open/many/Target.html?page=1`, ""},
	}
	for _, tc := range cases {
		t.Run("page"+tc.query, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/org/open/many/Target.html"+tc.query, nil))
			body := w.Body.String()
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, body)
			}
			// The second time the page comes from the cache, with the same links.
			again := httptest.NewRecorder()
			h.ServeHTTP(again, httptest.NewRequest("GET", "/org/open/many/Target.html"+tc.query, nil))
			for _, hdr := range []string{"Link", "ETag", "Last-Modified", "Content-Type"} {
				if again.Header().Get(hdr) != w.Header().Get(hdr) {
					t.Errorf("cached %s %q, first %q", hdr, again.Header().Get(hdr), w.Header().Get(hdr))
				}
			}
			if again.Body.String() != body {
				t.Error("the cached page differs")
			}
			if hasNext := strings.Contains(w.Header().Get("Link"), `rel="next"`); hasNext != (tc.next != "") {
				t.Errorf("Link %q", w.Header().Get("Link"))
			}
			if n := strings.Count(body, `<tr><td><a href="http://hub.example/org/open/many/s`); n != tc.rows {
				t.Errorf("%d references, want %d", n, tc.rows)
			}
			// The count covers every page; the page says which one it is.
			if want := fmt.Sprintf("25 statements point here; page %d of 3 shows %d.", tc.page+1, tc.rows); !strings.Contains(body, want) {
				t.Errorf("no %q", want)
			}
			if !strings.Contains(body, "/many/"+tc.first+`">`) {
				t.Errorf("page does not start at %s", tc.first)
			}
			for rel, href := range map[string]string{"prev": tc.prev, "next": tc.next} {
				link := `<a rel="` + rel + `" href="` + strings.ReplaceAll(href, "&", "&amp;") + `"`
				if href == "" && strings.Contains(body, `<a rel="`+rel+`"`) || href != "" && !strings.Contains(body, link) {
					t.Errorf("%s link: want %q", rel, href)
				}
			}
		})
	}
}

// TestResourcePageThemeOverride: a publisher's theme overrides the resource layout, and its partials, exactly
// as it does the pipeline's pages.
func TestResourcePageThemeOverride(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"layouts/resource.html": `{{ define "main" }}<p id="custom">Custom {{ .Params.ld.iri }}</p>` +
			`{{ partial "properties.html" .Params.ld.properties }}{{ end }}`,
		"layouts/_partials/term.html": `<i class="t">{{ .label | default .value }}</i>`,
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := html.CheckTheme(context.Background(), dir); err != nil {
		t.Fatalf("the override does not pass the start-up check: %v", err)
	}
	f := newFixtureWith(t, site.Options{Theme: html.NewResources(html.ResourceOptions{Themes: []string{dir}})}, dir)
	for _, target := range []string{"/org/open/core/Thing.html", "/org/open/core/Thing.html?lang=en"} { // pre-rendered, rendered on request
		w := f.do("GET", target, nil)
		body := w.Body.String()
		for _, want := range []string{`<p id="custom">Custom http://hub.example/org/open/core/Thing</p>`, `<i class="t">rdf:type</i>`,
			`<i class="t">anonymous part</i>`, "<footer"} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %q:\n%s", want, body)
			}
		}
		if strings.Contains(body, "Referenced by") {
			t.Error("the default resource layout was used despite the override")
		}
	}
}

// TestResourcePageCacheFollowsVersions: once a new version is the latest, the resource's page shows it; the page
// cached for the previous version is never served for it.
func TestResourcePageCacheFollowsVersions(t *testing.T) {
	hub := pipelinetest.New(t)
	pub := hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	res := html.NewResources(html.ResourceOptions{})
	h, err := site.NewHandler(site.Options{Dir: out, Theme: res})
	if err != nil {
		t.Fatal(err)
	}
	get := func() string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/org/open/core/Thing.html", nil))
		if w.Code != 200 {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		return w.Body.String()
	}
	first := get()
	if strings.Contains(first, "Third") || get() != first || res.CachedPages() != 1 {
		t.Fatalf("first version: Third shown %v, %d pages cached", strings.Contains(first, "Third"), res.CachedPages())
	}
	hub.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if second := get(); !strings.Contains(second, "http://hub.example/org/open/core/Third") {
		t.Errorf("after a new version the page still lacks its statement:\n%s", second)
	}
	if res.CachedPages() != 2 {
		t.Errorf("%d pages cached, want one per version", res.CachedPages())
	}
}

// TestResourcePageBusy: with a tiny queue, a burst of requests for different pages is partly refused with 503
// and Retry-After instead of queueing without bound; every other request gets its page.
func TestResourcePageBusy(t *testing.T) {
	f := newFixtureWith(t, site.Options{Theme: html.NewResources(html.ResourceOptions{MaxQueue: 1, MaxBatch: 1})})
	const n = 24
	codes := make([]int, n)
	retry := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			// Every page number is another page to render, all of the same resource.
			w := f.do("GET", fmt.Sprintf("/org/open/core/Thing.html?page=%d", i), nil)
			codes[i], retry[i] = w.Code, w.Header().Get("Retry-After")
		})
	}
	close(start)
	wg.Wait()
	busy := 0
	for i, c := range codes {
		switch {
		case c == http.StatusServiceUnavailable && retry[i] != "":
			busy++
		case c != http.StatusOK:
			t.Errorf("request %d: status %d, Retry-After %q", i, c, retry[i])
		}
	}
	if busy == 0 || busy == n {
		t.Errorf("%d of %d requests refused; want some, not all", busy, n)
	}
}

// TestResourcePageTruncated: a resource with more statements than a page may show says it shows only part of
// them; one with exactly as many does not.
func TestResourcePageTruncated(t *testing.T) {
	hub := pipelinetest.New(t)
	const bound = describe.MaxClosure
	for _, tc := range []struct {
		name string
		n    int
	}{{"over", bound + 1}, {"at", bound}} {
		var b strings.Builder
		fmt.Fprintf(&b, "<Big> <p> 0")
		for i := 1; i < tc.n; i++ {
			fmt.Fprintf(&b, ", %d", i)
		}
		b.WriteString(" .\n")
		hub.Publish(t, hub.Open.ID, tc.name, ".ttl", b.String())
	}
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	for name, truncated := range map[string]bool{"over": true, "at": false} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/org/open/"+name+"/Big.html", nil))
		body := w.Body.String()
		if w.Code != 200 {
			t.Fatalf("%s: status %d: %.500s", name, w.Code, body)
		}
		if got := strings.Count(body, `<dd><span class="literal">`); got != bound {
			t.Errorf("%s: %d values shown, want %d", name, got, bound)
		}
		if strings.Contains(body, "Only the first statements are shown") != truncated {
			t.Errorf("%s: truncation notice shown: %v, want %v", name, !truncated, truncated)
		}
	}
}

// TestResourcePageCrumbsUseGroupNames: a resource page rendered on request names the groups above it as the
// pipeline's pages do ("W3C"), not by their path segments ("org").
func TestResourcePageCrumbsUseGroupNames(t *testing.T) {
	hub := pipelinetest.New(t)
	name := "W3C"
	if _, err := hub.Store.UpdateGroup(context.Background(), hub.Admin, hub.Open.ParentID, catalog.GroupPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example", HTML: &pipeline.HTML{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/org/open/core/Thing", nil)
	r.Header.Set("Accept", browserAccept)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if body := w.Body.String(); w.Code != 200 || !strings.Contains(body, `<li><a href="/org/">W3C</a></li>`) {
		t.Fatalf("status %d; crumbs do not name the group:\n%s", w.Code, body)
	}
}
