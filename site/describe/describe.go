// Package describe gathers what a rendered version's SPARQL index says about one resource and lays it out as the
// resource's page data. The direct-URL handler (site) answers resources with it on request, and the pipeline
// pre-renders term pages with it for the static tree, so that both give the same page and the same statements.
// Indexes keeps those index files mapped, once for every reader of the tree (the site's resources and queries,
// the API's SPARQL endpoint), and checks that a file still belongs to the version its reader expects.
package describe

import (
	"io"
	"maps"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// MaxClosure bounds the statements gathered through blank nodes, so one resource cannot make a response huge.
const MaxClosure = 10000

// PageSize is the default number of incoming statements on one page of a resource.
const PageSize = 1000

// maxLabels bounds the label look-ups of one page.
const maxLabels = 2000

// Description is what a dataset says about one IRI: its statements with the closure of its blank nodes, and one
// page of the statements that point at it.
type Description struct {
	IRI       string
	Out, In   []rdf.Quad
	More      bool // there are more incoming statements, on the next page
	InTotal   int  // the incoming statements on every page
	Truncated bool // Out was cut at MaxClosure
}

// Empty tells whether nothing at all is said about the IRI.
func (d Description) Empty() bool { return len(d.Out)+len(d.In) == 0 }

// Describe gathers what the dataset says about iri across its graphs, with page (from 0) of its incoming links.
func Describe(ds *index.Dataset, iri string, page, pageSize int) Description {
	d := Description{IRI: iri}
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
		for len(queue) > 0 && !d.Truncated {
			s := queue[0]
			queue = queue[1:]
			m := g.g.Match(s, 0, 0)
			for i := 0; i < m.Len(); i++ {
				if len(d.Out) == MaxClosure {
					// One statement more than the bound: the page says it shows only part of them.
					d.Truncated = true
					break
				}
				_, p, o := m.At(i)
				ot := ds.Dict.Term(o)
				d.Out = append(d.Out, rdf.Quad{S: ds.Dict.Term(s), P: ds.Dict.Term(p), O: ot, G: g.name})
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
			d.InTotal += g.g.Match(0, 0, id).Len()
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
			if len(d.In) == pageSize {
				d.More = true
				return d
			}
			s, p, _ := m.At(i)
			d.In = append(d.In, rdf.Quad{S: ds.Dict.Term(s), P: ds.Dict.Term(p), O: rdf.IRI(iri), G: g.name})
		}
		skip = 0
	}
	return d
}

// Encode writes the description (its statements, then the incoming page) in one RDF syntax.
func Encode(w io.Writer, syn codec.Syntax, d Description) error {
	enc := syn.NewEncoder(w, rdf.EncodeOptions{Prefixes: tree.WellKnownPrefixes})
	for _, q := range d.Out {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	for _, q := range d.In {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	return enc.Close()
}

// Labels finds a label (rdfs:label or skos:prefLabel) for the IRIs of the statements, the one whose language
// comes first in langs (html.LanguageRank; rdfs:label first within a language), and the language of each
// label that has one.
func Labels(ds *index.Dataset, langs []string, lists ...[]rdf.Quad) (map[string]string, map[string]string) {
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

// PageURL is the address of one page of a resource's description, in the language lang ("": negotiated).
func PageURL(base string, page int, lang string) string {
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

// Crumbs is the trail from the hub (named hubTitle) down to the publication (or the version) pg shows, and the
// publication's crumb.
func Crumbs(hubTitle string, pg *tree.Page) ([]html.Crumb, html.Crumb) {
	pub := html.Crumb{Name: nameOr(pg.Name, path.Base(pg.Path)), Href: pg.Path}
	crumbs := []html.Crumb{{Name: hubTitle, Href: "/"}}
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

// PageOptions are what a resource page shows besides the description.
type PageOptions struct {
	HubTitle string
	Self     string // the resource's URL path, without extension or page number
	Ext      string // the extension the page was asked with, kept in its links
	Page     int    // from 0
	PageSize int
	Next     string      // the next page's URL; "" when there is none
	Formats  []html.Dump // the other representations
	// Langs is the order labels are chosen in (html.LanguageOrder); Lang is the language the reader chose with
	// the page's switch ("" when negotiated), kept in its links.
	Langs []string
	Lang  string
	Docs  *html.TermDocs // what the version defines; nil when nothing
	// Foreign, when set, labels the IRIs of other publications of the hub that this one does not label.
	Foreign *Foreign
}

// Page is the page data of a resource's HTML description in the folder whose page is pg: crumbs from the hub
// down to the publication (or the version), labels of the IRIs shown from the data, the language switch and
// links to the neighbouring pages and other formats.
func Page(ds *index.Dataset, pg *tree.Page, d Description, o PageOptions) *html.ResourcePage {
	p := &html.ResourcePage{IRI: d.IRI, Href: o.Self, Statements: d.Out, Incoming: d.In, IncomingTotal: d.InTotal,
		Pages: (d.InTotal + o.PageSize - 1) / o.PageSize, Truncated: d.Truncated, Page: o.Page, Next: o.Next,
		Formats: o.Formats}
	p.Crumbs, p.Publication = Crumbs(o.HubTitle, pg)
	if o.Page > 0 {
		// The first page is the one without a number, so that its address is the resource's own.
		p.Prev = PageURL(o.Self+o.Ext, o.Page-1, o.Lang)
	}
	p.Langs, p.PubURI, p.Docs = o.Langs, pg.URI, o.Docs
	p.Labels, p.LabelLangs = Labels(ds, o.Langs, d.Out, d.In)
	if p.Labels == nil {
		p.Labels, p.LabelLangs = map[string]string{}, map[string]string{}
	}
	o.Foreign.addLabels(pg.URI, o.Langs, p.Labels, p.LabelLangs, d.Out, d.In)
	p.Label, p.LabelLang = p.Labels[d.IRI], p.LabelLangs[d.IRI]
	// The switch offers the languages of the resource's own texts (its labels, definitions, comments).
	tags := map[string]bool{}
	for _, q := range d.Out {
		if q.S == rdf.IRI(d.IRI) && q.O.IsLiteral() && q.O.Lang != "" {
			tags[strings.ToLower(q.O.Lang)] = true
		}
	}
	if len(tags) > 1 {
		p.Language = p.LabelLang
		if p.Language == "" {
			p.Language = o.Langs[0]
		}
		for _, tag := range slices.Sorted(maps.Keys(tags)) {
			p.Languages = append(p.Languages, html.Crumb{Name: tag, Href: PageURL(o.Self+o.Ext, o.Page, tag)})
		}
	}
	return p
}

func nameOr(name, fallback string) string {
	if strings.TrimSpace(name) == "" {
		return fallback
	}
	return name
}
