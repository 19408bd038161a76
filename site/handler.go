// Package site serves direct URLs from the tree the pipeline renders (site/tree): publications and their versions
// in every rendered syntax and as HTML, with content negotiation, caching headers, conditional and range requests,
// pre-compressed dumps and CORS; resources inside a publication are described from its SPARQL index.
package site

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/theme"
)

// Authorizer decides whether a request may read a repository that is not visible. The API plugs its HTTP Basic
// authentication in here; the handler asks only for content of non-visible repositories.
type Authorizer interface {
	// CanView reports whether the request's credentials hold at least VIEWER on the repository.
	CanView(r *http.Request, repositoryID string) bool
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(r *http.Request, repositoryID string) bool

func (f AuthorizerFunc) CanView(r *http.Request, id string) bool { return f(r, id) }

// Options configure the handler.
type Options struct {
	// Dir is the pipeline's output folder (the one holding public/ and private/).
	Dir string
	// Auth admits requests to non-visible repositories; nil never does (their URLs answer 404).
	Auth Authorizer
	// Theme renders resource pages; nil is the default theme.
	Theme *theme.Theme
	// Codecs encode resource descriptions; nil is codec.Default().
	Codecs *codec.Registry
	// PageSize bounds the incoming links of one resource page (default 1000).
	PageSize int
	// Pages, when set, is a folder of static HTML pages (<path>/index.html: the hub, groups, repositories) answered
	// for paths that are not publications. Only public pages belong there: it is served without authorisation.
	Pages string
}

// Handler serves direct URLs.
type Handler struct {
	o       Options
	folders sync.Map // resolved folder path -> *folder
	indexes *indexCache
	budget  budget
}

// NewHandler returns the direct-URL handler over a rendered tree.
func NewHandler(o Options) (*Handler, error) {
	if o.Dir == "" {
		return nil, errors.New("site: the rendered tree's folder is required")
	}
	if o.Theme == nil {
		th, err := theme.Load("")
		if err != nil {
			return nil, err
		}
		o.Theme = th
	}
	if o.Codecs == nil {
		o.Codecs = codec.Default()
	}
	if o.PageSize <= 0 {
		o.PageSize = 1000
	}
	return &Handler{o: o, indexes: newIndexCache(32), budget: budget{max: 64 << 20, per: 64 << 10}}, nil
}

// Extensions that select a representation in the URL, overriding Accept.
var extensions = map[string]string{
	".ttl": "text/turtle", ".nt": "application/n-triples", ".rdf": "application/rdf+xml",
	".jsonld": "application/ld+json", ".html": "text/html", ".trig": "application/trig", ".nq": "application/n-quads",
}

const htmlType = "text/html"

// target is what a URL path names in the tree.
type target struct {
	dir      string // the resolved rendered folder (a version's, or the latest's)
	folder   *folder
	page     *tree.Page
	resource string // the resource's path below the publication ("" for the publication itself)
	ext      string // an extension given in the URL
	void     bool
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Expose-Headers", "ETag, Link, Content-Location, Vary, Content-Range")
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	case http.MethodOptions:
		hd.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS")
		hd.Set("Access-Control-Allow-Headers", "Authorization, Accept, Accept-Encoding, Content-Type, Range, If-None-Match, If-Modified-Since")
		hd.Set("Access-Control-Max-Age", "86400")
		hd.Set("Allow", "GET, HEAD, POST, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		hd.Set("Allow", "GET, HEAD, POST, OPTIONS")
		writeError(w, r, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on a direct URL")
		return
	}
	t, ok := h.locate(r)
	if !ok {
		if h.servePage(w, r) {
			return
		}
		writeError(w, r, http.StatusNotFound, "no publication or resource at "+r.URL.Path)
		return
	}
	if isSPARQL(r) {
		if t.resource != "" || t.void || t.ext != "" {
			hd.Set("Allow", "GET, HEAD, OPTIONS")
			writeError(w, r, http.StatusMethodNotAllowed, "SPARQL is answered at the publication's or version's URL, not at "+r.URL.Path)
			return
		}
		h.serveSPARQL(w, r, t)
		return
	}
	if t.void {
		h.serveFile(w, r, t, filepath.Join(t.dir, tree.Void), "text/turtle", t.page.Self+"/void.ttl", false)
		return
	}
	offers := make([]string, 0, len(t.page.Formats)+1)
	for _, f := range t.page.Formats {
		offers = append(offers, f.MediaType)
	}
	offers = append(offers, htmlType)
	var mt string
	if t.ext != "" {
		mt = extensions[t.ext]
		if !contains(offers, mt) {
			writeError(w, r, http.StatusNotFound, "no "+t.ext+" representation of "+r.URL.Path)
			return
		}
	} else {
		hd.Add("Vary", "Accept")
		if mt, ok = codec.Negotiate(r.Header.Get("Accept"), offers); !ok {
			writeError(w, r, http.StatusNotAcceptable, "none of the available media types is acceptable: "+strings.Join(offers, ", "))
			return
		}
	}
	if t.resource != "" {
		h.serveResource(w, r, t, mt, offers)
		return
	}
	self := t.page.Self
	h.setLinks(w, self, mt, t.page)
	if mt == htmlType {
		h.serveFile(w, r, t, filepath.Join(t.dir, tree.PageHTML), "text/html; charset=utf-8", self+".html", false)
		return
	}
	for _, f := range t.page.Formats {
		if f.MediaType == mt {
			h.serveFile(w, r, t, filepath.Join(t.dir, f.File()), mt, self+f.Ext, true)
			return
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// servePage answers a GET for a static page of the hub (the front page, a group, a repository) from o.Pages.
func (h *Handler) servePage(w http.ResponseWriter, r *http.Request) bool {
	if h.o.Pages == "" || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	rel := strings.Trim(r.URL.Path, "/")
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return false
		}
	}
	name := filepath.Join(h.o.Pages, filepath.FromSlash(rel), "index.html")
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		return false
	}
	if _, ok := codec.Negotiate(r.Header.Get("Accept"), []string{htmlType}); !ok {
		w.Header().Add("Vary", "Accept")
		writeError(w, r, http.StatusNotAcceptable, "this page is only available as text/html")
		return true
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=60, must-revalidate")
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return true
}

// setLinks announces the other representations of the same URL.
func (h *Handler) setLinks(w http.ResponseWriter, self, chosen string, p *tree.Page) {
	var links []string
	for _, f := range p.Formats {
		if f.MediaType != chosen {
			links = append(links, "<"+self+f.Ext+`>; rel="alternate"; type="`+f.MediaType+`"`)
		}
	}
	if chosen != htmlType {
		links = append(links, "<"+self+`.html>; rel="alternate"; type="text/html"`)
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
}

// locate maps a URL path onto the tree: the longest prefix that is a rendered publication, then what follows it.
func (h *Handler) locate(r *http.Request) (target, bool) {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "\x00") {
		return target{}, false
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for _, s := range segs {
		if s == "" || strings.HasPrefix(s, ".") {
			return target{}, false // also keeps requests out of the .ld folders and away from ..
		}
	}
	var t target
	if last := segs[len(segs)-1]; path.Ext(last) != "" {
		if _, ok := extensions[path.Ext(last)]; ok {
			t.ext = path.Ext(last)
		}
	}
	for k := len(segs); k >= 1; k-- {
		pubPath := "/" + strings.Join(segs[:k], "/")
		rest := segs[k:]
		if t.ext != "" && len(rest) == 0 {
			pubPath = strings.TrimSuffix(pubPath, t.ext)
		}
		for _, private := range []bool{false, true} {
			meta := tree.PubDir(tree.Root(h.o.Dir, private), pubPath)
			cur := filepath.Join(meta, tree.Current)
			link, err := os.Readlink(cur)
			if err != nil {
				continue
			}
			dir := filepath.Join(meta, link)
			switch {
			case len(rest) >= 2 && rest[0] == "versions":
				name := rest[1]
				if len(rest) == 2 && t.ext != "" {
					name = strings.TrimSuffix(name, t.ext)
				}
				esc, err := tree.VersionDirName(name)
				if err != nil {
					return target{}, false
				}
				vdir := filepath.Join(meta, tree.Versions, esc)
				if _, err := os.Stat(vdir); err != nil {
					// Not a label: a version is also reachable by its id or commit hash (7+ hex digits of it).
					if vdir = h.versionByID(dir, meta, name); vdir == "" {
						return target{}, false
					}
				}
				dir = vdir
				rest = rest[2:]
			case len(rest) == 1 && rest[0] == "void.ttl":
				t.void, t.ext, rest = true, "", nil
			}
			fo, err := h.folder(dir)
			if err != nil {
				return target{}, false
			}
			page := fo.page
			if private && (h.o.Auth == nil || !h.o.Auth.CanView(r, page.RepositoryID)) {
				return target{}, false // exactly as if it did not exist
			}
			if len(rest) > 0 && t.void {
				return target{}, false
			}
			t.dir, t.folder, t.page = dir, fo, page
			t.resource = strings.Join(rest, "/")
			if t.resource != "" && t.ext != "" {
				t.resource = strings.TrimSuffix(t.resource, t.ext)
			}
			return t, true
		}
	}
	return target{}, false
}

// versionByID finds a version folder by version id or commit (prefix) through the latest page's version list.
func (h *Handler) versionByID(cur, meta, name string) string {
	fo, err := h.folder(cur)
	if err != nil {
		return ""
	}
	for _, v := range fo.page.Versions {
		if v.ID == name || v.Commit == name || len(name) >= 7 && strings.HasPrefix(v.Commit, name) {
			return filepath.Join(meta, tree.Versions, path.Base(v.URL))
		}
	}
	return ""
}

// folder returns what the handler knows of a rendered folder, re-reading its page.json only when that file was
// replaced (one stat per request instead of a read and a JSON decode).
func (h *Handler) folder(dir string) (*folder, error) {
	name := filepath.Join(dir, tree.PageJSON)
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	ino := inode(fi)
	if c, ok := h.folders.Load(dir); ok {
		if f := c.(*folder); f.ino == ino && f.mod.Equal(fi.ModTime()) {
			return f, nil
		}
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var p tree.Page
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	f := &folder{page: &p, ino: ino, mod: fi.ModTime(), files: map[string]cachedFile{}}
	if old, loaded := h.folders.Swap(dir, f); loaded {
		h.release(old.(*folder))
	}
	return f, nil
}

// release gives a replaced folder's cached bytes back to the budget.
func (h *Handler) release(f *folder) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for _, c := range f.files {
		n += int64(len(c.data))
	}
	f.files = map[string]cachedFile{}
	atomic.AddInt64(&h.budget.used, -n)
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// cacheControl: a version never changes; the latest is revalidated; private content stays out of shared caches.
func cacheControl(p *tree.Page) string {
	switch {
	case p.Private:
		return "private, no-cache"
	case !p.Latest:
		return "public, max-age=31536000, immutable"
	default:
		return "public, max-age=60, must-revalidate"
	}
}

// serveFile answers with a rendered file, its .gz sibling when the client accepts gzip (compressible), and lets
// http.ServeContent do HEAD, Range and the conditional requests against the ETag and Last-Modified set here.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, t target, name, ctype, location string, compressible bool) {
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Location", location)
	hd.Set("Cache-Control", cacheControl(t.page))
	tag := t.page.Version.Commit
	if len(tag) > 12 {
		tag = tag[:12]
	}
	tag += "-" + strings.TrimPrefix(path.Ext(name), ".")
	if t.page.Latest {
		tag += "-l"
	}
	gz := compressible && acceptsGzip(r.Header.Get("Accept-Encoding"))
	var (
		body io.ReadSeeker
		mod  time.Time
	)
	if gz {
		if b, m, err := t.folder.open(name+".gz", &h.budget); err == nil {
			body, mod = b, m
		} else {
			gz = false
		}
	}
	if body == nil {
		b, m, err := t.folder.open(name, &h.budget)
		if err != nil {
			writeError(w, r, http.StatusNotFound, "no representation at "+r.URL.Path)
			return
		}
		body, mod = b, m
	}
	if compressible {
		hd.Add("Vary", "Accept-Encoding")
	}
	if gz {
		hd.Set("Content-Encoding", "gzip")
		tag += "-gz"
	}
	hd.Set("ETag", `"`+tag+`"`)
	http.ServeContent(w, r, "", mod, body)
	if c, ok := body.(io.Closer); ok {
		c.Close()
	}
}

// acceptsGzip reads Accept-Encoding: gzip (or x-gzip, or *) with a non-zero weight.
func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "x-gzip" && name != "*" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		if q > 0 {
			return true
		}
	}
	return false
}

// writeError answers with the JSON error body of every ldhub route.
func writeError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Del("Content-Encoding")
	b, _ := json.Marshal(map[string]any{
		"timestamp": time.Now().UnixMilli(), "status": status, "error": http.StatusText(status),
		"message": msg, "path": r.URL.Path,
	})
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
}
