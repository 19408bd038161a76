// Package jsonld reads and writes JSON-LD 1.1 through a patched, vendored copy of json-gold (internal/ld). The
// processor never reaches the network or the file system by itself: remote contexts are loaded only through a
// Loader the caller configures, and every document (including loaded contexts) is bounded in size and nesting
// before it is parsed.
package jsonld

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld/internal/ld"
)

// Processing modes.
const (
	JSONLD10 = ld.JsonLd_1_0
	JSONLD11 = ld.JsonLd_1_1
)

// RDF direction modes (JSON-LD 1.1 §8.6): how a literal's base direction is kept in RDF.
const (
	DirectionI18nDatatype    = "i18n-datatype"
	DirectionCompoundLiteral = "compound-literal"
)

// Config holds what DecodeOptions cannot express. The zero Config is the safe default: no remote documents,
// JSON-LD 1.1, standard RDF.
type Config struct {
	// Context is passed to the Loader; nil means context.Background().
	Context context.Context
	// Loader fetches remote contexts; nil refuses them all (NoRemote).
	Loader Loader
	// MaxInputBytes bounds the document and every loaded context; 0 means DefaultMaxInputBytes.
	MaxInputBytes int64
	// MaxRemoteLoads bounds the distinct remote documents one document may load; 0 means DefaultMaxRemoteLoads.
	MaxRemoteLoads int
	// MaxTermDefinitions bounds the context processing one document may cause, counting every term definition
	// (contexts are reprocessed, e.g. type-scoped ones per node); 0 means DefaultMaxTermDefinitions.
	MaxTermDefinitions int
	// ExpandContext is a JSON context (an object, optionally wrapped as {"@context": ...}) applied before the
	// document's own, as the JSON-LD API's expandContext option.
	ExpandContext []byte
	// ProcessingMode is JSONLD11 (default) or JSONLD10.
	ProcessingMode string
	// ProduceGeneralizedRDF keeps triples with blank-node predicates instead of dropping them.
	ProduceGeneralizedRDF bool
	// RDFDirection is "", DirectionI18nDatatype or DirectionCompoundLiteral.
	RDFDirection string
}

// DefaultMaxTermDefinitions is generous for real documents (schema.org's context has about 3,000 terms and is
// processed once per distinct use) while keeping a hostile one to seconds of CPU.
const DefaultMaxTermDefinitions = 1_000_000

// Decoder turns one JSON-LD document into quads. The whole document is converted on the first call to Next or
// Prefixes (the JSON-LD algorithms need all of it).
type Decoder struct {
	r   io.Reader
	o   rdf.DecodeOptions
	cfg Config

	done     bool
	err      error
	quads    []rdf.Quad
	next     int
	prefixes []rdf.Prefix
}

// NewDecoder returns a JSON-LD decoder with the default Config.
func NewDecoder(r io.Reader, o rdf.DecodeOptions) *Decoder { return NewDecoderWith(r, o, Config{}) }

// NewDecoderWith returns a JSON-LD decoder with the given Config.
func NewDecoderWith(r io.Reader, o rdf.DecodeOptions, c Config) *Decoder {
	return &Decoder{r: r, o: o, cfg: c}
}

// Next returns the next quad, io.EOF at the end, or the error that stopped the conversion (a *rdf.SyntaxError for
// bad input, whose Msg starts with the JSON-LD error code).
func (d *Decoder) Next() (rdf.Quad, error) {
	d.run()
	if d.err != nil {
		return rdf.Quad{}, d.err
	}
	if d.next >= len(d.quads) {
		return rdf.Quad{}, io.EOF
	}
	q := d.quads[d.next]
	d.next++
	return q, nil
}

// Prefixes returns the simple term definitions of the document's top-level @context whose IRI ends in '#' or '/',
// in document order.
func (d *Decoder) Prefixes() []rdf.Prefix {
	d.run()
	return d.prefixes
}

// Base returns the base IRI the document was decoded against.
func (d *Decoder) Base() string { return d.o.Base }

func (d *Decoder) run() {
	if d.done {
		return
	}
	d.done = true
	d.quads, d.prefixes, d.err = decode(d.r, d.o, d.cfg)
}

func decode(r io.Reader, o rdf.DecodeOptions, c Config) (quads []rdf.Quad, prefixes []rdf.Prefix, err error) {
	lim := limitsFrom(o.Limits, c.MaxInputBytes)
	b, err := readAll(r, lim)
	if err != nil {
		return nil, nil, err
	}
	// RFC 8259 lets parsers ignore a byte order mark, which Windows tools write; encoding/json does not.
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	doc, err := parseJSON(b, lim)
	if err != nil {
		return nil, nil, err
	}
	switch doc.(type) {
	case map[string]any, []any:
	default:
		// json-gold would treat a top-level string as a URL to load.
		return nil, nil, &rdf.SyntaxError{Syntax: syntaxName, Line: 1, Column: 1,
			Msg: "invalid input: a JSON-LD document is a JSON object or array"}
	}
	prefixes = topLevelPrefixes(b)

	opts, err := processorOptions(o.Base, lim, c)
	if err != nil {
		return nil, nil, err
	}
	ds, err := toRDF(doc, opts)
	if err != nil {
		return nil, nil, locatedError(err, b, o.Base, lim, c, opts.DocumentLoader)
	}
	return datasetQuads(ds, o.BlankNodesOrNew()), prefixes, nil
}

func processorOptions(base string, lim parseLimits, c Config) (*ld.JsonLdOptions, error) {
	switch c.ProcessingMode {
	case "", JSONLD10, JSONLD11:
	default:
		return nil, fmt.Errorf("json-ld: unknown processing mode %q", c.ProcessingMode)
	}
	switch c.RDFDirection {
	case "", DirectionI18nDatatype, DirectionCompoundLiteral:
	default:
		return nil, fmt.Errorf("json-ld: unknown rdfDirection %q", c.RDFDirection)
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	loader := c.Loader
	if loader == nil {
		loader = NoRemote()
	}
	maxLoads := c.MaxRemoteLoads
	if maxLoads <= 0 {
		maxLoads = DefaultMaxRemoteLoads
	}
	opts := ld.NewJsonLdOptions(base)
	maxDefs := c.MaxTermDefinitions
	if maxDefs <= 0 {
		maxDefs = DefaultMaxTermDefinitions
	}
	opts.SetMaxTermDefinitions(maxDefs)
	opts.DocumentLoader = &docLoader{ctx: ctx, loader: loader, limits: lim, max: maxLoads, cache: map[string][]byte{}}
	if c.ProcessingMode != "" {
		opts.ProcessingMode = c.ProcessingMode
	}
	opts.ProduceGeneralizedRdf = c.ProduceGeneralizedRDF
	opts.RDFDirection = c.RDFDirection
	if len(c.ExpandContext) > 0 {
		ec, err := parseJSON(c.ExpandContext, lim)
		if err != nil {
			return nil, fmt.Errorf("json-ld: expand context: %w", err)
		}
		opts.ExpandContext = ec
	}
	return opts, nil
}

// toRDF runs the processor. It recovers panics: json-gold indexes maps with unchecked type assertions, and a
// malformed upload must give an error, not take the process down. Processor errors are returned as they are, for
// locatedError.
func toRDF(doc any, opts *ld.JsonLdOptions) (ds *ld.RDFDataset, err error) {
	defer func() {
		if p := recover(); p != nil {
			ds, err = nil, &rdf.SyntaxError{Syntax: syntaxName, Msg: fmt.Sprintf("invalid input: processor failed: %v", p)}
		}
	}()
	return ld.NewJsonLdProcessor().ToRDF(doc, opts)
}

// processorError wraps a json-gold error as a SyntaxError whose message starts with the JSON-LD error code.
func processorError(err error) error {
	var je *ld.JsonLdError
	if errors.As(err, &je) {
		msg := string(je.Code)
		if je.Details != nil {
			msg += ": " + fmt.Sprint(je.Details)
		}
		return &rdf.SyntaxError{Syntax: syntaxName, Msg: msg}
	}
	return fmt.Errorf("json-ld: %w", err)
}

// ErrorCode returns the JSON-LD error code (e.g. "invalid @id value") an error from this package carries, or "".
func ErrorCode(err error) string {
	var se *rdf.SyntaxError
	if !errors.As(err, &se) || se.Syntax != syntaxName {
		return ""
	}
	code, _, _ := strings.Cut(se.Msg, ": ")
	code, _, _ = strings.Cut(code, " at ") // located errors: "<code> at <path>: <details>"
	if !ld.IsErrorCode(code) {
		return ""
	}
	return code
}

// datasetQuads converts the processor's dataset, graphs in name order (default first) so that blank-node labels
// are allocated deterministically. json-gold renames every blank node to _:b0, _:b1, … per document, so its
// labels are mapped to fresh ones here rather than through BlankNodes.Label, which would merge the _:b0 of two
// documents decoded with the same allocator.
func datasetQuads(ds *ld.RDFDataset, alloc *rdf.BlankNodes) []rdf.Quad {
	blanks := blankMap{alloc: alloc, labels: map[string]string{}}
	names := make([]string, 0, len(ds.Graphs))
	n := 0
	for name, g := range ds.Graphs {
		names = append(names, name)
		n += len(g)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "@default") != (names[j] == "@default") {
			return names[i] == "@default"
		}
		return names[i] < names[j]
	})
	quads := make([]rdf.Quad, 0, n)
	for _, name := range names {
		for _, q := range ds.Graphs[name] {
			out := rdf.Quad{S: term(q.Subject, blanks), P: term(q.Predicate, blanks), O: term(q.Object, blanks)}
			if q.Graph != nil {
				out.G = term(q.Graph, blanks)
			}
			quads = append(quads, out)
		}
	}
	return quads
}

type blankMap struct {
	alloc  *rdf.BlankNodes
	labels map[string]string
}

func (m blankMap) Label(source string) string {
	l, ok := m.labels[source]
	if !ok {
		l = m.alloc.Fresh()
		m.labels[source] = l
	}
	return l
}

func term(n ld.Node, blanks blankMap) rdf.Term {
	switch v := n.(type) {
	case ld.IRI:
		return rdf.IRI(v.Value)
	case ld.BlankNode:
		return rdf.Blank(blanks.Label(strings.TrimPrefix(v.Attribute, "_:")))
	case ld.Literal:
		if v.Language != "" {
			return rdf.LangString(v.Value, v.Language)
		}
		return rdf.Literal(v.Value, v.Datatype)
	}
	return rdf.Term{}
}

var (
	_ rdf.Decoder      = (*Decoder)(nil)
	_ rdf.PrefixSource = (*Decoder)(nil)
	_ rdf.Encoder      = (*Encoder)(nil)
)
