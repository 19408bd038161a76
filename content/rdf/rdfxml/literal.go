package rdfxml

import (
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
)

// litWriter serialises the content of an rdf:parseType="Literal" property element as exclusive canonical XML
// with comments (XML-EXC-C14N), which is the lexical form RDF/XML gives XML literals (§7.2.17): a namespace is
// declared on the first element of the literal that visibly uses it, attributes are sorted, empty elements get an
// end tag, and text is escaped the canonical way.
type litWriter struct {
	b        []byte
	rendered []nsBinding // namespace declarations already written by open literal elements
	marks    []int       // len(rendered) before each open literal element
	attrs    []litAttr   // scratch
	decls    []nsBinding // scratch
}

type litAttr struct {
	ns, local, qname, value string
}

func (w *litWriter) reset() {
	w.b = w.b[:0]
	w.rendered = w.rendered[:0]
	w.marks = w.marks[:0]
}

func (w *litWriter) renderedURI(prefix string) string {
	for i := len(w.rendered) - 1; i >= 0; i-- {
		if w.rendered[i].prefix == prefix {
			return w.rendered[i].uri
		}
	}
	return ""
}

// start writes a start tag. lookup resolves a prefix in the full document scope, which includes declarations
// made outside the literal: exclusive canonicalisation re-declares whatever the literal uses.
func (w *litWriter) start(t xml.StartElement, lookup func(string) (string, bool)) error {
	w.marks = append(w.marks, len(w.rendered))
	w.decls = w.decls[:0]
	use := func(prefix string) error {
		if prefix == "xml" {
			return nil
		}
		uri, ok := lookup(prefix)
		if !ok {
			return fmt.Errorf("undeclared namespace prefix %q in XML literal", prefix)
		}
		if w.renderedURI(prefix) == uri {
			return nil
		}
		for _, n := range w.decls {
			if n.prefix == prefix {
				return nil
			}
		}
		w.decls = append(w.decls, nsBinding{prefix, uri})
		return nil
	}
	if err := use(t.Name.Space); err != nil {
		return err
	}
	w.attrs = w.attrs[:0]
	for _, a := range t.Attr {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			continue
		}
		la := litAttr{local: a.Name.Local, qname: a.Name.Local, value: a.Value}
		if a.Name.Space != "" {
			if err := use(a.Name.Space); err != nil {
				return err
			}
			la.ns, _ = lookup(a.Name.Space)
			la.qname = a.Name.Space + ":" + a.Name.Local
		}
		w.attrs = append(w.attrs, la)
	}
	w.rendered = append(w.rendered, w.decls...)
	slices.SortFunc(w.decls, func(a, b nsBinding) int { return strings.Compare(a.prefix, b.prefix) })
	slices.SortFunc(w.attrs, func(a, b litAttr) int {
		if c := strings.Compare(a.ns, b.ns); c != 0 {
			return c
		}
		return strings.Compare(a.local, b.local)
	})
	w.b = append(w.b, '<')
	w.b = append(w.b, qname(t.Name)...)
	for _, n := range w.decls {
		if n.prefix == "" {
			w.b = append(w.b, ` xmlns="`...)
		} else {
			w.b = append(w.b, " xmlns:"...)
			w.b = append(w.b, n.prefix...)
			w.b = append(w.b, `="`...)
		}
		w.b = appendEscaped(w.b, n.uri, true)
		w.b = append(w.b, '"')
	}
	for _, a := range w.attrs {
		w.b = append(w.b, ' ')
		w.b = append(w.b, a.qname...)
		w.b = append(w.b, `="`...)
		w.b = appendEscaped(w.b, a.value, true)
		w.b = append(w.b, '"')
	}
	w.b = append(w.b, '>')
	return nil
}

func (w *litWriter) end(n xml.Name) {
	w.rendered = w.rendered[:w.marks[len(w.marks)-1]]
	w.marks = w.marks[:len(w.marks)-1]
	w.b = append(w.b, "</"...)
	w.b = append(w.b, qname(n)...)
	w.b = append(w.b, '>')
}

func (w *litWriter) text(t []byte) { w.b = appendEscaped(w.b, string(t), false) }

func (w *litWriter) comment(c []byte) {
	w.b = append(w.b, "<!--"...)
	w.b = append(w.b, c...)
	w.b = append(w.b, "-->"...)
}

func (w *litWriter) procInst(p xml.ProcInst) {
	w.b = append(w.b, "<?"...)
	w.b = append(w.b, p.Target...)
	if inst := strings.TrimLeft(string(p.Inst), " \t\r\n"); inst != "" {
		w.b = append(w.b, ' ')
		w.b = append(w.b, inst...)
	}
	w.b = append(w.b, "?>"...)
}

// appendEscaped escapes text (attr false) or an attribute value (attr true) as Canonical XML §1.1 prescribes.
func appendEscaped(b []byte, s string, attr bool) []byte {
	special := &specialText
	if attr {
		special = &specialAttr
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !special[c] {
			continue
		}
		var esc string
		switch c {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&quot;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// specialText and specialAttr mark the bytes appendEscaped replaces in text and in attribute values: one table
// lookup per byte instead of a chain of comparisons, which the encoders pay on every value they write.
var specialText, specialAttr = func() (text, attr [256]bool) {
	for _, c := range "&<>\r" {
		text[c] = true
	}
	for _, c := range "&<\"\t\n\r" {
		attr[c] = true
	}
	return text, attr
}()
