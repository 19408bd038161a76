// Package results writes and reads SPARQL 1.1 query results: JSON, XML, CSV and TSV (the formats of the SPARQL 1.1
// Protocol), plus the rs: RDF vocabulary the W3C tests use for expected results. Writers stream row by row so a
// large result never has to be held in memory.
package results

import (
	"fmt"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// Format is a result serialisation.
type Format int

const (
	JSON Format = iota
	XML
	CSV
	TSV
)

// MediaType returns the canonical media type of f.
func (f Format) MediaType() string {
	switch f {
	case XML:
		return "application/sparql-results+xml"
	case CSV:
		return "text/csv"
	case TSV:
		return "text/tab-separated-values"
	}
	return "application/sparql-results+json"
}

// String returns a short name.
func (f Format) String() string {
	return [...]string{"json", "xml", "csv", "tsv"}[f]
}

// MediaTypes lists every media type a result format is offered under, in server preference order
// (decisions.md: application/json is an alias of SPARQL JSON).
var mediaTypes = []struct {
	mt string
	f  Format
}{
	{"application/sparql-results+json", JSON},
	{"application/json", JSON},
	{"application/sparql-results+xml", XML},
	{"application/xml", XML},
	{"text/csv", CSV},
	{"text/tab-separated-values", TSV},
}

// Offers returns the media types results can be written in, preferred first, for content negotiation.
func Offers() []string {
	out := make([]string, len(mediaTypes))
	for i, m := range mediaTypes {
		out[i] = m.mt
	}
	return out
}

// ForMediaType returns the format of a media type (parameters ignored).
func ForMediaType(mt string) (Format, bool) {
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	mt = strings.ToLower(strings.TrimSpace(mt))
	for _, m := range mediaTypes {
		if m.mt == mt {
			return m.f, true
		}
	}
	return 0, false
}

// Result is a whole result in memory: a solution sequence or a boolean. Used by tests and small answers.
type Result struct {
	Vars []string
	// Rows hold one term per variable, aligned with Vars; a zero Term is unbound.
	Rows    [][]rdf.Term
	Boolean *bool
}

// IsBoolean reports whether r is an ASK result.
func (r *Result) IsBoolean() bool { return r.Boolean != nil }

// Get returns the value of variable v in row i.
func (r *Result) Get(i int, v string) rdf.Term {
	for j, name := range r.Vars {
		if name == v {
			return r.Rows[i][j]
		}
	}
	return rdf.Term{}
}

// Writer streams a solution sequence.
type Writer interface {
	// Begin writes the header; it is called once, before any Row.
	Begin(vars []string) error
	// Row writes one solution; values align with the vars given to Begin, a zero Term is unbound.
	Row(values []rdf.Term) error
	// End writes the trailer and flushes.
	End() error
}

// EndTruncated ends what w wrote like End, marking the solutions as cut short for reason where the format has
// room: a top-level "ldhub:truncated" member in JSON (after "results"; readers ignore members they do not know)
// and a comment in XML. CSV and TSV have no room; the HTTP trailer carries it (sparqlsvc/protocol).
func EndTruncated(w Writer, reason string) error {
	if t, ok := w.(interface{ endTruncated(string) error }); ok {
		return t.endTruncated(reason)
	}
	return w.End()
}

// NewWriter returns a streaming writer for f.
func NewWriter(w Output, f Format) Writer {
	switch f {
	case XML:
		return &xmlWriter{w: newBuf(w)}
	case CSV:
		return &csvWriter{w: newBuf(w)}
	case TSV:
		return &tsvWriter{w: newBuf(w)}
	}
	return &jsonWriter{w: newBuf(w)}
}

// WriteBoolean writes an ASK result. CSV and TSV have no boolean form in the standard; like most engines, ldhub
// writes the bare word true or false, which is what clients of those formats parse.
func WriteBoolean(w Output, f Format, v bool) error {
	b := newBuf(w)
	switch f {
	case XML:
		fmt.Fprintf(b, "<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">\n  <head/>\n  <boolean>%t</boolean>\n</sparql>\n", v)
	case CSV, TSV:
		fmt.Fprintf(b, "%t\n", v)
	default:
		fmt.Fprintf(b, "{\"head\":{},\"boolean\":%t}\n", v)
	}
	return b.Flush()
}

// WriteAll writes a whole in-memory result.
func WriteAll(w Output, f Format, r *Result) error {
	if r.Boolean != nil {
		return WriteBoolean(w, f, *r.Boolean)
	}
	wr := NewWriter(w, f)
	if err := wr.Begin(r.Vars); err != nil {
		return err
	}
	for _, row := range r.Rows {
		if err := wr.Row(row); err != nil {
			return err
		}
	}
	return wr.End()
}
