package site

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/cache"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/filecache"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// serveResource describes one resource of a publication: its statements with the closure of its blank nodes, and
// the statements that point at it (paged with ?page=N). An HTML page already rendered is answered from the cache
// without reading the index.
func (h *Handler) serveResource(w http.ResponseWriter, r *http.Request, t target, mt string, offers []string) {
	page := 0
	if v := r.URL.Query().Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			apierr.Write(w, r, apierr.New(http.StatusBadRequest, "page must be a number from 0"))
			return
		}
		page = n
	}
	langs, chosen, err := h.resourceLanguages(r)
	if err != nil {
		apierr.Write(w, r, apierr.New(http.StatusBadRequest, err.Error()))
		return
	}
	if mt == htmlType && !chosen {
		w.Header().Add("Vary", "Accept-Language")
	}
	self := strings.TrimSuffix(r.URL.Path, t.ext)
	if f, fi := h.termFile(t, mt, page, chosen, langs); f != nil {
		defer f.Close()
		h.answerResource(w, r, t, mt, offers, self, page, "", "", "", f, fi)
		return
	}
	// Under useVersionedBaseUri a version's resources carry the version's URI; otherwise the publication's.
	candidates := []string{t.page.URI + strings.TrimPrefix(t.page.Self, t.page.Path) + "/" + t.resource}
	if !t.page.Latest {
		candidates = append(candidates, t.page.URI+"/"+t.resource)
	}
	// The rendered folder and its commit name the data a page shows; Self tells a version's page from the latest's,
	// which may show the same folder with other links, and the extension is kept in the page's links.
	key := html.ResourceKey{Dataset: t.dir + "\x00" + t.page.Version.Commit + "\x00" + t.page.Self + "\x00" + t.ext,
		IRI: candidates[0], Page: page}
	if mt == htmlType {
		key.Lang = strings.Join(langs, ",")
		if c, ok := h.o.Theme.Cached(key); ok {
			h.answerResource(w, r, t, mt, offers, self, page, c.IRI, c.Next, key.Lang, bytes.NewReader(c.HTML), nil)
			return
		}
	}
	ds, release, err := h.acquireIndex(t)
	if err != nil {
		apierr.Write(w, r, apierr.New(http.StatusNotFound, "no resource at "+r.URL.Path))
		return
	}
	defer release()
	var d describe.Description
	for _, iri := range candidates {
		if d = describe.Describe(ds, iri, page, h.o.PageSize); !d.Empty() {
			break
		}
	}
	if d.Empty() {
		apierr.Write(w, r, apierr.New(http.StatusNotFound, "nothing is said about "+candidates[0]))
		return
	}
	// An explicit language stays in the links between pages; a negotiated one is negotiated again.
	lang := ""
	if chosen {
		lang = langs[0]
	}
	next := ""
	if d.More {
		next = describe.PageURL(self+t.ext, page+1, lang)
	}
	if mt == htmlType {
		c, err := h.o.Theme.Render(r.Context(), key, h.resourcePage(ds, t, d, self, page, next, offers, langs, lang))
		if err != nil {
			h.renderFailed(w, r, "a resource page", err)
			return
		}
		h.answerResource(w, r, t, mt, offers, self, page, c.IRI, c.Next, key.Lang, bytes.NewReader(c.HTML), nil)
		return
	}
	syn, ok := h.o.Codecs.ByMediaType(mt)
	if !ok || !syn.CanEncode() {
		apierr.Write(w, r, apierr.New(http.StatusNotAcceptable, "cannot write "+mt))
		return
	}
	var buf bytes.Buffer
	if err := describe.Encode(&buf, syn, d); err != nil {
		apierr.Write(w, r, apierr.New(http.StatusInternalServerError, fmt.Sprintf("encoding %s: %v", mt, err)))
		return
	}
	h.answerResource(w, r, t, mt, offers, self, page, d.IRI, next, "", bytes.NewReader(buf.Bytes()), nil)
}

// maxReaderLanguages bounds the reader's preferences a resource page is rendered for: past a few they hardly
// change the page, and each distinct order is a page of its own in the cache.
const maxReaderLanguages = 4

// resourceLanguages is the order a resource page picks labels in: the language the page's switch asked for
// (?lang=, chosen true) or the reader's Accept-Language preferences, then the hub's language, English, untagged.
func (h *Handler) resourceLanguages(r *http.Request) (order []string, chosen bool, err error) {
	var prefs []string
	if lang, ok, err := chosenLanguage(r); err != nil {
		return nil, false, err
	} else if ok {
		prefs, chosen = []string{lang}, true
	} else {
		prefs = codec.AcceptLanguages(r.Header.Get("Accept-Language"))
		if len(prefs) > maxReaderLanguages {
			prefs = prefs[:maxReaderLanguages]
		}
	}
	return html.LanguageOrder(append(prefs, h.o.Theme.Language())...), chosen, nil
}

// chosenLanguage is the language a page's switch asked for (?lang=), if any; a malformed or repeated one is an
// error.
func chosenLanguage(r *http.Request) (string, bool, error) {
	v, ok := r.URL.Query()["lang"]
	if !ok {
		return "", false, nil
	}
	if len(v) != 1 || !codec.IsLanguageTag(v[0]) {
		return "", false, errors.New("lang must be one language tag (such as en or pt-BR)")
	}
	return v[0], true, nil
}

// renderFailed answers a page that could not be rendered: 503 while the renderer's queue is full, else 500
// (logged, unless the client went away).
func (h *Handler) renderFailed(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, html.ErrBusy) {
		w.Header().Set("Retry-After", "1")
		apierr.Write(w, r, apierr.New(http.StatusServiceUnavailable, "too many pages are being rendered; try again in a second"))
		return
	}
	if r.Context().Err() == nil {
		h.o.Log.ErrorContext(r.Context(), "site: rendering "+what, "path", r.URL.Path, "err", err)
	}
	apierr.Write(w, r, apierr.New(http.StatusInternalServerError, "rendering the page failed"))
}

// answerResource sends one representation of a resource's description with its links and validators.
// file, when not nil, is the pre-rendered file body reads (termFile).
func (h *Handler) answerResource(w http.ResponseWriter, r *http.Request, t target, mt string, offers []string, self string, page int, iri, next, lang string, body io.ReadSeeker, file os.FileInfo) {
	hd := w.Header()
	var links []string
	for _, o := range offers {
		if o != mt {
			links = append(links, "<"+self+extOf(o)+`>; rel="alternate"; type="`+o+`"`)
		}
	}
	if next != "" {
		links = append(links, "<"+next+`>; rel="next"`)
	}
	hd.Set("Link", strings.Join(links, ", "))
	ctype := mt
	if mt == htmlType {
		ctype = "text/html; charset=utf-8"
	}
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Location", self+extOf(mt))
	hd.Set("Cache-Control", t.page.CacheControl())
	if file != nil {
		// A pre-rendered term page: validated as the web servers validate the same file.
		hd.Set("ETag", filecache.ETag(file.ModTime(), file.Size()))
		http.ServeContent(w, r, "", file.ModTime(), body)
		return
	}
	hash := fnv.New64a()
	fmt.Fprintf(hash, "%s\x00%d\x00%s\x00%s", iri, page, mt, lang)
	commit := t.page.Version.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	hd.Set("ETag", fmt.Sprintf(`"%s-r%x"`, commit+map[bool]string{true: "-l"}[t.page.Latest], hash.Sum64()))
	http.ServeContent(w, r, "", t.page.Modified, body)
}

// termFile opens the pre-rendered file (tree.TermPages) that answers this request for a resource exactly, if the
// pipeline wrote one: the first page of a term of the latest version, as RDF, or as HTML in the hub's language
// order (no language chosen with the switch, and no other preferred).
func (h *Handler) termFile(t target, mt string, page int, chosen bool, langs []string) (*os.File, os.FileInfo) {
	if !t.page.Latest || page != 0 || chosen || !tree.TermPageName(t.resource) {
		return nil, nil
	}
	if mt == htmlType && !slices.Equal(langs, html.LanguageOrder(h.o.Theme.Language())) {
		return nil, nil
	}
	f, err := os.Open(filepath.Join(t.dir, tree.TermPages, filepath.FromSlash(t.resource)+extOf(mt)))
	if err != nil {
		return nil, nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil
	}
	return f, fi
}

// resourcePage is the page data of a resource's HTML description (describe.Page) with the links of this request.
func (h *Handler) resourcePage(ds *index.Dataset, t target, d describe.Description, self string, page int, next string, offers []string, langs []string, lang string) *html.ResourcePage {
	return describe.Page(ds, t.page, d, describe.PageOptions{HubTitle: h.o.Theme.Title(), Self: self, Ext: t.ext,
		Page: page, PageSize: h.o.PageSize, Next: next, Formats: resourceFormats(t.page, offers, self, h.o.Codecs),
		Langs: langs, Lang: lang, Docs: h.termDocs(t),
		Foreign: &describe.Foreign{Root: tree.Root(h.o.Dir, false), Base: strings.TrimSuffix(t.page.URI, t.page.Path), Open: h.o.Indexes.AcquireFile}})
}

// resourceFormats are the representations of a resource page other than HTML, named as the folder's dumps are.
func resourceFormats(pg *tree.Page, offers []string, self string, codecs *codec.Registry) []html.Dump {
	names := map[string]string{}
	for _, f := range pg.Formats {
		names[f.MediaType] = f.Name
	}
	var out []html.Dump
	for _, o := range offers {
		if o == htmlType {
			continue
		}
		name := names[o]
		if syn, ok := codecs.ByMediaType(o); ok && name == "" {
			name = syn.Name
		}
		out = append(out, html.Dump{Format: name, Ext: extOf(o), MediaType: o, URL: self + extOf(o)})
	}
	return out
}

// maxCachedTerms bounds the terms kept parsed from the versions' terms.json files (a 100 k-concept thesaurus is
// one entry of 100 k).
const maxCachedTerms = 400_000

func newTermsCache() *cache.Cache[string, *html.TermDocs] {
	return cache.New(cache.Options[string, *html.TermDocs]{MaxCost: maxCachedTerms,
		Cost: func(_ string, td *html.TermDocs) int64 { return int64(td.Size()) + 1 }})
}

// termDocs is what the version t shows defines, read from its terms.json once and kept; nil when it has none.
func (h *Handler) termDocs(t target) *html.TermDocs {
	key := t.dir + "\x00" + t.page.Version.Commit
	if td, ok := h.terms.Get(key); ok {
		return td
	}
	f, err := os.Open(filepath.Join(t.dir, tree.Terms))
	if err != nil {
		return nil // rendered before terms.json existed, or nothing defined
	}
	defer f.Close()
	td, err := html.ReadTermDocs(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		h.o.Log.Warn("site: unreadable terms.json", "dir", t.dir, "err", err)
		return nil
	}
	h.terms.Add(key, td)
	return td
}

func extOf(mt string) string {
	for e, m := range extensions {
		if m == mt {
			return e
		}
	}
	return ""
}

// acquireIndex maps (or finds mapped) the SPARQL index of t's folder and holds it until release.
func (h *Handler) acquireIndex(t target) (*index.Dataset, func(), error) {
	return h.o.Indexes.Acquire(t.dir, t.page.Version.ID, t.page.Base)
}
