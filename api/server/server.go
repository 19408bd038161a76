// Package server is ldhub's HTTP front: one handler that sends /api/... to the REST API (v3 in full, v4, v2 and
// the legacy /ns routes), /git/... to the store's git smart-HTTP handler and everything else to the direct-URL
// site. The API's routes live in one table (routes.go) that both the dispatcher and the Swagger document are made
// from, so the two cannot drift apart.
package server

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/ldhub/ldhub/api/search"
	"github.com/ldhub/ldhub/cache"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/pipeline/storeload"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
)

// Authorizer tells who makes a request: the anonymous zero Actor without credentials, an error wrapping
// model.ErrUnauthorized for wrong ones. *auth.Guard is one.
type Authorizer interface {
	Actor(r *http.Request) (model.Actor, error)
}

// Viewers is the hub's access policy for the direct URLs of a repository that is not visible (site.Authorizer): a
// request may read it when it carries a valid credential whose role there is Viewer or higher. Anonymous
// requests and wrong credentials may not; the site answers them as it answers a missing path.
type Viewers struct {
	Auth  Authorizer
	Store *store.Store
}

// CanView reports whether r may read the repository repositoryID.
func (v Viewers) CanView(r *http.Request, repositoryID string) bool {
	actor, err := v.Auth.Actor(r)
	if err != nil || actor.CredentialID == "" {
		return false
	}
	role, err := v.Store.Role(r.Context(), actor, repositoryID)
	return err == nil && role >= model.Viewer
}

// Config wires the server to the rest of the hub.
type Config struct {
	Store  *store.Store
	Auth   Authorizer
	Search *search.Index
	// BaseURL is the hub's public address without a trailing slash (publication URIs start with it).
	BaseURL string
	// MaxUpload bounds a request body in bytes (default 256 MiB); more is 413.
	MaxUpload int64
	Logger    *slog.Logger
	// Git serves /git/...; nil answers 404.
	Git http.Handler
	// Site serves direct URLs (everything outside /api and the legacy /ns routes); nil answers 404.
	Site http.Handler
	// SPARQL bounds each anonymous query, SPARQLCredentialed each query with a valid credential (zero fields:
	// the protocol.Limits defaults, which suit anonymous callers; see docs/reliability.md).
	SPARQL             protocol.Limits
	SPARQLCredentialed protocol.Limits
	// SPARQLGate bounds the queries running at once; share the site handler's so both count together. nil makes
	// one with the protocol defaults.
	SPARQLGate *protocol.Gate
	// SPARQLStore, when set, answers queries from an external SPARQL store for the publications it has loaded
	// (all graphs of a query's dataset loaded); everything else stays on the built-in engine.
	SPARQLStore *storeload.Loader
	// Pending reports whether the pipeline has yet to render and index a publication's latest version (the v4
	// `pending` flag); nil reports false.
	Pending func(ctx context.Context, p model.Publication) bool
	// Failed says why the pipeline could not render a publication's latest version (nil: it has not failed), so
	// that an upload waiting for Pending to clear answers at once when it will not; nil never fails.
	Failed func(ctx context.Context, p model.Publication) error
	// LeftOut lists the older versions of a publication that its live version went live without because their
	// content could not be rendered, each naming the version and why (the pipeline's LeftOut, a push's words);
	// an upload's answer names them in LeftOutHeader. nil lists none.
	LeftOut func(ctx context.Context, p model.Publication) []string
	// Settle bounds how long an upload that published a version waits for Pending to clear before it answers
	// (0: githttp.DefaultSettle, as for a push); LiveHeader says whether it did.
	Settle time.Duration
	// CORSOrigins may write cross-origin (`ldhub serve --cors-origin`); anyone may read. A write whose Origin is
	// neither the hub's own nor one of these is refused with 403 before it is looked at.
	CORSOrigins httpx.Origins
	// Tree is the pipeline's rendered tree (pipeline.Options.Out): the SPARQL endpoints query its index files. ""
	// (or a version the pipeline has not rendered yet) builds each version's index in memory from the store.
	Tree string
	// Indexes maps Tree's index files; share the site handler's (site.Options.Indexes) so that each file is mapped
	// once. nil makes one for this server.
	Indexes *describe.Indexes
	// Deadlines bound how slowly a request body may arrive and how long a write of an answer may block, on every
	// route (the API, git and the direct URLs).
	Deadlines httpx.Deadlines
	// ChangeWaits bounds the change-feed long-polls open at once (each holds a goroutine and a store
	// subscription); zero is 256.
	ChangeWaits int
}

// Server is the top-level handler.
type Server struct {
	cfg    Config
	log    *slog.Logger
	codecs *codec.Registry
	routes []*route
	// router finds a request's candidate routes (router.go).
	router *httprouter.Router
	// built caches the SPARQL indexes of versions built in memory from the store (by version and base), for the
	// versions the tree does not hold (cfg.Indexes maps those it does).
	built *cache.Cache[string, *index.Dataset]
	// builds makes those indexes one per version at a time, in a few slots (sparql.go).
	builds *indexBuilds
	// origin is the scheme and host of BaseURL: the hub's own pages may write.
	origin string
	// waiters counts the change-feed long-polls open now (changes.go).
	waiters chan struct{}
}

// New returns the server for cfg.
func New(cfg Config) *Server {
	if cfg.MaxUpload <= 0 {
		cfg.MaxUpload = 256 << 20
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.SPARQLCredentialed == (protocol.Limits{}) {
		cfg.SPARQLCredentialed = protocol.CredentialedLimits
	}
	if cfg.SPARQLGate == nil {
		cfg.SPARQLGate = protocol.NewGate(0, 0, nil)
	}
	if cfg.Indexes == nil {
		cfg.Indexes = describe.NewIndexes(16)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, codecs: codec.Default(), built: cache.New(cache.Options[string, *index.Dataset]{MaxCost: 16, OnEvict: func(_ string, ds *index.Dataset) { _ = ds.Close() }}),
		builds: newIndexBuilds(maxIndexBuilds), waiters: make(chan struct{}, cmp.Or(cfg.ChangeWaits, maxChangeWaiters))}
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Host != "" {
		s.origin = u.Scheme + "://" + u.Host
	}
	s.routes = s.table()
	for _, rt := range s.routes {
		rt.segs = splitPattern(rt.Pattern)
		rt.read = rt.Method == http.MethodGet || strings.HasSuffix(rt.Pattern, "/sparql")
	}
	s.router = s.newRouter(s.routes)
	return s
}

// firstSegment is what ServeHTTP dispatches on.
func firstSegment(path string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return first
}

// SitePath reports whether ServeHTTP hands path to the site handler without looking at it: everything outside
// /api, /ns and /git. A server that answers site paths ahead of this one (site/fastpath) must ask this.
func SitePath(path string) bool {
	switch firstSegment(path) {
	case "api", "ns", "git":
		return false
	}
	return true
}

// ServeHTTP dispatches on the first path segment.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpx.Secure(w.Header())
	w, r, done := s.cfg.Deadlines.Apply(w, r)
	defer done()
	switch firstSegment(r.URL.Path) {
	case "api":
		s.serveAPI(w, r, true)
	case "ns":
		// Legacy routes; a path no legacy route knows is a direct URL of the ns group.
		s.serveAPI(w, r, false)
	case "git":
		s.fallback(w, r, s.cfg.Git, "git access is not enabled on this hub")
	default:
		s.fallback(w, r, s.cfg.Site, "no such page")
	}
}

func (s *Server) fallback(w http.ResponseWriter, r *http.Request, h http.Handler, msg string) {
	if h == nil {
		apierr.Write(w, r, apierr.New(http.StatusNotFound, msg))
		return
	}
	h.ServeHTTP(w, r)
}

// call is what a handler gets besides the request: the caller and the path parameters.
type call struct {
	actor  model.Actor
	params map[string]string
	route  *route
}

func (c *call) p(name string) string { return c.params[name] }

type handlerFunc func(w http.ResponseWriter, r *http.Request, c *call) error

// serveAPI serves an /api (strict) or /ns path: a route's handler, a 405 or preflight, or 404 (/api) or the
// site (/ns) when no route has the path.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, strict bool) {
	s.dispatch(w, r, strict)
}

// serveRoute serves r by the route of candidates that matches it (see pick).
func (s *Server) serveRoute(w http.ResponseWriter, r *http.Request, strict bool, candidates []*route) {
	rt, params, allow := pick(candidates, r)
	if rt == nil && r.Method == http.MethodOptions && len(allow) > 0 {
		s.cfg.CORSOrigins.Preflight(w, r, allow, s.readMethods(r, allow))
		return
	}
	if rt == nil {
		if len(allow) > 0 {
			httpx.AllowRead(w.Header())
		}
		if !strict && len(allow) == 0 {
			s.fallback(w, r, s.cfg.Site, "no such page")
			return
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			apierr.Write(w, r, apierr.New(http.StatusMethodNotAllowed, r.Method+" is not allowed here; use "+strings.Join(allow, ", ")))
			return
		}
		apierr.Write(w, r, apierr.New(http.StatusNotFound, "no API route "+r.URL.Path))
		return
	}
	if r.ContentLength > s.cfg.MaxUpload {
		// Refused before a byte of it is read: a 2 GB claim must not hold the connection while it trickles in.
		ae := apierr.New(http.StatusRequestEntityTooLarge, "the request body is larger than this hub accepts")
		ae.Details = map[string]int64{"limit": s.cfg.MaxUpload}
		w.Header().Set("Connection", "close")
		apierr.Write(w, r, ae)
		return
	}
	if rt.read {
		// The API authenticates with HTTP Basic, never cookies, and `*` never exposes an answer to a request sent
		// with credentials: any origin may read (browser SPARQL clients such as YASGUI included).
		httpx.AllowRead(w.Header())
	} else {
		s.cfg.CORSOrigins.AllowWrite(w.Header(), r)
		if s.cfg.CORSOrigins.CrossOriginWrite(r, s.origin) {
			apierr.Write(w, r, apierr.New(http.StatusForbidden, "cross-origin writes are accepted only from the origins the hub configures (ldhub serve --cors-origin), not from "+r.Header.Get("Origin")))
			return
		}
	}
	actor, err := s.cfg.Auth.Actor(r)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client went away while its attempt was slowed down
		}
		apierr.Write(w, r, apierr.New(http.StatusUnauthorized, "invalid credentials"))
		return
	}
	if actor.CredentialID == "" && !rt.Anon {
		apierr.Write(w, r, apierr.New(http.StatusUnauthorized, "this route needs HTTP Basic credentials (application or token id and secret)"))
		return
	}
	if err := bodyType(rt, r); err != nil {
		s.fail(w, r, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxUpload)
	c := &call{actor: actor, params: params, route: rt}
	if err := rt.h(w, r, c); err != nil {
		s.fail(w, r, err)
	}
}

// fail writes err as the JSON error body, mapping the store's error kinds to statuses.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apierr.Error
	var ce *model.ContentError
	var mb *http.MaxBytesError
	var te *httpx.TimeoutError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &te):
		w.Header().Set("Connection", "close")
		ae = &apierr.Error{Status: http.StatusRequestTimeout, Message: te.Error(), Err: err}
	case errors.As(err, &mb):
		ae = apierr.New(http.StatusRequestEntityTooLarge, "the request body is larger than this hub accepts")
		ae.Details = map[string]int64{"limit": mb.Limit}
	case errors.As(err, &ce) && ce.Syntax() != nil:
		mt := ""
		if syn, ok := s.codecs.ByPath(ce.Path); ok {
			mt = syn.MediaTypes[0]
		}
		ae = apierr.FromSyntax(ce.Syntax(), mt)
	case errors.Is(err, model.ErrNotFound):
		ae = &apierr.Error{Status: http.StatusNotFound, Message: err.Error(), Err: err}
	case errors.Is(err, model.ErrConflict):
		ae = &apierr.Error{Status: http.StatusConflict, Message: err.Error(), Err: err}
	case errors.Is(err, model.ErrInvalid):
		ae = &apierr.Error{Status: http.StatusBadRequest, Message: err.Error(), Err: err}
	case errors.Is(err, model.ErrForbidden):
		ae = &apierr.Error{Status: http.StatusForbidden, Message: err.Error(), Err: err}
	case errors.Is(err, model.ErrUnauthorized):
		ae = &apierr.Error{Status: http.StatusUnauthorized, Message: err.Error(), Err: err}
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		return // nobody is listening
	default:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		apierr.Write(w, r, err) // a generic 500: internals stay in the log
		return
	}
	apierr.Write(w, r, ae)
}

// bodyType holds a request with a body to the media type its route declares, before the handler looks at anything
// else, so that the rule is the same on every route: JSON as application/json, uploads as multipart/form-data,
// 415 otherwise. The handlers check again (readJSON, readParts) for a chunked body or a route without a declared
// one; an optional JSON body (a publication's PATCH) may be empty without a type.
func bodyType(rt *route, r *http.Request) error {
	if r.ContentLength <= 0 {
		return nil // none, or of unknown length: the handler checks what it reads
	}
	kind, _, _ := strings.Cut(rt.Body, ":")
	switch kind {
	case "json":
		return requireJSON(r)
	case "multipart":
		_, err := multipartType(r, strings.Split(strings.TrimPrefix(rt.Body, "multipart:"), ","))
		return err
	}
	return nil
}

// readMethods are those of allow whose routes at r's path only read (GET, HEAD, SPARQL queries).
func (s *Server) readMethods(r *http.Request, allow []string) []string {
	var reads []string
	for _, m := range allow {
		if m == http.MethodHead {
			reads = append(reads, m)
			continue
		}
		if rt, _, _ := pick(s.routes, &http.Request{Method: m, URL: r.URL}); rt != nil && rt.read {
			reads = append(reads, m)
		}
	}
	return reads
}
