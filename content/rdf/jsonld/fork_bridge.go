package jsonld

import (
	"context"
	"errors"
	"fmt"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld/internal/ld"
)

// docLoader adapts a Loader to json-gold for one document: it parses under the document's limits, caches by URL
// (scoped contexts are re-processed for every node that uses them) and counts distinct loads.
type docLoader struct {
	ctx    context.Context
	loader Loader
	limits parseLimits
	max    int
	cache  map[string][]byte
}

func (l *docLoader) LoadDocument(url string) (*ld.RemoteDocument, error) {
	if err := l.ctx.Err(); err != nil {
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, err)
	}
	b, ok := l.cache[url]
	if !ok {
		if len(l.cache) >= l.max {
			return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed,
				fmt.Sprintf("%s: more than %d remote documents", url, l.max))
		}
		var err error
		if b, err = l.loader.Load(l.ctx, url); err != nil {
			return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, err)
		}
		l.cache[url] = b
	}
	// Parse afresh on each use: the processor mutates the maps it is given.
	doc, err := parseJSON(b, l.limits)
	if err != nil {
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, fmt.Errorf("%s: %w", url, err))
	}
	return &ld.RemoteDocument{DocumentURL: url, Document: doc}, nil
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
