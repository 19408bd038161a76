package objstore_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/objstore"
	"github.com/ldhub/ldhub/site/tree"
)

// TestPlanWaitsForGzipSiblings: a latest folder whose dump has no .gz sibling yet (the pipeline writes those of a
// large version after it goes live) is not published half: the plan says so instead of listing the folder without
// the sibling, and lists it whole once the sibling is there.
func TestPlanWaitsForGzipSiblings(t *testing.T) {
	h := newHub(t)
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.build(t)
	cur := filepath.Join(tree.PubDir(tree.Root(h.out, false), "/org/open/core"), tree.Current)
	gz := filepath.Join(cur, "data.ttl.gz")
	b, err := os.ReadFile(gz)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gz); err != nil {
		t.Fatal(err)
	}
	if _, err := objstore.Plan(h.out, nil); err == nil || !strings.Contains(err.Error(), ".gz siblings are still being written") {
		t.Fatalf("plan without a .gz sibling: %v", err)
	}
	if err := os.WriteFile(gz, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := objstore.Plan(h.out, nil); err != nil {
		t.Fatal(err)
	}
}

// TestPlanWaitsForLateDumps: a latest folder whose RDF/XML dump is not written yet (the pipeline writes those of a
// large version after it goes live, tree.LateDumps) is not published without it: the plan waits as for a .gz
// sibling, and lists the folder whole once the dump is there. Without the marker, a missing dump is a folder
// replaced while it was read.
func TestPlanWaitsForLateDumps(t *testing.T) {
	h := newHub(t)
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.build(t)
	cur := filepath.Join(tree.PubDir(tree.Root(h.out, false), "/org/open/core"), tree.Current)
	rdf := filepath.Join(cur, "data.rdf")
	var saved [2][]byte
	for i, name := range []string{rdf, rdf + ".gz"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		saved[i] = b
		if err := os.Remove(name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := objstore.Plan(h.out, nil); err == nil || strings.Contains(err.Error(), "still being written") {
		t.Fatalf("plan without data.rdf nor a marker: %v", err)
	}
	if err := os.WriteFile(filepath.Join(cur, tree.LateDumps), []byte(`{"prefixes":[],"blanks":"b"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := objstore.Plan(h.out, nil); err == nil || !strings.Contains(err.Error(), "late dumps or .gz siblings are still being written") {
		t.Fatalf("plan before the late dump: %v", err)
	}
	for i, name := range []string{rdf, rdf + ".gz"} {
		if err := os.WriteFile(name, saved[i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(cur, tree.LateDumps)); err != nil {
		t.Fatal(err)
	}
	if _, err := objstore.Plan(h.out, nil); err != nil {
		t.Fatal(err)
	}
}
