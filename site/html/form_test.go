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
// does (form fields from the HTML, action resolved against the page URL) and checks the endpoint gets the query.
func TestSPARQLFormWithoutScript(t *testing.T) {
	out := render(t, fixture())
	var got url.Values
	var gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if err := r.ParseForm(); err != nil {
				t.Errorf("endpoint: %v", err)
			}
			got, gotPath = r.PostForm, r.URL.Path
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
	if m := attr(form, "method"); !strings.EqualFold(m, "post") {
		t.Errorf("form method %q, want post", m)
	}
	fields := url.Values{}
	ta := find(form, func(n *xhtml.Node) bool { return n.Data == "textarea" })
	if ta == nil || ta.FirstChild == nil {
		t.Fatal("form has no filled textarea")
	}
	fields.Set(attr(ta, "name"), ta.FirstChild.Data)
	if find(form, func(n *xhtml.Node) bool { return n.Data == "button" && attr(n, "type") == "submit" }) == nil {
		t.Error("form has no submit button")
	}
	base, _ := url.Parse(pageURL)
	action, err := base.Parse(attr(form, "action"))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err = http.PostForm(action.String(), fields); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotPath != "/acme/people/staff/sparql" {
		t.Errorf("form posted to %q, want the endpoint /acme/people/staff/sparql", gotPath)
	}
	if q := got.Get("query"); !strings.Contains(q, "SELECT") {
		t.Errorf("endpoint got query %q", q)
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
