package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

// TestUploadWatchers: a large update is announced before it is validated, with the very bytes the reader of the
// committed version is then handed, and its outcome is told exactly once: the committed blob, or an error when
// no version was made (bad content, the same bytes again, a conflict). Small content and new publications are not
// announced, and an unregistered watcher hears nothing.
func TestUploadWatchers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	type told struct {
		up   store.Upload
		blob string
		err  error
		n    int
	}
	var all []*told
	stop := e.s.WatchUploads(func(up store.Upload) func(string, error) {
		w := &told{up: up}
		all = append(all, w)
		return func(blob string, err error) { w.blob, w.err = blob, err; w.n++ }
	})
	good := largeTTL("a", false)
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "big"}, good)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 0 {
		t.Fatal("a new publication was announced")
	}
	bad := largeTTL("b", true)
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &bad); !errors.Is(err, model.ErrInvalid) {
		t.Fatal(err)
	}
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &good); err != nil {
		t.Fatal(err)
	}
	small := ttl("<a> <b> <c> .")
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &small); err != nil {
		t.Fatal(err)
	}
	next := largeTTL("c", false)
	got, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &next)
	if err != nil {
		t.Fatal(err)
	}
	// An actor who may not publish is refused before anything is announced.
	other := largeTTL("d", false)
	if _, err := e.s.UpdatePublication(ctx, e.viewer, p.ID, store.PublicationPatch{}, &other); err == nil {
		t.Fatal("a viewer updated a publication")
	}
	if len(all) != 3 {
		t.Fatalf("%d uploads announced, want 3 (bad, the same bytes, new)", len(all))
	}
	for i, w := range all {
		if w.n != 1 {
			t.Errorf("upload %d: outcome told %d times", i, w.n)
		}
		if w.up.RepositoryID != e.repo.ID || w.up.PublicationID != p.ID || w.up.Path != "big.ttl" {
			t.Errorf("upload %d: announced as %+v", i, w.up)
		}
	}
	if all[0].err == nil || all[1].err == nil || all[0].blob != "" || all[1].blob != "" {
		t.Errorf("no version was made of bad content (%v) nor of the same bytes (%v)", all[0].err, all[1].err)
	}
	if all[2].err != nil || all[2].blob != got.Version.Blob {
		t.Errorf("committed upload told as %q, %v; the version's blob is %s", all[2].blob, all[2].err, got.Version.Blob)
	}
	_, held, err := e.s.TakePublicationContent(ctx, model.SystemActor, p.ID, "")
	if err != nil || &held[0] != &all[2].up.Data[0] || &next.Data[0] != &held[0] {
		t.Error("the announced bytes are not those the version's reader is handed")
	}
	stop()
	last := largeTTL("e", false)
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &last); err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Error("a watcher that stopped was told of an upload")
	}
}
