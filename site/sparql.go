package site

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
)

// isSPARQL tells a SPARQL request to a direct URL (api.md 4.5: "the same URL can be used for SPARQL") from a
// request for a representation: a POST, or a GET with a query parameter.
func isSPARQL(r *http.Request) bool {
	return r.Method == http.MethodPost || (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Query().Has("query")
}

// sparqlSegment ends the path of the endpoint form <publication or version URL>/sparql. A resource of that name
// stays reachable with an extension (…/sparql.ttl).
const sparqlSegment = "sparql"

// serveSPARQL answers a query over the located publication or version with the SPARQL protocol handler; at the
// …/sparql form (endpoint) a GET without a query gets the service description. Other publications
// (default-graph-uri, FROM) are the API endpoint's business, which knows every publication's id and grants; here
// they are refused clearly.
func (h *Handler) serveSPARQL(w http.ResponseWriter, r *http.Request, t target, endpoint bool) {
	self := t.page.URI + strings.TrimPrefix(t.page.Self, t.page.Path)
	if endpoint {
		self += "/" + sparqlSegment
	}
	lim := h.o.SPARQL
	if t.page.Private {
		lim = h.o.SPARQLCredentialed
	}
	ph := &protocol.Handler{
		WriteError: apierr.Write,
		Codecs:     h.o.Codecs,
		Log:        h.o.Log,
		Limits:     lim,
		Gate:       h.o.SPARQLGate,
		Endpoint:   func(*http.Request) string { return self },
		Resolve: func(ctx context.Context, r *http.Request, d protocol.DatasetRequest) (protocol.Backend, func(), error) {
			if len(d.DefaultGraphs)+len(d.NamedGraphs)+len(d.QueryDefault)+len(d.QueryNamed) > 0 {
				return nil, nil, apierr.New(http.StatusBadRequest, "a direct URL queries its own publication only; use the API's SPARQL endpoint to combine publications")
			}
			ds, release, err := h.acquireIndex(filepath.Join(t.dir, tree.Index))
			if err != nil {
				return nil, nil, apierr.New(http.StatusNotFound, "no SPARQL index for "+t.page.Self)
			}
			return eval.FromIndex(ds), release, nil
		},
	}
	if t.page.Private {
		w.Header().Set("Cache-Control", "private, no-cache")
	}
	ph.ServeHTTP(w, r)
}
