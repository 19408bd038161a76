// Package protocol serves the SPARQL 1.1 Protocol (query operation) over HTTP: GET with query=, POST with an
// application/sparql-query body or a form-encoded query=, default-graph-uri and named-graph-uri, content
// negotiation of results, a time limit, cancellation when the client goes away, CORS for browser clients, and the
// SPARQL 1.1 Service Description for a GET without a query.
package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/ldhub/ldhub/api/apierr"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
	"github.com/ldhub/ldhub/sparqlsvc/results"
)

// DatasetRequest says which dataset a request wants: the endpoint's own, extended by the protocol's graph
// parameters (each an id, URI or direct URL of a publication or version, decisions.md "SPARQL").
type DatasetRequest struct {
	DefaultGraphs []string
	NamedGraphs   []string
	// QueryDefault and QueryNamed are the query's FROM and FROM NAMED, used when the parameters are absent.
	QueryDefault []string
	QueryNamed   []string
}

// Resolver opens the dataset of a request after checking that the caller may read every part of it. The
// returned release function is called once the query is done. Errors should be *apierr.Error (404 for graphs the
// caller may not see, as if they did not exist).
type Resolver func(ctx context.Context, r *http.Request, d DatasetRequest) (ds *eval.Dataset, release func(), err error)

// Handler is one SPARQL endpoint.
type Handler struct {
	Resolve Resolver
	// Endpoint returns the endpoint's own URL (the base IRI of queries and the subject of its description).
	Endpoint func(r *http.Request) string
	Codecs   *codec.Registry
	// Timeout bounds every query (default 30 s); MaxRows bounds what a query may hold in memory.
	Timeout time.Duration
	MaxRows int
	// MaxQueryBytes bounds the query text (default 1 MiB).
	MaxQueryBytes int64
	Log           *slog.Logger
}

const defaultMaxQuery = 1 << 20

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setCORS(w.Header())
	switch r.Method {
	case http.MethodOptions:
		w.Header().Set("Allow", "GET, HEAD, POST, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet, http.MethodHead, http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST, OPTIONS")
		apierr.Write(w, r, apierr.New(http.StatusMethodNotAllowed, "a SPARQL endpoint answers GET and POST"))
		return
	}
	query, params, err := h.readQuery(r)
	if err != nil {
		apierr.Write(w, r, err)
		return
	}
	if query == "" && r.Method != http.MethodPost {
		h.describe(w, r)
		return
	}
	if query == "" {
		apierr.Write(w, r, apierr.New(http.StatusBadRequest, "missing query"))
		return
	}
	if err := h.answer(w, r, query, params); err != nil {
		var ae *apierr.Error
		if !errors.As(err, &ae) && h.Log != nil {
			h.Log.ErrorContext(r.Context(), "sparql query failed", "path", r.URL.Path, "err", err)
		}
		apierr.Write(w, r, err)
	}
}

func setCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept")
	h.Add("Vary", "Accept")
}

// readQuery extracts the query and the protocol parameters from either request shape.
func (h *Handler) readQuery(r *http.Request) (string, map[string][]string, error) {
	limit := h.MaxQueryBytes
	if limit <= 0 {
		limit = defaultMaxQuery
	}
	params := r.URL.Query()
	if r.Method != http.MethodPost {
		return params.Get("query"), params, nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return "", nil, apierr.New(http.StatusUnsupportedMediaType, "POST needs Content-Type application/sparql-query or application/x-www-form-urlencoded")
	}
	body := http.MaxBytesReader(nil, r.Body, limit)
	switch mt {
	case "application/sparql-query":
		b, err := io.ReadAll(body)
		if err != nil {
			return "", nil, tooLarge(err, limit)
		}
		return string(b), params, nil
	case "application/x-www-form-urlencoded":
		r.Body = body
		if err := r.ParseForm(); err != nil {
			return "", nil, tooLarge(err, limit)
		}
		for k, v := range r.PostForm {
			params[k] = append(params[k], v...)
		}
		return r.PostForm.Get("query"), params, nil
	}
	return "", nil, apierr.New(http.StatusUnsupportedMediaType, "POST needs Content-Type application/sparql-query or application/x-www-form-urlencoded, not "+mt)
}

func tooLarge(err error, limit int64) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return apierr.New(http.StatusRequestEntityTooLarge, fmt.Sprintf("the query is larger than %d bytes", limit))
	}
	return apierr.New(http.StatusBadRequest, "cannot read the request body: "+err.Error())
}

func (h *Handler) answer(w http.ResponseWriter, r *http.Request, query string, params map[string][]string) error {
	base := ""
	if h.Endpoint != nil {
		base = h.Endpoint(r)
	}
	q, err := parser.Parse(query, parser.Options{Base: base})
	if err != nil {
		var se *rdf.SyntaxError
		if errors.As(err, &se) {
			return apierr.FromSyntax(se, "application/sparql-query")
		}
		return apierr.New(http.StatusBadRequest, "invalid query: "+err.Error())
	}
	// Negotiate before running, so a client that accepts nothing we write does not cost a query.
	accept := r.Header.Get("Accept")
	var resFormat results.Format
	var rdfSyntax codec.Syntax
	switch q.Form {
	case algebra.Select, algebra.Ask:
		mt, ok := codec.Negotiate(defaultAccept(accept), results.Offers())
		if !ok {
			return apierr.New(http.StatusNotAcceptable, "results can be sent as "+strings.Join(results.Offers(), ", "))
		}
		resFormat, _ = results.ForMediaType(mt)
	default:
		offers := h.rdfOffers()
		syn, ok := h.Codecs.Negotiate(defaultAccept(accept), offers)
		if !ok {
			return apierr.New(http.StatusNotAcceptable, "graphs can be sent as "+strings.Join(offers, ", "))
		}
		rdfSyntax = syn
	}
	dr := DatasetRequest{DefaultGraphs: params["default-graph-uri"], NamedGraphs: params["named-graph-uri"]}
	if q.Dataset != nil {
		dr.QueryDefault, dr.QueryNamed = q.Dataset.Default, q.Dataset.Named
	}
	ds, release, err := h.Resolve(r.Context(), r, dr)
	if err != nil {
		return err
	}
	defer release()
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	res, err := eval.Run(r.Context(), ds, q, eval.Options{Timeout: timeout, MaxRows: h.MaxRows})
	switch {
	case errors.Is(err, eval.ErrTimeout):
		return apierr.New(http.StatusServiceUnavailable, fmt.Sprintf("the query ran longer than its limit of %s", timeout))
	case errors.Is(err, eval.ErrTooLarge):
		return apierr.New(http.StatusServiceUnavailable, "the query needs more memory than its budget allows; add LIMIT or narrow the pattern")
	case errors.Is(err, eval.ErrService):
		return apierr.New(http.StatusBadRequest, err.Error())
	case errors.Is(err, context.Canceled):
		return nil // the client went away; nobody is listening
	case err != nil:
		return err
	}
	hd := w.Header()
	switch q.Form {
	case algebra.Select, algebra.Ask:
		hd.Set("Content-Type", resFormat.MediaType()+"; charset=utf-8")
		if r.Method == http.MethodHead {
			return nil
		}
		if q.Form == algebra.Ask {
			return results.WriteBoolean(w, resFormat, res.Boolean)
		}
		return results.WriteAll(w, resFormat, &results.Result{Vars: res.Vars, Rows: res.Rows})
	}
	hd.Set("Content-Type", rdfSyntax.MediaTypes[0]+"; charset=utf-8")
	if r.Method == http.MethodHead {
		return nil
	}
	enc := rdfSyntax.NewEncoder(w, rdf.EncodeOptions{Prefixes: q.Prefixes})
	for _, t := range res.Triples {
		if err := enc.Encode(t); err != nil {
			return err
		}
	}
	return enc.Close()
}

// defaultAccept maps a missing Accept to */*; negotiation then picks the first offer (JSON results, Turtle).
func defaultAccept(a string) string {
	if strings.TrimSpace(a) == "" {
		return "*/*"
	}
	return a
}

// rdfOffers lists the graph syntaxes with Turtle first, the default of decisions.md.
func (h *Handler) rdfOffers() []string {
	offers := []string{"text/turtle"}
	for _, mt := range h.Codecs.Writable() {
		if mt != "text/turtle" {
			s, _ := h.Codecs.ByMediaType(mt)
			if !s.Dataset {
				offers = append(offers, mt)
			}
		}
	}
	return offers
}

const sdNS = "http://www.w3.org/ns/sparql-service-description#"

// describe answers a GET without a query with the endpoint's SPARQL 1.1 Service Description.
func (h *Handler) describe(w http.ResponseWriter, r *http.Request) {
	endpoint := ""
	if h.Endpoint != nil {
		endpoint = h.Endpoint(r)
	}
	offers := h.rdfOffers()
	syn, ok := h.Codecs.Negotiate(defaultAccept(r.Header.Get("Accept")), offers)
	if !ok {
		apierr.Write(w, r, apierr.New(http.StatusNotAcceptable, "the service description can be sent as "+strings.Join(offers, ", ")))
		return
	}
	svc := rdf.Blank("service")
	sd := func(local string) rdf.Term { return rdf.IRI(sdNS + local) }
	quads := []rdf.Quad{
		rdf.Triple(svc, rdf.IRI(rdf.RDFType), sd("Service")),
		rdf.Triple(svc, sd("endpoint"), rdf.IRI(endpoint)),
		rdf.Triple(svc, sd("supportedLanguage"), sd("SPARQL11Query")),
	}
	for _, f := range []string{"SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV", "Turtle", "N-Triples", "RDF_XML", "JSON-LD"} {
		quads = append(quads, rdf.Triple(svc, sd("resultFormat"), rdf.IRI("http://www.w3.org/ns/formats/"+f)))
	}
	w.Header().Set("Content-Type", syn.MediaTypes[0]+"; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	enc := syn.NewEncoder(w, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "sd", IRI: sdNS}}})
	for _, q := range quads {
		_ = enc.Encode(q)
	}
	_ = enc.Close()
}
