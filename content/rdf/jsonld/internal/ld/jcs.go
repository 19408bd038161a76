package ld

import (
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/ldhub/ldhub/content/rdf/jsonld/internal/ld/jsoncanonicalizer"
)

// canonicalJSON serialises a parsed JSON value per RFC 8785 (JCS), as JSON-LD 1.1 requires for rdf:JSON literals.
//
// ldhub: upstream re-parsed marshalled text with the WebPKI canonicalizer, which only accepts objects and
// treated a JSON string value as JSON text.
func canonicalJSON(v interface{}) (string, error) {
	var b strings.Builder
	if err := writeJCS(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJCS(b *strings.Builder, v interface{}) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case float64:
		s, err := jsoncanonicalizer.NumberToJSON(x)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case string:
		writeJCSString(b, x)
	case []interface{}:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJCS(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]interface{}:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		// JCS orders members by their names as UTF-16 code units.
		sort.Slice(keys, func(i, j int) bool { return lessUTF16(keys[i], keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJCSString(b, k)
			b.WriteByte(':')
			if err := writeJCS(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return NewJsonLdError(InvalidJSONLiteral, v)
	}
	return nil
}

func lessUTF16(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// writeJCSString writes s as ECMAScript JSON.stringify does: only '"', '\\' and control characters are escaped.
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
				b.WriteByte(hex[r&0xf])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
