// Package vocab reads what a publication defines — ontology header, classes, properties, individuals, SKOS
// concept schemes and concepts, SHACL shapes — from its statements, for the documentation pages. It keeps every
// language of every text: which one a reader sees is the page's choice, not the data's.
package vocab

import (
	"encoding/json"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// Kind is a section of the documentation a term belongs to.
type Kind string

const (
	Class              Kind = "class"
	ObjectProperty     Kind = "objectProperty"
	DatatypeProperty   Kind = "datatypeProperty"
	AnnotationProperty Kind = "annotationProperty"
	Property           Kind = "property" // rdf:Property or any property without an OWL kind
	Individual         Kind = "individual"
	ConceptScheme      Kind = "conceptScheme"
	Concept            Kind = "concept"
	Shape              Kind = "shape"
)

// Kinds lists the sections in the order pages show them.
var Kinds = []Kind{ConceptScheme, Concept, Class, ObjectProperty, DatatypeProperty, AnnotationProperty, Property,
	Individual, Shape}

// Text is one literal: its value and language tag ("" for none).
type Text struct {
	Value string `json:"v"`
	Lang  string `json:"l,omitempty"`
}

// Term is one IRI the publication defines. Text and Links are keyed by the field names below (Label, Definition,
// SubClassOf, ...); inverse links (SubClasses, Narrower from broader, DomainOf, ...) are filled in from the other
// side, so that a page need not search.
type Term struct {
	IRI        string              `json:"iri"`
	Kinds      []Kind              `json:"kinds"`
	Text       map[string][]Text   `json:"text,omitempty"`
	Links      map[string][]string `json:"links,omitempty"`
	Deprecated bool                `json:"deprecated,omitempty"`
	Status     string              `json:"status,omitempty"` // vs:term_status: stable, testing, unstable, archaic
	Props      []ShapeProperty     `json:"props,omitempty"`  // a shape's sh:property constraints
}

// ShapeProperty is one sh:property of a shape, blank or named.
type ShapeProperty struct {
	Path        string `json:"path,omitempty"`
	Name        []Text `json:"name,omitempty"`
	Description []Text `json:"description,omitempty"`
	Datatype    string `json:"datatype,omitempty"`
	Class       string `json:"class,omitempty"`
	Node        string `json:"node,omitempty"`
	MinCount    string `json:"minCount,omitempty"`
	MaxCount    string `json:"maxCount,omitempty"`
}

// Header is the ontology's own description (the subject typed owl:Ontology).
type Header struct {
	IRI          string              `json:"iri"`
	Text         map[string][]Text   `json:"text,omitempty"` // Title, Description, VersionInfo
	Links        map[string][]string `json:"links,omitempty"`
	Creators     []Agent             `json:"creators,omitempty"`
	Contributors []Agent             `json:"contributors,omitempty"`
	Publishers   []Agent             `json:"publishers,omitempty"`
	License      []string            `json:"license,omitempty"` // IRIs or names
	Prefix       string              `json:"prefix,omitempty"`
	Namespace    string              `json:"namespace,omitempty"`
	Created      string              `json:"created,omitempty"`
	Issued       string              `json:"issued,omitempty"`
	Modified     string              `json:"modified,omitempty"` // the latest the data states
}

// Agent is a creator, contributor or publisher: an IRI, a name, or both.
type Agent struct {
	IRI  string `json:"iri,omitempty"`
	Name []Text `json:"name,omitempty"`
}

// Doc is what one version of a publication defines.
type Doc struct {
	Ontology *Header      `json:"ontology,omitempty"`
	Prefixes []rdf.Prefix `json:"prefixes,omitempty"` // declared by the source
	Terms    []Term       `json:"terms"`              // sorted by IRI
	// Labels are the labels of IRIs the terms link to that are not terms themselves (external classes, creators).
	Labels map[string][]Text `json:"labels,omitempty"`
	// Truncated says that the data held more than the documentation keeps (see MaxTerms).
	Truncated bool `json:"truncated,omitempty"`
}

// Text keys.
const (
	Label       = "label"
	AltLabel    = "altLabel"
	Definition  = "definition"
	Comment     = "comment"
	ScopeNote   = "scopeNote"
	Note        = "note"
	Example     = "example"
	EditNote    = "editorialNote"
	HistoryNote = "historyNote"
	ChangeNote  = "changeNote"
	Notation    = "notation"
	Title       = "title"
	Description = "description"
	VersionInfo = "versionInfo"
)

// Link keys; the inverse ones are computed.
const (
	SubClassOf        = "subClassOf"
	SubClasses        = "subClasses"
	SubPropertyOf     = "subPropertyOf"
	SubProperties     = "subProperties"
	Domain            = "domain"
	Range             = "range"
	DomainOf          = "domainOf"
	RangeOf           = "rangeOf"
	InverseOf         = "inverseOf"
	EquivalentClass   = "equivalentClass"
	EquivalentProp    = "equivalentProperty"
	SameAs            = "sameAs"
	Broader           = "broader"
	Narrower          = "narrower"
	Related           = "related"
	InScheme          = "inScheme"
	TopConceptOf      = "topConceptOf"
	HasTopConcept     = "hasTopConcept"
	ExactMatch        = "exactMatch"
	CloseMatch        = "closeMatch"
	BroadMatch        = "broadMatch"
	NarrowMatch       = "narrowMatch"
	RelatedMatch      = "relatedMatch"
	Types             = "type"
	Instances         = "instances"
	SeeAlso           = "seeAlso"
	IsDefinedBy       = "isDefinedBy"
	TargetClass       = "targetClass"
	TargetedBy        = "targetedBy"
	VersionIRI        = "versionIRI"
	PriorVersion      = "priorVersion"
	Imports           = "imports"
	BackwardCompatOf  = "backwardCompatibleWith"
	IncompatibleWith  = "incompatibleWith"
	ontologyNamespace = "namespace"
)

const (
	rdfsNS   = "http://www.w3.org/2000/01/rdf-schema#"
	owlNS    = "http://www.w3.org/2002/07/owl#"
	skosNS   = "http://www.w3.org/2004/02/skos/core#"
	shNS     = "http://www.w3.org/ns/shacl#"
	dctNS    = "http://purl.org/dc/terms/"
	dcNS     = "http://purl.org/dc/elements/1.1/"
	vannNS   = "http://purl.org/vocab/vann/"
	schemaNS = "https://schema.org/"
	schemaHT = "http://schema.org/"
	foafNS   = "http://xmlns.com/foaf/0.1/"
	vsNS     = "http://www.w3.org/2003/06/sw-vocab-status/ns#"
	ccNS     = "http://creativecommons.org/ns#"
	xhvNS    = "http://www.w3.org/1999/xhtml/vocab#"
)

// kindOfType maps rdf:type objects to the kinds they make a subject.
var kindOfType = map[string]Kind{
	owlNS + "Class":                     Class,
	rdfsNS + "Class":                    Class,
	rdfsNS + "Datatype":                 Class,
	owlNS + "DeprecatedClass":           Class,
	schemaNS + "Class":                  Class,
	schemaHT + "Class":                  Class,
	owlNS + "ObjectProperty":            ObjectProperty,
	owlNS + "TransitiveProperty":        ObjectProperty,
	owlNS + "SymmetricProperty":         ObjectProperty,
	owlNS + "AsymmetricProperty":        ObjectProperty,
	owlNS + "ReflexiveProperty":         ObjectProperty,
	owlNS + "IrreflexiveProperty":       ObjectProperty,
	owlNS + "InverseFunctionalProperty": ObjectProperty,
	owlNS + "DatatypeProperty":          DatatypeProperty,
	owlNS + "AnnotationProperty":        AnnotationProperty,
	owlNS + "OntologyProperty":          AnnotationProperty,
	rdf.RDFNS + "Property":              Property,
	owlNS + "DeprecatedProperty":        Property,
	owlNS + "FunctionalProperty":        Property,
	owlNS + "NamedIndividual":           Individual,
	skosNS + "ConceptScheme":            ConceptScheme,
	skosNS + "Concept":                  Concept,
	shNS + "NodeShape":                  Shape,
	shNS + "PropertyShape":              Shape,
	"http://www.w3.org/2000/01/rdf-schema#ContainerMembershipProperty": Property,
}

// textOf maps predicates to the text fields they fill.
var textOf = map[string]string{
	rdfsNS + "label":                     Label,
	skosNS + "prefLabel":                 Label,
	shNS + "name":                        Label,
	dctNS + "title":                      Title,
	dcNS + "title":                       Title,
	skosNS + "altLabel":                  AltLabel,
	skosNS + "definition":                Definition,
	dctNS + "description":                Description,
	dcNS + "description":                 Description,
	shNS + "description":                 Description,
	rdfsNS + "comment":                   Comment,
	skosNS + "scopeNote":                 ScopeNote,
	skosNS + "note":                      Note,
	vannNS + "usageNote":                 Note,
	skosNS + "example":                   Example,
	vannNS + "example":                   Example,
	skosNS + "editorialNote":             EditNote,
	skosNS + "historyNote":               HistoryNote,
	skosNS + "changeNote":                ChangeNote,
	skosNS + "notation":                  Notation,
	owlNS + "versionInfo":                VersionInfo,
	foafNS + "name":                      "name",
	schemaNS + "name":                    "name",
	schemaHT + "name":                    "name",
	"http://www.w3.org/2006/vcard/ns#fn": "name",
}

// linkOf maps predicates to the link fields they fill.
var linkOf = map[string]string{
	rdfsNS + "subClassOf":            SubClassOf,
	rdfsNS + "subPropertyOf":         SubPropertyOf,
	rdfsNS + "domain":                Domain,
	schemaNS + "domainIncludes":      Domain,
	schemaHT + "domainIncludes":      Domain,
	rdfsNS + "range":                 Range,
	schemaNS + "rangeIncludes":       Range,
	schemaHT + "rangeIncludes":       Range,
	owlNS + "inverseOf":              InverseOf,
	owlNS + "equivalentClass":        EquivalentClass,
	owlNS + "equivalentProperty":     EquivalentProp,
	owlNS + "sameAs":                 SameAs,
	skosNS + "broader":               Broader,
	skosNS + "narrower":              Narrower,
	skosNS + "related":               Related,
	skosNS + "inScheme":              InScheme,
	skosNS + "topConceptOf":          TopConceptOf,
	skosNS + "hasTopConcept":         HasTopConcept,
	skosNS + "exactMatch":            ExactMatch,
	skosNS + "closeMatch":            CloseMatch,
	skosNS + "broadMatch":            BroadMatch,
	skosNS + "narrowMatch":           NarrowMatch,
	skosNS + "relatedMatch":          RelatedMatch,
	rdfsNS + "seeAlso":               SeeAlso,
	rdfsNS + "isDefinedBy":           IsDefinedBy,
	shNS + "targetClass":             TargetClass,
	owlNS + "versionIRI":             VersionIRI,
	owlNS + "priorVersion":           PriorVersion,
	owlNS + "imports":                Imports,
	owlNS + "backwardCompatibleWith": BackwardCompatOf,
	owlNS + "incompatibleWith":       IncompatibleWith,
	schemaNS + "supersededBy":        "supersededBy",
	schemaHT + "supersededBy":        "supersededBy",
	dctNS + "isReplacedBy":           "supersededBy",
}

// inverses are filled in from the other side; a pair listed both ways (broader/narrower) merges.
var inverses = map[string]string{
	SubClassOf:    SubClasses,
	SubPropertyOf: SubProperties,
	Domain:        DomainOf,
	Range:         RangeOf,
	Broader:       Narrower,
	Narrower:      Broader,
	TopConceptOf:  HasTopConcept,
	HasTopConcept: TopConceptOf,
	TargetClass:   TargetedBy,
}

// Limits bound the memory one document's documentation may take; the rest of the data is still published.
const (
	MaxTerms    = 250_000 // subjects followed
	MaxValues   = 10_000  // values of one field of one term (a concept scheme with more top concepts keeps these)
	MaxText     = 16 << 10
	MaxShapeRef = 100_000 // blank-node statements kept for SHACL property shapes and agents
)

type subject struct {
	types []string
	text  map[string][]Text
	links map[string][]string
	dep   bool
	stat  string
	props []rdf.Term // sh:property values
	misc  map[string][]rdf.Term
}

// Collector gathers the statements the documentation needs, one at a time (it takes the pipeline's stream, so
// the graph is never held whole). Not safe for concurrent use.
type Collector struct {
	subjects  map[string]*subject // IRIs
	blanks    map[string]*subject // blank nodes: SHACL property shapes, agents
	nBlank    int
	truncated bool
	// Statements come grouped by subject and with few predicates (a decoder shares one string per predicate, so
	// the comparisons below are mostly of equal pointers): the last subject and the recent predicates' roles save
	// the map lookups that were most of the collector's work on a large data set.
	lastKey string
	lastBlk bool
	last    *subject
	roles   [64]predRole
}

// predRole is what Add does with a predicate's statements.
type predRole struct {
	p    string
	kind uint8
	key  string // the text or link field
}

const (
	roleUnset uint8 = iota // an empty slot of the cache
	roleNone               // nothing to collect
	roleType
	roleText
	roleLink
	roleDeprecated
	roleStatus
	roleShapeProp
	roleMisc
)

// role classifies p, through a small cache of the predicates seen last.
func (c *Collector) role(p string) *predRole {
	h := len(p)
	if h > 0 {
		h += int(p[h-1]) + int(p[h/2])<<1
	}
	r := &c.roles[h%len(c.roles)]
	if r.kind != roleUnset && r.p == p {
		return r
	}
	*r = predRole{p: p, kind: roleNone}
	switch {
	case p == rdf.RDFType:
		r.kind = roleType
	case textOf[p] != "":
		r.kind, r.key = roleText, textOf[p]
	case linkOf[p] != "":
		r.kind, r.key = roleLink, linkOf[p]
	case p == owlNS+"deprecated":
		r.kind = roleDeprecated
	case p == vsNS+"term_status":
		r.kind = roleStatus
	case p == shNS+"property":
		r.kind = roleShapeProp
	case miscPreds[p]:
		r.kind = roleMisc
	}
	return r
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{subjects: map[string]*subject{}, blanks: map[string]*subject{}}
}

func (c *Collector) subject(t rdf.Term) *subject {
	if c.last != nil && c.lastBlk == t.IsBlank() && c.lastKey == t.Value {
		return c.last
	}
	s := c.lookup(t)
	if s != nil {
		c.last, c.lastKey, c.lastBlk = s, t.Value, t.IsBlank()
	}
	return s
}

func (c *Collector) lookup(t rdf.Term) *subject {
	m := c.subjects
	if t.IsBlank() {
		m = c.blanks
	}
	s := m[t.Value]
	if s != nil {
		return s
	}
	if t.IsBlank() {
		if c.nBlank >= MaxShapeRef {
			c.truncated = true
			return nil
		}
	} else if len(m) >= MaxTerms {
		c.truncated = true
		return nil
	}
	s = &subject{}
	m[t.Value] = s
	if t.IsBlank() {
		c.nBlank++
	}
	return s
}

func clip(s string) string {
	if len(s) > MaxText {
		s = s[:MaxText]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
			s = s[:len(s)-1]
		}
		if len(s) > 0 && s[len(s)-1] >= 0xC0 {
			s = s[:len(s)-1]
		}
		return s + "…"
	}
	return s
}

// Add takes one statement; statements of every graph count.
func (c *Collector) Add(q rdf.Quad) {
	if !q.S.IsIRI() && !q.S.IsBlank() {
		return
	}
	r := c.role(q.P.Value)
	var s *subject
	get := func() *subject {
		if s == nil {
			s = c.subject(q.S)
		}
		return s
	}
	switch r.kind {
	case roleType:
		if q.O.IsIRI() && get() != nil && len(s.types) < MaxValues && !slices.Contains(s.types, q.O.Value) {
			s.types = append(s.types, q.O.Value)
		}
	case roleText:
		if q.O.IsLiteral() && get() != nil {
			k := r.key
			if s.text == nil {
				s.text = map[string][]Text{}
			}
			if len(s.text[k]) < MaxValues {
				s.text[k] = append(s.text[k], Text{Value: clip(q.O.Value), Lang: strings.ToLower(q.O.Lang)})
			}
		}
	case roleLink:
		if q.O.IsIRI() && get() != nil {
			k := r.key
			if s.links == nil {
				s.links = map[string][]string{}
			}
			if len(s.links[k]) < MaxValues {
				s.links[k] = append(s.links[k], q.O.Value)
			}
		}
	case roleDeprecated:
		if q.O.IsLiteral() && (q.O.Value == "true" || q.O.Value == "1") && get() != nil {
			s.dep = true
		}
	case roleStatus:
		if q.O.IsLiteral() && get() != nil {
			s.stat = clip(q.O.Value)
		}
	case roleShapeProp:
		if (q.O.IsBlank() || q.O.IsIRI()) && get() != nil && len(s.props) < MaxValues {
			s.props = append(s.props, q.O)
		}
	case roleMisc:
		p := q.P.Value
		if get() != nil && len(s.misc[p]) < MaxValues {
			if s.misc == nil {
				s.misc = map[string][]rdf.Term{}
			}
			o := q.O
			if o.IsLiteral() {
				o.Value = clip(o.Value)
			}
			s.misc[p] = append(s.misc[p], o)
		}
	}
}

// miscPreds are kept as terms: their values may be IRIs, blank nodes or literals (creators, licences, shapes).
var miscPreds = map[string]bool{
	dctNS + "creator": true, dcNS + "creator": true, dctNS + "contributor": true, dcNS + "contributor": true,
	dctNS + "publisher": true, dcNS + "publisher": true, schemaNS + "creator": true, schemaNS + "author": true,
	foafNS + "maker": true, dctNS + "license": true, dctNS + "rights": true, ccNS + "license": true,
	xhvNS + "license": true, schemaNS + "license": true, vannNS + "preferredNamespacePrefix": true,
	vannNS + "preferredNamespaceUri": true, dctNS + "issued": true, dctNS + "modified": true, dctNS + "created": true,
	shNS + "path": true, shNS + "datatype": true, shNS + "class": true, shNS + "node": true, shNS + "minCount": true,
	shNS + "maxCount": true, "http://www.w3.org/ns/shacl#declare": false,
}

// Read collects every statement of dec.
func Read(dec rdf.Decoder) (*Doc, error) {
	c := NewCollector()
	for {
		q, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		c.Add(q)
	}
	return c.Doc(nil), nil
}

// Doc builds the documentation from what was collected; prefixes are the ones the source declared.
func (c *Collector) Doc(prefixes []rdf.Prefix) *Doc {
	d := &Doc{Prefixes: prefixes, Truncated: c.truncated, Labels: map[string][]Text{}}
	classes := map[string]bool{}
	kinds := map[string][]Kind{}
	for iri, s := range c.subjects {
		var ks []Kind
		isOntology := false
		for _, t := range s.types {
			if k, ok := kindOfType[t]; ok && !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
			if t == owlNS+"Ontology" {
				isOntology = true
			}
			if t == owlNS+"DeprecatedClass" || t == owlNS+"DeprecatedProperty" {
				s.dep = true
			}
		}
		if len(s.links[SubClassOf]) > 0 && !slices.Contains(ks, Class) {
			ks = append(ks, Class)
		}
		if !hasProperty(ks) && (len(s.links[SubPropertyOf]) > 0 || len(s.links[Domain]) > 0 || len(s.links[Range]) > 0) {
			ks = append(ks, Property)
		}
		if hasProperty(ks) && len(ks) > 1 {
			// rdf:Property beside an OWL kind, or owl:FunctionalProperty: the OWL kind says more.
			if i := slices.Index(ks, Property); i >= 0 && slices.ContainsFunc(ks, func(k Kind) bool {
				return k == ObjectProperty || k == DatatypeProperty || k == AnnotationProperty
			}) {
				ks = slices.Delete(ks, i, i+1)
			}
		}
		if !slices.Contains(ks, Concept) && !slices.Contains(ks, ConceptScheme) &&
			(len(s.links[Broader]) > 0 || len(s.links[InScheme]) > 0 || len(s.links[TopConceptOf]) > 0) && len(ks) == 0 {
			ks = append(ks, Concept)
		}
		if isOntology && d.Ontology == nil || isOntology && iri < d.Ontology.IRI {
			d.Ontology = c.header(iri, s)
		}
		if len(ks) > 0 {
			kinds[iri] = ks
			if slices.Contains(ks, Class) {
				classes[iri] = true
			}
		}
	}
	// Individuals: subjects typed with a class the publication defines (beside owl:NamedIndividual).
	for iri, s := range c.subjects {
		if len(kinds[iri]) > 0 {
			continue
		}
		for _, t := range s.types {
			if classes[t] {
				kinds[iri] = []Kind{Individual}
				break
			}
		}
	}
	index := map[string]int{}
	iris := make([]string, 0, len(kinds))
	for iri := range kinds {
		iris = append(iris, iri)
	}
	sort.Strings(iris)
	d.Terms = make([]Term, 0, len(iris))
	for _, iri := range iris {
		s := c.subjects[iri]
		t := Term{IRI: iri, Kinds: kinds[iri], Deprecated: s.dep, Status: s.stat, Text: s.text}
		t.Links = map[string][]string{}
		for k, v := range s.links {
			t.Links[k] = slices.Clone(v)
		}
		for _, ty := range s.types {
			if _, ok := kindOfType[ty]; !ok && ty != owlNS+"Ontology" {
				t.Links[Types] = append(t.Links[Types], ty)
			}
		}
		if slices.Contains(t.Kinds, Shape) {
			for _, p := range s.props {
				t.Props = append(t.Props, c.shapeProperty(p))
			}
		}
		index[iri] = len(d.Terms)
		d.Terms = append(d.Terms, t)
	}
	// Inverse links, and individuals as instances of their classes.
	for i := range d.Terms {
		t := &d.Terms[i]
		for k, inv := range inverses {
			for _, o := range t.Links[k] {
				if j, ok := index[o]; ok && j != i {
					u := &d.Terms[j]
					if len(u.Links[inv]) < MaxValues {
						u.Links[inv] = append(u.Links[inv], t.IRI)
					}
				}
			}
		}
		if slices.Contains(t.Kinds, Individual) {
			for _, ty := range c.subjects[t.IRI].types {
				if j, ok := index[ty]; ok && len(d.Terms[j].Links[Instances]) < MaxValues {
					d.Terms[j].Links[Instances] = append(d.Terms[j].Links[Instances], t.IRI)
				}
			}
		}
	}
	// Deduplicate and sort every link list; labels of linked IRIs that are not terms.
	need := func(iri string) {
		if _, ok := index[iri]; ok {
			return
		}
		if s := c.subjects[iri]; s != nil {
			if l := labelsOf(s); len(l) > 0 {
				d.Labels[iri] = l
			}
		}
	}
	for i := range d.Terms {
		t := &d.Terms[i]
		for k, v := range t.Links {
			slices.Sort(v)
			v = slices.Compact(v)
			if len(v) == 0 {
				delete(t.Links, k)
				continue
			}
			t.Links[k] = v
			for _, o := range v {
				need(o)
			}
		}
		if len(t.Links) == 0 {
			t.Links = nil
		}
		for _, p := range t.Props {
			for _, o := range []string{p.Path, p.Datatype, p.Class, p.Node} {
				if o != "" {
					need(o)
				}
			}
		}
	}
	if h := d.Ontology; h != nil {
		for _, v := range h.Links {
			for _, o := range v {
				need(o)
			}
		}
	}
	if len(d.Labels) == 0 {
		d.Labels = nil
	}
	return d
}

func hasProperty(ks []Kind) bool {
	return slices.ContainsFunc(ks, func(k Kind) bool {
		return k == Property || k == ObjectProperty || k == DatatypeProperty || k == AnnotationProperty
	})
}

// labelsOf are a subject's labels: rdfs:label or skos:prefLabel, else a title or a name.
func labelsOf(s *subject) []Text {
	for _, k := range []string{Label, Title, "name"} {
		if l := s.text[k]; len(l) > 0 {
			return l
		}
	}
	return nil
}

func (c *Collector) header(iri string, s *subject) *Header {
	h := &Header{IRI: iri, Text: map[string][]Text{}, Links: map[string][]string{}}
	for _, k := range []string{Title, Label, Description, Comment, Definition, VersionInfo} {
		if v := s.text[k]; len(v) > 0 {
			h.Text[k] = v
		}
	}
	for _, k := range []string{VersionIRI, PriorVersion, Imports, BackwardCompatOf, IncompatibleWith, SeeAlso} {
		if v := s.links[k]; len(v) > 0 {
			h.Links[k] = v
		}
	}
	agents := func(preds ...string) []Agent {
		var out []Agent
		for _, p := range preds {
			for _, o := range s.misc[p] {
				out = append(out, c.agent(o))
			}
		}
		return out
	}
	h.Creators = agents(dctNS+"creator", dcNS+"creator", schemaNS+"creator", schemaNS+"author", foafNS+"maker")
	h.Contributors = agents(dctNS+"contributor", dcNS+"contributor")
	h.Publishers = agents(dctNS+"publisher", dcNS+"publisher")
	for _, p := range []string{dctNS + "license", ccNS + "license", xhvNS + "license", schemaNS + "license", dctNS + "rights"} {
		for _, o := range s.misc[p] {
			if o.IsIRI() || o.IsLiteral() {
				h.License = append(h.License, o.Value)
			}
		}
	}
	first := func(p string) string {
		for _, o := range s.misc[p] {
			if o.IsLiteral() || o.IsIRI() {
				return o.Value
			}
		}
		return ""
	}
	h.Prefix = first(vannNS + "preferredNamespacePrefix")
	h.Namespace = first(vannNS + "preferredNamespaceUri")
	// An ontology often keeps every modification date it had (ORG states ten): a reader wants the latest, and
	// the first creation or issue. ISO 8601 dates and times of one form order as strings.
	date := func(p string, latest bool) string {
		out := ""
		for _, o := range s.misc[p] {
			if o.IsLiteral() && (out == "" || (o.Value > out) == latest) {
				out = o.Value
			}
		}
		return out
	}
	h.Created = date(dctNS+"created", false)
	h.Issued = date(dctNS+"issued", false)
	h.Modified = date(dctNS+"modified", true)
	return h
}

func (c *Collector) agent(o rdf.Term) Agent {
	switch {
	case o.IsLiteral():
		return Agent{Name: []Text{{Value: o.Value, Lang: strings.ToLower(o.Lang)}}}
	case o.IsIRI():
		a := Agent{IRI: o.Value}
		if s := c.subjects[o.Value]; s != nil {
			a.Name = labelsOf(s)
		}
		return a
	default:
		if s := c.blanks[o.Value]; s != nil {
			return Agent{Name: labelsOf(s)}
		}
		return Agent{}
	}
}

func (c *Collector) shapeProperty(o rdf.Term) ShapeProperty {
	var s *subject
	if o.IsBlank() {
		s = c.blanks[o.Value]
	} else {
		s = c.subjects[o.Value]
	}
	if s == nil {
		return ShapeProperty{Path: o.Value}
	}
	first := func(p string) string {
		for _, v := range s.misc[p] {
			if v.IsIRI() || v.IsLiteral() {
				return v.Value
			}
		}
		return ""
	}
	return ShapeProperty{Path: first(shNS + "path"), Name: s.text[Label], Description: s.text[Description],
		Datatype: first(shNS + "datatype"), Class: first(shNS + "class"), Node: first(shNS + "node"),
		MinCount: first(shNS + "minCount"), MaxCount: first(shNS + "maxCount")}
}

// Encode writes d as JSON.
func (d *Doc) Encode(w io.Writer) error { return json.NewEncoder(w).Encode(d) }

// Decode reads a Doc written by Encode.
func Decode(r io.Reader) (*Doc, error) {
	var d Doc
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

// Empty reports whether d defines nothing worth a documentation section.
func (d *Doc) Empty() bool { return d == nil || d.Ontology == nil && len(d.Terms) == 0 }
