package site

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/site/tree"
)

// folder is one rendered folder as the handler knows it: its page, its small files kept in memory, and every
// response it gives prepared once. Its dumps never change while it exists; its page can be replaced (by rename,
// when the theme changes), which the watch on the folder reports. A folder rebuilt under the same name (a
// publication deleted and published again) is a new folder value with empty caches.
// Serving from memory saves the open, stat, seek and close of every request, which for small dumps cost more
// than sending them; preparing the headers saves their formatting and allocation.
type folder struct {
	page *tree.Page
	ino  uint64
	mod  time.Time
	dir  string
	// offers are the media types in slot order: one slot per dump (page.Formats), then HTML, then the VoID file.
	offers []string
	neg    *negTable
	links  [][]string // Link header per slot; nil when there is none
	cc     []string   // Cache-Control
	reps   []atomic.Pointer[rep]

	mu      sync.Mutex
	files   map[string][]byte
	dropped bool // released: keeps nothing more in memory
}

// newFolder prepares what every response from the folder at dir shares.
func (h *Handler) newFolder(dir string, p *tree.Page, ino uint64, mod time.Time) *folder {
	f := &folder{page: p, ino: ino, mod: mod, dir: dir, files: map[string][]byte{}}
	for _, fm := range p.Formats {
		f.offers = append(f.offers, fm.MediaType)
	}
	f.offers = append(f.offers, htmlType)
	f.neg = h.negTables.table(f.offers)
	n := len(f.offers) + 1
	f.links = make([][]string, n)
	for slot := range len(f.offers) {
		var links []string
		for _, fm := range p.Formats {
			if fm.MediaType != f.offers[slot] {
				links = append(links, "<"+p.Self+fm.Ext+`>; rel="alternate"; type="`+fm.MediaType+`"`)
			}
		}
		if f.offers[slot] != htmlType {
			links = append(links, "<"+p.Self+`.html>; rel="alternate"; type="text/html"`)
		}
		if len(links) > 0 {
			f.links[slot] = one(strings.Join(links, ", "))
		}
	}
	f.cc = one(cacheControl(p))
	f.reps = make([]atomic.Pointer[rep], n*4)
	return f
}

func (f *folder) htmlSlot() int { return len(f.offers) - 1 }
func (f *folder) voidSlot() int { return len(f.offers) }

// slotByType is the slot serving media type mt, or -1.
func (f *folder) slotByType(mt string) int {
	for i, o := range f.offers {
		if o == mt {
			return i
		}
	}
	return -1
}

// slotFile says which file a slot serves, as what, and under which Content-Location.
func (f *folder) slotFile(slot int) (name, ctype, location string, compressible bool) {
	p := f.page
	switch {
	case slot < len(p.Formats):
		fm := p.Formats[slot]
		return filepath.Join(f.dir, fm.File()), fm.MediaType, p.Self + fm.Ext, true
	case slot == f.htmlSlot():
		return filepath.Join(f.dir, tree.PageHTML), "text/html; charset=utf-8", p.Self + ".html", false
	default:
		return filepath.Join(f.dir, tree.Void), "text/turtle", p.Self + "/" + tree.Void, false
	}
}

// rep is one prepared response: the header fields set on every answer, and the body in memory (or the file to
// send when it is too large to keep).
type rep struct {
	hdr  []field
	clen []string // Content-Length, for answers with the whole body
	body []byte   // nil: served from name
	name string
	mod  time.Time
	memo atomic.Value // what a server without net/http derived from this response (Prepared.Memo)
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
)

func one(s string) []string { return []string{s} }

// ETag is nginx's validator for a static file, "<mtime in hex>-<size in hex>", so that a cache in front keeps its
// validators whether ldhub or the generated nginx configuration answers the same file.
func ETag(mod time.Time, size int64) string {
	return `"` + strconv.FormatInt(mod.Unix(), 16) + "-" + strconv.FormatInt(size, 16) + `"`
}

// rep returns the prepared response of a slot, for a negotiated or an explicit (extension) request, gzipped when
// gz and a .gz sibling exists.
func (f *folder) rep(slot int, negotiated, gz bool, b *budget) (*rep, error) {
	i := slot * 4
	if negotiated {
		i += 2
	}
	if gz {
		i++
	}
	if r := f.reps[i].Load(); r != nil {
		return r, nil
	}
	r, err := f.buildRep(slot, negotiated, gz, b)
	if gz && err != nil {
		// No usable .gz sibling: the plain file, remembered only when the sibling is really missing.
		plain, perr := f.rep(slot, negotiated, false, b)
		if perr != nil {
			return nil, perr
		}
		if errors.Is(err, os.ErrNotExist) {
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

func (f *folder) buildRep(slot int, negotiated, gz bool, b *budget) (*rep, error) {
	name, ctype, location, compressible := f.slotFile(slot)
	if gz {
		name += ".gz"
	}
	data, fi, err := f.load(name, b)
	if err != nil {
		return nil, err
	}
	r := &rep{body: data, name: name, mod: fi.ModTime(), clen: one(strconv.FormatInt(fi.Size(), 10))}
	r.hdr = []field{
		{hContentType, one(ctype)},
		{hContentLocation, one(location)},
		{hCacheControl, f.cc},
		{hETag, one(ETag(fi.ModTime(), fi.Size()))},
		{hAcceptRanges, valBytes},
	}
	if !isZeroTime(r.mod) {
		r.hdr = append(r.hdr, field{hLastModified, one(r.mod.UTC().Format(http.TimeFormat))})
	}
	if f.links[slot] != nil {
		r.hdr = append(r.hdr, field{hLink, f.links[slot]})
	}
	switch {
	case negotiated && compressible:
		r.hdr = append(r.hdr, field{hVary, varyBoth})
	case negotiated:
		r.hdr = append(r.hdr, field{hVary, varyAccept})
	case compressible:
		r.hdr = append(r.hdr, field{hVary, varyEncoding})
	}
	if gz {
		r.hdr = append(r.hdr, field{hContentEncoding, valGzip})
	}
	return r, nil
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
func (f *folder) load(name string, b *budget) ([]byte, os.FileInfo, error) {
	file, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("site: stat %s: %w", name, err)
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
		return nil, nil, fmt.Errorf("site: read %s: %w", name, err)
	}
	if int64(len(data)) != fi.Size() {
		return nil, nil, fmt.Errorf("site: %s changed while read", name)
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
func (f *folder) release(b *budget) {
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
// Clients send few distinct Accept headers; the table is bounded all the same, since anyone can send any.
type negTable struct {
	offers []string
	// accepted are the offers followed by the other media types of their syntaxes (application/x-turtle for
	// text/turtle), slots the slot each serves: a client asking for an alias gets the representation.
	accepted []string
	slots    []int
	mu       sync.RWMutex
	m        map[string]int
}

const (
	maxNegEntries = 512
	maxAcceptLen  = 1024
)

// pick returns the slot of the offer Accept prefers, or -1 when none is acceptable.
func (n *negTable) pick(accept string) int {
	n.mu.RLock()
	s, ok := n.m[accept]
	n.mu.RUnlock()
	if ok {
		return s
	}
	s = -1
	if mt, ok := codec.Negotiate(accept, n.accepted); ok {
		for i, o := range n.accepted {
			if o == mt {
				s = n.slots[i]
				break
			}
		}
	}
	if len(accept) <= maxAcceptLen {
		n.mu.Lock()
		if len(n.m) >= maxNegEntries {
			clear(n.m)
		}
		n.m[accept] = s
		n.mu.Unlock()
	}
	return s
}

// negTables shares one negTable among the folders offering the same list.
type negTables struct {
	mu sync.Mutex
	m  map[string]*negTable
}

func (t *negTables) table(offers []string) *negTable {
	key := strings.Join(offers, ", ")
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]*negTable{}
	}
	if n, ok := t.m[key]; ok {
		return n
	}
	n := &negTable{offers: offers, accepted: offers, m: map[string]int{}}
	for i := range offers {
		n.slots = append(n.slots, i)
	}
	// Aliases after every offer: on equal preference the offer's own name wins.
	for i, o := range offers {
		if syn, ok := codec.Default().ByMediaType(o); ok {
			for _, mt := range syn.MediaTypes {
				if mt != o {
					n.accepted = append(n.accepted[:len(n.accepted):len(n.accepted)], mt)
					n.slots = append(n.slots, i)
				}
			}
		}
	}
	t.m[key] = n
	return n
}

// gzipCache remembers codec.AcceptsEncoding(header, "gzip") per Accept-Encoding header, bounded like negTable.
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
	if len(ae) <= maxAcceptLen {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxNegEntries {
			c.m = map[string]bool{}
		}
		c.m[ae] = v
		c.mu.Unlock()
	}
	return v
}
