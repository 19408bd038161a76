package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
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
	"github.com/ldhub/ldhub/replica"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/fastpath"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
)

func envOr(env *environment, name, def string) string {
	if v := env.getenv(name); v != "" {
		return v
	}
	return def
}

// openStore opens (initialising when empty) the data folder. Admin commands run without the watcher: they make
// one change and exit.
func openStore(ctx context.Context, dir string, watch bool) (*store.Store, error) {
	st, err := store.Open(ctx, dir, store.Options{Validate: validator.Codec(codec.Default(), rdf.Limits{}), NoWatch: !watch})
	if err != nil {
		return nil, fmt.Errorf("open data folder %s: %w", dir, err)
	}
	return st, nil
}

// flags makes a flag set whose --help prints to stdout and whose errors go to stderr.
func flags(env *environment, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stdout, "usage: ldhub %s\n\nflags:\n", usage)
		fs.SetOutput(env.stdout)
		fs.PrintDefaults()
		fs.SetOutput(env.stderr)
	}
	return fs
}

// parse parses a command's flags. It reports true after --help, which ends the command without an error.
func parse(fs *flag.FlagSet, args []string) (bool, error) {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return true, nil
	}
	return false, err
}

func runServe(ctx context.Context, env *environment, args []string) error {
	fs := flags(env, "serve", "serve [--data DIR] [--addr HOST:PORT] [--base-url URL] [--site DIR] [--theme DIR] [--trusted-proxies CIDRS] [--cors-origin ORIGINS] [--follow PRIMARY_URL] [--sparql-store URL ...] [--publish-s3 URL]")
	data := fs.String("data", envOr(env, "LDHUB_DATA", "./ldhub-data"), "data folder (env LDHUB_DATA)")
	addr := fs.String("addr", envOr(env, "LDHUB_ADDR", "127.0.0.1:8080"), "listen address (env LDHUB_ADDR)")
	baseURL := fs.String("base-url", env.getenv("LDHUB_BASE_URL"), "public base URL (env LDHUB_BASE_URL; default http://<addr>)")
	siteDir := fs.String("site", env.getenv("LDHUB_SITE"), "rendered tree the pipeline keeps current (env LDHUB_SITE; default DATA/site)")
	themeDir := fs.String("theme", env.getenv("LDHUB_THEME"), "folder overriding the default theme: Hugo layouts/ and static/ for every page (env LDHUB_THEME)")
	termPages := fs.Bool("term-pages", true, "pre-render the page and RDF descriptions of every term of each publication's latest version, so that the generated nginx/Apache configuration serves them from files")
	proxies := fs.String("trusted-proxies", envOr(env, "LDHUB_TRUSTED_PROXIES", "127.0.0.0/8,::1/128"),
		"comma-separated CIDRs whose X-Forwarded-For names the client (env LDHUB_TRUSTED_PROXIES)")
	corsOrigins := fs.String("cors-origin", env.getenv("LDHUB_CORS_ORIGIN"),
		"comma-separated origins (https://app.example) whose browser pages may write through the API; any origin may read (env LDHUB_CORS_ORIGIN)")
	follow := fs.String("follow", env.getenv("LDHUB_FOLLOW"),
		"run as a read replica of the hub at this URL, with the credential in LDHUB_FOLLOW_CREDENTIAL=id:secret (env LDHUB_FOLLOW; docs/scaling.md)")
	storeOpts := addStoreFlags(fs, env)
	publishS3 := fs.String("publish-s3", env.getenv("LDHUB_PUBLISH_S3"), publishS3Usage)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	trusted, err := auth.ParseTrustedProxies(*proxies)
	if err != nil {
		return fmt.Errorf("--trusted-proxies: %w", err)
	}
	log := slog.New(slog.NewTextHandler(env.stderr, nil))

	st, err := openStore(ctx, *data, true)
	if err != nil {
		return err
	}
	defer st.Close()
	var follower *replica.Follower
	if *follow != "" {
		// A replica keeps no credentials of its own: requests with credentials go to the primary, unless a direct URL
		// the copy serves to anyone answers them (replica.HandlerOptions.Public).
		id, secret, _ := strings.Cut(env.getenv("LDHUB_FOLLOW_CREDENTIAL"), ":")
		follower, err = replica.New(replica.Options{Primary: *follow, ID: id, Secret: secret, Store: st,
			StateFile: replica.StateFile(*data), Log: log})
		if err != nil {
			return err
		}
		if *baseURL == "" {
			if *baseURL, err = follower.BaseURL(ctx); err != nil {
				return fmt.Errorf("--follow: the primary's base URL (give --base-url to start while it is unreachable): %w", err)
			}
		}
	} else {
		cred, secret, created, err := st.EnsureAdmin(ctx, env.getenv("LDHUB_ADMIN_ID"), env.getenv("LDHUB_ADMIN_SECRET"))
		if err != nil {
			return fmt.Errorf("administrator credential: %w", err)
		}
		if created && env.getenv("LDHUB_ADMIN_SECRET") == "" {
			// Printed once, to stdout only: the secret is stored as a hash and never logged.
			fmt.Fprintf(env.stdout, "administrator credential created (shown only now):\n  id:     %s\n  secret: %s\n", cred.ID, secret)
		}
	}

	idx, err := search.Open(ctx, filepath.Join(*data, "index", "search.bleve"), st, log)
	if err != nil {
		return err
	}
	defer idx.Close()
	followCtx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	go idx.Follow(followCtx)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if *baseURL == "" {
		*baseURL = "http://" + ln.Addr().String()
	}
	guard := auth.New(st, auth.Options{TrustedProxies: trusted})

	// The pipeline renders every publication into the site tree and follows the store; the direct-URL handler
	// serves that tree.
	if *siteDir == "" {
		*siteDir = filepath.Join(*data, "site")
	}
	htmlOpts, err := pipeline.LoadTheme(ctx, *themeDir)
	if err != nil {
		return err
	}
	htmlOpts.TermPages = *termPages
	pub, err := newPublisher(env, *publishS3, htmlOpts.Themes, log)
	if err != nil {
		return err
	}
	// The publisher reads the tree after each sync of the pipeline; kicks that come while it uploads make one more.
	kick := make(chan struct{}, 1)
	synced := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	pipe, err := pipeline.New(pipeline.Options{Store: st, Out: *siteDir, BaseURL: *baseURL, HTML: htmlOpts, Log: log, Synced: synced})
	if err != nil {
		return err
	}
	// The front page exists from the start, even before the first repository is rendered.
	if err := pipe.RenderHub(ctx); err != nil {
		log.Error("hub page", "err", err)
	}
	pipeDone := make(chan struct{})
	go func() {
		defer close(pipeDone)
		if err := pipe.Run(followCtx); err != nil && followCtx.Err() == nil {
			log.Error("pipeline stopped", "err", err)
		}
	}()
	defer func() { stopFollow(); <-pipeDone }()
	// The external SPARQL store follows the rendered tree: it loads what the pipeline rendered and drops what it
	// removed, and catches up after a restart or a store that lost its data. A replica shares its primary's store
	// and base URL: it answers from the graphs the primary loaded, and loads nothing itself.
	loader, err := storeOpts.loader(*baseURL, *siteDir, follower != nil, log)
	if err != nil {
		return err
	}
	if loader != nil {
		loadDone := make(chan struct{})
		go func() { defer close(loadDone); loader.Run(followCtx, 2*time.Second) }()
		defer func() { stopFollow(); <-loadDone }()
	}
	if pub != nil {
		pubDone := make(chan struct{})
		go func() {
			defer close(pubDone)
			select { // the first full build first, so that a restart does not publish a tree being rendered
			case <-kick:
				pub.Follow(followCtx, *siteDir, kick)
			case <-followCtx.Done():
			}
		}()
		defer func() { stopFollow(); <-pubDone }()
	}
	// One gate for every SPARQL endpoint (direct URLs, /ns and /api), counting clients as the guard does: behind
	// the trusted proxy, by the forwarded address.
	gate := protocol.NewGate(0, 0, guard.ClientAddr)
	siteHandler, err := site.NewHandler(site.Options{Dir: *siteDir, Theme: html.NewResources(html.ResourceOptions{Themes: htmlOpts.Themes}), Pages: pipeline.PagesDir(*siteDir), Log: log,
		SPARQLGate: gate, SPARQLStore: siteBackend(loader),
		Auth: server.Viewers{Auth: guard, Store: st}})
	if err != nil {
		return err
	}
	// An accepted push prints the public URL of each publication it changed.
	gitHandler := githttp.New(st, guard, "/git/")
	gitHandler.BaseURL = *baseURL
	srv := server.New(server.Config{Store: st, Auth: guard, Search: idx, BaseURL: *baseURL, Logger: log,
		Git: gitHandler, Site: siteHandler, SPARQLGate: gate, SPARQLStore: loader, CORSOrigins: httpx.ParseOrigins(*corsOrigins),
		Tree:    *siteDir,
		Pending: func(_ context.Context, p model.Publication) bool { return pipe.Pending(p.ID) }})
	var handler http.Handler = srv
	if follower != nil {
		handler = replica.NewHandler(replica.HandlerOptions{Local: srv, Follower: follower, Rendered: pipe.Live, Public: server.SitePath})
		go func() { _ = follower.Run(followCtx) }()
	}
	alog := accesslog.NewBuffered(env.stderr, time.Second)
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
	log.Info("ldhub serving", "addr", ln.Addr().String(), "base_url", *baseURL, "data", *data)

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
	return func(path, accept, encoding string) (site.Prepared, bool) {
		if !server.SitePath(path) {
			return site.Prepared{}, false
		}
		return h.Prepared(path, accept, encoding)
	}
}
