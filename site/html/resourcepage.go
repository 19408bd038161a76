package html

import (
	"github.com/ldhub/ldhub/content/rdf"
)

// ResourcePage is one page of a resource that the direct-URL handler describes on request: its statements with
// the closure of its blank nodes, and one page of the statements pointing at it.
type ResourcePage struct {
	Crumbs      []Crumb // from the hub down to the publication (or the version) the resource is described in
	Publication Crumb
	IRI         string
	Label       string
	Href        string     // the page's own URL path, without the page number
	Statements  []rdf.Quad // about IRI, then about the blank nodes reachable from it; graphs are not shown
	Incoming    []rdf.Quad // this page of the statements whose object is IRI
	// IncomingTotal counts the statements whose object is IRI on every page, Pages the pages they fill.
	IncomingTotal, Pages int
	Truncated            bool              // Statements were cut at a bound
	Labels               map[string]string // IRI -> its label, in the page's language order
	LabelLangs           map[string]string // IRI -> the language of its label, when tagged
	LabelLang            string            // the language of Label, when tagged
	// Languages are the languages the resource's texts are in, each with the URL of the page in it (Name is the
	// tag); Language is the one chosen, which the switch marks as current.
	Languages []Crumb
	Language  string
	// Langs is the order labels were chosen in (LanguageOrder); Docs, when the version defines IRI, gives the page
	// its documentation entry, as on the publication page, whose URI is PubURI.
	Langs      []string
	Docs       *TermDocs
	PubURI     string
	Page       int    // from 0
	Prev, Next string // URLs of the neighbouring pages of incoming links; "" when there is none
	Formats    []Dump // the other representations of the page (Format, Ext, MediaType, URL)
}

// propView is one property of a subject with all its values.
type propView struct {
	P      termView    `json:"p"`
	Values []valueView `json:"values"`
}

// valueView is one value of a property; a blank node carries what is said about it, nested.
type valueView struct {
	termView
	Nested []propView `json:"nested,omitempty"`
}

type incomingView struct {
	S termView `json:"s"`
	P termView `json:"p"`
}

// resourcePageView is the data of the resource layout.
type resourcePageView struct {
	Crumbs      []crumb        `json:"crumbs"`
	IRI         string         `json:"iri"`
	Href        string         `json:"href"`
	Publication linkView       `json:"publication"`
	Properties  []propView     `json:"properties"`
	Incoming    []incomingView `json:"incoming"`
	InTotal     int            `json:"intotal"`
	Pages       int            `json:"pages"`
	Truncated   bool           `json:"truncated,omitempty"`
	Page        int            `json:"page"`
	Prev        string         `json:"prev,omitempty"`
	Next        string         `json:"next,omitempty"`
	Formats     []dumpView     `json:"formats"`
	TitleLang   string         `json:"titlelang,omitempty"` // the language of the page title (the label)
	Languages   []langLink     `json:"languages,omitempty"`
	Doc         *termDocView   `json:"doc,omitempty"`
}

// langLink is one entry of a language switch.
type langLink struct {
	Tag     string `json:"tag"`
	Href    string `json:"href"`
	Current bool   `json:"current,omitempty"`
}

// maxNesting bounds how deep blank nodes are nested on a page; deeper ones are shown as their labels.
const maxNesting = 16

// termNamer shows terms with the labels and prefixes of one page.
type termNamer struct {
	local      map[string]resourceLink
	labels     map[string]string
	labelLangs map[string]string
	prefixes   []rdf.Prefix
}

func (n termNamer) term(t rdf.Term) termView {
	tv := viewTerm(t, n.local, n.labels, n.prefixes)
	if tv.Kind == "iri" && tv.Label == n.labels[t.Value] {
		tv.LabelLang = n.labelLangs[t.Value]
	}
	return tv
}

// resourceView groups a resource's statements by subject and property: the resource's own properties, in the
// order they first occur, with each blank node's statements nested under the value that names it (once: a blank
// node reached twice, or through a cycle, is shown by its label the second time).
func resourceView(iri string, statements []rdf.Quad, n termNamer) []propView {
	bySubject := map[rdf.Term][]rdf.Quad{}
	for _, q := range statements {
		bySubject[q.S] = append(bySubject[q.S], q)
	}
	shown := map[rdf.Term]bool{}
	var props func(s rdf.Term, depth int) []propView
	props = func(s rdf.Term, depth int) []propView {
		shown[s] = true
		var out []propView
		index := map[rdf.Term]int{}
		seen := map[[2]rdf.Term]bool{}
		for _, q := range bySubject[s] {
			if seen[[2]rdf.Term{q.P, q.O}] {
				continue // the same statement in two graphs
			}
			seen[[2]rdf.Term{q.P, q.O}] = true
			i, ok := index[q.P]
			if !ok {
				i = len(out)
				index[q.P] = i
				out = append(out, propView{P: n.term(q.P)})
			}
			v := valueView{termView: n.term(q.O)}
			if q.O.IsBlank() && !shown[q.O] && depth < maxNesting {
				v.Nested = props(q.O, depth+1)
			}
			out[i].Values = append(out[i].Values, v)
		}
		return out
	}
	return props(rdf.IRI(iri), 0)
}

// resourcePage turns p into the page Hugo renders.
func resourcePage(p *ResourcePage) page {
	n := termNamer{labels: p.Labels, labelLangs: p.LabelLangs, prefixes: wellKnown}
	v := resourcePageView{Crumbs: viewCrumbs(p.Crumbs), IRI: p.IRI, Href: p.Href,
		Publication: linkView{Name: p.Publication.Name, Href: p.Publication.Href},
		Properties:  resourceView(p.IRI, p.Statements, n), Incoming: []incomingView{}, Truncated: p.Truncated,
		InTotal: max(p.IncomingTotal, len(p.Incoming)), Pages: max(p.Pages, 1),
		Page: p.Page, Prev: p.Prev, Next: p.Next, Formats: []dumpView{}}
	if p.Label != "" {
		v.TitleLang = p.LabelLang
	}
	v.Doc = p.Docs.termEntry(p.IRI, fallback(p.Langs), p.PubURI, p.Publication.Href)
	for _, l := range p.Languages {
		v.Languages = append(v.Languages, langLink{Tag: l.Name, Href: l.Href, Current: l.Name == p.Language})
	}
	for _, q := range p.Incoming {
		v.Incoming = append(v.Incoming, incomingView{S: n.term(q.S), P: n.term(q.P)})
	}
	for _, f := range p.Formats {
		v.Formats = append(v.Formats, dumpView{Format: nameOr(f.Format, f.Ext), Ext: f.Ext, MediaType: f.MediaType, Href: f.URL})
	}
	return page{Title: nameOr(p.Label, p.IRI), Layout: "resource", LD: v}
}
