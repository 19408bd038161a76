package site_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site/html/htmltest"
)

// TestChromiumLoadsDirectURLs opens direct URLs in headless Chromium through the handler (so the browser's own
// Accept header picks the HTML): each page must load without console errors or failed requests and show its key
// content. Screenshots are kept in htmltest.ArtefactDir.
func TestChromiumLoadsDirectURLs(t *testing.T) {
	bin := htmltest.Chromium(t)
	f := newFixture(t)
	shots := htmltest.ArtefactDir(t)
	cases := []struct {
		name, path string
		want       []string
	}{
		{"publication", "/org/open/core", []string{"<h1 id=\"title\">core</h1>", "http://hub.example/org/open/core", "Statistics", "Run query"}},
		{"old version", "/org/open/core/versions/" + f.versions[0], []string{"latest version", "owl#Class"}},
		{"resource", "/org/open/core/Thing", []string{"<h1 id=\"title\" lang=\"en\">Thing</h1>", "Ding", "anonymous part", ">size</a>",
			"Referenced by", "http://hub.example/org/open/core/Third", "Thing.jsonld"}},
		{"endpoint without a query", "/org/open/core/sparql", []string{`<form class="sparql" method="get" action="/org/open/core/sparql"`, "Run query"}},
		{"resource of a version", "/org/open/core/versions/" + f.versions[0] + "/Thing", []string{"<h1 id=\"title\" lang=\"en\">Thing</h1>",
			"anonymous part", ">" + f.versions[0] + "</a>", "/versions/" + f.versions[0] + "/Thing.ttl"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			shot := filepath.Join(shots, "direct-url-"+strings.ReplaceAll(tc.name, " ", "-")+".png")
			got := htmltest.Browse(t, bin, f.h, tc.path, shot)
			for _, w := range tc.want {
				if !strings.Contains(got.DOM, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, l := range got.Console {
				t.Errorf("browser: %s", l)
			}
			for _, p := range got.Failed {
				if p != "/favicon.ico" {
					t.Errorf("the page requested %s, which failed", p)
				}
			}
		})
	}
}
