package server

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// route is one API operation. The dispatcher matches Pattern segment by segment; a static segment beats a
// parameter at the same position, which is what lets `/repositories/{repositoryId}/publications` and
// `/repositories/{repositoryId}/{filename}` live side by side (httprouter refuses that pair).
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

// match finds the route for r. With no route for the method it returns the methods the path does allow (for a
// 405), or none when no route has the path (404).
func (s *Server) match(r *http.Request) (*route, map[string]string, []string) {
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
	for _, rt := range s.routes {
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
