package server_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/api/server"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
)

// The SPARQL endpoints query the index files the pipeline rendered, for public and private publications alike.
// To tell where an answer came from, the rendered index files are replaced by indexes whose label differs from
// the store's: the answer shows the file's. A page rendered from the document read with another base IRI (whose
// terms would differ), and a version the tree does not hold, are answered from the store instead.
func TestSPARQLReadsRenderedIndex(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	out := t.TempDir()
	pipe, err := pipeline.New(pipeline.Options{Store: f.st, Out: out, BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipe.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cfg := f.cfg
	cfg.Tree = out
	label := func(key string) string {
		t.Helper()
		q := url.QueryEscape(`SELECT ?o { ?s <http://example.org/label> ?o }`)
		res := f.do(request{method: "GET", path: f.path("/api/v3/publications/{" + key + ".pub}/sparql?query=" + q), as: "viewer",
			accept: "text/csv"})
		if res.code != 200 {
			t.Fatalf("%s: %d %s", key, res.code, res.body)
		}
		return strings.TrimSpace(strings.TrimPrefix(string(res.body), "o\r\n"))
	}
	f.srv = server.New(cfg)
	for _, key := range []string{"vis", "hid"} {
		if got := label(key); got != "A" {
			t.Errorf("%s from the rendered tree: %q, want A", key, got)
		}
	}

	// Replace each version's index with one whose label says where it came from.
	var pages []string
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == tree.PageJSON && filepath.Base(filepath.Dir(filepath.Dir(p))) == tree.Versions {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil || len(pages) != 2 {
		t.Fatalf("version pages %v, %v", pages, err)
	}
	for _, p := range pages {
		var page tree.Page
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &page); err != nil || page.Base != page.URI+"/" {
			t.Fatalf("%s: base %q for URI %q (%v)", p, page.Base, page.URI, err)
		}
		bl := index.NewBuilder()
		if err := bl.Add(rdf.Triple(rdf.IRI(page.Base+"Thing"), rdf.IRI("http://example.org/label"), rdf.String("from the file"))); err != nil {
			t.Fatal(err)
		}
		if err := bl.Build().Save(filepath.Join(filepath.Dir(p), tree.Index)); err != nil {
			t.Fatal(err)
		}
	}
	f.srv = server.New(cfg)
	for _, key := range []string{"vis", "hid"} {
		if got := label(key); got != "from the file" {
			t.Errorf("%s: %q, want the rendered index's answer", key, got)
		}
	}

	// Another base IRI in the page: the file's terms are not the API's, so the store answers.
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		var page map[string]any
		_ = json.Unmarshal(b, &page)
		page["base"] = "https://elsewhere.example/"
		b, _ = json.Marshal(page)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.srv = server.New(cfg)
	for _, key := range []string{"vis", "hid"} {
		if got := label(key); got != "A" {
			t.Errorf("%s rendered under another base: %q, want the store's A", key, got)
		}
	}

	// A tree without the publication (not rendered yet): the store answers.
	cfg.Tree = t.TempDir()
	f.srv = server.New(cfg)
	if got := label("vis"); got != "A" {
		t.Errorf("without a rendering: %q, want A", got)
	}
}

// The API's endpoint and the direct URLs share one describe.Indexes: a publication queried through both (its
// latest version, whose folder hard-links the version's index file) is mapped once. Each query answers the same.
func TestSPARQLSharesIndexesWithSite(t *testing.T) {
	f := newFixture(t)
	out := t.TempDir()
	pipe, err := pipeline.New(pipeline.Options{Store: f.st, Out: out, BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipe.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	indexes := describe.NewIndexes(8)
	sh, err := site.NewHandler(site.Options{Dir: out, Indexes: indexes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	cfg := f.cfg
	cfg.Tree, cfg.Indexes, cfg.Site = out, indexes, sh
	f.srv = server.New(cfg)
	q := url.QueryEscape(`SELECT ?o { ?s <http://example.org/label> ?o }`)
	for _, path := range []string{
		f.path("/api/v3/publications/{vis.pub}/sparql?query=" + q),
		"/org/vis/core?query=" + q,
		"/org/vis/core/sparql?query=" + q,
	} {
		res := f.do(request{method: "GET", path: path, as: "viewer", accept: "text/csv"})
		if res.code != 200 || strings.TrimSpace(string(res.body)) != "o\r\nA" {
			t.Fatalf("%s: %d %q", path, res.code, res.body)
		}
		if n := indexes.Len(); n != 1 {
			t.Errorf("after %s: %d indexes mapped, want 1", path, n)
		}
	}
}

// Concurrent queries of a version the tree does not hold share one in-memory build of its index: the first
// request builds it, held here until every request has arrived, and the others wait for it. Each request built
// its own before (eight queries of a 1 M-triple version took 1.8 GB and failed after 299 s).
func TestSPARQLBuildsAVersionOnce(t *testing.T) {
	f := newFixture(t)
	const n = 8
	cfg := f.cfg
	cfg.SPARQLGate = protocol.NewGate(2*n, n, nil) // the test's requests all come from one address
	f.srv = server.New(cfg)
	release := make(chan struct{})
	srv := f.srv
	srv.HoldIndexBuilds(release)
	q := url.QueryEscape(`SELECT ?o { ?s <http://example.org/label> ?o }`)
	codes := make(chan int, n)
	for range n {
		go func() {
			res := f.do(request{method: "GET", path: f.path("/api/v3/publications/{vis.pub}/sparql?query=" + q), as: "viewer", accept: "text/csv"})
			codes <- res.code
		}()
	}
	time.Sleep(300 * time.Millisecond) // let every request reach the build (or its wait) before the first ends
	close(release)
	for range n {
		if c := <-codes; c != 200 {
			t.Errorf("answer %d, want 200", c)
		}
	}
	if b := srv.IndexBuilds(); b != 1 {
		t.Errorf("%d builds of one version, want 1", b)
	}
}
