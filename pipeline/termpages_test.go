package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/tree"
)

// TestTermPages: with HTML.TermPages the latest folder holds, for every term below the publication's URI, its page
// and its description in each RDF format; hash IRIs, names that cannot be files, terms with more references than
// a page holds and datasets get none. A new version renders only the terms whose page changed.
func TestTermPages(t *testing.T) {
	h := pipelinetest.New(t)
	var big strings.Builder
	for i := range 1001 {
		fmt.Fprintf(&big, "<http://other.example/x%d> <http://other.example/rel> <Big> .\n", i)
	}
	extra := `<A> <http://www.w3.org/2000/01/rdf-schema#label> "A"@en ; <http://www.w3.org/2000/01/rdf-schema#seeAlso> <B> .
<B> <http://www.w3.org/2000/01/rdf-schema#label> "B"@en .
<C> <http://www.w3.org/2000/01/rdf-schema#label> "C first"@en .
<concept/1> <http://www.w3.org/2004/02/skos/core#prefLabel> "one"@en .
<#Frag> <http://www.w3.org/2000/01/rdf-schema#label> "hash" .
<versions> <http://www.w3.org/2000/01/rdf-schema#label> "reserved" .
<a%20b> <http://www.w3.org/2000/01/rdf-schema#label> "escaped" .
<Big> <http://www.w3.org/2000/01/rdf-schema#label> "big" .
`
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab+extra+big.String())
	h.Publish(t, h.Open.ID, "ds", ".trig", "<http://hub.example/org/open/ds/g> { <http://hub.example/org/open/ds/s> <http://x/p> \"in a graph\" . }\n")
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base,
		HTML: &pipeline.HTML{Title: "Test Hub", TermPages: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	res, err := p.WaitTermPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	terms := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/core"), tree.Current, tree.TermPages)
	want := []string{"A", "B", "C", "Other", "Thing", "concept/1", "size"}
	if res.Rendered != len(want) || res.Kept != 0 {
		t.Errorf("first build: %d term pages rendered, %d kept; want %d, 0", res.Rendered, res.Kept, len(want))
	}
	var got []string
	_ = filepath.WalkDir(terms, func(path string, e os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".html") {
			rel, _ := filepath.Rel(terms, path)
			got = append(got, strings.TrimSuffix(filepath.ToSlash(rel), ".html"))
		}
		return nil
	})
	if !slices.Equal(got, want) {
		t.Errorf("term pages %v, want %v", got, want)
	}
	for _, name := range want {
		for _, ext := range []string{".ttl", ".nt", ".rdf", ".jsonld"} {
			b, err := os.ReadFile(filepath.Join(terms, name+ext))
			if err != nil {
				t.Fatal(err)
			}
			syn, _ := codec.Default().ByExtension(ext)
			n := 0
			dec := syn.NewDecoder(strings.NewReader(string(b)), rdf.DecodeOptions{Base: base + "/org/open/core/" + name})
			for {
				if _, err := dec.Next(); err != nil {
					if err != io.EOF {
						t.Errorf("%s%s does not read: %v", name, ext, err)
					}
					break
				}
				n++
			}
			if n == 0 {
				t.Errorf("%s%s is empty", name, ext)
			}
		}
	}
	thing := readFile(t, filepath.Join(terms, "Thing.html"))
	wantIn(t, "Thing's page", thing, "<h1", ">Thing</h1>", `lang="nl"`, "anonymous part", `href="/org/open/core/Thing.ttl"`, "Test Hub")
	wantIn(t, "concept/1's page", readFile(t, filepath.Join(terms, "concept", "1.html")), ">one</h1>")
	// A dataset's folder gets none: only the empty fingerprint list that says so.
	dsTerms, err := os.ReadDir(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/ds"), tree.Current, tree.TermPages))
	if err != nil || len(dsTerms) != 1 || dsTerms[0].Name() != tree.TermSums {
		t.Errorf("a dataset got term pages (%v, %v)", dsTerms, err)
	}
	before := readFile(t, filepath.Join(terms, "A.ttl"))

	// C changes; B gains a reference (from the new D), so its page changes too; the others stay.
	h.Update(t, pub.ID, ".ttl", strings.Replace(pipelinetest.Vocab+extra+big.String(), "C first", "C second", 1)+
		"<D> <http://www.w3.org/2000/01/rdf-schema#seeAlso> <B> .\n")
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if res, err = p.WaitTermPages(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 3 || res.Kept != len(want)-2 {
		t.Errorf("second version: %d term pages rendered, %d kept; want 3 (B, C, D), %d", res.Rendered, res.Kept, len(want)-2)
	}
	wantIn(t, "C's new description", readFile(t, filepath.Join(terms, "C.ttl")), "C second")
	wantIn(t, "B's new page", readFile(t, filepath.Join(terms, "B.html")), "/org/open/core/D")
	if after := readFile(t, filepath.Join(terms, "A.ttl")); after != before {
		t.Errorf("A's kept description changed:\n%s\n%s", before, after)
	}

	// The same latest folder rendered again (the state forgot the pages' stamp, as when pages were left for after
	// the switch): the folder is replaced, its term pages are linked from the one it replaces, none rendered.
	statePath := filepath.Join(out, "state", h.Open.ID+".json")
	state := readFile(t, statePath)
	if !strings.Contains(state, `"pages": "`) {
		t.Fatalf("no pages stamp in the state:\n%s", state)
	}
	state = regexp.MustCompile(`"pages": "[^"]*"`).ReplaceAllString(state, `"pages": ""`)
	if err := os.WriteFile(statePath, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if res, err = p.WaitTermPages(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 0 || res.Kept != len(want)+1 {
		t.Errorf("the same folder again: %d term pages rendered, %d kept; want 0, %d", res.Rendered, res.Kept, len(want)+1)
	}
	wantIn(t, "C's page", readFile(t, filepath.Join(terms, "C.html")), "C second")
	if latest, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(terms)), "L-*")); len(latest) != 1 {
		t.Errorf("latest folders left: %v, want the live one", latest)
	}
}

func TestTermPageName(t *testing.T) {
	for name, ok := range map[string]bool{"Bridge": true, "concept/123": true, "a/b/c": true, "a-b_c~d.e": true,
		"a/b/c/d": false, "": false, ".ld": false, "a/../b": false, "a//b": false, "versions": false, "sparql": false,
		"void.ttl": false, "Thing.html": false, "a b": false, "caf\u00e9": false, "x#y": false, "a/": false} {
		if tree.TermPageName(name) != ok {
			t.Errorf("TermPageName(%q) = %v, want %v", name, !ok, ok)
		}
	}
}

// TestTermPagesAfterLive: a new version goes live before its term pages are written; meanwhile every term answers
// for the new version (the handler renders what has no file yet), no file is half there, and a version synced
// while the pages of the one before are still being written supersedes them. Afterwards the files answer.
func TestTermPagesAfterLive(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	extra := `<A> <http://www.w3.org/2000/01/rdf-schema#label> "A"@en .
<B> <http://www.w3.org/2000/01/rdf-schema#label> "B"@en ; <http://www.w3.org/2000/01/rdf-schema#seeAlso> <A> .
<C> <http://www.w3.org/2000/01/rdf-schema#label> "C first"@en .
`
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab+extra)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base, HTML: &pipeline.HTML{TermPages: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitTermPages(ctx); err != nil {
		t.Fatal(err)
	}
	handler, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	defer handler.Close()
	get := func(path, accept string) (int, string, string) {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		return w.Code, w.Body.String(), w.Header().Get("ETag")
	}
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/core")
	terms := filepath.Join(pubDir, tree.Current, tree.TermPages)
	// every term answers in Turtle and HTML with what version label says; static says whether from its file.
	check := func(when, label string, static bool) {
		t.Helper()
		if code, body, _ := get("/org/open/core.ttl", "text/turtle"); code != 200 || !strings.Contains(body, label) {
			t.Errorf("%s: the publication does not answer its latest version (%d, no %q)", when, code, label)
		}
		for _, name := range []string{"A", "B", "C", "Thing", "Other"} {
			for _, accept := range []string{"text/turtle", "text/html"} {
				code, body, etag := get("/org/open/core/"+name, accept)
				if code != 200 {
					t.Errorf("%s: %s as %s: %d %s", when, name, accept, code, body)
				}
				if name == "C" && !strings.Contains(body, label) {
					t.Errorf("%s: C as %s does not say %q:\n%s", when, accept, label, body)
				}
				if fromFile := !strings.Contains(etag, "-r"); name == "C" && fromFile != static {
					t.Errorf("%s: C as %s answered from its file: %v, want %v (ETag %s)", when, accept, fromFile, static, etag)
				}
			}
		}
		// What servers serve (t/ of the live folder) holds whole files only; staging happens beside it.
		_ = filepath.WalkDir(terms, func(path string, e os.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(e.Name(), ".tmp") {
				t.Errorf("%s: a staging file among the term pages: %s", when, path)
			}
			if err == nil && !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				if fi, err := e.Info(); err == nil && fi.Size() == 0 {
					t.Errorf("%s: an empty file among the term pages: %s", when, path)
				}
			}
			return nil
		})
	}
	check("first version, pages written", "C first", true)

	entered := make(chan struct{}, 1)
	gate := make(chan struct{})
	pipeline.SetTermPageHook(p, func() {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-gate
	})
	h.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+strings.Replace(extra, "C first", "C second", 1))
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the term pages of the new version were not started")
	}
	// Live, the pages not rendered: C changed and has no file; A is unchanged, linked from the folder before.
	if _, err := os.Stat(filepath.Join(terms, "C.html")); !os.IsNotExist(err) {
		t.Errorf("C's page is there before it was rendered (%v)", err)
	}
	check("second version live, its pages held", "C second", false)

	// A third version while the second's pages are held: it goes live too, and its job supersedes the second's.
	h.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+strings.Replace(extra, "C first", "C third", 1))
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	check("third version live, its pages held", "C third", false)
	close(gate)
	st, err := p.WaitTermPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rendered == 0 || st.Rendered > 3 {
		t.Errorf("the third version rendered %d pages, want C and what shows it (at most 3)", st.Rendered)
	}
	check("third version, pages written", "C third", true)
	wantIn(t, "C's page", readFile(t, filepath.Join(terms, "C.html")), "C third")
	if _, err := os.Stat(filepath.Join(terms, tree.TermSums)); err != nil {
		t.Errorf("no %s once the pages are written: %v", tree.TermSums, err)
	}
	latest, _ := filepath.Glob(filepath.Join(pubDir, "L-*"))
	if len(latest) != 1 {
		t.Errorf("latest folders left: %v, want the live one", latest)
	}
}

// TestTermPagesFollowOtherLabels: a term page that shows the label of another publication's term is rendered again
// when that publication goes live with a new label, although its own publication did not change; its other pages
// stay as they were.
func TestTermPagesFollowOtherLabels(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	core := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.Publish(t, h.Open.ID, "ext", ".ttl", `<Sub> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <`+base+`/org/open/core/Thing> .
<Lone> <http://www.w3.org/2000/01/rdf-schema#label> "lone" .
`)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base, HTML: &pipeline.HTML{TermPages: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitTermPages(ctx); err != nil {
		t.Fatal(err)
	}
	ext := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/ext"), tree.Current, tree.TermPages)
	wantIn(t, "Sub's page", readFile(t, filepath.Join(ext, "Sub.html")), `>Thing</a>`)
	stat := func(name string) os.FileInfo {
		fi, err := os.Stat(filepath.Join(ext, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	sub, lone := stat("Sub.html"), stat("Lone.html")

	h.Update(t, core.ID, ".ttl", strings.Replace(pipelinetest.Vocab, `"Thing"@en`, `"Thingamajig"@en`, 1))
	res, err := p.BuildAll(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rendered) != 1 {
		t.Fatalf("rendered %v, want core only", res.Rendered)
	}
	st, err := p.WaitTermPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(ext, "Sub.html"))
	wantIn(t, "Sub's page after core's new label", page, `>Thingamajig</a>`)
	if strings.Contains(page, `>Thing</a>`) {
		t.Errorf("Sub's page still shows core's old label")
	}
	// core: Thing and Other (its subclass shows Thing's label); ext: Sub.
	if st.Rendered != 3 {
		t.Errorf("%d pages rendered, want 3 (core's Thing and Other, ext's Sub)", st.Rendered)
	}
	if fi := stat("Sub.html"); !fi.ModTime().After(sub.ModTime()) {
		t.Errorf("Sub's page kept its time %v: caches would keep the old page", fi.ModTime())
	}
	if fi := stat("Lone.html"); !os.SameFile(fi, lone) || !fi.ModTime().Equal(lone.ModTime()) {
		t.Errorf("Lone's page, which shows no other publication's label, was written again")
	}
}
