package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

// bigVocab is a vocabulary whose terms.json is above heavyAbove, with a marker in its labels.
func bigVocab(marker string) string {
	var b strings.Builder
	b.WriteString("@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")
	for i := range 4000 {
		fmt.Fprintf(&b, "<C%d> a owl:Class ; rdfs:label \"%s class %d\"@en ; rdfs:comment \"The class number %d of a large vocabulary.\"@en .\n", i, marker, i, i)
	}
	return b.String()
}

func pageHTML(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, tree.PageHTML))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// laterPipeline is a pipeline with pages into a new folder (returned) and a background worker that has not run yet
// (its queue).
func laterPipeline(t *testing.T, h *pipelinetest.Hub) (*Pipeline, *gzipQueue, string) {
	t.Helper()
	out := t.TempDir()
	p, err := New(Options{Store: h.Store, Out: out, BaseURL: "http://hub.example", HTML: &HTML{}})
	if err != nil {
		t.Fatal(err)
	}
	q := newGzipQueue()
	p.gz.Store(q)
	return p, q, out
}

// TestLargeDocumentationAfterTheSwitch: with Run's background worker, a version whose page documents a large
// vocabulary goes live with a page of its own without the documentation; the documented page replaces it after
// the switch, in the version folder and the latest folder. An older background render never replaces the page a
// newer sync queued (a neighbour's new link), and a stop before the documented pages are written renders them at
// the next sync.
func TestLargeDocumentationAfterTheSwitch(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	p, q, out := laterPipeline(t, h)
	pub := h.Publish(t, h.Open.ID, "big", ".ttl", bigVocab("first"))
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	meta := tree.PubDir(tree.Root(out, false), "/org/open/big")
	cur := filepath.Join(meta, tree.Current)
	if !heavyDoc(cur) {
		t.Fatal("the vocabulary is not large enough for the test")
	}
	pg := readPage(t, cur)
	v1 := filepath.Join(meta, tree.Versions, filepath.Base(pg.Version.URL))
	for _, dir := range []string{cur, v1} {
		page := pageHTML(t, dir)
		if strings.Contains(page, "first class 17") || !strings.Contains(page, pg.Version.Label) {
			t.Fatalf("%s: the page before the switch documents the terms, or lacks its version", dir)
		}
	}
	if p.Pending(pub.ID) {
		t.Fatal("not live")
	}
	if st := p.loadState(h.Open.ID); st.Pages != "" {
		t.Errorf("theme stamp %q saved while pages wait", st.Pages)
	}
	first := q.takePages() // rendered last, below: the worker is slow

	// A stop now: another process's next sync documents them.
	other := t.TempDir()
	if err := os.CopyFS(other, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
	p2, err := New(Options{Store: h.Store, Out: other, BaseURL: "http://hub.example", HTML: &HTML{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if page := pageHTML(t, filepath.Join(tree.PubDir(tree.Root(other, false), "/org/open/big"), tree.Current)); !strings.Contains(page, "first class 17") {
		t.Error("the next sync after a stop did not document the page")
	}

	// A second version before the worker ran: the first version's page is queued again (its new neighbour).
	h.Update(t, pub.ID, ".ttl", bigVocab("second"))
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	pg2 := readPage(t, cur)
	v2 := filepath.Join(meta, tree.Versions, filepath.Base(pg2.Version.URL))
	if strings.Contains(pageHTML(t, cur), "second class 17") {
		t.Fatal("the second version's latest page is documented before the switch")
	}
	p.renderLater(ctx, q.takePages())
	p.renderLater(ctx, first)
	for dir, want := range map[string]string{cur: "second class 17", v2: "second class 17", v1: "first class 17"} {
		if page := pageHTML(t, dir); !strings.Contains(page, want) {
			t.Errorf("%s: not documented (%q) after the worker ran", dir, want)
		}
	}
	// The pages listing every class (4 000, 1 000 a page: html.DefaultTermsPerPage) are placed with the page.
	for dir, marker := range map[string]string{cur: "second", v1: "first"} {
		var all strings.Builder
		for n := 1; n <= 4; n++ {
			b, err := os.ReadFile(filepath.Join(dir, tree.SectionPage("class", n)))
			if err != nil {
				t.Fatal(err)
			}
			all.Write(b)
		}
		for _, i := range []int{0, 17, 2999, 3999} {
			if !strings.Contains(all.String(), fmt.Sprintf(">%s class %d<", marker, i)) {
				t.Errorf("%s: class %d is on none of its section's pages", dir, i)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, tree.SectionPage("class", 5))); err == nil {
			t.Errorf("%s: a fifth page of classes", dir)
		}
		// And the labels index of the filter, with its .gz sibling.
		ix, err := os.ReadFile(filepath.Join(dir, tree.LabelsIndex("")))
		if err != nil || !strings.Contains(string(ix), `["`+marker+` class 3999",`) {
			t.Errorf("%s: labels index %v %.200s", dir, err, ix)
		}
		if _, err := os.Stat(filepath.Join(dir, tree.LabelsIndex("")+".gz")); err != nil {
			t.Error(err)
		}
	}
	if page := pageHTML(t, v1); !strings.Contains(page, pg2.Version.URL) {
		t.Error("the first version's page lost its link to the second: an older render replaced the newer one")
	}
	if st := p.loadState(h.Open.ID); st.Pages == "" {
		t.Error("theme stamp still empty once every page is documented")
	}
	if len(p.pageGen) != 0 || len(p.laterRepos) != 0 {
		t.Errorf("left behind: %v %v", p.pageGen, p.laterRepos)
	}
}

// TestLargeDocumentationLanguagesAfterTheSwitch: a large vocabulary labelled in English and French goes live with a
// page without documentation and without language variants; the background render adds the documented French page
// and the hub language's link beside the documented page, in the latest and the version folder.
func TestLargeDocumentationLanguagesAfterTheSwitch(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	p, q, out := laterPipeline(t, h)
	h.Publish(t, h.Open.ID, "big", ".ttl", bigVocab("big")+"<C17> rdfs:label \"abeille dix-sept\"@fr .\n")
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	meta := tree.PubDir(tree.Root(out, false), "/org/open/big")
	cur := filepath.Join(meta, tree.Current)
	v1 := filepath.Join(meta, tree.Versions, filepath.Base(readPage(t, cur).Version.URL))
	if !heavyDoc(cur) {
		t.Fatal("the vocabulary is not large enough for the test")
	}
	variants := func(dir string) []string {
		keys, err := tree.Variants(dir)
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	for _, dir := range []string{cur, v1} {
		if got := variants(dir); len(got) != 0 {
			t.Errorf("%s: language pages %v before the documentation", dir, got)
		}
	}
	p.renderLater(ctx, q.takePages())
	for _, dir := range []string{cur, v1} {
		if got := variants(dir); fmt.Sprint(got) != "[en fr]" {
			t.Errorf("%s: language pages %v after the background render, want [en fr]", dir, got)
			continue
		}
		fr, err := os.ReadFile(filepath.Join(dir, tree.PageVariant("fr")))
		if err != nil || !strings.Contains(string(fr), `<span lang="fr">abeille dix-sept</span>`) {
			t.Errorf("%s: the French page lacks the French label (%v)", dir, err)
		}
		a, _ := os.Stat(filepath.Join(dir, tree.PageHTML))
		b, _ := os.Stat(filepath.Join(dir, tree.PageVariant("en")))
		if a == nil || b == nil || !os.SameFile(a, b) {
			t.Errorf("%s: index.en.html is not the documented page", dir)
		}
	}
}

// TestPlaceSectionPages: the pages of the sections' full listings rendered into the scratch folder replace the
// folder's, and the pages the page no longer has (a repage with fewer terms, or none) are removed; the language
// variants are left as they were.
func TestPlaceSectionPages(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	for _, n := range []string{tree.SectionPage("class", 1), tree.SectionPage("class", 3), tree.SectionPage("shape", 1), tree.PageHTML,
		tree.LabelsIndex("de"), tree.LabelsIndex("de") + ".gz", tree.LabelsIndex(""), tree.SectionPageIn("class", 1, "de")} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"s/0/class/1/" + tree.PageHTML, "s/0/class/2/" + tree.PageHTML, "s/0/concept/1/" + tree.PageHTML,
		labelsOut(0, "") + "/labels.json", labelsOut(0, "") + "/labels.json.gz", labelsOut(0, "fr") + "/labels.json",
		labelsOut(0, "fr") + "/labels.json.gz", "l/0/fr/" + tree.PageHTML, "r/0/fr/class/2/" + tree.PageHTML} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(scratch, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(scratch, p), []byte("new "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mod := time.Unix(1_700_000_000, 0)
	if err := placeVariants(scratch, 0, dir, []string{"fr"}, "en", mod); err != nil {
		t.Fatal(err)
	}
	page := func(p string) string { return "new " + p + "/" + tree.PageHTML }
	want := map[string]string{tree.SectionPage("class", 1): page("s/0/class/1"), tree.SectionPage("class", 2): page("s/0/class/2"),
		tree.SectionPage("concept", 1): page("s/0/concept/1"), tree.PageHTML: "old", tree.PageVariant("en"): "old",
		tree.PageVariant("fr"): page("l/0/fr"), tree.SectionPageIn("class", 2, "fr"): page("r/0/fr/class/2"),
		tree.LabelsIndex(""): "new x/0/-hub/labels.json", tree.LabelsIndex("") + ".gz": "new x/0/-hub/labels.json.gz",
		tree.LabelsIndex("fr"): "new x/0/fr/labels.json", tree.LabelsIndex("fr") + ".gz": "new x/0/fr/labels.json.gz"}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(want) {
		t.Errorf("%d files, want %d: %v", len(ents), len(want), ents)
	}
	for n, body := range want {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil || string(b) != body {
			t.Errorf("%s: %q %v, want %q", n, b, err, body)
		}
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && body != "old" && !fi.ModTime().Equal(mod) {
			t.Errorf("%s: mtime %v", n, fi.ModTime())
		}
	}
	// A page that no longer needs a listing keeps none.
	if err := placeVariants(t.TempDir(), 0, dir, nil, "", mod); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left: %v", ents)
	}
}

// TestLinkInPlace: an unchanged term's files are linked straight into a new folder with the version's time; a
// folder that has one of them already (a resumed job) gets none, and a source that lost a file gives way to the
// next.
func TestLinkInPlace(t *testing.T) {
	exts := []string{".html", ".ttl"}
	lost, full, out := t.TempDir(), t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(lost, "A.html"), filepath.Join(full, "A.html"), filepath.Join(full, "A.ttl")} {
		if err := os.WriteFile(f, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sources := []termSource{{lost, map[string]string{"A": "s1"}}, {full, map[string]string{"A": "s1"}}}
	mod := time.Unix(1_700_000_000, 0)
	if ok, err := linkInPlace(sources, out, "A", "s2", exts, mod); ok || err != nil {
		t.Fatalf("another fingerprint: %v %v", ok, err)
	}
	if ok, err := linkInPlace(sources, out, "A", "s1", exts, mod); !ok || err != nil {
		t.Fatalf("linked: %v %v", ok, err)
	}
	for _, ext := range exts {
		fi, err := os.Stat(filepath.Join(out, "A"+ext))
		if err != nil || !fi.ModTime().Equal(mod) {
			t.Fatalf("A%s: %v %v", ext, fi, err)
		}
		if b, _ := os.ReadFile(filepath.Join(out, "A"+ext)); string(b) != filepath.Join(full, "A"+ext) {
			t.Errorf("A%s is %q", ext, b)
		}
	}
	resumed := t.TempDir()
	if err := os.WriteFile(filepath.Join(resumed, "A.ttl"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := linkInPlace(sources, resumed, "A", "s1", exts, mod); ok || err != nil {
		t.Fatalf("resumed: %v %v", ok, err)
	}
	if ents, _ := os.ReadDir(resumed); len(ents) != 1 {
		t.Errorf("resumed folder holds %v", ents)
	}
}

// TestTermPagesWaitForTheirTerms: the term pages of a version whose terms.json comes after the switch (a large
// upload with Run's background worker) start once it is there, and each is rendered once. They used to start at
// the switch, without the terms' documentation, and be restarted when terms.json was installed: a 300 000-term
// push rendered 1 000 pages, stopped (`complete=false`), and began again.
func TestTermPagesWaitForTheirTerms(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	out := t.TempDir()
	p, err := New(Options{Store: h.Store, Out: out, BaseURL: "http://hub.example", HTML: &HTML{TermPages: true}})
	if err != nil {
		t.Fatal(err)
	}
	q := newGzipQueue()
	p.gz.Store(q)
	// Five terms of the publication, and statements about others' resources (no pages) above codec.StreamAbove.
	var b strings.Builder
	b.WriteString("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n")
	for i := range 5 {
		fmt.Fprintf(&b, "<T%d> a owl:Class ; rdfs:label \"term %d\"@en ; rdfs:comment \"The term number %d.\"@en .\n", i, i, i)
	}
	for i := 0; b.Len() <= 4<<20+1000; i++ {
		fmt.Fprintf(&b, "<http://other.example/r%d> rdfs:comment \"a statement about a resource of another site, number %d\" .\n", i, i)
	}
	h.Publish(t, h.Open.ID, "big", ".ttl", b.String())
	cur := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/big"), tree.Current)
	var early []string
	p.terms.hook = func() {
		if termsPending(cur) {
			early = append(early, "a Hugo build of term pages before terms.json")
		}
	}
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if !termsPending(cur) {
		t.Fatal("the version got its terms.json before the switch: the test needs a larger upload")
	}
	before, err := p.WaitTermPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	jobs := q.takeTerms() // what the background worker does next
	if len(jobs) != 1 {
		t.Fatalf("%d terms jobs queued, want 1", len(jobs))
	}
	if _, err := p.writeLaterTerms(ctx, jobs[0], true); err != nil {
		t.Fatal(err)
	}
	after, err := p.WaitTermPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(early) > 0 || before.Rendered != 0 {
		t.Errorf("%d pages rendered before terms.json was there (%v)", before.Rendered, early)
	}
	if after.Rendered != 5 || after.Terms != 5 {
		t.Errorf("after terms.json: %+v, want the 5 terms rendered once", after)
	}
	page, err := os.ReadFile(filepath.Join(cur, tree.TermPages, "T3.html"))
	if err != nil || !strings.Contains(string(page), "The term number 3.") {
		t.Errorf("T3's page: %v\n%.400s", err, page)
	}
}
