package jsonld

import (
	"encoding/json"
	"strconv"
	"strings"
)

// displayPath names the top level when the path is empty.
func displayPath(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// pointerOffset finds the value at JSON Pointer ptr (RFC 6901) in the JSON text b, which is known to be valid
// JSON, and returns its byte offset and its path in the dotted form people read: @graph[3].@id. A key that occurs
// twice resolves to its last occurrence, the one encoding/json keeps.
func pointerOffset(b []byte, ptr string) (off int, path string, ok bool) {
	i := skipSpace(b, 0)
	if ptr == "" {
		return i, "", true
	}
	if ptr[0] != '/' {
		return 0, "", false
	}
	var p strings.Builder
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if i >= len(b) {
			return 0, "", false
		}
		switch {
		case b[i] == '{':
			found := -1
			j := skipSpace(b, i+1)
			for j < len(b) && b[j] == '"' {
				end := skipString(b, j)
				key, kok := decodeKey(b[j:end])
				j = skipSpace(b, end)
				if !kok || j >= len(b) || b[j] != ':' {
					return 0, "", false
				}
				j = skipSpace(b, j+1)
				if key == tok {
					found = j
				}
				j = skipSpace(b, skipValue(b, j))
				if j < len(b) && b[j] == ',' {
					j = skipSpace(b, j+1)
				}
			}
			if found < 0 && tok == "0" {
				continue // a lone object the processor wrapped in an array, see below
			}
			if found < 0 {
				return 0, "", false
			}
			i = found
			writeKey(&p, tok)
		case b[i] == '[':
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 {
				return 0, "", false
			}
			j := skipSpace(b, i+1)
			for k := 0; k < n && j < len(b) && b[j] != ']'; k++ {
				j = skipSpace(b, skipValue(b, j))
				if j < len(b) && b[j] == ',' {
					j = skipSpace(b, j+1)
				}
			}
			if j >= len(b) || b[j] == ']' {
				return 0, "", false
			}
			i = j
			p.WriteString("[" + tok + "]")
		default:
			if tok == "0" {
				// The processor wraps a lone value in an array (index maps do) and counts it as item 0.
				continue
			}
			return 0, "", false
		}
	}
	return i, p.String(), true
}

// writeKey appends an object key to a path: .key when it reads unambiguously, else ["key"].
func writeKey(p *strings.Builder, key string) {
	plain := key != ""
	for _, r := range key {
		if !(r == '@' || r == '_' || r == '-' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		p.WriteString("[" + strconv.Quote(key) + "]")
	case p.Len() > 0:
		p.WriteString("." + key)
	default:
		p.WriteString(key)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string that starts at b[i] ('"'), or len(b) if it does not end.
func skipString(b []byte, i int) int {
	end, _ := stringEnd(b, i)
	return end
}

// skipValue returns the offset after the JSON value that starts at b[i], or len(b) if it does not end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	end, _ := scanValue(b, i, true)
	return end
}

// decodeKey returns the value of a JSON string token.
func decodeKey(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	if !strings.ContainsRune(string(raw), '\\') {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
