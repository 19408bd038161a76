package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
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
	res, err := p.BuildAll(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	terms := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/core"), tree.Current, tree.TermPages)
	want := []string{"A", "B", "C", "Other", "Thing", "concept/1", "size"}
	if res.TermPages != len(want) || res.TermPagesKept != 0 {
		t.Errorf("first build: %d term pages rendered, %d kept; want %d, 0", res.TermPages, res.TermPagesKept, len(want))
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
	if _, err := os.Stat(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/ds"), tree.Current, tree.TermPages)); !os.IsNotExist(err) {
		t.Errorf("a dataset got term pages (%v)", err)
	}
	before := readFile(t, filepath.Join(terms, "A.ttl"))

	// C changes; B gains a reference (from the new D), so its page changes too; the others stay.
	h.Update(t, pub.ID, ".ttl", strings.Replace(pipelinetest.Vocab+extra+big.String(), "C first", "C second", 1)+
		"<D> <http://www.w3.org/2000/01/rdf-schema#seeAlso> <B> .\n")
	res, err = p.BuildAll(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.TermPages != 3 || res.TermPagesKept != len(want)-2 {
		t.Errorf("second version: %d term pages rendered, %d kept; want 3 (B, C, D), %d", res.TermPages, res.TermPagesKept, len(want)-2)
	}
	wantIn(t, "C's new description", readFile(t, filepath.Join(terms, "C.ttl")), "C second")
	wantIn(t, "B's new page", readFile(t, filepath.Join(terms, "B.html")), "/org/open/core/D")
	if after := readFile(t, filepath.Join(terms, "A.ttl")); after != before {
		t.Errorf("A's kept description changed:\n%s\n%s", before, after)
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
