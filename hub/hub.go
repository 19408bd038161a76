// Package hub runs one ldhub (`ldhub serve`): it opens the data folder and wires the store, the search index, the
// pipeline and what follows its renderings (an external SPARQL store, a bucket), the direct-URL handler, the API,
// git, a replica's follower, the access log and the fast path, then serves until its context ends.
//
// It is the one place that knows how the packages fit together at run time, so that cmd/ldhub only turns flags
// and environment variables into a Config, and a test can start the whole hub without a command line.
package hub

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"time"

	"github.com/ldhub/ldhub/api/auth"
	"github.com/ldhub/ldhub/api/search"
	"github.com/ldhub/ldhub/api/server"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/githttp"
	"github.com/ldhub/ldhub/content/store/validator"
	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/httpx/accesslog"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/storeload"
	"github.com/ldhub/ldhub/replica"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/fastpath"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/objstore"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
)

// Config is what `ldhub serve` is given.
type Config struct {
	// Data is the data folder (store, search index, replica state; the rendered tree by default).
	Data string
	// Addr is the listen address.
	Addr string
	// BaseURL is the public base URL; "" is the primary's (with Follow) or http://<the address listened on>.
	BaseURL string
	// Site is the rendered tree the pipeline keeps current; "" is Data/site.
	Site string
	// HTML is the theme the pipeline and the direct URLs render pages with (pipeline.LoadTheme).
	HTML *pipeline.HTML
	// TrustedProxies are the peers whose X-Forwarded-For names the client (auth.ParseTrustedProxies).
	TrustedProxies []netip.Prefix
	// CORSOrigins may write through the API from a browser page; any origin may read.
	CORSOrigins httpx.Origins
	// Follow, when set, is the primary this hub is a read replica of, reached with FollowID and FollowSecret.
	Follow                 string
	FollowID, FollowSecret string
	// AdminID and AdminSecret name the administrator credential made on the first start of a primary; without a
	// secret one is generated and printed once to Stdout.
	AdminID, AdminSecret string
	// SPARQLMemory is what the SPARQL queries running at once may hold between them, in bytes (0:
	// protocol.DefaultServerMemory), besides each query's own budget.
	SPARQLMemory int64
	// SPARQLHeapBound holds Go's soft memory limit near what the server holds besides its queries plus 1.5 times
	// SPARQLMemory while queries run (protocol.Gate.SetHeapBound). It is process-wide: ldhub serve sets it, a
	// test running several servers in one process should not.
	SPARQLHeapBound bool
	// SPARQLStore, when set, is the external SPARQL store's loader configuration; BaseURL, Out, ReadOnly (a
	// replica's) and Log are filled in.
	SPARQLStore *storeload.Options
	// Publisher, when set, publishes the public tree to a bucket after each sync of the pipeline.
	Publisher *objstore.Publisher
	// Stdout receives the administrator credential made on a first start; Log what happens; AccessLog one line
	// per request (buffered, flushed every second).
	Stdout    io.Writer
	Log       *slog.Logger
	AccessLog io.Writer
}

// OpenStore opens (initialising when empty) the data folder. watch follows changes made behind the store's back;
// a command that makes one change and exits does without.
func OpenStore(ctx context.Context, dir string, watch bool) (*store.Store, error) {
	st, err := store.Open(ctx, dir, store.Options{Validate: validator.Codec(codec.Default(), rdf.Limits{}), NoWatch: !watch})
	if err != nil {
		return nil, fmt.Errorf("open data folder %s: %w", dir, err)
	}
	return st, nil
}

// Serve runs the hub until ctx ends, then shuts it down (answers in flight get 10 seconds).
func Serve(ctx context.Context, c Config) error {
	log := c.Log
	if log == nil {
		log = slog.Default()
	}
	st, err := OpenStore(ctx, c.Data, true)
	if err != nil {
		return err
	}
	defer st.Close()
	follower, err := identity(ctx, &c, st, log)
	if err != nil {
		return err
	}

	idx, err := search.Open(ctx, filepath.Join(c.Data, "index", "search.bleve"), st, log)
	if err != nil {
		return err
	}
	defer idx.Close()
	followCtx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	go idx.Follow(followCtx)

	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + ln.Addr().String()
	}
	guard := auth.New(st, auth.Options{TrustedProxies: c.TrustedProxies})

	// The pipeline renders every publication into the site tree and follows the store; the direct-URL handler
	// serves that tree.
	if c.Site == "" {
		c.Site = filepath.Join(c.Data, "site")
	}
	if c.HTML == nil {
		if c.HTML, err = pipeline.LoadTheme(ctx, ""); err != nil {
			return err
		}
	}
	// The publisher reads the tree after each sync of the pipeline; kicks that come while it uploads make one more.
	kick := make(chan struct{}, 1)
	synced := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	// One set of mapped indexes for the direct URLs and the API, which query the same files. A version made live
	// (and every publication's latest after a start) is warmed for its first query, one at a time in the
	// background; at most 8 wait, and a folder that finds the queue full is left to its first query as before.
	indexes := describe.NewIndexes(32)
	warm := make(chan string, 8)
	live := func(dir string) {
		select {
		case warm <- dir:
		default:
		}
	}
	// What follows the store and the tree in the background ends with followCtx; Serve waits for it, the last
	// started first.
	var running []chan struct{}
	goFollow := func(f func()) {
		done := make(chan struct{})
		go func() { defer close(done); f() }()
		running = append(running, done)
	}
	defer func() {
		stopFollow()
		for i := len(running) - 1; i >= 0; i-- {
			<-running[i]
		}
	}()
	goFollow(func() { indexes.Warm(followCtx, warm) })
	pipe, err := pipeline.New(pipeline.Options{Store: st, Out: c.Site, BaseURL: c.BaseURL, HTML: c.HTML, Log: log, Synced: synced, Live: live})
	if err != nil {
		return err
	}
	// The front page exists from the start, even before the first repository is rendered.
	if err := pipe.RenderHub(ctx); err != nil {
		log.Error("hub page", "err", err)
	}
	goFollow(func() {
		if err := pipe.Run(followCtx); err != nil && followCtx.Err() == nil {
			log.Error("pipeline stopped", "err", err)
		}
	})
	// The external SPARQL store follows the rendered tree: it loads what the pipeline rendered and drops what it
	// removed, and catches up after a restart or a store that lost its data. A replica shares its primary's store
	// and base URL: it answers from the graphs the primary loaded, and loads nothing itself.
	var loader *storeload.Loader
	if c.SPARQLStore != nil {
		o := *c.SPARQLStore
		o.BaseURL, o.Out, o.ReadOnly, o.Log = c.BaseURL, c.Site, follower != nil, log
		loader = storeload.New(o)
		goFollow(func() { loader.Run(followCtx, 2*time.Second) })
	}
	if c.Publisher != nil {
		goFollow(func() {
			select { // the first full build first, so that a restart does not publish a tree being rendered
			case <-kick:
				c.Publisher.Follow(followCtx, c.Site, kick)
			case <-followCtx.Done():
			}
		})
	}
	handler, siteHandler, err := handlers(c, st, guard, idx, pipe, loader, indexes, log)
	if err != nil {
		return err
	}
	if follower != nil {
		handler = replica.NewHandler(replica.HandlerOptions{Local: handler, Follower: follower, Rendered: pipe.RepositoryOutcome, Public: server.SitePath})
		go func() { _ = follower.Run(followCtx) }()
	}
	return serveHTTP(ctx, ln, handler, siteHandler, c.AccessLog, c.BaseURL, c.Data, log)
}

// handlers are the hub's handler (the API, which sends git to the git handler and direct URLs to the site) and
// the direct-URL handler the fast path also asks, over one SPARQL gate and one set of mapped indexes.
func handlers(c Config, st *store.Store, guard *auth.Guard, idx *search.Index, pipe *pipeline.Pipeline, loader *storeload.Loader, indexes *describe.Indexes, log *slog.Logger) (http.Handler, *site.Handler, error) {
	// One gate for every SPARQL endpoint (direct URLs, /ns and /api), counting clients as the guard does: behind
	// the trusted proxy, by the forwarded address.
	gate := protocol.NewGate(0, 0, guard.ClientAddr)
	gate.SetMemory(c.SPARQLMemory)
	if c.SPARQLHeapBound {
		gate.SetHeapBound(0)
	}
	siteHandler, err := site.NewHandler(site.Options{Dir: c.Site, Theme: html.NewResources(html.ResourceOptions{Themes: c.HTML.Themes, Title: c.HTML.Title, Language: c.HTML.Language}), Pages: pipeline.PagesDir(c.Site), Log: log,
		SPARQLGate: gate, SPARQLStore: siteBackend(loader), Indexes: indexes,
		Auth: server.Viewers{Auth: guard, Store: st}})
	if err != nil {
		return nil, nil, err
	}
	// An accepted push prints the public URL of each publication it changed.
	gitHandler := githttp.New(st, guard, "/git/")
	gitHandler.BaseURL = c.BaseURL
	// The push answers once what it published is live, so the URLs it prints answer when git returns.
	gitHandler.Rendered = pipe.RepositoryOutcome
	gitHandler.Unrendered = pipe.Unrendered
	srv := server.New(server.Config{Store: st, Auth: guard, Search: idx, BaseURL: c.BaseURL, Logger: log,
		Git: gitHandler, Site: siteHandler, SPARQLGate: gate, SPARQLStore: loader, CORSOrigins: c.CORSOrigins,
		Tree: c.Site, Indexes: indexes,
		Pending: func(_ context.Context, p model.Publication) bool { return pipe.Pending(p.ID) },
		LeftOut: func(_ context.Context, p model.Publication) []string { return pipe.LeftOut(p.ID) },
		Failed: func(ctx context.Context, p model.Publication) error {
			_, err := pipe.Outcome(ctx, p.ID)
			return err
		}})
	return srv, siteHandler, nil
}

// identity is a replica's follower of its primary (nil on a primary), or on a primary the administrator credential
// made on its first start, printed once to c.Stdout. A replica without c.BaseURL takes its primary's.
func identity(ctx context.Context, c *Config, st *store.Store, log *slog.Logger) (*replica.Follower, error) {
	if c.Follow == "" {
		cred, secret, created, err := st.EnsureAdmin(ctx, c.AdminID, c.AdminSecret)
		if err != nil {
			return nil, fmt.Errorf("administrator credential: %w", err)
		}
		if created && c.AdminSecret == "" && c.Stdout != nil {
			// Printed once, to stdout only: the secret is stored as a hash and never logged.
			fmt.Fprintf(c.Stdout, "administrator credential created (shown only now):\n  id:     %s\n  secret: %s\n", cred.ID, secret)
		}
		return nil, nil
	}
	// A replica keeps no credentials of its own: requests with credentials go to the primary, unless a direct URL
	// the copy serves to anyone answers them (replica.HandlerOptions.Public).
	follower, err := replica.New(replica.Options{Primary: c.Follow, ID: c.FollowID, Secret: c.FollowSecret, Store: st,
		StateFile: replica.StateFile(c.Data), Log: log})
	if err != nil {
		return nil, err
	}
	if c.BaseURL == "" {
		if c.BaseURL, err = follower.BaseURL(ctx); err != nil {
			return nil, fmt.Errorf("--follow: the primary's base URL (give --base-url to start while it is unreachable): %w", err)
		}
	}
	return follower, nil
}

// serveHTTP serves handler on ln, with the site's prepared answers on the fast path and one access-log line per
// request to accessOut, until ctx ends; then answers in flight get 10 seconds.
func serveHTTP(ctx context.Context, ln net.Listener, handler http.Handler, siteHandler *site.Handler, accessOut io.Writer, baseURL, data string, log *slog.Logger) error {
	if accessOut == nil {
		accessOut = io.Discard
	}
	alog := accesslog.NewBuffered(accessOut, time.Second)
	defer alog.Close()
	access := slog.New(slog.NewTextHandler(alog, nil))
	// IdleTimeout: a kept-alive connection nobody uses is closed (nginx's keepalive_timeout default), on the fast
	// path and in net/http alike.
	hs := &http.Server{Handler: accesslog.Handler(access, handler), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 75 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	// Direct URLs with a prepared response skip net/http (site/fastpath); everything else reaches hs as before.
	fast, err := fastpath.New(fastpath.Options{HTTP: hs, Lookup: directURL(siteHandler),
		Log: func(method, path string, status int, n int64, d time.Duration) {
			accesslog.Request(access, method, path, status, n, d)
		}})
	if err != nil {
		return err
	}
	log.Info("ldhub serving", "addr", ln.Addr().String(), "base_url", baseURL, "data", data)

	done := make(chan error, 1)
	go func() { done <- fast.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("ldhub stopping")
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := fast.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-done
	if err := alog.Close(); err != nil {
		log.Error("access log", "err", err)
	}
	log.Info("ldhub stopped")
	return nil
}

// directURL is the fast path's lookup: the site handler's prepared answers, for the paths server.Server sends to
// the site without looking at them (/api, /ns and /git are its own, even where they fall back to the site).
func directURL(h *site.Handler) fastpath.Lookup {
	return func(path, accept, language, encoding string) (site.Prepared, bool) {
		if !server.SitePath(path) {
			return site.Prepared{}, false
		}
		return h.Prepared(path, accept, language, encoding)
	}
}

// siteBackend is the site handler's view of the loader: a version's graph when the store holds it.
func siteBackend(l *storeload.Loader) func(versionPath, versionID string) protocol.Backend {
	if l == nil {
		return nil
	}
	return func(versionPath, versionID string) protocol.Backend {
		g := l.Graph(versionPath)
		if !l.Loaded(g, versionID) {
			return nil
		}
		return &remote.Query{Store: l.Store(), Dataset: remote.Dataset{Default: []string{g}}}
	}
}
