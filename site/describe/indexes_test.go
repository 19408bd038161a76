package describe_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// render writes a rendered folder as the pipeline leaves it for Indexes: an index whose one label is label, and a
// page naming the version and the base.
func render(t *testing.T, dir, versionID, base, label string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := index.NewBuilder()
	if err := b.Add(rdf.Triple(rdf.IRI("http://ex/s"), rdf.IRI("http://ex/label"), rdf.String(label))); err != nil {
		t.Fatal(err)
	}
	if err := b.Build().Save(filepath.Join(dir, tree.Index)); err != nil {
		t.Fatal(err)
	}
	page, _ := json.Marshal(tree.Page{Version: tree.Version{ID: versionID}, Base: base})
	if err := os.WriteFile(filepath.Join(dir, tree.PageJSON), page, 0o644); err != nil {
		t.Fatal(err)
	}
}

// labelOf is the one label the index holds.
func labelOf(t *testing.T, ds *index.Dataset) string {
	t.Helper()
	m := ds.Default.Match(0, ds.Dict.Lookup(rdf.IRI("http://ex/label")), 0)
	if m.Len() != 1 {
		t.Fatalf("%d labels", m.Len())
	}
	_, _, o := m.At(0)
	return ds.Dict.Term(o).Value
}

func TestIndexesCheckTheVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v", "1.0")
	render(t, dir, "X", "http://hub/a/", "X's")
	x := describe.NewIndexes(4)
	ds, release, err := x.Acquire(dir, "X", "http://hub/a/")
	if err != nil || labelOf(t, ds) != "X's" {
		t.Fatalf("X: %v", err)
	}
	release()

	// The caller read X's page; before the index was opened, the publication was deleted and made again with
	// the same path and label (version Y). Y's file must not be mapped as X's.
	render(t, dir, "Y", "http://hub/a/", "Y's")
	fresh := describe.NewIndexes(4)
	if _, _, err := fresh.Acquire(dir, "X", "http://hub/a/"); err == nil {
		t.Fatal("Y's index was taken for X's")
	}
	// Nor the same version read with another base (its terms differ).
	if _, _, err := fresh.Acquire(dir, "Y", "http://hub/b/"); err == nil {
		t.Fatal("an index rendered under another base was taken")
	}
	if fresh.Len() != 0 {
		t.Errorf("refused indexes kept: %d", fresh.Len())
	}
	ds, release, err = fresh.Acquire(dir, "Y", "http://hub/a/")
	if err != nil || labelOf(t, ds) != "Y's" {
		t.Fatalf("Y: %v", err)
	}
	release()

	// X's index, mapped before, stays X's: the key is the version.
	ds, release, err = x.Acquire(dir, "X", "http://hub/a/")
	if err != nil || labelOf(t, ds) != "X's" {
		t.Fatalf("X again: %v", err)
	}
	release()
}

// A version's latest folder and its own folder (hard links to one file) are mapped once; folders whose page has no
// base (rendered before pages recorded it) are keyed by folder.
func TestIndexesKeyByVersion(t *testing.T) {
	root := t.TempDir()
	vdir, ldir := filepath.Join(root, "v", "1.0"), filepath.Join(root, "L-1")
	render(t, vdir, "X", "http://hub/a/", "X's")
	if err := os.MkdirAll(ldir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(vdir, tree.Index), filepath.Join(ldir, tree.Index)); err != nil {
		t.Fatal(err)
	}
	page, _ := json.Marshal(tree.Page{Version: tree.Version{ID: "X"}, Base: "http://hub/a/", Latest: true})
	if err := os.WriteFile(filepath.Join(ldir, tree.PageJSON), page, 0o644); err != nil {
		t.Fatal(err)
	}
	x := describe.NewIndexes(4)
	for _, dir := range []string{vdir, ldir} {
		_, release, err := x.Acquire(dir, "X", "http://hub/a/")
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if x.Len() != 1 {
		t.Errorf("%d mapped, want 1", x.Len())
	}

	old1, old2 := filepath.Join(root, "old1"), filepath.Join(root, "old2")
	render(t, old1, "Z", "", "Z's")
	render(t, old2, "Z", "", "Z's")
	for _, dir := range []string{old1, old2} {
		_, release, err := x.Acquire(dir, "Z", "")
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if x.Len() != 3 {
		t.Errorf("%d mapped, want 3", x.Len())
	}
}
