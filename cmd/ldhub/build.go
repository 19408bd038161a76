package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/site/objstore"
	"github.com/ldhub/ldhub/site/webconf"
)

// runBuild implements `ldhub build`: every derived artefact of the static site, rendered from git.
func runBuild(ctx context.Context, env *environment, args []string) error {
	fs := flags(env, "build", "build [--data DIR] [--out DIR] [--base-url URL] [--theme DIR] [--language TAG] [--term-pages=false] [--upstream HOST:PORT] [--listen ADDR] [--publish-s3 URL]")
	data := fs.String("data", envOr(env, "LDHUB_DATA", "./ldhub-data"), "data folder (env LDHUB_DATA)")
	out := fs.String("out", env.getenv("LDHUB_SITE"), "rendered tree (env LDHUB_SITE; default DATA/site)")
	baseURL := fs.String("base-url", envOr(env, "LDHUB_BASE_URL", "http://127.0.0.1:8080"), "public base URL (env LDHUB_BASE_URL)")
	render := addRenderFlags(fs, env)
	upstream := fs.String("upstream", envOr(env, "LDHUB_ADDR", "127.0.0.1:8080"), "address of ldhub serve, for the generated nginx.conf and apache.conf (env LDHUB_ADDR)")
	listen := fs.String("listen", "80", "address the generated web-server configurations listen on")
	storeOpts := addStoreFlags(fs, env)
	reload := fs.Bool("sparql-store-reload", false, "load every version into the external SPARQL store again, not only what it lacks")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see ldhub build --help)", fs.Arg(0))
	}
	if *out == "" {
		*out = filepath.Join(*data, "site")
	}
	htmlOpts, pub, err := render.load(ctx, env, nil)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, *data, false)
	if err != nil {
		return err
	}
	defer st.Close()
	// Warnings (a publication that cannot be rendered, skipped) go to stderr, as serve's do.
	log := slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	p, err := pipeline.New(pipeline.Options{Store: st, Out: *out, BaseURL: *baseURL, HTML: htmlOpts, Log: log})
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := p.BuildAll(ctx, progressPrinter(env.stderr))
	err = errors.Join(err, p.RenderHub(ctx))
	// Term pages are written after their publications went live; a build ends when they are all there.
	terms, terr := p.WaitTermPages(ctx)
	err = errors.Join(err, terr)
	if cerr := writeServerConfigs(*out, webconf.ServerConfig{Listen: *listen, Dir: *out, Upstream: *upstream, Language: htmlOpts.Language}); cerr != nil {
		err = errors.Join(err, cerr)
	}
	fmt.Fprintf(env.stdout, "rendered %d publications, %d unchanged, %d removed, %d term pages (%d kept) in %s into %s\n",
		len(res.Rendered), len(res.Skipped), len(res.Removed), terms.Rendered, terms.Kept, time.Since(start).Round(time.Millisecond), *out)
	if len(res.Refused) > 0 {
		fmt.Fprintf(env.stderr, "ldhub build: %d publications not rendered: their paths are over the limit of %d bytes (see the warnings above)\n", len(res.Refused), model.MaxPathLen)
	}
	if pub != nil && err == nil {
		// Only a complete build is published: a failed one would delete the objects of what it did not render.
		start = time.Now()
		rep, perr := pub.Sync(ctx, *out)
		fmt.Fprintf(env.stdout, "published to %s: %d objects uploaded (%d bytes), %d deleted, %d unchanged in %s\n",
			*render.publishS3, len(rep.Uploaded), rep.Bytes, len(rep.Deleted), rep.Unchanged, time.Since(start).Round(time.Millisecond))
		err = perr
	}
	loader, lerr := storeOpts.loader(*baseURL, *out, false, nil)
	if lerr != nil || loader == nil {
		return errors.Join(err, lerr)
	}
	start = time.Now()
	sres, lerr := loader.Sync(ctx, *reload)
	fmt.Fprintf(env.stdout, "SPARQL store: loaded %d versions, dropped %d, %d already there in %s\n",
		len(sres.Loaded), len(sres.Dropped), sres.Kept, time.Since(start).Round(time.Millisecond))
	return errors.Join(err, lerr)
}

// writeServerConfigs leaves nginx.conf and apache.conf for the rendered tree beside it, and the Cloudflare Worker
// that negotiates content on the tree once it is published to a bucket (--publish-s3).
func writeServerConfigs(out string, c webconf.ServerConfig) error {
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return err
	}
	c.Dir = abs
	nginx, err := webconf.NginxConfig(c)
	if err != nil {
		return err
	}
	apache, err := webconf.ApacheConfig(c)
	if err != nil {
		return err
	}
	for name, body := range map[string]string{"nginx.conf": nginx, "apache.conf": apache, "cloudflare-worker.js": objstore.CloudflareWorker(c.Language)} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// progressPrinter draws a bar on a terminal and plain lines otherwise (logs, CI).
func progressPrinter(w io.Writer) pipeline.Progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return func(done, total int, repo string) {
		if !tty {
			fmt.Fprintf(w, "build: %d/%d repositories (%s)\n", done, total, repo)
			return
		}
		const width = 30
		n := width * done / max(total, 1)
		fmt.Fprintf(w, "\r[%s%s] %d/%d %-30.30s", strings.Repeat("#", n), strings.Repeat(" ", width-n), done, total, repo)
		if done == total {
			fmt.Fprintln(w)
		}
	}
}
