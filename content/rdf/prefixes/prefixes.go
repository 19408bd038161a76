// Package prefixes chooses namespace prefixes for RDF that declares none.
//
// N-Triples and N-Quads carry no prefixes, so Turtle, TriG, RDF/XML or JSON-LD written from them would spell every
// IRI in full. A reader expects what a person would have written: the well-known prefixes of the vocabularies in
// use (rdf:, skos:, dcterms:, …) and one for each namespace that many of the IRIs share (the dataset's own). A
// Counter sees the statements once and Prefixes proposes that set; both `ldhub convert` and the pipeline's dumps of
// N-Triples/N-Quads uploads use it, so that the same data reads the same way everywhere.
package prefixes

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ldhub/ldhub/content/rdf"
)

// WellKnown are the prefixes readers know by heart, by the name the vocabulary itself recommends.
var WellKnown = []rdf.Prefix{
	{Name: "rdf", IRI: rdf.RDFNS},
	{Name: "rdfs", IRI: "http://www.w3.org/2000/01/rdf-schema#"},
	{Name: "owl", IRI: "http://www.w3.org/2002/07/owl#"},
	{Name: "xsd", IRI: rdf.XSDNS},
	{Name: "skos", IRI: "http://www.w3.org/2004/02/skos/core#"},
	{Name: "skosxl", IRI: "http://www.w3.org/2008/05/skos-xl#"},
	{Name: "dcterms", IRI: "http://purl.org/dc/terms/"},
	{Name: "dc", IRI: "http://purl.org/dc/elements/1.1/"},
	{Name: "foaf", IRI: "http://xmlns.com/foaf/0.1/"},
	{Name: "schema", IRI: "https://schema.org/"},
	{Name: "prov", IRI: "http://www.w3.org/ns/prov#"},
	{Name: "dcat", IRI: "http://www.w3.org/ns/dcat#"},
	{Name: "sh", IRI: "http://www.w3.org/ns/shacl#"},
	{Name: "void", IRI: "http://rdfs.org/ns/void#"},
	{Name: "vann", IRI: "http://purl.org/vocab/vann/"},
	{Name: "org", IRI: "http://www.w3.org/ns/org#"},
	{Name: "geo", IRI: "http://www.opengis.net/ont/geosparql#"},
	{Name: "time", IRI: "http://www.w3.org/2006/time#"},
	{Name: "qb", IRI: "http://purl.org/linked-data/cube#"},
}

// Pick returns the well-known prefixes with the given names, in that order, so that a shorter list elsewhere
// (the pages' abbreviations, the dumps' defaults) spells no namespace IRI of its own. An unknown name panics: the
// names are constants in the callers.
func Pick(names ...string) []rdf.Prefix {
	out := make([]rdf.Prefix, 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(WellKnown, func(p rdf.Prefix) bool { return p.Name == n })
		if i < 0 {
			panic("prefixes: no well-known prefix " + n)
		}
		out = append(out, WellKnown[i])
	}
	return out
}

// MinShare is the part of all IRI occurrences a namespace must account for to get a prefix of its own, and
// MinCount the least number of occurrences: a namespace used once or twice reads better in full.
const (
	MinShare = 0.05
	MinCount = 3
	// maxOwn bounds the invented prefixes, so a dataset of a thousand small namespaces does not open with a
	// thousand declarations.
	maxOwn = 8
	// maxNamespaces bounds the Counter's memory: data with more distinct namespaces than this keeps counting only
	// those already seen.
	maxNamespaces = 4096
)

// Counter counts how often each namespace occurs in the IRIs of the statements it is shown.
type Counter struct {
	counts map[string]int
	total  int
}

// NewCounter returns an empty Counter.
func NewCounter() *Counter { return &Counter{counts: map[string]int{}} }

// Add counts the IRIs of q (subject, predicate, object, graph, and literal datatypes outside xsd: and rdf:).
func (c *Counter) Add(q rdf.Quad) {
	c.term(q.S)
	c.term(q.P)
	c.term(q.O)
	c.term(q.G)
}

func (c *Counter) term(t rdf.Term) {
	var iri string
	switch {
	case t.Kind == rdf.KindIRI:
		iri = t.Value
	case t.Kind == rdf.KindLiteral && t.Datatype != "" && !strings.HasPrefix(t.Datatype, rdf.XSDNS) && !strings.HasPrefix(t.Datatype, rdf.RDFNS):
		iri = t.Datatype
	default:
		return
	}
	ns := Namespace(iri)
	if ns == "" {
		return
	}
	c.total++
	if _, ok := c.counts[ns]; ok || len(c.counts) < maxNamespaces {
		c.counts[ns]++
	}
}

// Namespace is iri up to and including its last '#' or '/', where what follows could be a prefixed name's local
// part; "" when there is no such split.
func Namespace(iri string) string {
	i := strings.LastIndexAny(iri, "#/")
	if i < 0 || i == len(iri)-1 || strings.HasSuffix(iri[:i+1], "://") {
		return ""
	}
	local := iri[i+1:]
	for _, r := range local {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.') {
			return ""
		}
	}
	return iri[:i+1]
}

// Prefixes proposes prefixes for what was counted: first those of own (the input's declarations, kept as they
// are), then the well-known prefixes whose namespace occurs, then one invented name for each frequent namespace
// that has none. Names never repeat and every IRI is bound once.
func (c *Counter) Prefixes(own []rdf.Prefix) []rdf.Prefix {
	out := slices.Clone(own)
	names, iris := map[string]bool{}, map[string]bool{}
	for _, p := range own {
		names[p.Name], iris[p.IRI] = true, true
	}
	for _, p := range WellKnown {
		if c.counts[p.IRI] > 0 && !names[p.Name] && !iris[p.IRI] {
			out = append(out, p)
			names[p.Name], iris[p.IRI] = true, true
		}
	}
	type nsCount struct {
		ns string
		n  int
	}
	var frequent []nsCount
	for ns, n := range c.counts {
		if !iris[ns] && n >= MinCount && float64(n) >= MinShare*float64(c.total) {
			frequent = append(frequent, nsCount{ns, n})
		}
	}
	slices.SortFunc(frequent, func(a, b nsCount) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.ns, b.ns)) })
	if len(frequent) > maxOwn {
		frequent = frequent[:maxOwn]
	}
	// Declared in namespace order, so that the output does not depend on which namespace was counted more.
	slices.SortFunc(frequent, func(a, b nsCount) int { return cmp.Compare(a.ns, b.ns) })
	for _, f := range frequent {
		name := nameFor(f.ns, names)
		out = append(out, rdf.Prefix{Name: name, IRI: f.ns})
		names[name], iris[f.ns] = true, true
	}
	return out
}

// nameFor invents a prefix name for ns from its last meaningful path segment (`http://example.org/def/road/` →
// `road`), falling back to `ns`, and numbers it when taken.
func nameFor(ns string, taken map[string]bool) string {
	rest := strings.TrimRight(ns, "#/")
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	segs := strings.FieldsFunc(rest, func(r rune) bool { return r == '/' || r == '#' })
	base := ""
	for i := len(segs) - 1; i >= 0 && base == ""; i-- {
		if i == 0 {
			// The host: its first label that is not www.
			for _, l := range strings.Split(segs[0], ".") {
				if l != "www" {
					base = clean(l)
					break
				}
			}
			continue
		}
		if s := clean(segs[i]); s != "" && !isVersion(s) {
			base = s
		}
	}
	if base == "" {
		base = "ns"
	}
	name := base
	for n := 2; taken[name]; n++ {
		name = base + strconv.Itoa(n)
	}
	return name
}

// clean keeps what a Turtle PN_PREFIX may hold, lower-cased, starting with a letter.
func clean(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', b.Len() > 0 && (r >= '0' && r <= '9' || r == '_' || r == '-'):
			b.WriteRune(r)
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// isVersion tells segments such as "v1", "1.0" or "2024" (after clean: "v1", "", "") that name a release, not a
// vocabulary.
func isVersion(s string) bool {
	return len(s) >= 2 && s[0] == 'v' && strings.Trim(s[1:], "0123456789") == ""
}
