package results

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// Read parses a whole result in format f (CSV is not readable: it drops term types, so it cannot round-trip).
func Read(r io.Reader, f Format) (*Result, error) {
	switch f {
	case JSON:
		return readJSON(r)
	case XML:
		return readXML(r)
	case TSV:
		return readTSV(r)
	}
	return nil, fmt.Errorf("results: reading %s is not supported", f)
}

type jsonTerm struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	Lang     string `json:"xml:lang"`
	Datatype string `json:"datatype"`
}

func readJSON(r io.Reader) (*Result, error) {
	var doc struct {
		Head struct {
			Vars []string `json:"vars"`
		} `json:"head"`
		Boolean *bool `json:"boolean"`
		Results *struct {
			Bindings []map[string]jsonTerm `json:"bindings"`
		} `json:"results"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("results: json: %w", err)
	}
	res := &Result{Vars: doc.Head.Vars, Boolean: doc.Boolean}
	if doc.Boolean != nil {
		return res, nil
	}
	if doc.Results == nil {
		return nil, fmt.Errorf("results: json: neither results nor boolean")
	}
	for _, b := range doc.Results.Bindings {
		row := make([]rdf.Term, len(res.Vars))
		for name, jt := range b {
			i := slices.Index(res.Vars, name)
			if i < 0 {
				return nil, fmt.Errorf("results: json: binding of undeclared variable %q", name)
			}
			switch jt.Type {
			case "uri":
				row[i] = rdf.IRI(jt.Value)
			case "bnode":
				row[i] = rdf.Blank(jt.Value)
			case "literal", "typed-literal":
				row[i] = literal(jt.Value, jt.Datatype, jt.Lang)
			default:
				return nil, fmt.Errorf("results: json: unknown term type %q", jt.Type)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

func literal(v, dt, lang string) rdf.Term {
	if lang != "" {
		return rdf.LangString(v, lang)
	}
	return rdf.Literal(v, dt)
}

func readXML(r io.Reader) (*Result, error) {
	var doc struct {
		Head struct {
			Vars []struct {
				Name string `xml:"name,attr"`
			} `xml:"variable"`
		} `xml:"head"`
		Boolean *string `xml:"boolean"`
		Results []struct {
			Bindings []struct {
				Name    string  `xml:"name,attr"`
				URI     *string `xml:"uri"`
				BNode   *string `xml:"bnode"`
				Literal *struct {
					Value    string `xml:",chardata"`
					Lang     string `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
					Datatype string `xml:"datatype,attr"`
				} `xml:"literal"`
			} `xml:"binding"`
		} `xml:"results>result"`
	}
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("results: xml: %w", err)
	}
	res := &Result{}
	for _, v := range doc.Head.Vars {
		res.Vars = append(res.Vars, v.Name)
	}
	if doc.Boolean != nil {
		b := strings.TrimSpace(*doc.Boolean) == "true"
		res.Boolean = &b
		return res, nil
	}
	for _, rr := range doc.Results {
		row := make([]rdf.Term, len(res.Vars))
		for _, b := range rr.Bindings {
			i := slices.Index(res.Vars, b.Name)
			if i < 0 {
				return nil, fmt.Errorf("results: xml: binding of undeclared variable %q", b.Name)
			}
			switch {
			case b.URI != nil:
				row[i] = rdf.IRI(*b.URI)
			case b.BNode != nil:
				row[i] = rdf.Blank(*b.BNode)
			case b.Literal != nil:
				row[i] = literal(b.Literal.Value, b.Literal.Datatype, b.Literal.Lang)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

func readTSV(r io.Reader) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n"), "\n")
	res := &Result{}
	for _, h := range strings.Split(lines[0], "\t") {
		res.Vars = append(res.Vars, strings.TrimPrefix(strings.TrimPrefix(h, "?"), "$"))
	}
	for n, line := range lines[1:] {
		cells := strings.Split(line, "\t")
		if len(cells) != len(res.Vars) {
			return nil, fmt.Errorf("results: tsv: line %d has %d fields, want %d", n+2, len(cells), len(res.Vars))
		}
		row := make([]rdf.Term, len(cells))
		for i, c := range cells {
			if c == "" {
				continue
			}
			t, err := parseTerm(c)
			if err != nil {
				return nil, fmt.Errorf("results: tsv: line %d, field %d: %w", n+2, i+1, err)
			}
			row[i] = t
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// parseTerm reads one term in the N-Triples syntax TSV uses, plus bare Turtle numbers and booleans.
func parseTerm(s string) (rdf.Term, error) {
	switch {
	case strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"):
		v, err := unescape(s[1 : len(s)-1])
		return rdf.IRI(v), err
	case strings.HasPrefix(s, "_:"):
		return rdf.Blank(s[2:]), nil
	case strings.HasPrefix(s, `"`):
		end := strings.LastIndexByte(s, '"')
		if end == 0 {
			return rdf.Term{}, fmt.Errorf("unterminated string %q", s)
		}
		v, err := unescape(s[1:end])
		if err != nil {
			return rdf.Term{}, err
		}
		rest := s[end+1:]
		switch {
		case rest == "":
			return rdf.String(v), nil
		case strings.HasPrefix(rest, "@"):
			return rdf.LangString(v, rest[1:]), nil
		case strings.HasPrefix(rest, "^^<") && strings.HasSuffix(rest, ">"):
			return rdf.Literal(v, rest[3:len(rest)-1]), nil
		}
		return rdf.Term{}, fmt.Errorf("bad literal suffix %q", rest)
	case s == "true" || s == "false":
		return rdf.Literal(s, rdf.XSDBoolean), nil
	}
	for _, dt := range []string{rdf.XSDInteger, rdf.XSDDecimal, rdf.XSDDouble} {
		if t := rdf.Literal(s, dt); bareNumber(t) {
			return t, nil
		}
	}
	return rdf.Term{}, fmt.Errorf("cannot read term %q", s)
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '"', '\'', '\\':
			b.WriteByte(c)
		case 'u', 'U':
			n := 4
			if c == 'U' {
				n = 8
			}
			if i+1+n > len(s) {
				return "", fmt.Errorf("short \\%c escape", c)
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", fmt.Errorf("bad \\%c escape", c)
			}
			b.WriteRune(rune(v))
			i += n
		default:
			return "", fmt.Errorf("unknown escape \\%c", c)
		}
	}
	return b.String(), nil
}

// rs: vocabulary of the W3C expected results.
const rsNS = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#"

// FromRDF reads a result set described in the rs: vocabulary (the .ttl/.rdf expected results of the W3C tests).
// It reports ordered = true when solutions carry rs:index, and returns them in that order.
func FromRDF(quads []rdf.Quad) (res *Result, ordered bool, err error) {
	objs := func(s rdf.Term, p string) []rdf.Term {
		var out []rdf.Term
		for _, q := range quads {
			if q.S.Equal(s) && q.P.Value == p {
				out = append(out, q.O)
			}
		}
		return out
	}
	var set rdf.Term
	for _, q := range quads {
		if q.P.Value == rdf.RDFType && q.O.Value == rsNS+"ResultSet" {
			set = q.S
		}
	}
	if set.IsZero() {
		return nil, false, fmt.Errorf("results: no rs:ResultSet in the graph")
	}
	res = &Result{}
	if b := objs(set, rsNS+"boolean"); len(b) > 0 {
		v := b[0].Value == "true" || b[0].Value == "1"
		res.Boolean = &v
		return res, false, nil
	}
	for _, v := range objs(set, rsNS+"resultVariable") {
		res.Vars = append(res.Vars, v.Value)
	}
	type sol struct {
		idx int
		row []rdf.Term
	}
	var sols []sol
	for _, s := range objs(set, rsNS+"solution") {
		row := make([]rdf.Term, len(res.Vars))
		for _, b := range objs(s, rsNS+"binding") {
			name, val := objs(b, rsNS+"variable"), objs(b, rsNS+"value")
			if len(name) != 1 || len(val) != 1 {
				return nil, false, fmt.Errorf("results: rs:binding needs one rs:variable and one rs:value")
			}
			i := slices.Index(res.Vars, name[0].Value)
			if i < 0 { // some files bind variables they do not declare
				res.Vars = append(res.Vars, name[0].Value)
				for k := range sols {
					sols[k].row = append(sols[k].row, rdf.Term{})
				}
				row = append(row, rdf.Term{})
				i = len(res.Vars) - 1
			}
			row[i] = val[0]
		}
		idx := -1
		if ix := objs(s, rsNS+"index"); len(ix) > 0 {
			n, err := strconv.Atoi(ix[0].Value)
			if err != nil {
				return nil, false, fmt.Errorf("results: bad rs:index %q", ix[0].Value)
			}
			idx, ordered = n, true
		}
		sols = append(sols, sol{idx, row})
	}
	if ordered {
		slices.SortStableFunc(sols, func(a, b sol) int { return a.idx - b.idx })
	}
	for _, s := range sols {
		res.Rows = append(res.Rows, s.row)
	}
	return res, ordered, nil
}
