package results

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// Output is where results go.
type Output = io.Writer

func newBuf(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 64<<10) }

type jsonWriter struct {
	w    *bufio.Writer
	vars []string
	n    int
}

func (j *jsonWriter) Begin(vars []string) error {
	j.vars = vars
	j.w.WriteString(`{"head":{"vars":[`)
	for i, v := range vars {
		if i > 0 {
			j.w.WriteByte(',')
		}
		writeJSONString(j.w, v)
	}
	_, err := j.w.WriteString("]},\"results\":{\"bindings\":[")
	return err
}

func (j *jsonWriter) Row(vals []rdf.Term) error {
	if j.n > 0 {
		j.w.WriteByte(',')
	}
	j.n++
	j.w.WriteString("\n{")
	first := true
	for i, t := range vals {
		if t.IsZero() {
			continue
		}
		if !first {
			j.w.WriteByte(',')
		}
		first = false
		writeJSONString(j.w, j.vars[i])
		j.w.WriteString(`:{"type":`)
		switch t.Kind {
		case rdf.KindIRI:
			j.w.WriteString(`"uri","value":`)
			writeJSONString(j.w, t.Value)
		case rdf.KindBlank:
			j.w.WriteString(`"bnode","value":`)
			writeJSONString(j.w, t.Value)
		default:
			j.w.WriteString(`"literal","value":`)
			writeJSONString(j.w, t.Value)
			if t.Lang != "" {
				j.w.WriteString(`,"xml:lang":`)
				writeJSONString(j.w, t.Lang)
			} else if t.Datatype != "" && t.Datatype != rdf.XSDString {
				j.w.WriteString(`,"datatype":`)
				writeJSONString(j.w, t.Datatype)
			}
		}
		j.w.WriteByte('}')
	}
	return j.w.WriteByte('}')
}

func (j *jsonWriter) End() error {
	j.w.WriteString("\n]}}\n")
	return j.w.Flush()
}

func (j *jsonWriter) endTruncated(reason string) error {
	j.w.WriteString("\n]},\"ldhub:truncated\":")
	writeJSONString(j.w, reason)
	j.w.WriteString("}\n")
	return j.w.Flush()
}

// writeJSONString writes s as a JSON string; the common case (no escapes needed) is a plain copy.
func writeJSONString(w *bufio.Writer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			b, _ := json.Marshal(s)
			w.Write(b)
			return
		}
	}
	w.WriteByte('"')
	w.WriteString(s)
	w.WriteByte('"')
}

type xmlWriter struct {
	w    *bufio.Writer
	vars []string
}

func (x *xmlWriter) Begin(vars []string) error {
	x.vars = vars
	x.w.WriteString("<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">\n  <head>\n")
	for _, v := range vars {
		x.w.WriteString(`    <variable name="`)
		xmlEscape(x.w, v)
		x.w.WriteString("\"/>\n")
	}
	_, err := x.w.WriteString("  </head>\n  <results>\n")
	return err
}

func (x *xmlWriter) Row(vals []rdf.Term) error {
	x.w.WriteString("    <result>")
	for i, t := range vals {
		if t.IsZero() {
			continue
		}
		x.w.WriteString(`<binding name="`)
		xmlEscape(x.w, x.vars[i])
		x.w.WriteString(`">`)
		switch t.Kind {
		case rdf.KindIRI:
			x.w.WriteString("<uri>")
			xmlEscape(x.w, t.Value)
			x.w.WriteString("</uri>")
		case rdf.KindBlank:
			x.w.WriteString("<bnode>")
			xmlEscape(x.w, t.Value)
			x.w.WriteString("</bnode>")
		default:
			x.w.WriteString("<literal")
			if t.Lang != "" {
				x.w.WriteString(` xml:lang="`)
				xmlEscape(x.w, t.Lang)
				x.w.WriteByte('"')
			} else if t.Datatype != "" && t.Datatype != rdf.XSDString {
				x.w.WriteString(` datatype="`)
				xmlEscape(x.w, t.Datatype)
				x.w.WriteByte('"')
			}
			x.w.WriteByte('>')
			xmlEscape(x.w, t.Value)
			x.w.WriteString("</literal>")
		}
		x.w.WriteString("</binding>")
	}
	_, err := x.w.WriteString("</result>\n")
	return err
}

func (x *xmlWriter) endTruncated(reason string) error {
	x.w.WriteString("  </results>\n  <!-- ldhub:truncated: ")
	xmlEscape(x.w, strings.ReplaceAll(reason, "--", "- -"))
	x.w.WriteString(" -->\n</sparql>\n")
	return x.w.Flush()
}

func (x *xmlWriter) End() error {
	x.w.WriteString("  </results>\n</sparql>\n")
	return x.w.Flush()
}

// xmlEscape escapes markup characters and writes characters XML 1.0 cannot carry as numeric references where
// allowed; control characters other than tab, newline and carriage return cannot appear in XML 1.0 at all and are
// replaced by U+FFFD so the document stays well-formed.
func xmlEscape(w *bufio.Writer, s string) {
	for _, r := range s {
		switch {
		case r == '<':
			w.WriteString("&lt;")
		case r == '>':
			w.WriteString("&gt;")
		case r == '&':
			w.WriteString("&amp;")
		case r == '"':
			w.WriteString("&quot;")
		case r == '\r':
			w.WriteString("&#xD;")
		case r < 0x20 && r != '\t' && r != '\n', r == 0xFFFE, r == 0xFFFF:
			w.WriteRune(0xFFFD)
		default:
			w.WriteRune(r)
		}
	}
}

type csvWriter struct {
	w *bufio.Writer
}

func (c *csvWriter) Begin(vars []string) error {
	for i, v := range vars {
		if i > 0 {
			c.w.WriteByte(',')
		}
		csvField(c.w, v)
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

// Row writes values as the SPARQL 1.1 CSV format says: IRIs and lexical forms without markup, blank nodes as _:label.
func (c *csvWriter) Row(vals []rdf.Term) error {
	for i, t := range vals {
		if i > 0 {
			c.w.WriteByte(',')
		}
		switch t.Kind {
		case rdf.KindBlank:
			csvField(c.w, "_:"+t.Value)
		case rdf.KindNone:
		default:
			csvField(c.w, t.Value)
		}
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

func (c *csvWriter) End() error { return c.w.Flush() }

func csvField(w *bufio.Writer, s string) {
	if !strings.ContainsAny(s, "\",\r\n") {
		w.WriteString(s)
		return
	}
	w.WriteByte('"')
	w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	w.WriteByte('"')
}

type tsvWriter struct {
	w *bufio.Writer
	b strings.Builder
}

func (t *tsvWriter) Begin(vars []string) error {
	for i, v := range vars {
		if i > 0 {
			t.w.WriteByte('\t')
		}
		t.w.WriteByte('?')
		t.w.WriteString(v)
	}
	_, err := t.w.WriteString("\n")
	return err
}

// Row writes terms in Turtle syntax, numbers bare when their lexical form is Turtle's own (as the W3C tests show).
func (t *tsvWriter) Row(vals []rdf.Term) error {
	for i, v := range vals {
		if i > 0 {
			t.w.WriteByte('\t')
		}
		if v.IsZero() {
			continue
		}
		if v.Kind == rdf.KindLiteral && bareNumber(v) {
			t.w.WriteString(v.Value)
			continue
		}
		t.b.Reset()
		rdf.AppendNTriples(&t.b, v)
		// N-Triples escapes are valid in TSV, but a raw tab or newline would break the row; AppendNTriples
		// already escapes \t, \n and \r inside literals.
		t.w.WriteString(t.b.String())
	}
	_, err := t.w.WriteString("\n")
	return err
}

func (t *tsvWriter) End() error { return t.w.Flush() }

// bareNumber reports whether a literal is an xsd:integer/decimal/double whose lexical form is the matching Turtle
// production, so writing it bare reads back as the same term.
func bareNumber(t rdf.Term) bool {
	s := strings.TrimLeft(t.Value, "+-")
	if len(t.Value)-len(s) > 1 {
		return false
	}
	switch t.Datatype {
	case rdf.XSDInteger:
		return isDigits(s)
	case rdf.XSDDecimal: // [0-9]* '.' [0-9]+
		whole, frac, ok := strings.Cut(s, ".")
		return ok && (whole == "" || isDigits(whole)) && isDigits(frac)
	case rdf.XSDDouble: // ([0-9]+ '.' [0-9]* | '.' [0-9]+ | [0-9]+) [eE] [+-]? [0-9]+
		e := strings.IndexAny(s, "eE")
		if e < 0 {
			return false
		}
		m, x := s[:e], s[e+1:]
		if x != "" && (x[0] == '+' || x[0] == '-') {
			x = x[1:]
		}
		if !isDigits(x) {
			return false
		}
		whole, frac, dot := strings.Cut(m, ".")
		switch {
		case !dot:
			return isDigits(whole)
		case whole == "":
			return isDigits(frac)
		default:
			return isDigits(whole) && (frac == "" || isDigits(frac))
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
