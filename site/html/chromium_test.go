package html

import (
	"context"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	xhtml "golang.org/x/net/html"

	"github.com/ldhub/ldhub/site/html/htmltest"
	"github.com/ldhub/ldhub/theme"
)

// TestChromium loads rendered pages in a real browser: they must load without console errors or missing
// files and show the publication's name. Screenshots land in build/screenshots/ for a person to look at.
func TestChromium(t *testing.T) {
	bin := htmltest.Chromium(t)
	out := render(t, fixture())
	shots := htmltest.ArtefactDir(t)
	tests := []struct {
		name, path, want string
	}{
		{"hub", "/", `<a href="./acme/people/">People</a>`},
		{"publication", "/acme/people/staff/", `<h1 id="title">Staff Directory</h1>`},
		{"version", "/acme/people/staff/versions/2026_20spring_2F_CE_B2/", "Staff Directory 2026 spring/β"},
		{"resource", "/acme/people/staff/id/alice/", "Staff Directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := htmltest.Browse(t, bin, http.FileServer(http.Dir(out)), tc.path, filepath.Join(shots, tc.name+".png"))
			if !strings.Contains(b.DOM, tc.want) {
				t.Errorf("page %s does not show %q:\n%s", tc.path, tc.want, b.DOM)
			}
			if !strings.Contains(b.DOM, "</html>") {
				t.Errorf("page %s: no DOM dumped", tc.path)
			}
			if len(b.Console) > 0 {
				t.Errorf("page %s logged to the console:\n%s", tc.path, strings.Join(b.Console, "\n"))
			}
			if len(b.Failed) > 0 {
				t.Errorf("page %s asked for missing files: %v", tc.path, b.Failed)
			}
		})
	}
}

// TestChromiumSeesErrors shows the browser check can fail: a theme whose page throws and links a missing
// stylesheet must be caught by both detectors.
func TestChromiumSeesErrors(t *testing.T) {
	bin := htmltest.Chromium(t)
	over := t.TempDir()
	if err := os.MkdirAll(filepath.Join(over, "layouts"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := `{{ define "head" }}<link rel="stylesheet" href="/missing.css">{{ end }}` +
		`{{ define "main" }}<h1>{{ .Title }}</h1><script>undefinedFunction()</script>{{ end }}`
	if err := os.WriteFile(filepath.Join(over, "layouts", "hub.html"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	b := htmltest.Browse(t, bin, http.FileServer(http.Dir(render(t, fixture(), over))), "/", "")
	if len(b.Console) == 0 {
		t.Error("an uncaught exception was not seen in the console log")
	}
	if len(b.Failed) == 0 {
		t.Error("a missing stylesheet was not seen")
	}
}

// TestChromiumVocabularyPage reads a vocabulary's page in a browser as a reader of Widoco or pyLODE output would:
// the ontology's own statements (IRI, version IRI and version info, creators, licence, namespace, dates) and
// the hub's (URI, version, licence), each row once and none saying the same as another, the dates the data
// gives (the latest modification, the creation), the namespace and prefix its terms are named with, and a
// contents list that reaches every section of the page.
func TestChromiumVocabularyPage(t *testing.T) {
	bin := htmltest.Chromium(t)
	d := readVocab(t, "org.nq")
	b := &Batch{Title: "Hub", Language: "en"}
	v := Version{Label: "1", Href: "/g/r/p/versions/1", Time: time.Unix(0, 0),
		Dumps: []Dump{{Format: "Turtle", Ext: ".ttl", MediaType: "text/turtle", URL: "/g/r/p.ttl"}}}
	pub := Publication{Name: "p", URI: "http://www.w3.org/ns/org#", Versions: []Version{v},
		License: "http://www.opendatacommons.org/licenses/pddl/1.0/", Modified: time.Unix(86400, 0)}
	if err := b.Publication("p", PublicationPage{Crumbs: []Crumb{{Name: "Hub", Href: "/"}}, Repository: Crumb{Name: "r", Href: "/g/r/"},
		Href: "/g/r/p", Publication: pub, Latest: true, Vocab: d}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := RenderBatch(context.Background(), b, out); err != nil {
		t.Fatal(err)
	}
	// The site serves the theme's script at /_ldhub/ beside the batch's pages.
	js, err := fs.Sub(theme.Hugo(), "static/js")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(out)))
	mux.Handle("/_ldhub/", http.StripPrefix("/_ldhub/", http.FileServer(http.FS(js))))
	br := htmltest.Browse(t, bin, mux, "/p/", filepath.Join(htmltest.ArtefactDir(t), "vocabulary.png"))
	if len(br.Console) > 0 || len(br.Failed) > 0 {
		t.Errorf("console %v, failed %v", br.Console, br.Failed)
	}
	doc, err := xhtml.Parse(strings.NewReader(br.DOM))
	if err != nil {
		t.Fatal(err)
	}
	// rows: each <dt> of the page's metadata lists (dl.meta) with the text of its <dd>.
	rows := map[string][]string{}
	ids := map[string]bool{}
	var toc []string
	var walk func(n *xhtml.Node, inMeta, inTOC bool)
	walk = func(n *xhtml.Node, inMeta, inTOC bool) {
		if n.Type == xhtml.ElementNode {
			for _, a := range n.Attr {
				switch {
				case a.Key == "class" && n.Data == "dl" && strings.Contains(" "+a.Val+" ", " meta "):
					inMeta = true
				case a.Key == "class" && n.Data == "nav" && strings.Contains(" "+a.Val+" ", " toc "):
					inTOC = true
				case a.Key == "id":
					ids[a.Val] = true
				case a.Key == "href" && inTOC && strings.HasPrefix(a.Val, "#"):
					toc = append(toc, a.Val[1:])
				}
			}
			if inMeta && n.Data == "dt" {
				dd := n.NextSibling
				for dd != nil && dd.Type != xhtml.ElementNode {
					dd = dd.NextSibling
				}
				rows[text(n)] = append(rows[text(n)], text(dd))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inMeta, inTOC)
		}
	}
	walk(doc, false, false)
	seen := map[string]string{}
	for dt, dds := range rows {
		if len(dds) > 1 {
			t.Errorf("%d rows %q: %q", len(dds), dt, dds)
		}
		for _, dd := range dds {
			if other, ok := seen[dd]; ok {
				t.Errorf("rows %q and %q say the same: %q", other, dt, dd)
			}
			seen[dd] = dt
		}
	}
	for dt, want := range map[string]string{
		"Ontology IRI": "http://www.w3.org/ns/org#", "Version info": "0.8", "Version": "1",
		"License": "http://www.opendatacommons.org/licenses/pddl/1.0/", "Created": "2010-05-28",
		"Modified": "2014-04-12", "Namespace": "org: http://www.w3.org/ns/org#",
	} {
		if got := rows[dt]; len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("row %q = %q, want %q", dt, got, want)
		}
	}
	for _, id := range []string{"terms", "section-class", "download", "statistics", "versions"} {
		if !ids[id] {
			t.Errorf("no section #%s", id)
		} else if !slices.Contains(toc, id) {
			t.Errorf("the contents list %v does not reach #%s", toc, id)
		}
	}
	for _, id := range toc {
		if !ids[id] {
			t.Errorf("the contents list links #%s, which is not on the page", id)
		}
	}
}

// text is the text of n and its descendants, spaces collapsed.
func text(n *xhtml.Node) string {
	var b strings.Builder
	var walk func(*xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	if n != nil {
		walk(n)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
