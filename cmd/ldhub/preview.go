package main

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/html"
)

// runPreview implements `ldhub preview DIR`: the folder's RDF files rendered and served as ldhub would publish
// them, re-rendered on every save, with pages that reload themselves.
func runPreview(ctx context.Context, env *environment, args []string) error {
	fs := flags(env, "preview", "preview DIR [--addr HOST:PORT] [--theme DIR]")
	addr := fs.String("addr", "127.0.0.1:8081", "listen address")
	themeDir := fs.String("theme", "", "folder overriding the default theme (Hugo layouts/ and static/)")
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
	pv, err := newPreview(ctx, dir, "http://"+l.Addr().String(), *themeDir)
	if err != nil {
		l.Close()
		return err
	}
	defer pv.close()
	if err := pv.sync(ctx); err != nil {
		fmt.Fprintln(env.stderr, "preview:", err)
	}
	go pv.watch(ctx, env.stderr)
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

// reloadScript makes a preview page reload when the folder changes.
const reloadScript = `<script>new EventSource("/_preview/events").onmessage = () => location.reload();</script>`

type preview struct {
	dir, out string
	folder   *pipeline.Folder
	direct   http.Handler
	mu       sync.Mutex
	gen      int
	waiters  []chan struct{}
}

func newPreview(ctx context.Context, dir, baseURL, themeDir string) (*preview, error) {
	htmlOpts, err := loadTheme(ctx, themeDir)
	if err != nil {
		return nil, err
	}
	out, err := os.MkdirTemp("", "ldhub-preview-")
	if err != nil {
		return nil, err
	}
	// The reload script goes into every page's head through the theme's hook for it, as one more theme layer.
	layer := filepath.Join(out, "reload-theme")
	hook := filepath.Join(layer, "layouts", "_partials", "head-extra.html")
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		os.RemoveAll(out)
		return nil, err
	}
	if err := os.WriteFile(hook, []byte(reloadScript), 0o644); err != nil {
		os.RemoveAll(out)
		return nil, err
	}
	htmlOpts.Title = "ldhub preview"
	htmlOpts.Themes = append(htmlOpts.Themes, layer)
	folder, err := pipeline.NewFolder(dir, pipeline.Options{Out: out, BaseURL: baseURL, HTML: htmlOpts})
	if err != nil {
		os.RemoveAll(out)
		return nil, err
	}
	// Resource pages get the same title and reload layer as the pipeline's pages.
	th := html.NewResources(html.ResourceOptions{Title: htmlOpts.Title, Themes: htmlOpts.Themes})
	h, err := site.NewHandler(site.Options{Dir: out, Theme: th})
	if err != nil {
		os.RemoveAll(out)
		return nil, err
	}
	return &preview{dir: dir, out: out, folder: folder, direct: h}, nil
}

func (p *preview) close() { os.RemoveAll(p.out) }

// sync re-renders what changed and wakes the pages waiting for a change.
func (p *preview) sync(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	changed, err := p.folder.Sync(ctx)
	if len(changed) > 0 {
		p.gen++
		for _, c := range p.waiters {
			close(c)
		}
		p.waiters = nil
	}
	return err
}

// watch re-renders after saves, waiting for a quiet moment so an editor's write-rename-chmod counts once.
func (p *preview) watch(ctx context.Context, log io.Writer) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		fmt.Fprintln(log, "preview: no live reload:", err)
		return
	}
	defer w.Close()
	addTree := func(root string) {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = w.Add(path)
			}
			return nil
		})
	}
	addTree(p.dir)
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Op&fsnotify.Create != 0 {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					addTree(ev.Name)
				}
			}
			timer = time.After(150 * time.Millisecond)
		case err := <-w.Errors:
			fmt.Fprintln(log, "preview: watcher:", err)
		case <-timer:
			timer = nil
			if err := p.sync(ctx); err != nil {
				fmt.Fprintln(log, "preview:", err)
			}
		}
	}
}

var indexPage = template.Must(template.New("index").Parse(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>ldhub preview</title></head><body><h1>Preview of {{.Dir}}</h1><ul>
{{range .Pubs}}<li><a href="{{.}}">{{.}}</a></li>{{else}}<li>No RDF files yet.</li>{{end}}
</ul>` + reloadScript + `</body></html>`))

func (p *preview) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/_preview/events":
		p.events(w, r)
	case r.URL.Path == "/":
		p.mu.Lock()
		pubs := p.folder.Publications()
		p.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_ = indexPage.Execute(w, map[string]any{"Dir": p.dir, "Pubs": pubs})
	default:
		// Nothing in a preview is worth caching: the next save changes it.
		r.Header.Del("If-None-Match")
		r.Header.Del("If-Modified-Since")
		w.Header().Set("Cache-Control", "no-store")
		p.direct.ServeHTTP(noCacheWriter{w}, r)
	}
}

// noCacheWriter keeps the handler's cache headers out of preview answers.
type noCacheWriter struct{ http.ResponseWriter }

func (n noCacheWriter) WriteHeader(code int) {
	n.Header().Set("Cache-Control", "no-store")
	n.ResponseWriter.WriteHeader(code)
}

func (n noCacheWriter) Write(b []byte) (int, error) {
	n.Header().Set("Cache-Control", "no-store")
	return n.ResponseWriter.Write(b)
}

// events is a server-sent event stream with one message per change.
func (p *preview) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	for {
		p.mu.Lock()
		c := make(chan struct{})
		p.waiters = append(p.waiters, c)
		p.mu.Unlock()
		select {
		case <-r.Context().Done():
			return
		case <-c:
			if _, err := io.WriteString(w, "data: "+strings.TrimSpace("changed")+"\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}
