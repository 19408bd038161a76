package jsonld

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ldhub/ldhub/content/rdf/iri"
)

// This file is context processing, JSON-LD 1.1 API §4.1–4.2, and IRI expansion, §5.2.

// Container kinds of a term definition, as bits.
const (
	cList uint8 = 1 << iota
	cSet
	cIndex
	cLanguage
	cGraph
	cID
	cType
)

var containerBits = map[string]uint8{"@list": cList, "@set": cSet, "@index": cIndex, "@language": cLanguage,
	"@graph": cGraph, "@id": cID, "@type": cType}

// termDef is a term definition. A nil *string language or direction means the term does not set one (the
// context default applies); a pointer to "" means it sets none (null).
type termDef struct {
	iri       string // "" when the term is defined as null (it expands to nothing)
	prefix    bool
	protected bool
	reverse   bool
	typ       string // type mapping: an IRI, @id, @vocab, @json, @none, or ""
	lang      *string
	dir       *string
	container uint8
	index     string
	nest      string
	// A scoped context (hasContext), and the base URL it resolves against.
	context    any
	hasContext bool
	base       string
}

// sameAs compares definitions apart from protection, for protected term redefinition.
func (d *termDef) sameAs(e *termDef) bool {
	return d.iri == e.iri && d.prefix == e.prefix && d.reverse == e.reverse && d.typ == e.typ &&
		eqPtr(d.lang, e.lang) && eqPtr(d.dir, e.dir) && d.container == e.container && d.index == e.index &&
		d.nest == e.nest && d.hasContext == e.hasContext && (!d.hasContext || reflect.DeepEqual(d.context, e.context))
}

func eqPtr(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// activeContext is immutable once built: processing a context copies it, so contexts can be shared and memoised.
type activeContext struct {
	base         string // "" is no base (relative IRIs stay as they are)
	originalBase string
	vocab        string
	hasVocab     bool
	lang         string
	dir          string
	terms        map[string]*termDef
	previous     *activeContext // the context before a non-propagated (type-scoped) one

	inv *inverseContext // built on first use by compaction
}

func (c *activeContext) clone() *activeContext {
	n := *c
	n.terms = maps.Clone(c.terms)
	n.inv = nil
	return &n
}

func (c *activeContext) protectedTerms() bool {
	for _, d := range c.terms {
		if d.protected {
			return true
		}
	}
	return false
}

func newActiveContext(base string) *activeContext {
	return &activeContext{base: base, originalBase: base, terms: map[string]*termDef{}}
}

var keywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields("@base @container @context @default @direction @embed @explicit @first @graph " +
		"@id @import @included @index @json @language @list @nest @none @omitDefault @prefix @preserve @propagate " +
		"@protected @requireAll @reverse @set @type @value @version @vocab") {
		keywords[k] = true
	}
}

func isKeyword(s string) bool { return len(s) > 1 && s[0] == '@' && keywords[s] }

// keywordLike reports whether s has the form of a keyword: '@' and one or more ASCII letters.
func keywordLike(s string) bool {
	if len(s) < 2 || s[0] != '@' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// memoKey identifies one application of a context that is the same every time: a term's scoped context or a
// remote context by URL, applied to a given active context.
type memoKey struct {
	active *activeContext
	def    *termDef
	url    string
	flags  uint8
}

const (
	fOverride uint8 = 1 << iota
	fNoPropagate
	fNoValidate
)

// processContext is the Context Processing Algorithm (§4.1.2).
func (p *processor) processContext(active *activeContext, local any, base string, remote []string, override, propagate, validate bool) (*activeContext, error) {
	if m, ok := local.(map[string]any); ok {
		if v, ok := m["@propagate"]; ok {
			b, isBool := v.(bool)
			if !isBool {
				return nil, p.fail("invalid @propagate value", "@propagate must be true or false")
			}
			propagate = b
		}
	}
	result := active.clone()
	if !propagate && result.previous == nil {
		result.previous = active
	}
	list, isList := local.([]any)
	if !isList {
		list = []any{local}
	}
	for i, ctx := range list {
		if isList {
			p.push(itoa(i))
		}
		var err error
		result, err = p.processOneContext(active, result, ctx, base, remote, override, propagate, validate)
		if isList {
			p.pop()
		}
		if err != nil {
			return nil, err
		}
	}
	return result, nil
}

func (p *processor) processOneContext(active, result *activeContext, ctx any, base string, remote []string, override, propagate, validate bool) (*activeContext, error) {
	switch c := ctx.(type) {
	case nil:
		if !override && result.protectedTerms() {
			return nil, p.fail("invalid context nullification", "a context with protected terms cannot be nulled")
		}
		prev := result
		result = newActiveContext(active.originalBase)
		if !propagate {
			result.previous = prev
		}
		return result, nil
	case string:
		return p.remoteContext(result, c, base, remote, validate)
	case map[string]any:
		if _, ok := c["@propagate"]; ok && !p.mode10 {
			if _, isBool := c["@propagate"].(bool); !isBool {
				return nil, p.failAt("@propagate", "invalid @propagate value", "@propagate must be true or false")
			}
		}
		return p.localContext(result, c, base, remote, override, validate)
	}
	return nil, p.fail("invalid local context", "a context is an object, a string or null")
}

func (p *processor) remoteContext(result *activeContext, ref, base string, remote []string, validate bool) (*activeContext, error) {
	url, err := iri.Resolve(base, ref)
	if err != nil {
		url = ref
	}
	if slices.Contains(remote, url) {
		if !validate {
			return result, nil
		}
		return nil, p.fail("recursive context inclusion", "%s includes itself", url)
	}
	if len(remote) >= p.maxLoads {
		return nil, p.fail("context overflow", "more than %d nested remote contexts", p.maxLoads)
	}
	key := memoKey{active: result, url: url}
	if !validate {
		key.flags |= fNoValidate
	}
	if r, ok := p.memo[key]; ok {
		return r, nil
	}
	doc, err := p.load(url, "loading remote context failed")
	if err != nil {
		return nil, err
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, p.fail("invalid remote context", "%s is not a JSON object", url)
	}
	ctx, ok := m["@context"]
	if !ok {
		return nil, p.fail("invalid remote context", "%s has no @context", url)
	}
	// Errors inside a remote context are reported at the reference.
	p.frozen++
	r, err := p.processContext(result, ctx, url, append(slices.Clip(remote), url), false, true, validate)
	p.frozen--
	if err != nil {
		return nil, err
	}
	p.memo[key] = r
	return r, nil
}

// load fetches and parses a remote document through the configured loader, once per URL.
func (p *processor) load(url, code string) (any, error) {
	if doc, ok := p.docs[url]; ok {
		return doc, nil
	}
	if err := p.ctx.Err(); err != nil {
		return nil, p.fail(code, "%v", err)
	}
	if len(p.docs) >= p.maxLoads {
		return nil, p.fail(code, "%s: more than %d remote documents", url, p.maxLoads)
	}
	b, err := p.loader.Load(p.ctx, url)
	if err != nil {
		return nil, p.fail(code, "%v", err)
	}
	doc, err := parseJSON(b, p.limits)
	if err != nil {
		return nil, p.fail(code, "%s: %v", url, err)
	}
	p.docs[url] = doc
	return doc, nil
}

func (p *processor) localContext(result *activeContext, c map[string]any, base string, remote []string, override, validate bool) (*activeContext, error) {
	if v, ok := c["@version"]; ok {
		p.push("@version")
		if f, isNum := v.(float64); !isNum || f != 1.1 {
			return nil, p.failPop("invalid @version value", "@version must be 1.1")
		}
		if p.mode10 {
			return nil, p.failPop("processing mode conflict", "@version 1.1 in json-ld-1.0 mode")
		}
		p.pop()
	}
	if v, ok := c["@import"]; ok {
		if p.mode10 {
			return nil, p.failAt("@import", "invalid context entry", "@import is JSON-LD 1.1")
		}
		s, isStr := v.(string)
		if !isStr {
			return nil, p.failAt("@import", "invalid @import value", "@import must be a string")
		}
		url, err := iri.Resolve(base, s)
		if err != nil {
			url = s
		}
		doc, err := p.load(url, "loading remote context failed")
		if err != nil {
			return nil, err
		}
		dm, _ := doc.(map[string]any)
		imported, ok := dm["@context"].(map[string]any)
		if !ok {
			return nil, p.failAt("@import", "invalid remote context", "%s has no @context object", url)
		}
		if _, ok := imported["@import"]; ok {
			return nil, p.failAt("@import", "invalid context entry", "an imported context cannot @import")
		}
		merged := maps.Clone(imported)
		for k, v := range c {
			merged[k] = v
		}
		delete(merged, "@import")
		c = merged
	}
	if v, ok := c["@base"]; ok && len(remote) == 0 {
		switch b := v.(type) {
		case nil:
			result.base = ""
		case string:
			switch {
			case iri.IsAbsolute(b):
				result.base = b
			case result.base != "":
				r, err := iri.Resolve(result.base, b)
				if err != nil {
					return nil, p.failAt("@base", "invalid base IRI", "%q", b)
				}
				result.base = r
			default:
				return nil, p.failAt("@base", "invalid base IRI", "relative @base %q without a base", b)
			}
		default:
			return nil, p.failAt("@base", "invalid base IRI", "@base must be a string or null")
		}
	}
	if v, ok := c["@vocab"]; ok {
		switch s := v.(type) {
		case nil:
			result.vocab, result.hasVocab = "", false
		case string:
			x, ok, err := p.expandIRI(result, s, true, true, nil)
			if err != nil {
				return nil, err
			}
			if !ok || !strings.Contains(x, ":") || p.mode10 && !iri.IsAbsolute(s) && !strings.HasPrefix(s, "_:") {
				p.push("@vocab")
				return nil, p.failPop("invalid vocab mapping", "%q is not an IRI", s)
			}
			result.vocab, result.hasVocab = x, true
		default:
			p.push("@vocab")
			return nil, p.failPop("invalid vocab mapping", "@vocab must be a string or null")
		}
	}
	if v, ok := c["@language"]; ok {
		switch s := v.(type) {
		case nil:
			result.lang = ""
		case string:
			result.lang = strings.ToLower(s)
		default:
			p.push("@language")
			return nil, p.failPop("invalid default language", "@language must be a string or null")
		}
	}
	if v, ok := c["@direction"]; ok {
		if p.mode10 {
			return nil, p.failAt("@direction", "invalid context entry", "@direction is JSON-LD 1.1")
		}
		switch v {
		case nil:
			result.dir = ""
		case "ltr", "rtl":
			result.dir = v.(string)
		default:
			return nil, p.failAt("@direction", "invalid base direction", "@direction must be \"ltr\", \"rtl\" or null")
		}
	}
	if _, ok := c["@propagate"]; ok && p.mode10 {
		return nil, p.failAt("@propagate", "invalid context entry", "@propagate is JSON-LD 1.1")
	}
	sc := &defScope{local: c, defined: map[string]bool{}, base: base, override: override, remote: remote, validate: validate}
	sc.protected, _ = c["@protected"].(bool)
	if v, ok := c["@protected"]; ok {
		if _, isBool := v.(bool); !isBool {
			return nil, p.failAt("@protected", "invalid @protected value", "@protected must be true or false")
		}
	}
	for _, k := range sortedKeys(c) {
		switch k {
		case "@base", "@direction", "@import", "@language", "@propagate", "@protected", "@version", "@vocab":
			continue
		}
		if err := p.createTermDef(result, sc, k); err != nil {
			return nil, err
		}
	}
	return result, nil
}

// createTermDef is the Create Term Definition algorithm (§4.2.2).
func (p *processor) createTermDef(active *activeContext, sc *defScope, term string) error {
	local, defined := sc.local, sc.defined
	if done, ok := defined[term]; ok {
		if done {
			return nil
		}
		return p.fail("cyclic IRI mapping", "term %q", term)
	}
	// Errors are reported at the term's entry of the context that defines it.
	saved := p.path
	if p.frozen == 0 && len(p.path) > 0 && p.path[len(p.path)-1] != term {
		p.path = append(slices.Clip(p.path), term)
	}
	defer func() { p.path = saved }()

	if term == "" {
		return p.fail("invalid term definition", "the empty string is not a term")
	}
	defined[term] = false
	p.defs++
	if p.defs > p.maxDefs {
		return p.fail("context overflow", "more than %d term definitions", p.maxDefs)
	}
	value := local[term]
	if term == "@type" && !p.mode10 {
		if m, ok := value.(map[string]any); ok && len(m) > 0 {
			okType := true
			for k, v := range m {
				switch {
				case k == "@container" && v == "@set":
				case k == "@protected":
				default:
					okType = false
				}
			}
			if !okType {
				return p.fail("keyword redefinition", "@type may only be given @container @set and @protected")
			}
		} else {
			return p.fail("keyword redefinition", "%s cannot be redefined", term)
		}
	} else if isKeyword(term) {
		return p.fail("keyword redefinition", "%s cannot be redefined", term)
	} else if keywordLike(term) {
		defined[term] = true
		return nil
	}
	previous := active.terms[term]
	delete(active.terms, term)

	var m map[string]any
	simple := false
	switch v := value.(type) {
	case nil:
		m = map[string]any{"@id": nil}
	case string:
		m = map[string]any{"@id": v}
		simple = true
	case map[string]any:
		m = v
	default:
		return p.fail("invalid term definition", "term %q: a definition is a string, an object or null", term)
	}
	def := &termDef{protected: sc.protected}
	if v, ok := m["@protected"]; ok {
		if p.mode10 {
			return p.fail("invalid term definition", "@protected is JSON-LD 1.1")
		}
		b, isBool := v.(bool)
		if !isBool {
			return p.fail("invalid @protected value", "@protected must be true or false")
		}
		def.protected = b
	}
	if v, ok := m["@type"]; ok {
		s, isStr := v.(string)
		if !isStr {
			return p.fail("invalid type mapping", "@type must be a string")
		}
		t, ok, err := p.expandIRI(active, s, false, true, sc)
		if err != nil {
			return err
		}
		switch {
		case !ok:
			return p.fail("invalid type mapping", "%q", s)
		case (t == "@json" || t == "@none") && p.mode10:
			return p.fail("invalid type mapping", "%s is JSON-LD 1.1", t)
		case t == "@id" || t == "@json" || t == "@none" || t == "@vocab":
		case isKeyword(t) || !iri.IsAbsolute(t):
			return p.fail("invalid type mapping", "%q is not an IRI", s)
		}
		def.typ = t
	}
	if v, ok := m["@reverse"]; ok {
		if _, has := m["@id"]; has {
			return p.fail("invalid reverse property", "@reverse with @id")
		}
		if _, has := m["@nest"]; has {
			return p.fail("invalid reverse property", "@reverse with @nest")
		}
		s, isStr := v.(string)
		if !isStr {
			return p.fail("invalid IRI mapping", "@reverse must be a string")
		}
		if keywordLike(s) {
			defined[term] = true
			return nil
		}
		x, ok, err := p.expandIRI(active, s, false, true, sc)
		if err != nil {
			return err
		}
		if !ok || !strings.Contains(x, ":") {
			return p.fail("invalid IRI mapping", "%q is not an IRI", s)
		}
		def.iri = x
		if c, has := m["@container"]; has {
			switch c {
			case nil:
			case "@set":
				def.container = cSet
			case "@index":
				def.container = cIndex
			default:
				return p.fail("invalid reverse property", "a reverse property's container is @set or @index")
			}
		}
		if err := p.indexMapping(active, sc, m, def); err != nil {
			return err
		}
		def.reverse = true
		active.terms[term] = def
		defined[term] = true
		return nil
	}
	idValue, hasID := m["@id"]
	switch {
	case hasID && idValue != term:
		if idValue != nil {
			s, isStr := idValue.(string)
			if !isStr {
				return p.fail("invalid IRI mapping", "@id must be a string")
			}
			if !isKeyword(s) && keywordLike(s) {
				defined[term] = true
				return nil
			}
			x, ok, err := p.expandIRI(active, s, false, true, sc)
			if err != nil {
				return err
			}
			if !ok || !isKeyword(x) && !strings.Contains(x, ":") {
				return p.fail("invalid IRI mapping", "%q is not an IRI", s)
			}
			if x == "@context" {
				return p.fail("invalid keyword alias", "@context cannot be aliased")
			}
			def.iri = x
			if !p.mode10 && (strings.Contains(strings.TrimSuffix(term[1:], ":"), ":") || strings.Contains(term, "/")) {
				defined[term] = true
				y, ok, err := p.expandIRI(active, term, false, true, sc)
				if err != nil {
					return err
				}
				if !ok || y != x {
					return p.fail("invalid IRI mapping", "term %q looks like an IRI other than its mapping", term)
				}
			}
			if !strings.ContainsAny(term, ":/") && simple &&
				(strings.ContainsAny(x[len(x)-1:], ":/?#[]@") || strings.HasPrefix(x, "_:")) {
				def.prefix = true
			}
		}
	case strings.Contains(term[1:], ":"):
		prefix, suffix, _ := strings.Cut(term, ":")
		if _, ok := local[prefix]; ok && !strings.HasPrefix(suffix, "//") {
			if err := p.createTermDef(active, sc, prefix); err != nil {
				return err
			}
		}
		if pd, ok := active.terms[prefix]; ok && pd.iri != "" {
			def.iri = pd.iri + suffix
		} else {
			def.iri = term
		}
	case strings.Contains(term, "/"):
		x, ok, err := p.expandIRI(active, term, false, true, nil)
		if err != nil {
			return err
		}
		if !ok || !iri.IsAbsolute(x) {
			return p.fail("invalid IRI mapping", "%q is not an IRI", term)
		}
		def.iri = x
	case term == "@type":
		def.iri = "@type"
	case active.hasVocab:
		def.iri = active.vocab + term
	default:
		return p.fail("invalid IRI mapping", "term %q has no IRI and there is no @vocab", term)
	}
	if v, ok := m["@container"]; ok {
		c, err := p.container(v)
		if err != nil {
			return err
		}
		def.container = c
		if c&cType != 0 {
			if def.typ == "" {
				def.typ = "@id"
			}
			if def.typ != "@id" && def.typ != "@vocab" {
				return p.fail("invalid type mapping", "a type map's terms are @id or @vocab")
			}
		}
	}
	if err := p.indexMapping(active, sc, m, def); err != nil {
		return err
	}
	if v, ok := m["@context"]; ok {
		if p.mode10 {
			return p.fail("invalid term definition", "scoped contexts are JSON-LD 1.1")
		}
		p.frozen++
		_, err := p.processContext(active, v, sc.base, slices.Clone(sc.remote), true, true, false)
		p.frozen--
		if err != nil {
			if pe, ok := err.(*procError); ok && pe.code == "context overflow" {
				return err
			}
			return p.fail("invalid scoped context", "term %q: %v", term, err)
		}
		def.context, def.hasContext, def.base = v, true, sc.base
	}
	if v, ok := m["@language"]; ok {
		if _, typed := m["@type"]; !typed {
			switch s := v.(type) {
			case nil:
				def.lang = new(string)
			case string:
				l := strings.ToLower(s)
				def.lang = &l
			default:
				return p.fail("invalid language mapping", "@language must be a string or null")
			}
		}
	}
	if v, ok := m["@direction"]; ok {
		if _, typed := m["@type"]; !typed {
			switch v {
			case nil:
				def.dir = new(string)
			case "ltr", "rtl":
				d := v.(string)
				def.dir = &d
			default:
				return p.fail("invalid base direction", "@direction must be \"ltr\", \"rtl\" or null")
			}
		}
	}
	if v, ok := m["@nest"]; ok {
		if p.mode10 {
			return p.fail("invalid term definition", "@nest is JSON-LD 1.1")
		}
		s, isStr := v.(string)
		if !isStr || isKeyword(s) && s != "@nest" {
			return p.fail("invalid @nest value", "@nest must be @nest or a term")
		}
		def.nest = s
	}
	if v, ok := m["@prefix"]; ok {
		if p.mode10 || strings.ContainsAny(term, ":/") {
			return p.fail("invalid term definition", "@prefix on a term that is not simple")
		}
		b, isBool := v.(bool)
		if !isBool {
			return p.fail("invalid @prefix value", "@prefix must be true or false")
		}
		def.prefix = b
		if b && isKeyword(def.iri) {
			return p.fail("invalid term definition", "a keyword alias cannot be a prefix")
		}
	}
	for k := range m {
		switch k {
		case "@id", "@reverse", "@container", "@context", "@direction", "@index", "@language", "@nest", "@prefix", "@protected", "@type":
		default:
			return p.fail("invalid term definition", "term %q: unknown entry %s", term, k)
		}
	}
	if !sc.override && previous != nil && previous.protected {
		if !def.sameAs(previous) {
			return p.fail("protected term redefinition", "term %q is protected", term)
		}
		def = previous
	}
	active.terms[term] = def
	defined[term] = true
	return nil
}

// indexMapping sets a term's @index (the property an index map indexes by).
func (p *processor) indexMapping(active *activeContext, sc *defScope, m map[string]any, def *termDef) error {
	if v, ok := m["@index"]; ok {
		if p.mode10 || def.container&cIndex == 0 {
			return p.fail("invalid term definition", "@index without an @index container")
		}
		s, isStr := v.(string)
		if !isStr {
			return p.fail("invalid term definition", "@index must be a string")
		}
		x, ok, err := p.expandIRI(active, s, false, true, sc)
		if err != nil {
			return err
		}
		if !ok || isKeyword(x) || !strings.Contains(x, ":") {
			return p.fail("invalid term definition", "@index %q is not an IRI", s)
		}
		def.index = s
	}
	return nil
}

func (p *processor) container(v any) (uint8, error) {
	bad := func() (uint8, error) { return 0, p.fail("invalid container mapping", "%v", v) }
	var items []any
	switch c := v.(type) {
	case string:
		items = []any{c}
	case []any:
		if p.mode10 {
			return bad()
		}
		items = c
	default:
		return bad()
	}
	var bits uint8
	for _, it := range items {
		s, _ := it.(string)
		b, ok := containerBits[s]
		if !ok || bits&b != 0 {
			return bad()
		}
		bits |= b
	}
	if p.mode10 && bits&(cGraph|cID|cType) != 0 {
		return bad()
	}
	switch rest := bits &^ cSet; {
	case bits == 0:
		return bad()
	case rest&cList != 0:
		if bits != cList {
			return bad()
		}
	case rest&cGraph != 0:
		if rest&^cGraph != 0 && rest&^cGraph != cID && rest&^cGraph != cIndex {
			return bad()
		}
	default:
		if rest&(rest-1) != 0 {
			return bad()
		}
	}
	return bits, nil
}

// expandIRI is IRI Expansion (§5.2.2). ok is false when the value expands to null.
func (p *processor) expandIRI(active *activeContext, value string, docRelative, vocab bool, sc *defScope) (string, bool, error) {
	if isKeyword(value) {
		return value, true, nil
	}
	if keywordLike(value) {
		return "", false, nil
	}
	if sc != nil {
		if _, ok := sc.local[value]; ok && !sc.defined[value] {
			if err := p.createTermDef(active, sc, value); err != nil {
				return "", false, err
			}
		}
	}
	if d, ok := active.terms[value]; ok {
		if isKeyword(d.iri) {
			return d.iri, true, nil
		}
		if vocab {
			return d.iri, d.iri != "", nil
		}
	}
	if i := strings.IndexByte(value, ':'); i > 0 {
		prefix, suffix := value[:i], value[i+1:]
		if prefix == "_" || strings.HasPrefix(suffix, "//") {
			return value, true, nil
		}
		if sc != nil {
			if _, ok := sc.local[prefix]; ok && !sc.defined[prefix] {
				if err := p.createTermDef(active, sc, prefix); err != nil {
					return "", false, err
				}
			}
		}
		if d, ok := active.terms[prefix]; ok && d.iri != "" && (d.prefix || p.mode10) {
			return d.iri + suffix, true, nil
		}
		if iri.IsAbsolute(value) {
			return value, true, nil
		}
	}
	if vocab && active.hasVocab {
		return active.vocab + value, true, nil
	}
	if docRelative && active.base != "" {
		if r, err := iri.Resolve(active.base, value); err == nil {
			return r, true, nil
		}
	}
	return value, true, nil
}

// defScope is what Create Term Definition needs of the local context being processed.
type defScope struct {
	local     map[string]any
	defined   map[string]bool
	base      string
	protected bool
	override  bool
	remote    []string
	validate  bool
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// processor holds the state of one run over one document: its options, its remote documents, memoised scoped
// contexts and the budget of context work, and the path of the value being processed (for error positions).
type processor struct {
	ctx      context.Context
	loader   Loader
	limits   parseLimits
	maxLoads int
	maxDefs  int
	defs     int
	mode10   bool
	docs     map[string]any
	memo     map[memoKey]*activeContext

	path   []string
	frozen int
}

func (p *processor) push(tok string) {
	if p.frozen == 0 {
		p.path = append(p.path, tok)
	}
}

func (p *processor) pop() {
	if p.frozen == 0 {
		p.path = p.path[:len(p.path)-1]
	}
}

func (p *processor) fail(code, format string, args ...any) *procError {
	e := newError(code, format, args...)
	e.ptr = slices.Clone(p.path)
	e.located = true
	return e
}

// failPop is fail for an error at a key pushed just before.
// failAt is fail for an error at the entry key of the object being processed.
func (p *processor) failAt(key, code, format string, args ...any) *procError {
	p.push(key)
	return p.failPop(code, format, args...)
}

func (p *processor) failPop(code, format string, args ...any) *procError {
	e := p.fail(code, format, args...)
	p.pop()
	return e
}
