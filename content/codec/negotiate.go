package codec

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// mediaRange is one element of an Accept header.
type mediaRange struct {
	typ, sub string
	params   map[string]string // parameters before q, lower-cased names
	q        float64
}

// specificity orders matching ranges (RFC 9110 §12.5.1): type/sub;params > type/sub > type/* > */*.
func (m mediaRange) specificity() int {
	switch {
	case m.typ == "*":
		return 0
	case m.sub == "*":
		return 1
	}
	return 2 + len(m.params)
}

// Negotiate returns the offer (a media type, optionally with parameters) that the HTTP Accept header value
// prefers (RFC 9110 §12.5.1). Each offer takes the weight of the most specific range that matches it, so
// "text/*, text/n3;q=0" excludes text/n3; the highest weight wins and ties keep the order of offers (server
// preference). An empty header accepts everything. Malformed ranges are ignored. ok is false when nothing offered
// is acceptable.
func Negotiate(accept string, offers []string) (string, bool) {
	if len(offers) == 0 {
		return "", false
	}
	if strings.TrimSpace(accept) == "" {
		return offers[0], true
	}
	ranges := parseAccept(accept)
	best, bestQ := -1, 0.0
	for i, offer := range offers {
		typ, sub, params, ok := parseMediaType(offer)
		if !ok {
			continue
		}
		q, spec := 0.0, -1
		for _, r := range ranges {
			if !r.matches(typ, sub, params) {
				continue
			}
			if s := r.specificity(); s > spec {
				q, spec = r.q, s
			}
		}
		if q > bestQ {
			best, bestQ = i, q
		}
	}
	if best < 0 {
		return "", false
	}
	return offers[best], true
}

func (m mediaRange) matches(typ, sub string, params map[string]string) bool {
	if m.typ != "*" && m.typ != typ {
		return false
	}
	if m.sub != "*" && m.sub != sub {
		return false
	}
	for k, v := range m.params {
		if !strings.EqualFold(params[k], v) {
			return false
		}
	}
	return true
}

// parseAccept splits an Accept value into media ranges, honouring quoted parameter values.
func parseAccept(accept string) []mediaRange {
	var out []mediaRange
	for _, part := range splitOutsideQuotes(accept, ',') {
		fields := splitOutsideQuotes(part, ';')
		typ, sub, ok := splitType(fields[0])
		if !ok || (typ == "*" && sub != "*") {
			continue
		}
		r := mediaRange{typ: typ, sub: sub, q: 1}
		valid := true
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			v = unquote(strings.TrimSpace(v))
			if k == "" {
				continue
			}
			if k == "q" {
				q, ok := parseQ(v)
				valid = ok
				r.q = q
				break // what follows q are accept-extensions, which do not restrict the match
			}
			if r.params == nil {
				r.params = map[string]string{}
			}
			r.params[k] = v
		}
		if valid {
			out = append(out, r)
		}
	}
	return out
}

// parseQ parses a weight: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
func parseQ(v string) (float64, bool) {
	if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') || (len(v) > 1 && v[1] != '.') {
		return 0, false
	}
	for i := 2; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' || (v[0] == '1' && v[i] != '0') {
			return 0, false
		}
	}
	q, err := strconv.ParseFloat(v, 64)
	return q, err == nil
}

func parseMediaType(s string) (typ, sub string, params map[string]string, ok bool) {
	fields := splitOutsideQuotes(s, ';')
	typ, sub, ok = splitType(fields[0])
	if !ok {
		return "", "", nil, false
	}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			if params == nil {
				params = map[string]string{}
			}
			params[k] = unquote(strings.TrimSpace(v))
		}
	}
	return typ, sub, params, true
}

func splitType(s string) (typ, sub string, ok bool) {
	typ, sub, ok = strings.Cut(strings.ToLower(strings.TrimSpace(s)), "/")
	typ, sub = strings.TrimSpace(typ), strings.TrimSpace(sub)
	return typ, sub, ok && typ != "" && sub != ""
}

func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	}
	return v
}

// splitOutsideQuotes splits s at sep, except inside double-quoted strings.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// AcceptsEncoding reports whether an Accept-Encoding value accepts a content coding (RFC 9110 §12.5.3): the
// coding's own weight when it is listed (x-gzip counts as gzip), else the weight of "*", else none; a weight of 0
// refuses, so "gzip;q=0, *" does not accept gzip. An empty value accepts no coding: the answer stays identity.
// Elements with a malformed weight are ignored, as in Negotiate.
func AcceptsEncoding(ae, coding string) bool {
	coding = canonicalCoding(coding)
	own, star := -1.0, -1.0
	for _, part := range splitOutsideQuotes(ae, ',') {
		fields := splitOutsideQuotes(part, ';')
		name := canonicalCoding(fields[0])
		if name != coding && name != "*" {
			continue
		}
		q, valid := 1.0, true
		for _, f := range fields[1:] {
			if k, v, _ := strings.Cut(f, "="); strings.EqualFold(strings.TrimSpace(k), "q") {
				q, valid = parseQ(strings.TrimSpace(v))
				break
			}
		}
		switch {
		case !valid:
		case name == coding:
			own = max(own, q)
		default:
			star = max(star, q)
		}
	}
	if own >= 0 {
		return own > 0
	}
	return star > 0
}

func canonicalCoding(c string) string {
	c = strings.ToLower(strings.TrimSpace(c))
	if c == "x-gzip" {
		return "gzip"
	}
	return c
}

// maxLanguages bounds the language ranges AcceptLanguages keeps: a header may list many, a page needs a few.
const maxLanguages = 16

// AcceptLanguages returns the language ranges of an Accept-Language value (RFC 9110 §12.5.4), best first (a
// stable sort by weight), lower case, without "*" and those weighted 0. Malformed elements are ignored, so a
// bad header is the same as none; at most maxLanguages are kept, in header order before sorting.
func AcceptLanguages(al string) []string {
	type lr struct {
		tag string
		q   float64
	}
	var rs []lr
	for rest := al; rest != "" && len(rs) < maxLanguages; {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
		fields := strings.Split(part, ";")
		tag := strings.ToLower(strings.TrimSpace(fields[0]))
		q, valid := 1.0, IsLanguageTag(tag)
		for _, f := range fields[1:] {
			if k, v, _ := strings.Cut(f, "="); strings.EqualFold(strings.TrimSpace(k), "q") {
				var ok bool
				q, ok = parseQ(strings.TrimSpace(v))
				valid = valid && ok
				break
			}
		}
		if valid && q > 0 {
			rs = append(rs, lr{tag, q})
		}
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].q > rs[j].q })
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		if !slices.Contains(out, r.tag) {
			out = append(out, r.tag)
		}
	}
	return out
}

// LanguageKey names the language of a tag for pages rendered once per language (site/html.PageLanguages): its
// primary subtag, lower case; "" when tag has no primary subtag of 2 to 8 letters (the private-use "x-…" and
// grandfathered "i-…" tags get no page of their own).
func LanguageKey(tag string) string {
	p, _, _ := strings.Cut(tag, "-")
	if len(p) < 2 || len(p) > 8 {
		return ""
	}
	p = strings.ToLower(p)
	for _, c := range []byte(p) {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	return p
}

// IsLanguageTag reports whether s has the shape of a language range (RFC 4647 basic range without "*"): one to
// eight letters, then subtags of one to eight letters or digits, separated by hyphens.
func IsLanguageTag(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, sub := range strings.Split(s, "-") {
		if len(sub) == 0 || len(sub) > 8 {
			return false
		}
		for _, c := range []byte(sub) {
			alpha := c|0x20 >= 'a' && c|0x20 <= 'z'
			if !alpha && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}
