package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

// TestRenderedUploadIsRecycled: once a large upload is rendered, its memory is what the store hands out for the
// next upload (Store.UploadBuffer), and writing over it changes nothing that was published or stored. An upload
// another reader was given before the pipeline took it is never handed out for writing.
func TestRenderedUploadIsRecycled(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	out := t.TempDir()
	p := testPipeline(t, h, out)
	data := string(largeNTriples())
	v1 := data + "<http://example.org/m> <http://example.org/v> \"1\" .\n"
	pub := h.Publish(t, h.Open.ID, "large", ".nt", v1)
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	cur := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/large"), tree.Current)
	before := folderSums(t, cur)

	buf := h.Store.UploadBuffer(len(v1))
	if cap(buf) < len(v1) || string(buf[:len(v1)]) != v1 {
		t.Fatal("the rendered upload's memory was not handed out for the next upload")
	}
	full := buf[:cap(buf)]
	for i := range full {
		full[i] = 'x' // what the next upload does to it
	}
	_, stored, err := h.Store.PublicationContent(ctx, model.SystemActor, pub.ID, "")
	if err != nil || string(stored) != v1 {
		t.Fatalf("the stored content changed with the recycled buffer (%d bytes, %v)", len(stored), err)
	}
	if after := folderSums(t, cur); !equalSums(before, after) {
		t.Fatal("the live folder changed with the recycled buffer")
	}

	v2 := data + "<http://example.org/m> <http://example.org/v> \"2\" .\n"
	h.Update(t, pub.ID, ".nt", v2)
	_, held, err := h.Store.PublicationContent(ctx, model.SystemActor, pub.ID, "") // a reader holds the upload
	if err != nil || string(held) != v2 {
		t.Fatal(err)
	}
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if pg := readPage(t, cur); pg.Stats.Triples == 0 {
		t.Fatal("second version not rendered")
	}
	next := h.Store.UploadBuffer(len(v2))
	if unsafe.SliceData(next[:1]) == unsafe.SliceData(held) {
		t.Fatal("an upload another reader holds was handed out for the next upload")
	}
	if string(held) != v2 {
		t.Fatal("the held upload changed")
	}
}

func folderSums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string][32]byte{}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sums[e.Name()] = sha256.Sum256(b)
	}
	return sums
}

func equalSums(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v[:], w[:]) {
			return false
		}
	}
	return true
}
