// Package tree fixes the layout of the rendered tree that the pipeline writes and the direct-URL handler (and the
// generated nginx and Apache configurations) read, so that all of them agree on one set of names.
//
// A publication whose URL path is /g/r/core is rendered under <root>/<public|private>/g/r/core/.ld/:
//
//	.ld/v/<label>/          one immutable folder per version (dumps, .gz siblings, page, SPARQL index)
//	.ld/cur -> L-<version>  a symlink, swapped atomically, to the folder serving the latest version; its
//	                        dumps are hard links to the version's, its page lists every version
//
// ".ld" cannot clash with a publication or resource name: path segments never start with a dot.
package tree

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/prefixes"
)

// WellKnownPrefixes are offered to the pretty encoders after a publisher's own, so that renderings of sources
// without prefixes (N-Triples uploads, resource descriptions) still read well.
var WellKnownPrefixes = prefixes.Pick("rdf", "rdfs", "owl", "xsd", "skos", "dcterms")

const (
	// MetaDir is the folder inside a publication's URL folder that holds its renderings.
	MetaDir = ".ld"
	// Current is the symlink (inside MetaDir) to the latest version's folder.
	Current = "cur"
	// Versions is the folder (inside MetaDir) of the version folders.
	Versions = "v"
	// Public and Private split the tree: nginx serves only Public; Private is served by the Go handler to VIEWERs.
	Public  = "public"
	Private = "private"

	// File names inside a version folder.
	PageJSON = "page.json"
	PageHTML = model.PageFile
	Index    = "index.sparql"
	Void     = model.VoIDFile
	Terms    = "terms.json" // what the version defines (content/vocab), for the documentation pages
	DataBase = "data"       // dumps are data.<ext>, with data.<ext>.gz beside them
	// LateDumps marks a folder whose page lists dumps that are written after the version went live (those of a
	// large version read from N-Triples or N-Quads: RDF/XML and JSON-LD). It holds a LateDumpsMarker. Until a
	// listed dump's file is there, its representation is converted on request from the folder's N-Triples or
	// N-Quads dump, which is what the file will hold, byte for byte.
	LateDumps = "dumps.pending"
)

// LateDumpsMarker is what a folder's LateDumps file says: how the late dumps are written from the folder's
// N-Triples or N-Quads dump (content/codec.Redump).
type LateDumpsMarker struct {
	Prefixes []rdf.Prefix `json:"prefixes"`
	// Blanks is the prefix of the blank-node labels the dumps were read with (rdf.NewBlankNodes).
	Blanks string `json:"blanks"`
}

// ReadLateDumps reads the LateDumps marker of dir; ok is false when there is none (every dump is written).
func ReadLateDumps(dir string) (m LateDumpsMarker, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, LateDumps))
	if errors.Is(err, fs.ErrNotExist) {
		return m, false, nil
	}
	if err != nil {
		return m, false, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, false, fmt.Errorf("%s: %w", filepath.Join(dir, LateDumps), err)
	}
	return m, true, nil
}

// Format is one dump of a version.
type Format struct {
	Ext       string `json:"ext"` // ".ttl"
	MediaType string `json:"mediaType"`
	Name      string `json:"name"` // "Turtle"
	Size      int64  `json:"size"`
}

// File is the dump's file name inside its version folder.
func (f Format) File() string { return DataBase + f.Ext }

// Count is a class, property or language with how often it occurs and, when the data gives one, its label.
type Count struct {
	Value string `json:"value"`
	Label string `json:"label,omitempty"`
	N     int    `json:"n"`
}

// Stats summarise a version's data for its page and its VoID description.
type Stats struct {
	Triples    int     `json:"triples"`
	Subjects   int     `json:"subjects"`
	Graphs     int     `json:"graphs"`
	Classes    []Count `json:"classes"`
	Properties []Count `json:"properties"`
	Languages  []Count `json:"languages"`
}

// Version is one entry of a publication's version list.
type Version struct {
	ID     string    `json:"id"`
	Label  string    `json:"label"`
	Commit string    `json:"commit"`
	Time   time.Time `json:"time"`
	URL    string    `json:"url"` // URL path of the version
}

// Page is everything the handler and the HTML template need about one rendered folder (a version, or the latest).
type Page struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Description    string `json:"description,omitempty"`
	Owner          string `json:"owner,omitempty"`
	Publisher      string `json:"publisher,omitempty"`
	RepositoryID   string `json:"repositoryId"`
	RepositoryPath string `json:"repositoryPath"`
	RepositoryName string `json:"repositoryName"`
	// GroupNames are the names of the groups on RepositoryPath, top first, so that pages rendered on request show
	// the same breadcrumbs as the pipeline's (names, not path segments).
	GroupNames []string `json:"groupNames,omitempty"`
	Private    bool     `json:"private"`
	URI        string   `json:"uri"`  // the publication's URI (base URL included)
	Path       string   `json:"path"` // its URL path
	Self       string   `json:"self"` // URL path this folder answers (the publication's, or a version's)
	// Base is the base IRI the version's document was read with: relative IRIs in it, and so the terms of the
	// folder's SPARQL index, depend on it. A reader of the index that would resolve them otherwise builds its own.
	Base      string    `json:"base,omitempty"`
	Latest    bool      `json:"latest"`  // this folder serves the unversioned URL
	Version   Version   `json:"version"` // the version shown
	Versions  []Version `json:"versions,omitempty"`
	Retracted []Version `json:"retracted,omitempty"` // deleted through the API (latest folder only): 410 Gone
	Formats   []Format  `json:"formats"`
	Stats     Stats     `json:"stats"`
	Modified  time.Time `json:"modified"`
}

// CacheControl is the Cache-Control of everything the folder serves: a version never changes; the latest is
// revalidated; private content stays out of shared caches.
func (p *Page) CacheControl() string {
	switch {
	case p.Private:
		return "private, no-cache"
	case !p.Latest:
		return "public, max-age=31536000, immutable"
	default:
		return "public, max-age=60, must-revalidate"
	}
}

// ReadPage reads the page.json of the rendered folder dir.
func ReadPage(dir string) (*Page, error) {
	b, err := os.ReadFile(filepath.Join(dir, PageJSON))
	if err != nil {
		return nil, err
	}
	var p Page
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, PageJSON), err)
	}
	return &p, nil
}

// Root returns the subtree of out for public or private content.
func Root(out string, private bool) string {
	if private {
		return filepath.Join(out, Private)
	}
	return filepath.Join(out, Public)
}

// PubDir is the MetaDir of the publication with URL path urlPath ("/g/r/core") under root.
func PubDir(root, urlPath string) string {
	return filepath.Join(root, filepath.FromSlash(strings.Trim(urlPath, "/")), MetaDir)
}

// VersionDirName turns a version label into a folder name. Labels are free text under CUSTOM, so anything but
// a plain segment is escaped; the result never contains a separator or starts with a dot.
func VersionDirName(label string) (string, error) {
	if label == "" {
		return "", fmt.Errorf("tree: empty version label")
	}
	esc := url.PathEscape(label)
	if strings.HasPrefix(esc, ".") {
		esc = "%2E" + esc[1:]
	}
	return esc, nil
}

// PageVariant is the file, beside PageHTML, of a folder's page in another language than the hub's: key is the
// language's key (html.LanguageKey: a primary subtag, lower case). The page in the hub's language is PageHTML and,
// when the page has variants at all, also PageVariant of the hub's key (a hard link), so that a web server finds
// every language of the page under one name pattern.
func PageVariant(key string) string { return "index." + key + ".html" }

// VariantKey is the language key of a PageVariant file name; "" when name is not one.
func VariantKey(name string) string {
	k, ok := strings.CutPrefix(name, "index.")
	if !ok {
		return ""
	}
	if k, ok = strings.CutSuffix(k, ".html"); !ok || len(k) < 2 || len(k) > 8 {
		return ""
	}
	for _, c := range []byte(k) {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	return k
}

// SectionPage is the file, beside PageHTML, of page n (from 1) of the full listing of one section of what a
// publication defines (section: a content/vocab Kind such as "class"), served at <page>?terms=<section>&page=<n>.
// A query string, not a path below the publication, so that it can never collide with a term's IRI.
func SectionPage(section string, n int) string {
	return sectionPrefix + section + "." + strconv.Itoa(n) + ".html"
}

const sectionPrefix = "index.terms-"

// SectionPageIn is SectionPage in the language whose key is key (a page variant's, tree.PageVariant), served at
// <page>?lang=<key>&terms=<section>&page=<n>; SectionPage itself for "" (the hub's language).
func SectionPageIn(section string, n int, key string) string {
	if key == "" {
		return SectionPage(section, n)
	}
	return sectionPrefix + section + "." + strconv.Itoa(n) + "." + key + ".html"
}

// IsSectionPage reports whether name is a SectionPage file.
func IsSectionPage(name string) bool {
	return strings.HasPrefix(name, sectionPrefix) && strings.HasSuffix(name, ".html")
}

// LabelsIndex is the file, beside PageHTML, of the labels index of a page whose terms are listed on section pages
// (html.LabelsIndex), in the language whose key is key ("" for the hub's), served at <page>?terms=index (with
// &lang=<key>).
func LabelsIndex(key string) string {
	if key == "" {
		return labelsPrefix + "json"
	}
	return labelsPrefix + key + ".json"
}

const labelsPrefix = "index.labels."

// IsLabelsIndex reports whether name is a LabelsIndex file (or its .gz sibling).
func IsLabelsIndex(name string) bool {
	return strings.HasPrefix(name, labelsPrefix) && (strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".json.gz"))
}

// Variants lists the language keys of the page variants in the rendered folder dir, in key order.
func Variants(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if k := VariantKey(e.Name()); k != "" {
			out = append(out, k)
		}
	}
	return out, nil // ReadDir sorts by name, so by key
}

// TermPages is the folder, inside a publication's latest folder, of its pre-rendered term pages: for each resource
// below the publication's URI that is the subject of a statement and whose name TermPageName accepts,
// <name>.html and <name><ext> for each RDF format of its description (subfolders for names of several segments),
// so that a web server can dereference the terms from files alone. TermSums in it fingerprints each page, so
// that the next version renders only the terms whose page changed.
const (
	TermPages = "t"
	TermSums  = ".sums"
	// MaxTermDepth bounds the segments of a pre-rendered term's name: the generated web-server configurations
	// try one candidate split of the URL path per level.
	MaxTermDepth = 3
)

// TermPageName tells whether the resource named name below a publication ("Bridge", "concept/123") gets static
// pages: at most MaxTermDepth segments of ASCII letters, digits and "-_~." that do not start with a dot, no
// segment the URL space reserves, and no representation extension at the end (it would read as a format).
func TermPageName(name string) bool {
	segs := strings.Split(name, "/")
	if len(segs) > MaxTermDepth || name == "" {
		return false
	}
	for _, s := range segs {
		if s == "" || s[0] == '.' || len(s) > 200 || model.ReservedSegment(s, false) != "" {
			return false
		}
		for _, c := range []byte(s) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '~' || c == '.') {
				return false
			}
		}
	}
	return true
}
