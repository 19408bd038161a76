package site_test

import (
	"html"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/protocol"
)

// TestSPARQLWrapperAtEveryURL drives Python's SPARQLWrapper (Debian's python3-sparqlwrapper, with its defaults) at
// every URL form of a publication: the publication URL, <publication URL>/sparql, a version URL and <version
// URL>/sparql, with GET, a form POST and a POST of application/sparql-query.
func TestSPARQLWrapperAtEveryURL(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import SPARQLWrapper").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3-sparqlwrapper is required under CI: %v", err)
		}
		t.Skipf("python3-sparqlwrapper not installed (apt-get install python3-sparqlwrapper): %v", err)
	}
	f := newFixture(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	script := filepath.Join(t.TempDir(), "client.py")
	src := `import sys
from SPARQLWrapper import SPARQLWrapper, JSON, POST, GET, POSTDIRECTLY, URLENCODED
for url in sys.argv[1:]:
    got = []
    for method, request in ((GET, URLENCODED), (POST, URLENCODED), (POST, POSTDIRECTLY)):
        s = SPARQLWrapper(url)
        s.setQuery("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        s.setReturnFormat(JSON)
        s.setMethod(method)
        s.setRequestMethod(request)
        got.append(s.query().convert()["results"]["bindings"][0]["n"]["value"])
    print(url[len(sys.argv[1]):] or "/", " ".join(got))
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pub := srv.URL + "/org/open/core"
	ver := pub + "/versions/" + f.versions[0]
	out, err := exec.Command(py, script, pub, pub+"/sparql", ver, ver+"/sparql").CombinedOutput()
	if err != nil {
		t.Fatalf("SPARQLWrapper failed: %v\n%s", err, out)
	}
	want := strings.Join([]string{
		"/ 12 12 12",
		"/sparql 12 12 12",
		"/versions/" + f.versions[0] + " 11 11 11",
		"/versions/" + f.versions[0] + "/sparql 11 11 11",
	}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("SPARQLWrapper printed\n%s\nwant\n%s", out, want)
	}
}

// TestQueryPage: the publication page's query form is a plain GET whose answer is a page (no script needed): a
// table for SELECT, the boolean for ASK, Turtle for CONSTRUCT, the refusal for a bad query (400, with the query
// back in the form), a bounded page with a notice when the answer is long, and download links that give the
// whole answer in each format. Programs (curl's */*, SPARQLWrapper's format=json) still get SPARQL results.
func TestQueryPage(t *testing.T) {
	f := newFixture(t)
	pub := f.do("GET", "/org/open/core", map[string]string{"Accept": browserAccept}).Body.String()
	form := regexp.MustCompile(`<form class="sparql" method="get" action="([^"]+)"[^>]*>[\s\S]*?<textarea id="query" name="query"[^>]*>([^<]*)</textarea>\s*<input type="hidden" name="format" value="text/html">`).FindStringSubmatch(pub)
	if form == nil {
		t.Fatalf("no GET query form on the publication page:\n%s", pub)
	}
	submit := func(action, query string, hdr map[string]string) *httptest.ResponseRecorder {
		return f.do("GET", action+"?"+url.Values{"query": {query}, "format": {"text/html"}}.Encode(), hdr)
	}
	// The form's own query, as a browser sends it.
	w := submit(form[1], html.UnescapeString(form[2]), map[string]string{"Accept": browserAccept})
	body := w.Body.String()
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("form's query: %d %q\n%s", w.Code, w.Header().Get("Content-Type"), body)
	}
	if !strings.Contains(body, `<caption id="results-caption">12 solutions</caption>`) || strings.Count(body, "<tr><td>") != 12 {
		t.Errorf("SELECT table: %s", body)
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`).MatchString(body) {
		t.Errorf("CSP %q or an inline script", csp)
	}
	if !strings.Contains(body, `<textarea id="query" name="query" rows="8" spellcheck="false">SELECT ?s ?p ?o`) {
		t.Error("the query is not back in the form")
	}
	// A browser following a plain link (no format parameter) gets the page too.
	if w := f.do("GET", "/org/open/core?query="+url.QueryEscape("ASK { ?s ?p ?o }"), map[string]string{"Accept": browserAccept}); !strings.Contains(w.Body.String(), "The answer is <strong>true</strong>") {
		t.Errorf("ASK page: %d %s", w.Code, w.Body)
	}
	w = submit("/org/open/core/sparql", "PREFIX owl: <http://www.w3.org/2002/07/owl#> CONSTRUCT { ?c a owl:Class } WHERE { ?c a owl:Class }", nil)
	if b := w.Body.String(); w.Code != 200 || !regexp.MustCompile(`<pre class="turtle"[^>]*><code>[\s\S]*&lt;http://hub.example/org/open/core/Thing&gt; a owl:Class`).MatchString(b) {
		t.Errorf("CONSTRUCT page: %d %s", w.Code, b)
	}
	// A bad query: 400, the parser's message with its position, the query back in the form, escaped.
	bad := "SELECT * WHERE { ?s ?p </textarea><script>alert(1)</script>"
	w = submit("/org/open/core", bad, nil)
	if b := w.Body.String(); w.Code != 400 || !strings.Contains(b, `role="alert"`) || !strings.Contains(b, "line 1") ||
		strings.Contains(b, "<script>alert") || !strings.Contains(b, "&lt;/textarea&gt;&lt;script&gt;") {
		t.Errorf("bad query: %d %s", w.Code, b)
	}
	// A long answer: the page holds the first MaxPageResults and says so; its CSV link has all of it.
	long := "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
	w = submit("/org/open/core", long, nil)
	b := w.Body.String()
	if w.Code != 200 || strings.Count(b, "<tr><td>") != protocol.MaxPageResults || !strings.Contains(b, "Cut short: the page shows the first 1000") {
		t.Errorf("long answer: %d, %d rows", w.Code, strings.Count(b, "<tr><td>"))
	}
	csv := regexp.MustCompile(`<a href="([^"]+)" type="text/csv">CSV`).FindStringSubmatch(b)
	if csv == nil {
		t.Fatalf("no CSV link: %s", b)
	}
	w = f.do("GET", html.UnescapeString(csv[1]), nil)
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/csv") || strings.Count(w.Body.String(), "\n") != 12*12*12+1 {
		t.Errorf("CSV download: %d %q, %d lines", w.Code, w.Header().Get("Content-Type"), strings.Count(w.Body.String(), "\n"))
	}
	for _, links := range []string{"SPARQL JSON", "SPARQL XML", "TSV"} {
		if !strings.Contains(b, ">"+links+" <") {
			t.Errorf("no %s download", links)
		}
	}
	// Programs are not given pages.
	for _, hdr := range []map[string]string{nil, {"Accept": "*/*"}, {"Accept": "application/sparql-results+json"}} {
		w := f.do("GET", "/org/open/core?query="+url.QueryEscape("ASK {}")+"&format=json", hdr)
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/sparql-results+json") {
			t.Errorf("Accept %v: %d %q", hdr, w.Code, w.Header().Get("Content-Type"))
		}
	}
	// A hidden publication's query page answers exactly like a missing one.
	if w := submit("/org/closed/secret", "ASK {}", map[string]string{"Accept": browserAccept}); w.Code != 404 || strings.Contains(w.Body.String(), "<html") {
		t.Errorf("hidden publication: %d %s", w.Code, w.Body)
	}
}

// TestEndpointFormForBrowsers: a browser opening …/sparql without a query (its Accept ranks text/html first) gets
// the query form, as a page of the site with its headers and no inline script, sending the query to the same
// endpoint; it used to get the service description as Turtle, which Chromium downloads. curl with its defaults
// (Accept */*), SPARQLWrapper's Accept and a client naming Turtle keep the description.
func TestEndpointFormForBrowsers(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/org/open/core/sparql", "/org/open/core/versions/" + f.versions[0] + "/sparql"} {
		w := f.do("GET", path, map[string]string{"Accept": browserAccept})
		body := w.Body.String()
		if w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("%s as a browser: %d %q\n%s", path, w.Code, w.Header().Get("Content-Type"), body)
		}
		if !strings.Contains(body, `<form class="sparql" method="get" action="`+path+`"`) || !strings.Contains(body, `<textarea id="query" name="query"`) {
			t.Errorf("%s as a browser: no form sending to the endpoint:\n%s", path, body)
		}
		if strings.Contains(body, `id="answer"`) || strings.Contains(body, "sd:Service") {
			t.Errorf("%s as a browser: an answer or the description on the form page:\n%s", path, body)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`).MatchString(body) {
			t.Errorf("%s: CSP %q or an inline script", path, csp)
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(w.Header().Get("Vary"), "Accept") {
			t.Errorf("%s: headers %v", path, w.Header())
		}
	}
	for _, accept := range []string{"*/*", "", "text/turtle"} {
		w := f.do("GET", "/org/open/core/sparql", map[string]string{"Accept": accept})
		if w.Code != 200 || !strings.Contains(w.Body.String(), "sd:Service") {
			t.Errorf("Accept %q: %d %q, want the service description:\n%s", accept, w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	}
	// SPARQLWrapper's Accept for JSON results names application/json, which asks a graph for JSON-LD (as at the
	// direct URLs): the description in JSON-LD, not the page (it was 406).
	if w := f.do("GET", "/org/open/core/sparql", map[string]string{"Accept": "application/sparql-results+json,application/json,text/javascript,application/javascript"}); w.Code != 200 ||
		!strings.HasPrefix(w.Header().Get("Content-Type"), "application/ld+json") || !strings.Contains(w.Body.String(), `"@type": "sd:Service"`) {
		t.Errorf("SPARQLWrapper's Accept: %d %q\n%s", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	out, err := exec.Command("curl", "-s", "-S", "-i", srv.URL+"/org/open/core/sparql").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Content-Type: text/turtle") || !strings.Contains(string(out), "sd:Service") {
		t.Errorf("curl with its defaults: %v\n%s", err, out)
	}
}
