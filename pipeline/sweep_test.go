package pipeline

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSweepRemovesWhatKilledRendersLeft plants what a render killed at each of its steps leaves (a staged version
// folder, a staged latest folder, a half-made cur link, the HTML scratch folder, a half-written state file) and
// checks that the sweep removes exactly those.
func TestSweepRemovesWhatKilledRendersLeft(t *testing.T) {
	hub := pipelinetest.New(t)
	pub := hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	hub.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	hub.Publish(t, hub.Closed.ID, "v", ".ttl", pipelinetest.Vocab) // a publication named like the versions folder
	out := t.TempDir()
	p, err := New(Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, out)
	meta := tree.PubDir(tree.Root(out, false), "/org/open/core")
	private := tree.PubDir(tree.Root(out, true), "/org/closed/v")
	for _, d := range []string{filepath.Join(meta, tree.Versions, ".tmp-123"), filepath.Join(meta, ".tmp-456"),
		filepath.Join(out, ".tmp-html-789"), filepath.Join(private, tree.Versions, ".tmp-1")} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "sub", "data.ttl"), []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("L-x", filepath.Join(meta, ".tmp-link-k")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "state", ".tmp-9"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := p.sweep()
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Errorf("removed %d entries, want 6", n)
	}
	if after := listTree(t, out); !slices.Equal(after, before) {
		t.Errorf("tree after the sweep differs from the rendered one:\nbefore %q\nafter  %q", before, after)
	}
	if n, err := New(Options{Store: hub.Store, Out: filepath.Join(out, "missing"), BaseURL: "http://hub.example"}); err != nil {
		t.Fatal(err)
	} else if _, err := n.sweep(); err != nil {
		t.Errorf("sweep of a tree not rendered yet: %v", err)
	}
}
