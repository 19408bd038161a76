// Package rdfjson reads and writes RDF 1.1 JSON Alternate Serialization (RDF/JSON, W3C Working Group Note
// 2013-11-07): an object of subjects, each an object of predicates, each an array of value objects with "type",
// "value", "lang" and "datatype". It carries triples only. The decoder streams token by token, so memory stays
// bounded by the longest string, not the document.
package rdfjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

const syntaxName = "rdf-json"

// Decoder reads one RDF/JSON document.
type Decoder struct {
	cr     *countingReader
	dec    *json.Decoder
	o      rdf.DecodeOptions
	blanks *rdf.BlankNodes
	maxLit int

	state   int // where the next token is expected; see next
	subject rdf.Term
	pred    rdf.Term
	err     error
}

const (
	stateStart     = iota // before the top-level '{'
	stateSubjects         // inside the top-level object: a subject key or '}'
	statePredicate        // inside a subject object: a predicate key or '}'
	stateObjects          // inside a predicate array: a value object or ']'
	stateEnd              // after the top-level '}'
)

// NewDecoder returns an RDF/JSON decoder.
func NewDecoder(r io.Reader, o rdf.DecodeOptions) *Decoder {
	cr := &countingReader{r: r, line: 1, col: 1, maxPending: o.Limits.LiteralSize() + 64<<10}
	dec := json.NewDecoder(cr)
	dec.UseNumber()
	return &Decoder{cr: cr, dec: dec, o: o, blanks: o.BlankNodesOrNew(), maxLit: o.Limits.LiteralSize()}
}

// Next returns the next triple, io.EOF after the last, or the error that ended the stream (sticky).
func (d *Decoder) Next() (rdf.Quad, error) {
	if d.err != nil {
		return rdf.Quad{}, d.err
	}
	q, err := d.next()
	if err != nil {
		d.err = err
	}
	return q, err
}

func (d *Decoder) next() (rdf.Quad, error) {
	for {
		switch d.state {
		case stateStart:
			if err := d.delim('{', "an RDF/JSON document is a JSON object"); err != nil {
				return rdf.Quad{}, err
			}
			d.state = stateSubjects
		case stateSubjects:
			key, end, err := d.key()
			if err != nil {
				return rdf.Quad{}, err
			}
			if end {
				d.state = stateEnd
				continue
			}
			if d.subject, err = d.resource(key, "subject"); err != nil {
				return rdf.Quad{}, err
			}
			if err := d.delim('{', "a subject's value is an object of predicates"); err != nil {
				return rdf.Quad{}, err
			}
			d.state = statePredicate
		case statePredicate:
			key, end, err := d.key()
			if err != nil {
				return rdf.Quad{}, err
			}
			if end {
				d.state = stateSubjects
				continue
			}
			if strings.HasPrefix(key, "_:") {
				return rdf.Quad{}, d.errorf("predicate %q: a predicate must be an IRI", key)
			}
			if d.pred, err = d.resource(key, "predicate"); err != nil {
				return rdf.Quad{}, err
			}
			if err := d.delim('[', "a predicate's value is an array of objects"); err != nil {
				return rdf.Quad{}, err
			}
			d.state = stateObjects
		case stateObjects:
			obj, end, err := d.object()
			if err != nil {
				return rdf.Quad{}, err
			}
			if end {
				d.state = statePredicate
				continue
			}
			return rdf.Triple(d.subject, d.pred, obj), nil
		case stateEnd:
			d.cr.advance(d.dec.InputOffset())
			_, err := d.dec.Token()
			d.cr.skipSeparators()
			if err != io.EOF {
				if err != nil {
					return rdf.Quad{}, d.jsonError(err)
				}
				return rdf.Quad{}, d.errorf("unexpected data after the document")
			}
			return rdf.Quad{}, io.EOF
		}
	}
}

// token reads one token, turning EOF inside the document and encoding/json errors into positioned SyntaxErrors.
func (d *Decoder) token() (json.Token, error) {
	d.cr.advance(d.dec.InputOffset())
	t, err := d.dec.Token()
	d.cr.skipSeparators()
	if err != nil {
		if err == io.EOF {
			return nil, d.errorf("unexpected end of document")
		}
		return nil, d.jsonError(err)
	}
	return t, nil
}

func (d *Decoder) delim(want json.Delim, msg string) error {
	t, err := d.token()
	if err != nil {
		return err
	}
	if t != want {
		return d.errorf("%s, found %s", msg, describe(t))
	}
	return nil
}

// key reads an object key, or reports the end of the object.
func (d *Decoder) key() (string, bool, error) {
	t, err := d.token()
	if err != nil {
		return "", false, err
	}
	if t == json.Delim('}') {
		return "", true, nil
	}
	s, ok := t.(string)
	if !ok {
		return "", false, d.errorf("expected a key, found %s", describe(t))
	}
	if len(s) > d.maxLit {
		return "", false, d.errorf("key longer than %d bytes", d.maxLit)
	}
	return s, false, nil
}

// object reads one value object, or reports the end of the array.
func (d *Decoder) object() (rdf.Term, bool, error) {
	t, err := d.token()
	if err != nil {
		return rdf.Term{}, false, err
	}
	if t == json.Delim(']') {
		return rdf.Term{}, true, nil
	}
	if t != json.Delim('{') {
		return rdf.Term{}, false, d.errorf("expected a value object, found %s", describe(t))
	}
	// Errors about the object as a whole point at its '{'.
	line, col := d.cr.position()
	fields := map[string]string{}
	for {
		k, end, err := d.key()
		if err != nil {
			return rdf.Term{}, false, err
		}
		if end {
			break
		}
		switch k {
		case "type", "value", "lang", "datatype":
		default:
			return rdf.Term{}, false, d.errorf("unknown key %q in a value object", k)
		}
		if _, dup := fields[k]; dup {
			return rdf.Term{}, false, d.errorf("duplicate key %q in a value object", k)
		}
		v, err := d.token()
		if err != nil {
			return rdf.Term{}, false, err
		}
		s, ok := v.(string)
		if !ok {
			return rdf.Term{}, false, d.errorf("%q must be a string, found %s", k, describe(v))
		}
		if len(s) > d.maxLit {
			return rdf.Term{}, false, d.errorf("%q longer than %d bytes", k, d.maxLit)
		}
		fields[k] = s
	}
	term, err := d.valueTerm(fields)
	if se, ok := err.(*rdf.SyntaxError); ok {
		se.Line, se.Column = line, col
	}
	return term, false, err
}

func (d *Decoder) valueTerm(f map[string]string) (rdf.Term, error) {
	value, ok := f["value"]
	if !ok {
		return rdf.Term{}, d.errorf(`value object without "value"`)
	}
	typ := f["type"]
	if typ != "literal" {
		if _, ok := f["lang"]; ok {
			return rdf.Term{}, d.errorf(`"lang" is only allowed on literals`)
		}
		if _, ok := f["datatype"]; ok {
			return rdf.Term{}, d.errorf(`"datatype" is only allowed on literals`)
		}
	}
	switch typ {
	case "uri":
		return d.iri(value, "object")
	case "bnode":
		label, ok := strings.CutPrefix(value, "_:")
		if !ok || label == "" {
			return rdf.Term{}, d.errorf("bnode value %q must be _:label", value)
		}
		return rdf.Blank(d.blanks.Label(label)), nil
	case "literal":
		lang, hasLang := f["lang"]
		dt, hasDT := f["datatype"]
		switch {
		case hasLang && hasDT && dt != rdf.RDFLangString:
			return rdf.Term{}, d.errorf("a literal has a language or a datatype, not both")
		case hasLang:
			if !validLang(lang) {
				return rdf.Term{}, d.errorf("invalid language tag %q", lang)
			}
			return rdf.LangString(value, lang), nil
		case hasDT:
			if dt == rdf.RDFLangString {
				return rdf.Term{}, d.errorf("rdf:langString literal without a language")
			}
			dtIRI, err := d.iri(dt, "datatype")
			if err != nil {
				return rdf.Term{}, err
			}
			return rdf.Literal(value, dtIRI.Value), nil
		}
		return rdf.String(value), nil
	case "":
		return rdf.Term{}, d.errorf(`value object without "type"`)
	}
	return rdf.Term{}, d.errorf(`"type" must be "uri", "bnode" or "literal", not %q`, typ)
}

// resource reads a subject or predicate key: a blank node "_:label" (subjects only) or an IRI.
func (d *Decoder) resource(key, what string) (rdf.Term, error) {
	if label, ok := strings.CutPrefix(key, "_:"); ok {
		if label == "" {
			return rdf.Term{}, d.errorf("empty blank node label")
		}
		return rdf.Blank(d.blanks.Label(label)), nil
	}
	return d.iri(key, what)
}

// iri checks an IRI and resolves a relative one against the base (the Note requires absolute IRIs; a base makes
// relative ones usable, as in the other syntaxes).
func (d *Decoder) iri(s, what string) (rdf.Term, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= 0x20 || strings.IndexByte("<>\"{}|\\^`", c) >= 0 {
			return rdf.Term{}, d.errorf("%s %q: character %q not allowed in an IRI", what, s, c)
		}
	}
	if iri.IsAbsolute(s) {
		return rdf.IRI(s), nil
	}
	r, err := iri.Resolve(d.o.Base, s)
	if err != nil {
		return rdf.Term{}, d.errorf("%s %q: relative IRI and no base IRI", what, s)
	}
	return rdf.IRI(r), nil
}

func validLang(s string) bool {
	if s == "" {
		return false
	}
	for i, part := range strings.Split(s, "-") {
		if part == "" || len(part) > 8 {
			return false
		}
		for _, c := range part {
			alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if !alpha && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

func describe(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		return fmt.Sprintf("'%c'", rune(v))
	case string:
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + v.String()
	case bool:
		return fmt.Sprintf("%t", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", t)
}

// errorf reports an error at the start of the last token read.
func (d *Decoder) errorf(format string, args ...any) error {
	line, col := d.cr.position()
	return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// jsonError positions an encoding/json error at its offset.
func (d *Decoder) jsonError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := se.Offset
		if off > 0 {
			off--
		}
		d.cr.advance(off)
		line, col := d.cr.position()
		return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: se.Error()}
	}
	var ue *utf8Error
	if errors.As(err, &ue) {
		d.cr.advance(ue.off)
		line, col := d.cr.position()
		return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: ue.Error()}
	}
	var le *limitError
	if errors.As(err, &le) {
		line, col := d.cr.position()
		return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: le.Error()}
	}
	return fmt.Errorf("rdf-json: %w", err)
}

var (
	_ rdf.Decoder = (*Decoder)(nil)
	_ rdf.Encoder = (*Encoder)(nil)
)
