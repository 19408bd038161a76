package jsonld

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// topLevelPrefixes reads the top-level @context of an already validated document, because the prefixes must come
// out in document order and a decoded map has none. Only simple term definitions ("term": "IRI") whose absolute
// IRI ends in '#' or '/' count: those are what a publisher means as a namespace. Only the @context entry is read,
// however large the rest of the document.
func topLevelPrefixes(b []byte) []rdf.Prefix {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	for _, e := range objectEntries(b, i) {
		if e.key == "@context" {
			return contextPrefixes(b[e.start:e.end], nil)
		}
	}
	return nil
}

// contextPrefixes appends the prefixes of a context value (an object or an array of them; remote context URLs
// are not followed).
func contextPrefixes(raw json.RawMessage, out []rdf.Prefix) []rdf.Prefix {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return out
	}
	switch raw[0] {
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return out
		}
		for _, it := range items {
			out = contextPrefixes(it, out)
		}
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		if _, err := dec.Token(); err != nil {
			return out
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return out
			}
			var v any
			if err := dec.Decode(&v); err != nil {
				return out
			}
			name, _ := k.(string)
			value, ok := v.(string)
			if !ok || name == "" || strings.HasPrefix(name, "@") || strings.ContainsAny(name, ":/") {
				continue
			}
			if iri.IsAbsolute(value) && (strings.HasSuffix(value, "#") || strings.HasSuffix(value, "/")) {
				out = appendPrefix(out, rdf.Prefix{Name: name, IRI: value})
			}
		}
	}
	return out
}

// appendPrefix adds p, replacing an earlier binding of the same name (a later context entry overrides it).
func appendPrefix(out []rdf.Prefix, p rdf.Prefix) []rdf.Prefix {
	for i := range out {
		if out[i].Name == p.Name {
			out = append(out[:i], out[i+1:]...)
			break
		}
	}
	return append(out, p)
}
