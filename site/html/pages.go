package html

import (
	"fmt"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/prefixes"
)

// page is one index.html to render: the theme layout, its URL path and the data handed to the layout as the
// page's "ld" parameter. Hugo lower-cases parameter keys, so every key in the data is lower case already.
type page struct {
	Title   string
	Layout  string // hub, group, repository, publication, version or resource
	URL     string // "/g/r/p/"
	Content string // Markdown shown as the page's text
	LD      any
}

type crumb struct {
	Name string `json:"name"`
	Href string `json:"href"`
}

type countView struct {
	Value string `json:"value"`
	Label string `json:"label,omitempty"`
	N     int    `json:"n"`
}

type statsView struct {
	Triples    int         `json:"triples"`
	Subjects   int         `json:"subjects"`
	Classes    []countView `json:"classes"`
	Properties []countView `json:"properties"`
	Languages  []countView `json:"languages"`
}

type dumpView struct {
	Format    string `json:"format"`
	Ext       string `json:"ext"`
	MediaType string `json:"mediatype"`
	Href      string `json:"href"`
	Size      int64  `json:"size,omitempty"`
	SizeText  string `json:"sizetext,omitempty"` // "2.0 kB"
}

type versionView struct {
	Label  string     `json:"label"`
	Commit string     `json:"commit,omitempty"`
	Time   string     `json:"time,omitempty"`
	Href   string     `json:"href"`
	Dumps  []dumpView `json:"dumps"`
	VoID   string     `json:"void,omitempty"`
	SPARQL string     `json:"sparql,omitempty"`
	Stats  statsView  `json:"stats"`
}

type linkView struct {
	Name        string `json:"name"`
	Href        string `json:"href"`
	Description string `json:"description,omitempty"`
}

type pubSummary struct {
	Name        string       `json:"name"`
	Href        string       `json:"href"`
	Description string       `json:"description,omitempty"`
	Version     *versionView `json:"version,omitempty"`
}

type repoSummary struct {
	Name         string       `json:"name"`
	Href         string       `json:"href"`
	Description  string       `json:"description,omitempty"`
	Publications []pubSummary `json:"publications"`
	Unlisted     bool         `json:"unlisted,omitempty"` // its publications are not listed here (not: it has none)
}

type groupSummary struct {
	Name         string        `json:"name"`
	Href         string        `json:"href"`
	Description  string        `json:"description,omitempty"`
	Repositories []repoSummary `json:"repositories"`
}

type resourceLink struct {
	IRI   string `json:"iri"`
	Label string `json:"label,omitempty"`
	Href  string `json:"href"`
}

// pubView is the data of publication and version pages.
type pubView struct {
	Crumbs     []crumb        `json:"crumbs"`
	Href       string         `json:"href"` // the publication's page
	URI        string         `json:"uri,omitempty"`
	Repository linkView       `json:"repository"`
	Publisher  string         `json:"publisher,omitempty"`
	License    string         `json:"license,omitempty"`
	Modified   string         `json:"modified,omitempty"`
	SPARQL     string         `json:"sparql,omitempty"`
	Version    *versionView   `json:"version,omitempty"`
	Versions   []versionView  `json:"versions,omitempty"`
	Resources  []resourceLink `json:"resources,omitempty"`
	Doc        *docView       `json:"doc,omitempty"`
	Nav        *versionNav    `json:"nav,omitempty"`
	TitleLang  string         `json:"titlelang,omitempty"` // the language of the title, when the data's
	Languages  []langLink     `json:"languages,omitempty"` // the language switch
}

// versionNav links a version page to its neighbours.
type versionNav struct {
	Prev   linkView `json:"prev"`
	Next   linkView `json:"next"`
	Latest bool     `json:"latest,omitempty"`
	Delta  string   `json:"delta,omitempty"`
}

type termView struct {
	Kind      string `json:"kind"` // iri, blank, literal
	Value     string `json:"value"`
	Href      string `json:"href,omitempty"`
	Label     string `json:"label,omitempty"`
	LabelLang string `json:"labellang,omitempty"` // the language of an IRI's label, when tagged
	Lang      string `json:"lang,omitempty"`
	Datatype  string `json:"datatype,omitempty"`
	DTLabel   string `json:"dtlabel,omitempty"`
}

// wellKnown prefixes shorten IRIs on resource pages after the site's own.
var wellKnown = prefixes.Pick("rdf", "rdfs", "owl", "xsd", "skos", "dcterms", "foaf", "schema")

// pages lays the site out: it validates every path segment, so no two pages share a folder and none escapes
// the output folder.
func (s *Site) pages() ([]page, error) {
	hub := crumb{Name: s.Title, Href: "/"}
	if hub.Name == "" {
		hub.Name = "ldhub"
	}
	var out []page
	var groups []groupSummary
	seen := map[string]bool{}
	claim := func(u string) error {
		if seen[u] {
			return fmt.Errorf("html: two pages at %s", u)
		}
		seen[u] = true
		return nil
	}
	for _, g := range s.Hub.Groups {
		if err := checkSegment("group", g.Slug); err != nil {
			return nil, err
		}
		gURL := "/" + g.Slug + "/"
		if err := claim(gURL); err != nil {
			return nil, err
		}
		gs := groupSummary{Name: nameOr(g.Name, g.Slug), Href: gURL, Description: firstLine(g.Description)}
		for _, r := range g.Repositories {
			if err := checkSegment("repository", r.Slug); err != nil {
				return nil, fmt.Errorf("%w (group %s)", err, g.Slug)
			}
			rURL := gURL + r.Slug + "/"
			if err := claim(rURL); err != nil {
				return nil, err
			}
			rs := repoSummary{Name: nameOr(r.Name, r.Slug), Href: rURL, Description: firstLine(r.Description)}
			rCrumbs := []crumb{hub, {Name: gs.Name, Href: gURL}}
			for _, p := range r.Publications {
				pp, sum, err := s.publicationPages(p, rURL, append(rCrumbs, crumb{Name: rs.Name, Href: rURL}), rs)
				if err != nil {
					return nil, fmt.Errorf("%w (repository %s%s)", err, g.Slug, "/"+r.Slug)
				}
				for _, x := range pp {
					if err := claim(x.URL); err != nil {
						return nil, err
					}
				}
				out = append(out, pp...)
				rs.Publications = append(rs.Publications, sum)
			}
			out = append(out, page{Title: rs.Name, Layout: "repository", URL: rURL, Content: r.Description,
				LD: map[string]any{"crumbs": rCrumbs, "publications": rs.Publications}})
			gs.Repositories = append(gs.Repositories, rs)
		}
		out = append(out, page{Title: gs.Name, Layout: "group", URL: gURL, Content: g.Description,
			LD: map[string]any{"crumbs": []crumb{hub}, "repositories": gs.Repositories}})
		groups = append(groups, gs)
	}
	out = append(out, page{Title: hub.Name, Layout: "hub", URL: "/", Content: s.Hub.Description,
		LD: map[string]any{"crumbs": []crumb{}, "groups": groups}})
	return out, nil
}

func (s *Site) publicationPages(p Publication, repoURL string, crumbs []crumb, repo repoSummary) ([]page, pubSummary, error) {
	if err := checkSegment("publication", p.Slug); err != nil {
		return nil, pubSummary{}, err
	}
	pURL := repoURL + p.Slug + "/"
	name := nameOr(p.Name, p.Slug)
	base := pubView{
		Crumbs: crumbs, Href: pURL, URI: p.URI, Publisher: p.Publisher, License: p.License, SPARQL: p.SPARQL,
		Repository: linkView{Name: repo.Name, Href: repo.Href},
	}
	if !p.Modified.IsZero() {
		base.Modified = p.Modified.UTC().Format(time.RFC3339)
	}
	versionDirs := map[string]bool{}
	for _, v := range p.Versions {
		dir, err := versionDir(v.Label)
		if err != nil {
			return nil, pubSummary{}, fmt.Errorf("%w (publication %s)", err, p.Slug)
		}
		if versionDirs[dir] {
			return nil, pubSummary{}, fmt.Errorf("html: publication %s: two versions labelled %q", p.Slug, v.Label)
		}
		versionDirs[dir] = true
		href := v.Href
		if href == "" {
			href = pURL + "versions/" + dir + "/"
		}
		vv, err := viewVersion(v, href)
		if err != nil {
			return nil, pubSummary{}, fmt.Errorf("%w (publication %s)", err, p.Slug)
		}
		base.Versions = append(base.Versions, vv)
	}
	var out []page
	for _, r := range p.Resources {
		rp := strings.Trim(r.Path, "/")
		for _, seg := range strings.Split(rp, "/") {
			if err := checkSegment("resource", seg); err != nil {
				return nil, pubSummary{}, fmt.Errorf("%w (publication %s, resource %s)", err, p.Slug, r.IRI)
			}
		}
		if rp == model.VersionsSegment || strings.HasPrefix(rp, model.VersionsSegment+"/") {
			return nil, pubSummary{}, fmt.Errorf("html: publication %s: resource path %q is taken by the versions", p.Slug, r.Path)
		}
		base.Resources = append(base.Resources, resourceLink{IRI: r.IRI, Label: r.Label, Href: pURL + rp + "/"})
	}
	local := map[string]resourceLink{}
	for _, l := range base.Resources {
		local[l.IRI] = l
	}
	labels := map[string]string{}
	if len(base.Versions) > 0 {
		for _, c := range append(append([]Count{}, p.Versions[0].Stats.Classes...), p.Versions[0].Stats.Properties...) {
			if c.Label != "" {
				labels[c.Value] = c.Label
			}
		}
	}
	prefixes := append(append([]rdf.Prefix{}, s.Prefixes...), wellKnown...)
	pubCrumbs := append(append([]crumb{}, crumbs...), crumb{Name: name, Href: pURL})
	n := termNamer{local: local, labels: labels, prefixes: prefixes}
	for _, r := range p.Resources {
		href := local[r.IRI].Href
		rv := resourcePageView{Crumbs: pubCrumbs, IRI: r.IRI, Href: href, Publication: linkView{Name: name, Href: pURL},
			Properties: resourceView(r.IRI, r.Triples, n), Incoming: []incomingView{}, Formats: []dumpView{}}
		for _, q := range r.Triples {
			if q.O.IsIRI() && q.O.Value == r.IRI && !(q.S.IsIRI() && q.S.Value == r.IRI) {
				rv.Incoming = append(rv.Incoming, incomingView{S: n.term(q.S), P: n.term(q.P)})
			}
		}
		out = append(out, page{Title: nameOr(r.Label, r.IRI), Layout: "resource", URL: href, LD: rv})
	}
	for i := range base.Versions {
		v := base
		v.Version = &base.Versions[i]
		v.Versions = nil
		v.Resources = nil
		v.Crumbs = pubCrumbs
		// The publication's endpoint answers over the latest version; an older version's page may only offer
		// a query form for an endpoint of its own.
		v.SPARQL = v.Version.SPARQL
		out = append(out, page{Title: name + " " + v.Version.Label, Layout: "version", URL: v.Version.Href,
			Content: p.Description, LD: v})
	}
	if len(base.Versions) > 0 {
		base.Version = &base.Versions[0]
		if base.SPARQL == "" {
			base.SPARQL = base.Version.SPARQL
		}
	}
	out = append(out, page{Title: name, Layout: "publication", URL: pURL, Content: p.Description, LD: base})
	return out, pubSummary{Name: name, Href: pURL, Description: firstLine(p.Description), Version: base.Version}, nil
}

func viewVersion(v Version, href string) (versionView, error) {
	vv := versionView{Label: v.Label, Commit: v.Commit, Href: href, VoID: v.VoID, SPARQL: v.SPARQL,
		Stats: viewStats(v.Stats)}
	if !v.Time.IsZero() {
		vv.Time = v.Time.UTC().Format(time.RFC3339)
	}
	for _, d := range v.Dumps {
		if d.URL == "" {
			return vv, fmt.Errorf("html: version %q: the %s dump has no URL", v.Label, d.Format)
		}
		vv.Dumps = append(vv.Dumps, dumpView{Format: nameOr(d.Format, d.Ext), Ext: d.Ext, MediaType: d.MediaType,
			Href: d.URL, Size: d.Size, SizeText: humanSize(d.Size)})
	}
	return vv, nil
}

// humanSize writes a byte count the way download links usually show it (SI units, one decimal).
func humanSize(n int64) string {
	if n <= 0 {
		return ""
	}
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, unit := range []string{"kB", "MB", "GB", "TB"} {
		f /= 1000
		if f < 999.95 || unit == "TB" {
			return fmt.Sprintf("%.1f %s", f, unit)
		}
	}
	return ""
}

func viewStats(s Stats) statsView {
	conv := func(cs []Count) []countView {
		out := make([]countView, 0, len(cs))
		for _, c := range cs {
			out = append(out, countView(c))
		}
		return out
	}
	return statsView{Triples: s.Triples, Subjects: s.Subjects, Classes: conv(s.Classes),
		Properties: conv(s.Properties), Languages: conv(s.Languages)}
}

func viewTerm(t rdf.Term, local map[string]resourceLink, labels map[string]string, prefixes []rdf.Prefix) termView {
	switch t.Kind {
	case rdf.KindIRI:
		tv := termView{Kind: "iri", Value: t.Value, Href: t.Value, Label: labels[t.Value]}
		if l, ok := local[t.Value]; ok {
			tv.Href = l.Href
			if l.Label != "" {
				tv.Label = l.Label
			}
		}
		if tv.Label == "" {
			tv.Label = compact(t.Value, prefixes)
		}
		return tv
	case rdf.KindBlank:
		return termView{Kind: "blank", Value: t.Value}
	default:
		tv := termView{Kind: "literal", Value: t.Value, Lang: t.Lang}
		// Plain and language-tagged strings need no datatype shown.
		if t.Lang == "" && t.Datatype != "" && t.Datatype != rdf.XSDString {
			tv.Datatype = t.Datatype
			tv.DTLabel = compact(t.Datatype, prefixes)
		}
		return tv
	}
}

// compact writes iri as a prefixed name when a prefix covers it, else returns it unchanged.
func compact(iri string, prefixes []rdf.Prefix) string {
	for _, p := range prefixes {
		if p.IRI != "" && strings.HasPrefix(iri, p.IRI) && len(iri) > len(p.IRI) {
			local := iri[len(p.IRI):]
			if !strings.ContainsAny(local, "/#?") {
				return p.Name + ":" + local
			}
		}
	}
	return iri
}

// checkSegment accepts URL path segments that need no escaping and cannot walk the tree.
func checkSegment(what, s string) error {
	if s == "" {
		return fmt.Errorf("html: empty %s path segment", what)
	}
	if s[0] == '.' {
		return fmt.Errorf("html: %s path segment %q starts with a dot", what, s)
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", c)) {
			return fmt.Errorf("html: %s path segment %q: %q is not allowed", what, s, c)
		}
	}
	return nil
}

// versionDir turns a free-text version label into a folder name: plain labels stay as they are, anything else
// has each byte outside [A-Za-z0-9-.~] (and "_" itself) spelled "_XX", which no server decodes back into a
// separator and which keeps distinct labels apart.
func versionDir(label string) (string, error) {
	if label == "" {
		return "", fmt.Errorf("html: empty version label")
	}
	if checkSegment("version", label) == nil && !strings.Contains(label, "_") {
		return label, nil
	}
	var b strings.Builder
	for i := 0; i < len(label); i++ {
		c := label[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '~' ||
			c == '.' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "_%02X", c)
		}
	}
	return b.String(), nil
}

func nameOr(name, fallback string) string {
	if strings.TrimSpace(name) == "" {
		return fallback
	}
	return name
}

// firstLine keeps summaries in lists short: the first paragraph's first line.
func firstLine(md string) string {
	md = strings.TrimSpace(md)
	if i := strings.IndexByte(md, '\n'); i >= 0 {
		md = md[:i]
	}
	return md
}
