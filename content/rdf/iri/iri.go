// Package iri resolves IRI references against a base per RFC 3986 §5.2 (which RFC 3987 reuses for IRIs). It works
// on strings without percent-decoding or normalising anything, because RDF compares IRIs character by character and
// net/url rewrites what it parses.
package iri

import (
	"errors"
	"strings"
)

// ErrNoBase is returned when a relative reference is resolved without an absolute base.
var ErrNoBase = errors.New("relative IRI reference without an absolute base IRI")

type parts struct {
	scheme, authority, path, query, fragment string
	hasAuthority, hasQuery, hasFragment      bool
}

// split breaks a reference into its five components (RFC 3986 Appendix B).
func split(s string) parts {
	var p parts
	if i := strings.IndexByte(s, '#'); i >= 0 {
		p.fragment, p.hasFragment = s[i+1:], true
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		p.query, p.hasQuery = s[i+1:], true
		s = s[:i]
	}
	if i := schemeEnd(s); i > 0 {
		p.scheme = s[:i]
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		p.authority, p.hasAuthority = s[:i], true
		s = s[i:]
	}
	p.path = s
	return p
}

// schemeEnd returns the index of the ':' ending a valid scheme, or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return i
		default:
			return -1
		}
	}
	return -1
}

// IsAbsolute reports whether s has a scheme.
func IsAbsolute(s string) bool { return schemeEnd(s) > 0 }

// Resolve returns ref resolved against base (RFC 3986 §5.2.2, strict). An absolute ref is returned with its dot
// segments removed, as the algorithm says.
func Resolve(base, ref string) (string, error) {
	r := split(ref)
	if r.scheme != "" {
		r.path = removeDots(r.path)
		return r.join(), nil
	}
	if base == "" || !IsAbsolute(base) {
		if ref == "" && base != "" {
			return base, nil
		}
		return "", ErrNoBase
	}
	b := split(base)
	var t parts
	t.scheme = b.scheme
	switch {
	case r.hasAuthority:
		t.authority, t.hasAuthority = r.authority, true
		t.path = removeDots(r.path)
		t.query, t.hasQuery = r.query, r.hasQuery
	default:
		t.authority, t.hasAuthority = b.authority, b.hasAuthority
		switch {
		case r.path == "":
			t.path = b.path
			if r.hasQuery {
				t.query, t.hasQuery = r.query, true
			} else {
				t.query, t.hasQuery = b.query, b.hasQuery
			}
		case r.path[0] == '/':
			t.path = removeDots(r.path)
			t.query, t.hasQuery = r.query, r.hasQuery
		default:
			t.path = removeDots(merge(b, r.path))
			t.query, t.hasQuery = r.query, r.hasQuery
		}
	}
	t.fragment, t.hasFragment = r.fragment, r.hasFragment
	return t.join(), nil
}

// merge implements RFC 3986 §5.2.3.
func merge(b parts, ref string) string {
	if b.hasAuthority && b.path == "" {
		return "/" + ref
	}
	i := strings.LastIndexByte(b.path, '/')
	return b.path[:i+1] + ref
}

// removeDots implements RFC 3986 §5.2.4.
func removeDots(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	out := make([]string, 0, 8)
	var b strings.Builder
	for len(in) > 0 {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			start := 0
			if in[0] == '/' {
				start = 1
			}
			i := strings.IndexByte(in[start:], '/')
			if i < 0 {
				i = len(in)
			} else {
				i += start
			}
			out = append(out, in[:i])
			in = in[i:]
		}
	}
	for _, s := range out {
		b.WriteString(s)
	}
	return b.String()
}

func (p parts) join() string {
	var b strings.Builder
	if p.scheme != "" {
		b.WriteString(p.scheme)
		b.WriteByte(':')
	}
	if p.hasAuthority {
		b.WriteString("//")
		b.WriteString(p.authority)
	}
	b.WriteString(p.path)
	if p.hasQuery {
		b.WriteByte('?')
		b.WriteString(p.query)
	}
	if p.hasFragment {
		b.WriteByte('#')
		b.WriteString(p.fragment)
	}
	return b.String()
}

// Relative returns a reference that resolves against base to abs, or abs itself when no short form is safe. Used by
// encoders that write relative IRIs; only fragment and same-directory forms are produced, which every reader
// resolves the same way.
func Relative(base, abs string) string {
	if base == "" || strings.ContainsAny(base, "?#") {
		return abs
	}
	if rest, ok := strings.CutPrefix(abs, base); ok && strings.HasPrefix(rest, "#") {
		return rest
	}
	i := strings.LastIndexByte(base, '/')
	if i < 0 {
		return abs
	}
	rest, ok := strings.CutPrefix(abs, base[:i+1])
	if !ok || rest == "" || rest == "." || rest == ".." || strings.ContainsAny(rest, "/:") ||
		rest[0] == '?' || rest[0] == '#' {
		return abs
	}
	return rest
}
