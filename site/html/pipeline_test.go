package html_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/html/htmltest"
)

// servedHub renders a hub with the pipeline (a publication with two versions in a visible repository, one in a
// hidden one) and returns the direct-URL handler over it, as ldhub serve wires them, with the version labels.
func servedHub(t *testing.T) (http.Handler, []string) {
	t.Helper()
	hub := pipelinetest.New(t)
	pub := hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	pub = hub.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	hub.Publish(t, hub.Closed.ID, "secret", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example",
		HTML: &pipeline.HTML{Title: "Test Hub"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out, Pages: pipeline.PagesDir(out)})
	if err != nil {
		t.Fatal(err)
	}
	return h, []string{pub.Versions[0].Label, pub.Versions[1].Label}
}

// TestChromiumPipelinePages loads the pages the pipeline wrote, through the handler that serves them, in headless
// Chromium: the hub, the repository, the publication and an old version must load without console errors or
// failed requests and show their key content. Screenshots are kept in the artefact folder (htmltest.ArtefactDir).
func TestChromiumPipelinePages(t *testing.T) {
	bin := htmltest.Chromium(t)
	h, labels := servedHub(t)
	shots := htmltest.ArtefactDir(t)
	cases := []struct {
		name, path string
		want       []string
	}{
		{"hub", "/", []string{"<title>Test Hub</title>", `<a href="/org/">org</a>`, `<a href="/org/open/">open</a>`}},
		{"repository", "/org/open/", []string{"<h1>open</h1>", `<a href="/org/open/core">core</a>`, labels[1], "12"}},
		{"publication", "/org/open/core", []string{`<h1 id="title">core</h1>`, "http://hub.example/org/open/core",
			"Statistics", "owl#Class", "<td>Thing</td>", "Run query", `href="/org/open/core.jsonld"`,
			`href="/org/open/core/versions/` + labels[0] + `"`}},
		{"version", "/org/open/core/versions/" + labels[0], []string{"Version <strong>" + labels[0] + "</strong>",
			`href="/org/open/core/versions/` + labels[0] + `.ttl"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := htmltest.Browse(t, bin, h, tc.path, filepath.Join(shots, "pipeline-"+tc.name+".png"))
			for _, w := range tc.want {
				if !strings.Contains(b.DOM, w) {
					t.Errorf("page %s does not show %q", tc.path, w)
				}
			}
			if strings.Contains(b.DOM, "secret") || strings.Contains(b.DOM, "closed") {
				t.Errorf("page %s shows the hidden repository", tc.path)
			}
			if !strings.Contains(b.DOM, "</html>") {
				t.Errorf("page %s: no DOM dumped", tc.path)
			}
			if len(b.Console) > 0 {
				t.Errorf("page %s logged to the console:\n%s", tc.path, strings.Join(b.Console, "\n"))
			}
			if len(b.Failed) > 0 {
				t.Errorf("page %s made requests that failed: %v", tc.path, b.Failed)
			}
			if t.Failed() {
				t.Logf("DOM:\n%s", b.DOM)
			}
		})
	}
}

// TestPipelinePageQueryForm posts the publication page's query form, as a browser would, to where its action
// points: the handler must answer it as the publication's SPARQL endpoint.
func TestPipelinePageQueryForm(t *testing.T) {
	h, _ := servedHub(t)
	get := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/org/open/core", nil)
	req.Header.Set("Accept", "text/html")
	h.ServeHTTP(get, req)
	m := regexp.MustCompile(`<form class="sparql" method="get" action="([^"]+)"`).FindStringSubmatch(get.Body.String())
	if m == nil {
		t.Fatalf("no query form on the publication page:\n%s", get.Body)
	}
	form := url.Values{"query": {"SELECT ?c WHERE { ?c a <http://www.w3.org/2002/07/owl#Class> }"}}
	post := httptest.NewRecorder()
	req = httptest.NewRequest("POST", m[1], strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/sparql-results+json")
	h.ServeHTTP(post, req)
	if post.Code != 200 || !strings.Contains(post.Body.String(), "http://hub.example/org/open/core/Thing") {
		t.Errorf("POST %s: %d %s", m[1], post.Code, post.Body)
	}
}
