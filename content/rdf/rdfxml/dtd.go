package rdfxml

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// entityDecls holds the general entities of a document's internal DTD subset: replacement texts fully expanded
// (encoding/xml substitutes them verbatim and does not re-scan them) and the names of external entities, which are
// declared but never fetched.
type entityDecls struct {
	raw      map[string]string // as declared, before expansion
	values   map[string]string // expanded
	external map[string]bool
	total    int // bytes in values
}

// parseDoctype reads the internal subset of a <!DOCTYPE ...> directive (encoding/xml hands it over with comments
// already removed) and expands its general entities. Element, attribute-list and notation declarations are
// skipped: RDF/XML gives them no meaning. Parameter entities are rejected rather than half-supported.
func parseDoctype(dir string) (*entityDecls, error) {
	rest, ok := strings.CutPrefix(dir, "DOCTYPE")
	if !ok {
		return nil, fmt.Errorf("unexpected <!%s> declaration", firstWord(dir))
	}
	open := indexUnquoted(rest, '[')
	e := &entityDecls{raw: map[string]string{}, values: map[string]string{}, external: map[string]bool{}}
	if open < 0 {
		return e, nil // external subset only: never fetched
	}
	s := rest[open+1:]
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case s == "" || s[0] == ']':
			return e, e.expandAll()
		case strings.HasPrefix(s, "<!ENTITY"):
			var err error
			if s, err = e.entity(s[len("<!ENTITY"):]); err != nil {
				return nil, err
			}
			if len(e.raw)+len(e.external) > maxEntities {
				return nil, fmt.Errorf("more than %d entity declarations", maxEntities)
			}
		case strings.HasPrefix(s, "<?"):
			end := strings.Index(s, "?>")
			if end < 0 {
				return nil, fmt.Errorf("unterminated processing instruction in DOCTYPE")
			}
			s = s[end+2:]
		case strings.HasPrefix(s, "<!"):
			end := indexUnquoted(s, '>')
			if end < 0 {
				return nil, fmt.Errorf("unterminated declaration in DOCTYPE")
			}
			s = s[end+1:]
		case s[0] == '%':
			return nil, fmt.Errorf("parameter entity references are not supported")
		default:
			return nil, fmt.Errorf("unexpected %q in DOCTYPE internal subset", firstWord(s))
		}
	}
}

// entity parses one <!ENTITY ...> declaration after the keyword and returns the input after its '>'.
func (e *entityDecls) entity(s string) (string, error) {
	s = strings.TrimLeft(s, " \t\r\n")
	param := false
	if strings.HasPrefix(s, "%") {
		param = true
		s = strings.TrimLeft(s[1:], " \t\r\n")
	}
	name := firstWord(s)
	if !isNCName(name) {
		return "", fmt.Errorf("invalid entity name %q", name)
	}
	s = strings.TrimLeft(s[len(name):], " \t\r\n")
	end := indexUnquoted(s, '>')
	if end < 0 {
		return "", fmt.Errorf("unterminated declaration of entity %s", name)
	}
	body, rest := strings.TrimSpace(s[:end]), s[end+1:]
	if param {
		return rest, nil // declared but, since references are rejected, never used
	}
	_, declared := e.raw[name]
	if declared || e.external[name] {
		return rest, nil // XML 1.0 §4.2: the first declaration binds
	}
	if body != "" && (body[0] == '"' || body[0] == '\'') {
		q := strings.IndexByte(body[1:], body[0])
		if q < 0 || strings.TrimSpace(body[q+2:]) != "" {
			return "", fmt.Errorf("malformed value of entity %s", name)
		}
		e.raw[name] = body[1 : q+1]
		return rest, nil
	}
	if strings.HasPrefix(body, "SYSTEM") || strings.HasPrefix(body, "PUBLIC") {
		e.external[name] = true
		return rest, nil
	}
	return "", fmt.Errorf("malformed declaration of entity %s", name)
}

func (e *entityDecls) expandAll() error {
	for name := range e.raw {
		if _, err := e.expand(name, nil); err != nil {
			return err
		}
	}
	return nil
}

// expand returns the replacement text of an entity with character and entity references resolved, memoised so
// that every entity is expanded once; the size cap stops exponential ("billion laughs") definitions early.
func (e *entityDecls) expand(name string, active []string) (string, error) {
	if v, ok := e.values[name]; ok {
		return v, nil
	}
	for _, a := range active {
		if a == name {
			return "", fmt.Errorf("entity %s refers to itself", name)
		}
	}
	raw, ok := e.raw[name]
	if !ok {
		if e.external[name] {
			return "", fmt.Errorf("entity value refers to external entity %s (external entities are never fetched)", name)
		}
		return "", fmt.Errorf("entity value refers to undeclared entity %s", name)
	}
	active = append(active, name)
	var b strings.Builder
	for s := raw; s != ""; {
		i := strings.IndexAny(s, "&%<")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		c := s[i]
		s = s[i+1:]
		if c == '<' {
			return "", fmt.Errorf("entity %s contains markup, which is not supported", name)
		}
		if c == '%' {
			return "", fmt.Errorf("entity %s uses a parameter entity reference, which is not supported", name)
		}
		semi := strings.IndexByte(s, ';')
		if semi < 0 {
			return "", fmt.Errorf("unterminated reference in entity %s", name)
		}
		ref := s[:semi]
		s = s[semi+1:]
		switch {
		case strings.HasPrefix(ref, "#"):
			r, err := charRef(ref[1:])
			if err != nil {
				return "", fmt.Errorf("entity %s: %w", name, err)
			}
			b.WriteRune(r)
		case predefined[ref] != "":
			b.WriteString(predefined[ref])
		default:
			v, err := e.expand(ref, active)
			if err != nil {
				return "", err
			}
			if b.Len()+len(v) > maxEntityValue {
				return "", fmt.Errorf("entity %s expands to more than %d bytes", name, maxEntityValue)
			}
			b.WriteString(v)
		}
	}
	if b.Len() > maxEntityValue {
		return "", fmt.Errorf("entity %s expands to more than %d bytes", name, maxEntityValue)
	}
	v := b.String()
	if e.total += len(v); e.total > maxEntityTotal {
		return "", fmt.Errorf("entities expand to more than %d bytes in total", maxEntityTotal)
	}
	e.values[name] = v
	return v, nil
}

var predefined = map[string]string{"lt": "<", "gt": ">", "amp": "&", "apos": "'", "quot": `"`}

func charRef(s string) (rune, error) {
	base := 10
	if strings.HasPrefix(s, "x") {
		base, s = 16, s[1:]
	}
	n, err := strconv.ParseUint(s, base, 32)
	if err != nil || !utf8.ValidRune(rune(n)) || n == 0 {
		return 0, fmt.Errorf("invalid character reference &#%s;", s)
	}
	return rune(n), nil
}

// indexUnquoted returns the index of the first c outside single- or double-quoted strings.
func indexUnquoted(s string, c byte) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == quote {
				quote = 0
			}
		case s[i] == '"' || s[i] == '\'':
			quote = s[i]
		case s[i] == c:
			return i
		}
	}
	return -1
}

func firstWord(s string) string {
	i := strings.IndexAny(s, " \t\r\n>[\"'")
	if i < 0 {
		return s
	}
	return s[:i]
}
