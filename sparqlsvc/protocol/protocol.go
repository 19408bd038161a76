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
	"slices"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/httpx"
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

// Resolver opens the dataset of a request after checking that the caller may read every part of it, on the
// backend that holds it. The returned release function is called once the query is done. Errors should carry their
// status (an error with an HTTPStatus method, such as *Error; 404 for graphs the caller may not see, as if they did
// not exist).
type Resolver func(ctx context.Context, r *http.Request, d DatasetRequest) (ds Backend, release func(), err error)

// Backend runs queries over one resolved dataset: the built-in engine over ldhub's own indexes (*eval.Dataset,
// the default), or an external SPARQL 1.1 store (sparqlsvc/remote). Either way the handler has parsed the query,
// negotiated the answer's format and checked the dataset; the backend streams the answer to sink and reports the
// limits with eval's errors (ErrTimeout, ErrTooLarge, ErrTruncated after delivering opt.MaxResults items).
type Backend interface {
	Stream(ctx context.Context, q *algebra.Query, opt eval.Options, sink eval.Sink) error
}

// Handler is one SPARQL endpoint.
type Handler struct {
	Resolve Resolver
	// Endpoint returns the endpoint's own URL (the base IRI of queries and the subject of its description).
	Endpoint func(r *http.Request) string
	Codecs   *codec.Registry
	// Limits bound each query (zero fields: the defaults of Limits).
	Limits Limits
	// Gate, shared by the server's endpoints, bounds the queries running at once; nil admits every query.
	Gate *Gate
	// MaxQueryBytes bounds the query text (default 1 MiB).
	MaxQueryBytes int64
	Log           *slog.Logger
	// WriteError renders a refused request: a *Error, an error of the Resolver, or a server fault (any other
	// error). The engine knows nothing of the caller's error body, so the caller supplies it; nil writes the
	// message as plain text.
	WriteError func(w http.ResponseWriter, r *http.Request, err error)
	// Pages, when set, answers GETs that prefer text/html (or name it with FormatParam) with a page of the answer.
	Pages PageRenderer
}

// Error is a request the endpoint refuses, with the HTTP status that says why. Its Error() is the message for the
// client; Err, when set, is the cause (a *rdf.SyntaxError for a query that does not parse).
type Error struct {
	Status  int
	Message string
	// Format is the media type of the text a wrapped *rdf.SyntaxError is about.
	Format string
	Err    error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// HTTPStatus is the status the response carries.
func (e *Error) HTTPStatus() int { return e.Status }

// SyntaxFormat names the media type of the text a syntax error is about, for the error's details.
func (e *Error) SyntaxFormat() string { return e.Format }

func newError(status int, msg string) *Error { return &Error{Status: status, Message: msg} }

// statusError is what this package and its Resolver return for a request they refuse.
type statusError interface {
	error
	HTTPStatus() int
}

func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if h.WriteError != nil {
		h.WriteError(w, r, err)
		return
	}
	status, msg := http.StatusInternalServerError, "internal error"
	var se statusError
	if errors.As(err, &se) {
		status, msg = se.HTTPStatus(), se.Error()
	}
	http.Error(w, msg, status)
}

const defaultMaxQuery = 1 << 20

// endGrace is how long, past its time limit, an answer has to finish its document (the truncation mark).
const endGrace = 2 * time.Second

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpx.AllowRead(w.Header())
	w.Header().Add("Vary", "Accept")
	switch r.Method {
	case http.MethodOptions:
		httpx.Origins(nil).Preflight(w, r, endpointMethods, endpointMethods)
		return
	case http.MethodGet, http.MethodHead, http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST, OPTIONS")
		h.writeError(w, r, newError(http.StatusMethodNotAllowed, "a SPARQL endpoint answers GET and POST"))
		return
	}
	query, params, err := h.readQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if query == "" && r.Method != http.MethodPost && !r.URL.Query().Has("query") {
		if h.wantsPage(r, params) {
			// A browser opening the endpoint gets the form to write a query in (an Answer with neither answer nor
			// refusal); given the description as Turtle, Chromium downloaded it. Programs keep the description.
			w.Header().Set("Cache-Control", "no-store")
			h.Pages.RenderAnswer(w, r, &Answer{})
			return
		}
		h.describe(w, r)
		return
	}
	if h.wantsPage(r, params) {
		h.answerPage(w, r, query, params)
		return
	}
	if query == "" {
		h.writeError(w, r, missingQuery(params))
		return
	}
	if err := h.answer(w, r, query, params); err != nil {
		var se statusError
		if !errors.As(err, &se) && h.Log != nil {
			h.Log.ErrorContext(r.Context(), "sparql query failed", "path", r.URL.Path, "err", err)
		}
		h.writeError(w, r, err)
	}
}

// endpointMethods all read: a SPARQL query changes nothing, however it is sent.
var endpointMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost}

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
		return "", nil, newError(http.StatusUnsupportedMediaType, "POST needs Content-Type application/sparql-query or application/x-www-form-urlencoded")
	}
	if r.ContentLength > limit {
		// Refused before reading: otherwise the connection is held until the body's rate deadline (10 s) ends a
		// client that declared gigabytes and sends nothing.
		return "", nil, tooLarge(&http.MaxBytesError{Limit: limit}, limit)
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
	if mt == "application/sparql-update" {
		return "", nil, newError(http.StatusUnsupportedMediaType, noUpdate)
	}
	return "", nil, newError(http.StatusUnsupportedMediaType, "POST needs Content-Type application/sparql-query or application/x-www-form-urlencoded, not "+mt)
}

// noUpdate is why an endpoint refuses SPARQL Update: a publication changes only by a new version, which a push or
// an upload makes.
const noUpdate = "this endpoint answers SPARQL queries only, not SPARQL Update: a publication changes by a new version (git push or the REST API)"

// missingQuery is the refusal of a request without a query. SPARQLWrapper sends an INSERT or DELETE as the form
// field update=, which read as "missing query" to a client that sent something.
func missingQuery(params map[string][]string) error {
	if _, ok := params["update"]; ok {
		return newError(http.StatusBadRequest, noUpdate)
	}
	return newError(http.StatusBadRequest, "missing query")
}

func tooLarge(err error, limit int64) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return newError(http.StatusRequestEntityTooLarge, fmt.Sprintf("the query is larger than %d bytes", limit))
	}
	return newError(http.StatusBadRequest, "cannot read the request body: "+err.Error())
}

func (h *Handler) answer(w http.ResponseWriter, r *http.Request, query string, params map[string][]string) error {
	q, err := h.parse(r, query)
	if err != nil {
		return err
	}
	// Negotiate before running, so a client that accepts nothing we write does not cost a query. A format named
	// in the URL (a page's download link) stands for Accept.
	accept := defaultAccept(r.Header.Get("Accept"))
	if f := formatParam(params); f != "" {
		accept = f
	}
	var out answerSink
	switch q.Form {
	case algebra.Select, algebra.Ask:
		mt, ok := codec.Negotiate(accept, results.Offers())
		if !ok {
			return newError(http.StatusNotAcceptable, "results can be sent as "+strings.Join(results.Offers(), ", "))
		}
		out.format, _ = results.ForMediaType(mt)
		out.mediaType = out.format.MediaType()
	default:
		if accept == "*/*" && jsonKeyword(params) {
			accept = "application/json"
		}
		syn, mt, ok := h.negotiateGraph(accept)
		if !ok {
			return newError(http.StatusNotAcceptable, "graphs can be sent as "+strings.Join(h.rdfOffers(), ", "))
		}
		out.syntax, out.mediaType, out.prefixes = syn, mt, q.Prefixes
	}
	ctx, ds, done, lim, err := h.open(w, r, params, q)
	if err != nil {
		return err
	}
	defer done()
	hd := w.Header()
	hd.Set("Content-Type", out.mediaType+"; charset=utf-8")
	if r.Method == http.MethodHead {
		return nil
	}
	// The answer streams: nothing reaches the client until the writers' buffers fill, so a query that fails early
	// still gets a proper error status; after that, a cut answer says so in its body and in the trailer.
	hd.Set("Trailer", TruncatedHeader)
	hd.Set("Access-Control-Expose-Headers", exposeTruncated)
	out.w = &commitWriter{w: w}
	// The time limit includes sending: past it (and a moment to finish the document), a write still blocked on a
	// client that does not read fails, so the query's slot is free again, not held for the connection's idle time.
	sending := time.AfterFunc(lim.Timeout, func() { httpx.EndWritesBy(w, time.Now().Add(endGrace)) })
	defer sending.Stop()
	err = ds.Stream(ctx, q, eval.Options{Timeout: lim.Timeout, MaxRows: lim.MaxRows, MaxMemory: lim.MaxMemory, MaxResults: lim.MaxResults, Cores: h.Gate.Cores(), Memory: h.Gate.Memory()}, &out)
	var reason string
	switch {
	case err == nil:
		return out.end("")
	case errors.Is(err, eval.ErrTruncated):
		reason = fmt.Sprintf("the answer was cut at the endpoint's limit of %d %s; add LIMIT/OFFSET to page through it", lim.MaxResults, out.unit())
	case errors.Is(err, eval.ErrTimeout):
		reason = fmt.Sprintf("the query ran longer than its limit of %s", lim.Timeout)
	case errors.Is(err, eval.ErrServerMemory):
		reason = serverMemoryReason(h.Gate)
		if !out.w.committed {
			hd.Set("Retry-After", retryAfter)
		}
	case errors.Is(err, eval.ErrTooLarge):
		reason = fmt.Sprintf("the query needs more memory than its budget of %d MiB allows; add LIMIT or narrow the pattern", lim.MaxMemory>>20)
	case errors.Is(err, eval.ErrService):
		return h.failed(out, newError(http.StatusBadRequest, err.Error()))
	case errors.Is(context.Cause(ctx), errYielded):
		reason = h.yielded()
		if !out.w.committed {
			hd.Set("Retry-After", retryAfter)
		}
	case errors.Is(err, context.Canceled), out.writeErr != nil:
		return nil // the client went away; nobody is listening
	default:
		return h.failed(out, err)
	}
	if !out.w.committed && !errors.Is(err, eval.ErrTruncated) {
		hd.Del("Trailer")
		return newError(http.StatusServiceUnavailable, reason)
	}
	if h.Log != nil {
		h.Log.InfoContext(r.Context(), "sparql answer cut", "path", r.URL.Path, "reason", reason)
	}
	return out.end(reason)
}

// parse parses a query against the endpoint's URL.
func (h *Handler) parse(r *http.Request, query string) (*algebra.Query, error) {
	base := ""
	if h.Endpoint != nil {
		base = h.Endpoint(r)
	}
	q, err := parser.Parse(query, parser.Options{Base: base})
	if err != nil {
		var se *rdf.SyntaxError
		if errors.As(err, &se) {
			return nil, &Error{Status: http.StatusBadRequest, Message: "invalid " + se.Syntax + ": " + se.Error(), Format: "application/sparql-query", Err: se}
		}
		return nil, newError(http.StatusBadRequest, "invalid query: "+err.Error())
	}
	return q, nil
}

// open passes the gate and resolves the query's dataset; done releases both. ctx is the query's: the request's,
// ended with errYielded when the gate takes its slot back for a waiting client (never for an anonymous one when
// the limits keep the slot, Limits.Keep). lim is what bounds the query: the handler's limits, within lookupLimits
// when the gate admitted q as a lookup outside its slots.
func (h *Handler) open(w http.ResponseWriter, r *http.Request, params map[string][]string, q *algebra.Query) (ctx context.Context, ds Backend, done func(), lim Limits, err error) {
	ctx, cancel := context.WithCancelCause(r.Context())
	leave := func() {}
	lim = h.Limits.withDefaults()
	if h.Gate != nil {
		// A query told to yield may be blocked writing to a client that does not read: its writes end too.
		yield := func() {
			cancel(errYielded)
			httpx.EndWritesBy(w, time.Now().Add(endGrace))
		}
		var lane bool
		if leave, lane, err = h.Gate.enter(ctx, r, isLookup(q), lim.Keep, yield); err != nil {
			cancel(nil)
			if errors.Is(err, errBusy) {
				w.Header().Set("Retry-After", retryAfter)
				err = newError(http.StatusServiceUnavailable, busy)
			}
			return nil, nil, nil, lim, err
		}
		if lane {
			lim = lim.within(lookupLimits())
		}
	}
	dr := DatasetRequest{DefaultGraphs: params["default-graph-uri"], NamedGraphs: params["named-graph-uri"]}
	if q.Dataset != nil {
		dr.QueryDefault, dr.QueryNamed = q.Dataset.Default, q.Dataset.Named
	}
	ds, release, err := h.Resolve(ctx, r, dr)
	if err != nil {
		leave()
		cancel(nil)
		return nil, nil, nil, lim, err
	}
	return ctx, ds, func() { release(); leave(); cancel(nil) }, lim, nil
}

// yielded is why a query that yielded its slot to a waiting client ended.
func (h *Handler) yielded() string {
	return fmt.Sprintf("the query ran %s while other clients waited for a slot, and gave its slot to them; retry later, or narrow the query", h.Gate.slice)
}

// busy is the refusal of a query the gate has no room for: from a client that runs one already, or one that
// waited its turn in vain. A lookup is refused only while another lookup of the same client runs, or the lane is
// full: the message says what a query needs to get in then.
const busy = "too many SPARQL queries are running (on this server or from your address); retry shortly. " +
	"A lookup (every triple pattern read from a constant subject or one bound before it) is answered even then."

// failed reports an error that is not a limit: as the response when nothing was sent yet, else by cutting the
// answer (the status is gone) so the client does not take a partial answer for a whole one.
func (h *Handler) failed(out answerSink, err error) error {
	if !out.w.committed {
		out.w.w.Header().Del("Trailer")
		return err
	}
	if h.Log != nil {
		h.Log.Error("sparql query failed after its answer began", "err", err)
	}
	_ = out.end("the query failed: internal error")
	return nil
}

// TruncatedHeader is the HTTP trailer (a header, when the answer was not yet sent) that carries the reason an
// answer was cut short: at the result limit, the time limit or the memory budget. The body says so too where
// its format has room: a top-level "ldhub:truncated" member in SPARQL JSON results, a comment
// "<!-- ldhub:truncated: … -->" in SPARQL XML results and RDF/XML, a "# ldhub:truncated: …" comment line in
// Turtle, N-Triples, N-Quads and TriG. CSV, TSV and JSON-LD have only the trailer.
const TruncatedHeader = "Ldhub-Truncated"

// exposeTruncated lets a script of another origin read TruncatedHeader, the only place CSV, TSV and JSON-LD
// answers say they were cut (browsers show scripts only the headers CORS exposes).
const exposeTruncated = httpx.ExposeHeaders + ", " + TruncatedHeader

// commitWriter notes whether anything reached the client, after which the status can no longer change.
type commitWriter struct {
	w         http.ResponseWriter
	committed bool
}

func (c *commitWriter) Write(p []byte) (int, error) {
	c.committed = true
	return c.w.Write(p)
}

// answerSink writes a query's answer as the evaluator produces it.
type answerSink struct {
	w         *commitWriter
	mediaType string
	format    results.Format // SELECT, ASK
	syntax    codec.Syntax   // CONSTRUCT, DESCRIBE
	prefixes  []rdf.Prefix
	rows      results.Writer
	enc       rdf.Encoder
	boolean   *bool
	writeErr  error
}

func (a *answerSink) unit() string {
	if a.syntax.NewEncoder != nil {
		return "triples"
	}
	return "solutions"
}

func (a *answerSink) Begin(vars []string) error {
	a.rows = results.NewWriter(a.w, a.format)
	a.writeErr = a.rows.Begin(vars)
	return a.writeErr
}

func (a *answerSink) Row(v []rdf.Term) error {
	a.writeErr = a.rows.Row(v)
	return a.writeErr
}

func (a *answerSink) Boolean(v bool) error {
	a.boolean = &v
	return nil
}

func (a *answerSink) Triple(t rdf.Quad) error {
	if a.enc == nil {
		a.enc = a.syntax.NewEncoder(a.w, rdf.EncodeOptions{Prefixes: a.prefixes})
	}
	a.writeErr = a.enc.Encode(t)
	return a.writeErr
}

// end finishes the document, marking it cut short when reason is not empty.
func (a *answerSink) end(reason string) error {
	if reason != "" {
		a.w.w.Header().Set(TruncatedHeader, reason)
	}
	switch {
	case a.boolean != nil:
		return results.WriteBoolean(a.w, a.format, *a.boolean)
	case a.syntax.NewEncoder != nil:
		if a.enc == nil {
			a.enc = a.syntax.NewEncoder(a.w, rdf.EncodeOptions{Prefixes: a.prefixes})
		}
		if err := a.enc.Close(); err != nil || reason == "" {
			return err
		}
		var err error
		switch a.syntax.Name {
		case "turtle", "n-triples", "n-quads", "trig", "n3":
			_, err = fmt.Fprintf(a.w, "# ldhub:truncated: %s\n", oneLine(reason))
		case "rdf-xml":
			_, err = fmt.Fprintf(a.w, "<!-- ldhub:truncated: %s -->\n", xmlComment(reason))
		}
		return err
	case a.rows != nil:
		if reason != "" {
			return results.EndTruncated(a.rows, reason)
		}
		return a.rows.End()
	}
	return nil
}

func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

func xmlComment(s string) string { return strings.ReplaceAll(oneLine(s), "--", "- -") }

// defaultAccept maps a missing Accept to */*; negotiation then picks the first offer (JSON results, Turtle).
func defaultAccept(a string) string {
	if strings.TrimSpace(a) == "" {
		return "*/*"
	}
	return a
}

// rdfOffers lists the media types a graph can be written in, every alias included (application/x-turtle), with
// Turtle first, the default of decisions.md. Dataset syntaxes (TriG, N-Quads, JSON-LD) write it as their default
// graph, as the direct URLs do.
func (h *Handler) rdfOffers() []string {
	offers := []string{"text/turtle"}
	for _, s := range h.Codecs.Syntaxes() {
		if !s.CanEncode() {
			continue
		}
		for _, mt := range s.MediaTypes {
			if mt != "text/turtle" {
				offers = append(offers, mt)
			}
		}
	}
	return offers
}

// negotiateGraph picks the syntax a graph answer is written in, and the media type it is sent as. Accept may also
// name a syntax by a type that is not its own (codec.Syntax.AlsoAsked: application/json for JSON-LD), as at the
// direct URLs; such a type ranks after every offer of the same preference, and the answer carries the syntax's
// canonical type.
func (h *Handler) negotiateGraph(accept string) (codec.Syntax, string, bool) {
	offers := h.rdfOffers()
	own := len(offers)
	var also []codec.Syntax
	for _, s := range h.Codecs.Syntaxes() {
		if s.CanEncode() {
			for _, mt := range s.AlsoAsked {
				offers = append(offers, mt)
				also = append(also, s)
			}
		}
	}
	mt, ok := codec.Negotiate(accept, offers)
	if !ok {
		return codec.Syntax{}, "", false
	}
	if i := slices.Index(offers, mt); i >= own {
		return also[i-own], also[i-own].MediaTypes[0], true
	}
	syn, ok := h.Codecs.ByMediaType(mt)
	return syn, mt, ok
}

// jsonKeyword reports whether the request names JSON by the keyword other stores read, `format=json` or
// `output=json` (Virtuoso, Fuseki; SPARQLWrapper sends both with an Accept of */* when a graph query's return
// format is JSON, and reads a JSON-LD answer). It stands for Accept only when Accept says nothing (*/*).
func jsonKeyword(params map[string][]string) bool {
	for _, k := range []string{FormatParam, "output"} {
		if v := params[k]; len(v) == 1 && strings.EqualFold(v[0], "json") {
			return true
		}
	}
	return false
}

const sdNS = "http://www.w3.org/ns/sparql-service-description#"

// describe answers a GET without a query with the endpoint's SPARQL 1.1 Service Description.
func (h *Handler) describe(w http.ResponseWriter, r *http.Request) {
	endpoint := ""
	if h.Endpoint != nil {
		endpoint = h.Endpoint(r)
	}
	syn, _, ok := h.negotiateGraph(defaultAccept(r.Header.Get("Accept")))
	if !ok {
		h.writeError(w, r, newError(http.StatusNotAcceptable, "the service description can be sent as "+strings.Join(h.rdfOffers(), ", ")))
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
