package html

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

// TestSPARQLFormWithoutScript submits the publication page's query form the way a browser without JavaScript
// does (a GET with every field of the form, action resolved against the page URL) and checks the endpoint gets
// the query and asks for the answer page (format=text/html).
func TestSPARQLFormWithoutScript(t *testing.T) {
	out := render(t, fixture())
	var got url.Values
	var gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("query") {
			got, gotPath = r.URL.Query(), r.URL.Path
			return
		}
		http.FileServer(http.Dir(out)).ServeHTTP(w, r)
	}))
	defer srv.Close()

	pageURL := srv.URL + "/acme/people/staff/"
	resp, err := http.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := xhtml.Parse(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	form := find(doc, func(n *xhtml.Node) bool { return n.Data == "form" && attr(n, "class") == "sparql" })
	if form == nil {
		t.Fatal("no SPARQL form on the publication page")
	}
	if m := attr(form, "method"); !strings.EqualFold(m, "get") {
		t.Errorf("form method %q, want get", m)
	}
	fields := url.Values{}
	ta := find(form, func(n *xhtml.Node) bool { return n.Data == "textarea" })
	if ta == nil || ta.FirstChild == nil {
		t.Fatal("form has no filled textarea")
	}
	fields.Set(attr(ta, "name"), ta.FirstChild.Data)
	for n := ta.NextSibling; n != nil; n = n.NextSibling {
		if n.Type == xhtml.ElementNode && n.Data == "input" {
			fields.Set(attr(n, "name"), attr(n, "value"))
		}
	}
	if find(form, func(n *xhtml.Node) bool { return n.Data == "button" && attr(n, "type") == "submit" }) == nil {
		t.Error("form has no submit button")
	}
	base, _ := url.Parse(pageURL)
	action, err := base.Parse(attr(form, "action"))
	if err != nil {
		t.Fatal(err)
	}
	action.RawQuery = fields.Encode()
	if resp, err = http.Get(action.String()); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotPath != "/acme/people/staff/sparql" {
		t.Errorf("form sent to %q, want the endpoint /acme/people/staff/sparql", gotPath)
	}
	if q := got.Get("query"); !strings.Contains(q, "SELECT") || got.Get("format") != "text/html" {
		t.Errorf("endpoint got %v", got)
	}
}

// TestNoScriptsOrForeignFetches: pages carry no inline script (the hub's CSP allows script-src 'self' only), the
// one script they load is the theme's own file from the same host (an enhancement: pages work without it), and they
// never load anything from another host.
func TestNoScriptsOrForeignFetches(t *testing.T) {
	out := render(t, fixture())
	// Loads (not links): src attributes, stylesheets and icons, CSS imports and url()s pointing elsewhere.
	foreign := regexp.MustCompile(`(?i)\ssrc="(https?:)?//|<link rel="(stylesheet|icon|preload)"[^>]*href="(https?:)?//|@import|url\(\s*['"]?(https?:)?//`)
	scripts := regexp.MustCompile(`(?i)<script[^>]*>`)
	// A path on this host (absolute or relative, never a scheme or //host) to a .js file.
	ownScript := regexp.MustCompile(`^<script src="(\.{1,2}/|/[^/])[^":]*\.js" defer>$`)
	n := 0
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".css")) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if m := foreign.Find(b); m != nil {
			t.Errorf("%s: %s", p, m)
		}
		for _, m := range scripts.FindAll(b, -1) {
			if !ownScript.Match(m) {
				t.Errorf("%s: %s is not the theme's own script file", p, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 8 {
		t.Fatalf("checked %d files, want the 7 pages and the stylesheet", n)
	}
}

func find(n *xhtml.Node, ok func(*xhtml.Node) bool) *xhtml.Node {
	if n.Type == xhtml.ElementNode && ok(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, ok); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
