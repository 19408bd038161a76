package jsonld

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld/internal/ld"
)

// EncodeConfig holds what EncodeOptions cannot express; the zero value writes compacted JSON-LD with plain
// literals kept as strings and rdf:type as @type.
type EncodeConfig struct {
	// Expanded writes expanded JSON-LD (no @context, no compaction); EncodeOptions.Prefixes are then unused.
	Expanded bool
	// UseNativeTypes writes xsd:boolean, xsd:integer and xsd:double literals as JSON booleans and numbers. They
	// do not always round-trip (e.g. "01"^^xsd:integer), which is why it is off by default.
	UseNativeTypes bool
	// UseRDFType keeps rdf:type as a property instead of @type.
	UseRDFType bool
	// RDFDirection is "", DirectionI18nDatatype or DirectionCompoundLiteral: how literals that carry a base
	// direction were encoded in RDF, so that they turn back into @direction.
	RDFDirection string
	// ProcessingMode is JSONLD11 (default) or JSONLD10.
	ProcessingMode string
}

// Encoder writes JSON-LD. JSON-LD groups statements by subject, so the encoder buffers every quad and writes one
// document on Close, compacted with a context made of EncodeOptions.Prefixes so that the output uses the
// publisher's prefixes. Output is deterministic: nodes sorted by identifier, object keys sorted.
type Encoder struct {
	w     io.Writer
	o     rdf.EncodeOptions
	cfg   EncodeConfig
	quads []rdf.Quad
	done  bool
}

// NewEncoder returns a JSON-LD encoder with the default EncodeConfig.
func NewEncoder(w io.Writer, o rdf.EncodeOptions) *Encoder {
	return NewEncoderWith(w, o, EncodeConfig{})
}

// NewEncoderWith returns a JSON-LD encoder with the given EncodeConfig.
func NewEncoderWith(w io.Writer, o rdf.EncodeOptions, c EncodeConfig) *Encoder {
	return &Encoder{w: w, o: o, cfg: c}
}

// Encode buffers q.
func (e *Encoder) Encode(q rdf.Quad) error {
	if e.done {
		return fmt.Errorf("json-ld: encode after close")
	}
	if q.S.IsZero() || q.P.IsZero() || q.O.IsZero() {
		return fmt.Errorf("json-ld: incomplete quad %v", q)
	}
	e.quads = append(e.quads, q)
	return nil
}

// Close writes the document.
func (e *Encoder) Close() error {
	if e.done {
		return nil
	}
	e.done = true
	doc, err := e.document()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("json-ld: writing document: %w", err)
	}
	if _, err := e.w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("json-ld: writing document: %w", err)
	}
	return nil
}

// document converts the buffered quads; json-gold panics on some malformed structures, which must not escape.
func (e *Encoder) document() (doc any, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, fmt.Errorf("json-ld: converting RDF: %v", p)
		}
	}()
	opts := ld.NewJsonLdOptions(e.o.Base)
	// Compaction never loads anything: the context is built here from the prefixes.
	opts.DocumentLoader = &docLoader{ctx: context.Background(), loader: NoRemote(), cache: map[string][]byte{}}
	opts.UseNativeTypes = e.cfg.UseNativeTypes
	opts.UseRdfType = e.cfg.UseRDFType
	opts.RDFDirection = e.cfg.RDFDirection
	if e.cfg.ProcessingMode != "" {
		opts.ProcessingMode = e.cfg.ProcessingMode
	}
	proc := ld.NewJsonLdProcessor()
	expanded, err := proc.FromRDF(dataset(e.quads), opts)
	if err != nil {
		return nil, processorError(err)
	}
	if e.cfg.Expanded {
		return expanded, nil
	}
	schemes := iriSchemes(e.quads)
	ctx := map[string]any{}
	for _, p := range e.o.Prefixes {
		switch {
		case p.Name == "" || strings.HasPrefix(p.Name, "@"):
			// JSON-LD has no default prefix; "@vocab" would change how plain terms expand.
		case schemes[p.Name]:
			// An IRI such as urn:x would read as a compact IRI with the prefix "urn" (JSON-LD's "IRI confused
			// with prefix"), so a prefix named like a scheme in the data is left out.
		default:
			ctx[p.Name] = p.IRI
		}
	}
	compacted, err := proc.CompactExpanded(expanded, map[string]any{"@context": ctx}, opts)
	if err != nil {
		return nil, processorError(err)
	}
	if len(ctx) == 0 {
		delete(compacted, "@context")
	}
	return compacted, nil
}

// dataset converts quads to json-gold's dataset, without duplicates; blank nodes keep their labels.
func dataset(quads []rdf.Quad) *ld.RDFDataset {
	ds := ld.NewRDFDataset()
	// A dataset is a set: a repeated statement would count as a second reference to a list node and keep the
	// list from being folded into @list.
	seen := make(map[rdf.Quad]struct{}, len(quads))
	for _, q := range quads {
		if _, dup := seen[q]; dup {
			continue
		}
		seen[q] = struct{}{}
		name := "@default"
		if !q.G.IsZero() {
			name = nodeName(q.G)
		}
		ds.Graphs[name] = append(ds.Graphs[name], &ld.Quad{
			Subject: node(q.S), Predicate: node(q.P), Object: node(q.O), Graph: graphNode(q.G),
		})
	}
	return ds
}

func nodeName(t rdf.Term) string {
	if t.IsBlank() {
		return "_:" + t.Value
	}
	return t.Value
}

func graphNode(t rdf.Term) ld.Node {
	if t.IsZero() {
		return nil
	}
	return node(t)
}

func node(t rdf.Term) ld.Node {
	switch t.Kind {
	case rdf.KindBlank:
		return ld.NewBlankNode("_:" + t.Value)
	case rdf.KindLiteral:
		if t.Lang != "" {
			return ld.NewLiteral(t.Value, rdf.RDFLangString, t.Lang)
		}
		return ld.NewLiteral(t.Value, t.Datatype, "")
	}
	return ld.NewIRI(t.Value)
}

// iriSchemes returns the schemes of every IRI in quads (including datatypes).
func iriSchemes(quads []rdf.Quad) map[string]bool {
	schemes := map[string]bool{}
	add := func(s string) {
		if i := strings.IndexByte(s, ':'); i > 0 {
			schemes[s[:i]] = true
		}
	}
	for _, q := range quads {
		for _, t := range [...]rdf.Term{q.S, q.P, q.O, q.G} {
			switch t.Kind {
			case rdf.KindIRI:
				add(t.Value)
			case rdf.KindLiteral:
				add(t.Datatype)
			}
		}
	}
	return schemes
}
