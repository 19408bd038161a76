package html

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ldhub/ldhub/cache"
)

// ErrBusy is returned by Resources.Render when too many pages are waiting to be rendered: the caller should
// answer 503 with Retry-After rather than let the queue (and its CPU) grow.
var ErrBusy = errors.New("html: too many resource pages are waiting to be rendered")

// ResourceOptions configure a Resources renderer. Zero values take the defaults.
type ResourceOptions struct {
	Title    string   // the hub's name: the first crumb and the end of every page title
	Language string   // BCP 47 tag of the page texts; "en" when empty
	Themes   []string // publishers' theme folders laid over the default theme, as for RenderBatch
	// MaxQueue bounds the pages waiting for a build (default 64); one more is refused with ErrBusy.
	MaxQueue int
	// MaxBatch bounds the pages rendered by one build (default 16), so that a long queue is served in steps.
	MaxBatch int
	// CacheBytes bounds the rendered pages kept (default 32 MiB), least recently used first out.
	CacheBytes int
}

// ResourceKey names one rendered resource page. Dataset must change whenever what the page shows may change
// (its rendered folder and commit), so a new version never gets a page of the previous one.
type ResourceKey struct {
	Dataset string
	IRI     string
	Page    int
	Lang    string // the language order the page was rendered in (LanguageOrder, joined)
}

// Rendered is a rendered resource page, with the IRI and next-page link of the data it was rendered from, so that
// a cached page can be answered without describing the resource again.
type Rendered struct {
	HTML []byte
	IRI  string
	Next string
}

// Resources renders resource pages on request with Hugo, through the same theme as the pipeline's pages. One
// Hugo site is kept in memory and rebuilt with only the requested pages (a few milliseconds, against tens for a
// full build); requests arriving while it builds are rendered together by the next build, one build at a time.
// Rendered pages are cached by key. It is safe for concurrent use.
type Resources struct {
	o ResourceOptions

	mu       sync.Mutex
	queue    []*renderJob
	inflight map[ResourceKey]*renderJob
	running  bool // a goroutine is draining the queue
	seq      int  // numbers the query pages, which have no key of their own
	cache    *cache.Cache[ResourceKey, Rendered]

	live   *PageRenderer // only the draining goroutine touches it
	closed bool

	beforeBuild func() // tests hold a build here
}

type renderJob struct {
	key     ResourceKey
	view    func() page // the page's view, made by the build outside the renderer's lock
	nocache bool        // a page made for one request (a query's answer), not kept
	done    chan struct{}
	out     Rendered // IRI and Next set when queued, HTML once rendered
	err     error
}

// NewResources returns a renderer. The Hugo site is loaded on the first page, so a process that serves none
// pays nothing; CheckTheme checks the theme's resource layout at start.
func NewResources(o ResourceOptions) *Resources {
	if o.MaxQueue <= 0 {
		o.MaxQueue = 64
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 16
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = 32 << 20
	}
	return &Resources{o: o, inflight: map[ResourceKey]*renderJob{}, cache: newPageCache(o.CacheBytes)}
}

// Script is the theme's script as the pages link it (ScriptPath); a nil renderer has the default theme's.
func (r *Resources) Script() ([]byte, error) {
	if r == nil {
		return Script()
	}
	return Script(r.o.Themes...)
}

// Language is the hub's language (BCP 47, "en" when none was given): the page texts', and the one a resource's
// labels are shown in after the reader's own.
func (r *Resources) Language() string { return nameOr(r.o.Language, "en") }

// Title is the hub's name the pages show ("ldhub" when none was given), for the first crumb.
func (r *Resources) Title() string { return nameOr(r.o.Title, "ldhub") }

// Cached returns the page rendered for k, if it is still cached.
func (r *Resources) Cached(k ResourceKey) (Rendered, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cache.Get(k)
}

// CachedPages is the number of pages in the cache.
func (r *Resources) CachedPages() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cache.Len()
}

// Render returns the HTML of p, rendering it unless it is cached under k. Requests for a key already waiting
// share its build. When the queue is full it returns ErrBusy at once; when ctx ends first it returns ctx's error
// (the page is still rendered and cached for the next request).
func (r *Resources) Render(ctx context.Context, k ResourceKey, p *ResourcePage) (Rendered, error) {
	r.mu.Lock()
	if c, ok := r.cache.Get(k); ok {
		r.mu.Unlock()
		return c, nil
	}
	if r.closed {
		r.mu.Unlock()
		return Rendered{}, errors.New("html: the resource renderer is closed")
	}
	j, ok := r.inflight[k]
	if !ok {
		if len(r.queue) >= r.o.MaxQueue {
			r.mu.Unlock()
			return Rendered{}, ErrBusy
		}
		j = &renderJob{key: k, view: func() page { return resourcePage(p) }, done: make(chan struct{}), out: Rendered{IRI: p.IRI, Next: p.Next}}
		r.enqueue(j)
	}
	r.mu.Unlock()
	select {
	case <-j.done:
		return j.out, j.err
	case <-ctx.Done():
		return Rendered{}, fmt.Errorf("html: resource page %s: %w", k.IRI, ctx.Err())
	}
}

// enqueue adds j to the queue, starting the drain if it is idle; r.mu is held.
func (r *Resources) enqueue(j *renderJob) {
	r.queue = append(r.queue, j)
	r.inflight[j.key] = j
	if !r.running {
		r.running = true
		go r.drain()
	}
}

// RenderQuery renders the page of a SPARQL answer, through the same queue and bounds as resource pages; the page
// is not cached (the answer is the request's own).
func (r *Resources) RenderQuery(ctx context.Context, q *QueryPage) ([]byte, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errors.New("html: the resource renderer is closed")
	}
	if len(r.queue) >= r.o.MaxQueue {
		r.mu.Unlock()
		return nil, ErrBusy
	}
	r.seq++
	j := &renderJob{key: ResourceKey{Dataset: "\x00query", Page: r.seq}, view: func() page { return queryPage(q) },
		nocache: true, done: make(chan struct{})}
	r.enqueue(j)
	r.mu.Unlock()
	select {
	case <-j.done:
		return j.out.HTML, j.err
	case <-ctx.Done():
		return nil, fmt.Errorf("html: query page: %w", ctx.Err())
	}
}

// drain renders the queue batch by batch until it is empty.
func (r *Resources) drain() {
	for {
		r.mu.Lock()
		if len(r.queue) == 0 || r.closed {
			r.running = false
			if r.closed {
				r.fail(r.queue, errors.New("html: the resource renderer is closed"))
				r.queue = nil
				r.closeLive()
			}
			r.mu.Unlock()
			return
		}
		n := min(len(r.queue), r.o.MaxBatch)
		batch := r.queue[:n:n]
		r.queue = r.queue[n:]
		r.mu.Unlock()

		pages := make([]page, len(batch))
		for i, j := range batch {
			pages[i] = j.view()
		}
		out, err := r.build(pages)

		r.mu.Lock()
		for i, j := range batch {
			if err != nil {
				j.err = err
			} else {
				j.out.HTML = out[i]
				if !j.nocache {
					r.cache.Add(j.key, j.out)
				}
			}
			delete(r.inflight, j.key)
			close(j.done)
		}
		r.mu.Unlock()
	}
}

// fail ends jobs with err; r.mu is held.
func (r *Resources) fail(jobs []*renderJob, err error) {
	for _, j := range jobs {
		j.err = err
		delete(r.inflight, j.key)
		close(j.done)
	}
}

// build renders pages on the live site, loading it first if needed. A failed build drops the site, so the
// next batch starts from a fresh one instead of whatever state Hugo was left in.
func (r *Resources) build(pages []page) ([][]byte, error) {
	if r.beforeBuild != nil {
		r.beforeBuild()
	}
	if r.live == nil {
		r.live = NewPageRenderer(r.o.Title, r.o.Language, r.o.Themes...)
	}
	return r.live.render(pages)
}

func (r *Resources) closeLive() {
	if r.live != nil {
		r.live.Close()
	}
}

// Close fails the pages still waiting and releases the Hugo site once the build under way (if any) ends.
func (r *Resources) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if !r.running {
		r.closeLive()
	}
}

// newPageCache returns the cache of rendered pages, bounded by their total size in bytes. A page larger than an
// eighth of the bound is not kept: it would push out many others for one.
func newPageCache(max int) *cache.Cache[ResourceKey, Rendered] {
	return cache.New(cache.Options[ResourceKey, Rendered]{
		MaxCost:     int64(max),
		MaxItemCost: int64(max / 8),
		Cost: func(k ResourceKey, v Rendered) int64 {
			return int64(len(v.HTML) + len(v.IRI) + len(v.Next) + len(k.Dataset) + len(k.IRI))
		},
	})
}

// PageRenderer renders batches of resource pages into memory on one Hugo site kept between batches, the
// renderer Resources uses for pages on request, so that a pre-rendered term page is the handler's page. The
// pipeline's term pages go through it: a full build per batch (RenderBatch) loaded the theme and the templates
// again each time and wrote every page twice through the disk (its content file, Hugo's output), file creations
// that were most of a term page's cost. It is not safe for concurrent use.
type PageRenderer struct {
	set    settings
	themes []string
	live   *liveSite
}

// NewPageRenderer returns a renderer for a hub's title and language with the publishers' theme folders, as
// RenderBatch's Batch.Title, Batch.Language and overrides. Close it when done.
func NewPageRenderer(title, language string, themes ...string) *PageRenderer {
	return &PageRenderer{set: settings{title: title, language: language, inline: true}, themes: themes}
}

// Render renders the pages with one rebuild and returns their HTML in order.
func (r *PageRenderer) Render(ctx context.Context, pages []*ResourcePage) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	views := make([]page, len(pages))
	for i, p := range pages {
		views[i] = resourcePage(p)
	}
	return r.render(views)
}

// render renders the pages on the site, loading it first if needed.
func (r *PageRenderer) render(pages []page) ([][]byte, error) {
	if r.live == nil {
		l, err := newLiveSite(r.set, r.themes)
		if err != nil {
			return nil, err
		}
		r.live = l
	}
	out, err := r.live.render(pages)
	if err != nil {
		// Hugo's state after a failed rebuild is not something to build on: the next batch starts afresh.
		r.Close()
		return nil, err
	}
	return out, nil
}

// Close releases the Hugo site.
func (r *PageRenderer) Close() {
	if r.live != nil {
		r.live.close()
		r.live = nil
	}
}
