package pipeline

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/site/tree"
)

// Under Run, a large update's rendering starts when the store announces the upload (store.WatchUploads), beside
// the store's validation, git blob and fsync, instead of after the commit. For a 1 M-triple upload those took
// 1.1–1.6 s before the render could start (make bench-upload), with a core idle most of the time, and the render
// itself (about 2.5 s) keeps only ~1.6 cores busy: started together they fill both.
//
// Nothing of it is live before the commit is on the branch. The rendering is a temporary folder in the
// publication's versions folder, as ensureVersion's own, and the sync that the commit starts takes it instead of
// rendering (ensureVersion: the same content by blob id, the same syntax, base and folder), then writes the page
// and switches as always. An upload the store refuses or does not commit drops it; so does a sync of the
// repository that finds it unused, and the end of Run. A rendering is a function of the content, its syntax and
// its base alone, so the bytes are those a render after the commit gives.
//
// One at a time, and only while the pipeline is otherwise idle: a prerender holds the work lock while it renders,
// so memory stays that of one render, and a sync that would use it waits for it to end. A publication whose base
// names the version (useVersionedBaseUri) is not rendered ahead: the commit chooses the label.
type prerender struct {
	repoID, pubID string
	data          []byte
	syntax, base  string
	termsLater    bool
	dir           string // the temporary folder rendered into, in the publication's versions folder
	cancel        context.CancelFunc

	done chan struct{} // closed when the render ended; r and err are set then
	r    rendering
	err  error

	settled chan struct{} // closed by the store's outcome; blob and failed are set then
	blob    string
	failed  bool
}

type prerenders struct {
	mu  sync.Mutex
	cur *prerender
	wg  sync.WaitGroup // renders and drops in flight
}

// watchUploads renders large uploads ahead of their commits until the returned function is called, which waits
// for what is in flight and removes what was not used.
func (p *Pipeline) watchUploads(ctx context.Context) (stop func()) {
	unwatch := p.o.Store.WatchUploads(func(up store.Upload) func(string, error) {
		return p.announced(ctx, up)
	})
	return func() {
		unwatch()
		p.pre.mu.Lock()
		pr := p.pre.cur
		p.pre.mu.Unlock()
		if pr != nil {
			p.dropPrerender(pr)
		}
		p.pre.wg.Wait()
	}
}

// announced starts rendering an upload, and returns what the store tells of its outcome (nil when it renders
// nothing: a small or new publication, a versioned base, or a pipeline busy with other work).
func (p *Pipeline) announced(ctx context.Context, up store.Upload) func(string, error) {
	if len(up.Data) <= codec.StreamAbove || ctx.Err() != nil {
		return nil
	}
	syn, ok := p.o.Codecs.ByPath(up.Path)
	if !ok {
		return nil
	}
	pub, err := p.o.Store.Publication(ctx, model.SystemActor, up.PublicationID, "")
	if err != nil || pub.UseVersionedBaseURI {
		return nil
	}
	repo, err := p.o.Store.Repository(ctx, model.SystemActor, up.RepositoryID)
	if err != nil {
		return nil
	}
	repoPath, err := p.o.Store.Path(ctx, up.RepositoryID)
	if err != nil {
		return nil
	}
	urlPath := path.Join(repoPath, pub.PublicationURI)
	vroot := filepath.Join(tree.PubDir(tree.Root(p.o.Out, !repo.Visible), urlPath), tree.Versions)
	if fi, err := os.Stat(vroot); err != nil || !fi.IsDir() {
		return nil // not rendered yet: the first sync renders it all
	}
	if !p.work.TryLock() {
		return nil
	}
	p.pre.mu.Lock()
	old := p.pre.cur
	if old != nil && !closed(old.settled) {
		// Another upload's rendering waits for its commit; one at a time.
		p.pre.mu.Unlock()
		p.work.Unlock()
		return nil
	}
	p.pre.cur = nil
	p.pre.mu.Unlock()
	if old != nil {
		// Its commit was told and no sync took it since: not wanted, or about to be rendered anyway.
		p.pre.wg.Add(1)
		go func() { defer p.pre.wg.Done(); _ = os.RemoveAll(old.dir) }()
	}
	dir, err := os.MkdirTemp(vroot, tmpPrefix)
	if err != nil {
		p.work.Unlock()
		return nil
	}
	rctx, cancel := context.WithCancel(ctx)
	pr := &prerender{repoID: up.RepositoryID, pubID: up.PublicationID, data: up.Data, syntax: syn.Name,
		base: p.o.BaseURL + urlPath + "/", termsLater: p.gz.Load() != nil, dir: dir, cancel: cancel,
		done: make(chan struct{}), settled: make(chan struct{})}
	p.pre.mu.Lock()
	p.pre.cur = pr
	p.pre.mu.Unlock()
	p.o.Log.Debug("pipeline: rendering an upload while it is committed", "publication", urlPath, "bytes", len(up.Data))
	p.pre.wg.Add(1)
	go func() {
		defer p.pre.wg.Done()
		defer p.work.Unlock()
		// The files' times are the version's, set when the sync takes the folder (ensureVersion's touchAll).
		pr.r, pr.err = renderVersion(rctx, p.o.Codecs, dir, source{data: pr.data, syntax: syn, base: pr.base}, time.Time{}, pr.termsLater)
		close(pr.done)
		if pr.err != nil {
			p.o.Log.Debug("pipeline: rendering ahead of the commit failed", "publication", urlPath, "err", pr.err)
		}
	}()
	return func(blob string, err error) {
		pr.blob, pr.failed = blob, err != nil
		close(pr.settled)
		if err != nil {
			p.dropPrerender(pr)
		}
	}
}

// dropPrerender stops pr and removes its folder, unless a sync took it already.
func (p *Pipeline) dropPrerender(pr *prerender) {
	if !p.takePrerender(pr) {
		return
	}
	pr.cancel()
	p.pre.wg.Add(1)
	go func() {
		defer p.pre.wg.Done()
		<-pr.done
		_ = os.RemoveAll(pr.dir)
	}()
}

// claimPrerender returns the rendering made ahead of the commit for version v of publication pubID, whose content
// is data, when it is that content rendered as ensureVersion would render it into a temporary folder of vroot; nil
// otherwise (the caller renders). The caller holds the work lock, so no prerender is rendering. A rendering of the
// very bytes given waits for the store's outcome, which a sync may see the commit before.
func (p *Pipeline) claimPrerender(ctx context.Context, pubID string, v model.Version, data []byte, syntax, base string, termsLater bool, vroot string) *prerender {
	p.pre.mu.Lock()
	pr := p.pre.cur
	p.pre.mu.Unlock()
	if pr == nil || pr.pubID != pubID {
		return nil
	}
	if len(pr.data) == len(data) && len(data) > 0 && &pr.data[0] == &data[0] {
		select {
		case <-pr.settled:
		case <-ctx.Done():
			return nil
		}
	} else if !closed(pr.settled) || pr.blob != v.Blob {
		return nil // another upload's, on its way or for a later sync
	}
	if !p.takePrerender(pr) {
		return nil
	}
	<-pr.done
	if pr.failed || pr.err != nil || pr.blob != v.Blob || pr.syntax != syntax || pr.base != base ||
		pr.termsLater != termsLater || filepath.Dir(pr.dir) != vroot {
		_ = os.RemoveAll(pr.dir)
		return nil
	}
	return pr
}

// takePrerender makes pr the caller's to use or remove, unless another caller took it first.
func (p *Pipeline) takePrerender(pr *prerender) bool {
	p.pre.mu.Lock()
	defer p.pre.mu.Unlock()
	if p.pre.cur != pr {
		return false
	}
	p.pre.cur = nil
	return true
}

// settledPrerender returns the rendering of an upload to repoID whose commit the store has told, if any.
func (p *Pipeline) settledPrerender(repoID string) *prerender {
	p.pre.mu.Lock()
	defer p.pre.mu.Unlock()
	if pr := p.pre.cur; pr != nil && pr.repoID == repoID && closed(pr.settled) {
		return pr
	}
	return nil
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
