package site_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/tree"
)

// TestResourceLabelsFromOtherPublications: a term's page labels the IRIs of another publication of the hub with
// that publication's labels, in the reader's language, both on request and in the pre-rendered page; a private
// publication's labels never show.
func TestResourceLabelsFromOtherPublications(t *testing.T) {
	hub := pipelinetest.New(t)
	hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	hub.Publish(t, hub.Closed.ID, "secret", ".ttl", strings.Replace(pipelinetest.Vocab, `"Thing"@en`, `"Hidden thing"@en`, 1))
	hub.Publish(t, hub.Open.ID, "ext", ".ttl", `<Sub> a <http://www.w3.org/2002/07/owl#Class> ;
  <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://hub.example/org/open/core/Thing> ;
  <http://www.w3.org/2000/01/rdf-schema#seeAlso> <http://hub.example/org/closed/secret/Thing>, <http://hub.example/org/open/core/Nothing> .
`)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example", HTML: &pipeline.HTML{TermPages: true}})
	if err != nil {
		t.Fatal(err)
	}
	// One build: the term pages are written once the build's folders are live.
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitTermPages(context.Background()); err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	static, err := os.ReadFile(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/ext"), tree.Current, tree.TermPages, "Sub.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ lang, want string }{{"", `lang="en">Thing</a>`}, {"nl", `lang="nl">Ding</a>`}} {
		r := httptest.NewRequest("GET", "/org/open/ext/Sub", nil)
		r.Header.Set("Accept", browserAccept)
		if tc.lang != "" {
			r.Header.Set("Accept-Language", tc.lang)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		body := w.Body.String()
		if w.Code != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("Accept-Language %q: status %d, the page does not label core's Thing (%s):\n%s", tc.lang, w.Code, tc.want, body)
		}
		for _, page := range []string{body, string(static)} {
			if strings.Contains(page, "Hidden thing") {
				t.Errorf("a private publication's label shows on a public page")
			}
			if !strings.Contains(page, ">http://hub.example/org/open/core/Nothing</a>") {
				t.Errorf("an IRI nobody labels is not shown as itself")
			}
		}
	}
	if !strings.Contains(string(static), `lang="en">Thing</a>`) {
		t.Errorf("the pre-rendered page does not label core's Thing:\n%s", static)
	}
}
