package store_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/gitrepo"
	"github.com/ldhub/ldhub/content/store/history"
)

// BenchmarkRead compares the indexed reads (latest content, versions list) with the reference they replace: a
// walk of the whole history (a cold index) per call. Same repository, same run.
func BenchmarkRead(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	const pubs, commits = 20, 300
	var ids []string
	for i := 0; i < pubs; i++ {
		p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: fmt.Sprintf("p%02d", i)}, ttl("<a> <b> 0 ."))
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	for i := pubs; i < commits; i++ {
		c := ttl(fmt.Sprintf("<a> <b> %d .", i))
		if _, err := e.s.UpdatePublication(ctx, e.pub, ids[i%pubs], store.PublicationPatch{}, &c); err != nil {
			b.Fatal(err)
		}
	}
	id := ids[0]
	b.Run("latest-content", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := e.s.PublicationContent(ctx, e.viewer, id, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list-versions", func(b *testing.B) {
		for b.Loop() {
			p, err := e.s.Publication(ctx, e.viewer, id, "")
			if err != nil || len(p.Versions) != commits/pubs {
				b.Fatal(err, len(p.Versions))
			}
		}
	})
	b.Run("reference-history-walk", func(b *testing.B) {
		g, err := gitrepo.Open(e.s.RepoDir(e.repo.ID))
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			snap, err := history.New(g, e.repo.ID, nil).Current(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if it, ok := snap.Item(id); !ok || len(it.Versions) != commits/pubs {
				b.Fatal("missing versions")
			}
		}
	})
}

// BenchmarkWrite measures a whole publication update through the store (access check, validation, commit with
// the objects flushed, index update); "parallel" runs writers on every core against one repository, where writes
// are serialised.
func BenchmarkWrite(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> 0 ."))
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	update := func() error {
		c := ttl(fmt.Sprintf("<a> <b> %d .", n.Add(1)))
		_, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &c)
		return err
	}
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			if err := update(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := update(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
