package site_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/html/htmltest"
)

// Sizes of the generated vocabulary of the section-page tests: more terms than a publication page documents
// (html.MaxDocumented), listed termsPerPage a page.
const (
	bigConcepts  = 7000
	bigClasses   = 40
	termsPerPage = 500
)

// bigTree renders, with pages listed termsPerPage a page, a generated SKOS thesaurus of bigConcepts concepts
// (labelled in English and French) and bigClasses classes (and a small vocabulary, small), and returns a handler over the tree, the tree and the publication's first version's path.
func bigTree(t *testing.T) (*site.Handler, string, string) {
	t.Helper()
	var nt strings.Builder
	for i := range bigConcepts {
		fmt.Fprintf(&nt, "<http://example.org/thes/c%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2004/02/skos/core#Concept> .\n", i)
		fmt.Fprintf(&nt, "<http://example.org/thes/c%d> <http://www.w3.org/2004/02/skos/core#prefLabel> \"Concept %05d\"@en .\n", i, i)
		// French labels in the reverse order, so that the French listing pages hold other concepts than the English.
		fmt.Fprintf(&nt, "<http://example.org/thes/c%d> <http://www.w3.org/2004/02/skos/core#prefLabel> \"Notion %05d\"@fr .\n", i, bigConcepts-1-i)
	}
	for i := range bigClasses {
		fmt.Fprintf(&nt, "<http://example.org/thes/K%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> .\n", i)
	}
	hub := pipelinetest.New(t)
	pub := hub.Publish(t, hub.Open.ID, "big", ".nt", nt.String())
	hub.Publish(t, hub.Open.ID, "small", ".nt", "<http://example.org/small/A> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> .\n")
	h, out := renderTreeWith(t, hub, &pipeline.HTML{Title: "Test Hub", TermsPerPage: termsPerPage}, site.Options{})
	return h, out, "/org/open/big/versions/" + pub.Versions[0].Label
}

var pageHref = regexp.MustCompile(`href="([^"]*[?;]terms=[a-zA-Z]+&amp;page=[0-9]+)"`)

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
	for _, pl := range []struct{ self, lang string }{{"/org/open/big", ""}, {version, ""}, {"/org/open/big", "fr"}, {version, "fr"}} {
		self, query := pl.self, "?"
		if pl.lang != "" {
			query = "?lang=" + pl.lang + "&"
		}
		_, body := getPage(t, srv.URL, pageLangCase{path: self + strings.TrimSuffix(query, "&"), accept: browserAccept})
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
		first := ""
		for link := range links {
			if !strings.HasPrefix(link, self+query+"terms=") {
				t.Errorf("%s%s links %s", self, query, link)
			}
			if strings.HasSuffix(link, "terms=concept&page=1") {
				first = link
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
			// The listing page's language switch opens the same listing page in each language.
			other := map[string]string{"": "fr", "fr": "en"}[pl.lang]
			if want := `href="` + self + "?lang=" + other + "&amp;" + strings.ReplaceAll(strings.TrimPrefix(link, self+query), "&", "&amp;"); !strings.Contains(body, want) {
				t.Errorf("%s: no switch link %s", link, want)
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
		// Each language's listing is in its own label order: the first French page opens with the concept whose
		// English label is last.
		_, body = getPage(t, srv.URL, pageLangCase{path: first, accept: browserAccept})
		want := map[string]string{"": `<span lang="en">Concept 00000</span>`, "fr": `<span lang="fr">Notion 00000</span>`}[pl.lang]
		if iris := termIRIs(body); len(iris) == 0 || !strings.Contains(body, want) ||
			iris[0] != map[string]string{"": "http://example.org/thes/c0", "fr": fmt.Sprintf("http://example.org/thes/c%d", bigConcepts-1)}[pl.lang] {
			t.Errorf("%s: first entry %v, want %s", first, iris[:min(1, len(iris))], want)
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
	firstFR := `<span lang="fr">Notion 00000</span>` // the first French page opens with it
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
		{"/org/open/big?terms=concept&page=1&lang=1", browserAccept, "", 400, "", "", nil, false},
		{"/org/open/big?terms=concept&page=1&lang=fr&lang=fr", browserAccept, "", 400, "", "", nil, false},
		// In French, in any order of the three arguments; a language without pages of its own gets the hub's.
		{"/org/open/big?lang=fr&terms=concept&page=1", browserAccept, "", 200, firstFR, "/org/open/big.html?lang=fr&terms=concept&page=1", []string{"Accept"}, true},
		{"/org/open/big?terms=concept&page=1&lang=fr-CA", browserAccept, "de", 200, firstFR, "/org/open/big.html?lang=fr&terms=concept&page=1", []string{"Accept"}, true},
		{"/org/open/big?page=1&lang=fr&terms=concept", browserAccept, "", 200, firstFR, "/org/open/big.html?lang=fr&terms=concept&page=1", []string{"Accept"}, true},
		{"/org/open/big?terms=concept&lang=fr&page=1", browserAccept, "", 200, firstFR, "/org/open/big.html?lang=fr&terms=concept&page=1", []string{"Accept"}, true},
		{"/org/open/big?lang=fr&page=1&terms=concept", browserAccept, "", 200, firstFR, "/org/open/big.html?lang=fr&terms=concept&page=1", []string{"Accept"}, true},
		{"/org/open/big?page=1&terms=concept&lang=fr", browserAccept, "", 200, firstFR, "/org/open/big.html?lang=fr&terms=concept&page=1", []string{"Accept"}, true},
		{"/org/open/big.html?lang=fr&terms=concept&page=" + last, "", "", 200, "page " + last + " of " + last, "/org/open/big.html?lang=fr&terms=concept&page=" + last, nil, true},
		{version + "?lang=fr&terms=concept&page=2", browserAccept, "", 200, "Concepts, page 2 of " + last, version + ".html?lang=fr&terms=concept&page=2", []string{"Accept"}, true},
		{"/org/open/big?lang=en&terms=concept&page=1", browserAccept, "", 200, first, "/org/open/big.html?terms=concept&page=1", []string{"Accept"}, false},
		{"/org/open/big?lang=de&terms=concept&page=1", browserAccept, "", 200, first, "/org/open/big.html?terms=concept&page=1", []string{"Accept"}, false},
		{"/org/open/big?lang=fr&terms=concept&page=" + after, browserAccept, "", 404, "", "", nil, false},
		// RDF ignores the query, as it does ?lang=.
		{"/org/open/big.ttl?terms=concept&page=1", "", "", 200, "", "/org/open/big.ttl", nil, true},
	}
}

// TestSectionPagesNginx serves the same tree with Debian's nginx and the generated configuration in front of the
// handler: the pages and labels indexes that exist come from files, with the handler's answer (a gzipped index
// too); the rest is the handler's.
func TestSectionPagesNginx(t *testing.T) {
	bin := needTool(t, "nginx")
	h, out, version := bigTree(t)
	handler, front := nginxInFront(t, bin, h, out)
	comparePageAnswers(t, "nginx", handler, front, append(sectionPageCases(version), labelsCases(version)...), "ETag")
	// Gzipped: nginx's gzip_static sends the .gz sibling the handler sends, with its validators.
	for _, path := range []string{"/org/open/big?terms=index", version + "?terms=index"} {
		var answers [2]*http.Response
		var bodies [2][]byte
		for i, base := range []string{handler, front} {
			req, _ := http.NewRequest("GET", base+path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			bodies[i], _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			answers[i] = resp
		}
		for _, hd := range []string{"Content-Encoding", "Content-Type", "ETag", "Last-Modified", "Content-Location", "Vary", "Cache-Control"} {
			if g, w := answers[1].Header.Get(hd), answers[0].Header.Get(hd); g != w {
				t.Errorf("nginx %s gzipped: %s %q, handler %q", path, hd, g, w)
			}
		}
		if answers[1].Header.Get("Content-Encoding") != "gzip" || string(bodies[0]) != string(bodies[1]) || answers[1].Header.Get("X-LDHub-Static") == "" {
			t.Errorf("nginx %s gzipped: %q, static %q, bodies equal %v", path, answers[1].Header.Get("Content-Encoding"),
				answers[1].Header.Get("X-LDHub-Static"), string(bodies[0]) == string(bodies[1]))
		}
	}
}

// TestSectionPagesApache is TestSectionPagesNginx for the generated Apache configuration.
func TestSectionPagesApache(t *testing.T) {
	h, out, version := bigTree(t)
	handler, front := apacheInFront(t, h, out)
	comparePageAnswers(t, "Apache", handler, front, append(sectionPageCases(version), labelsCases(version)...))
}

// labelsIndex is a labels index as the theme's script reads it (html.LabelsIndex).
type labelsIndex struct {
	V        int `json:"v"`
	Count    int `json:"count"`
	Sections []struct {
		Title string `json:"title"`
		Href  string `json:"href"`
	} `json:"sections"`
	Terms [][]any `json:"terms"`
}

// TestLabelsIndex loads, through ldhub's handler, the labels index a large publication's page (and a version's)
// names for its filter, and follows every term's link in it: each lands on the listing page that documents the
// term, on its anchor. The index answers JSON whatever Accept says, gzipped when asked, and is missing for a page
// that documents every term.
func TestLabelsIndex(t *testing.T) {
	h, _, version := bigTree(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, pl := range []struct{ self, lang string }{{"/org/open/big", ""}, {version, ""}, {"/org/open/big", "fr"}, {version, "fr"}} {
		self, pageURL, ixURL, listing := pl.self, pl.self, pl.self+"?terms=index", pl.self+"?terms="
		if pl.lang != "" {
			pageURL, ixURL, listing = self+"?lang="+pl.lang, ixURL+"&lang="+pl.lang, self+"?lang="+pl.lang+"&terms="
		}
		_, page := getPage(t, srv.URL, pageLangCase{path: pageURL, accept: browserAccept})
		if want := `data-index="` + strings.ReplaceAll(ixURL, "&", "&amp;") + `"`; !strings.Contains(page, want) {
			t.Fatalf("%s does not name its labels index (%s)", pageURL, want)
		}
		resp, body := getPage(t, srv.URL, pageLangCase{path: ixURL, accept: "text/turtle"})
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" ||
			resp.Header.Get("Content-Location") != ixURL || !slices.Equal(resp.Header.Values("Vary"), []string{"Accept-Encoding"}) {
			t.Fatalf("%s: %d %q %q %q", ixURL, resp.StatusCode, resp.Header.Get("Content-Type"),
				resp.Header.Get("Content-Location"), resp.Header.Values("Vary"))
		}
		var ix labelsIndex
		if err := json.Unmarshal([]byte(body), &ix); err != nil {
			t.Fatal(err)
		}
		if ix.V != 1 || ix.Count != bigConcepts+bigClasses || len(ix.Terms) != bigConcepts+bigClasses {
			t.Fatalf("%s: index v%d of %d terms, %d entries", self, ix.V, ix.Count, len(ix.Terms))
		}
		// Gzipped, the same bytes.
		req, _ := http.NewRequest("GET", srv.URL+ixURL, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		zresp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(zresp.Body)
		if err != nil {
			t.Fatalf("%s gzipped: %v (Content-Encoding %q)", ixURL, err, zresp.Header.Get("Content-Encoding"))
		}
		unz, err := io.ReadAll(zr)
		zresp.Body.Close()
		if err != nil || string(unz) != body || zresp.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s gzipped: %v, %d bytes for %d", ixURL, err, len(unz), len(body))
		}
		t.Logf("%s: labels index of %d terms: %d bytes, %d gzipped", ixURL, ix.Count, len(body), zresp.ContentLength)
		pages := map[string]string{}
		seen := map[string]bool{}
		for _, e := range ix.Terms {
			label, name, s, n := e[0].(string), e[1].(string), int(e[2].(float64)), int(e[3].(float64))
			anchor := html.DefaultAnchor(name)
			if len(e) > 4 {
				anchor = e[4].(string)
			}
			link := ix.Sections[s].Href + fmt.Sprint(n)
			if !strings.HasPrefix(link, listing) {
				t.Fatalf("%s: %s links %s", self, name, link)
			}
			body, ok := pages[link]
			if !ok {
				resp, b := getPage(t, srv.URL, pageLangCase{path: link, accept: browserAccept})
				if resp.StatusCode != 200 {
					t.Fatalf("%s: %d", link, resp.StatusCode)
				}
				body, pages[link] = b, b
			}
			entry := `id="` + anchor + `" data-filter="` + strings.ToLower(label) + ` ` + strings.ToLower(name) + `"`
			if !strings.Contains(body, entry) {
				t.Fatalf("%s: %s#%s has no entry %s", self, link, anchor, entry)
			}
			seen[name] = true
		}
		if len(seen) != bigConcepts+bigClasses || len(pages) != bigConcepts/termsPerPage+1 {
			t.Errorf("%s: %d names on %d pages", self, len(seen), len(pages))
		}
	}
	for _, tc := range labelsCases(version) {
		resp, body := getPage(t, srv.URL, tc)
		checkPageAnswer(t, "handler", tc, resp, body)
	}
}

// labelsCases are requests for labels indexes, as a web server in front of ldhub must answer them too (varyOf
// leaves Accept-Encoding out: TestLabelsIndex checks it).
func labelsCases(version string) []pageLangCase {
	return []pageLangCase{
		{"/org/open/big?terms=index", "", "", 200, "", "/org/open/big?terms=index", nil, true},
		{"/org/open/big?terms=index", browserAccept, "fr", 200, "", "/org/open/big?terms=index", nil, true},
		{"/org/open/big?terms=index&lang=fr", "text/turtle", "", 200, "", "/org/open/big?terms=index&lang=fr", nil, true},
		{"/org/open/big?lang=fr-CA&terms=index", "", "", 200, "", "/org/open/big?terms=index&lang=fr", nil, true},
		// No labels in German: the hub's index.
		{"/org/open/big?lang=de&terms=index", "", "", 200, "", "/org/open/big?terms=index", nil, true},
		{version + "?terms=index", "application/json", "", 200, "", version + "?terms=index", nil, true},
		// ldhub's: a malformed language, a page of a section named index, the .html URL (400), RDF (the query is ignored).
		{"/org/open/big?terms=index&lang=1", "", "", 400, "", "", nil, false},
		{"/org/open/big?terms=index&page=1", browserAccept, "", 404, "", "", nil, false},
		{"/org/open/big.html?terms=index", "", "", 400, "", "", nil, false},
		{"/org/open/big.ttl?terms=index", "", "", 200, "", "/org/open/big.ttl", nil, true},
		// A publication whose page documents every term has no index.
		{"/org/open/small?terms=index", "", "", 404, "", "", nil, false},
		{"/org/open/small?terms=index", "text/turtle", "", 404, "", "", nil, false},
	}
}

// TestLabelsFilterChromium types into the term filter of a large publication's page in Debian's Chromium, behind
// Debian's nginx: the theme's script loads the labels index once, on first use, and lists matching terms of every
// page; following a match opens the listing page that documents it, at its entry.
func TestLabelsFilterChromium(t *testing.T) {
	bin := needTool(t, "nginx")
	chromium := htmltest.Chromium(t)
	h, out, _ := bigTree(t)
	_, front := nginxInFront(t, bin, h, out)
	d := htmltest.StartDevTools(t, chromium)
	d.Navigate(front + "/org/open/big")
	var before int
	d.Eval(`performance.getEntriesByType("resource").filter(e => e.name.includes("terms=index")).length`, &before)
	if before != 0 {
		t.Fatalf("the page loaded its labels index %d times before the filter was used", before)
	}
	// "06543" is on page 14 of the concepts (500 a page); the page itself documents the first 3 000 terms.
	filter := func(q string) (count string, hits []string) {
		t.Helper()
		var r struct {
			Count string
			Hits  []string
		}
		d.Eval(`(async () => {
  const input = document.getElementById("filter");
  input.focus();
  input.value = `+strconv.Quote(q)+`;
  input.dispatchEvent(new Event("input"));
  const count = document.getElementById("filter-count");
  await new Promise(r => setTimeout(r, 400)); // past the script's pause after a key press
  for (let i = 0; i < 400; i++) {
    await new Promise(r => setTimeout(r, 50));
    if (count.textContent.includes("terms of the publication match")) {
      const hits = [...document.querySelectorAll(".filter-hits a")].map(a => a.textContent + " " + a.getAttribute("href"));
      return {count: count.textContent, hits};
    }
  }
  return {count: count.textContent, hits: []};
})()`, &r)
		return r.Count, r.Hits
	}
	count, hits := filter("06543")
	if want := "Concept 06543 /org/open/big?terms=concept&page=14#c6543"; len(hits) != 1 || hits[0] != want {
		t.Fatalf("filter 06543: %q, hits %q, want [%q]", count, hits, want)
	}
	if !strings.HasPrefix(count, "1 of 7040 terms of the publication match; 0 of 3000 terms on this page") {
		t.Errorf("filter 06543: %q", count)
	}
	count, hits = filter("concept 0654")
	if len(hits) != 10 || !strings.HasPrefix(count, "10 of 7040") {
		t.Errorf("filter 'concept 0654': %q, %d hits", count, len(hits))
	}
	count, hits = filter("concept")
	if len(hits) != 50 || !strings.Contains(count, "7000 of 7040 terms of the publication match (the first 50 are listed)") {
		t.Errorf("filter 'concept': %q, %d hits", count, len(hits))
	}
	var loads int
	d.Eval(`performance.getEntriesByType("resource").filter(e => e.name.includes("terms=index")).length`, &loads)
	if loads != 1 {
		t.Errorf("three searches loaded the labels index %d times, want once", loads)
	}
	filter("06543")
	d.Eval(`document.querySelector(".filter-hits a").click()`, nil)
	d.WaitLoad()
	var at struct {
		URL     string
		Label   string
		InView  bool
		Visible bool
	}
	d.Eval(`(() => { const e = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (!e) return {url: location.pathname + location.search + location.hash};
  const r = e.getBoundingClientRect();
  return {url: location.pathname + location.search + location.hash, label: e.querySelector(".label").textContent,
    inView: r.top >= 0 && r.top < innerHeight}; })()`, &at)
	if at.URL != "/org/open/big?terms=concept&page=14#c6543" || at.Label != "Concept 06543" || !at.InView {
		t.Errorf("following the match: %+v", at)
	}
}
