package pipeline_test

import (
	"context"
	"fmt"
	"net/http"
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

// thesaurus is a SKOS thesaurus of n concepts in Turtle with relative IRIs, c5 labelled label5: ten top concepts,
// each other concept ci narrower than c(i/10-1), so c5's children are c60 … c69.
func thesaurus(n int, label5 string) string {
	var b strings.Builder
	b.WriteString("@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n<scheme> a skos:ConceptScheme ; skos:prefLabel \"Thesaurus\"@en .\n")
	for i := range n {
		label := fmt.Sprintf("concept %d", i)
		if i == 5 {
			label = label5
		}
		fmt.Fprintf(&b, "<c%d> a skos:Concept ; skos:prefLabel %q@en ; skos:inScheme <scheme>", i, label)
		if i < 10 {
			b.WriteString(" ; skos:topConceptOf <scheme> .\n")
		} else {
			fmt.Fprintf(&b, " ; skos:broader <c%d> .\n", i/10-1)
		}
	}
	return b.String()
}

// TestTermPagesDescribeOnlyWhatChanged: a new version of a 10 000-concept thesaurus that changes one statement (c5's
// label) describes and fingerprints only the terms whose page can show it (c5, the ten concepts narrower than c5,
// which show its label, and the scheme, whose page is the handler's) and renders eleven; every other page is linked
// from the version before without being described (the old code described all 10 001). The pages in place are the
// handler's pages of the new version, byte for byte, the linked ones and the rendered ones.
func TestTermPagesDescribeOnlyWhatChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 10 000 term pages")
	}
	ctx := context.Background()
	h := pipelinetest.New(t)
	const n = 10_000
	pub := h.Publish(t, h.Open.ID, "thes", ".ttl", thesaurus(n, "concept 5"))
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base, HTML: &pipeline.HTML{TermPages: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := p.WaitTermPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != n || res.Described != n+1 || res.Paged != 1 {
		t.Fatalf("first version: %+v, want %d rendered, %d described, the scheme paged", res, n, n+1)
	}
	h.Update(t, pub.ID, ".ttl", thesaurus(n, "fifth concept"))
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if res, err = p.WaitTermPages(ctx); err != nil {
		t.Fatal(err)
	}
	if res.Described != 12 || res.Rendered != 11 || res.Kept != n-11 || res.Paged != 1 {
		t.Errorf("one label changed: %+v, want 12 described, 11 rendered, %d kept, 1 paged", res, n-11)
	}
	terms := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/thes"), tree.Current, tree.TermPages)
	wantIn(t, "c5's page", readFile(t, filepath.Join(terms, "c5.html")), "fifth concept")
	wantIn(t, "c5's Turtle", readFile(t, filepath.Join(terms, "c5.ttl")), "fifth concept")
	for _, c := range []string{"c60", "c69"} {
		wantIn(t, c+"'s page (narrower than c5)", readFile(t, filepath.Join(terms, c+".html")), "fifth concept")
	}
	handler, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	defer handler.Close()
	for _, c := range []string{"c5", "c60", "c69", "c0", "c4", "c6", "c50", "c70", "c599", "c9999"} {
		file := filepath.Join(terms, c+".html")
		static := readFile(t, file)
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodGet, "/org/open/thes/"+c, nil)
		r.Header.Set("Accept", "text/html")
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		if w.Code != 200 || w.Body.String() != static {
			t.Errorf("%s: the page in place is not the handler's (%d):\n%.400s\n---\n%.400s", c, w.Code, static, w.Body.String())
		}
	}
}

// TestTermPagesNeighboursOfAChange: what a page shows of its neighbours follows them without every term being
// described. B's new label reaches A's page (A links B) and C's (C is B's subject); a property's new label reaches
// every page with a statement of it; a change of the statements of a term reached through a blank node makes the
// job describe every term, as the rule cannot follow it.
func TestTermPagesNeighboursOfAChange(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	doc := func(b, rel, restriction string) string {
		return `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<A> rdfs:label "A"@en ; rdfs:seeAlso <B> .
<B> rdfs:label "` + b + `"@en .
<C> rdfs:label "C"@en ; <rel> <B> .
<D> rdfs:label "D"@en ; <rel> <E> .
<E> rdfs:label "E"@en .
<F> rdfs:label "F"@en .
<G> rdfs:label "G"@en ; rdfs:subClassOf [ rdfs:seeAlso <H> ] .
<H> rdfs:label "` + restriction + `"@en .
<rel> rdfs:label "` + rel + `"@en .
`
	}
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", doc("B first", "related first", "H"))
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base, HTML: &pipeline.HTML{TermPages: true}})
	if err != nil {
		t.Fatal(err)
	}
	terms := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/core"), tree.Current, tree.TermPages)
	step := func(what, content string) pipeline.TermPageStats {
		t.Helper()
		if content != "" {
			h.Update(t, pub.ID, ".ttl", content)
		}
		if _, err := p.BuildAll(ctx, nil); err != nil {
			t.Fatal(err)
		}
		res, err := p.WaitTermPages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %+v", what, res)
		return res
	}
	if res := step("first version", ""); res.Rendered != 9 {
		t.Fatalf("first version: %+v, want 9 rendered", res)
	}
	// B's label: B, A (seeAlso B) and C (rel B) show it; D, E, F, G, H and rel do not.
	if res := step("B's label", doc("B second", "related first", "H")); res.Described != 3 || res.Rendered != 3 {
		t.Errorf("B's label changed: %+v, want B, A and C described and rendered", res)
	}
	for _, c := range []string{"A", "B", "C"} {
		wantIn(t, c+"'s page", readFile(t, filepath.Join(terms, c+".html")), "B second")
	}
	// rel's label: rel's own page, C's and D's (their statements' predicate), B's and E's (the predicate of a
	// statement pointing at them).
	if res := step("rel's label", doc("B second", "related second", "H")); res.Described != 5 || res.Rendered != 5 {
		t.Errorf("rel's label changed: %+v, want rel, C, D, B and E described and rendered", res)
	}
	for _, c := range []string{"B", "C", "D", "E", "rel"} {
		wantIn(t, c+"'s page", readFile(t, filepath.Join(terms, c+".html")), "related second")
	}
	// H's label shows on G's page through G's blank node: every term is described, G's page and H's rendered.
	if res := step("H's label", doc("B second", "related second", "H second")); res.Described != 9 || res.Rendered != 2 {
		t.Errorf("H's label changed: %+v, want all 9 described, G and H rendered", res)
	}
	wantIn(t, "G's page", readFile(t, filepath.Join(terms, "G.html")), "H second")
}
