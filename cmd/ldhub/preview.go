package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/ldhub/ldhub/preview"
)

// runPreview implements `ldhub preview DIR`: the folder's RDF files rendered and served as ldhub would publish
// them, re-rendered on every save, with pages that reload themselves.
func runPreview(ctx context.Context, env *environment, args []string) error {
	fs := flags(env, "preview", "preview DIR [--addr HOST:PORT] [--theme DIR] [--base-url URL]")
	addr := fs.String("addr", "127.0.0.1:8081", "listen address")
	themeDir := fs.String("theme", "", "folder overriding the default theme (Hugo layouts/ and static/)")
	baseURL := fs.String("base-url", "", "the URL the folder will be published at (default: the preview's own); "+
		"with a vocabulary's real namespace, its term IRIs open as term pages")
	var dir string
	for { // the folder may come before or after the flags
		if help, err := parse(fs, args); help || err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		if dir != "" {
			return fmt.Errorf("want one folder, got %q and %q (see ldhub preview --help)", dir, fs.Arg(0))
		}
		dir, args = fs.Arg(0), fs.Args()[1:]
	}
	if dir == "" {
		return errors.New("want the folder to preview (see ldhub preview --help)")
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	base := *baseURL
	if base == "" {
		base = "http://" + l.Addr().String()
	}
	pv, err := preview.New(ctx, dir, base, *themeDir)
	if err != nil {
		l.Close()
		return err
	}
	defer pv.Close()
	if err := pv.Sync(ctx); err != nil {
		fmt.Fprintln(env.stderr, "preview:", err)
	}
	go pv.Watch(ctx, env.stderr)
	fmt.Fprintf(env.stdout, "previewing %s at http://%s/ (Ctrl-C stops)\n", dir, l.Addr())
	srv := &http.Server{Handler: pv, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
