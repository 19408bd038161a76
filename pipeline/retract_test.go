package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

// TestRetractedVersionsAreNotRendered: after a version delete (a retraction in git) the next sync drops the
// version's folder, the previous version is current again when the latest was retracted, and a build from
// scratch gives the same tree as the incremental sync.
func TestRetractedVersionsAreNotRendered(t *testing.T) {
	h := pipelinetest.New(t)
	ctx := context.Background()
	a := h.Publish(t, h.Open.ID, "a", ".ttl", pipelinetest.Vocab)
	h.Update(t, a.ID, ".ttl", pipelinetest.Vocab+"<Second> a <Thing> .\n")
	last := h.Update(t, a.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	out := t.TempDir()
	p := newPipeline(t, h, out)
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/a")
	dir := func(label string) string {
		name, err := tree.VersionDirName(label)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(pubDir, tree.Versions, name)
	}
	for _, v := range last.Versions {
		if _, err := os.Stat(dir(v.Label)); err != nil {
			t.Fatalf("version %s not rendered: %v", v.Label, err)
		}
	}
	for _, v := range last.Versions[1:] {
		if _, err := h.Store.RetractVersion(ctx, h.Admin, a.ID, v.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	for i, v := range last.Versions {
		_, err := os.Stat(dir(v.Label))
		if i == 0 && err != nil {
			t.Errorf("the remaining version's folder is gone: %v", err)
		}
		if i > 0 && !os.IsNotExist(err) {
			t.Errorf("retracted version %s still rendered (%v)", v.Label, err)
		}
	}
	cur, err := os.ReadFile(filepath.Join(pubDir, tree.Current, "data.nt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cur), "Third") || strings.Contains(string(cur), "Second") {
		t.Errorf("the current dump still holds a retracted version:\n%s", cur)
	}
	fresh := t.TempDir()
	if _, err := newPipeline(t, h, fresh).BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	inc, full := snapshot(t, tree.Root(out, false)), snapshot(t, tree.Root(fresh, false))
	for k, v := range full {
		if inc[k] != v {
			t.Errorf("%s differs between the incremental sync and a build from scratch", k)
		}
	}
	if len(inc) != len(full) {
		t.Errorf("%d files after the sync, %d in a build from scratch", len(inc), len(full))
	}
}
