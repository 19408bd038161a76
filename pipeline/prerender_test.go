package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/syncbuf"
)

// largeRelativeTurtle is Turtle above codec.StreamAbove whose subjects are relative IRIs (so its rendering
// depends on the base) with blank nodes (so it depends on their labelling).
func largeRelativeTurtle(marker string) []byte {
	var b bytes.Buffer
	b.WriteString("@prefix ex: <http://example.org/vocab/> .\n")
	fmt.Fprintf(&b, "<marker> ex:run %q .\n", marker)
	for i := 0; b.Len() <= codec.StreamAbove+(64<<10); i++ {
		fmt.Fprintf(&b, "<item/%d> a ex:Item ; ex:value \"value %d\"@en ; ex:part [ ex:n %d ; ex:of <item/%d> ] .\n", i, i, i, i/3)
	}
	return b.Bytes()
}

// aheadPipeline is a pipeline as Run has it (a background queue, so a large version's terms come after the
// switch), without pages, logging at Debug into the returned buffer.
func aheadPipeline(t *testing.T, h *pipelinetest.Hub) (*Pipeline, string, *syncbuf.Buffer) {
	t.Helper()
	out := t.TempDir()
	log := &syncbuf.Buffer{}
	p, err := New(Options{Store: h.Store, Out: out, BaseURL: "http://hub.example",
		Log: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	p.gz.Store(newGzipQueue())
	return p, out, log
}

// watchingPipeline is aheadPipeline following the store's uploads, with /org/open/big published as v1 and
// rendered.
func watchingPipeline(t *testing.T, v1 []byte) (*pipelinetest.Hub, *Pipeline, string, *syncbuf.Buffer, model.Publication) {
	t.Helper()
	h := pipelinetest.New(t)
	p, out, log := aheadPipeline(t, h)
	t.Cleanup(p.watchUploads(context.Background()))
	pub := h.Publish(t, h.Open.ID, "big", ".ttl", string(v1))
	if _, err := p.SyncRepository(context.Background(), h.Open.ID); err != nil {
		t.Fatal(err)
	}
	return h, p, out, log, pub
}

// tmpEntries lists the staging entries of dir.
func tmpEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func currentPrerender(p *Pipeline) *prerender {
	p.pre.mu.Lock()
	defer p.pre.mu.Unlock()
	return p.pre.cur
}

// sameAsReference checks that the latest version folder of /org/open/big under out holds the same files, byte
// for byte and with the same times, as a pipeline that rendered everything after the commits.
func sameAsReference(t *testing.T, h *pipelinetest.Hub, out string) {
	t.Helper()
	ref, refOut, _ := aheadPipeline(t, h)
	if _, err := ref.SyncRepository(context.Background(), h.Open.ID); err != nil {
		t.Fatal(err)
	}
	dir := func(out string) string {
		meta := tree.PubDir(tree.Root(out, false), "/org/open/big")
		return filepath.Join(meta, tree.Versions, filepath.Base(readPage(t, filepath.Join(meta, tree.Current)).Version.URL))
	}
	got, want := dir(out), dir(refOut)
	if !equalSums(folderSums(t, got), folderSums(t, want)) {
		t.Fatalf("the version folder differs from a render after the commit:\n%v\n%v", folderSums(t, got), folderSums(t, want))
	}
	for name := range folderSums(t, want) {
		a, _ := os.Stat(filepath.Join(got, name))
		b, _ := os.Stat(filepath.Join(want, name))
		if !a.ModTime().Equal(b.ModTime()) {
			t.Errorf("%s: time %v, a render after the commit gives %v", name, a.ModTime(), b.ModTime())
		}
	}
}

// TestUploadRenderedWhileCommitted: under Run, a large update is rendered while the store validates and commits
// it, and the sync of its commit puts that very folder live: the same bytes and times as a render after the
// commit. Before the sync the live folder is the old version's. An upload the store refuses, and content equal to
// the latest version's, leave nothing behind and change nothing.
func TestUploadRenderedWhileCommitted(t *testing.T) {
	ctx := context.Background()
	v1 := largeRelativeTurtle("1")
	h, p, out, log, pub := watchingPipeline(t, v1)
	meta := tree.PubDir(tree.Root(out, false), "/org/open/big")
	cur, vroot := filepath.Join(meta, tree.Current), filepath.Join(meta, tree.Versions)
	before := folderSums(t, cur)
	const started = "rendering an upload while it is committed"

	bad := append(largeRelativeTurtle("bad"), " <broken"...)
	if _, err := h.Store.UpdatePublication(ctx, h.Admin, pub.ID, store.PublicationPatch{}, &store.Content{Ext: ".ttl", Data: bad}); err == nil {
		t.Fatal("bad content was accepted")
	}
	p.pre.wg.Wait() // the refused upload's render stops; until then the next upload is not rendered ahead
	same := append([]byte(nil), v1...)
	if _, err := h.Store.UpdatePublication(ctx, h.Admin, pub.ID, store.PublicationPatch{}, &store.Content{Ext: ".ttl", Data: same}); err != nil {
		t.Fatal(err)
	}
	p.pre.wg.Wait()
	if n := strings.Count(log.String(), started); n != 2 {
		t.Fatalf("%d renders ahead of a commit, want 2 (the bad and the unchanged upload)", n)
	}
	if left := tmpEntries(t, vroot); len(left) > 0 || currentPrerender(p) != nil {
		t.Fatalf("an upload that made no version left its rendering: %v", left)
	}
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if !equalSums(before, folderSums(t, cur)) {
		t.Fatal("an upload that made no version changed the live folder")
	}

	h.Update(t, pub.ID, ".ttl", string(largeRelativeTurtle("2")))
	pr := currentPrerender(p)
	if pr == nil {
		t.Fatal("the update was not rendered while it was committed")
	}
	<-pr.done
	if pr.err != nil {
		t.Fatal(pr.err)
	}
	ahead := inode(t, pr.dir)
	if !equalSums(before, folderSums(t, cur)) {
		t.Fatal("the rendering went live before the sync of its commit")
	}
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	pg := readPage(t, cur)
	if equalSums(before, folderSums(t, cur)) {
		t.Fatal("the new version is not live")
	}
	if got := inode(t, filepath.Join(vroot, filepath.Base(pg.Version.URL))); got != ahead {
		t.Fatal("the sync rendered the version again instead of taking the rendering made while it was committed")
	}
	if left := tmpEntries(t, vroot); len(left) > 0 || currentPrerender(p) != nil {
		t.Fatalf("staging left: %v", left)
	}
	sameAsReference(t, h, out)
}

// TestRenderAheadWaitsForTheOutcome: a sync that reaches the upload's commit before the store has told the
// pipeline its outcome (the change event comes first) waits for it and takes the rendering of those very bytes.
func TestRenderAheadWaitsForTheOutcome(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	p, out, _ := aheadPipeline(t, h)
	pub := h.Publish(t, h.Open.ID, "big", ".ttl", string(largeRelativeTurtle("1")))
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	b := largeRelativeTurtle("2")
	outcome := p.announced(ctx, store.Upload{RepositoryID: h.Open.ID, PublicationID: pub.ID, Path: "big.ttl", Data: b})
	if outcome == nil {
		t.Fatal("not rendered ahead")
	}
	pr := currentPrerender(p)
	<-pr.done
	ahead := inode(t, pr.dir)
	if _, err := h.Store.UpdatePublication(ctx, h.Admin, pub.ID, store.PublicationPatch{}, &store.Content{Ext: ".ttl", Data: b}); err != nil {
		t.Fatal(err)
	}
	now, err := h.Store.Publication(ctx, model.SystemActor, pub.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		outcome(now.Version.Blob, nil)
	}()
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	meta := tree.PubDir(tree.Root(out, false), "/org/open/big")
	pg := readPage(t, filepath.Join(meta, tree.Current))
	if pg.Version.ID != now.Version.ID {
		t.Fatal("the new version is not live")
	}
	if got := inode(t, filepath.Join(meta, tree.Versions, filepath.Base(pg.Version.URL))); got != ahead {
		t.Fatal("the sync did not take the rendering of the very bytes it was given")
	}
	sameAsReference(t, h, out)
}

// TestRenderAheadOfAnotherBase: an update that also makes the publication's base name its version was rendered
// ahead with the old base; the sync must not take that rendering (relative IRIs resolve differently), and the
// version's dumps are those a render after the commit gives.
func TestRenderAheadOfAnotherBase(t *testing.T) {
	ctx := context.Background()
	h, p, out, log, pub := watchingPipeline(t, largeRelativeTurtle("1"))
	versioned := true
	if _, err := h.Store.UpdatePublication(ctx, h.Admin, pub.ID, store.PublicationPatch{UseVersionedBaseURI: &versioned},
		&store.Content{Ext: ".ttl", Data: largeRelativeTurtle("2")}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "rendering an upload while it is committed") {
		t.Fatal("not rendered ahead")
	}
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	p.pre.wg.Wait()
	vroot := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/big"), tree.Versions)
	if left := tmpEntries(t, vroot); len(left) > 0 || currentPrerender(p) != nil {
		t.Fatalf("the unused rendering was left: %v", left)
	}
	sameAsReference(t, h, out)
}
