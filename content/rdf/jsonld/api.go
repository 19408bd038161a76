package jsonld

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
)

// Expand reads a JSON-LD document and returns its expanded form (JSON-LD 1.1 API expand()): an array of node
// objects, as encoding/json values. base is the document's IRI; c configures contexts as for decoding.
func Expand(r io.Reader, base string, c Config) ([]any, error) {
	lim := limitsFrom(rdf.Limits{}, c.MaxInputBytes)
	b, err := readAll(r, lim)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	doc, err := parseJSON(b, lim)
	if err != nil {
		return nil, err
	}
	p := newProcessor(c, lim)
	active, err := p.initialContext(base, c)
	if err != nil {
		return nil, syntaxError(err, b)
	}
	x, err := p.expandDocument(active, doc, base)
	if err != nil {
		return nil, syntaxError(err, b)
	}
	return x, nil
}

// initialContext is the context a document starts with: the base, then Config.ExpandContext.
func (p *processor) initialContext(base string, c Config) (*activeContext, error) {
	active := newActiveContext(base)
	if len(c.ExpandContext) == 0 {
		return active, nil
	}
	ec, err := parseJSON(c.ExpandContext, p.limits)
	if err != nil {
		return nil, fmt.Errorf("json-ld: expand context: %w", err)
	}
	if m, ok := ec.(map[string]any); ok {
		if inner, ok := m["@context"]; ok {
			ec = inner
		}
	}
	p.frozen++
	defer func() { p.frozen-- }()
	return p.processContext(active, ec, base, nil, false, true, true)
}

// expandDocument expands a whole document and applies the API's final steps: a lone @graph is unwrapped and the
// result is always an array.
func (p *processor) expandDocument(active *activeContext, doc any, base string) ([]any, error) {
	x, err := p.expand(active, "", doc, base, false)
	if err != nil {
		return nil, err
	}
	if m, ok := x.(map[string]any); ok {
		if g, ok := m["@graph"]; ok && len(m) == 1 {
			x = g
		}
	}
	if x == nil {
		return []any{}, nil
	}
	return asArray(x), nil
}

// CompactOptions are the options of Compact beyond Config.
type CompactOptions struct {
	// Base is the document's IRI, against which IRIs are made relative when CompactToRelative.
	Base string
	// KeepArrays keeps one-element arrays (the API's compactArrays=false).
	KeepArrays bool
	// Absolute keeps IRIs absolute (the API's compactToRelative=false).
	Absolute bool
}

// Compact compacts a JSON-LD document (any form) with a context (JSON-LD 1.1 API compact()): ctx is a context
// value (object, array or IRI) or an object with @context. The result carries ctx as its @context unless ctx
// is empty.
func Compact(doc any, ctx any, o CompactOptions, c Config) (map[string]any, error) {
	lim := limitsFrom(rdf.Limits{}, c.MaxInputBytes)
	p := newProcessor(c, lim)
	active, err := p.initialContext(o.Base, c)
	if err != nil {
		return nil, syntaxError(err, nil)
	}
	expanded, err := p.expandDocument(active, doc, o.Base)
	if err != nil {
		return nil, syntaxError(err, nil)
	}
	if m, ok := ctx.(map[string]any); ok {
		if inner, ok := m["@context"]; ok {
			ctx = inner
		}
	}
	return p.compactDocument(expanded, ctx, o)
}

func (p *processor) compactDocument(expanded []any, ctx any, o CompactOptions) (map[string]any, error) {
	base := o.Base
	if o.Absolute {
		base = ""
	}
	active, err := p.processContext(newActiveContext(base), ctx, o.Base, nil, false, true, true)
	if err != nil {
		return nil, syntaxError(err, nil)
	}
	x, err := p.compact(active, "", expanded, !o.KeepArrays)
	if err != nil {
		return nil, syntaxError(err, nil)
	}
	var result map[string]any
	switch v := x.(type) {
	case []any:
		if len(v) == 0 {
			result = map[string]any{}
		} else {
			result = map[string]any{p.alias(active, "@graph"): v}
		}
	case map[string]any:
		result = v
	default:
		result = map[string]any{}
	}
	if !emptyContext(ctx) {
		result["@context"] = ctx
	}
	return result, nil
}

func emptyContext(ctx any) bool {
	switch c := ctx.(type) {
	case nil:
		return true
	case map[string]any:
		return len(c) == 0
	case []any:
		return len(c) == 0
	}
	return false
}
