// Package objstore publishes the public part of the rendered tree to an S3-compatible bucket, so that the static
// site can be served from object storage behind a CDN, and generates the edge code that negotiates content there.
//
// A bucket cannot negotiate: it answers one object per key. So the tree is laid out in the bucket by URL, one object
// per representation, each carrying the headers a plain GET must answer with:
//
//	<pub>.ttl, .nt, .rdf, .jsonld (.trig, .nq)   the latest version's dumps       Cache-Control: max-age=60
//	<pub>.ttl.gz …                               the same, Content-Encoding: gzip
//	<pub>.html, <pub>/void.ttl                   its page and VoID description
//	<pub>/versions/<label>.ttl …                 each version's, the same set      Cache-Control: immutable
//	<pub>[/versions/<label>]/.ld/offers.json     the representations of that URL, for the edge's negotiation
//	<pub>/<term>.html, .ttl …                    the latest version's term pages (tree.TermPages), each term
//	<pub>/<term>/.ld/offers.json                 with its offers; only the files written so far
//	<pub>[/versions/<label>]/.ld/index.<lang>.html, index.terms-<section>.<n>[.<lang>].html,
//	  index.labels[.<lang>].json                 its page in other languages, its listing pages, labels indexes
//	<pub>/versions/<retracted>/.ld/offers.json   "gone": the edge answers 410 for that version, as the hub does
//	<group or repository>/index.html, index.html the hub's pages
//	_ldhub/ldhub.js                              the theme's script the pages link
//
// Nothing of private/ (hidden repositories, private groups) and nothing only ldhub reads (SPARQL indexes, page.json,
// terms.json, the term pages' fingerprints) is published. A term whose files are not (yet) written, or that has
// none (more incoming links than a page holds, a name that cannot be a file), is left to the hub: the edge hands
// what the bucket does not hold to LDHUB_URL. The plan is a pure function of the rendered tree; Sync compares it with the bucket.
package objstore

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
)

// Cache-Control of the objects: a version never changes; the latest and the hub's pages change on any publish.
const (
	CacheImmutable = "public, max-age=31536000, immutable"
	CacheLatest    = "public, max-age=60, must-revalidate"
	CacheScript    = "public, max-age=300"
)

// OffersFile is the object, below a negotiable URL's key, that lists the representations the edge negotiates
// among. Its segment starts with a dot, which no publication or resource name does, and which the edge refuses in
// a request.
const OffersFile = ".ld/offers.json"

// PagesFolder is the folder, below a publication's or version's key, of its page's other files (language variants,
// listing pages, labels indexes: PageVariant, SectionPageIn and LabelsIndex names), which the edge chooses among by
// the request's query and Accept-Language as the handler does.
const PagesFolder = ".ld/"

// Offers is the content of an OffersFile: the dumps of one rendered folder in the handler's order, then its page.
type Offers struct {
	Self    string  `json:"self"` // URL path the folder answers
	Formats []Offer `json:"formats"`
	HTML    bool    `json:"html"` // the page exists (.html)
	// Doc marks a publication's or version's folder, whose page answers ?lang= and ?terms= (its other pages are
	// objects below PagesDir); Langs are the language keys of its page's variants (tree.Variants).
	Doc   bool     `json:"doc,omitempty"`
	Langs []string `json:"langs,omitempty"`
	// Gone marks a version retracted through the API: its URLs answer 410 Gone, not 404, at the edge as at the hub,
	// so that caches and crawlers drop them. Latest is then the publication's URL path.
	Gone   bool   `json:"gone,omitempty"`
	Latest string `json:"latest,omitempty"`
}

// Offer is one dump.
type Offer struct {
	Ext       string `json:"ext"`
	MediaType string `json:"mediaType"`
}

// Object is one object the bucket should hold.
type Object struct {
	Key             string // below the target's prefix
	File            string // the local file with its bytes, or "" when Body holds them
	Body            []byte
	Size            int64
	ContentType     string
	ContentEncoding string
	CacheControl    string
	term            bool // a term page's, which gives way to any other object of the same key
}

// headers is the fingerprint of the headers an object is stored with.
func (o Object) headers() string {
	return o.ContentType + "|" + o.ContentEncoding + "|" + o.CacheControl
}

func (o Object) open() (io.ReadCloser, error) {
	if o.File == "" {
		return io.NopCloser(strings.NewReader(string(o.Body))), nil
	}
	return os.Open(o.File)
}

// errVanished marks a plan made while the pipeline replaced a folder under it: the plan is incomplete, so nothing
// may be deleted on its strength; planning again finds the new folder.
var errVanished = errors.New("objstore: a rendered folder was replaced while it was read")

// errGzipPending marks a plan made before the pipeline wrote the .gz siblings of a large version, or its RDF/XML
// and JSON-LD dumps (tree.LateDumps), which it does after the version went live: the bucket keeps the version it
// has until the new one is complete, and the pipeline tells the publisher again once they are there.
var errGzipPending = errors.New("objstore: a version's late dumps or .gz siblings are still being written")

// Plan lists the objects for the rendered tree at out (the pipeline's output folder). script is the theme's script
// (html.Script), published at html.ScriptPath; nil publishes none.
func Plan(out string, script []byte) ([]Object, error) {
	var objs []Object
	pub := tree.Root(out, false)
	err := filepath.WalkDir(pub, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != pub {
				return errVanished
			}
			return err
		}
		if !d.IsDir() || d.Name() != tree.MetaDir {
			return nil
		}
		more, err := planPublication(p)
		if err != nil {
			return err
		}
		objs = append(objs, more...)
		return filepath.SkipDir
	})
	if err != nil {
		return nil, err
	}
	pages, err := planPages(filepath.Join(out, "pages"))
	if err != nil {
		return nil, err
	}
	objs = append(objs, pages...)
	if script != nil {
		objs = append(objs, Object{Key: strings.TrimPrefix(html.ScriptPath, "/"), Body: script, Size: int64(len(script)),
			ContentType: "text/javascript; charset=utf-8", CacheControl: CacheScript})
	}
	// A term of one publication may have the name of a publication nested below it: the handler answers the
	// publication there, so the bucket holds the publication's objects.
	other := map[string]bool{}
	for _, o := range objs {
		if !o.term {
			other[o.Key] = true
		}
	}
	objs = slices.DeleteFunc(objs, func(o Object) bool { return o.term && other[o.Key] })
	sort.Slice(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key })
	for i := 1; i < len(objs); i++ {
		if objs[i].Key == objs[i-1].Key {
			return nil, fmt.Errorf("objstore: two files for the key %q", objs[i].Key)
		}
	}
	return objs, nil
}

// planPublication lists the objects of one publication's MetaDir: its latest folder and every version folder.
func planPublication(meta string) ([]Object, error) {
	cur, err := os.Readlink(filepath.Join(meta, tree.Current))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil // not rendered yet (or removed meanwhile): nothing to publish
		}
		return nil, err
	}
	if !filepath.IsAbs(cur) {
		cur = filepath.Join(meta, cur)
	}
	objs, page, err := planFolder(cur, CacheLatest)
	if err != nil || page == nil {
		return objs, err
	}
	// Only the latest folder lists the retracted versions. A label is never reused, so the marker is immutable.
	for _, v := range page.Retracted {
		self, err := url.PathUnescape(v.URL)
		if err != nil || !strings.HasPrefix(self, "/") {
			return nil, fmt.Errorf("objstore: %s: bad URL path %q of a retracted version", cur, v.URL)
		}
		ob, err := json.Marshal(Offers{Self: v.URL, Formats: []Offer{}, Gone: true, Latest: page.Path})
		if err != nil {
			return nil, err
		}
		objs = append(objs, Object{Key: strings.TrimPrefix(self, "/") + "/" + OffersFile, Body: ob, Size: int64(len(ob)),
			ContentType: "application/json", CacheControl: CacheImmutable})
	}
	vroot := filepath.Join(meta, tree.Versions)
	ents, err := os.ReadDir(vroot)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue // the pipeline's staging folders start with a dot
		}
		more, _, err := planFolder(filepath.Join(vroot, e.Name()), CacheImmutable)
		if err != nil {
			return nil, err
		}
		objs = append(objs, more...)
	}
	return objs, nil
}

// planFolder lists the objects of one rendered folder (a version's or the latest's), keyed by the URL it answers,
// and returns its page (nil for a private folder, which publishes nothing).
func planFolder(dir, cache string) ([]Object, *tree.Page, error) {
	b, err := os.ReadFile(filepath.Join(dir, tree.PageJSON))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, errVanished
		}
		return nil, nil, err
	}
	var page tree.Page
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, nil, fmt.Errorf("objstore: %s: %w", filepath.Join(dir, tree.PageJSON), err)
	}
	if page.Private {
		return nil, nil, nil
	}
	self, err := url.PathUnescape(page.Self)
	if err != nil || !strings.HasPrefix(self, "/") {
		return nil, nil, fmt.Errorf("objstore: %s: bad URL path %q", dir, page.Self)
	}
	key := strings.TrimPrefix(self, "/")
	var objs []Object
	add := func(name, k, ctype, enc string) error {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return errVanished
			}
			return err
		}
		objs = append(objs, Object{Key: k, File: filepath.Join(dir, name), Size: fi.Size(), ContentType: ctype, ContentEncoding: enc, CacheControl: cache})
		return nil
	}
	offers := Offers{Self: page.Self}
	for _, f := range page.Formats {
		if err := add(f.File(), key+f.Ext, f.MediaType, ""); err != nil {
			if _, serr := os.Stat(filepath.Join(dir, tree.LateDumps)); errors.Is(err, errVanished) && serr == nil {
				return nil, nil, errGzipPending // a dump written after the version went live (tree.LateDumps)
			}
			return nil, nil, err
		}
		if err := add(f.File()+".gz", key+f.Ext+".gz", f.MediaType, "gzip"); err != nil {
			if errors.Is(err, errVanished) {
				if _, serr := os.Stat(filepath.Join(dir, f.File())); serr == nil {
					return nil, nil, errGzipPending
				}
			}
			return nil, nil, err
		}
		offers.Formats = append(offers.Formats, Offer{Ext: f.Ext, MediaType: f.MediaType})
	}
	if _, err := os.Stat(filepath.Join(dir, tree.PageHTML)); err == nil {
		offers.HTML = true
		if err := add(tree.PageHTML, key+".html", "text/html; charset=utf-8", ""); err != nil {
			return nil, nil, err
		}
	}
	// The page's other files, under the names they have in the folder: its language variants, the pages listing
	// every term (in each language) and the labels indexes (the .gz siblings are not needed: the CDN compresses).
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, errVanished
	}
	offers.Doc = true
	for _, e := range ents {
		n := e.Name()
		switch {
		case tree.VariantKey(n) != "":
			offers.Langs = append(offers.Langs, tree.VariantKey(n))
		case tree.IsSectionPage(n):
		case tree.IsLabelsIndex(n) && strings.HasSuffix(n, ".json"):
			if err := add(n, key+"/"+PagesFolder+n, "application/json", ""); err != nil {
				return nil, nil, err
			}
			continue
		default:
			continue
		}
		if err := add(n, key+"/"+PagesFolder+n, "text/html; charset=utf-8", ""); err != nil {
			return nil, nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, tree.Void)); err == nil {
		if err := add(tree.Void, key+"/"+tree.Void, "text/turtle", ""); err != nil {
			return nil, nil, err
		}
	}
	ob, err := json.Marshal(offers)
	if err != nil {
		return nil, nil, err
	}
	objs = append(objs, Object{Key: key + "/" + OffersFile, Body: ob, Size: int64(len(ob)),
		ContentType: "application/json", CacheControl: cache})
	if page.Latest {
		terms, err := planTerms(filepath.Join(dir, tree.TermPages), key, &page, cache)
		if err != nil {
			return nil, nil, err
		}
		objs = append(objs, terms...)
	}
	return objs, &page, nil
}

// planTerms lists the term pages of a latest folder (tree.TermPages; key is the publication's key): each file as
// <key>/<name><ext>, and the offers of each term. The pipeline writes them after the folder went live, each file
// whole (renamed into place), so a term may have some of its files yet: its offers list those.
func planTerms(dir, key string, page *tree.Page, cache string) ([]Object, error) {
	type term struct {
		files  map[string]string // ext -> file
		offers Offers
	}
	terms := map[string]*term{}
	var names []string
	types := map[string]string{".html": "text/html; charset=utf-8"}
	for _, f := range page.Formats {
		types[f.Ext] = f.MediaType
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if p == dir {
					return nil // rendered without term pages
				}
				return errVanished
			}
			return err
		}
		if p == dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") { // TermSums and the like
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		ext := path.Ext(rel)
		name := strings.TrimSuffix(rel, ext)
		if types[ext] == "" || !tree.TermPageName(name) {
			return nil
		}
		t := terms[name]
		if t == nil {
			t = &term{files: map[string]string{}}
			terms[name] = t
			names = append(names, name)
		}
		t.files[ext] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	var objs []Object
	for _, name := range names {
		t := terms[name]
		offers := Offers{Self: page.Self + "/" + name, Formats: []Offer{}}
		add := func(ext string) error {
			fi, err := os.Stat(t.files[ext])
			if err != nil {
				return errVanished
			}
			objs = append(objs, Object{Key: key + "/" + name + ext, File: t.files[ext], Size: fi.Size(), ContentType: types[ext],
				CacheControl: cache, term: true})
			return nil
		}
		for _, f := range page.Formats {
			if t.files[f.Ext] == "" {
				continue
			}
			if err := add(f.Ext); err != nil {
				return nil, err
			}
			offers.Formats = append(offers.Formats, Offer{Ext: f.Ext, MediaType: f.MediaType})
		}
		if t.files[".html"] != "" {
			if err := add(".html"); err != nil {
				return nil, err
			}
			offers.HTML = true
		}
		ob, err := json.Marshal(offers)
		if err != nil {
			return nil, err
		}
		objs = append(objs, Object{Key: key + "/" + name + "/" + OffersFile, Body: ob, Size: int64(len(ob)),
			ContentType: "application/json", CacheControl: cache, term: true})
	}
	return objs, nil
}

// planPages lists the hub, group and repository pages (<path>/index.html under the pipeline's pages folder).
func planPages(dir string) ([]Object, error) {
	var objs []Object
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if p == dir {
					return nil
				}
				return errVanished
			}
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "index.html" {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return errVanished
		}
		objs = append(objs, Object{Key: path.Clean(filepath.ToSlash(rel)), File: p, Size: fi.Size(),
			ContentType: "text/html; charset=utf-8", CacheControl: CacheLatest})
		return nil
	})
	return objs, err
}

// md5File is the hex MD5 of an object's bytes.
func md5Of(o Object) (string, error) {
	r, err := o.open()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errVanished
		}
		return "", err
	}
	defer r.Close()
	h := md5.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
