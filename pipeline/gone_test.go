package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

// TestRemovedPublicationLeavesAtOnce: the sync that removes a publication takes its folder out of the tree and
// returns without waiting for the files to be deleted. A large publication's folder holds tens of thousands of term
// pages; deleting them under the pipeline's lock kept the removed publication answering, and every other sync
// waiting, for minutes (a 300 000-term publication removed by a push in session 15h). The deletion finishes in the
// background, and a build waits for it.
func TestRemovedPublicationLeavesAtOnce(t *testing.T) {
	hub := pipelinetest.New(t)
	gone := hub.Publish(t, hub.Open.ID, "gone", ".ttl", pipelinetest.Vocab)
	hub.Publish(t, hub.Open.ID, "kept", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p, err := New(Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	p.goneHook = func() { <-release } // the deletion of the files takes as long as the test wants
	defer close(release)
	if _, err := hub.Store.DeletePublication(ctx, hub.Admin, gone.ID); err != nil {
		t.Fatal(err)
	}
	if p.Live(ctx, hub.Open.ID) {
		t.Error("the repository is live before the sync removed the publication: a push would answer while it still answers")
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.SyncRepository(ctx, hub.Open.ID)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the sync waited for the removed publication's files to be deleted")
	}
	if !p.Live(ctx, hub.Open.ID) {
		t.Error("the repository is not live after the sync that removed the publication")
	}
	dir := tree.PubDir(tree.Root(out, false), "/org/open/gone")
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the removed publication's folder is still in the tree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/kept"), tree.Current)); err != nil {
		t.Errorf("the other publication: %v", err)
	}
	aside := func() []string {
		var names []string
		ents, _ := os.ReadDir(filepath.Dir(dir))
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), tmpPrefix) {
				names = append(names, e.Name())
			}
		}
		return names
	}
	if len(aside()) != 1 {
		t.Errorf("being deleted beside the tree: %v, want one staging folder", aside())
	}
	release <- struct{}{}
	if _, err := p.WaitTermPages(ctx); err != nil { // as `ldhub build` waits before it exits
		t.Fatal(err)
	}
	if names := aside(); len(names) != 0 {
		t.Errorf("left after the deletion: %v", names)
	}
}
