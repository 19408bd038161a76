// Package codec maps syntax names, media types and file extensions to the RDF codecs, so that the server, the
// build pipeline and `ldhub convert` agree on one table, and negotiates a syntax from an HTTP Accept header.
package codec

import (
	"fmt"
	"io"
	"mime"
	"path/filepath"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/rdfjson"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
	"github.com/ldhub/ldhub/content/rdf/turtle"
	"github.com/ldhub/ldhub/content/rdf/turtleenc"
)

// Syntax describes one RDF syntax and how to read and write it.
type Syntax struct {
	Name       string   // short name used on the command line, e.g. "turtle"
	MediaTypes []string // the first is canonical (sent in Content-Type)
	// AlsoAsked are media types a reader's Accept may name for this syntax without their being its own: a direct
	// URL answers them with it (in its canonical type), but ByMediaType does not know them, so content uploaded
	// under such a type is not read as this syntax. application/json names JSON-LD (JSON-LD 1.1 §9: a JSON
	// document is one), yet JSON uploaded may be RDF/JSON.
	AlsoAsked  []string
	Extensions []string // with the dot, e.g. ".ttl"; the first is canonical
	Dataset    bool     // can hold named graphs
	// Streaming is true when the encoder writes each statement as it comes. The others buffer until Close, so a
	// caller loses nothing by reading the whole input first, and can then pass every prefix the input declared.
	Streaming bool
	// NewDecoder reads the syntax; decoders of prefix-declaring syntaxes also implement rdf.PrefixSource.
	NewDecoder func(io.Reader, rdf.DecodeOptions) rdf.Decoder
	// NewEncoder writes the syntax; nil when ldhub cannot write it.
	NewEncoder func(io.Writer, rdf.EncodeOptions) rdf.Encoder
	// NewStreamEncoder, for syntaxes whose NewEncoder holds the whole graph to pretty-print it, writes each
	// statement as it comes, in memory that does not grow with the graph (statements grouped by subject read
	// best). Callers switch to it above StreamAbove bytes of input.
	NewStreamEncoder func(io.Writer, rdf.EncodeOptions) rdf.Encoder
}

// StreamAbove is the input size above which outputs are written with NewStreamEncoder where a syntax has one: the
// pretty encoders hold the whole graph (about 20 times the input size in memory for Turtle, more for RDF/XML and
// JSON-LD), which is fine for a few megabytes and not for a dump of millions of statements.
const StreamAbove = 4 << 20

// Asked lists every media type an Accept header may name the syntax by: MediaTypes, then AlsoAsked.
func (s Syntax) Asked() []string {
	return append(s.MediaTypes[:len(s.MediaTypes):len(s.MediaTypes)], s.AlsoAsked...)
}

// CanEncode reports whether the syntax can be written.
func (s Syntax) CanEncode() bool { return s.NewEncoder != nil }

// Registry is a set of syntaxes indexed by name, media type and extension. It is read-only once built, so one
// Registry may be shared by concurrent requests.
type Registry struct {
	syntaxes []Syntax
	byName   map[string]int
	byMedia  map[string]int
	byExt    map[string]int
}

// NewRegistry indexes the given syntaxes; a name, media type or extension claimed twice is an error.
func NewRegistry(syntaxes ...Syntax) (*Registry, error) {
	r := &Registry{byName: map[string]int{}, byMedia: map[string]int{}, byExt: map[string]int{}}
	for i, s := range syntaxes {
		if s.Name == "" || s.NewDecoder == nil || len(s.MediaTypes) == 0 {
			return nil, fmt.Errorf("codec: syntax %q needs a name, a decoder and a media type", s.Name)
		}
		if err := claim(r.byName, strings.ToLower(s.Name), i, "name"); err != nil {
			return nil, err
		}
		for _, m := range s.MediaTypes {
			if err := claim(r.byMedia, strings.ToLower(m), i, "media type"); err != nil {
				return nil, err
			}
		}
		for _, e := range s.Extensions {
			if !strings.HasPrefix(e, ".") {
				return nil, fmt.Errorf("codec: extension %q of %s must start with '.'", e, s.Name)
			}
			if err := claim(r.byExt, strings.ToLower(e), i, "extension"); err != nil {
				return nil, err
			}
		}
		r.syntaxes = append(r.syntaxes, s)
	}
	return r, nil
}

func claim(m map[string]int, k string, i int, what string) error {
	if _, dup := m[k]; dup {
		return fmt.Errorf("codec: %s %q registered twice", what, k)
	}
	m[k] = i
	return nil
}

// Default returns a registry of every syntax ldhub implements. Each call builds a new one (no shared state).
func Default() *Registry {
	r, err := NewRegistry(defaultSyntaxes()...)
	if err != nil {
		panic(err) // the built-in table is fixed; TestDefault keeps it consistent
	}
	return r
}

func defaultSyntaxes() []Syntax {
	return []Syntax{
		{
			Name:       "turtle",
			MediaTypes: []string{"text/turtle", "application/x-turtle"},
			Extensions: []string{".ttl"},
			NewDecoder: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewDecoder(r, o) },
			NewEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return turtleenc.NewEncoder(w, o) },
			NewStreamEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder {
				return turtleenc.NewStreamEncoder(w, o)
			},
		},
		{
			Name:       "n-triples",
			MediaTypes: []string{"application/n-triples"},
			Extensions: []string{".nt"},
			NewDecoder: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewDecoder(r, o) },
			NewEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return ntriples.NewEncoder(w, o) },
			Streaming:  true,
		},
		{
			Name:       "n-quads",
			MediaTypes: []string{"application/n-quads"},
			Extensions: []string{".nq"},
			Dataset:    true,
			NewDecoder: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewQuadDecoder(r, o) },
			NewEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return ntriples.NewQuadEncoder(w, o) },
			Streaming:  true,
		},
		{
			Name:       "trig",
			MediaTypes: []string{"application/trig"},
			Extensions: []string{".trig"},
			Dataset:    true,
			NewDecoder: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewTriGDecoder(r, o) },
			NewEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return turtleenc.NewTriGEncoder(w, o) },
			NewStreamEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder {
				return turtleenc.NewTriGStreamEncoder(w, o)
			},
		},
		{
			Name:       "n3",
			MediaTypes: []string{"text/n3", "text/rdf+n3"},
			Extensions: []string{".n3"},
			NewDecoder: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewN3Decoder(r, o) },
		},
		{
			Name:       "rdf-xml",
			MediaTypes: []string{"application/rdf+xml"},
			Extensions: []string{".rdf", ".owl", ".xml"},
			NewDecoder: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return rdfxml.NewDecoder(r, o) },
			NewEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return rdfxml.NewEncoder(w, o) },
			NewStreamEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder {
				return rdfxml.NewStreamEncoder(w, o)
			},
		},
		{
			Name:       "json-ld",
			MediaTypes: []string{"application/ld+json"},
			AlsoAsked:  []string{"application/json"},
			Extensions: []string{".jsonld"},
			Dataset:    true,
			NewDecoder: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return jsonld.NewDecoder(r, o) },
			NewEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return jsonld.NewEncoder(w, o) },
			NewStreamEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder {
				return jsonld.NewStreamEncoder(w, o)
			},
		},
		{
			Name:       "rdf-json",
			MediaTypes: []string{"application/rdf+json"},
			Extensions: []string{".rj"},
			NewDecoder: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return rdfjson.NewDecoder(r, o) },
			NewEncoder: func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return rdfjson.NewEncoder(w, o) },
		},
	}
}

// Syntaxes returns every syntax in registration order.
func (r *Registry) Syntaxes() []Syntax { return append([]Syntax(nil), r.syntaxes...) }

// ByName finds a syntax by its short name, case-insensitively.
func (r *Registry) ByName(name string) (Syntax, bool) { return r.get(r.byName, strings.ToLower(name)) }

// Lookup finds a syntax by name, media type or extension, in that order: what a user may type on a command line.
func (r *Registry) Lookup(s string) (Syntax, bool) {
	if syn, ok := r.ByName(s); ok {
		return syn, true
	}
	if strings.Contains(s, "/") {
		return r.ByMediaType(s)
	}
	return r.ByExtension(s)
}

// ByMediaType finds a syntax by media type, ignoring parameters and case ("text/turtle; charset=utf-8").
func (r *Registry) ByMediaType(mediaType string) (Syntax, bool) {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		mt, _, _ = strings.Cut(mediaType, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	return r.get(r.byMedia, mt)
}

// ByExtension finds a syntax by file extension, with or without the dot, case-insensitively.
func (r *Registry) ByExtension(ext string) (Syntax, bool) {
	if !strings.HasPrefix(ext, ".") {
		ext = "." + ext
	}
	return r.get(r.byExt, strings.ToLower(ext))
}

// ByPath finds a syntax from a file name's extension.
func (r *Registry) ByPath(path string) (Syntax, bool) {
	ext := filepath.Ext(path)
	if ext == "" {
		return Syntax{}, false
	}
	return r.ByExtension(ext)
}

func (r *Registry) get(m map[string]int, k string) (Syntax, bool) {
	i, ok := m[k]
	if !ok {
		return Syntax{}, false
	}
	return r.syntaxes[i], true
}

// Writable returns the canonical media types of the syntaxes that can be written, in registration order: the
// offers for content negotiation.
func (r *Registry) Writable() []string {
	var out []string
	for _, s := range r.syntaxes {
		if s.CanEncode() {
			out = append(out, s.MediaTypes[0])
		}
	}
	return out
}

// Negotiate picks the writable syntax the Accept header prefers (see the package function Negotiate); offers
// nil means r.Writable().
func (r *Registry) Negotiate(accept string, offers []string) (Syntax, bool) {
	if offers == nil {
		offers = r.Writable()
	}
	mt, ok := Negotiate(accept, offers)
	if !ok {
		return Syntax{}, false
	}
	return r.ByMediaType(mt)
}
