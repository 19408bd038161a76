package site

import (
	"bytes"
	"context"
	"net/http"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
	"github.com/ldhub/ldhub/sparqlsvc/results"
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
			if h.o.SPARQLStore != nil {
				if b := h.o.SPARQLStore(t.page.Version.URL, t.page.Version.ID); b != nil {
					return b, func() {}, nil
				}
			}
			ds, release, err := h.acquireIndex(t)
			if err != nil {
				return nil, nil, apierr.New(http.StatusNotFound, "no SPARQL index for "+t.page.Self)
			}
			return eval.FromIndex(ds), release, nil
		},
	}
	ph.Pages = answerPages{h: h, t: t, endpoint: strings.TrimSuffix(r.URL.Path, "/")}
	if t.page.Private {
		w.Header().Set("Cache-Control", "private, no-cache")
	}
	ph.ServeHTTP(w, r)
}

var resultNames = map[results.Format]string{results.JSON: "SPARQL JSON", results.XML: "SPARQL XML", results.CSV: "CSV", results.TSV: "TSV"}

// answerPages renders the answer pages of one publication's (or version's) endpoint with the site's theme.
type answerPages struct {
	h        *Handler
	t        target
	endpoint string // the URL path queried, where the page's form sends the next query
}

func (p answerPages) RenderAnswer(w http.ResponseWriter, r *http.Request, a *protocol.Answer) {
	qp := &html.QueryPage{Endpoint: p.endpoint, Query: a.Query, Form: a.Form, Vars: a.Vars, Rows: a.Rows,
		Boolean: a.Boolean, Triples: len(a.Triples), Truncated: a.Truncated}
	qp.Crumbs, qp.Publication = describe.Crumbs(p.h.o.Theme.Title(), p.t.page)
	status := http.StatusOK
	if a.Err != nil {
		status = a.Status
		qp.Error = a.Err.Error()
		if status >= 500 && status != http.StatusServiceUnavailable {
			qp.Error = "the query failed: internal error"
		}
	}
	if len(a.Triples) > 0 {
		var buf bytes.Buffer
		syn, _ := p.h.o.Codecs.ByMediaType("text/turtle")
		enc := syn.NewEncoder(&buf, rdf.EncodeOptions{Prefixes: append(a.Prefixes, tree.WellKnownPrefixes...)})
		for _, q := range a.Triples {
			if err := enc.Encode(q); err != nil {
				break
			}
		}
		_ = enc.Close()
		qp.Turtle = buf.String()
	}
	seen := map[string]bool{}
	for _, mt := range a.Formats {
		// One link per format, under its canonical media type (the offers include aliases).
		name := ""
		if f, ok := results.ForMediaType(mt); ok {
			mt, name = f.MediaType(), resultNames[f]
		} else if syn, ok := p.h.o.Codecs.ByMediaType(mt); ok {
			mt, name = syn.MediaTypes[0], syn.Name
		}
		if name == "" || seen[mt] {
			continue
		}
		seen[mt] = true
		qp.Downloads = append(qp.Downloads, html.Dump{Format: name, MediaType: mt, URL: protocol.FormatLink(r, mt)})
	}
	page, err := p.h.o.Theme.RenderQuery(r.Context(), qp)
	if err != nil {
		p.h.renderFailed(w, r, "a query page", err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(page)
	}
}
