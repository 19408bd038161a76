package site_test

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
)

// Sizes of the generated vocabulary of the section-page tests: more terms than a publication page documents
// (html.MaxDocumented), listed termsPerPage a page.
const (
	bigConcepts  = 7000
	bigClasses   = 40
	termsPerPage = 500
)

// bigTree renders, with pages listed termsPerPage a page, a generated SKOS thesaurus of bigConcepts concepts and
// bigClasses classes, and returns a handler over the tree, the tree and the publication's first version's path.
func bigTree(t *testing.T) (*site.Handler, string, string) {
	t.Helper()
	var nt strings.Builder
	for i := range bigConcepts {
		fmt.Fprintf(&nt, "<http://example.org/thes/c%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2004/02/skos/core#Concept> .\n", i)
		fmt.Fprintf(&nt, "<http://example.org/thes/c%d> <http://www.w3.org/2004/02/skos/core#prefLabel> \"Concept %05d\"@en .\n", i, i)
	}
	for i := range bigClasses {
		fmt.Fprintf(&nt, "<http://example.org/thes/K%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> .\n", i)
	}
	hub := pipelinetest.New(t)
	pub := hub.Publish(t, hub.Open.ID, "big", ".nt", nt.String())
	h, out := renderTreeWith(t, hub, &pipeline.HTML{Title: "Test Hub", TermsPerPage: termsPerPage}, site.Options{})
	return h, out, "/org/open/big/versions/" + pub.Versions[0].Label
}

var pageHref = regexp.MustCompile(`href="([^"]*\?terms=[a-zA-Z]+&amp;page=[0-9]+)"`)

// termIRIs are the IRIs of the terms a page documents in full (the title of each entry's IRI link).
func termIRIs(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<a href="[^"]*" title="(http://example\.org/thes/[^"]+)">IRI</a>`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestSectionPages follows, through ldhub's handler, the links of a large publication's page (and a version's) to
// every page of its sections' full listings: every term is on exactly one page of each of its sections, and a page
// that does not exist is missing.
func TestSectionPages(t *testing.T) {
	h, _, version := bigTree(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, self := range []string{"/org/open/big", version} {
		_, body := getPage(t, srv.URL, pageLangCase{path: self, accept: browserAccept})
		if n := len(termIRIs(body)); n == 0 || n > 3000 {
			t.Fatalf("%s documents %d terms", self, n)
		}
		if !strings.Contains(body, fmt.Sprintf("All 7,000 concepts (pages 1–%d)", bigConcepts/termsPerPage)) {
			t.Errorf("%s: no link to the concepts' pages", self)
		}
		links := map[string]bool{}
		for _, m := range pageHref.FindAllStringSubmatch(body, -1) {
			links[strings.ReplaceAll(m[1], "&amp;", "&")] = true
		}
		if want := bigConcepts/termsPerPage + 1; len(links) != want {
			t.Fatalf("%s links %d pages, want %d: %v", self, len(links), want, links)
		}
		seen := map[string]int{}
		for link := range links {
			if !strings.HasPrefix(link, self+"?") {
				t.Errorf("%s links %s", self, link)
			}
			resp, body := getPage(t, srv.URL, pageLangCase{path: link, accept: browserAccept})
			if resp.StatusCode != 200 {
				t.Errorf("%s: %d", link, resp.StatusCode)
				continue
			}
			iris := termIRIs(body)
			if len(iris) == 0 || len(iris) > termsPerPage {
				t.Errorf("%s lists %d terms", link, len(iris))
			}
			for _, iri := range iris {
				seen[iri]++
			}
			if loc, want := resp.Header.Get("Content-Location"), strings.Replace(link, "?", ".html?", 1); loc != want {
				t.Errorf("%s: Content-Location %q, want %q", link, loc, want)
			}
			if v := varyOf(resp.Header); len(v) != 1 || v[0] != "Accept" {
				t.Errorf("%s: Vary %q", link, v)
			}
		}
		if len(seen) != bigConcepts+bigClasses {
			t.Errorf("%s: the pages list %d terms, want %d", self, len(seen), bigConcepts+bigClasses)
		}
		for iri, n := range seen {
			if n != 1 {
				t.Errorf("%s: %s is on %d pages", self, iri, n)
			}
		}
	}
	for _, tc := range sectionPageCases(version) {
		resp, body := getPage(t, srv.URL, tc)
		checkPageAnswer(t, "handler", tc, resp, body)
	}
}

// sectionPageCases are requests for pages of the sections' full listings, as a web server in front of ldhub must
// answer them too.
func sectionPageCases(version string) []pageLangCase {
	last := fmt.Sprint(bigConcepts / termsPerPage)
	after := fmt.Sprint(bigConcepts/termsPerPage + 1)
	first := `<h1 id="title">big: Concepts, page 1 of ` + last + `</h1>`
	return []pageLangCase{
		{"/org/open/big?terms=concept&page=1", browserAccept, "", 200, first, "/org/open/big.html?terms=concept&page=1", []string{"Accept"}, true},
		{"/org/open/big?page=1&terms=concept", browserAccept, "fr", 200, first, "/org/open/big.html?terms=concept&page=1", []string{"Accept"}, true},
		{"/org/open/big.html?terms=concept&page=" + last, "", "", 200, "page " + last + " of " + last, "/org/open/big.html?terms=concept&page=" + last, nil, true},
		{"/org/open/big?terms=class&page=1", browserAccept, "", 200, "Classes, page 1 of 1", "/org/open/big.html?terms=class&page=1", []string{"Accept"}, true},
		{version + "?terms=concept&page=2", browserAccept, "", 200, "Concepts, page 2 of " + last, version + ".html?terms=concept&page=2", []string{"Accept"}, true},
		{version + ".html?terms=concept&page=2", "", "", 200, "Concepts, page 2 of " + last, version + ".html?terms=concept&page=2", nil, true},
		// Missing pages.
		{"/org/open/big?terms=concept&page=0", browserAccept, "", 404, "", "", nil, false},
		{"/org/open/big?terms=concept&page=" + after, browserAccept, "", 404, "", "", nil, false},
		{"/org/open/big.html?terms=shape&page=1", "", "", 404, "", "", nil, false},
		{"/org/open/big?terms=nothing&page=1", browserAccept, "", 404, "", "", nil, false},
		{"/org/open/big?terms=..%2F..&page=1", browserAccept, "", 404, "", "", nil, false},
		{version + "?terms=concept&page=" + after, browserAccept, "", 404, "", "", nil, false},
		// Malformed.
		{"/org/open/big?terms=concept&page=x", browserAccept, "", 400, "", "", nil, false},
		{"/org/open/big?terms=concept", browserAccept, "", 400, "", "", nil, false},
		{"/org/open/big?terms=concept&page=1&page=2", browserAccept, "", 400, "", "", nil, false},
		{"/org/open/big?terms=concept&page=1&lang=fr", browserAccept, "", 400, "", "", nil, false},
		// RDF ignores the query, as it does ?lang=.
		{"/org/open/big.ttl?terms=concept&page=1", "", "", 200, "", "/org/open/big.ttl", nil, true},
	}
}

// TestSectionPagesNginx serves the same tree with Debian's nginx and the generated configuration in front of the
// handler: the pages that exist come from files, with the handler's answer; the rest is the handler's.
func TestSectionPagesNginx(t *testing.T) {
	bin := needTool(t, "nginx")
	h, out, version := bigTree(t)
	handler, front := nginxInFront(t, bin, h, out)
	comparePageAnswers(t, "nginx", handler, front, sectionPageCases(version), "ETag")
}

// TestSectionPagesApache is TestSectionPagesNginx for the generated Apache configuration.
func TestSectionPagesApache(t *testing.T) {
	h, out, version := bigTree(t)
	handler, front := apacheInFront(t, h, out)
	comparePageAnswers(t, "Apache", handler, front, sectionPageCases(version))
}
