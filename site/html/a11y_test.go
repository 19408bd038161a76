package html_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/html/htmltest"
)

// axeScript finds axe-core (npm axe-core: $LDHUB_AXE_CORE/node_modules/axe-core, else ~/.cache/ldhub-ci/axe-core,
// where .ci/run installs it).
func axeScript(t *testing.T) []byte {
	dir := os.Getenv("LDHUB_AXE_CORE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "ldhub-ci", "axe-core")
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		conformance.Missing(t, fmt.Sprintf("axe-core not installed (%v): npm install --prefix %s axe-core, or set LDHUB_AXE_CORE", err, dir))
	}
	return b
}

// axeRun checks the page with axe-core once it has loaded, then tries the term filter (when the page has one)
// with the first term's label, and leaves both results in the DOM for --dump-dom.
const axeRun = `window.addEventListener("load", function () {
  axe.run(document, {resultTypes: ["violations"]}).then(function (r) {
    var out = {violations: r.violations.map(function (v) {
      return {id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map(function (n) { return n.target.join(" "); })};
    })};
    var f = document.getElementById("filter");
    var terms = document.querySelectorAll("article.term");
    if (f && terms.length) {
      f.value = terms[0].querySelector(".label").textContent;
      f.dispatchEvent(new Event("input"));
      out.filterTotal = terms.length;
      setTimeout(function () {
        out.filterShown = document.querySelectorAll("article.term:not([hidden])").length;
        done(out);
      }, 400);
    } else {
      done(out);
    }
  }, function (err) { done({error: String(err)}); });
  function done(out) {
    var pre = document.createElement("pre");
    pre.id = "axe-results";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
});`

// withAxe serves h with axe-core and axeRun added to the end of every HTML page.
func withAxe(h http.Handler, axe []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/__axe/axe.min.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Write(axe)
			return
		case "/__axe/run.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte(axeRun))
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			body = bytes.Replace(body, []byte("</body>"),
				[]byte(`<script src="/__axe/axe.min.js"></script><script src="/__axe/run.js"></script></body>`), 1)
			rec.Header().Del("Content-Length")
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

type axeResult struct {
	Violations []struct {
		ID, Impact, Help string
		Targets          []string
	}
	FilterTotal, FilterShown int
	Error                    string
}

// pageCase is one page type of docSite.
type pageCase struct {
	name, path string
	filter     bool // the page documents terms: it has the term filter
	langs      bool // the page has a language switch
}

// docSite renders real vocabularies with the pipeline (FOAF, the multilingual W3C Organization Ontology, SHACL
// with its shapes, and the small fixture ontology with two versions) and returns a handler over the tree with one
// page of every type: hub, repository, publication pages, a publication page in another language than the hub's
// (with its language switch), a version page, a resource page (with its switch) and the query form's answers.
func docSite(t *testing.T) (http.Handler, []pageCase) {
	hub := pipelinetest.New(t)
	for _, v := range []string{"foaf", "org", "sh"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "content", "vocab", "testdata", v+".nq"))
		if err != nil {
			t.Fatal(err)
		}
		hub.Publish(t, hub.Open.ID, v, ".nq", string(data))
	}
	pub := hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	pub = hub.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
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
	t.Cleanup(func() { h.Close() })
	return h, []pageCase{
		{"hub", "/", false, false},
		{"repository", "/org/open/", false, false},
		{"foaf", "/org/open/foaf", true, false},
		{"org", "/org/open/org", true, true},
		{"org-fr", "/org/open/org?lang=fr", true, true}, // the French page, through its switch's link
		{"shacl", "/org/open/sh", true, false},
		{"version", "/org/open/core/versions/" + pub.Versions[0].Label, true, true},
		{"resource", "/org/open/core/Thing", false, true}, // with its language switch (en, nl)
		{"query", "/org/open/core?format=text%2Fhtml&query=SELECT+*+WHERE+%7B+%3Fs+%3Fp+%3Fo+%7D", false, false},
		{"query-graph", "/org/open/core?format=text%2Fhtml&query=CONSTRUCT+WHERE+%7B+%3Fs+%3Fp+%3Fo+%7D", false, false},
	}
}

// TestAccessibility loads every page type of docSite in Chromium with axe-core: no serious or critical
// violation, no console error, no failed request; the term filter narrows the list; screenshots at desktop and
// phone width are kept (htmltest.ArtefactDir). Keyboard use of the language switch is TestLanguageSwitchKeyboard's.
func TestAccessibility(t *testing.T) {
	bin := htmltest.Chromium(t)
	axe := axeScript(t)
	h, cases := docSite(t)
	shots := htmltest.ArtefactDir(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := htmltest.Browse(t, bin, withAxe(h, axe), tc.path, filepath.Join(shots, "doc-"+tc.name+".png"),
				"--virtual-time-budget=60000")
			i := strings.Index(b.DOM, `<pre id="axe-results">`)
			if i < 0 {
				t.Fatalf("axe-core left no results on %s (console: %v)", tc.path, b.Console)
			}
			raw := b.DOM[i+len(`<pre id="axe-results">`):]
			raw = raw[:strings.Index(raw, "</pre>")]
			raw = strings.NewReplacer("&quot;", `"`, "&lt;", "<", "&gt;", ">", "&#39;", "'", "&amp;", "&").Replace(raw)
			var res axeResult
			if err := json.Unmarshal([]byte(raw), &res); err != nil {
				t.Fatalf("axe results %q: %v", raw, err)
			}
			if res.Error != "" {
				t.Fatalf("axe-core failed on %s: %s", tc.path, res.Error)
			}
			for _, v := range res.Violations {
				if v.Impact == "serious" || v.Impact == "critical" {
					t.Errorf("%s: %s violation %s (%s) at %v", tc.path, v.Impact, v.ID, v.Help, v.Targets)
				} else {
					t.Logf("%s: %s violation %s (%s) at %v", tc.path, v.Impact, v.ID, v.Help, v.Targets)
				}
			}
			if tc.filter && (res.FilterTotal == 0 || res.FilterShown == 0 || res.FilterShown >= res.FilterTotal) {
				t.Errorf("%s: the filter showed %d of %d terms for the first term's label", tc.path, res.FilterShown, res.FilterTotal)
			}
			if len(b.Console) > 0 {
				t.Errorf("%s logged to the console:\n%s", tc.path, strings.Join(b.Console, "\n"))
			}
			if len(b.Failed) > 0 {
				t.Errorf("%s made requests that failed: %v", tc.path, b.Failed)
			}
			htmltest.Browse(t, bin, h, tc.path, filepath.Join(shots, "doc-"+tc.name+"-mobile.png"), "--window-size=390,1600")
		})
	}
}
