package server

import (
	"net/http"
	"strings"
	"testing"
)

// Every route of the table is found by httprouter (not by the fallback scan), under its own method and HEAD and
// OPTIONS, and the pairs httprouter cannot hold side by side fold into one shape.
func TestRouterFindsEveryRoute(t *testing.T) {
	s := New(Config{BaseURL: "https://hub.example"})
	shapes := foldShapes(s.routes)
	for _, rt := range s.routes {
		segs := make([]string, len(rt.segs))
		for i, seg := range rt.segs {
			segs[i] = seg
			if isParam(seg) {
				segs[i] = "x%2Fy" // an escaped slash stays inside its segment
			}
		}
		path := "/" + strings.Join(segs, "/")
		for _, m := range []string{rt.Method, http.MethodHead, http.MethodOptions} {
			if h, _, _ := s.router.Lookup(m, path); h == nil {
				t.Errorf("%s %s (%s): httprouter has no shape for it", m, path, rt.Pattern)
			}
		}
	}
	same := func(a, b string) {
		t.Helper()
		var pa, pb string
		for _, rt := range s.routes {
			switch rt.Pattern {
			case a:
				pa = shapes[rt]
			case b:
				pb = shapes[rt]
			}
		}
		if pa == "" || pa != pb {
			t.Errorf("%s → %q and %s → %q: want one shape", a, pa, b, pb)
		}
	}
	same("/api/v3/repositories/{repositoryId}/publications", "/api/v3/repositories/{repositoryId}/{filename}")
	// Two names at one position: one positional parameter in httprouter, each route's own name in its params.
	for _, rt := range s.routes {
		if (rt.Pattern == "/api/v3/groups/{id}/subgroups" || rt.Pattern == "/api/v3/groups/{groupId}/repositories") &&
			!strings.HasPrefix(shapes[rt], "/api/v3/groups/:p3/") {
			t.Errorf("%s → %q", rt.Pattern, shapes[rt])
		}
	}
	r, _ := http.NewRequest("GET", "https://hub.example/api/v3/groups/g%2F1/repositories", nil)
	if rt, params, _ := pick(s.routes, r); rt == nil || params["groupId"] != "g/1" {
		t.Errorf("GET /groups/g%%2F1/repositories: %v %v", rt, params)
	}
}
