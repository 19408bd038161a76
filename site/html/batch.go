package html

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/vocab"
)

// Batch collects pages for RenderBatch, which renders all of them with one Hugo build. A build has a fixed cost
// (configuration, theme templates, a whole site) far above the cost of one more page, so a caller that renders
// pages as its data changes (the pipeline) gathers every changed page of a sync into one batch.
//
// Unlike Render, a batch does not lay a site out: the caller gives every link (root-absolute URL paths, as the
// pages are served) and the folder below the output folder where each page's index.html goes.
type Batch struct {
	Title    string // the hub's name; also the last part of every page title
	Language string // BCP 47 tag of the page texts; "en" when empty
	// TermsPerPage is the number of terms on each page of a section's full listing (SectionPages);
	// DefaultTermsPerPage when 0.
	TermsPerPage int
	pages        []page
	outs         map[string]bool
	files        []batchFile
	// layouts are the layouts of the documents of the batch's pages, per language order: a large vocabulary's
	// listing pages and labels index share one.
	layouts map[layoutKey]*layout
}

type layoutKey struct {
	doc   *vocab.Doc
	order string
}

// batchFile is a file RenderBatch writes as it is beside the pages: <out>/<name>.
type batchFile struct {
	out, name string
	data      []byte
}

// Next is an empty batch with b's settings and b's layouts: the next of several builds of one large vocabulary's
// pages (its listing pages, a few at a time, so that one build holds a bounded number of terms) lays the
// vocabulary out once.
func (b *Batch) Next() *Batch {
	return &Batch{Title: b.Title, Language: b.Language, TermsPerPage: b.TermsPerPage, layouts: b.layouts}
}

// layout is d's layout in the language order ls, made once per batch.
func (b *Batch) layout(d *vocab.Doc, ls langs) *layout {
	k := layoutKey{d, strings.Join(ls, "\x00")}
	if lay := b.layouts[k]; lay != nil {
		return lay
	}
	if b.layouts == nil {
		b.layouts = map[layoutKey]*layout{}
	}
	lay := newLayout(d, newDocNamer(d, ls, "", ""))
	b.layouts[k] = lay
	return lay
}

// languageOrder is the order in which the page pp chooses among texts: its language, the batch's, English,
// untagged text.
func (b *Batch) languageOrder(pp PublicationPage) langs {
	if pp.Language != "" {
		return fallback([]string{pp.Language, b.Language})
	}
	return fallback([]string{b.Language})
}

func (b *Batch) addFile(out, name string, data []byte) error {
	out = strings.Trim(out, "/")
	for _, seg := range append(strings.Split(out, "/"), name) {
		if err := checkSegment("output", seg); err != nil {
			return err
		}
	}
	b.files = append(b.files, batchFile{out: out, name: name, data: data})
	return nil
}

// Crumb is one step of a page's breadcrumb trail.
type Crumb struct {
	Name string
	Href string
}

// Entry is one line of a hub, group or repository page: a group, repository or publication and its link.
type Entry struct {
	Name        string
	Href        string
	Description string // Markdown; only its first line is shown
	Version     string // a publication's latest version label
	Triples     int    // a publication's size
	// Entries are a group's repositories (on the hub page) or a repository's publications; nil does not list
	// them, which is not the same as an empty list ("none yet").
	Entries []Entry
}

// PublicationPage is one page of a publication: its unversioned page (Latest), which lists every version, or
// the page of one version.
type PublicationPage struct {
	Crumbs      []Crumb // from the hub down to the repository
	Repository  Crumb
	Href        string      // the publication's unversioned page
	Publication Publication // Versions newest first, each with its Href; Resources are not shown
	Shown       int         // index in Publication.Versions of the version the page shows
	Latest      bool
	// Vocab is what the shown version defines (nil: nothing), documented on the page in the batch's language.
	Vocab *vocab.Doc
	// A version page's neighbours (empty Href: none), whether it is the latest version, and the URL of the delta
	// from the previous version.
	Prev, Next    Crumb
	LatestVersion bool
	Delta         string
	// Language is the key (codec.LanguageKey) of the language variant this page is, "" for the one in the batch's
	// language; Languages are the keys of every variant of the page, the batch language's included, for its
	// language switch (none: no switch).
	Language  string
	Languages []string
	// Terms, when set, makes this one page of a section's full listing (SectionPages) instead of the page itself.
	Terms TermsPage
}

func (b *Batch) add(out string, p page) error {
	out = strings.Trim(out, "/")
	for _, seg := range strings.Split(out, "/") {
		if err := checkSegment("output", seg); err != nil {
			return err
		}
	}
	if b.outs == nil {
		b.outs = map[string]bool{}
	}
	if b.outs[out] {
		return fmt.Errorf("html: two pages in %s", out)
	}
	b.outs[out] = true
	p.URL = "/" + out + "/"
	b.pages = append(b.pages, p)
	return nil
}

func viewCrumbs(cs []Crumb) []crumb {
	out := make([]crumb, 0, len(cs))
	for _, c := range cs {
		out = append(out, crumb{Name: c.Name, Href: c.Href})
	}
	return out
}

func viewPublications(es []Entry) []pubSummary {
	out := make([]pubSummary, 0, len(es))
	for _, e := range es {
		ps := pubSummary{Name: e.Name, Href: e.Href, Description: firstLine(e.Description)}
		if e.Version != "" {
			ps.Version = &versionView{Label: e.Version, Stats: statsView{Triples: e.Triples}}
		}
		out = append(out, ps)
	}
	return out
}

func viewRepositories(es []Entry) []repoSummary {
	out := make([]repoSummary, 0, len(es))
	for _, e := range es {
		out = append(out, repoSummary{Name: e.Name, Href: e.Href, Description: firstLine(e.Description),
			Publications: viewPublications(e.Entries), Unlisted: e.Entries == nil})
	}
	return out
}

// Hub adds the front page: its description and the top-level groups, each with its repositories.
func (b *Batch) Hub(out, description string, groups []Entry) error {
	gs := make([]groupSummary, 0, len(groups))
	for _, g := range groups {
		gs = append(gs, groupSummary{Name: g.Name, Href: g.Href, Description: firstLine(g.Description),
			Repositories: viewRepositories(g.Entries)})
	}
	return b.add(out, page{Title: nameOr(b.Title, "ldhub"), Layout: "hub", Content: description,
		LD: map[string]any{"crumbs": []crumb{}, "groups": gs}})
}

// Group adds a group's page: its subgroups and repositories.
func (b *Batch) Group(out string, crumbs []Crumb, name, description string, groups, repositories []Entry) error {
	gs := make([]groupSummary, 0, len(groups))
	for _, g := range groups {
		gs = append(gs, groupSummary{Name: g.Name, Href: g.Href, Description: firstLine(g.Description)})
	}
	return b.add(out, page{Title: name, Layout: "group", Content: description,
		LD: map[string]any{"crumbs": viewCrumbs(crumbs), "groups": gs, "repositories": viewRepositories(repositories)}})
}

// Repository adds a repository's page: its publications.
func (b *Batch) Repository(out string, crumbs []Crumb, name, description string, publications []Entry) error {
	return b.add(out, page{Title: name, Layout: "repository", Content: description,
		LD: map[string]any{"crumbs": viewCrumbs(crumbs), "publications": viewPublications(publications)}})
}

// Publication adds a publication's unversioned page or one of its version pages.
func (b *Batch) Publication(out string, pp PublicationPage) error {
	p := pp.Publication
	if pp.Shown < 0 || pp.Shown >= len(p.Versions) {
		return fmt.Errorf("html: publication %s: no version %d to show", pp.Href, pp.Shown)
	}
	name := nameOr(p.Name, p.Slug)
	view := pubView{
		Crumbs: viewCrumbs(pp.Crumbs), Href: pp.Href, URI: p.URI, Publisher: p.Publisher, License: p.License,
		SPARQL: p.SPARQL, Repository: linkView{Name: pp.Repository.Name, Href: pp.Repository.Href},
	}
	if !p.Modified.IsZero() {
		view.Modified = p.Modified.UTC().Format(time.RFC3339)
	}
	shown, err := viewVersion(p.Versions[pp.Shown], p.Versions[pp.Shown].Href)
	if err != nil {
		return fmt.Errorf("%w (publication %s)", err, pp.Href)
	}
	view.Version = &shown
	self := pp.Href
	if !pp.Latest {
		self = shown.Href
	}
	current := codec.LanguageKey(nameOr(b.Language, "en"))
	if pp.Language != "" {
		current = pp.Language
	}
	if !pp.Vocab.Empty() {
		ls := b.languageOrder(pp)
		view.Doc = docPageIn(pp.Vocab, b.layout(pp.Vocab, ls), p.URI, self, pp.Language, ls, pp.Terms, b.TermsPerPage)
		if view.Doc != nil && SectionPages(pp.Vocab, b.TermsPerPage) != nil {
			view.Doc.Index = LabelsURL(self, pp.Language)
		}
	}
	if pp.Terms.Section != "" && (view.Doc == nil || len(view.Doc.Sections) == 0) {
		return fmt.Errorf("html: publication %s: no page %d of section %q", pp.Href, pp.Terms.N, pp.Terms.Section)
	}
	if view.Doc != nil && view.Doc.Header != nil && view.Doc.Header.Title.Value != "" {
		name = view.Doc.Header.Title.Value
		view.TitleLang = view.Doc.Header.Title.Lang
	}
	if pp.Terms.Section != "" {
		s := view.Doc.Sections[0]
		name = fmt.Sprintf("%s: %s, page %d of %d", name, s.Title, pp.Terms.N, len(s.Pages))
	}
	if len(pp.Languages) > 1 {
		view.Languages = switchLinks(self, pp.Languages, current, pp.Terms)
	}
	title, layout := name, "publication"
	if pp.Latest {
		// The list needs only what its table shows: a long history must not repeat every version's statistics.
		for _, v := range p.Versions {
			if v.Href == "" {
				return fmt.Errorf("html: publication %s: version %q has no page URL", pp.Href, v.Label)
			}
			vv := versionView{Label: v.Label, Commit: v.Commit, Href: v.Href, Stats: statsView{Triples: v.Stats.Triples}}
			if !v.Time.IsZero() {
				vv.Time = v.Time.UTC().Format(time.RFC3339)
			}
			view.Versions = append(view.Versions, vv)
		}
		if view.SPARQL == "" {
			view.SPARQL = shown.SPARQL
		}
	} else {
		title, layout = name+" "+shown.Label, "version"
		view.Crumbs = append(view.Crumbs, crumb{Name: name, Href: pp.Href})
		// The publication's endpoint answers over the latest version; an older version's page may only offer
		// a query form for an endpoint of its own.
		view.SPARQL = shown.SPARQL
		view.Nav = &versionNav{Prev: linkView{Name: pp.Prev.Name, Href: pp.Prev.Href}, Next: linkView{Name: pp.Next.Name, Href: pp.Next.Href}, Latest: pp.LatestVersion,
			Delta: pp.Delta}
	}
	return b.add(out, page{Title: title, Layout: layout, Content: p.Description, LD: view})
}

// RenderBatch renders the batch into outDir, each page to <out>/index.html, with one Hugo build. Links are
// root-absolute, and the stylesheet and icon are inside every page, so that a page needs nothing but itself
// wherever it is served. overrides are theme folders as for Render.
func RenderBatch(ctx context.Context, b *Batch, outDir string, overrides ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := renderPages(ctx, b.pages, settings{title: b.Title, language: b.Language, inline: true}, outDir, overrides); err != nil {
		return err
	}
	for _, f := range b.files {
		dir := filepath.Join(outDir, filepath.FromSlash(f.out))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("html: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("html: %w", err)
		}
	}
	return nil
}

// CheckTheme renders one page of every kind with the overrides, so that a broken theme is reported when ldhub
// starts rather than by every sync.
func CheckTheme(ctx context.Context, overrides ...string) error {
	if len(overrides) == 0 {
		return nil
	}
	v := Version{Label: "1", Commit: "0000000", Href: "/g/r/p/versions/1", SPARQL: "/g/r/p",
		Dumps: []Dump{{Format: "Turtle", Ext: ".ttl", MediaType: "text/turtle", URL: "/g/r/p.ttl", Size: 1}},
		Stats: Stats{Triples: 1, Subjects: 1, Classes: []Count{{Value: "http://example.org/C", Label: "C", N: 1}},
			Properties: []Count{{Value: "http://example.org/p", Label: "p", N: 1}}, Languages: []Count{{Value: "en", N: 1}}}}
	pub := Publication{Name: "p", Description: "d", URI: "http://example.org/g/r/p", Versions: []Version{v}}
	entry := []Entry{{Name: "r", Href: "/g/r/", Entries: []Entry{{Name: "p", Href: "/g/r/p", Version: "1", Triples: 1}}}}
	crumbs := []Crumb{{Name: "hub", Href: "/"}, {Name: "g", Href: "/g/"}}
	b := &Batch{}
	errs := []error{
		b.Hub("h", "d", []Entry{{Name: "g", Href: "/g/", Entries: entry}}),
		b.Group("g", crumbs[:1], "g", "d", nil, entry),
		b.Repository("r", crumbs, "r", "d", entry[0].Entries),
		b.Publication("p", PublicationPage{Crumbs: crumbs, Repository: Crumb{Name: "r", Href: "/g/r/"}, Href: "/g/r/p", Publication: pub, Latest: true,
			Language: "fr", Languages: []string{"en", "fr"}}),
		b.Publication("v", PublicationPage{Crumbs: crumbs, Repository: Crumb{Name: "r", Href: "/g/r/"}, Href: "/g/r/p", Publication: pub}),
		b.add("t", resourcePage(&ResourcePage{Crumbs: crumbs, Publication: Crumb{Name: "p", Href: "/g/r/p"},
			IRI: "http://example.org/g/r/p/t", Href: "/g/r/p/t", Page: 1, Prev: "/g/r/p/t", Next: "/g/r/p/t?page=2",
			Statements: []rdf.Quad{
				rdf.Triple(rdf.IRI("http://example.org/g/r/p/t"), rdf.IRI("http://example.org/p"), rdf.Blank("b")),
				rdf.Triple(rdf.Blank("b"), rdf.IRI("http://example.org/p"), rdf.LangString("x", "en")),
			},
			Incoming: []rdf.Quad{rdf.Triple(rdf.IRI("http://example.org/s"), rdf.IRI("http://example.org/p"), rdf.IRI("http://example.org/g/r/p/t"))},
			Formats:  []Dump{{Format: "Turtle", Ext: ".ttl", MediaType: "text/turtle", URL: "/g/r/p/t.ttl"}}})),
		b.add("q", queryPage(&QueryPage{Crumbs: crumbs, Publication: Crumb{Name: "p", Href: "/g/r/p"}, Endpoint: "/g/r/p",
			Query: "SELECT * {}", Form: "SELECT", Vars: []string{"s"}, Rows: [][]rdf.Term{{rdf.IRI("http://example.org/s")}},
			Downloads: []Dump{{Format: "CSV", MediaType: "text/csv", URL: "/g/r/p?query=x&format=text/csv"}}})),
		b.add("e", queryPage(&QueryPage{Crumbs: crumbs, Publication: Crumb{Name: "p", Href: "/g/r/p"}, Endpoint: "/g/r/p",
			Query: "SELECT", Error: "invalid query"})),
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "ldhub-theme-check-")
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	defer os.RemoveAll(dir)
	return RenderBatch(ctx, b, dir, overrides...)
}

// Resource adds a resource's page, the one the direct-URL handler renders on request (Resources.Render), to the
// batch: the pipeline pre-renders term pages this way for the static tree.
func (b *Batch) Resource(out string, p *ResourcePage) error { return b.add(out, resourcePage(p)) }

// Len is the number of pages in the batch.
func (b *Batch) Len() int { return len(b.pages) }

// ResourceFingerprint is the data a resource's page is rendered from: two pages with equal fingerprints render to
// the same HTML with one theme and hub settings, so a caller may keep a page while its fingerprint holds.
func ResourceFingerprint(p *ResourcePage) ([]byte, error) {
	v := resourcePage(p)
	return json.Marshal(struct {
		Title string
		LD    any
	}{v.Title, v.LD})
}
