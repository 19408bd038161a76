// Package preview is `ldhub preview`: a folder's RDF files rendered by the pipeline and served by the direct-URL
// handler as the hub would publish them, re-rendered on every save (fsnotify, debounced), with pages that reload
// themselves through a server-sent event stream and show the files that do not parse.
package preview

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/theme"
)

// reloadJS makes a preview page reload when the folder changes, and shows the files that do not parse (with their
// line and column) in a banner over every page, so a broken file is seen where the author looks. It is a file, not
// an inline script, so that previews run under the hub's Content-Security-Policy (script-src 'self') and a
// publisher sees there what the hub will allow.
const reloadJS = `new EventSource("/_preview/events").onmessage = () => location.reload();
fetch("/_preview/errors").then(r => r.json()).then(errs => {
  if (!errs.length) return;
  const box = document.createElement("div");
  box.setAttribute("role", "alert");
  box.id = "ldhub-preview-errors";
  box.style.cssText = "position:fixed;left:0;right:0;bottom:0;max-height:40vh;overflow:auto;z-index:1000;" +
    "background:#fff0f0;color:#7a0000;border-top:3px solid #b00020;padding:.75rem 1rem;font:14px/1.4 monospace;white-space:pre-wrap";
  const h = document.createElement("strong");
  h.textContent = errs.length + (errs.length > 1 ? " files do" : " file does") + " not parse:";
  box.append(h);
  for (const e of errs) { const p = document.createElement("div"); p.textContent = e; box.append(p); }
  document.body.append(box);
});
`

// reloadTag loads reloadJS into every page.
const reloadTag = `<script src="/_preview/reload.js" defer></script>`

// CSP is the hub's policy plus connect-src 'self', which the reload stream and the error list need.
const CSP = httpx.ContentSecurityPolicy + "; connect-src 'self'"

// headers are the hub's security headers (with CSP) and no caching: the next save changes everything.
func headers(h http.Header) {
	httpx.Secure(h)
	h.Set("Content-Security-Policy", CSP)
	h.Set("Cache-Control", "no-store")
}

// Server renders a folder as ldhub would publish it and serves the result, with pages that reload after each
// save. It is safe for concurrent use.
type Server struct {
	dir, out string
	css      string // the theme's style sheet, for the index page
	folder   *pipeline.Folder
	direct   http.Handler
	mu       sync.Mutex
	gen      int
	waiters  []chan struct{}
	errs     []string // why files of the last sync did not render
}

// New prepares a preview of dir (nothing is rendered before the first Sync). baseURL is the URL the folder will
// be published at; themeDir a publisher's theme folder, "" for the default theme.
func New(ctx context.Context, dir, baseURL, themeDir string) (*Server, error) {
	htmlOpts, err := pipeline.LoadTheme(ctx, themeDir)
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
	if err := os.WriteFile(hook, []byte(reloadTag), 0o644); err != nil {
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
	return &Server{dir: dir, out: out, folder: folder, direct: h, css: themeCSS(themeDir)}, nil
}

// Close removes the rendered pages.
func (p *Server) Close() error { return os.RemoveAll(p.out) }

// Sync re-renders what changed and wakes the pages waiting for a change. The error names each file that does not
// parse; the last good rendering of it stays.
func (p *Server) Sync(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	changed, err := p.folder.Sync(ctx)
	errs := errorLines(err)
	if len(changed) > 0 || !slices.Equal(errs, p.errs) {
		p.errs = errs
		p.gen++
		for _, c := range p.waiters {
			close(c)
		}
		p.waiters = nil
	}
	return err
}

// Watch re-renders after saves until ctx ends, waiting for a quiet moment so an editor's write-rename-chmod counts
// once. What goes wrong is written to log, one line each.
func (p *Server) Watch(ctx context.Context, log io.Writer) {
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
			if err := p.Sync(ctx); err != nil {
				fmt.Fprintln(log, "preview:", err)
			}
		}
	}
}

// errorLines splits a sync error into one line per file (errors.Join keeps them apart).
func errorLines(err error) []string {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, errorLines(e)...)
		}
		return out
	}
	return []string{err.Error()}
}

// themeCSS is the style sheet of the theme the pages use: the override's when it has one.
func themeCSS(themeDir string) string {
	const name = "static/css/ldhub.css"
	if themeDir != "" {
		if b, err := os.ReadFile(filepath.Join(themeDir, filepath.FromSlash(name))); err == nil {
			return string(b)
		}
	}
	b, _ := fs.ReadFile(theme.Hugo(), name)
	return string(b)
}

// indexPage lists the folder's publications in the hub's page frame and style, with the files that do not parse
// (also without JavaScript).
var indexPage = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Preview of {{.Dir}} · ldhub preview</title><style>{{.CSS}}</style></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="site"><nav aria-label="Breadcrumb"><ol class="crumbs"><li aria-current="page">ldhub preview</li></ol></nav></header>
<main id="main"><h1>Preview of {{.Dir}}</h1>
{{with .Errs}}<section class="errors" role="alert"><h2>Files that do not parse</h2><ul>{{range .}}<li><code>{{.}}</code></li>{{end}}</ul></section>{{end}}
<section><h2>Publications</h2><ul>
{{range .Pubs}}<li><a href="{{.}}">{{.}}</a></li>{{else}}<li>No RDF files yet.</li>{{end}}
</ul></section></main>
<footer class="site"><p>Rendered by ldhub preview; pages reload on every save.</p></footer>
` + reloadTag + `</body></html>`))

// ServeHTTP answers the index (/), the reload script, stream and error list (/_preview/...) and every direct URL
// of the rendered folder.
func (p *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	headers(w.Header())
	switch {
	case r.URL.Path == "/_preview/reload.js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = io.WriteString(w, reloadJS)
	case r.URL.Path == "/_preview/events":
		p.events(w, r)
	case r.URL.Path == "/_preview/errors":
		p.mu.Lock()
		errs := append([]string{}, p.errs...)
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(errs)
	case r.URL.Path == "/":
		p.mu.Lock()
		pubs, errs := p.folder.Publications(), p.errs
		p.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = indexPage.Execute(w, map[string]any{"Dir": p.dir, "Pubs": pubs, "Errs": errs, "CSS": template.CSS(p.css)})
	default:
		// Nothing in a preview is worth caching: the next save changes it.
		r.Header.Del("If-None-Match")
		r.Header.Del("If-Modified-Since")
		p.direct.ServeHTTP(writer{w}, r)
	}
}

// writer puts the preview's headers back over what the direct-URL handler set (its cache headers, and its
// policy, which would block the reload stream).
type writer struct{ http.ResponseWriter }

func (n writer) WriteHeader(code int) {
	headers(n.Header())
	n.ResponseWriter.WriteHeader(code)
}

func (n writer) Write(b []byte) (int, error) {
	headers(n.Header())
	return n.ResponseWriter.Write(b)
}

// events is a server-sent event stream with one message per change.
func (p *Server) events(w http.ResponseWriter, r *http.Request) {
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
			if _, err := io.WriteString(w, "data: changed\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}
