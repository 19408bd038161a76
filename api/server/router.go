package server

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// route is one API operation. A static segment of its Pattern beats a parameter at the same position, which is
// what lets `/repositories/{repositoryId}/publications` and `/repositories/{repositoryId}/{filename}` live side by
// side (see newRouter for how httprouter serves that pair).
type route struct {
	Method  string
	Pattern string // "/api/v3/groups/{id}"
	OpID    string
	Summary string
	Tag     string
	Query   []param
	// Body names the request body for the Swagger document: "" none, "json:<Definition>", "multipart:<part>,…",
	// "sparql" (a query string body).
	Body string
	// Resp is a value of the 200 body's type for the Swagger document; nil for a byte or RDF body.
	Resp     any
	Produces []string
	// Anon lets callers without credentials in (legacy /ns reads; the store still hides what they may not see).
	Anon bool
	h    handlerFunc
	segs []string
	// read marks a route that changes nothing (GET, and SPARQL queries, which may be POSTed): any origin may call it.
	read bool
}

type param struct {
	Name, Type, Desc string
	Required         bool
	Repeat           bool
}

func splitPattern(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

// The routes are served through httprouter, which finds the candidates for a path in its radix tree. httprouter
// allows no static segment beside a parameter at the same position (`/repositories/{id}/publications` beside
// `/repositories/{id}/{filename}`), and a parameter there must have one name (`/groups/{id}` beside
// `/groups/{groupId}/repositories`). So the route table is folded into shapes: wherever some pattern has a
// parameter, every pattern with that prefix has the positional parameter `:p<n>` there, and the patterns that
// fold into one shape are told apart by pick (a static segment beats a parameter; the names come from the route's
// own pattern). Every pattern that matches a path folds into the path's one shape, so pick sees them all.
//
// httprouter matches the escaped path, so that a %2F inside a file name stays inside its segment; pick compares
// and returns the decoded segments. A path httprouter has no shape for (a trailing slash, an escaped static
// segment, a method no route uses) goes to the same pick over the whole table, which finds what it can.

// routed carries the request as it came (httprouter sees a copy with the escaped path) to the shape handlers.
type routed struct {
	http.ResponseWriter
	r      *http.Request
	strict bool
}

// newRouter folds routes into shapes and registers each shape, under every method, with a handler that picks
// among the shape's routes.
func (s *Server) newRouter(routes []*route) *httprouter.Router {
	router := httprouter.New()
	router.RedirectTrailingSlash, router.RedirectFixedPath = false, false
	router.HandleMethodNotAllowed, router.HandleOPTIONS = false, false
	methods := []string{http.MethodHead, http.MethodOptions}
	shapes := map[string][]*route{}
	var order []string
	for _, rt := range routes {
		methods = append(methods, rt.Method)
	}
	paths := foldShapes(routes)
	for _, rt := range routes {
		p := paths[rt]
		if shapes[p] == nil {
			order = append(order, p)
		}
		shapes[p] = append(shapes[p], rt)
	}
	slices.Sort(methods)
	methods = slices.Compact(methods)
	for _, p := range order {
		candidates := shapes[p]
		h := func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
			rw := w.(*routed)
			s.serveRoute(rw.ResponseWriter, rw.r, rw.strict, candidates)
		}
		for _, m := range methods {
			router.Handle(m, p, h)
		}
	}
	router.NotFound = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		rw := w.(*routed)
		s.serveRoute(rw.ResponseWriter, rw.r, rw.strict, s.routes)
	})
	return router
}

// foldShapes gives each route its httprouter path (see above).
func foldShapes(routes []*route) map[*route]string {
	out := map[*route]string{}
	var fold func(group []*route, depth int, prefix string)
	fold = func(group []*route, depth int, prefix string) {
		next := map[string][]*route{}
		var keys []string
		param := slices.ContainsFunc(group, func(rt *route) bool { return depth < len(rt.segs) && isParam(rt.segs[depth]) })
		for _, rt := range group {
			if depth == len(rt.segs) {
				out[rt] = cmp.Or(prefix, "/")
				continue
			}
			key := prefix + "/" + rt.segs[depth]
			if param {
				key = prefix + "/:p" + strconv.Itoa(depth)
			}
			if next[key] == nil {
				keys = append(keys, key)
			}
			next[key] = append(next[key], rt)
		}
		for _, k := range keys {
			fold(next[k], depth+1, k)
		}
	}
	fold(routes, 0, "")
	return out
}

// dispatch serves r through the router.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, strict bool) {
	u := *r.URL
	u.Path, u.RawPath = r.URL.EscapedPath(), ""
	r2 := *r
	r2.URL = &u
	s.router.ServeHTTP(&routed{ResponseWriter: w, r: r, strict: strict}, &r2)
}

// pick finds the route for r among candidates. With no route for the method it returns the methods the path does
// allow (for a 405), or none when no candidate has the path (404).
func pick(candidates []*route, r *http.Request) (*route, map[string]string, []string) {
	segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	for i, seg := range segs {
		u, err := url.PathUnescape(seg)
		if err != nil {
			return nil, nil, nil
		}
		segs[i] = u
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	// The most specific pattern that matches decides: its routes either have the method or answer 405.
	var best []*route
	for _, rt := range candidates {
		if !matches(rt.segs, segs) {
			continue
		}
		switch {
		case len(best) == 0 || moreSpecific(rt.segs, best[0].segs):
			best = []*route{rt}
		case sameShape(rt.segs, best[0].segs):
			best = append(best, rt)
		}
	}
	var allow []string
	for _, rt := range best {
		if rt.Method == method {
			params := map[string]string{}
			for i, seg := range rt.segs {
				if isParam(seg) {
					params[seg[1:len(seg)-1]] = segs[i]
				}
			}
			return rt, params, nil
		}
		allow = append(allow, rt.Method)
	}
	if slices.Contains(allow, http.MethodGet) {
		allow = append(allow, http.MethodHead)
	}
	slices.Sort(allow)
	return nil, nil, slices.Compact(allow)
}

func matches(pattern, segs []string) bool {
	if len(pattern) != len(segs) {
		return false
	}
	for i, p := range pattern {
		if isParam(p) {
			if segs[i] == "" {
				return false
			}
		} else if p != segs[i] {
			return false
		}
	}
	return true
}

// sameShape reports whether two patterns of one length differ only in their parameters' names.
func sameShape(a, b []string) bool {
	for i := range a {
		if pa, pb := isParam(a[i]), isParam(b[i]); pa != pb || !pa && a[i] != b[i] {
			return false
		}
	}
	return true
}

// moreSpecific reports whether a beats b: at the first position where one is static and the other a parameter,
// the static one wins.
func moreSpecific(a, b []string) bool {
	for i := range a {
		pa, pb := isParam(a[i]), isParam(b[i])
		if pa != pb {
			return !pa
		}
	}
	return false
}

// RouteInfo names one route of the dispatcher: its method and pattern, the body it takes (as route.Body) and
// whether it only reads.
type RouteInfo struct {
	Method, Pattern, Body string
	Read                  bool
}

// Routes lists every route the dispatcher serves, for checks against the Swagger document.
func (s *Server) Routes() []RouteInfo {
	out := make([]RouteInfo, len(s.routes))
	for i, rt := range s.routes {
		out[i] = RouteInfo{Method: rt.Method, Pattern: rt.Pattern, Body: rt.Body, Read: rt.read}
	}
	return out
}
