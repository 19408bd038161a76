package site

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/cache"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// maxClosure bounds the statements gathered through blank nodes, so one resource cannot make a response huge.
const maxClosure = 10000

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
			h.answerResource(w, r, t, mt, offers, self, page, c.IRI, c.Next, key.Lang, c.HTML)
			return
		}
	}
	ds, release, err := h.acquireIndex(filepath.Join(t.dir, tree.Index))
	if err != nil {
		apierr.Write(w, r, apierr.New(http.StatusNotFound, "no resource at "+r.URL.Path))
		return
	}
	defer release()
	var d description
	for _, iri := range candidates {
		if d = describe(ds, iri, page, h.o.PageSize); len(d.out)+len(d.in) > 0 {
			break
		}
	}
	if len(d.out)+len(d.in) == 0 {
		apierr.Write(w, r, apierr.New(http.StatusNotFound, "nothing is said about "+candidates[0]))
		return
	}
	// An explicit language stays in the links between pages; a negotiated one is negotiated again.
	lang := ""
	if chosen {
		lang = langs[0]
	}
	next := ""
	if d.more {
		next = pageURL(self+t.ext, page+1, lang)
	}
	if mt == htmlType {
		c, err := h.o.Theme.Render(r.Context(), key, h.resourcePage(ds, t, d, self, page, next, offers, langs, lang))
		if err != nil {
			h.renderFailed(w, r, "a resource page", err)
			return
		}
		h.answerResource(w, r, t, mt, offers, self, page, c.IRI, c.Next, key.Lang, c.HTML)
		return
	}
	syn, ok := h.o.Codecs.ByMediaType(mt)
	if !ok || !syn.CanEncode() {
		apierr.Write(w, r, apierr.New(http.StatusNotAcceptable, "cannot write "+mt))
		return
	}
	var buf bytes.Buffer
	enc := syn.NewEncoder(&buf, rdf.EncodeOptions{Prefixes: tree.WellKnownPrefixes})
	for _, q := range append(d.out, d.in...) {
		if err := enc.Encode(q); err != nil {
			apierr.Write(w, r, apierr.New(http.StatusInternalServerError, fmt.Sprintf("encoding %s: %v", mt, err)))
			return
		}
	}
	if err := enc.Close(); err != nil {
		apierr.Write(w, r, apierr.New(http.StatusInternalServerError, fmt.Sprintf("encoding %s: %v", mt, err)))
		return
	}
	h.answerResource(w, r, t, mt, offers, self, page, d.iri, next, "", buf.Bytes())
}

// maxReaderLanguages bounds the reader's preferences a resource page is rendered for: past a few they hardly
// change the page, and each distinct order is a page of its own in the cache.
const maxReaderLanguages = 4

// resourceLanguages is the order a resource page picks labels in: the language the page's switch asked for
// (?lang=, chosen true) or the reader's Accept-Language preferences, then the hub's language, English, untagged.
func (h *Handler) resourceLanguages(r *http.Request) (order []string, chosen bool, err error) {
	var prefs []string
	if v, ok := r.URL.Query()["lang"]; ok {
		if len(v) != 1 || !codec.IsLanguageTag(v[0]) {
			return nil, false, errors.New("lang must be one language tag (such as en or pt-BR)")
		}
		prefs, chosen = []string{v[0]}, true
	} else {
		prefs = codec.AcceptLanguages(r.Header.Get("Accept-Language"))
		if len(prefs) > maxReaderLanguages {
			prefs = prefs[:maxReaderLanguages]
		}
	}
	return html.LanguageOrder(append(prefs, h.o.Theme.Language())...), chosen, nil
}

// pageURL is the address of one page of a resource's description, in the language lang ("": negotiated).
func pageURL(base string, page int, lang string) string {
	q := url.Values{}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if lang != "" {
		q.Set("lang", lang)
	}
	if len(q) == 0 {
		return base
	}
	return base + "?" + q.Encode()
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
func (h *Handler) answerResource(w http.ResponseWriter, r *http.Request, t target, mt string, offers []string, self string, page int, iri, next, lang string, body []byte) {
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
	hash := fnv.New64a()
	fmt.Fprintf(hash, "%s\x00%d\x00%s\x00%s", iri, page, mt, lang)
	commit := t.page.Version.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Location", self+extOf(mt))
	hd.Set("Cache-Control", cacheControl(t.page))
	hd.Set("ETag", fmt.Sprintf(`"%s-r%x"`, commit+map[bool]string{true: "-l"}[t.page.Latest], hash.Sum64()))
	http.ServeContent(w, r, "", t.page.Modified, bytes.NewReader(body))
}

// resourcePage is the page data of a resource's HTML description: crumbs from the hub down to the publication (or
// the version), labels of the IRIs shown from the data, and links to the neighbouring pages and other formats.
func (h *Handler) resourcePage(ds *index.Dataset, t target, d description, self string, page int, next string, offers []string, langs []string, lang string) *html.ResourcePage {
	pg := t.page
	p := &html.ResourcePage{IRI: d.iri, Href: self, Statements: d.out, Incoming: d.in, IncomingTotal: d.inTotal,
		Pages: (d.inTotal + h.o.PageSize - 1) / h.o.PageSize, Truncated: d.truncated, Page: page, Next: next}
	p.Crumbs, p.Publication = h.crumbs(t)
	if page > 0 {
		// The first page is the one without a number, so that its address is the resource's own.
		p.Prev = pageURL(self+t.ext, page-1, lang)
	}
	names := map[string]string{}
	for _, f := range pg.Formats {
		names[f.MediaType] = f.Name
	}
	for _, o := range offers {
		if o == htmlType {
			continue
		}
		name := names[o]
		if syn, ok := h.o.Codecs.ByMediaType(o); ok && name == "" {
			name = syn.Name
		}
		p.Formats = append(p.Formats, html.Dump{Format: name, Ext: extOf(o), MediaType: o, URL: self + extOf(o)})
	}
	p.Langs, p.PubURI, p.Docs = langs, pg.URI, h.termDocs(t)
	p.Labels, p.LabelLangs = labels(ds, langs, d.out, d.in)
	p.Label, p.LabelLang = p.Labels[d.iri], p.LabelLangs[d.iri]
	// The switch offers the languages of the resource's own texts (its labels, definitions, comments).
	tags := map[string]bool{}
	for _, q := range d.out {
		if q.S == rdf.IRI(d.iri) && q.O.IsLiteral() && q.O.Lang != "" {
			tags[strings.ToLower(q.O.Lang)] = true
		}
	}
	if len(tags) > 1 {
		p.Language = p.LabelLang
		if p.Language == "" {
			p.Language = langs[0]
		}
		for _, tag := range slices.Sorted(maps.Keys(tags)) {
			p.Languages = append(p.Languages, html.Crumb{Name: tag, Href: pageURL(self+t.ext, page, tag)})
		}
	}
	return p
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

// crumbs is the trail from the hub down to the publication (or the version) t names, and the publication's crumb.
func (h *Handler) crumbs(t target) ([]html.Crumb, html.Crumb) {
	pg := t.page
	pub := html.Crumb{Name: nameOr(pg.Name, path.Base(pg.Path)), Href: pg.Path}
	crumbs := []html.Crumb{{Name: h.o.Theme.Title(), Href: "/"}}
	repo := strings.Trim(pg.RepositoryPath, "/")
	if repo == "" {
		repo = strings.Trim(path.Dir(pg.Path), "/")
	}
	segs := strings.Split(repo, "/")
	for i, seg := range segs {
		name := seg
		switch {
		case i == len(segs)-1:
			name = nameOr(pg.RepositoryName, seg)
		case i < len(pg.GroupNames):
			name = nameOr(pg.GroupNames[i], seg)
		}
		crumbs = append(crumbs, html.Crumb{Name: name, Href: "/" + strings.Join(segs[:i+1], "/") + "/"})
	}
	crumbs = append(crumbs, pub)
	if !pg.Latest {
		crumbs = append(crumbs, html.Crumb{Name: pg.Version.Label, Href: pg.Self})
	}
	return crumbs, pub
}

// maxLabels bounds the label look-ups of one page.
const maxLabels = 2000

// labels finds a label (rdfs:label or skos:prefLabel) for the IRIs of the statements, the one whose language
// comes first in langs (html.LanguageRank; rdfs:label first within a language), and the language of each
// label that has one.
func labels(ds *index.Dataset, langs []string, lists ...[]rdf.Quad) (map[string]string, map[string]string) {
	preds := []index.ID{ds.Dict.Lookup(rdf.IRI("http://www.w3.org/2000/01/rdf-schema#label")),
		ds.Dict.Lookup(rdf.IRI("http://www.w3.org/2004/02/skos/core#prefLabel"))}
	if preds[0] == 0 && preds[1] == 0 {
		return nil, nil
	}
	graphs := []*index.Graph{ds.Default}
	for _, n := range ds.GraphNames() {
		graphs = append(graphs, ds.Graph(n))
	}
	out, tags := map[string]string{}, map[string]string{}
	tried := map[string]bool{}
	look := func(t rdf.Term) {
		if !t.IsIRI() || tried[t.Value] || len(tried) >= maxLabels {
			return
		}
		tried[t.Value] = true
		id := ds.Dict.Lookup(t)
		if id == 0 {
			return
		}
		var best rdf.Term
		rank := -1
		for pi, p := range preds {
			for _, g := range graphs {
				if p == 0 || g == nil {
					continue
				}
				m := g.Match(id, p, 0)
				for i := 0; i < m.Len() && rank != 0; i++ {
					_, _, o := m.At(i)
					l := ds.Dict.Term(o)
					if !l.IsLiteral() {
						continue
					}
					// The language decides, then rdfs:label over skos:prefLabel, then the value that sorts first
					// (so that the choice does not depend on index order).
					r := 2*html.LanguageRank(langs, l.Lang) + pi
					if rank < 0 || r < rank || r == rank && l.Value < best.Value {
						best, rank = l, r
					}
				}
			}
		}
		if rank >= 0 {
			out[t.Value] = best.Value
			if best.Lang != "" {
				tags[t.Value] = best.Lang
			}
		}
	}
	for _, qs := range lists {
		for _, q := range qs {
			look(q.S)
			look(q.P)
			look(q.O)
		}
	}
	return out, tags
}

func nameOr(name, fallback string) string {
	if strings.TrimSpace(name) == "" {
		return fallback
	}
	return name
}

func extOf(mt string) string {
	for e, m := range extensions {
		if m == mt {
			return e
		}
	}
	return ""
}

type description struct {
	iri       string
	out, in   []rdf.Quad
	more      bool // there are more incoming statements, on the next page
	inTotal   int  // the incoming statements on every page
	truncated bool // out was cut at maxClosure
}

// describe gathers what the dataset says about iri across its graphs.
func describe(ds *index.Dataset, iri string, page, pageSize int) description {
	d := description{iri: iri}
	id := ds.Dict.Lookup(rdf.IRI(iri))
	if id == 0 {
		return d
	}
	type graph struct {
		name rdf.Term
		g    *index.Graph
	}
	graphs := []graph{{g: ds.Default}}
	for _, n := range ds.GraphNames() {
		graphs = append(graphs, graph{name: ds.Dict.Term(n), g: ds.Graph(n)})
	}
	for _, g := range graphs {
		if g.g == nil {
			continue
		}
		seen := map[index.ID]bool{id: true}
		queue := []index.ID{id}
		for len(queue) > 0 && !d.truncated {
			s := queue[0]
			queue = queue[1:]
			m := g.g.Match(s, 0, 0)
			for i := 0; i < m.Len(); i++ {
				if len(d.out) == maxClosure {
					// One statement more than the bound: the page says it shows only part of them.
					d.truncated = true
					break
				}
				_, p, o := m.At(i)
				ot := ds.Dict.Term(o)
				d.out = append(d.out, rdf.Quad{S: ds.Dict.Term(s), P: ds.Dict.Term(p), O: ot, G: g.name})
				if ot.IsBlank() && !seen[o] {
					seen[o] = true
					queue = append(queue, o)
				}
			}
		}
	}
	skip := page * pageSize
	for _, g := range graphs {
		if g.g != nil {
			d.inTotal += g.g.Match(0, 0, id).Len()
		}
	}
	for _, g := range graphs {
		if g.g == nil {
			continue
		}
		m := g.g.Match(0, 0, id)
		if skip >= m.Len() {
			skip -= m.Len()
			continue
		}
		for i := skip; i < m.Len(); i++ {
			if len(d.in) == pageSize {
				d.more = true
				return d
			}
			s, p, _ := m.At(i)
			d.in = append(d.in, rdf.Quad{S: ds.Dict.Term(s), P: ds.Dict.Term(p), O: rdf.IRI(iri), G: g.name})
		}
		skip = 0
	}
	return d
}

// newIndexCache keeps the max most recently used SPARQL indexes mapped. An index is closed (unmapped) only when
// it is evicted, which a request holding it prevents.
func newIndexCache(max int) *cache.Cache[string, *index.Dataset] {
	return cache.New(cache.Options[string, *index.Dataset]{
		MaxCost: int64(max),
		OnEvict: func(_ string, ds *index.Dataset) { _ = ds.Close() },
	})
}

// acquireIndex opens (or finds mapped) the SPARQL index at path and holds it until release.
func (h *Handler) acquireIndex(path string) (*index.Dataset, func(), error) {
	return h.indexes.Acquire(path, func() (*index.Dataset, error) { return index.Open(path) })
}
