package site_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/webconf"
	"github.com/ldhub/ldhub/site/webconf/nginxtest"
)

// pageLangTree renders, with pages, the W3C Organization Ontology (labels, definitions and titles in en, es, fr,
// it, ja) and FOAF (English only) as graphs, for a hub in language lang, and returns a handler over the tree (as
// ldhub serve makes it), the tree and ORG's first version's URL path.
func pageLangTree(t *testing.T, lang string) (*site.Handler, string, string) {
	t.Helper()
	hub := pipelinetest.New(t)
	org := hub.Publish(t, hub.Open.ID, "org", ".nt", vocabNT(t, "org", "", ""))
	hub.Publish(t, hub.Open.ID, "foaf", ".nt", vocabNT(t, "foaf", "", ""))
	o := &pipeline.HTML{Title: "Test Hub"}
	if err := o.SetLanguage(lang); err != nil {
		t.Fatal(err)
	}
	h, out := renderTreeWith(t, hub, o, site.Options{})
	return h, out, "/org/open/org/versions/" + org.Versions[0].Label
}

// pageLangCase is one request for a publication or version page and what its answer must be: the title in the
// expected language, Content-Location, Vary (without Accept-Encoding) and whether the generated web-server
// configurations answer it from files (static) or hand it to ldhub.
type pageLangCase struct {
	path, accept, al string
	status           int
	h1               string // the h1 element; "" when the answer is not a page
	location         string
	vary             []string
	static           bool
}

const (
	orgEN = `<h1 id="title" lang="en">Core organization ontology</h1>`
	orgFR = `<h1 id="title" lang="fr">Ontologie des organisations</h1>`
	orgES = `<h1 id="title" lang="es">Ontología de organizaciones</h1>`
	orgIT = `<h1 id="title" lang="it">Ontologia delle organizzazioni</h1>`
)

func pageLangCases(version string) []pageLangCase {
	neg := []string{"Accept", "Accept-Language"}
	return []pageLangCase{
		// Negotiated by Accept-Language.
		{"/org/open/org", browserAccept, "", 200, orgEN, "/org/open/org.html", neg, true},
		{"/org/open/org", browserAccept, "fr", 200, orgFR, "/org/open/org.html?lang=fr", neg, true},
		{"/org/open/org", browserAccept, "fr-CH,fr;q=0.9,en;q=0.8", 200, orgFR, "/org/open/org.html?lang=fr", neg, true},
		{"/org/open/org", browserAccept, "es-ES", 200, orgES, "/org/open/org.html?lang=es", neg, true},
		{"/org/open/org", browserAccept, "de;q=0.9, en;q=0.5", 200, orgEN, "/org/open/org.html?lang=en", neg, false},
		{"/org/open/org", browserAccept, "de;q=0.9, es;q=0.5", 200, orgES, "/org/open/org.html?lang=es", neg, false},
		{"/org/open/org", browserAccept, "zh", 200, orgEN, "/org/open/org.html", neg, true},
		{"/org/open/org", browserAccept, "zh, it;q=0.5", 200, orgIT, "/org/open/org.html?lang=it", neg, false},
		{"/org/open/org", browserAccept, "fr;q=0, es", 200, orgES, "/org/open/org.html?lang=es", neg, false},
		{"/org/open/org", browserAccept, "*", 200, orgEN, "/org/open/org.html", neg, false},
		{"/org/open/org.html", "", "it", 200, orgIT, "/org/open/org.html?lang=it", []string{"Accept-Language"}, true},
		{version, browserAccept, "fr", 200, `lang="fr">Ontologie des organisations`, version + ".html?lang=fr", neg, true},
		{version + ".html", "", "", 200, `lang="en">Core organization ontology`, version + ".html", []string{"Accept-Language"}, true},
		// Chosen with the switch's links: the same page whatever Accept-Language says.
		{"/org/open/org?lang=es", browserAccept, "fr", 200, orgES, "/org/open/org.html?lang=es", []string{"Accept"}, true},
		{"/org/open/org.html?lang=fr-CA", "", "", 200, orgFR, "/org/open/org.html?lang=fr", nil, true},
		{version + "?lang=it", browserAccept, "", 200, `lang="it">Ontologia delle organizzazioni`, version + ".html?lang=it", []string{"Accept"}, true},
		{"/org/open/org?lang=zz", browserAccept, "fr", 200, orgEN, "/org/open/org.html", []string{"Accept"}, false},
		{"/org/open/org?lang=1", browserAccept, "", 400, "", "", nil, false},
		{"/org/open/org?lang=fr&lang=es", browserAccept, "", 400, "", "", nil, false},
		// A page in one language answers every reader with itself.
		{"/org/open/foaf", browserAccept, "fr-CH,fr;q=0.9,en;q=0.8", 200, `<h1 id="title">`, "/org/open/foaf.html", neg, true},
		{"/org/open/foaf", browserAccept, "fr", 200, `<h1 id="title">`, "/org/open/foaf.html", neg, true},
		// RDF does not depend on the language.
		{"/org/open/org", "text/turtle", "fr", 200, "", "/org/open/org.ttl", []string{"Accept"}, true},
		{"/org/open/org.ttl?lang=fr", "", "", 200, "", "/org/open/org.ttl", nil, true},
	}
}

// TestPublicationPageLanguages asks ldhub's handler, over a real HTTP connection, for ORG's publication and version
// pages in every way a reader names a language, and checks the title's language, Content-Location and Vary.
func TestPublicationPageLanguages(t *testing.T) {
	h, _, version := pageLangTree(t, "")
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, tc := range pageLangCases(version) {
		resp, body := getPage(t, srv.URL, tc)
		checkPageAnswer(t, "ldhub", tc, resp, body)
	}
	// The fast path's lookup chooses the same page as ServeHTTP.
	var err error
	for _, al := range []string{"", "fr", "de;q=0.9, es;q=0.5", "zh"} {
		p, ok := h.Prepared("/org/open/org", browserAccept, al, "")
		if !ok {
			t.Fatalf("Prepared(%q) has no answer", al)
		}
		resp, body := getPage(t, srv.URL, pageLangCase{path: "/org/open/org", accept: browserAccept, al: al})
		pb := p.Body()
		if pb == nil { // too large to keep in memory: the file it names
			if pb, err = os.ReadFile(p.File()); err != nil {
				t.Fatal(err)
			}
		}
		if got := p.Header().Get("Content-Location"); got != resp.Header.Get("Content-Location") || string(pb) != body {
			t.Errorf("Prepared(%q): Content-Location %q, ServeHTTP's %q (same body: %v)", al, got, resp.Header.Get("Content-Location"), string(pb) == body)
		}
	}
	// Every link of the French page's switch opens the page in its language.
	_, fr := getPage(t, srv.URL, pageLangCase{path: "/org/open/org", accept: browserAccept, al: "fr"})
	links := regexp.MustCompile(`<a href="(/org/open/org\?lang=([a-z]+))" hreflang="([a-z]+)"`).FindAllStringSubmatch(fr, -1)
	if len(links) != 5 {
		t.Fatalf("the French page's switch has %d links: %v", len(links), links)
	}
	for _, l := range links {
		_, page := getPage(t, srv.URL, pageLangCase{path: l[1], accept: browserAccept, al: "ja"})
		if !strings.Contains(page, `hreflang="`+l[2]+`" lang="`+l[2]+`" aria-current="true"`) {
			t.Errorf("%s does not open the page in %s", l[1], l[2])
		}
	}
}

// TestPublicationPageLanguagesHubLanguage: with the hub in Italian, a reader who names no language the data has
// gets the Italian page, and English is a language like the others; nginx, configured for the Italian hub, agrees.
func TestPublicationPageLanguagesHubLanguage(t *testing.T) {
	h, out, _ := pageLangTree(t, "it")
	srv := httptest.NewServer(h)
	defer srv.Close()
	neg := []string{"Accept", "Accept-Language"}
	cases := []pageLangCase{
		{"/org/open/org", browserAccept, "", 200, orgIT, "/org/open/org.html", neg, true},
		{"/org/open/org", browserAccept, "zh", 200, orgIT, "/org/open/org.html", neg, true},
		{"/org/open/org", browserAccept, "en-US,en;q=0.9", 200, orgEN, "/org/open/org.html?lang=en", neg, true},
		{"/org/open/org", browserAccept, "it", 200, orgIT, "/org/open/org.html?lang=it", neg, true},
		{"/org/open/org?lang=it", browserAccept, "fr", 200, orgIT, "/org/open/org.html?lang=it", []string{"Accept"}, true},
		{"/org/open/org", browserAccept, "de, en;q=0.5", 200, orgEN, "/org/open/org.html?lang=en", neg, false},
	}
	for _, tc := range cases {
		resp, body := getPage(t, srv.URL, tc)
		checkPageAnswer(t, "ldhub", tc, resp, body)
	}
	// The nginx configuration generated for a hub in Italian agrees.
	bin := needTool(t, "nginx")
	addr := freePort(t)
	conf, err := webconf.NginxConfig(webconf.ServerConfig{Listen: addr, Dir: out, Upstream: strings.TrimPrefix(srv.URL, "http://"), Language: "it"})
	if err != nil {
		t.Fatal(err)
	}
	defer nginxtest.Start(t, bin, conf, addr, nginxtest.Options{})()
	comparePageAnswers(t, "nginx", srv.URL, "http://"+addr, cases, "ETag")
}

// TestPublicationPageLanguagesNginx puts Debian's nginx with the generated configuration over the same tree, in
// front of the handler: each answer equals the handler's (body, Content-Location, Vary, ETag, Last-Modified), and
// the certain cases (no Accept-Language, a first range without q-value whose page exists, one range, the switch's
// ?lang= links, a page in one language) come from files.
func TestPublicationPageLanguagesNginx(t *testing.T) {
	bin := needTool(t, "nginx")
	h, out, version := pageLangTree(t, "")
	handler, front := nginxInFront(t, bin, h, out)
	comparePageAnswers(t, "nginx", handler, front, pageLangCases(version), "ETag")
}

// nginxInFront starts Debian's nginx with the generated configuration over the tree out, in front of h; it returns
// the handler's URL and nginx's. Both stop with the test.
func nginxInFront(t *testing.T, bin string, h http.Handler, out string) (handler, front string) {
	t.Helper()
	upstream := httptest.NewServer(h)
	t.Cleanup(upstream.Close)
	addr := freePort(t)
	conf, err := webconf.NginxConfig(webconf.ServerConfig{Listen: addr, Dir: out, Upstream: strings.TrimPrefix(upstream.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nginxtest.Start(t, bin, conf, addr, nginxtest.Options{}))
	return upstream.URL, "http://" + addr
}

// apacheInFront is nginxInFront for the generated Apache configuration.
func apacheInFront(t *testing.T, h http.Handler, out string) (handler, front string) {
	t.Helper()
	bin, modules := needApache(t)
	upstream := httptest.NewServer(h)
	t.Cleanup(upstream.Close)
	return upstream.URL, "http://" + startApache(t, bin, modules, out, strings.TrimPrefix(upstream.URL, "http://"), "")
}

// TestPublicationPageLanguagesApache is TestPublicationPageLanguagesNginx for the generated Apache configuration.
func TestPublicationPageLanguagesApache(t *testing.T) {
	h, out, version := pageLangTree(t, "")
	handler, front := apacheInFront(t, h, out)
	comparePageAnswers(t, "Apache", handler, front, pageLangCases(version))
}

func getPage(t *testing.T, base string, tc pageLangCase) (*http.Response, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	req, _ := http.NewRequest("GET", base+tc.path, nil)
	if tc.accept != "" {
		req.Header.Set("Accept", tc.accept)
	}
	if tc.al != "" {
		req.Header.Set("Accept-Language", tc.al)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func checkPageAnswer(t *testing.T, who string, tc pageLangCase, resp *http.Response, body string) {
	t.Helper()
	name := who + " " + tc.path + " [" + tc.accept + "] [" + tc.al + "]"
	if resp.StatusCode != tc.status {
		t.Errorf("%s: status %d, want %d", name, resp.StatusCode, tc.status)
		return
	}
	if tc.status != 200 {
		return
	}
	if tc.h1 != "" && !strings.Contains(body, tc.h1) {
		h1 := regexp.MustCompile(`<h1[^>]*>[^<]*</h1>`).FindString(body)
		t.Errorf("%s: title %s, want %s", name, h1, tc.h1)
	}
	if got := resp.Header.Get("Content-Location"); got != tc.location {
		t.Errorf("%s: Content-Location %q, want %q", name, got, tc.location)
	}
	want := slices.Clone(tc.vary)
	slices.Sort(want)
	if got := varyOf(resp.Header); !slices.Equal(got, want) {
		t.Errorf("%s: Vary %q, want %q", name, got, want)
	}
}

// comparePageAnswers asks a web server in front of the handler every case: its answer must be the expected one and
// the handler's (also the headers named in also), from files exactly when the case says static.
func comparePageAnswers(t *testing.T, who, handler, front string, cases []pageLangCase, also ...string) {
	t.Helper()
	static := 0
	for _, tc := range cases {
		want, wantBody := getPage(t, handler, tc)
		got, gotBody := getPage(t, front, tc)
		checkPageAnswer(t, who, tc, got, gotBody)
		name := who + " " + tc.path + " [" + tc.accept + "] [" + tc.al + "]"
		if got.StatusCode != want.StatusCode {
			t.Errorf("%s: status %d, handler %d", name, got.StatusCode, want.StatusCode)
			continue
		}
		if s := got.Header.Get("X-LDHub-Static") != ""; s != tc.static {
			t.Errorf("%s: served from files %v, want %v", name, s, tc.static)
		} else if s {
			static++
		}
		if want.StatusCode != 200 {
			continue
		}
		if gotBody != wantBody {
			t.Errorf("%s: bodies differ", name)
		}
		for _, h := range append([]string{"Content-Type", "Content-Location", "Cache-Control", "Last-Modified", "Link"}, also...) {
			if got.Header.Get(h) != want.Header.Get(h) {
				t.Errorf("%s: %s %q, handler %q", name, h, got.Header.Get(h), want.Header.Get(h))
			}
		}
		if gv, wv := varyOf(got.Header), varyOf(want.Header); !slices.Equal(gv, wv) {
			t.Errorf("%s: Vary %q, handler %q", name, gv, wv)
		}
	}
	t.Logf("%s answered %d of %d requests from files", who, static, len(cases))
}
