package jsonld

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// This file turns expanded JSON-LD into quads (JSON-LD 1.1 API §8.1–8.3). The algorithm in the specification
// first builds a node map of the whole document; the triples it then produces are the same as those of a walk
// over the expanded tree, which is what this does, so that a document can be converted one top-level node at a
// time. The only difference is that a statement made twice in the document is emitted twice.

const i18nNS = "https://www.w3.org/ns/i18n#"

type emitter struct {
	blanks      blankMap
	generalized bool
	direction   string
	out         []rdf.Quad
}

// blankMap maps a document's blank-node labels to labels of the decoder's allocator, fresh per document: the
// same label in two documents decoded with one allocator names two nodes.
type blankMap struct {
	alloc  *rdf.BlankNodes
	labels map[string]string
}

func (m blankMap) label(source string) string {
	l, ok := m.labels[source]
	if !ok {
		l = m.alloc.Fresh()
		m.labels[source] = l
	}
	return l
}

// resource returns the term for a node identifier, or false when it is neither a blank node identifier nor a
// well-formed absolute IRI (such identifiers are dropped, §8.2).
func (e *emitter) resource(id string) (rdf.Term, bool) {
	if l, ok := strings.CutPrefix(id, "_:"); ok {
		return rdf.Blank(e.blanks.label(l)), true
	}
	if !wellFormedIRI(id) {
		return rdf.Term{}, false
	}
	return rdf.IRI(id), true
}

func wellFormedIRI(s string) bool {
	if !iri.IsAbsolute(s) || strings.Count(s, "#") > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<', '>', '"', '{', '}', '|', '^', '`', '\\', ' ':
			return false
		default:
			if c < 0x20 {
				return false
			}
		}
	}
	return true
}

func (e *emitter) emit(s, p, o, g rdf.Term, gok bool) {
	if gok {
		e.out = append(e.out, rdf.Quad{S: s, P: p, O: o, G: g})
	}
}

// items emits the node objects of an expanded document or @graph.
func (e *emitter) items(v any, g rdf.Term, gok bool) {
	for _, it := range asArray(v) {
		if m, ok := it.(map[string]any); ok && !isValueObject(m) && !isListObject(m) {
			e.node(m, g, gok)
		}
	}
}

// node emits the statements of a node object in graph g (gok is false in a graph whose name is not well-formed,
// whose statements are all dropped) and returns its term.
func (e *emitter) node(n map[string]any, g rdf.Term, gok bool) (rdf.Term, bool) {
	var s rdf.Term
	sok := true
	if id, ok := n["@id"]; ok {
		ids, _ := id.(string)
		s, sok = e.resource(ids)
	} else {
		s = rdf.Blank(e.blanks.alloc.Fresh())
	}
	if types, ok := n["@type"]; ok && sok {
		for _, t := range asArray(types) {
			ts, _ := t.(string)
			if o, ok := e.resource(ts); ok {
				e.emit(s, rdf.IRI(rdf.RDFType), o, g, gok)
			}
		}
	}
	for k, v := range n {
		switch k {
		case "@graph":
			e.items(v, s, gok && sok)
		case "@included":
			e.items(v, g, gok)
		case "@reverse":
			rm, _ := v.(map[string]any)
			for prop, vals := range rm {
				pt, pok := e.predicate(prop)
				for _, it := range asArray(vals) {
					m, ok := it.(map[string]any)
					if !ok {
						continue
					}
					o, ook := e.node(m, g, gok)
					if pok && ook && sok {
						e.emit(o, pt, s, g, gok)
					}
				}
			}
		default:
			if k[0] == '@' {
				continue
			}
			pt, pok := e.predicate(k)
			for _, it := range asArray(v) {
				o, ook := e.object(it, g, gok)
				if pok && ook && sok {
					e.emit(s, pt, o, g, gok)
				}
			}
		}
	}
	return s, sok
}

func (e *emitter) predicate(p string) (rdf.Term, bool) {
	t, ok := e.resource(p)
	if ok && t.IsBlank() && !e.generalized {
		return t, false
	}
	return t, ok
}

// object is Object to RDF (§8.3) and List to RDF (§8.4): nested node objects and list nodes emit their own
// statements.
func (e *emitter) object(v any, g rdf.Term, gok bool) (rdf.Term, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return rdf.Term{}, false
	}
	if val, ok := m["@value"]; ok {
		return e.literal(m, val, g, gok)
	}
	if list, ok := m["@list"]; ok {
		items := asArray(list)
		if len(items) == 0 {
			return rdf.IRI(rdf.RDFNil), true
		}
		head := rdf.Blank(e.blanks.alloc.Fresh())
		cur := head
		first, rest := rdf.IRI(rdf.RDFFirst), rdf.IRI(rdf.RDFRest)
		for i, it := range items {
			if o, ok := e.object(it, g, gok); ok {
				e.emit(cur, first, o, g, gok)
			}
			next := rdf.IRI(rdf.RDFNil)
			if i < len(items)-1 {
				next = rdf.Blank(e.blanks.alloc.Fresh())
			}
			e.emit(cur, rest, next, g, gok)
			cur = next
		}
		return head, true
	}
	return e.node(m, g, gok)
}

func (e *emitter) literal(m map[string]any, val any, g rdf.Term, gok bool) (rdf.Term, bool) {
	dt, _ := m["@type"].(string)
	if dt == "@json" {
		return rdf.Literal(canonicalJSON(val), rdf.RDFJSON), true
	}
	if dt != "" && !wellFormedIRI(dt) {
		return rdf.Term{}, false
	}
	lang, hasLang := m["@language"].(string)
	if hasLang && !wellFormedLang(lang) {
		return rdf.Term{}, false
	}
	var lex string
	switch v := val.(type) {
	case bool:
		lex = strconv.FormatBool(v)
		if dt == "" {
			dt = rdf.XSDBoolean
		}
	case float64:
		if v != math.Trunc(v) || math.Abs(v) >= 1e21 || dt == rdf.XSDDouble {
			lex = canonicalDouble(v)
			if dt == "" {
				dt = rdf.XSDDouble
			}
		} else {
			lex = strconv.FormatFloat(v, 'f', 0, 64)
			if lex == "-0" {
				lex = "0"
			}
			if dt == "" {
				dt = rdf.XSDInteger
			}
		}
	case string:
		lex = v
	default:
		return rdf.Term{}, false
	}
	dir, _ := m["@direction"].(string)
	if dir != "" && dt == "" {
		switch e.direction {
		case DirectionI18nDatatype:
			return rdf.Literal(lex, i18nNS+strings.ToLower(lang)+"_"+dir), true
		case DirectionCompoundLiteral:
			b := rdf.Blank(e.blanks.alloc.Fresh())
			e.emit(b, rdf.IRI(rdf.RDFNS+"value"), rdf.String(lex), g, gok)
			if hasLang {
				e.emit(b, rdf.IRI(rdf.RDFNS+"language"), rdf.String(strings.ToLower(lang)), g, gok)
			}
			e.emit(b, rdf.IRI(rdf.RDFNS+"direction"), rdf.String(dir), g, gok)
			return b, true
		}
	}
	switch {
	case dt != "":
		return rdf.Literal(lex, dt), true
	case hasLang:
		return rdf.LangString(lex, lang), true
	}
	return rdf.String(lex), true
}

// wellFormedLang checks the shape of a BCP 47 tag: subtags of 1–8 letters or digits, the first letters only.
func wellFormedLang(s string) bool {
	for i, sub := range strings.Split(s, "-") {
		if len(sub) == 0 || len(sub) > 8 {
			return false
		}
		for j := 0; j < len(sub); j++ {
			c := sub[j] | 0x20
			if !(c >= 'a' && c <= 'z' || i > 0 && sub[j] >= '0' && sub[j] <= '9') {
				return false
			}
		}
	}
	return true
}

// canonicalDouble is the canonical lexical form of an xsd:double: a mantissa with one digit before the point and
// at least one after, and an exponent without sign or leading zeros ("1.5E0", "1.0E21", "-2.5E-3").
func canonicalDouble(v float64) string {
	s := strconv.FormatFloat(v, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
	if exp == "" {
		exp = "0"
	}
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// canonicalJSON serializes a JSON value as RFC 8785 (JCS) does, which JSON-LD uses for rdf:JSON literals.
func canonicalJSON(v any) string {
	var b strings.Builder
	writeJCS(&b, v)
	return b.String()
}

func writeJCS(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		b.WriteString(esNumber(x))
	case string:
		writeJCSString(b, x)
	case []any:
		b.WriteByte('[')
		for i, it := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJCS(b, it)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		// JCS orders keys by their UTF-16 code units.
		sort.Slice(keys, func(i, j int) bool { return utf16Less(keys[i], keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJCSString(b, k)
			b.WriteByte(':')
			writeJCS(b, x[k])
		}
		b.WriteByte('}')
	}
}

func utf16Less(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func writeJCSString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&15])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// esNumber formats a number as ECMAScript's Number.prototype.toString does (JCS §3.2.2.3).
func esNumber(v float64) string {
	if v == 0 {
		return "0"
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	n, k := e+1, len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ae := n - 1
	if ae < 0 {
		ae = -ae
	}
	if k == 1 {
		return sign + digits + "e" + es + strconv.Itoa(ae)
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + strconv.Itoa(ae)
}
