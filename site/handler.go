// Package site serves direct URLs from the tree the pipeline renders (site/tree): publications and their versions
// in every rendered syntax and as HTML, with content negotiation, caching headers, conditional and range requests,
// pre-compressed dumps and CORS, and the hub's static pages.
//
// It decides what a URL names in the tree and who may see it, and answers it. What it reads of the tree is kept
// in memory by site/filecache, which follows the pipeline's changes; a resource inside a publication is described
// from the publication's SPARQL index by site/describe, and a query to a publication's URL is run on that index
// by the SPARQL protocol handler (sparqlsvc/protocol). The index files are mapped once for the site and the API
// (describe.Indexes).
package site

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ldhub/ldhub/cache"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/filecache"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
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
	// Theme renders resource pages with Hugo; nil is the default theme.
	Theme *html.Resources
	// Codecs encode resource descriptions; nil is codec.Default().
	Codecs *codec.Registry
	// PageSize bounds the incoming links of one resource page (default 1000).
	PageSize int
	// Pages, when set, is a folder of static HTML pages (<path>/index.html: the hub, groups, repositories) answered
	// for paths that are not publications. Only public pages belong there: it is served without authorisation.
	Pages string
	// Log receives what goes wrong while answering (a page that fails to render); nil is slog.Default().
	Log *slog.Logger
	// SPARQL bounds each query at a direct URL, SPARQLCredentialed each query to a private publication (whose
	// callers hold a credential); zero fields take the protocol.Limits defaults, the second protocol.CredentialedLimits.
	SPARQL             protocol.Limits
	SPARQLCredentialed protocol.Limits
	// SPARQLGate bounds the queries running at once; share the API server's so both count together. nil makes
	// one with the protocol defaults.
	SPARQLGate *protocol.Gate
	// SPARQLStore, when set, returns the external SPARQL store's backend for a version (its URL path and id), or nil
	// while the store does not hold it; nil answers every query with the built-in engine.
	SPARQLStore func(versionPath, versionID string) protocol.Backend
	// Indexes maps the publications' SPARQL indexes; share the API server's so that each file is mapped once. nil
	// makes one for this handler.
	Indexes *describe.Indexes
}

// Handler serves direct URLs.
type Handler struct {
	o      Options
	files  *filecache.Cache
	gzip   gzipCache
	routes *cache.Cache[string, *route]
	terms  *cache.Cache[string, *html.TermDocs] // rendered folder + commit -> what its version defines
	late   chan struct{}                        // one conversion of a dump not written yet at a time (serveLate)
}

// NewHandler returns the direct-URL handler over a rendered tree.
func NewHandler(o Options) (*Handler, error) {
	if o.Dir == "" {
		return nil, errors.New("site: the rendered tree's folder is required")
	}
	if o.Theme == nil {
		o.Theme = html.NewResources(html.ResourceOptions{})
	}
	if o.SPARQLGate == nil {
		o.SPARQLGate = protocol.NewGate(0, 0, nil)
	}
	if o.SPARQLCredentialed == (protocol.Limits{}) {
		o.SPARQLCredentialed = protocol.CredentialedLimits
	}
	if o.Codecs == nil {
		o.Codecs = codec.Default()
	}
	if o.PageSize <= 0 {
		o.PageSize = describe.PageSize
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Indexes == nil {
		o.Indexes = describe.NewIndexes(32)
	}
	return &Handler{o: o, files: filecache.New(filecache.Options{Log: o.Log}), terms: newTermsCache(), late: make(chan struct{}, 1),
		routes: cache.New(cache.Options[string, *route]{MaxCost: maxRoutes})}, nil
}

// Close stops watching the rendered tree; the handler keeps answering, resolving every request on the file
// system. Without Close the watch ends when the handler is garbage collected.
func (h *Handler) Close() error { return h.files.Close() }

// Extensions that select a representation in the URL, overriding Accept. The list is the model's (the store refuses
// names ending in one); the media types are the codec registry's.
var extensions = representationTypes()

func representationTypes() map[string]string {
	m := make(map[string]string, len(model.RepresentationExts))
	for _, ext := range model.RepresentationExts {
		if ext == ".html" {
			m[ext] = htmlType
			continue
		}
		syn, ok := codec.Default().ByExtension(ext)
		if !ok {
			panic("site: no syntax for representation extension " + ext)
		}
		m[ext] = syn.MediaTypes[0]
	}
	return m
}

const htmlType = filecache.HTMLType

// target is what a URL path names in the tree.
type target struct {
	dir      string // the resolved rendered folder (a version's, or the latest's)
	folder   *filecache.Folder
	page     *tree.Page
	resource string // the resource's path below the publication ("" for the publication itself)
	ext      string // an extension given in the URL
	void     bool
	gone     bool // a retracted version: 410, whatever the representation asked for
	vanished bool // not located because the folder the latest link named was removed meanwhile (a switch)
}

var siteMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	httpx.Secure(hd)
	httpx.AllowRead(hd)
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	case http.MethodOptions:
		// Every method of a direct URL reads (POST is a SPARQL query).
		httpx.Origins(nil).Preflight(w, r, siteMethods, siteMethods)
		return
	default:
		hd.Set("Allow", "GET, HEAD, POST, OPTIONS")
		apierr.Write(w, r, apierr.New(http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on a direct URL"))
		return
	}
	// A second attempt when the folder located was removed before its file was opened: the latest version was
	// switched meanwhile (the pipeline deletes the old folder right after), and locating again finds the new one.
	if h.serveLocated(w, r, false) {
		h.serveLocated(w, r, true)
	}
}

// serveLocated answers a request for a direct URL. It returns true, having written nothing, when the located
// folder vanished and the request is worth locating again (never on the last attempt).
func (h *Handler) serveLocated(w http.ResponseWriter, r *http.Request, last bool) bool {
	hd := w.Header()
	if h.serveScript(w, r) { // before locate: no publication can shadow the pages' script
		return false
	}
	t, ok := h.locate(r)
	if !ok {
		if t.vanished && !last {
			return true
		}
		if h.servePage(w, r) {
			return false
		}
		apierr.Write(w, r, apierr.New(http.StatusNotFound, "no publication or resource at "+r.URL.Path))
		return false
	}
	if t.gone {
		apierr.Write(w, r, apierr.New(http.StatusGone, r.URL.Path+" was deleted (a retracted version); the publication's latest version is at "+t.page.Path))
		return false
	}
	if t.resource == sparqlSegment && t.ext == "" && !t.void {
		// <publication or version URL>/sparql: the endpoint form the README and users' scripts name.
		h.serveSPARQL(w, r, t, true)
		return false
	}
	if (r.Method == http.MethodPost || r.URL.RawQuery != "") && isSPARQL(r) {
		if t.resource != "" || t.void || t.ext != "" {
			hd.Set("Allow", "GET, HEAD, OPTIONS")
			apierr.Write(w, r, apierr.New(http.StatusMethodNotAllowed, "SPARQL is answered at the publication's or version's URL, not at "+r.URL.Path))
			return false
		}
		h.serveSPARQL(w, r, t, false)
		return false
	}
	fo := t.folder
	if key, ok, err := labelsQuery(r); err != nil {
		apierr.Write(w, r, apierr.New(http.StatusBadRequest, err.Error()))
		return false
	} else if ok && t.resource == "" && !t.void && t.ext == "" {
		rp, err := fo.LabelsRep(key, h.gzip.accepts(r.Header.Get("Accept-Encoding")))
		if err != nil {
			if _, serr := os.Stat(fo.Dir); !last && serr != nil {
				return true // the folder vanished: a new version replaced it
			}
			apierr.Write(w, r, apierr.New(http.StatusNotFound, "no index of term labels at "+r.URL.Path+": the page documents every term"))
			return false
		}
		return h.serveRep(w, r, rp, last)
	}
	if t.void {
		return h.serveSlot(w, r, t, fo.VoidSlot(), false, false, last)
	}
	var slot int
	if t.ext != "" {
		if slot = fo.SlotByType(extensions[t.ext]); slot < 0 {
			apierr.Write(w, r, apierr.New(http.StatusNotFound, "no "+t.ext+" representation of "+r.URL.Path))
			return false
		}
	} else if slot = fo.Pick(r.Header.Get("Accept")); slot < 0 {
		hd.Add("Vary", "Accept")
		apierr.Write(w, r, apierr.New(http.StatusNotAcceptable, "none of the available media types is acceptable: "+strings.Join(fo.Offers, ", ")))
		return false
	}
	if t.resource != "" {
		if t.ext == "" {
			hd.Add("Vary", "Accept")
		}
		h.serveResource(w, r, t, fo.Offers[slot], fo.Offers)
		return false
	}
	chosen := false
	if fo.IsPage(slot) {
		if sec, n, lang, ok, err := termsQuery(r); err != nil {
			apierr.Write(w, r, apierr.New(http.StatusBadRequest, err.Error()))
			return false
		} else if ok {
			rp, err := fo.SectionRep(sec, n, lang, t.ext == "")
			if err != nil {
				if _, serr := os.Stat(fo.Dir); !last && serr != nil {
					return true // the folder vanished: a new version replaced it
				}
				apierr.Write(w, r, apierr.New(http.StatusNotFound, "no page of terms at "+r.URL.Path+"?"+r.URL.RawQuery))
				return false
			}
			return h.serveRep(w, r, rp, last)
		}
		// The page in the reader's language: the one its switch named (?lang=), else Accept-Language's.
		lang, ok, err := chosenLanguage(r)
		if err != nil {
			apierr.Write(w, r, apierr.New(http.StatusBadRequest, err.Error()))
			return false
		}
		slot, chosen = fo.PageFor(lang, ok, r.Header.Get("Accept-Language")), ok
	}
	return h.serveSlot(w, r, t, slot, t.ext == "", chosen, last)
}

// Prepared is the answer ServeHTTP gives to a plain GET or HEAD of a public publication, version or VoID file,
// ready for a server that writes it without net/http (site/fastpath).
type Prepared struct{ r *filecache.Rep }

// Prepared returns the answer to a GET or HEAD of path (no query) with these Accept, Accept-Language and
// Accept-Encoding values, when ServeHTTP would give it whole from a prepared response: the route is public and in
// the route cache (located now when it is not) and the representation exists, its body in memory or, when too
// large to keep, in the file that File names. ok is false for anything else (private, resource, error), which only
// ServeHTTP may answer.
func (h *Handler) Prepared(path, accept, acceptLanguage, acceptEncoding string) (p Prepared, ok bool) {
	if !h.files.Watch() {
		return p, false
	}
	rt := h.cachedRoute(path)
	if rt == nil {
		// Located as ServeHTTP would, so that the route cache holds it from the first request on; without
		// credentials, so a private publication is never located here.
		if _, ok := h.locate(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}, Header: http.Header{}}); !ok {
			return p, false
		}
		if rt, _ = h.routes.Get(path); rt == nil {
			return p, false
		}
	}
	fo := rt.folder
	if rt.private || fo.Page.Private {
		return p, false
	}
	slot, negotiated := fo.VoidSlot(), false
	switch {
	case rt.void:
	case rt.ext != "":
		slot = fo.SlotByType(extensions[rt.ext])
	default:
		slot, negotiated = fo.Pick(accept), true
	}
	if slot < 0 {
		return p, false
	}
	if fo.IsPage(slot) {
		slot = fo.PageFor("", false, acceptLanguage)
	}
	gz := slot < len(fo.Page.Formats) && h.gzip.accepts(acceptEncoding)
	rp, err := fo.Rep(slot, negotiated, gz)
	if err != nil {
		return p, false
	}
	return Prepared{rp}, true
}

// Header is the header ServeHTTP sets for the whole answer (a new map): CORS, the prepared fields, Content-Length.
func (p Prepared) Header() http.Header {
	hd := http.Header{}
	p.r.SetContentLength(hd)
	httpx.Secure(hd)
	httpx.AllowRead(hd)
	p.r.SetHeader(hd)
	return hd
}

// Body is the representation; it must not be modified. It is nil when the file is too large to keep in memory.
func (p Prepared) Body() []byte { return p.r.Body }

// File names the file the representation is read from. When Body is nil, a server sends that file (sendfile), after
// checking that it still has the size and modification time this answer announces: the pipeline may have
// replaced it since.
func (p Prepared) File() string { return p.r.Name }

// ModTime is the file's modification time, the one If-Modified-Since is compared with.
func (p Prepared) ModTime() time.Time { return p.r.Mod }

// Memo returns what build derived from this response, calling build the first time: the derived value lives
// exactly as long as the prepared response does.
func (p Prepared) Memo(build func(Prepared) any) any {
	return p.r.Memo(func() any { return build(p) })
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
		apierr.Write(w, r, apierr.New(http.StatusNotAcceptable, "this page is only available as text/html"))
		return true
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=60, must-revalidate")
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return true
}

// A route is a URL path already located: the folder it is served from, valid while its publication's entry is.
type route struct {
	pub     *filecache.Entry
	private bool
	folder  *filecache.Folder // its Dir is the route's rendered folder
	ext     string
	void    bool
}

// The route cache maps URL paths to routes. Only publications, their versions and VoID files are cached (resources
// are rendered per request anyway), so it holds a few entries per publication; the bound is for safety.
const maxRoutes = 1 << 16

// cachedRoute returns the route cached for path, after the file cache has applied the tree's changes since the
// last request; nil when there is none or its publication's entry is no longer fresh.
func (h *Handler) cachedRoute(path string) *route {
	h.files.Drain()
	if rt, _ := h.routes.Get(path); rt != nil && h.files.Fresh(rt.pub) {
		return rt
	}
	return nil
}

// locate maps a URL path onto the tree. A path located before is answered from the route cache, after the
// watcher has applied the tree's changes since the last request.
func (h *Handler) locate(r *http.Request) (target, bool) {
	p := r.URL.Path
	if h.files.Watching() {
		if rt := h.cachedRoute(p); rt != nil {
			page := rt.folder.Page
			if rt.private && (h.o.Auth == nil || !h.o.Auth.CanView(r, page.RepositoryID)) {
				return target{}, false
			}
			return target{dir: rt.folder.Dir, folder: rt.folder, page: page, ext: rt.ext, void: rt.void}, true
		}
	}
	t, pe, private, ok := h.locateFS(r)
	if ok && pe != nil && t.resource == "" {
		h.routes.Add(p, &route{pub: pe, private: private, folder: t.folder, ext: t.ext, void: t.void})
	}
	return t, ok
}

// locateFS maps a URL path onto the tree: the longest prefix that is a rendered publication, then what follows
// it. It also returns the publication's tracked entry (nil when its changes are not watched) and whether it is
// private.
func (h *Handler) locateFS(r *http.Request) (target, *filecache.Entry, bool, bool) {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "\x00") {
		return target{}, nil, false, false
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for _, s := range segs {
		if s == "" || strings.HasPrefix(s, ".") {
			return target{}, nil, false, false // also keeps requests out of the .ld folders and away from ..
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
			pe, dir, err := h.files.Resolve(meta)
			if err != nil {
				continue
			}
			switch {
			case len(rest) >= 2 && rest[0] == model.VersionsSegment:
				name := rest[1]
				if len(rest) == 2 && t.ext != "" {
					name = strings.TrimSuffix(name, t.ext)
				}
				esc, err := tree.VersionDirName(name)
				if err != nil {
					return target{}, nil, false, false
				}
				vdir := filepath.Join(meta, tree.Versions, esc)
				if _, err := os.Stat(vdir); err != nil {
					// Not a label: a version is also reachable by its id or commit hash (7+ hex digits of it).
					if vdir = h.files.VersionByID(pe, dir, meta, name); vdir == "" {
						fo, ok := h.files.Retracted(pe, dir, esc, name)
						if !ok || private && (h.o.Auth == nil || !h.o.Auth.CanView(r, fo.Page.RepositoryID)) {
							return target{}, nil, false, false
						}
						// Not cached (no entry): a gone version is rare, and its answer is not a prepared one.
						return target{dir: dir, folder: fo, page: fo.Page, gone: true}, nil, private, true
					}
				}
				dir = vdir
				rest = rest[2:]
			case len(rest) == 1 && rest[0] == tree.Void:
				t.void, t.ext, rest = true, "", nil
			}
			fo, tracked, err := h.files.FolderIn(pe, dir)
			if err != nil {
				// The latest link read a moment ago may name a folder a switch has since removed.
				return target{vanished: errors.Is(err, fs.ErrNotExist)}, nil, false, false
			}
			if !tracked {
				pe = nil // not watched: not cached either
			}
			page := fo.Page
			if private && (h.o.Auth == nil || !h.o.Auth.CanView(r, page.RepositoryID)) {
				return target{}, nil, false, false // exactly as if it did not exist
			}
			if len(rest) > 0 && t.void {
				return target{}, nil, false, false
			}
			t.dir, t.folder, t.page = dir, fo, page
			t.resource = strings.Join(rest, "/")
			if t.resource != "" && t.ext != "" {
				t.resource = strings.TrimSuffix(t.resource, t.ext)
			}
			return t, pe, private, true
		}
	}
	return target{}, nil, false, false
}

// serveSlot answers with a slot's rendered file, its .gz sibling when the client accepts gzip (compressible
// dumps only), from the prepared response. A plain GET or HEAD is answered here with one write; conditional and
// range requests go to http.ServeContent against the same ETag and Last-Modified. A page (Folder.IsPage) whose
// language the request chose (?lang=) is answered without Vary: Accept-Language.
func (h *Handler) serveSlot(w http.ResponseWriter, r *http.Request, t target, slot int, negotiated, chosen, last bool) (again bool) {
	gz := slot < len(t.page.Formats) && h.gzip.accepts(r.Header.Get("Accept-Encoding"))
	var rp *filecache.Rep
	var err error
	if chosen {
		rp, err = t.folder.PageRep(slot, negotiated)
	} else {
		rp, err = t.folder.Rep(slot, negotiated, gz)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && slot < len(t.page.Formats) && !chosen {
			if served, again := h.serveLate(w, r, t, slot, negotiated, last); served || again {
				return again
			}
		}
		if !last && errors.Is(err, os.ErrNotExist) {
			return true
		}
		apierr.Write(w, r, apierr.New(http.StatusNotFound, "no representation at "+r.URL.Path))
		return false
	}
	return h.serveRep(w, r, rp, last)
}

// serveLate answers a dump that is written after its version went live (tree.LateDumps: a large version's RDF/XML
// and JSON-LD) and is not there yet, by converting the folder's N-Triples or N-Quads dump as the pipeline then
// writes it (codec.Redump) into a temporary file: the same bytes, so the same ETag and Last-Modified as the dump
// once written. One conversion runs at a time (they take a core for a second per million statements, and the
// dump is written within seconds anyway); a request that waited and finds the dump written is answered from it.
// served is false, having written nothing, when the folder has no such dump to come.
func (h *Handler) serveLate(w http.ResponseWriter, r *http.Request, t target, slot int, negotiated, last bool) (served, again bool) {
	m, ok, err := tree.ReadLateDumps(t.folder.Dir)
	if err != nil || !ok {
		return false, false
	}
	dst, ok := h.o.Codecs.ByExtension(t.page.Formats[slot].Ext)
	if !ok || dst.NewStreamEncoder == nil {
		return false, false
	}
	select {
	case h.late <- struct{}{}:
		defer func() { <-h.late }()
	case <-r.Context().Done():
		return true, false // the client is gone
	}
	if rp, err := t.folder.Rep(slot, negotiated, false); err == nil {
		return true, h.serveRep(w, r, rp, last) // written while this request waited
	}
	for _, name := range []string{"n-triples", "n-quads"} {
		src, ok := h.o.Codecs.ByName(name)
		if !ok {
			continue
		}
		in, err := os.Open(filepath.Join(t.folder.Dir, tree.DataBase+src.Extensions[0]))
		if err != nil {
			continue
		}
		defer in.Close()
		if err := h.convertLate(w, r, t, slot, negotiated, in, src, dst, m); err != nil && r.Context().Err() == nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				h.o.Log.Error("site: converting a dump not written yet", "folder", t.folder.Dir, "syntax", dst.Name, "err", err)
				apierr.Write(w, r, apierr.New(http.StatusInternalServerError, "the "+dst.Name+" representation of "+r.URL.Path+" could not be made"))
				return true, false
			}
			// The data itself (RDF/XML cannot hold every graph): the pipeline leaves this dump out too, and the
			// page stops offering it once the worker has tried.
			if negotiated {
				w.Header().Add("Vary", "Accept")
			}
			apierr.Write(w, r, apierr.New(http.StatusNotAcceptable, "this version cannot be written as "+dst.Name+": "+err.Error()))
		}
		return true, false
	}
	return false, false
}

// lateTempPattern names convertLate's temporary files: the .tmp- prefix of the pipeline's staging files
// (atomicfile.TempPrefix, which this layer does not import), at the top of the tree.
const lateTempPattern = ".tmp-late-*"

// convertLate converts in (the folder's N-Triples or N-Quads dump) into a temporary file and answers it.
func (h *Handler) convertLate(w http.ResponseWriter, r *http.Request, t target, slot int, negotiated bool, in *os.File, src, dst codec.Syntax, m tree.LateDumpsMarker) error {
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	// In the tree, under the name the pipeline stages its own files with: a process killed while converting leaves
	// it where the pipeline's start-up sweep removes every .tmp-* entry (os.TempDir is swept by no one of ours).
	tmp, err := os.CreateTemp(h.o.Dir, lateTempPattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := codec.Redump(r.Context(), src, dst, bufio.NewReaderSize(in, 1<<20), bw, m.Blanks, m.Prefixes); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	// The dump's time, which the pipeline gives the written file too (it is the version's).
	if err := os.Chtimes(tmp.Name(), fi.ModTime(), fi.ModTime()); err != nil {
		return err
	}
	out, err := tmp.Stat()
	if err != nil {
		return err
	}
	rp := t.folder.FileRep(slot, negotiated, tmp.Name(), out)
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	rp.SetHeader(w.Header())
	http.ServeContent(w, r, "", rp.Mod, tmp)
	return nil
}

// serveRep writes a prepared response; again as for serveSlot.
func (h *Handler) serveRep(w http.ResponseWriter, r *http.Request, rp *filecache.Rep, last bool) (again bool) {
	if rp.Body == nil {
		// Too large to keep: opened before any header is set, so that a vanished folder can still be retried.
		f, err := os.Open(rp.Name)
		if err != nil {
			if !last && errors.Is(err, os.ErrNotExist) {
				return true
			}
			apierr.Write(w, r, apierr.New(http.StatusNotFound, "no representation at "+r.URL.Path))
			return false
		}
		defer f.Close()
		rp.SetHeader(w.Header())
		http.ServeContent(w, r, "", rp.Mod, f) // an *os.File goes out with sendfile
		return false
	}
	hd := w.Header()
	rp.SetHeader(hd)
	if plainRequest(r) {
		rp.SetContentLength(hd)
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(rp.Body)
		}
		return false
	}
	// writeOnly hides ResponseWriter.ReadFrom, which would send the headers with the first 512 bytes and the rest
	// in a second write.
	http.ServeContent(writeOnly{w}, r, "", rp.Mod, bytes.NewReader(rp.Body))
	return false
}

// termsQuery is the page of a section's full listing a publication or version page's query names
// (?terms=<section>&page=<n>, and lang=<tag> for the page in that language: tree.SectionPageIn, lang its key);
// ok is false when it names none. A page that cannot exist (0, or
// a section name that is not a word) is not an error: it is a missing page.
func termsQuery(r *http.Request) (section string, n int, lang string, ok bool, err error) {
	q := r.URL.Query()
	ts, ps := q["terms"], q["page"]
	if ts == nil && ps == nil {
		return "", 0, "", false, nil
	}
	if len(ts) != 1 || len(ps) != 1 {
		return "", 0, "", false, errors.New("a page of terms is named by one terms=<section> and one page=<n>")
	}
	tag, named, err := chosenLanguage(r)
	if err != nil {
		return "", 0, "", false, err
	}
	if named {
		lang = codec.LanguageKey(tag)
	}
	n, err = strconv.Atoi(ps[0])
	if err != nil || len(ps[0]) > 9 {
		return "", 0, "", false, errors.New("page must be a page number (1, 2, …)")
	}
	section = ts[0]
	if n < 1 || section == "" || strings.IndexFunc(section, func(c rune) bool { return (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') }) >= 0 {
		return "-", 0, "", true, nil // no such file: answered as a missing page
	}
	return section, n, lang, true, nil
}

// labelsQuery is the language key of the labels index a publication or version URL's query names
// (?terms=index, with lang=<tag> for a language's: tree.LabelsIndex); ok is false when it names none.
func labelsQuery(r *http.Request) (key string, ok bool, err error) {
	q := r.URL.Query()
	if ts := q["terms"]; len(ts) != 1 || ts[0] != "index" || q.Has("page") {
		return "", false, nil
	}
	lang, named, err := chosenLanguage(r)
	if err != nil || !named {
		return "", err == nil, err
	}
	return codec.LanguageKey(lang), true, nil
}

type writeOnly struct{ http.ResponseWriter }

// plainRequest reports a request without preconditions or ranges, which is answered with the whole body.
func plainRequest(r *http.Request) bool {
	h := r.Header
	return len(h["Range"]) == 0 && len(h["If-None-Match"]) == 0 && len(h["If-Modified-Since"]) == 0 &&
		len(h["If-Match"]) == 0 && len(h["If-Unmodified-Since"]) == 0 && len(h["If-Range"]) == 0
}

// gzipCache remembers codec.AcceptsEncoding(header, "gzip") per Accept-Encoding header. Clients send few distinct
// headers; the memo is bounded all the same, since anyone can send any.
const (
	maxEncodingEntries = 512
	maxEncodingLen     = 1024
)

type gzipCache struct {
	mu sync.RWMutex
	m  map[string]bool
}

func (c *gzipCache) accepts(ae string) bool {
	if ae == "" {
		return false
	}
	c.mu.RLock()
	v, ok := c.m[ae]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = codec.AcceptsEncoding(ae, "gzip")
	if len(ae) <= maxEncodingLen {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxEncodingEntries {
			c.m = map[string]bool{}
		}
		c.m[ae] = v
		c.mu.Unlock()
	}
	return v
}
