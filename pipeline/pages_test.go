package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

func newHTMLPipeline(t testing.TB, h *pipelinetest.Hub, out string, themes ...string) *pipeline.Pipeline {
	t.Helper()
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base,
		HTML: &pipeline.HTML{Title: "Test Hub", Themes: themes}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return string(b)
}

func wantIn(t *testing.T, what, page string, want ...string) {
	t.Helper()
	failed := false
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("%s lacks %q", what, w)
			failed = true
		}
	}
	if failed {
		t.Logf("%s:\n%s", what, page)
	}
}

// TestPagesOfEveryKind renders a hub with a visible and a hidden repository and reads every page the pipeline
// wrote: the publication's (latest), each version's, the hub's, the group's and the repository's.
func TestPagesOfEveryKind(t *testing.T) {
	h := pipelinetest.New(t)
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	pub = h.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	h.Publish(t, h.Closed.ID, "secret", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	if _, err := newHTMLPipeline(t, h, out).BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	old, cur := pub.Versions[0].Label, pub.Versions[1].Label
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/core")
	wantIn(t, "latest page", readFile(t, filepath.Join(pubDir, tree.Current, tree.PageHTML)),
		`<h1 id="title">core</h1>`, "about core", `<code id="uri">http://hub.example/org/open/core</code>`,
		`href="/org/open/core.ttl"`, `href="/org/open/core.nt"`, `href="/org/open/core.rdf"`, `href="/org/open/core.jsonld"`,
		`href="/org/open/core/void.ttl"`, `<form class="sparql" method="get" action="/org/open/core"`,
		`<dd id="triples">12</dd>`, "http://www.w3.org/2002/07/owl#Class", "<td>Thing</td>",
		`href="/org/open/core/versions/`+old+`"`, `href="/org/open/core/versions/`+cur+`"`,
		`<a href="/org/open/">open</a>`, `<a href="/org/">org</a>`, `<a href="/">Test Hub</a>`, "<style>")
	wantIn(t, "old version page", readFile(t, filepath.Join(pubDir, tree.Versions, old, tree.PageHTML)),
		"Version <strong>"+old+"</strong>", `href="/org/open/core">See the latest version`,
		`href="/org/open/core/versions/`+old+`.ttl"`, `action="/org/open/core/versions/`+old+`"`, `<dd id="triples">11</dd>`)
	pages := pipeline.PagesDir(out)
	hub := readFile(t, filepath.Join(pages, tree.PageHTML))
	wantIn(t, "hub page", hub, "<title>Test Hub</title>", `href="/org/"`, `href="/org/open/"`)
	wantIn(t, "group page", readFile(t, filepath.Join(pages, "org", tree.PageHTML)), "<h1>org</h1>", `href="/org/open/"`)
	wantIn(t, "repository page", readFile(t, filepath.Join(pages, "org", "open", tree.PageHTML)),
		"<h1>open</h1>", `href="/org/open/core"`, cur, "12")
	// Nothing of the hidden repository in the public pages: not its page, not its name in a listing.
	if _, err := os.Stat(filepath.Join(pages, "org", "closed")); !os.IsNotExist(err) {
		t.Errorf("hidden repository has a public page: %v", err)
	}
	for name, body := range snapshot(t, pages) {
		if strings.Contains(body, "closed") || strings.Contains(body, "secret") {
			t.Errorf("public page %s mentions the hidden repository", name)
		}
	}
	for name := range snapshot(t, tree.Root(out, false)) {
		if strings.Contains(name, "secret") || strings.Contains(name, ".tmp-") {
			t.Errorf("public tree holds %s", name)
		}
	}
	wantIn(t, "private page", readFile(t, filepath.Join(tree.PubDir(tree.Root(out, true), "/org/closed/secret"), tree.Current, tree.PageHTML)),
		`<h1 id="title">secret</h1>`)
}

// TestPagesSameBytes renders the same commits twice: every page, index pages included, must be byte-identical.
func TestPagesSameBytes(t *testing.T) {
	h := pipelinetest.New(t)
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	a, b := t.TempDir(), t.TempDir()
	for _, out := range []string{a, b} {
		if _, err := newHTMLPipeline(t, h, out).BuildAll(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	sa, sb := snapshot(t, a), snapshot(t, b)
	n := 0
	for k, v := range sa {
		if strings.HasSuffix(k, tree.PageHTML) {
			n++
		}
		if sb[k] != v {
			t.Errorf("%s differs between two renders of the same commits", k)
		}
	}
	if n < 5 {
		t.Errorf("only %d pages rendered", n)
	}
	if len(sa) != len(sb) {
		t.Errorf("%d files vs %d", len(sa), len(sb))
	}
}

// TestPagesFollowVisibility hides a repository: its page and its line on the group and hub pages go, and so do
// the group's and hub's mentions once nothing visible is left in the group.
func TestPagesFollowVisibility(t *testing.T) {
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p := newHTMLPipeline(t, h, out)
	ctx := context.Background()
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	repoPage := filepath.Join(pipeline.PagesDir(out), "org", "open", tree.PageHTML)
	if _, err := os.Stat(repoPage); err != nil {
		t.Fatalf("no repository page: %v", err)
	}
	hidden := false
	if _, err := h.Store.UpdateRepository(ctx, h.Admin, h.Open.ID, catalog.RepositoryPatch{Visible: &hidden}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(repoPage); !os.IsNotExist(err) {
		t.Errorf("hidden repository's page still public: %v", err)
	}
	if _, err := os.Stat(filepath.Join(pipeline.PagesDir(out), "org", tree.PageHTML)); !os.IsNotExist(err) {
		t.Errorf("page of a group with nothing public left still there: %v", err)
	}
	if hub := readFile(t, filepath.Join(pipeline.PagesDir(out), tree.PageHTML)); strings.Contains(hub, "/org/") {
		t.Errorf("hub still lists the group:\n%s", hub)
	}
	if _, err := os.Stat(filepath.Join(tree.PubDir(tree.Root(out, true), "/org/open/core"), tree.Current, tree.PageHTML)); err != nil {
		t.Errorf("publication page not in the private tree: %v", err)
	}
}

// TestPagesThemeOverride: a publisher's layout replaces the default one, and a broken one fails the sync without
// publishing anything (the folders stay staged and are removed).
func TestPagesThemeOverride(t *testing.T) {
	h := pipelinetest.New(t)
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	over := t.TempDir()
	layout := filepath.Join(over, "layouts", "publication.html")
	if err := os.MkdirAll(filepath.Dir(layout), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(layout, []byte(`{{ define "main" }}<h1>Custom {{ .Title }}</h1>{{ end }}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := newHTMLPipeline(t, h, out, over).BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/core")
	wantIn(t, "overridden page", readFile(t, filepath.Join(pubDir, tree.Current, tree.PageHTML)), "<h1>Custom core</h1>")

	if err := os.WriteFile(layout, []byte(`{{ define "main" }}{{ .Nope.Nope }}{{ end }}`), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	p := newHTMLPipeline(t, h, broken, over)
	if _, err := p.SyncRepository(context.Background(), h.Open.ID); err == nil {
		t.Fatal("a broken layout did not fail the sync")
	}
	if !p.Pending(pub.ID) {
		t.Error("a publication whose sync failed is not pending")
	}
	for name := range snapshot(t, tree.Root(broken, false)) {
		t.Errorf("a failed sync left %s in the public tree", name)
	}
}

// BenchmarkSyncPages measures what pages add to a sync, against the same sync without pages in the same run:
// "full" renders a repository of 10 publications from scratch (20 publication pages and 3 index pages, one Hugo
// build per repository), "update" is the everyday case of one new version (its page, the latest page and the
// hub, group and repository pages: 5 pages in one build).
func BenchmarkSyncPages(b *testing.B) {
	ctx := context.Background()
	for _, withHTML := range []bool{false, true} {
		name := map[bool]string{false: "no-pages", true: "pages"}[withHTML]
		newP := func(h *pipelinetest.Hub, out string) *pipeline.Pipeline {
			if withHTML {
				return newHTMLPipeline(b, h, out)
			}
			p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base})
			if err != nil {
				b.Fatal(err)
			}
			return p
		}
		b.Run("full/"+name, func(b *testing.B) {
			h := pipelinetest.New(b)
			for i := range 10 {
				h.Publish(b, h.Open.ID, "p"+string(rune('a'+i)), ".ttl", pipelinetest.Vocab)
			}
			var cpu time.Duration
			for b.Loop() {
				p := newP(h, b.TempDir())
				cpu0 := conformance.CPUTime()
				if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
					b.Fatal(err)
				}
				cpu += conformance.CPUTime() - cpu0
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/sync")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/sync")
		})
		b.Run("update/"+name, func(b *testing.B) {
			h := pipelinetest.New(b)
			pub := h.Publish(b, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
			p := newP(h, b.TempDir())
			if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
				b.Fatal(err)
			}
			i := 0
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				i++
				h.Update(b, pub.ID, ".ttl", pipelinetest.Vocab+"<n"+strings.Repeat("x", i)+"> a <Thing> .\n")
				b.StartTimer()
				cpu0 := conformance.CPUTime()
				if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
					b.Fatal(err)
				}
				cpu += conformance.CPUTime() - cpu0
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/sync")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/sync")
		})
	}
}

// TestPagesFollowTheTheme: pages rendered before a publisher changed the theme are rendered again, those of old
// versions included, without any new commit.
func TestPagesFollowTheTheme(t *testing.T) {
	h := pipelinetest.New(t)
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	pub = h.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	out := t.TempDir()
	ctx := context.Background()
	if _, err := newHTMLPipeline(t, h, out).SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	over := t.TempDir()
	for name, body := range map[string]string{
		"layouts/publication.html": `{{ define "main" }}<h1>Latest {{ .Title }}</h1>{{ end }}`,
		"layouts/version.html":     `{{ define "main" }}<h1>Old {{ .Title }}</h1>{{ end }}`,
	} {
		f := filepath.Join(over, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := newHTMLPipeline(t, h, out, over)
	res, err := p.SyncRepository(ctx, h.Open.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rendered) != 1 {
		t.Errorf("rendered %v after the theme changed", res.Rendered)
	}
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/core")
	wantIn(t, "latest page", readFile(t, filepath.Join(pubDir, tree.Current, tree.PageHTML)), "<h1>Latest core</h1>")
	old := pub.Versions[0].Label
	wantIn(t, "old version page", readFile(t, filepath.Join(pubDir, tree.Versions, old, tree.PageHTML)), "<h1>Old core "+old+"</h1>")
	// Same theme again: nothing to do.
	if res, err := p.SyncRepository(ctx, h.Open.ID); err != nil || len(res.Rendered) != 0 {
		t.Errorf("second sync with the same theme rendered %v (%v)", res.Rendered, err)
	}
}

// TestPagesOfADeletedRepository: its page goes, and the group page lists only what is left.
func TestPagesOfADeletedRepository(t *testing.T) {
	h := pipelinetest.New(t)
	ctx := context.Background()
	_, err := h.Store.CreateRepository(ctx, h.Admin, model.Repository{Name: "other", ParentID: h.Open.ParentID, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p := newHTMLPipeline(t, h, out)
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	group := filepath.Join(pipeline.PagesDir(out), "org", tree.PageHTML)
	wantIn(t, "group page", readFile(t, group), `href="/org/open/"`, `href="/org/other/"`)
	if _, err := h.Store.DeleteRepository(ctx, h.Admin, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(pipeline.PagesDir(out), "org", "open", tree.PageHTML)); !os.IsNotExist(err) {
		t.Errorf("deleted repository's page still there: %v", err)
	}
	page := readFile(t, group)
	wantIn(t, "group page after the deletion", page, `href="/org/other/"`)
	if strings.Contains(page, `href="/org/open/"`) {
		t.Errorf("group page still lists the deleted repository:\n%s", page)
	}
}

// TestRenderHub: a hub with nothing published yet still has a front page, listing only what is visible.
func TestRenderHub(t *testing.T) {
	h := pipelinetest.New(t)
	out := t.TempDir()
	if err := newHTMLPipeline(t, h, out).RenderHub(context.Background()); err != nil {
		t.Fatal(err)
	}
	hub := readFile(t, filepath.Join(pipeline.PagesDir(out), tree.PageHTML))
	wantIn(t, "hub page", hub, "<title>Test Hub</title>", `href="/org/open/"`)
	if strings.Contains(hub, "closed") {
		t.Errorf("hub page lists the hidden repository:\n%s", hub)
	}
}

// TestTermDocumentation: the publication page documents the terms the data defines, each at an anchor named by
// its local name, with label, hierarchy and a link to its resource page; version pages link their neighbours,
// and the latest version's page does not send the reader to "the latest version".
func TestTermDocumentation(t *testing.T) {
	h := pipelinetest.New(t)
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	pub = h.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+`<Bridge> a <http://www.w3.org/2002/07/owl#Class> ;
  <http://www.w3.org/2000/01/rdf-schema#subClassOf> <Other> ;
  <http://www.w3.org/2000/01/rdf-schema#comment> "Spans a gap."@en, "Overspant een kloof."@nl .
<#Tunnel> a <http://www.w3.org/2002/07/owl#Class> ; <http://www.w3.org/2000/01/rdf-schema#label> "Tunnel"@en .
<> a <http://www.w3.org/2002/07/owl#Ontology> ; <http://purl.org/dc/terms/title> "Core ontology"@en ;
  <http://purl.org/dc/terms/creator> [ <http://xmlns.com/foaf/0.1/name> "Ada" ] ;
  <http://purl.org/dc/terms/license> <https://creativecommons.org/licenses/by/4.0/> ;
  <http://www.w3.org/2002/07/owl#versionInfo> "2.0" .
`)
	out := t.TempDir()
	if _, err := newHTMLPipeline(t, h, out).BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	old, cur := pub.Versions[0].Label, pub.Versions[1].Label
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/core")
	latest := readFile(t, filepath.Join(pubDir, tree.Current, tree.PageHTML))
	wantIn(t, "latest page", latest,
		`<h1 id="title" lang="en">Core ontology</h1>`, `Ada`, `href="https://creativecommons.org/licenses/by/4.0/"`,
		`<article class="term" id="Bridge"`, `<article class="term" id="Tunnel"`, `<article class="term" id="Thing"`,
		`<span lang="en">Spans a gap.</span>`, `href="/org/open/core/Bridge"`, `href="/org/open/core#Tunnel" title="http://hub.example/org/open/core/#Tunnel">IRI</a>`,
		`<dt>Subclass of</dt><dd><ul class="inline"><li><a href="#Other"`, `<dt>Superclass of</dt><dd><ul class="inline"><li><a href="#Bridge"`,
		`<a href="#Bridge" title="http://hub.example/org/open/core/Bridge">Bridge</a>`)
	if strings.Contains(latest, "Overspant") {
		t.Error("the English page shows a Dutch comment")
	}
	wantIn(t, "the Dutch page", readFile(t, filepath.Join(pubDir, tree.Current, tree.PageVariant("nl"))),
		`<span lang="nl">Overspant een kloof.</span>`, `<a href="/org/open/core?lang=nl" hreflang="nl" lang="nl" aria-current="true">nl</a>`)
	curPage := readFile(t, filepath.Join(pubDir, tree.Versions, cur, tree.PageHTML))
	wantIn(t, "latest version's page", curPage, "the latest version", `rel="prev" href="/org/open/core/versions/`+old+`"`,
		"/api/v3/publications.delta?version1=")
	if strings.Contains(curPage, "See the latest version") {
		t.Error("the latest version's page says: See the latest version")
	}
	oldPage := readFile(t, filepath.Join(pubDir, tree.Versions, old, tree.PageHTML))
	wantIn(t, "old version page", oldPage, "See the latest version", `rel="next" href="/org/open/core/versions/`+cur+`"`,
		`<article class="term" id="Thing"`)
	if strings.Contains(oldPage, `id="Bridge"`) {
		t.Error("the old version documents a term it did not define")
	}
}
