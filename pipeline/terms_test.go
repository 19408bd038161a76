package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

// largeVocabNT is a vocabulary of 300 classes (a blank-node creator among its statements) followed by enough data
// to be above codec.StreamAbove, as N-Triples.
func largeVocabNT(marker string) string {
	var b strings.Builder
	const ns = "http://example.org/voc#"
	fmt.Fprintf(&b, "<%sO> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Ontology> .\n", ns)
	fmt.Fprintf(&b, "<%sO> <http://purl.org/dc/terms/creator> _:c .\n_:c <http://xmlns.com/foaf/0.1/name> \"A. Creator\" .\n", ns)
	for i := range 300 {
		fmt.Fprintf(&b, "<%sC%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> .\n", ns, i)
		fmt.Fprintf(&b, "<%sC%d> <http://www.w3.org/2000/01/rdf-schema#label> \"%s class %d\"@en .\n", ns, i, marker, i)
		fmt.Fprintf(&b, "<%sC%d> <http://www.w3.org/2000/01/rdf-schema#comment> \"The %s comment of class %d.\"@en .\n", ns, i, marker, i)
		if i > 0 {
			fmt.Fprintf(&b, "<%sC%d> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <%sC%d> .\n", ns, i, ns, i/2)
		}
	}
	for i := 0; b.Len() <= codec.StreamAbove+1<<20; i++ {
		// Typed with a class of its own: instances of the vocabulary's classes would be documented as individuals.
		fmt.Fprintf(&b, "<http://example.org/data/x%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/data/Item> .\n", i)
		fmt.Fprintf(&b, "<http://example.org/data/x%d> <http://example.org/data/value> \"some value of item %d\" .\n", i, i)
	}
	return b.String()
}

// TestLargeTermsAfterTheSwitch: under Run, a large version goes live before its terms.json is written. Until the
// background worker writes it, the version folder and the latest folder hold the marker and no terms.json, and the
// page goes live without the documentation. The worker then writes terms.json (the same bytes as a render that
// collects the terms at once), links the one file into the latest folder, removes both markers and documents the
// pages, in that order. A stop before the worker ran leaves the terms to the next sync, which writes them at once
// without a worker.
func TestLargeTermsAfterTheSwitch(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	data := largeVocabNT("first")
	h.Publish(t, h.Open.ID, "big", ".nt", data)

	// The reference: a pipeline without a background worker collects the terms in the render.
	ref := t.TempDir()
	p0, err := New(Options{Store: h.Store, Out: ref, BaseURL: "http://hub.example", HTML: &HTML{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p0.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	refCur := filepath.Join(tree.PubDir(tree.Root(ref, false), "/org/open/big"), tree.Current)
	want, err := os.ReadFile(filepath.Join(refCur, tree.Terms))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte("first comment of class 17")) || !bytes.Contains(want, []byte("A. Creator")) {
		t.Fatalf("the reference terms.json lacks the vocabulary: %.300s", want)
	}
	if termsPending(refCur) {
		t.Fatal("a marker without a background worker")
	}

	p, q, out := laterPipeline(t, h)
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	meta := tree.PubDir(tree.Root(out, false), "/org/open/big")
	cur := filepath.Join(meta, tree.Current)
	pg := readPage(t, cur)
	v1 := filepath.Join(meta, tree.Versions, filepath.Base(pg.Version.URL))
	for _, dir := range []string{cur, v1} {
		if _, err := os.Stat(filepath.Join(dir, tree.Terms)); err == nil {
			t.Fatalf("%s: terms.json before the worker ran", dir)
		}
		if !termsPending(dir) {
			t.Fatalf("%s: no marker", dir)
		}
		if page := pageHTML(t, dir); strings.Contains(page, "first comment of class 17") || !strings.Contains(page, pg.Version.Label) {
			t.Fatalf("%s: the page before the switch documents the terms, or lacks its version", dir)
		}
	}
	if len(readPage(t, v1).Formats) != len(graphSyntaxes) {
		t.Errorf("formats %v", readPage(t, v1).Formats)
	}

	// A stop now: another process's next sync, without a worker, writes the terms before its pages.
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
	ocur := filepath.Join(tree.PubDir(tree.Root(other, false), "/org/open/big"), tree.Current)
	if got, err := os.ReadFile(filepath.Join(ocur, tree.Terms)); err != nil || !bytes.Equal(got, want) {
		t.Errorf("after a stop, the next sync's terms.json differs from the reference (%v)", err)
	}
	if termsPending(ocur) || !strings.Contains(pageHTML(t, ocur), "first comment of class 17") {
		t.Error("after a stop, the next sync left the marker or an undocumented page")
	}

	// The worker: terms first, then the pages that read them.
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); p.runGzip(wctx, q) }()
	if err := p.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	<-done
	vt, err := os.Stat(filepath.Join(v1, tree.Terms))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{cur, v1} {
		got, err := os.ReadFile(filepath.Join(dir, tree.Terms))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: terms.json differs from the one collected in the render (%v)", dir, err)
		}
		if fi, err := os.Stat(filepath.Join(dir, tree.Terms)); err != nil || !os.SameFile(fi, vt) || !fi.ModTime().Equal(pg.Modified) {
			t.Errorf("%s: terms.json is not the version folder's file with the version's time: %v", dir, err)
		}
		if termsPending(dir) {
			t.Errorf("%s: marker left", dir)
		}
		if page := pageHTML(t, dir); !strings.Contains(page, "first comment of class 17") {
			t.Errorf("%s: not documented after the worker ran", dir)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(meta, tree.Versions)); len(ents) != 1 {
		t.Errorf("versions folder holds %v", ents)
	}
}
