// Package pipeline turns the store's commits into the rendered tree that direct URLs, nginx and the SPARQL service
// read: for every version of every publication its dumps (Turtle, N-Triples, RDF/XML, JSON-LD — TriG, N-Quads and
// JSON-LD for datasets — each with a .gz sibling), its SPARQL index, its statistics and its page, laid out as
// site/tree describes.
//
// Rendering is incremental (a publication whose latest version, meta-data and place are unchanged is skipped, and a
// version folder, once written, is never written again), deterministic (fixed blank-node labels, no clocks: the same
// commit gives the same bytes) and atomic (everything is written into a temporary folder that is renamed into place;
// the latest version is switched by renaming a symlink, so a reader sees the old publication or the new one).
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ldhub/ldhub/atomicfile"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// Options configure a pipeline.
type Options struct {
	Store *store.Store
	// Out is the rendered tree's root (it gets public/, private/ and state/).
	Out string
	// BaseURL is the hub's public URL without a trailing slash; publication URIs start with it.
	BaseURL string
	Codecs  *codec.Registry // nil is codec.Default()
	HTML    *HTML           // the pages (see pages.go); nil renders none
	Log     *slog.Logger
	// Synced, when set, is called by Run after each sync it made (the first full build, then each batch of
	// changes), so that a follower of the tree (a publisher to object storage) reads it when it is complete.
	Synced func()
	// Live, when set, is told the folder of each publication's latest version (its .ld/cur) once the version is
	// live: after each sync of its repository, and so for every publication after a start. ldhub serve prepares
	// the index there for its first query (describe.Indexes.Warm). It must not block.
	Live func(dir string)
}

// Pipeline renders publications. Its methods may be called concurrently; rendering itself is serialised, so there
// is one writer of the tree.
type Pipeline struct {
	o    Options
	work sync.Mutex // held while rendering
	mu   sync.Mutex // guards live, failed and unrendered
	live map[string]string
	// failed holds, by publication id, why the last sync that wanted a version live could not render it, so that
	// a write waiting for that version (a push, an upload) answers at once rather than at its bound.
	failed map[string]failure
	// unrendered holds, by publication id, the older versions the live one was rendered without (their content
	// was refused), each as RenderError words, so that a push to the repository keeps saying so.
	unrendered map[string][]string
	stateMu    sync.Mutex
	batch      *pageBatch                // the pages and renames of the sync in progress (under work)
	gz         atomic.Pointer[gzipQueue] // the background worker's queue while Run runs one (gzip.go)
	terms      termWorker                // the term pages written after their folders went live (termpages.go)
	// pageGen counts, by folder, the renders of its page queued for after the switch and done by syncs since, so
	// that an older background render never replaces a newer page; laterRepos counts the pages each repository
	// waits for (later.go). Both under work.
	pageGen    map[string]uint64
	laterRepos map[string]int
	pre        prerenders // large uploads rendered while they are committed (prerender.go)
	docs       sharedDocs // terms.json decoded, shared by the workers reading it at once (docshare.go)
	// gone counts the folders of removed publications still being deleted in the background (removePubDir).
	gone     sync.WaitGroup
	goneHook func() // tests: called by the background deletion before it deletes
}

// Result says what one sync did, by publication id. Refused are the publications not rendered because their
// path is over model.MaxPathLen (each logged as a warning).
type Result struct {
	Rendered, Skipped, Removed, Refused []string
}

func (r *Result) add(o Result) {
	r.Refused = append(r.Refused, o.Refused...)
	r.Rendered = append(r.Rendered, o.Rendered...)
	r.Skipped = append(r.Skipped, o.Skipped...)
	r.Removed = append(r.Removed, o.Removed...)
}

// New checks the options and returns a pipeline.
func New(o Options) (*Pipeline, error) {
	if o.Store == nil || o.Out == "" {
		return nil, errors.New("pipeline: a store and an output folder are required")
	}
	return newPipeline(o)
}

func newPipeline(o Options) (*Pipeline, error) {
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.Codecs == nil {
		o.Codecs = codec.Default()
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	for _, d := range []string{tree.Root(o.Out, false), tree.Root(o.Out, true), filepath.Join(o.Out, "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("pipeline: %w", err)
		}
	}
	return &Pipeline{o: o, live: map[string]string{}, failed: map[string]failure{}, unrendered: map[string][]string{}, pageGen: map[string]uint64{}, laterRepos: map[string]int{}}, nil
}

// Pending reports whether the publication's latest version is not yet live (v4 "pending"). An unknown or deleted
// publication is not pending.
func (p *Pipeline) Pending(publicationID string) bool {
	pub, err := p.o.Store.Publication(context.Background(), model.SystemActor, publicationID, "")
	if err != nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live[publicationID] != pub.Version.ID
}

// Live reports whether every publication of a repository has its latest version live (RepositoryOutcome without
// the reason).
func (p *Pipeline) Live(ctx context.Context, repoID string) bool {
	live, _ := p.RepositoryOutcome(ctx, repoID)
	return live
}

// failure is a sync's failed attempt to make version live.
type failure struct {
	version string
	err     *RenderError
}

// RenderError says why a publication's latest version is not live: the sync that was to render it failed. Its
// Error is for the writer who published the version (a push's "remote:" lines, an upload's JSON error): the RDF
// syntax error (with line and column) when that was the cause, else only that rendering failed; the cause, which
// may name the server's files, is in Err and in the pipeline's log.
type RenderError struct {
	URI     string // the publication's URI
	Version string // the label of the version that failed, when one did
	Err     error
}

func (e *RenderError) Error() string {
	what := e.URI
	if e.Version != "" {
		what += " version " + e.Version
	}
	if syn, ok := errors.AsType[*rdf.SyntaxError](e.Err); ok {
		return what + " could not be rendered: " + syn.Error()
	}
	if errors.Is(e.Err, model.ErrInvalid) {
		return what + " could not be rendered: " + e.Err.Error()
	}
	return what + " could not be rendered (the hub's log says why)"
}

func (e *RenderError) Unwrap() error { return e.Err }

// versionError names the version whose rendering failed.
type versionError struct {
	label string
	err   error
}

func (e *versionError) Error() string { return "version " + e.label + ": " + e.err.Error() }
func (e *versionError) Unwrap() error { return e.err }

// Outcome reports whether the publication's latest version is live and, when it is not, why the sync that was
// to render it failed (nil while it is still to be tried). An unknown or deleted publication is live.
func (p *Pipeline) Outcome(ctx context.Context, publicationID string) (bool, error) {
	pub, err := p.o.Store.Publication(ctx, model.SystemActor, publicationID, "")
	if err != nil {
		return true, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live[publicationID] == pub.Version.ID {
		return true, nil
	}
	if f, ok := p.failed[publicationID]; ok && f.version == pub.Version.ID {
		return false, f.err
	}
	return false, nil
}

// RepositoryOutcome is Outcome over every publication of a repository: live when all are, and an error (those of
// the publications that failed, joined) once each is either live or failed, so that a write waiting for the
// repository (a push here, a write a read replica forwarded) answers as soon as nothing it waits for will change.
// A repository it cannot read is live.
func (p *Pipeline) RepositoryOutcome(ctx context.Context, repoID string) (bool, error) {
	pubs, err := p.o.Store.Publications(ctx, model.SystemActor, repoID)
	if err != nil {
		return true, nil
	}
	present := make(map[string]bool, len(pubs))
	var errs []error
	p.mu.Lock()
	for _, pub := range pubs {
		present[pub.ID] = true
		if p.live[pub.ID] == pub.Version.ID {
			continue
		}
		f, ok := p.failed[pub.ID]
		if !ok || f.version != pub.Version.ID {
			p.mu.Unlock()
			return false, nil // still to be rendered
		}
		errs = append(errs, f.err)
	}
	p.mu.Unlock()
	// A publication the write removed answers until the sync takes its folder away, and the repository's state
	// lists it until then: a push that says "removed" answers after that.
	for id := range p.loadState(repoID).Publications {
		if !present[id] {
			return false, nil
		}
	}
	return len(errs) == 0, errors.Join(errs...)
}

// renderError is err, the failure to render pub (or one of its versions), in the words a writer is told.
func (p *Pipeline) renderError(pub model.Publication, repoPath string, err error) *RenderError {
	re := &RenderError{URI: p.o.BaseURL + path.Join(repoPath, pub.PublicationURI), Err: err}
	if ve, ok := errors.AsType[*versionError](err); ok {
		re.Version = ve.label
	}
	return re
}

// Unrendered lists, for each publication of a repository, the older versions its live version was rendered
// without because their content could not be rendered, in the words of RenderError (a push prints them).
func (p *Pipeline) Unrendered(ctx context.Context, repoID string) []string {
	pubs, err := p.o.Store.Publications(ctx, model.SystemActor, repoID)
	if err != nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, pub := range pubs {
		out = append(out, p.unrendered[pub.ID]...)
	}
	return out
}

// LeftOut lists the older versions of a publication that its live version was rendered without because their
// content could not be rendered, in the words of RenderError, as Unrendered does for a push.
func (p *Pipeline) LeftOut(pubID string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.unrendered[pubID])
}

// setFailed records that the sync which was to make pub's latest version live failed with err.
func (p *Pipeline) setFailed(pub model.Publication, repoPath string, err error) {
	re := p.renderError(pub, repoPath, err)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failed[pub.ID] = failure{version: pub.Version.ID, err: re}
}

// Run renders everything once, then follows the store's change events until ctx ends. Errors of single
// publications are logged and do not stop it. Term pages still being written when ctx ends are left for the next
// start.
func (p *Pipeline) Run(ctx context.Context) error {
	defer p.gone.Wait()
	defer p.stopTermPages()
	events := p.o.Store.Subscribe(ctx)
	// The .gz siblings of large versions are written after they went live, beside the renders.
	q := newGzipQueue()
	gzCtx, stopGzip := context.WithCancel(ctx)
	gzDone := make(chan struct{})
	go func() { defer close(gzDone); p.runGzip(gzCtx, q) }()
	p.gz.Store(q)
	defer func() { p.gz.Store(nil); stopGzip(); <-gzDone }()
	defer p.watchUploads(ctx)()
	if n, err := p.sweep(); err != nil {
		p.o.Log.Warn("pipeline: removing what killed renders left", "err", err)
	} else if n > 0 {
		p.o.Log.Info("pipeline: removed what killed renders left", "entries", n)
	}
	if _, err := p.BuildAll(ctx, nil); err != nil && ctx.Err() == nil {
		p.o.Log.Error("pipeline: initial build", "err", err)
	}
	p.synced()
	for ev := range events {
		all := ev.Resync || ev.RepositoryID == ""
		repos := map[string]bool{ev.RepositoryID: true}
		// Coalesce what queued up while the last render ran: one sync per repository is enough.
	drain:
		for {
			select {
			case e, ok := <-events:
				if !ok {
					break drain
				}
				all = all || e.Resync || e.RepositoryID == ""
				repos[e.RepositoryID] = true
			default:
				break drain
			}
		}
		var err error
		if all {
			_, err = p.BuildAll(ctx, nil)
		} else {
			for id := range repos {
				if _, e := p.SyncRepository(ctx, id); e != nil {
					err = errors.Join(err, e)
				}
			}
		}
		if err != nil && ctx.Err() == nil {
			p.o.Log.Error("pipeline: render", "err", err)
		}
		p.synced()
	}
	return ctx.Err()
}

func (p *Pipeline) synced() {
	if p.o.Synced != nil {
		p.o.Synced()
	}
}

// Progress is told after each repository of a full build.
type Progress func(done, total int, repository string)

// BuildAll syncs every repository, and removes renderings of repositories that no longer exist.
func (p *Pipeline) BuildAll(ctx context.Context, progress Progress) (Result, error) {
	repos, err := p.o.Store.Repositories(ctx, model.SystemActor, "")
	if err != nil {
		return Result{}, fmt.Errorf("pipeline: listing repositories: %w", err)
	}
	sort.Slice(repos, func(i, j int) bool { return repos[i].ID < repos[j].ID })
	var res Result
	var errs []error
	known := map[string]bool{}
	for i, r := range repos {
		known[r.ID] = true
		one, err := p.SyncRepository(ctx, r.ID)
		res.add(one)
		if err != nil {
			errs = append(errs, err)
		}
		if progress != nil {
			progress(i+1, len(repos), r.Name)
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
	}
	states, _ := filepath.Glob(filepath.Join(p.o.Out, "state", "*.json"))
	for _, s := range states {
		id := strings.TrimSuffix(filepath.Base(s), ".json")
		if !known[id] {
			p.work.Lock()
			removed, err := p.dropRepository(id)
			p.work.Unlock()
			res.Removed = append(res.Removed, removed...)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return res, errors.Join(errs...)
}

// repoState records what is rendered of one repository, so that a later sync knows what to skip and what to remove.
type repoState struct {
	Publications map[string]pubState `json:"publications"`
	Path         string              `json:"path,omitempty"`  // URL path of the repository's page
	Pages        string              `json:"pages,omitempty"` // fingerprint of the theme the pages were rendered with
}

type pubState struct {
	Path    string `json:"path"` // URL path
	Private bool   `json:"private"`
	Key     string `json:"key"`    // hash of everything the latest rendering depends on
	Latest  string `json:"latest"` // version id live at the unversioned URL
	// Unrendered: the older versions left out because their content was refused (RenderError words), kept so
	// that a sync that skips the publication, or the next start, still reports them.
	Unrendered []string `json:"unrendered,omitempty"`
}

func (p *Pipeline) statePath(repoID string) string {
	return filepath.Join(p.o.Out, "state", repoID+".json")
}

func (p *Pipeline) loadState(repoID string) repoState {
	st := repoState{Publications: map[string]pubState{}}
	b, err := os.ReadFile(p.statePath(repoID))
	if err == nil {
		_ = json.Unmarshal(b, &st) // a damaged state only costs a re-render
	}
	if st.Publications == nil {
		st.Publications = map[string]pubState{}
	}
	return st
}

func (p *Pipeline) saveState(repoID string, st repoState) error {
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(p.statePath(repoID), b, 0o600)
}

// SyncRepository brings the renderings of one repository up to date with its head.
func (p *Pipeline) SyncRepository(ctx context.Context, repoID string) (Result, error) {
	p.work.Lock()
	defer p.work.Unlock()
	p.beginPages()
	defer p.endPages()
	// A rendering made ahead of a commit this sync sees is taken by it or not wanted (prerender.go).
	if pr := p.settledPrerender(repoID); pr != nil {
		defer p.dropPrerender(pr)
	}
	repo, err := p.o.Store.Repository(ctx, model.SystemActor, repoID)
	if errors.Is(err, model.ErrNotFound) {
		old := p.loadState(repoID).Path
		removed, err := p.dropRepository(repoID)
		if p.o.HTML != nil {
			err = errors.Join(err, p.commitPages(ctx, func(hb *html.Batch) ([]indexPage, []string, error) {
				return p.indexPages(ctx, hb, nil, "", old, nil)
			}))
		}
		return Result{Removed: removed}, err
	}
	if err != nil {
		return Result{}, fmt.Errorf("pipeline: repository %s: %w", repoID, err)
	}
	repoPath, err := p.o.Store.Path(ctx, repoID)
	if err != nil {
		return Result{}, fmt.Errorf("pipeline: path of repository %s: %w", repoID, err)
	}
	pubs, err := p.o.Store.Publications(ctx, model.SystemActor, repoID)
	if err != nil {
		return Result{}, fmt.Errorf("pipeline: publications of %s: %w", repoPath, err)
	}
	st := p.loadState(repoID)
	if st.Pages == "" && p.laterPending(repoID) {
		st.Pages = p.batch.stamp // its pages wait for this process's background worker, not for a new render
	}
	p.restamp(&st)
	var res Result
	var errs []error
	present := map[string]bool{}
	var live []pubLive // live once committed
	groups := groupNamesOn(repoPath, p.groupNames(ctx))
	listed := pubs[:0:0] // the publications the repository's page lists: those not refused below
	for _, pub := range pubs {
		present[pub.ID] = true
		// A path the store now refuses (model.MaxPathLen), written by an older ldhub or with plain git into the
		// bare repository, may not fit the file system's paths below the tree: the rest of the repository is
		// built without it, and a write waiting for the repository is told why (Outcome).
		if n := len(pub.PublicationURI); n > model.MaxPathLen {
			err := model.Invalidf("its path is %d bytes, more than the limit of %d to be published", n, model.MaxPathLen)
			p.o.Log.Warn("pipeline: publication not rendered: its path is over the limit", "repository", repoPath,
				"path", pub.PublicationURI, "bytes", n, "limit", model.MaxPathLen)
			p.setFailed(pub, repoPath, err)
			res.Refused = append(res.Refused, pub.ID)
			continue
		}
		listed = append(listed, pub)
		ps, rendered, err := p.syncPublication(ctx, repo, repoPath, groups, pub, st.Publications[pub.ID])
		if err != nil {
			if ctx.Err() == nil {
				p.setFailed(pub, repoPath, err)
			}
			errs = append(errs, fmt.Errorf("pipeline: %s/%s: %w", repoPath, pub.PublicationURI, err))
			continue
		}
		st.Publications[pub.ID] = ps
		live = append(live, pubLive{pub.ID, ps.Latest, ps.Unrendered})
		if rendered {
			res.Rendered = append(res.Rendered, pub.ID)
		} else {
			res.Skipped = append(res.Skipped, pub.ID)
		}
		if ctx.Err() != nil {
			break
		}
	}
	for id, ps := range st.Publications {
		if !present[id] {
			p.dropTermPages(tree.PubDir(tree.Root(p.o.Out, ps.Private), ps.Path), "")
			if err := p.removePubDir(tree.PubDir(tree.Root(p.o.Out, ps.Private), ps.Path)); err != nil {
				errs = append(errs, err)
				continue
			}
			delete(st.Publications, id)
			p.setLive(id, "")
			res.Removed = append(res.Removed, id)
		}
	}
	// Nothing rendered above is live yet: one Hugo build writes every page, then the folders go into place.
	err = p.commitPages(ctx, func(hb *html.Batch) ([]indexPage, []string, error) {
		return p.indexPages(ctx, hb, &repo, repoPath, st.Path, listed)
	})
	if err != nil {
		// The state is not saved, so the next sync renders all of it again.
		// The publications rendered above are not live either: a write waiting for them is told.
		if ctx.Err() == nil {
			for _, pub := range pubs {
				if _, ok := st.Publications[pub.ID]; ok && slices.ContainsFunc(live, func(l pubLive) bool { return l.id == pub.ID && l.version == pub.Version.ID }) {
					p.setFailed(pub, repoPath, err)
				}
			}
		}
		return Result{}, errors.Join(append(errs, err)...)
	}
	for _, l := range live {
		// Left-out versions first: an upload that waits for the version to be live reads them as soon as it is.
		p.setUnrendered(l.id, l.unrendered)
		p.setLive(l.id, l.version)
		if ps := st.Publications[l.id]; p.o.Live != nil {
			p.o.Live(filepath.Join(tree.PubDir(tree.Root(p.o.Out, ps.Private), ps.Path), tree.Current))
		}
	}
	st.Path, st.Pages = repoPath, p.batch.stamp
	if p.laterPending(repoID) {
		st.Pages = "" // until the background worker has documented its pages (later.go)
	}
	if err := p.saveState(repoID, st); err != nil {
		errs = append(errs, err)
	}
	return res, errors.Join(errs...)
}

// removePubDir takes a removed publication's folder out of the tree at once and deletes it in the background. A
// large publication's folder holds tens of thousands of term pages: unlinking them under p.work kept the removed
// publication answering, and every other sync (and the push or upload waiting for one) waiting, for minutes. The
// folder is moved under a staging name (tmpPrefix), so what a crash leaves is the next start's sweep; readers that
// opened a file in it keep reading it. WaitTermPages (`ldhub build`) and Run's end wait for the deletions.
func (p *Pipeline) removePubDir(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	aside, err := os.MkdirTemp(filepath.Dir(dir), tmpPrefix+"gone-")
	if err != nil {
		return os.RemoveAll(dir)
	}
	if err := os.Rename(dir, filepath.Join(aside, "p")); err != nil {
		_ = os.Remove(aside)
		return os.RemoveAll(dir)
	}
	p.gone.Add(1)
	go func() {
		defer p.gone.Done()
		if p.goneHook != nil {
			p.goneHook()
		}
		_ = os.RemoveAll(aside)
	}()
	return nil
}

// pubLive is a publication's version made live by a sync, with the older versions it was rendered without.
type pubLive struct {
	id, version string
	unrendered  []string
}

func (p *Pipeline) setUnrendered(id string, unrendered []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(unrendered) == 0 {
		delete(p.unrendered, id)
	} else {
		p.unrendered[id] = unrendered
	}
}

func (p *Pipeline) setLive(id, version string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.failed, id)
	if version == "" {
		delete(p.live, id)
		delete(p.unrendered, id)
	} else {
		p.live[id] = version
	}
}

func (p *Pipeline) dropRepository(repoID string) ([]string, error) {
	st := p.loadState(repoID)
	var removed []string
	var errs []error
	for id, ps := range st.Publications {
		p.dropTermPages(tree.PubDir(tree.Root(p.o.Out, ps.Private), ps.Path), "")
		if err := p.removePubDir(tree.PubDir(tree.Root(p.o.Out, ps.Private), ps.Path)); err != nil {
			errs = append(errs, err)
			continue
		}
		p.setLive(id, "")
		removed = append(removed, id)
	}
	if len(errs) == 0 {
		p.removeIndexPage(st.Path)
		errs = append(errs, os.Remove(p.statePath(repoID)))
		if errors.Is(errs[0], os.ErrNotExist) {
			errs = nil
		}
	}
	return removed, errors.Join(errs...)
}

// syncPublication renders what is missing of one publication and switches its latest version.
func (p *Pipeline) syncPublication(ctx context.Context, repo model.Repository, repoPath string, groups []string, pub model.Publication, old pubState) (pubState, bool, error) {
	urlPath := path.Join(repoPath, pub.PublicationURI)
	private := !repo.Visible
	versions := make([]tree.Version, len(pub.Versions))
	for i, v := range pub.Versions {
		tv, err := treeVersion(urlPath, v)
		if err != nil {
			return old, false, err
		}
		versions[i] = tv
	}
	strictlyLater(versions)
	base := tree.Page{
		ID: pub.ID, Name: pub.Name, Description: pub.Description, Owner: pub.Owner, Publisher: pub.Publisher,
		RepositoryID: repo.ID, RepositoryPath: repoPath, RepositoryName: repo.Name, GroupNames: groups, Private: private,
		URI: p.o.BaseURL + urlPath, Path: urlPath,
	}
	key := stateKey(base, versions, pub.Version.ID)
	if old.Key == key && old.Path == urlPath && old.Private == private {
		pubDir := tree.PubDir(tree.Root(p.o.Out, private), urlPath)
		// An index an earlier binary wrote in another format renders the publication again (see reindex).
		if _, err := os.Stat(filepath.Join(pubDir, tree.Current)); err == nil && !index.Stale(filepath.Join(pubDir, tree.Current, tree.Index)) {
			// The latest version's .gz siblings, if a stop came before they were written.
			if tv, err := treeVersion(urlPath, pub.Version); err == nil {
				vdir := filepath.Join(pubDir, tree.Versions, path.Base(tv.URL))
				p.resumeDumps(ctx, vdir)
				p.queueGzip(vdir, unzippedDumps(vdir))
				p.resumeTerms(ctx, vdir)
			}
			p.resumeTermPages(pubDir, false)
			return old, false, nil
		}
	}
	// The publication moved (a renamed path or changed visibility): its old folder goes once the new one is live.
	moved := old.Path != "" && (old.Path != urlPath || old.Private != private)

	root := tree.Root(p.o.Out, private)
	pubDir := tree.PubDir(root, urlPath)
	vroot := filepath.Join(pubDir, tree.Versions)
	if err := os.MkdirAll(vroot, 0o755); err != nil {
		return old, false, err
	}
	var latest *tree.Page
	wanted := map[string]bool{}
	start := len(p.batch.jobs)
	offered := versions[:0:0] // the versions rendered: the folders the pages list and link
	var unrendered []string
	for i, v := range pub.Versions {
		name := path.Base(versions[i].URL)
		page, err := p.ensureVersion(ctx, pub, v, base, versions[i], filepath.Join(vroot, name))
		if err != nil {
			err = &versionError{label: v.Label, err: err}
			if v.ID == pub.Version.ID || !refused(err) || ctx.Err() != nil {
				return old, false, err
			}
			// An older version whose content the pipeline refuses (stored with plain git, or before a check
			// existed) is left out rather than holding every later version back: its content never changes, so
			// no retry would render it. Its URL answers 404 and the pages do not list it; the push says so.
			re := p.renderError(pub, repoPath, err)
			p.o.Log.Warn("pipeline: older version left out: its content could not be rendered", "publication", urlPath,
				"version", v.Label, "err", err)
			unrendered = append(unrendered, re.Error())
			continue
		}
		wanted[name] = true
		offered = append(offered, versions[i])
		p.batch.triples[v.ID] = page.Stats.Triples
		if v.ID == pub.Version.ID {
			latest = page
		}
	}
	if latest == nil {
		return old, false, fmt.Errorf("latest version %s is not among the versions", pub.Version.Label)
	}
	versions = offered
	if err := p.navVersions(start, versions, pub.Version.ID, vroot); err != nil {
		return old, false, err
	}
	// Only the latest folder lists the retracted versions: version folders are immutable, rendered before or
	// after a retraction alike.
	cur := base
	for _, v := range pub.Retracted {
		tv, err := treeVersion(urlPath, v)
		if err != nil {
			return old, false, err
		}
		cur.Retracted = append(cur.Retracted, tv)
	}
	// A time moved past its commit's can lie a second or two ahead of the clock; the switch waits for it. Apache
	// sends the request's time for a file modified in the future, nginx and ldhub the file's, so the same file would
	// get two validators, and RFC 9110 forbids a Last-Modified later than the answer's Date. The wait is bounded:
	// a commit dated ahead by its author's clock, or a burst of many commits of one second, is not worth stalling
	// the pipeline for.
	if d := time.Until(versions[len(versions)-1].Time); d > 0 && d <= maxClockWait {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return old, false, ctx.Err()
		}
	}
	if err := p.switchLatest(ctx, pubDir, latest, cur, versions, key); err != nil {
		return old, false, err
	}
	// Versions no longer offered (NONE mode, a rewritten label) are removed after the switch.
	p.batch.then(func() error {
		if ents, err := os.ReadDir(vroot); err == nil {
			for _, e := range ents {
				if !wanted[e.Name()] && !strings.HasPrefix(e.Name(), tmpPrefix) {
					_ = os.RemoveAll(filepath.Join(vroot, e.Name()))
				}
			}
		}
		if moved {
			oldDir := tree.PubDir(tree.Root(p.o.Out, old.Private), old.Path)
			p.dropTermPages(oldDir, "")
			_ = os.RemoveAll(oldDir)
		}
		return nil
	})
	return pubState{Path: urlPath, Private: private, Key: key, Latest: pub.Version.ID, Unrendered: unrendered}, true, nil
}

// refused reports whether a render failed on the version's content (an RDF syntax error, content the model
// refuses) rather than on the server (a full disk, a cancelled sync), which a later sync may get past.
func refused(err error) bool {
	if _, ok := errors.AsType[*rdf.SyntaxError](err); ok {
		return true
	}
	return errors.Is(err, model.ErrInvalid)
}

// maxClockWait bounds the wait for a version whose time strictlyLater moved ahead of the clock.
const maxClockWait = 2 * time.Second

// strictlyLater moves each version's time, which its files carry as their modification time, one second past its
// predecessor's when git's one-second commit times do not already order them. Last-Modified and the ETag (mtime
// and size, as nginx makes it) come from that time: two versions committed in the same second with dumps of equal
// size would otherwise share a validator, and a cache revalidating the unversioned URL would keep the older bytes.
// The times derive from the history alone, so a rebuild gives the same ones.
func strictlyLater(versions []tree.Version) {
	for i := 1; i < len(versions); i++ {
		prev := versions[i-1].Time.Truncate(time.Second)
		if !versions[i].Time.Truncate(time.Second).After(prev) {
			versions[i].Time = prev.Add(time.Second)
		}
	}
}

// treeVersion is a version as the rendered tree lists it, with the URL of its folder under the publication's.
func treeVersion(urlPath string, v model.Version) (tree.Version, error) {
	dir, err := tree.VersionDirName(v.Label)
	if err != nil {
		return tree.Version{}, err
	}
	return tree.Version{ID: v.ID, Label: v.Label, Commit: v.Commit, Time: v.Time.UTC(), URL: urlPath + "/versions/" + dir}, nil
}

func stateKey(base tree.Page, versions []tree.Version, latest string) string {
	b, _ := json.Marshal(struct {
		P tree.Page
		V []tree.Version
		L string
	}{base, versions, latest})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// ensureVersion renders one version folder unless it exists; versions are immutable, so an existing folder is
// trusted. The folder is built under a temporary name and renamed into place.
func (p *Pipeline) ensureVersion(ctx context.Context, pub model.Publication, v model.Version, base tree.Page, tv tree.Version, dir string) (*tree.Page, error) {
	if b, err := os.ReadFile(filepath.Join(dir, tree.PageJSON)); err == nil {
		var page tree.Page
		if json.Unmarshal(b, &page) == nil && page.Version.ID == v.ID {
			if err := p.reindex(ctx, pub, v, base, tv, dir); err != nil {
				return nil, err
			}
			p.resumeDumps(ctx, dir)
			p.queueGzip(dir, unzippedDumps(dir))
			p.resumeTerms(ctx, dir)
			return &page, p.repage(dir, &page)
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
	}
	at, data, err := p.o.Store.TakePublicationContent(ctx, model.SystemActor, pub.ID, v.ID)
	if err != nil {
		return nil, err
	}
	syn, ok := p.o.Codecs.ByPath(at.Version.Path)
	if !ok {
		return nil, fmt.Errorf("no syntax for %s", at.Version.Path)
	}
	docBase := p.docBase(at, base, tv)
	// Under Run, a large version's terms.json is written after it went live (terms.go).
	termsLater := p.gz.Load() != nil && len(data) > codec.StreamAbove
	var r rendering
	var tmp string
	if pr := p.claimPrerender(ctx, pub.ID, at.Version, data, syn.Name, docBase, termsLater, filepath.Dir(dir)); pr != nil {
		// Rendered while the upload was committed (prerender.go).
		tmp, r = pr.dir, pr.r
		defer p.batch.drop(tmp) // unless staged
	} else {
		if tmp, err = os.MkdirTemp(filepath.Dir(dir), tmpPrefix); err != nil {
			return nil, err
		}
		defer p.batch.drop(tmp) // unless staged
		if r, err = renderVersion(ctx, p.o.Codecs, tmp, source{data: data, syntax: syn, base: docBase}, tv.Time, termsLater); err != nil {
			return nil, err
		}
	}
	// Nothing the rendering left points into the content (the decoders copy what they keep), so its memory can
	// hold the next upload instead of new memory (Store.RecycleContent).
	p.o.Store.RecycleContent(data)
	for _, e := range r.skipped {
		p.o.Log.Warn("pipeline: dump left out", "publication", base.Path, "version", v.Label, "err", e)
	}
	page := base
	page.Name, page.Description, page.Owner, page.Publisher = at.Name, at.Description, at.Owner, at.Publisher
	page.Self, page.Version, page.Formats, page.Stats, page.Modified = tv.URL, tv, r.formats, r.stats, tv.Time
	page.Base = docBase
	if err := p.writePage(tmp, &page); err != nil {
		return nil, err
	}
	if err := touchAll(tmp, tv.Time); err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	p.batch.rename(tmp, dir)
	p.queueGzip(dir, r.unzipped)
	if len(r.late) > 0 {
		p.queueDumps(dir)
	}
	if r.termsLater {
		p.queueTerms(dir)
	}
	return &page, nil
}

func (p *Pipeline) writePage(dir string, page *tree.Page) error {
	b, err := json.MarshalIndent(page, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, tree.PageJSON), b, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, tree.Void), voidDescription(page), 0o644); err != nil {
		return err
	}
	if p.o.HTML == nil {
		return nil
	}
	return p.addPage(dir, page)
}

// switchLatest builds the folder that serves the unversioned URL (hard links to the version's dumps and index, and
// a page of its own that lists every version) and points the cur symlink at it with one rename.
func (p *Pipeline) switchLatest(ctx context.Context, pubDir string, v *tree.Page, base tree.Page, versions []tree.Version, key string) error {
	vdir := p.batch.resolve(filepath.Join(pubDir, tree.Versions, path.Base(v.Self)))
	name := "L-" + key
	dir := filepath.Join(pubDir, name)
	tmp, err := os.MkdirTemp(pubDir, tmpPrefix)
	if err != nil {
		return err
	}
	defer p.batch.drop(tmp)
	ents, err := os.ReadDir(vdir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if n == tree.PageJSON || n == tree.PageHTML || n == tree.Void || tree.VariantKey(n) != "" || tree.IsSectionPage(n) || tree.IsLabelsIndex(n) {
			continue // the latest folder has pages of its own (they list every version)
		}
		if err := os.Link(filepath.Join(vdir, n), filepath.Join(tmp, n)); err != nil {
			return err
		}
	}
	page := *v
	page.Self, page.Latest, page.Versions, page.Retracted = base.Path, true, versions, base.Retracted
	page.Name, page.Description, page.Owner, page.Publisher = base.Name, base.Description, base.Owner, base.Publisher
	if err := p.writePage(tmp, &page); err != nil {
		return err
	}
	if err := touchAll(tmp, v.Modified); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	p.batch.latest[page.ID] = &page
	p.batch.tmps[tmp] = true
	p.batch.final[tmp] = dir
	stamp := p.batch.stamp
	p.batch.then(func() error { return p.swapLatest(pubDir, tmp, dir, name, key, &page, stamp) })
	return nil
}

// swapLatest puts a staged latest folder in place, points the cur symlink at it, and queues its term pages, which
// link the unchanged pages of the folder it replaced.
func (p *Pipeline) swapLatest(pubDir, tmp, dir, name, key string, page *tree.Page, stamp string) error {
	prev := ""
	if target, err := os.Readlink(filepath.Join(pubDir, tree.Current)); err == nil && target != name {
		prev = filepath.Join(pubDir, target)
	}
	// The same folder rendered again (another theme, pages documented later): a term-page job writing into it
	// stops first, and it is moved aside rather than removed, so that its term pages are linked, not rendered again.
	p.dropTermPages(pubDir, dir)
	if _, err := os.Lstat(dir); err == nil {
		aside := dir + ".old-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		if os.Rename(dir, aside) == nil {
			prev = aside
		} else {
			_ = os.RemoveAll(dir)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	delete(p.batch.tmps, tmp)
	link := filepath.Join(pubDir, tmpPrefix+"link-"+key)
	_ = os.Remove(link)
	if err := os.Symlink(name, link); err != nil {
		return err
	}
	if err := os.Rename(link, filepath.Join(pubDir, tree.Current)); err != nil {
		return err
	}
	if p.o.HTML != nil && p.o.HTML.TermPages {
		j := &termJob{pubDir: pubDir, dir: dir, page: *page, stamp: stamp}
		if prev != "" {
			j.sources = []string{prev}
		}
		p.queueTermPages(j, false)
		if !page.Private {
			p.refreshLabelUsers(page.Path, pubDir)
		}
	}
	// Older latest folders stay readable by requests that opened them; new requests follow the symlink.
	p.removeOldLatest(pubDir)
	return nil
}
