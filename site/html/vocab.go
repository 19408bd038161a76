package html

import (
	"cmp"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/vocab"
)

// Term documentation: what a publication defines (content/vocab), laid out for the publication and version pages
// in one language. Every text field shows one language, chosen by the page's language preferences, then English,
// then untagged text, then the first language in tag order: a field never mixes languages.

// MaxDocumented bounds the terms one page documents in full, and MaxTreeNodes the entries of its hierarchy trees;
// a larger publication's page documents the first terms of each section in label order and says how many it left
// out (their resource pages still describe them).
const (
	MaxDocumented = 3000
	MaxTreeNodes  = 3000
)

type textView struct {
	Value string `json:"value"`
	Lang  string `json:"lang,omitempty"`
}

type refView struct {
	Href  string `json:"href"`
	Label string `json:"label"`
	IRI   string `json:"iri"`
	Lang  string `json:"lang,omitempty"`
	Local bool   `json:"local,omitempty"` // documented on this page
}

type relView struct {
	Key   string    `json:"key"`
	Title string    `json:"title"`
	Refs  []refView `json:"refs"`
}

type noteView struct {
	Title string   `json:"title"`
	Text  textView `json:"text"`
}

type shapePropView struct {
	Path        refView  `json:"path"`
	Name        textView `json:"name"`
	Description textView `json:"description"`
	Datatype    *refView `json:"datatype,omitempty"`
	Class       *refView `json:"class,omitempty"`
	Node        *refView `json:"node,omitempty"`
	Count       string   `json:"count,omitempty"` // "1..*"
}

type termDocView struct {
	ID         string          `json:"id"` // the anchor
	IRI        string          `json:"iri"`
	Name       string          `json:"name"` // prefixed name, else the IRI
	Href       string          `json:"href"` // the term's own page
	Label      textView        `json:"label"`
	Kinds      []string        `json:"kinds"`
	Deprecated bool            `json:"deprecated,omitempty"`
	Status     string          `json:"status,omitempty"`
	Definition textView        `json:"definition"`
	Comment    textView        `json:"comment"`
	AltLabels  []textView      `json:"altlabels,omitempty"`
	Notes      []noteView      `json:"notes,omitempty"`
	Rels       []relView       `json:"rels,omitempty"`
	Props      []shapePropView `json:"props,omitempty"`
	// Also marks a term of two kinds in its second section: a link to its entry in the first, which holds the anchor.
	Also bool `json:"also,omitempty"`
}

type treeNode struct {
	Ref      refView    `json:"ref"`
	Children []treeNode `json:"children,omitempty"`
	More     int        `json:"more,omitempty"` // children left out (a cycle, or the tree's bound)
}

type sectionView struct {
	ID      string        `json:"id"`
	Title   string        `json:"title"`
	Count   int           `json:"count"`
	Omitted int           `json:"omitted,omitempty"`
	Terms   []termDocView `json:"terms"`
	Tree    []treeNode    `json:"tree,omitempty"`
	// Pages link the section's full listing, when the publication's page cannot document every term.
	Pages []pageLink `json:"pages,omitempty"`
}

type pageLink struct {
	N       int    `json:"n"`
	Href    string `json:"href"`
	Current bool   `json:"current,omitempty"`
}

// DefaultTermsPerPage is the number of terms on each page of a section's full listing.
const DefaultTermsPerPage = 1000

// TermsPage names page N (from 1) of the full listing of one section (a vocab.Kind) of what a publication
// defines, at <page>?terms=<Section>&page=<N>.
type TermsPage struct {
	Section string
	N       int
}

// SectionPages lists the pages of every section's full listing that a publication page documenting d links:
// none when its page documents every term (at most MaxDocumented), else perPage terms a page (0:
// DefaultTermsPerPage), so that each term is on exactly one page of each of its sections.
func SectionPages(d *vocab.Doc, perPage int) []TermsPage {
	if d.Empty() || !overBudget(d) {
		return nil
	}
	perPage = cmp.Or(perPage, DefaultTermsPerPage)
	counts := map[vocab.Kind]int{}
	for _, t := range d.Terms {
		for _, k := range t.Kinds {
			counts[k]++
		}
	}
	var out []TermsPage
	for _, k := range vocab.Kinds {
		for n := 1; (n-1)*perPage < counts[k]; n++ {
			out = append(out, TermsPage{Section: string(k), N: n})
		}
	}
	return out
}

// overBudget says whether d's sections hold more entries than a page documents (a term of two kinds counts
// twice).
func overBudget(d *vocab.Doc) bool {
	n := 0
	for _, t := range d.Terms {
		n += len(t.Kinds)
	}
	return n > MaxDocumented
}

// TermsURL is the URL of a page of a section's full listing below the page at self.
func TermsURL(self string, p TermsPage) string {
	return self + "?terms=" + url.QueryEscape(p.Section) + "&page=" + strconv.Itoa(p.N)
}

type agentView struct {
	Href string   `json:"href,omitempty"`
	Name textView `json:"name"`
}

type headerView struct {
	IRI          string      `json:"iri"`
	Title        textView    `json:"title"`
	Description  textView    `json:"description"`
	VersionInfo  textView    `json:"versioninfo"`
	VersionIRI   []refView   `json:"versioniri,omitempty"`
	PriorVersion []refView   `json:"priorversion,omitempty"`
	Imports      []refView   `json:"imports,omitempty"`
	Creators     []agentView `json:"creators,omitempty"`
	Contributors []agentView `json:"contributors,omitempty"`
	Publishers   []agentView `json:"publishers,omitempty"`
	License      []refView   `json:"license,omitempty"`
	Prefix       string      `json:"prefix,omitempty"`
	Namespace    string      `json:"namespace,omitempty"`
	Created      string      `json:"created,omitempty"`
	Issued       string      `json:"issued,omitempty"`
	Modified     string      `json:"modified,omitempty"`
}

type docView struct {
	Lang      string        `json:"lang"`      // the language texts are shown in, when they have it
	Fallback  []string      `json:"fallback"`  // the order languages are tried in
	Languages []string      `json:"languages"` // every language of the labels and definitions
	Header    *headerView   `json:"header,omitempty"`
	Sections  []sectionView `json:"sections"`
	Count     int           `json:"count"`
	Truncated bool          `json:"truncated,omitempty"`
	// Index is the URL of the labels index (LabelsURL) of a page that leaves terms out, for the filter.
	Index string `json:"index,omitempty"`
}

var kindTitles = map[vocab.Kind]string{
	vocab.ConceptScheme: "Concept schemes", vocab.Concept: "Concepts", vocab.Class: "Classes",
	vocab.ObjectProperty: "Object properties", vocab.DatatypeProperty: "Datatype properties",
	vocab.AnnotationProperty: "Annotation properties", vocab.Property: "Properties", vocab.Individual: "Individuals",
	vocab.Shape: "Shapes",
}

var kindNames = map[vocab.Kind]string{
	vocab.ConceptScheme: "concept scheme", vocab.Concept: "concept", vocab.Class: "class",
	vocab.ObjectProperty: "object property", vocab.DatatypeProperty: "datatype property",
	vocab.AnnotationProperty: "annotation property", vocab.Property: "property", vocab.Individual: "individual",
	vocab.Shape: "shape",
}

// relTitles lists the links a term shows, in order.
var relTitles = []struct{ key, title string }{
	{vocab.Types, "Type"},
	{vocab.SubClassOf, "Subclass of"}, {vocab.SubClasses, "Superclass of"},
	{vocab.SubPropertyOf, "Subproperty of"}, {vocab.SubProperties, "Superproperty of"},
	{vocab.Domain, "Domain"}, {vocab.Range, "Range"}, {vocab.InverseOf, "Inverse of"},
	{vocab.DomainOf, "In the domain of"}, {vocab.RangeOf, "In the range of"},
	{vocab.InScheme, "In scheme"}, {vocab.TopConceptOf, "Top concept of"}, {vocab.HasTopConcept, "Top concepts"},
	{vocab.Broader, "Broader"}, {vocab.Narrower, "Narrower"}, {vocab.Related, "Related"},
	{vocab.EquivalentClass, "Equivalent class"}, {vocab.EquivalentProp, "Equivalent property"},
	{vocab.SameAs, "Same as"}, {vocab.ExactMatch, "Exact match"}, {vocab.CloseMatch, "Close match"},
	{vocab.BroadMatch, "Broad match"}, {vocab.NarrowMatch, "Narrow match"}, {vocab.RelatedMatch, "Related match"},
	{vocab.TargetClass, "Target class"}, {vocab.TargetedBy, "Shapes"}, {vocab.Instances, "Instances"},
	{"supersededBy", "Superseded by"}, {vocab.IsDefinedBy, "Defined by"}, {vocab.SeeAlso, "See also"},
}

var noteTitles = []struct{ key, title string }{
	{vocab.ScopeNote, "Scope note"}, {vocab.Note, "Note"}, {vocab.Example, "Example"},
	{vocab.HistoryNote, "History note"}, {vocab.ChangeNote, "Change note"}, {vocab.EditNote, "Editorial note"},
	{vocab.Notation, "Notation"},
}

// langs is a reader's language preference: BCP 47 tags, best first, lower case.
type langs []string

// fallback is the order languages are tried in: the reader's, then English, then untagged text.
func fallback(prefs []string) langs {
	var out langs
	add := func(l string) {
		l = strings.ToLower(l)
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	for _, p := range prefs {
		if p != "" && p != "*" {
			add(p)
		}
	}
	add("en")
	add("")
	return out
}

// pick chooses the one text a field shows: the first preference a value's tag matches (exactly, or by its
// primary subtag: "en-gb" for "en"), else the value whose tag sorts first.
func (ls langs) pick(ts []vocab.Text) textView {
	if len(ts) == 0 {
		return textView{}
	}
	best, rank := 0, LanguageRank(ls, ts[0].Lang)
	for i, t := range ts[1:] {
		if r := LanguageRank(ls, t.Lang); r < rank {
			best, rank = i+1, r
		}
	}
	if rank < 2*len(ls) {
		return textView(ts[best])
	}
	b := ts[0]
	for _, t := range ts[1:] {
		if t.Lang < b.Lang || t.Lang == b.Lang && t.Value < b.Value {
			b = t
		}
	}
	return textView(b)
}

// LanguageOrder is the order in which a page chooses among texts in several languages: the preferences given
// (the reader's, then the hub's), then English, then untagged text. Tags are lower-cased; "*" and repeats go.
func LanguageOrder(prefs ...string) []string { return fallback(prefs) }

// LanguageRank places a text's language tag in order (LanguageOrder's): 2i when it is the i-th entry, 2i+1 when
// it matches the i-th by primary subtag ("en-gb" for "en", "en" for "en-gb"), 2*len(order) when it matches none.
// The text of the lowest rank is the one to show.
func LanguageRank(order []string, tag string) int {
	tag = strings.ToLower(tag)
	for i, l := range order {
		if tag == l {
			return 2 * i
		}
		if l != "" && tag != "" && (strings.HasPrefix(tag, l+"-") || strings.HasPrefix(l, tag+"-")) {
			return 2*i + 1
		}
	}
	return 2 * len(order)
}

// all keeps the texts in the language pick would choose.
func (ls langs) all(ts []vocab.Text) []textView {
	first := ls.pick(ts)
	var out []textView
	for _, t := range ts {
		if t.Lang == first.Lang {
			out = append(out, textView(t))
		}
	}
	return out
}

// docNamer names and links the IRIs of one page's documentation.
type docNamer struct {
	doc      *vocab.Doc
	ls       langs
	prefixes []rdf.Prefix
	index    map[string]int    // IRI -> term
	anchors  map[string]string // IRI -> anchor of a term documented on the page
	base     string            // the publication's URI
	self     string            // the page's URL path
}

func (n *docNamer) label(iri string) textView {
	if i, ok := n.index[iri]; ok {
		if l := n.ls.pick(n.doc.Terms[i].Text[vocab.Label]); l.Value != "" {
			return l
		}
	} else if l := n.ls.pick(n.doc.Labels[iri]); l.Value != "" {
		return l
	}
	if c := compact(iri, n.prefixes); c != iri {
		return textView{Value: c}
	}
	if _, ok := n.index[iri]; ok {
		// A term without a label goes by its local name, as in the data's own prefixed names.
		if a := anchorOf(iri); a != "" {
			return textView{Value: a}
		}
	}
	return textView{Value: iri}
}

// href is where a link to iri goes: its entry on this page, its resource page when the publication's URI covers
// it, else the IRI itself.
func (n *docNamer) href(iri string) string {
	if a, ok := n.anchors[iri]; ok {
		return "#" + url.PathEscape(a)
	}
	return n.resource(iri)
}

func (n *docNamer) resource(iri string) string {
	if n.base != "" {
		if rest, ok := strings.CutPrefix(iri, n.base+"/"); ok && rest != "" {
			if strings.HasPrefix(rest, "#") { // <uri>/#x: a hash IRI against the publication's folder
				return strings.TrimSuffix(n.self, "/") + "#" + url.PathEscape(rest[1:])
			}
			return strings.TrimSuffix(n.self, "/") + "/" + rest
		}
		if frag, ok := strings.CutPrefix(iri, n.base+"#"); ok {
			return strings.TrimSuffix(n.self, "/") + "#" + url.PathEscape(frag)
		}
	}
	return iri
}

func (n *docNamer) ref(iri string) refView {
	l := n.label(iri)
	_, local := n.anchors[iri]
	return refView{Href: n.href(iri), Label: l.Value, Lang: l.Lang, IRI: iri, Local: local}
}

func (n *docNamer) refs(iris []string) []refView {
	out := make([]refView, 0, len(iris))
	for _, i := range iris {
		out = append(out, n.ref(i))
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Label) < strings.ToLower(out[j].Label) })
	return out
}

// anchorOf is the fragment a term's entry answers: the IRI's local name (after '#', else after the last '/'),
// so that a hash IRI of the publication (<uri>#Concept) lands on its entry.
func anchorOf(iri string) string {
	i := strings.LastIndexAny(iri, "#/")
	a := iri[i+1:]
	if a == "" && i > 0 {
		a = strings.TrimRight(iri, "#/")
		a = a[strings.LastIndexAny(a, "#/:")+1:]
	}
	return a
}

// reservedIDs are the element ids the theme's page layouts use; a term of that local name gets another anchor.
var reservedIDs = map[string]bool{"title": true, "main": true, "uri": true, "versions": true, "resources": true,
	"download": true, "statistics": true, "classes": true, "properties": true, "sparql": true, "query": true,
	"triples": true, "terms": true, "incoming": true, "formats": true, "filter": true}

// newDocNamer names the terms of d for a page at self of the publication whose URI is base.
func newDocNamer(d *vocab.Doc, ls langs, base, self string) *docNamer {
	index := make(map[string]int, len(d.Terms))
	for i, t := range d.Terms {
		index[t.IRI] = i
	}
	return newDocNamerIndexed(d, ls, base, self, index)
}

// newDocNamerIndexed is newDocNamer with d's index (IRI -> term) made already, shared read-only.
func newDocNamerIndexed(d *vocab.Doc, ls langs, base, self string, index map[string]int) *docNamer {
	n := &docNamer{doc: d, ls: ls, index: index, anchors: map[string]string{}, base: base, self: self}
	n.prefixes = append(n.prefixes, d.Prefixes...)
	if h := d.Ontology; h != nil && h.Prefix != "" && h.Namespace != "" {
		n.prefixes = append([]rdf.Prefix{{Name: h.Prefix, IRI: h.Namespace}}, n.prefixes...)
	}
	n.prefixes = append(n.prefixes, wellKnown...)
	return n
}

// TermDocs is what one version defines (its terms.json, content/vocab), read once for the documentation entry
// that heads the resource page of each of its terms.
type TermDocs struct {
	doc   *vocab.Doc
	index map[string]int // IRI -> term, shared read-only by the pages
}

// ReadTermDocs reads a version's terms.json.
func ReadTermDocs(r io.Reader) (*TermDocs, error) {
	d, err := vocab.Decode(r)
	if err != nil {
		return nil, fmt.Errorf("html: terms: %w", err)
	}
	return NewTermDocs(d), nil
}

// NewTermDocs is the TermDocs of a version's decoded terms.json, which it keeps.
func NewTermDocs(d *vocab.Doc) *TermDocs {
	td := &TermDocs{doc: d, index: make(map[string]int, len(d.Terms))}
	for i, t := range d.Terms {
		td.index[t.IRI] = i
	}
	return td
}

// Size is the number of terms, for bounding a cache of TermDocs.
func (td *TermDocs) Size() int {
	if td == nil || td.doc == nil {
		return 0
	}
	return len(td.doc.Terms)
}

// termEntry is the documentation entry of iri, in the language order ls, for its resource page (publication
// URI base, publication page pub): nil when the version does not define it.
func (td *TermDocs) termEntry(iri string, ls langs, base, pub string) *termDocView {
	if td == nil || td.doc.Empty() {
		return nil
	}
	i, ok := td.index[iri]
	if !ok {
		return nil
	}
	n := &docNamer{doc: td.doc, ls: ls, index: td.index, anchors: map[string]string{}, base: base, self: pub}
	n.prefixes = newDocNamer(&vocab.Doc{Ontology: td.doc.Ontology, Prefixes: td.doc.Prefixes}, ls, base, pub).prefixes
	t := &td.doc.Terms[i]
	n.anchors[iri] = "definition"
	k := vocab.Class
	if len(t.Kinds) > 0 {
		k = t.Kinds[0]
	}
	v := n.term(t, k)
	return &v
}

// layout is what every page of one document in one language order shares: each term's label (lower case, the
// sort key) and each section's terms in label order. Laying it out is most of a page's own cost for a large
// vocabulary, so a batch computes it once for all the pages (listing pages, labels index) of a document and
// language (Batch.layout).
type layout struct {
	labels    []string
	bySection map[vocab.Kind][]int
	languages []string
	index     map[string]int // IRI -> term
}

func newLayout(d *vocab.Doc, n *docNamer) *layout {
	lay := &layout{bySection: map[vocab.Kind][]int{}, labels: make([]string, len(d.Terms)), index: n.index}
	langSet := map[string]bool{}
	for i, t := range d.Terms {
		for _, k := range t.Kinds {
			lay.bySection[k] = append(lay.bySection[k], i)
		}
		for _, k := range []string{vocab.Label, vocab.Definition, vocab.Comment} {
			for _, x := range t.Text[k] {
				langSet[x.Lang] = true
			}
		}
		lay.labels[i] = strings.ToLower(n.label(t.IRI).Value)
	}
	for l := range langSet {
		if l != "" {
			lay.languages = append(lay.languages, l)
		}
	}
	sort.Strings(lay.languages)
	for _, ids := range lay.bySection {
		sort.SliceStable(ids, func(a, b int) bool {
			if lay.labels[ids[a]] != lay.labels[ids[b]] {
				return lay.labels[ids[a]] < lay.labels[ids[b]]
			}
			return d.Terms[ids[a]].IRI < d.Terms[ids[b]].IRI
		})
	}
	return lay
}

// shown is the terms of one section a page documents.
type shown struct {
	k     vocab.Kind
	terms []int
}

// docPage lays d out for the page at self of the publication whose URI is base, in the language order ls: the
// publication's page, or (pg.Section set) one page of a section's full listing, perPage terms a page.
func docPage(d *vocab.Doc, base, self string, prefs []string, pg TermsPage, perPage int) *docView {
	if d.Empty() {
		return nil
	}
	ls := fallback(prefs)
	return docPageIn(d, newLayout(d, newDocNamer(d, ls, base, self)), base, self, "", ls, pg, perPage)
}

// docPageIn is docPage over a layout of d in the language order ls, for the variant of the page in the language
// whose key is lang ("": the hub's), whose listing pages it links.
func docPageIn(d *vocab.Doc, lay *layout, base, self, lang string, ls langs, pg TermsPage, perPage int) *docView {
	n := newDocNamerIndexed(d, ls, base, self, lay.index)
	v := &docView{Lang: ls[0], Fallback: ls, Count: len(d.Terms), Truncated: d.Truncated, Languages: lay.languages}
	bySection := lay.bySection
	// Group by section, each in label order; the first MaxDocumented terms over all sections are shown.
	budget := MaxDocumented
	perPage = cmp.Or(perPage, DefaultTermsPerPage)
	paged := SectionPages(d, perPage) != nil
	var order []shown
	for _, k := range vocab.Kinds {
		ids := bySection[k]
		if len(ids) == 0 {
			continue
		}
		if pg.Section != "" {
			if string(k) != pg.Section {
				continue
			}
			from := (pg.N - 1) * perPage
			if pg.N < 1 || from >= len(ids) {
				return nil
			}
			order = append(order, shown{k, ids[from:min(len(ids), from+perPage)]})
			continue
		}
		keep := min(len(ids), budget)
		budget -= keep
		order = append(order, shown{k, ids[:keep]})
	}
	n.claimAnchors(order, base)
	entered := map[int]bool{}
	for _, s := range order {
		sec := sectionView{ID: "section-" + string(s.k), Title: kindTitles[s.k], Count: len(bySection[s.k])}
		if pg.Section == "" {
			sec.Omitted = len(bySection[s.k]) - len(s.terms)
		}
		if paged {
			for n := 1; (n-1)*perPage < sec.Count; n++ {
				tp := TermsPage{Section: string(s.k), N: n}
				sec.Pages = append(sec.Pages, pageLink{N: n, Href: ListingURL(self, lang, tp), Current: tp == pg})
			}
		}
		for _, i := range s.terms {
			if entered[i] && pg.Section == "" {
				sec.Terms = append(sec.Terms, termDocView{ID: n.anchors[d.Terms[i].IRI], IRI: d.Terms[i].IRI,
					Name: compact(d.Terms[i].IRI, n.prefixes), Label: n.label(d.Terms[i].IRI), Also: true})
				continue
			}
			entered[i] = true
			sec.Terms = append(sec.Terms, n.term(&d.Terms[i], s.k))
		}
		if pg.Section == "" {
			sec.Tree = n.tree(s.k, bySection[s.k])
		}
		v.Sections = append(v.Sections, sec)
	}
	if h := d.Ontology; h != nil {
		v.Header = n.header(h)
	}
	return v
}

// claimAnchors gives each term of the page (order) its anchor: its local name, unless another term of the page,
// a layout's element id or a generated anchor's prefix has it, then "term-" and the escaped IRI. The publication's
// own terms claim first, so that a local name shared with an outside term is the publication's.
func (n *docNamer) claimAnchors(order []shown, base string) {
	d := n.doc
	taken := map[string]bool{}
	claim := func(iri string) {
		if _, ok := n.anchors[iri]; ok {
			return
		}
		a := anchorOf(iri)
		if a == "" || taken[a] || reservedIDs[a] || strings.HasPrefix(a, "section-") || strings.HasPrefix(a, "term-") {
			a = "term-" + url.PathEscape(iri)
		}
		taken[a] = true
		n.anchors[iri] = a
	}
	for _, own := range []bool{true, false} {
		for _, s := range order {
			for _, i := range s.terms {
				iri := d.Terms[i].IRI
				if isOwn := base != "" && (strings.HasPrefix(iri, base+"#") || strings.HasPrefix(iri, base+"/")) ||
					d.Ontology != nil && d.Ontology.Namespace != "" && strings.HasPrefix(iri, d.Ontology.Namespace); isOwn == own {
					claim(iri)
				}
			}
		}
	}
}

func (n *docNamer) term(t *vocab.Term, section vocab.Kind) termDocView {
	tv := termDocView{ID: n.anchors[t.IRI], IRI: t.IRI, Name: compact(t.IRI, n.prefixes), Href: n.resource(t.IRI),
		Label: n.ls.pick(t.Text[vocab.Label]), Deprecated: t.Deprecated, Status: t.Status,
		Definition: n.ls.pick(t.Text[vocab.Definition]), Comment: n.ls.pick(t.Text[vocab.Comment]),
		AltLabels: n.ls.all(t.Text[vocab.AltLabel])}
	if tv.Definition.Value == "" {
		tv.Definition = n.ls.pick(t.Text[vocab.Description])
	}
	if tv.Definition.Value == "" {
		tv.Definition, tv.Comment = tv.Comment, textView{}
	}
	if tv.Comment == tv.Definition {
		tv.Comment = textView{}
	}
	if tv.Label.Value == "" {
		tv.Label = n.label(t.IRI)
	}
	for _, k := range t.Kinds {
		tv.Kinds = append(tv.Kinds, kindNames[k])
	}
	for _, nt := range noteTitles {
		for _, x := range n.ls.all(t.Text[nt.key]) {
			tv.Notes = append(tv.Notes, noteView{Title: nt.title, Text: x})
		}
	}
	for _, r := range relTitles {
		iris := t.Links[r.key]
		if len(iris) == 0 {
			continue
		}
		if r.key == vocab.Narrower && section == vocab.ConceptScheme {
			continue
		}
		const maxRefs = 200 // a concept with thousands of narrower concepts lists them on its resource page
		more := len(iris) > maxRefs
		if more {
			iris = iris[:maxRefs]
		}
		rv := relView{Key: r.key, Title: r.title, Refs: n.refs(iris)}
		if more {
			rv.Refs = append(rv.Refs, refView{Href: tv.Href, Label: "… all " + strconv.Itoa(len(t.Links[r.key]))})
		}
		tv.Rels = append(tv.Rels, rv)
	}
	for _, p := range t.Props {
		pv := shapePropView{Path: n.ref(p.Path), Name: n.ls.pick(p.Name), Description: n.ls.pick(p.Description)}
		for _, x := range []struct {
			iri string
			to  **refView
		}{{p.Datatype, &pv.Datatype}, {p.Class, &pv.Class}, {p.Node, &pv.Node}} {
			if x.iri != "" {
				r := n.ref(x.iri)
				*x.to = &r
			}
		}
		if p.MinCount != "" || p.MaxCount != "" {
			pv.Count = nameOr(p.MinCount, "0") + ".." + nameOr(p.MaxCount, "*")
		}
		tv.Props = append(tv.Props, pv)
	}
	return tv
}

// parentKeys are the links that make a section's hierarchy tree.
var parentKeys = map[vocab.Kind][2]string{
	vocab.Class:              {vocab.SubClassOf, vocab.SubClasses},
	vocab.ObjectProperty:     {vocab.SubPropertyOf, vocab.SubProperties},
	vocab.DatatypeProperty:   {vocab.SubPropertyOf, vocab.SubProperties},
	vocab.AnnotationProperty: {vocab.SubPropertyOf, vocab.SubProperties},
	vocab.Property:           {vocab.SubPropertyOf, vocab.SubProperties},
	vocab.Concept:            {vocab.Broader, vocab.Narrower},
}

// tree is a section's hierarchy: its roots (terms without a parent in the section) with their descendants, at most
// MaxTreeNodes entries, each term once. It is nil when the section has no hierarchy at all.
func (n *docNamer) tree(k vocab.Kind, ids []int) []treeNode {
	keys, ok := parentKeys[k]
	if !ok {
		return nil
	}
	in := map[string]bool{}
	for _, i := range ids {
		in[n.doc.Terms[i].IRI] = true
	}
	hasEdge := false
	var roots []int
	for _, i := range ids {
		t := &n.doc.Terms[i]
		parent := false
		for _, p := range t.Links[keys[0]] {
			if in[p] && p != t.IRI {
				parent, hasEdge = true, true
				break
			}
		}
		if !parent {
			roots = append(roots, i)
		}
	}
	if !hasEdge {
		return nil
	}
	budget := MaxTreeNodes
	seen := map[string]bool{}
	var build func(i, depth int) treeNode
	build = func(i, depth int) treeNode {
		t := &n.doc.Terms[i]
		seen[t.IRI] = true
		budget--
		node := treeNode{Ref: n.ref(t.IRI)}
		var kids []string
		for _, c := range t.Links[keys[1]] {
			if in[c] && !seen[c] {
				kids = append(kids, c)
			}
		}
		sort.Slice(kids, func(a, b int) bool {
			return strings.ToLower(n.label(kids[a]).Value) < strings.ToLower(n.label(kids[b]).Value)
		})
		for j, c := range kids {
			if budget <= 0 || depth >= 64 {
				node.More = len(kids) - j
				break
			}
			if seen[c] {
				continue
			}
			node.Children = append(node.Children, build(n.index[c], depth+1))
		}
		return node
	}
	var out []treeNode
	for _, r := range roots {
		if budget <= 0 {
			break
		}
		if !seen[n.doc.Terms[r].IRI] {
			out = append(out, build(r, 0))
		}
	}
	return out
}

func (n *docNamer) header(h *vocab.Header) *headerView {
	hv := &headerView{IRI: h.IRI, Title: n.ls.pick(h.Text[vocab.Title]), VersionInfo: n.ls.pick(h.Text[vocab.VersionInfo]),
		Description: n.ls.pick(h.Text[vocab.Description]), Prefix: h.Prefix, Namespace: h.Namespace, Created: h.Created,
		Issued: h.Issued, Modified: h.Modified}
	if hv.Prefix == "" && hv.Namespace == "" {
		// Without vann's preferred prefix, the prefix the source declares for the ontology's own namespace is the
		// one its terms are named with on this page, so the reader learns it here.
		for _, p := range n.doc.Prefixes {
			if p.IRI != "" && strings.TrimRight(p.IRI, "#/") == strings.TrimRight(h.IRI, "#/") {
				hv.Prefix, hv.Namespace = p.Name, p.IRI
				break
			}
		}
	}
	if hv.Title.Value == "" {
		hv.Title = n.ls.pick(h.Text[vocab.Label])
	}
	if hv.Description.Value == "" {
		hv.Description = n.ls.pick(h.Text[vocab.Comment])
	}
	if hv.Description.Value == "" {
		hv.Description = n.ls.pick(h.Text[vocab.Definition])
	}
	ext := func(iris []string) []refView {
		out := make([]refView, 0, len(iris))
		for _, i := range iris {
			l := n.label(i)
			if l.Value == compact(i, n.prefixes) {
				l = textView{Value: i}
			}
			out = append(out, refView{Href: i, Label: l.Value, Lang: l.Lang, IRI: i})
		}
		return out
	}
	hv.VersionIRI = ext(h.Links[vocab.VersionIRI])
	hv.PriorVersion = ext(h.Links[vocab.PriorVersion])
	hv.Imports = ext(h.Links[vocab.Imports])
	agents := func(as []vocab.Agent) []agentView {
		var out []agentView
		for _, a := range as {
			av := agentView{Href: a.IRI, Name: n.ls.pick(a.Name)}
			if av.Name.Value == "" {
				av.Name = textView{Value: a.IRI}
			}
			if av.Name.Value != "" {
				out = append(out, av)
			}
		}
		return out
	}
	hv.Creators, hv.Contributors, hv.Publishers = agents(h.Creators), agents(h.Contributors), agents(h.Publishers)
	for _, l := range h.License {
		r := refView{Label: l, IRI: l}
		if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
			r.Href = l
		}
		hv.License = append(hv.License, r)
	}
	return hv
}
