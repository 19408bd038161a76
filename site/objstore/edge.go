package objstore

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"sort"
	"strings"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/site/tree"
)

//go:embed worker.js
var workerJS string

// edgeTable is what the edge code needs of ldhub's tables, written into it as JSON so that the negotiation at the
// edge follows the same registry as the Go handler (a test runs both on the same requests).
type edgeTable struct {
	// Aliases maps each media type of a syntax to its other media types, which select the same representation.
	Aliases            map[string][]string `json:"aliases"`
	RepresentationExts []string            `json:"representationExts"`
	VoidFile           string              `json:"voidFile"`
	VersionsSegment    string              `json:"versionsSegment"`
	OffersFile         string              `json:"offersFile"`
	PagesFolder        string              `json:"pagesFolder"`
	SecurityHeaders    [][2]string         `json:"securityHeaders"`
	ExposeHeaders      string              `json:"exposeHeaders"`
	// Language is the hub's language in lower case, the one the pre-rendered term pages are in.
	Language string `json:"language"`
}

func newEdgeTable(reg *codec.Registry) edgeTable {
	t := edgeTable{Aliases: map[string][]string{}, VoidFile: tree.Void, VersionsSegment: model.VersionsSegment, OffersFile: OffersFile,
		PagesFolder: PagesFolder, SecurityHeaders: httpx.SecurityHeaders, ExposeHeaders: httpx.ExposeHeaders}
	for _, s := range reg.Syntaxes() {
		for _, mt := range s.MediaTypes {
			for _, other := range s.Asked() {
				if other != mt {
					t.Aliases[mt] = append(t.Aliases[mt], other)
				}
			}
		}
	}
	t.RepresentationExts = append(t.RepresentationExts, model.RepresentationExts...)
	// Longest first, so that no extension is taken for the end of a longer one.
	sort.SliceStable(t.RepresentationExts, func(i, j int) bool { return len(t.RepresentationExts[i]) > len(t.RepresentationExts[j]) })
	return t
}

// CloudflareWorker returns the source of a Cloudflare Worker (an ES module) that negotiates content on the objects
// Sync publishes: it maps a request's path and Accept header to an object key, fetches the object from the
// bucket (the ORIGIN variable) and answers with the headers ldhub's own handler sends (Vary, Content-Location,
// Link, CORS, security headers). A CDN whose cache ignores Vary (Cloudflare's) then caches each representation
// under its own object URL instead of serving one client's Turtle to the next client's browser.
//
// language is the hub's language ("en" when empty), the one the pre-rendered term pages are in: with LDHUB_URL set,
// a reader whose Accept-Language asks for another gets the term's page from the hub, as the generated nginx and
// Apache configurations decide.
func CloudflareWorker(language string) string {
	t := newEdgeTable(codec.Default())
	t.Language = strings.ToLower(cmp.Or(language, "en"))
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		panic("objstore: edge table: " + err.Error()) // only fixed types: cannot happen
	}
	return strings.Replace(workerJS, "/*TABLE*/ {}", string(b), 1)
}
