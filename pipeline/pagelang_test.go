package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

// variantKeys lists the language keys of the page variants in dir.
func variantKeys(t *testing.T, dir string) []string {
	t.Helper()
	keys, err := tree.Variants(dir)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	fa, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// TestPageLanguageVariants: the W3C Organization Ontology (labels and definitions in en, es, fr, it, ja) gets its
// publication and version pages once per language besides the hub's (index.<key>.html; the hub's key links the
// page in the hub's language), each with every field in its language and a switch linking the others by ?lang=;
// FOAF (English only) gets one page. The latest folder has pages of its own, not the version's. Rendering again in
// another hub language replaces the variants and removes those no longer wanted.
func TestPageLanguageVariants(t *testing.T) {
	h := pipelinetest.New(t)
	for _, v := range []string{"org", "foaf"} {
		data, err := os.ReadFile(filepath.Join("..", "content", "vocab", "testdata", v+".nq"))
		if err != nil {
			t.Fatal(err)
		}
		h.Publish(t, h.Open.ID, v, ".nq", string(data))
	}
	out := t.TempDir()
	build := func(lang string) {
		t.Helper()
		o := &pipeline.HTML{Title: "Test Hub"}
		if err := o.SetLanguage(lang); err != nil {
			t.Fatal(err)
		}
		p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base, HTML: o})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.BuildAll(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	meta := tree.PubDir(tree.Root(out, false), "/org/open/org")
	cur := filepath.Join(meta, tree.Current)
	build("de") // a hub language the data does not have: its page is the English fallback, linked as "de"
	vers, err := os.ReadDir(filepath.Join(meta, tree.Versions))
	if err != nil || len(vers) != 1 {
		t.Fatalf("version folders %v: %v", vers, err)
	}
	vdir := filepath.Join(meta, tree.Versions, vers[0].Name())
	for _, dir := range []string{cur, vdir} {
		if got, want := variantKeys(t, dir), []string{"de", "en", "es", "fr", "it", "ja"}; !slices.Equal(got, want) {
			t.Errorf("%s: variants %v, want %v", dir, got, want)
		}
		if !sameFile(t, filepath.Join(dir, tree.PageHTML), filepath.Join(dir, tree.PageVariant("de"))) {
			t.Errorf("%s: index.de.html is not the page in the hub's language", dir)
		}
	}
	if sameFile(t, filepath.Join(cur, tree.PageVariant("fr")), filepath.Join(vdir, tree.PageVariant("fr"))) {
		t.Error("the latest folder links the version's French page, which does not list the versions")
	}

	build("en")
	for _, dir := range []string{cur, vdir} {
		if got, want := variantKeys(t, dir), []string{"en", "es", "fr", "it", "ja"}; !slices.Equal(got, want) {
			t.Errorf("%s: variants after switching the hub to en %v, want %v", dir, got, want)
		}
		if !sameFile(t, filepath.Join(dir, tree.PageHTML), filepath.Join(dir, tree.PageVariant("en"))) {
			t.Errorf("%s: index.en.html is not the page in the hub's language", dir)
		}
	}
	fr := readFile(t, filepath.Join(cur, tree.PageVariant("fr")))
	wantIn(t, "the French page", fr,
		`<h1 id="title" lang="fr">Ontologie des organisations</h1>`,
		`Représente un groupe de personnes organisées`,
		`<a href="/org/open/org?lang=fr" hreflang="fr" lang="fr" aria-current="true">fr</a>`,
		`<a href="/org/open/org?lang=en" hreflang="en" lang="en">en</a>`,
		`<a href="/org/open/org?lang=ja" hreflang="ja" lang="ja">ja</a>`,
		`<h2 id="versions">Versions</h2>`)
	if strings.Contains(fr, "Represents a collection of people") {
		t.Error("the French page shows the English definition of org:Organization")
	}
	en := readFile(t, filepath.Join(cur, tree.PageHTML))
	wantIn(t, "the English page", en, `<h1 id="title" lang="en">Core organization ontology</h1>`,
		`<a href="/org/open/org?lang=en" hreflang="en" lang="en" aria-current="true">en</a>`)
	vfr := readFile(t, filepath.Join(vdir, tree.PageVariant("fr")))
	wantIn(t, "the version's French page", vfr, `lang="fr">Ontologie des organisations`,
		`href="/org/open/org/versions/`+vers[0].Name()+`?lang=es"`)

	build("it")
	it := readFile(t, filepath.Join(cur, tree.PageHTML))
	wantIn(t, "the page of a hub in Italian", it, `<h1 id="title" lang="it">Ontologia delle organizzazioni</h1>`)
	if got := variantKeys(t, cur); !slices.Contains(got, "en") || !sameFile(t, filepath.Join(cur, tree.PageHTML), filepath.Join(cur, tree.PageVariant("it"))) {
		t.Errorf("variants of a hub in Italian %v", got)
	}
	wantIn(t, "the English page of a hub in Italian", readFile(t, filepath.Join(cur, tree.PageVariant("en"))),
		`lang="en">Core organization ontology`)

	foaf := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/foaf"), tree.Current)
	if got := variantKeys(t, foaf); len(got) != 0 {
		t.Errorf("FOAF (English only) has page variants %v", got)
	}
	if strings.Contains(readFile(t, filepath.Join(foaf, tree.PageHTML)), `<nav class="langs"`) {
		t.Error("FOAF's page has a language switch")
	}
}

// TestSetLanguage refuses what is not a language tag with a page of its own.
func TestSetLanguage(t *testing.T) {
	for _, bad := range []string{"e", "x-private", "en_GB", "1a", "de;q=1", strings.Repeat("a", 9)} {
		if err := (&pipeline.HTML{}).SetLanguage(bad); err == nil {
			t.Errorf("SetLanguage(%q) accepted", bad)
		}
	}
	for _, good := range []string{"", "de", "pt-BR", "zh-Hant-TW"} {
		if err := (&pipeline.HTML{}).SetLanguage(good); err != nil {
			t.Errorf("SetLanguage(%q): %v", good, err)
		}
	}
}

// BenchmarkPageLanguages measures what the language pages cost: a first sync of the W3C Organization Ontology
// with its five languages (four pages besides the hub's, for the latest folder and the version), against the same
// ontology with every text in another language than English removed (one page each).
func BenchmarkPageLanguages(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "content", "vocab", "testdata", "org.nq"))
	if err != nil {
		b.Fatal(err)
	}
	var english strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(line, `"@`) || strings.Contains(line, `"@en `) {
			english.WriteString(line)
		}
	}
	for _, c := range []struct{ name, data string }{{"languages=5", string(data)}, {"languages=1", english.String()}} {
		b.Run(c.name, func(b *testing.B) {
			h := pipelinetest.New(b)
			h.Publish(b, h.Open.ID, "org", ".nq", c.data)
			cpu := conformance.CPUTime()
			for b.Loop() {
				out := b.TempDir()
				if _, err := newHTMLPipeline(b, h, out).BuildAll(context.Background(), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((conformance.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
