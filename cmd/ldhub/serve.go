package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ldhub/ldhub/api/auth"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/hub"
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
	return hub.OpenStore(ctx, dir, watch)
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

// languageUsage documents --language for serve and build.
const languageUsage = "the hub's language (BCP 47, such as de or pt-BR; default en; env LDHUB_LANGUAGE): publication, version and term pages show labels and definitions in it first, then English, then untagged text, to readers whose Accept-Language names no language the data has"

func runServe(ctx context.Context, env *environment, args []string) error {
	fs := flags(env, "serve", "serve [--data DIR] [--addr HOST:PORT] [--base-url URL] [--site DIR] [--theme DIR] [--language TAG] [--trusted-proxies CIDRS] [--cors-origin ORIGINS] [--follow PRIMARY_URL] [--sparql-store URL ...] [--publish-s3 URL]")
	data := fs.String("data", envOr(env, "LDHUB_DATA", "./ldhub-data"), "data folder (env LDHUB_DATA)")
	addr := fs.String("addr", envOr(env, "LDHUB_ADDR", "127.0.0.1:8080"), "listen address (env LDHUB_ADDR)")
	baseURL := fs.String("base-url", env.getenv("LDHUB_BASE_URL"), "public base URL (env LDHUB_BASE_URL; default http://<addr>)")
	siteDir := fs.String("site", env.getenv("LDHUB_SITE"), "rendered tree the pipeline keeps current (env LDHUB_SITE; default DATA/site)")
	render := addRenderFlags(fs, env)
	proxies := fs.String("trusted-proxies", envOr(env, "LDHUB_TRUSTED_PROXIES", "127.0.0.0/8,::1/128"),
		"comma-separated CIDRs whose X-Forwarded-For names the client (env LDHUB_TRUSTED_PROXIES)")
	corsOrigins := fs.String("cors-origin", env.getenv("LDHUB_CORS_ORIGIN"),
		"comma-separated origins (https://app.example) whose browser pages may write through the API; any origin may read (env LDHUB_CORS_ORIGIN)")
	follow := fs.String("follow", env.getenv("LDHUB_FOLLOW"),
		"run as a read replica of the hub at this URL, with the credential in LDHUB_FOLLOW_CREDENTIAL=id:secret (env LDHUB_FOLLOW; docs/scaling.md)")
	storeOpts := addStoreFlags(fs, env)
	sparqlMemory := fs.Int64("sparql-memory", 0, "MiB the SPARQL queries running at once may hold between them, besides each query's own budget; while they run, Go's soft memory limit is the rest of the process plus 1.5 times this (0: 256)")
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
	htmlOpts, pub, err := render.load(ctx, env, log)
	if err != nil {
		return err
	}
	sparqlStore, err := storeOpts.options()
	if err != nil {
		return err
	}
	// The credential a replica follows its primary with (it keeps none of its own).
	followID, followSecret, _ := strings.Cut(env.getenv("LDHUB_FOLLOW_CREDENTIAL"), ":")
	return hub.Serve(ctx, hub.Config{Data: *data, Addr: *addr, BaseURL: *baseURL, Site: *siteDir, HTML: htmlOpts,
		TrustedProxies: trusted, CORSOrigins: httpx.ParseOrigins(*corsOrigins),
		Follow: *follow, FollowID: followID, FollowSecret: followSecret,
		AdminID: env.getenv("LDHUB_ADMIN_ID"), AdminSecret: env.getenv("LDHUB_ADMIN_SECRET"),
		SPARQLStore: sparqlStore, SPARQLMemory: *sparqlMemory << 20, SPARQLHeapBound: true, Publisher: pub, Stdout: env.stdout, Log: log, AccessLog: env.stderr})
}
