package filecache

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/site/tree"
)

// Folder is one rendered folder as the cache knows it: its page, its small files kept in memory, and every
// response it gives prepared once. Its dumps never change while it exists; its page can be replaced (by rename,
// when the theme changes), which the watch on the folder reports. A folder rebuilt under the same name (a
// publication deleted and published again) is a new folder value with empty caches.
// Serving from memory saves the open, stat, seek and close of every request, which for small dumps cost more
// than sending them; preparing the headers saves their formatting and allocation.
type Folder struct {
	// Page is the folder's page.json, Dir the folder; neither may be modified.
	Page *tree.Page
	Dir  string
	// Offers are the media types in slot order: one slot per dump (Page.Formats), then HTML, then the VoID file.
	// It must not be modified.
	Offers []string
	// Langs are the language keys of the page's variants (tree.PageVariant), sorted; each has a slot after the
	// VoID file's (PageFor). Empty for a page in one language. It must not be modified.
	Langs  []string
	langs  *langTable
	ino    uint64
	mod    time.Time
	neg    *negTable
	budget *budget
	links  [][]string // Link header per slot; nil when there is none
	cc     []string   // Cache-Control
	reps   []atomic.Pointer[Rep]

	mu      sync.Mutex
	files   map[string][]byte
	dropped bool // released: keeps nothing more in memory
	// watched: inotify reports a change of the folder (FolderIn), so a .gz sibling written later (those of a large
	// version come after it is live) replaces the folder. Without it a missing sibling is looked for again.
	watched bool
}

// HTMLType is the media type of a folder's HTML page.
const HTMLType = "text/html"

// newFolder prepares what every response from the folder at dir shares.
func (c *Cache) newFolder(dir string, p *tree.Page, ino uint64, mod time.Time) *Folder {
	f := &Folder{Page: p, ino: ino, mod: mod, Dir: dir, budget: c.budget, files: map[string][]byte{}}
	for _, fm := range p.Formats {
		f.Offers = append(f.Offers, fm.MediaType)
	}
	f.Offers = append(f.Offers, HTMLType)
	f.neg = c.negTables.get(strings.Join(f.Offers, ", "), func() *negTable { return newNegTable(f.Offers) })
	if f.Langs, _ = tree.Variants(dir); len(f.Langs) > 0 {
		f.langs = c.langTables.get(strings.Join(f.Langs, ","), func() *langTable { return &langTable{keys: f.Langs} })
	}
	n := len(f.Offers) + 1 + len(f.Langs)
	f.links = make([][]string, n)
	for slot := range len(f.Offers) {
		var links []string
		for _, fm := range p.Formats {
			if fm.MediaType != f.Offers[slot] {
				links = append(links, "<"+p.Self+fm.Ext+`>; rel="alternate"; type="`+fm.MediaType+`"`)
			}
		}
		if f.Offers[slot] != HTMLType {
			links = append(links, "<"+p.Self+`.html>; rel="alternate"; type="text/html"`)
		}
		if len(links) > 0 {
			f.links[slot] = one(strings.Join(links, ", "))
		}
	}
	for i := range f.Langs {
		f.links[f.VoidSlot()+1+i] = f.links[f.htmlSlot()]
	}
	f.cc = one(p.CacheControl())
	f.reps = make([]atomic.Pointer[Rep], n*4)
	return f
}

// PageFor returns the slot of the page a reader gets in the language asked for: lang (the page's ?lang=, a
// language tag) when chosen, else the first range of the Accept-Language header acceptLanguage, in the order of
// preference, whose language (codec.LanguageKey) the page has a variant in; the page in the hub's language when
// there is none. The same rule is what the generated web-server configurations apply (site/webconf).
func (f *Folder) PageFor(lang string, chosen bool, acceptLanguage string) int {
	if len(f.Langs) == 0 {
		return f.htmlSlot()
	}
	if chosen {
		return f.variantSlot(slices.Index(f.Langs, codec.LanguageKey(lang)))
	}
	return f.variantSlot(f.langs.pick(acceptLanguage))
}

func (f *Folder) variantSlot(i int) int {
	if i < 0 {
		return f.htmlSlot()
	}
	return f.VoidSlot() + 1 + i
}

// IsPage reports whether slot serves the folder's HTML page (in any language).
func (f *Folder) IsPage(slot int) bool { return slot == f.htmlSlot() || slot > f.VoidSlot() }

func (f *Folder) htmlSlot() int { return len(f.Offers) - 1 }

// VoidSlot is the slot of the folder's VoID file.
func (f *Folder) VoidSlot() int { return len(f.Offers) }

// SlotByType is the slot serving media type mt, or -1.
func (f *Folder) SlotByType(mt string) int {
	for i, o := range f.Offers {
		if o == mt {
			return i
		}
	}
	return -1
}

// Pick returns the slot of the offer Accept prefers, or -1 when none is acceptable.
func (f *Folder) Pick(accept string) int { return f.neg.pick(accept) }

// slotFile says which file a slot serves, as what, and under which Content-Location.
func (f *Folder) slotFile(slot int) (name, ctype, location string, compressible bool) {
	p := f.Page
	switch {
	case slot < len(p.Formats):
		fm := p.Formats[slot]
		return filepath.Join(f.Dir, fm.File()), fm.MediaType, p.Self + fm.Ext, true
	case slot == f.htmlSlot():
		return filepath.Join(f.Dir, tree.PageHTML), "text/html; charset=utf-8", p.Self + ".html", false
	case slot > f.VoidSlot():
		k := f.Langs[slot-f.VoidSlot()-1]
		return filepath.Join(f.Dir, tree.PageVariant(k)), "text/html; charset=utf-8", p.Self + ".html?lang=" + k, false
	default:
		return filepath.Join(f.Dir, tree.Void), "text/turtle", p.Self + "/" + tree.Void, false
	}
}

// Rep is one prepared response: the header fields set on every answer, and the body in memory (or the file to
// send when it is too large to keep).
type Rep struct {
	hdr  []field
	clen []string // Content-Length, for answers with the whole body
	// Body is the representation (nil: too large to keep, served from Name); it must not be modified.
	Body []byte
	Name string
	// Mod is the file's modification time, the one If-Modified-Since is compared with.
	Mod  time.Time
	memo atomic.Value // what a server without net/http derived from this response (Memo)
}

// SetHeader sets the prepared header fields (all but Content-Length) in hd.
func (r *Rep) SetHeader(hd http.Header) {
	for _, f := range r.hdr {
		hd[f.key] = f.val
	}
}

// SetContentLength sets Content-Length for an answer with the whole body.
func (r *Rep) SetContentLength(hd http.Header) { hd[hContentLength] = r.clen }

// Memo returns what build derived from this response, calling build the first time: the derived value lives
// exactly as long as the prepared response does.
func (r *Rep) Memo(build func() any) any {
	if v := r.memo.Load(); v != nil {
		return v
	}
	v := build()
	r.memo.CompareAndSwap(nil, v)
	return r.memo.Load()
}

type field struct {
	key string // canonical, so it is assigned to the header map without canonicalising it per request
	val []string
}

// Canonical header names. ETag's canonical form is "Etag", which is what Header.Get looks up.
var (
	hContentType     = textproto.CanonicalMIMEHeaderKey("Content-Type")
	hContentLocation = textproto.CanonicalMIMEHeaderKey("Content-Location")
	hContentLength   = textproto.CanonicalMIMEHeaderKey("Content-Length")
	hContentEncoding = textproto.CanonicalMIMEHeaderKey("Content-Encoding")
	hCacheControl    = textproto.CanonicalMIMEHeaderKey("Cache-Control")
	hETag            = textproto.CanonicalMIMEHeaderKey("ETag")
	hLastModified    = textproto.CanonicalMIMEHeaderKey("Last-Modified")
	hAcceptRanges    = textproto.CanonicalMIMEHeaderKey("Accept-Ranges")
	hLink            = textproto.CanonicalMIMEHeaderKey("Link")
	hVary            = textproto.CanonicalMIMEHeaderKey("Vary")
)

// Shared header values. Every slice has its length as capacity, so that a later Header.Add appends to a copy
// and never writes into a value other responses share.
var (
	valBytes     = one("bytes")
	valGzip      = one("gzip")
	varyAccept   = []string{"Accept"}
	varyEncoding = []string{"Accept-Encoding"}
	varyBoth     = []string{"Accept", "Accept-Encoding"}
	// A page's language follows Accept-Language (PageFor) unless the request chose it.
	varyLanguage       = []string{"Accept-Language"}
	varyAcceptLanguage = []string{"Accept", "Accept-Language"}
)

func one(s string) []string { return []string{s} }

// ETag is nginx's validator for a static file, "<mtime in hex>-<size in hex>", so that a cache in front keeps its
// validators whether ldhub or the generated nginx configuration answers the same file.
func ETag(mod time.Time, size int64) string {
	return `"` + strconv.FormatInt(mod.Unix(), 16) + "-" + strconv.FormatInt(size, 16) + `"`
}

// Rep returns the prepared response of a slot, for a negotiated or an explicit (extension) request, gzipped when
// gz and a .gz sibling exists. The page of a slot IsPage says Vary: Accept-Language: PageRep answers a request
// that chose its language.
func (f *Folder) Rep(slot int, negotiated, gz bool) (*Rep, error) {
	if f.IsPage(slot) {
		return f.rep(slot, negotiated, false, false)
	}
	return f.rep(slot, negotiated, gz, false)
}

// PageRep returns the prepared response of a page slot (IsPage) for a request that named its language (?lang=),
// which does not vary with Accept-Language.
func (f *Folder) PageRep(slot int, negotiated bool) (*Rep, error) {
	return f.rep(slot, negotiated, false, true)
}

func (f *Folder) rep(slot int, negotiated, gz, chosen bool) (*Rep, error) {
	i := slot * 4
	if negotiated {
		i += 2
	}
	if gz || chosen { // pages are never gzipped: the bit tells the chosen language's answers apart
		i++
	}
	if r := f.reps[i].Load(); r != nil {
		return r, nil
	}
	r, err := f.buildRep(slot, negotiated, gz, chosen)
	if gz && err != nil {
		// No usable .gz sibling: the plain file, remembered only when the sibling is really missing.
		plain, perr := f.rep(slot, negotiated, false, false)
		if perr != nil {
			return nil, perr
		}
		if errors.Is(err, os.ErrNotExist) && f.watched {
			f.reps[i].Store(plain)
		}
		return plain, nil
	}
	if err != nil {
		return nil, err
	}
	f.reps[i].Store(r) // a concurrent builder stores an equal value
	return r, nil
}

// SectionRep returns the response of one page of a section's full listing (tree.SectionPageIn section, n, key),
// whose URL's query is ?terms=<section>&page=<n> (with lang=<key>; the hub's page when that language has none):
// HTML with the page's headers, varying with Accept alone when negotiated, as a page whose language ?lang= chose. It is not kept: a folder may have hundreds of such pages.
func (f *Folder) SectionRep(section string, n int, key string, negotiated bool) (*Rep, error) {
	name := filepath.Join(f.Dir, tree.SectionPageIn(section, n, key))
	data, fi, err := f.load(name)
	if key != "" && errors.Is(err, os.ErrNotExist) {
		key, name = "", filepath.Join(f.Dir, tree.SectionPage(section, n))
		data, fi, err = f.load(name)
	}
	if err != nil {
		return nil, err
	}
	location := f.Page.Self + ".html?terms=" + url.QueryEscape(section) + "&page=" + strconv.Itoa(n)
	if key != "" {
		location = f.Page.Self + ".html?lang=" + url.QueryEscape(key) + "&terms=" + url.QueryEscape(section) + "&page=" + strconv.Itoa(n)
	}
	r := f.newRep(data, name, fi, "text/html; charset=utf-8", location, f.htmlSlot())
	if negotiated {
		r.hdr = append(r.hdr, field{hVary, varyAccept})
	}
	return r, nil
}

// LabelsRep returns the response of the labels index of the folder's page in the language whose key is key (""
// for the hub's; a key without an index of its own gets the hub's), whose URL's query is ?terms=index (&lang=):
// JSON, chosen by the query alone (it has one representation whatever Accept says), in its .gz sibling when gz
// and the sibling exists. It is not kept: a large publication's index is megabytes, loaded once per reader.
func (f *Folder) LabelsRep(key string, gz bool) (*Rep, error) {
	name := filepath.Join(f.Dir, tree.LabelsIndex(key))
	if _, err := os.Stat(name); key != "" && errors.Is(err, os.ErrNotExist) {
		key, name = "", filepath.Join(f.Dir, tree.LabelsIndex(""))
	}
	location := f.Page.Self + "?terms=index"
	if key != "" {
		location += "&lang=" + url.QueryEscape(key)
	}
	plain := name
	if gz {
		name += ".gz"
	}
	data, fi, err := f.load(name)
	if gz && errors.Is(err, os.ErrNotExist) {
		gz, name = false, plain
		data, fi, err = f.load(name)
	}
	if err != nil {
		return nil, err
	}
	r := f.newRep(data, name, fi, "application/json", location, -1)
	r.hdr = append(r.hdr, field{hVary, varyEncoding})
	if gz {
		r.hdr = append(r.hdr, field{hContentEncoding, valGzip})
	}
	return r, nil
}

// newRep is the response of a file read by load, with the headers every representation carries (and the Link
// of slot's representation; none for a slot < 0).
func (f *Folder) newRep(data []byte, name string, fi os.FileInfo, ctype, location string, slot int) *Rep {
	r := &Rep{Body: data, Name: name, Mod: fi.ModTime(), clen: one(strconv.FormatInt(fi.Size(), 10))}
	r.hdr = []field{
		{hContentType, one(ctype)},
		{hContentLocation, one(location)},
		{hCacheControl, f.cc},
		{hETag, one(ETag(fi.ModTime(), fi.Size()))},
		{hAcceptRanges, valBytes},
	}
	if !isZeroTime(r.Mod) {
		r.hdr = append(r.hdr, field{hLastModified, one(r.Mod.UTC().Format(http.TimeFormat))})
	}
	if slot >= 0 && f.links[slot] != nil {
		r.hdr = append(r.hdr, field{hLink, f.links[slot]})
	}
	return r
}

// FileRep is the response of a dump's slot (slot < len(Page.Formats)), uncompressed, served from the file name
// whose state is fi instead of the slot's own file: the headers are those the slot's file gets once it holds the
// same bytes with the same time (the ETag is made of both). The direct-URL handler answers a dump written after
// its version went live (tree.LateDumps) from such a file until the dump is there. It is not kept.
func (f *Folder) FileRep(slot int, negotiated bool, name string, fi os.FileInfo) *Rep {
	_, ctype, location, _ := f.slotFile(slot)
	return f.dumpRep(nil, name, fi, ctype, location, slot, negotiated, false, false)
}

func (f *Folder) buildRep(slot int, negotiated, gz, chosen bool) (*Rep, error) {
	name, ctype, location, _ := f.slotFile(slot)
	if gz {
		name += ".gz"
	}
	data, fi, err := f.load(name)
	if err != nil {
		return nil, err
	}
	return f.dumpRep(data, name, fi, ctype, location, slot, negotiated, gz, chosen), nil
}

func (f *Folder) dumpRep(data []byte, name string, fi os.FileInfo, ctype, location string, slot int, negotiated, gz, chosen bool) *Rep {
	compressible := slot < len(f.Page.Formats)
	r := f.newRep(data, name, fi, ctype, location, slot)
	byLang := f.IsPage(slot) && !chosen
	switch {
	case negotiated && compressible:
		r.hdr = append(r.hdr, field{hVary, varyBoth})
	case negotiated && byLang:
		r.hdr = append(r.hdr, field{hVary, varyAcceptLanguage})
	case negotiated:
		r.hdr = append(r.hdr, field{hVary, varyAccept})
	case compressible:
		r.hdr = append(r.hdr, field{hVary, varyEncoding})
	case byLang:
		r.hdr = append(r.hdr, field{hVary, varyLanguage})
	}
	if gz {
		r.hdr = append(r.hdr, field{hContentEncoding, valGzip})
	}
	return r
}

// isZeroTime is http.ServeContent's test for a modification time not worth announcing.
func isZeroTime(t time.Time) bool { return t.IsZero() || t.Equal(time.Unix(0, 0)) }

// budget bounds the bytes all folders keep in memory.
type budget struct {
	used, max, per int64
}

func (b *budget) take(n int64) bool {
	if n > b.per {
		return false
	}
	if atomic.AddInt64(&b.used, n) > b.max {
		atomic.AddInt64(&b.used, -n)
		return false
	}
	return true
}

// load returns a file's content when it is small enough to keep (nil otherwise), and its metadata.
func (f *Folder) load(name string) ([]byte, os.FileInfo, error) {
	b := f.budget
	file, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("filecache: stat %s: %w", name, err)
	}
	if fi.Size() > b.per {
		return nil, fi, nil
	}
	f.mu.Lock()
	data, ok := f.files[name]
	f.mu.Unlock()
	if ok {
		return data, fi, nil
	}
	data, err = io.ReadAll(file)
	if err != nil {
		return nil, nil, fmt.Errorf("filecache: read %s: %w", name, err)
	}
	if int64(len(data)) != fi.Size() {
		return nil, nil, fmt.Errorf("filecache: %s changed while read", name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if kept, dup := f.files[name]; dup {
		return kept, fi, nil
	}
	if f.dropped || !b.take(int64(len(data))) {
		return nil, fi, nil
	}
	f.files[name] = data
	return data, fi, nil
}

// release gives a dropped folder's cached bytes back to the budget. Requests still holding its responses keep
// their slices; only the accounting moves.
func (f *Folder) release() {
	b := f.budget
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for _, d := range f.files {
		n += int64(len(d))
	}
	f.files = map[string][]byte{}
	f.dropped = true
	// Prepared responses share those bytes: a route left in the route cache must not keep them alive once the
	// budget counts them as given back (a dropped folder rebuilds a response on use, served from its file).
	for i := range f.reps {
		f.reps[i].Store(nil)
	}
	atomic.AddInt64(&b.used, -n)
}

// negTable caches content negotiation for one list of offers: the Accept header, as sent, to the slot it picks.
type negTable struct {
	offers []string
	// accepted are the offers followed by the other media types of their syntaxes (application/x-turtle for
	// text/turtle), slots the slot each serves: a client asking for an alias gets the representation.
	accepted []string
	slots    []int
	memo     headerMemo
}

const (
	maxNegEntries = 512
	maxAcceptLen  = 1024
)

// headerMemo remembers what a request header's value chose. Clients send few distinct values; the memo is bounded
// all the same, since anyone can send any, and a value longer than maxAcceptLen is not kept.
type headerMemo struct {
	mu sync.RWMutex
	m  map[string]int
}

// get returns what choose gives for v, from the memo when it was asked before.
func (c *headerMemo) get(v string, choose func(string) int) int {
	c.mu.RLock()
	s, ok := c.m[v]
	c.mu.RUnlock()
	if ok {
		return s
	}
	s = choose(v)
	if len(v) <= maxAcceptLen {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxNegEntries {
			c.m = map[string]int{}
		}
		c.m[v] = s
		c.mu.Unlock()
	}
	return s
}

// pick returns the slot of the offer Accept prefers, or -1 when none is acceptable.
func (n *negTable) pick(accept string) int { return n.memo.get(accept, n.negotiate) }

func (n *negTable) negotiate(accept string) int {
	if mt, ok := codec.Negotiate(accept, n.accepted); ok {
		for i, o := range n.accepted {
			if o == mt {
				return n.slots[i]
			}
		}
	}
	return -1
}

// shared keeps one value per key (a list of offers or of languages) for all the folders that have it.
type shared[T any] struct {
	mu sync.Mutex
	m  map[string]*T
}

func (t *shared[T]) get(key string, build func() *T) *T {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.m[key]; ok {
		return v
	}
	if t.m == nil {
		t.m = map[string]*T{}
	}
	v := build()
	t.m[key] = v
	return v
}

// newNegTable prepares the negotiation among offers.
func newNegTable(offers []string) *negTable {
	n := &negTable{offers: offers, accepted: offers}
	for i := range offers {
		n.slots = append(n.slots, i)
	}
	// Aliases after every offer: on equal preference the offer's own name wins.
	for i, o := range offers {
		if syn, ok := codec.Default().ByMediaType(o); ok {
			for _, mt := range syn.Asked() {
				if mt != o {
					n.accepted = append(n.accepted[:len(n.accepted):len(n.accepted)], mt)
					n.slots = append(n.slots, i)
				}
			}
		}
	}
	return n
}

// langTable caches the page variant (an index into the keys, -1 for the page in the hub's language) each
// Accept-Language header picks among one set of keys.
type langTable struct {
	keys []string
	memo headerMemo
}

func (n *langTable) pick(al string) int { return n.memo.get(al, n.choose) }

func (n *langTable) choose(al string) int {
	for _, l := range codec.AcceptLanguages(al) {
		if i := slices.Index(n.keys, codec.LanguageKey(l)); i >= 0 {
			return i
		}
	}
	return -1
}
