package html

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// testResource is a resource page whose text names n, with a blank node and one reference.
func testResource(n int) *ResourcePage {
	iri := fmt.Sprintf("http://example.org/g/r/p/thing%d", n)
	return &ResourcePage{
		Crumbs:      []Crumb{{Name: "hub", Href: "/"}, {Name: "g", Href: "/g/"}, {Name: "r", Href: "/g/r/"}},
		Publication: Crumb{Name: "p", Href: "/g/r/p"}, IRI: iri, Label: fmt.Sprintf("Thing number %d", n),
		Href: fmt.Sprintf("/g/r/p/thing%d", n),
		Statements: []rdf.Quad{
			rdf.Triple(rdf.IRI(iri), rdf.IRI(rdf.RDFNS+"type"), rdf.IRI("http://example.org/C")),
			rdf.Triple(rdf.IRI(iri), rdf.IRI("http://example.org/part"), rdf.Blank("b1")),
			rdf.Triple(rdf.Blank("b1"), rdf.IRI("http://example.org/size"), rdf.Literal(fmt.Sprint(n), rdf.XSDNS+"integer")),
			// A cycle back to the first blank node must not nest forever.
			rdf.Triple(rdf.Blank("b1"), rdf.IRI("http://example.org/again"), rdf.Blank("b1")),
		},
		Incoming: []rdf.Quad{rdf.Triple(rdf.IRI("http://example.org/other"), rdf.IRI("http://example.org/knows"), rdf.IRI(iri))},
		Labels:   map[string]string{"http://example.org/size": "size", "http://example.org/C": "A class"},
		Formats:  []Dump{{Format: "Turtle", Ext: ".ttl", MediaType: "text/turtle", URL: fmt.Sprintf("/g/r/p/thing%d.ttl", n)}},
	}
}

// checkResource fails unless html is the page of testResource(n).
func checkResource(t testing.TB, html []byte, n int) {
	t.Helper()
	s := string(html)
	for _, want := range []string{
		fmt.Sprintf(`<h1 id="title">Thing number %d</h1>`, n),
		fmt.Sprintf(`<span class="literal">%d</span> <span class="tag" title="http://www.w3.org/2001/XMLSchema#integer">xsd:integer</span>`, n),
		`>size</a>`, `>A class</a>`, `<span class="blank">_:b1</span>`, `<h2 id="incoming">Referenced by</h2>`,
		fmt.Sprintf(`href="/g/r/p/thing%d.ttl"`, n), `<a href="/g/r/">r</a>`, "</html>",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page %d lacks %q", n, want)
		}
	}
	if c := strings.Count(s, `<dl class="props">`); c != 2 {
		t.Errorf("page %d: %d property lists, want the resource's and its blank node's", n, c)
	}
}

// TestLiveSiteRendersEveryPageOfEveryBatch: each rebuild of the long-lived site renders every page of its batch
// with that batch's data, whatever the previous batches held.
func TestLiveSiteRendersEveryPageOfEveryBatch(t *testing.T) {
	l, err := newLiveSite(settings{inline: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	n := 0
	for _, size := range []int{3, 1, 4, 2, 4} {
		var pages []page
		for i := range size {
			pages = append(pages, resourcePage(testResource(n+i)))
		}
		out, err := l.render(pages)
		if err != nil {
			t.Fatal(err)
		}
		for i := range size {
			checkResource(t, out[i], n+i)
		}
		n += size
	}
}

// TestResourcesBusy: one page building and MaxQueue waiting, the next different page is refused at once;
// a request for a page already waiting shares it instead.
func TestResourcesBusy(t *testing.T) {
	r := NewResources(ResourceOptions{MaxQueue: 1, MaxBatch: 1})
	defer r.Close()
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	r.beforeBuild = func() { started <- struct{}{}; <-release }
	ctx := context.Background()
	key := func(n int) ResourceKey { return ResourceKey{Dataset: "d", IRI: testResource(n).IRI} }
	results := make(chan error, 3)
	render := func(n int) {
		c, err := r.Render(ctx, key(n), testResource(n))
		if err == nil {
			checkResource(t, c.HTML, n)
		}
		results <- err
	}
	go render(0)
	<-started // page 0 is building
	go render(1)
	go render(1) // the same page: shares the waiting one
	waitFor(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.queue) == 1
	})
	if _, err := r.Render(ctx, key(2), testResource(2)); !errors.Is(err, ErrBusy) {
		t.Fatalf("a full queue took another page: %v", err)
	}
	close(release)
	for range 3 {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
	if _, ok := r.Cached(key(1)); !ok {
		t.Error("page 1 is not cached")
	}
	if c, err := r.Render(ctx, key(2), testResource(2)); err != nil {
		t.Errorf("once the queue drained: %v", err)
	} else {
		checkResource(t, c.HTML, 2)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 2000 {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("condition not reached")
}

// TestResourcesConcurrent renders many pages from many goroutines, with repeats: every caller gets its own page
// (go test -race checks the queue, the cache and the batches).
func TestResourcesConcurrent(t *testing.T) {
	r := NewResources(ResourceOptions{MaxQueue: 1000, MaxBatch: 8})
	defer r.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 12 {
				n := (g*7 + i) % 20
				c, err := r.Render(context.Background(), ResourceKey{Dataset: "d", IRI: testResource(n).IRI}, testResource(n))
				if err != nil {
					t.Error(err)
					return
				}
				checkResource(t, c.HTML, n)
			}
		})
	}
	wg.Wait()
	if c := r.CachedPages(); c != 20 {
		t.Errorf("%d pages cached, want 20", c)
	}
}

// TestResourcesBrokenThemeRecovers: a layout failing on some data fails its batch only; the next batch is
// rendered on a fresh site.
func TestResourcesBrokenThemeRecovers(t *testing.T) {
	dir := t.TempDir()
	writeLayout(t, dir, "resource.html", `{{ define "main" }}{{ if eq .Params.ld.iri "http://example.org/g/r/p/thing7" }}{{ errorf "no seven" }}{{ end }}<p>ok {{ .Params.ld.iri }}</p>{{ end }}`)
	r := NewResources(ResourceOptions{Themes: []string{dir}})
	defer r.Close()
	ctx := context.Background()
	if _, err := r.Render(ctx, ResourceKey{IRI: "7"}, testResource(7)); err == nil || !strings.Contains(err.Error(), "no seven") {
		t.Fatalf("the failing template's error is not reported: %v", err)
	}
	c, err := r.Render(ctx, ResourceKey{IRI: "8"}, testResource(8))
	if err != nil || !strings.Contains(string(c.HTML), "<p>ok http://example.org/g/r/p/thing8</p>") {
		t.Fatalf("after a failed build: %v\n%s", err, c.HTML)
	}
}

func TestLRUBound(t *testing.T) {
	c := newPageCache(800)
	page := make([]byte, 90)
	for i := range 20 {
		c.Add(ResourceKey{IRI: fmt.Sprintf("%02d", i)}, Rendered{HTML: page})
	}
	const cost = 90 + 2 // page and key
	if c.Cost() > 800 || c.Len() != 800/cost {
		t.Errorf("%d bytes in %d pages", c.Cost(), c.Len())
	}
	if _, ok := c.Get(ResourceKey{IRI: "19"}); !ok {
		t.Error("the newest page was evicted")
	}
	if _, ok := c.Get(ResourceKey{IRI: "00"}); ok {
		t.Error("the oldest page was kept")
	}
	c.Add(ResourceKey{IRI: "big"}, Rendered{HTML: make([]byte, 200)})
	if _, ok := c.Get(ResourceKey{IRI: "big"}); ok {
		t.Error("a page over an eighth of the bound was kept")
	}
	c.Add(ResourceKey{IRI: "19"}, Rendered{HTML: page}) // replacing keeps the accounting exact
	if c.Cost() != int64(c.Len()*cost) {
		t.Errorf("size %d for %d pages", c.Cost(), c.Len())
	}
}

func writeLayout(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, "layouts", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestResourcesDuringPipelineBuilds: the long-lived site rebuilds while the pipeline's full builds run (they
// share no lock: a resource page must not wait for a sync), and both give their pages (go test -race checks
// Hugo's shared state).
func TestResourcesDuringPipelineBuilds(t *testing.T) {
	r := NewResources(ResourceOptions{})
	defer r.Close()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 3 {
			b := &Batch{Title: "x"}
			if err := b.Publication(fmt.Sprintf("p/%d", i), largestPage(i)); err != nil {
				t.Error(err)
				return
			}
			out := t.TempDir()
			if err := RenderBatch(context.Background(), b, out); err != nil {
				t.Error(err)
				return
			}
			if _, err := os.Stat(filepath.Join(out, "p", fmt.Sprint(i), "index.html")); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Go(func() {
		for i := range 30 {
			c, err := r.Render(context.Background(), ResourceKey{IRI: fmt.Sprint(i)}, testResource(i))
			if err != nil {
				t.Error(err)
				return
			}
			checkResource(t, c.HTML, i)
		}
	})
	wg.Wait()
}
