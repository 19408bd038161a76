package jsonld

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
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

// document converts the buffered quads: Serialize RDF as JSON-LD, then compaction with a context of the prefixes.
func (e *Encoder) document() (any, error) {
	// A dataset is a set: a repeated statement would count as a second reference to a list node and keep the
	// list from being folded into @list.
	seen := make(map[rdf.Quad]struct{}, len(e.quads))
	quads := e.quads[:0]
	for _, q := range e.quads {
		if _, dup := seen[q]; !dup {
			seen[q] = struct{}{}
			quads = append(quads, q)
		}
	}
	expanded, err := fromRDF(quads, fromRDFOptions{useNativeTypes: e.cfg.UseNativeTypes, useRDFType: e.cfg.UseRDFType,
		direction: e.cfg.RDFDirection, mode10: e.cfg.ProcessingMode == JSONLD10})
	if err != nil {
		return nil, syntaxError(err, nil)
	}
	if e.cfg.Expanded {
		return expanded, nil
	}
	schemes := iriSchemes(quads)
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
	// Compaction never loads anything: the context is built here from the prefixes.
	p := newProcessor(Config{ProcessingMode: e.cfg.ProcessingMode}, limitsFrom(rdf.Limits{}, 0))
	return p.compactDocument(expanded, ctx, CompactOptions{Base: e.o.Base})
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
