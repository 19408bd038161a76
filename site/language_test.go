package site_test

import (
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/html"
)

// dcatHub publishes W3C DCAT (from @vocabulary/dcat, 10+ languages per label) under the hub's own URI, so that
// its terms have resource pages, and returns a handler over the rendered tree.
func dcatHub(t *testing.T, theme *html.Resources) *site.Handler {
	t.Helper()
	hub := pipelinetest.New(t)
	hub.Publish(t, hub.Open.ID, "dcat", ".nt", vocabNT(t, "dcat", "http://www.w3.org/ns/dcat#", "http://hub.example/org/open/dcat/"))
	h, _ := renderTree(t, hub, site.Options{Theme: theme})
	return h
}

// vocabNT is the vocabulary name of content/vocab/testdata (N-Quads, the graph the ontology's IRI) as N-Triples,
// with the IRIs starting with from moved to start with to ("" keeps them), so that it is published as a graph.
func vocabNT(t *testing.T, name, from, to string) string {
	t.Helper()
	raw, err := os.ReadFile("../content/vocab/testdata/" + name + ".nq")
	if err != nil {
		t.Fatal(err)
	}
	var nt strings.Builder
	graph := regexp.MustCompile(` <[^>]*> \.$`)
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" {
			continue
		}
		line = graph.ReplaceAllString(line, " .")
		if from != "" {
			line = strings.ReplaceAll(line, from, to)
		}
		nt.WriteString(line + "\n")
	}
	return nt.String()
}

// TestResourcePageLanguages: a term's page is headed by its label in the reader's language (Accept-Language,
// best weight first, matching by primary subtag), then the hub's, then English; ?lang= (the page's switch, plain
// links) overrides the header. Negotiated pages say Vary: Accept-Language, and every language has its own ETag
// and cache entry. Labels carry lang attributes.
func TestResourcePageLanguages(t *testing.T) {
	h := dcatHub(t, nil)
	get := func(target, al string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", target, nil)
		r.Header.Set("Accept", browserAccept)
		if al != "" {
			r.Header.Set("Accept-Language", al)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	heading := regexp.MustCompile(`<h1 id="title"[^>]*>[^<]*</h1>`)
	etags := map[string]string{}
	for _, c := range []struct{ target, al, h1, link string }{
		{"/org/open/dcat/Dataset", "", `<h1 id="title" lang="en">Dataset</h1>`, `lang="en">Catalogued resource</a>`},
		{"/org/open/dcat/Dataset", "es", `<h1 id="title" lang="es">Conjunto de datos</h1>`, `lang="es">Recurso catalogado</a>`},
		{"/org/open/dcat/Dataset", "fr-CH, fr;q=0.9, en;q=0.8", `<h1 id="title" lang="fr">Jeu de données</h1>`, ""},
		{"/org/open/dcat/Dataset", "de;q=0.9, es;q=0.5, en;q=0.1", `<h1 id="title" lang="es">Conjunto de datos</h1>`, ""},
		{"/org/open/dcat/Dataset", "zz, *", `<h1 id="title" lang="en">Dataset</h1>`, ""},
		{"/org/open/dcat/Dataset", "en;q=0, cs", `<h1 id="title" lang="cs">Datová sada</h1>`, `lang="cs">Katalogizovaný zdroj</a>`},
		{"/org/open/dcat/Dataset?lang=ja", "es", `<h1 id="title" lang="ja">データセット</h1>`, ""},
		{"/org/open/dcat/Dataset.html?lang=es", "", `<h1 id="title" lang="es">Conjunto de datos</h1>`, ""},
	} {
		w := get(c.target, c.al)
		body := w.Body.String()
		if w.Code != 200 {
			t.Fatalf("%s (Accept-Language %q): %d %s", c.target, c.al, w.Code, body)
		}
		if got := heading.FindString(body); got != c.h1 {
			t.Errorf("%s (Accept-Language %q): heading %q, want %q", c.target, c.al, got, c.h1)
		}
		if c.link != "" && !strings.Contains(body, c.link) {
			t.Errorf("%s (Accept-Language %q): no link labelled %q", c.target, c.al, c.link)
		}
		vary := strings.Join(w.Header().Values("Vary"), ",")
		if negotiated := !strings.Contains(c.target, "lang="); strings.Contains(vary, "Accept-Language") != negotiated {
			t.Errorf("%s: Vary %q", c.target, vary)
		}
		// The switch: one plain link per language of the term's texts, the current one marked.
		for _, want := range []string{`<nav class="langs" aria-label="Language">`,
			`<a href="/org/open/dcat/Dataset?lang=es" hreflang="es" lang="es"`,
			`<a href="/org/open/dcat/Dataset?lang=ja" hreflang="ja" lang="ja"`} {
			if !strings.Contains(strings.ReplaceAll(body, ".html?lang", "?lang"), want) {
				t.Errorf("%s: no %q", c.target, want)
			}
		}
		cur := regexp.MustCompile(`hreflang="([a-z-]+)" lang="[a-z-]+" aria-current="true"`).FindStringSubmatch(body)
		if want := regexp.MustCompile(`lang="([a-z]+)"`).FindStringSubmatch(c.h1)[1]; cur == nil || cur[1] != want {
			t.Errorf("%s (Accept-Language %q): current language %v, want %s", c.target, c.al, cur, want)
		}
		if e := w.Header().Get("ETag"); etags[e] != "" && etags[e] != c.h1 {
			t.Errorf("ETag %s for both %q and %q", e, etags[e], c.h1)
		} else {
			etags[e] = c.h1
		}
	}
	// A term's page opens with its documentation entry, as on the publication page, in the reader's language:
	// definition, hierarchy (its superclass by label, linking its page).
	for al, want := range map[string][]string{
		"":   {`<h2 id="definition-title">Definition</h2>`, `<article class="term" id="definition"`, `lang="en">A collection of data, published or curated by a single source`, `href="/org/open/dcat/Resource"`, `Subclass of`},
		"fr": {`lang="fr">Une collection de données, publiée ou élaborée par une seule source`},
	} {
		body := get("/org/open/dcat/Dataset", al).Body.String()
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("Accept-Language %q: the documentation entry lacks %q", al, w)
			}
		}
	}
	// The English page again, after the others were cached: the cache keeps them apart.
	if got := heading.FindString(get("/org/open/dcat/Dataset", "").Body.String()); got != `<h1 id="title" lang="en">Dataset</h1>` {
		t.Errorf("English page after the others: %q", got)
	}
	// Links between pages of incoming statements keep an explicit language.
	if w := get("/org/open/dcat/Dataset?lang=de&page=0", ""); w.Code != 200 {
		t.Errorf("?lang=de&page=0: %d", w.Code)
	}
	for _, bad := range []string{"?lang=", "?lang=e_s", "?lang=es&lang=fr", "?lang=" + strings.Repeat("a", 9)} {
		w := get("/org/open/dcat/Dataset"+bad, "")
		if w.Code != 400 || !strings.Contains(w.Body.String(), "lang must be") {
			t.Errorf("%s: %d %s", bad, w.Code, w.Body)
		}
	}
	// RDF does not depend on the language: no Vary on it, the same bytes.
	r := httptest.NewRequest("GET", "/org/open/dcat/Dataset.ttl", nil)
	r.Header.Set("Accept-Language", "es")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 || strings.Contains(strings.Join(w.Header().Values("Vary"), ","), "Accept-Language") {
		t.Errorf("Turtle: %d, Vary %q", w.Code, w.Header().Values("Vary"))
	}
}

// TestResourcePageHubLanguage: without Accept-Language a page takes the hub's language before English.
func TestResourcePageHubLanguage(t *testing.T) {
	h := dcatHub(t, html.NewResources(html.ResourceOptions{Language: "it"}))
	r := httptest.NewRequest("GET", "/org/open/dcat/Resource.html", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if !strings.Contains(w.Body.String(), `<h1 id="title" lang="it">Risorsa catalogata</h1>`) {
		t.Errorf("hub language it: %s", regexp.MustCompile(`<h1[^>]*>[^<]*</h1>`).FindString(w.Body.String()))
	}
	r.Header.Set("Accept-Language", "da")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if !strings.Contains(w.Body.String(), `<h1 id="title" lang="da">Katalogiseret ressource</h1>`) {
		t.Errorf("reader da on an it hub: %s", regexp.MustCompile(`<h1[^>]*>[^<]*</h1>`).FindString(w.Body.String()))
	}
}
