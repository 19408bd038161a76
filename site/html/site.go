// Package html renders ldhub's human-readable pages (hub, groups, repositories, publications, versions and
// resources) as a static folder of index.html files, with Hugo over the theme in /theme. The page data is
// ours; only hugo.go knows Hugo.
package html

import (
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// Site is everything rendered in one run. Pages go to <group>/<repo>/<publication>/ under the output folder,
// versions to <publication>/versions/<label>/, resources to <publication>/<resource path>/.
type Site struct {
	Title    string       // the hub's name; also the last part of every page title
	Hub      Hub          // the front page
	Language string       // BCP 47 tag of the page texts; "en" when empty
	Prefixes []rdf.Prefix // shown as prefixed names on resource pages, before a few well-known ones
}

// Hub is the front page: a short text and its groups.
type Hub struct {
	Description string // Markdown; raw HTML in it is dropped
	Groups      []Group
}

// Group is a publisher's group of repositories.
type Group struct {
	Slug         string // URL path segment
	Name         string
	Description  string // Markdown
	Repositories []Repository
}

// Repository is one data repository of a group.
type Repository struct {
	Slug         string
	Name         string
	Description  string // Markdown
	Publications []Publication
}

// Publication is a published data set with its versions, newest first: its own page shows Versions[0].
type Publication struct {
	Slug        string
	Name        string
	Description string // Markdown
	URI         string // the publication's URI
	Publisher   string
	License     string // a URL or a name
	Modified    time.Time
	SPARQL      string // URL of the SPARQL endpoint over the latest version; the query form POSTs "query" to it
	Versions    []Version
	Resources   []Resource
}

// Version is one immutable version of a publication.
type Version struct {
	Label  string // free text; escaped into its folder name
	Href   string // URL of the version's page; empty: Render derives it from the label (RenderBatch needs it)
	Commit string
	Time   time.Time
	Dumps  []Dump // one per format: Turtle (.ttl), N-Triples (.nt), RDF/XML (.rdf), JSON-LD (.jsonld), ...
	VoID   string // URL of the version's VoID description
	SPARQL string // URL of a SPARQL endpoint over this version; without one its page has no query form
	Stats  Stats
}

// Dump is one downloadable rendering of a version.
type Dump struct {
	Format    string // "Turtle"
	Ext       string // ".ttl"
	MediaType string // "text/turtle"
	URL       string // absolute, or a URL path from the site root ("/g/r/p/data.ttl")
	Size      int64  // bytes; 0 when unknown
}

// Stats summarise a version's data.
type Stats struct {
	Triples    int
	Subjects   int
	Classes    []Count // Value is the class IRI
	Properties []Count // Value is the property IRI
	Languages  []Count // Value is the language tag
}

// Count is a class, property or language with how often it occurs and, when the data gives one, its label.
type Count struct {
	Value string
	Label string
	N     int
}

// Resource is a page describing one IRI of a publication's data.
type Resource struct {
	Path    string // URL path below the publication's, e.g. "id/42"; must not start with "versions"
	IRI     string
	Label   string
	Triples []rdf.Quad // the graph component is ignored
}
