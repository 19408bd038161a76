package server_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
)

// world is what an ordinary credential must not change outside its own groups: every group, repository and grant
// of the catalogue, and every publication (with its versions) of every repository.
type world struct {
	groups map[string]model.Group
	repos  map[string]model.Repository
	grants map[string]model.Grant
	pubs   map[string]string // publication id -> URI and version ids
}

func (f *fixture) world() world {
	f.t.Helper()
	ctx := context.Background()
	st, err := f.st.Catalog(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	w := world{groups: maps.Clone(st.Groups), repos: maps.Clone(st.Repos), grants: maps.Clone(st.Grants), pubs: map[string]string{}}
	for id := range st.Repos {
		ps, err := f.st.Publications(ctx, model.SystemActor, id)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, p := range ps {
			var vs []string
			for _, v := range p.Versions {
				vs = append(vs, v.ID)
			}
			w.pubs[p.ID] = p.PublicationURI + " " + strings.Join(vs, ",")
		}
	}
	return w
}

// unchangedOutside fails when anything of before changed or appeared, except groups (with their grants,
// repositories and publications) that mine says the prober created.
func (f *fixture) unchangedOutside(before world, mine func(groupID string) bool) {
	f.t.Helper()
	after := f.world()
	for id, g := range after.groups {
		if old, ok := before.groups[id]; !ok && !mine(id) && !mine(g.ParentID) || ok && old != g {
			f.t.Errorf("group %s (%s) changed or appeared", id, g.PathSegment)
		}
	}
	for id := range before.groups {
		if _, ok := after.groups[id]; !ok {
			f.t.Errorf("group %s vanished", id)
		}
	}
	for id, r := range after.repos {
		if old, ok := before.repos[id]; !ok && !mine(r.ParentID) || ok && old != r {
			f.t.Errorf("repository %s (%s) changed or appeared", id, r.PathSegment)
		}
	}
	for id, g := range after.grants {
		if old, ok := before.grants[id]; !ok && !mine(g.TargetID) || ok && old != g {
			f.t.Errorf("grant %s on %s changed or appeared", id, g.TargetID)
		}
	}
	if len(after.grants) < len(before.grants) || len(after.repos) < len(before.repos) {
		f.t.Errorf("grants or repositories vanished")
	}
	for id, p := range before.pubs {
		if after.pubs[id] != p {
			f.t.Errorf("publication %s changed: %q, was %q", id, after.pubs[id], p)
		}
	}
	for id, p := range after.pubs {
		if _, ok := before.pubs[id]; !ok {
			f.t.Errorf("publication %s (%s) appeared", id, p)
		}
	}
}

// doWith is do with extra request headers.
func (f *fixture) doWith(rq request, hdr map[string]string) response {
	f.t.Helper()
	r := httptest.NewRequest(rq.method, rq.path, rq.body)
	if rq.contentType != "" {
		r.Header.Set("Content-Type", rq.contentType)
	}
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	if c := f.callers[rq.as]; c != nil && c.id != "" {
		r.SetBasicAuth(c.id, c.secret)
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, r)
	return response{code: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

func errorMessage(t *testing.T, res response) string {
	t.Helper()
	var e struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(res.body, &e); err != nil {
		t.Fatalf("error body %q: %v", res.body, err)
	}
	return e.Message
}

// TestAdversaryREST runs issue 15's probes against the REST API as ordinary credentials (a stranger with no grant,
// and a PUBLISHER of /org) and checks that each is refused with a status and a message naming the problem, and
// that nothing outside the prober's own groups changed.
func TestAdversaryREST(t *testing.T) {
	f := newFixture(t)
	before := f.world()
	var mine []string
	own := func(id string) bool { return slices.Contains(mine, id) }
	const js = "application/json"
	post := func(as, path string, body any, ct string) response {
		return f.do(request{method: "POST", path: f.path(path), as: as, body: jsonBody(body), contentType: ct})
	}
	check := func(name string, res response, code int, words ...string) {
		t.Helper()
		if res.code != code {
			t.Errorf("%s: %d %s, want %d", name, res.code, res.body, code)
			return
		}
		msg := errorMessage(t, res)
		for _, w := range words {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q does not name %q", name, msg, w)
			}
		}
	}

	// Reserved names: the pages, the router and the site's own segments, at the top and below.
	for _, seg := range []string{"index.html", "api", "git", "ns", "versions", "void.ttl", "core.ttl"} {
		check("top-level group "+seg, post("stranger", "/api/v3/groups", map[string]string{"name": "x", "pathSegment": seg}, js), 400, seg, "reserved")
	}
	res := post("stranger", "/api/v3/groups", map[string]string{"name": "mine"}, js)
	wantStatus(t, res, 200)
	mineID := decodeJSON[map[string]any](t, res)["id"].(string)
	mine = append(mine, mineID)
	for _, seg := range []string{"index.html", "versions", "sparql"} {
		check("subgroup "+seg, post("stranger", "/api/v3/groups/"+mineID, map[string]string{"name": "x", "pathSegment": seg}, js), 400, seg)
		check("repository "+seg, post("stranger", "/api/v3/repositories", map[string]string{"name": "x", "pathSegment": seg, "parentId": mineID}, js), 400, seg)
	}

	// A hidden group's name: the 409 says that the segment is used, exactly as for a group the caller can see,
	// and nothing else about it (docs: "Names").
	hidden := post("stranger", "/api/v3/groups", map[string]string{"name": "x", "pathSegment": "closed"}, js)
	seen := post("stranger", "/api/v3/groups", map[string]string{"name": "x", "pathSegment": "mine"}, js)
	check("hidden group's segment", hidden, 409, "closed")
	check("own group's segment", seen, 409, "mine")
	if a, b := strings.ReplaceAll(errorMessage(t, hidden), "closed", "*"), strings.ReplaceAll(errorMessage(t, seen), "mine", "*"); a != b {
		t.Errorf("a hidden group's 409 differs from a visible one's: %q vs %q", a, b)
	}
	if strings.Contains(string(hidden.body), f.ids["closed"]) || strings.Contains(string(hidden.body), "the closed group") {
		t.Errorf("409 leaks more than the name: %s", hidden.body)
	}

	// JSON routes want application/json; a browser's cross-site text/plain or form body is 415 and creates nothing.
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
		check("createTopGroup as "+ct, post("stranger", "/api/v3/groups", map[string]string{"name": "sneaky"}, ct), 415, "application/json")
		check("updatePartialGroup as "+ct, f.do(request{method: "PATCH", path: "/api/v3/groups/" + mineID, as: "stranger",
			body: jsonBody(map[string]string{"description": "sneaky"}), contentType: ct}), 415, "application/json")
	}
	wantStatus(t, post("stranger", "/api/v3/groups/"+mineID, map[string]string{"name": "charset"}, "application/json; charset=utf-8"), 200)

	// Contract gaps.
	check("createRepositoryInGroup without parentId", post("stranger", "/api/v3/repositories", map[string]string{"name": "r"}, js), 400, "parentId")
	check("v2 createRepositoryInGroup without parentId", post("stranger", "/api/v2/repositories", map[string]string{"name": "r"}, js), 400, "parentId")
	check("createPublication as JSON", post("publisher", "/api/v3/repositories/{vis}/publications", map[string]string{"name": "p"}, js), 415, "multipart/form-data")
	check("updatePublication as text", f.do(request{method: "PUT", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher",
		body: strings.NewReader("<a> <b> <c> ."), contentType: "text/turtle"}), 415, "multipart/form-data")
	check("addFile as octets", f.do(request{method: "POST", path: f.path("/api/v3/repositories/{vis}/files"), as: "publisher",
		body: strings.NewReader("x"), contentType: "application/octet-stream"}), 415, "multipart/form-data")
	check("unknown sortBy for a group's repositories", f.do(request{method: "GET", path: f.path("/api/v3/groups/{org}/repositories?sortBy=colour"), as: "viewer"}), 400, "sortBy", "colour")

	// Shadowing immutable URLs: a PUBLISHER cannot put a publication at another's version or resource path, or
	// above it.
	pub := func(uri string) response {
		b, ct := multipartBody(mpart{name: "metadata", contentType: js, data: `{"name":"p","publicationUri":"` + uri + `"}`},
			mpart{name: "content", filename: "x.ttl", contentType: "text/turtle", data: "<a> <b> <c> ."})
		return f.do(request{method: "POST", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: b, contentType: ct})
	}
	versions := f.do(request{method: "GET", path: f.path("/api/v3/publications/{vis.pub}/versions"), as: "viewer"})
	wantStatus(t, versions, 200)
	check("publication at a version URL", pub("core/versions/1"), 400, "versions")
	check("publication at a resource URL", pub("core/Thing"), 409, `"core"`)
	res = pub("lib/a")
	wantStatus(t, res, 200)
	libA := decodeJSON[map[string]any](t, res)["id"].(string)
	check("publication above another", pub("lib"), 409, "lib/a")
	// lib/a is the publisher's own work in a repository it publishes to: drop it again so that the world compares.
	wantStatus(t, f.do(request{method: "DELETE", path: "/api/v3/publications/" + libA, as: "publisher"}), 200)

	f.unchangedOutside(before, own)
}

// TestTurtleAliasOnStatements is the API half of issue 15's Accept: application/x-turtle gap (the site half is in
// package site): /statements already served it.
func TestTurtleAliasOnStatements(t *testing.T) {
	f := newFixture(t)
	res := f.do(request{method: "GET", path: f.path("/api/v3/publications/{vis.pub}/statements"), as: "viewer", accept: "application/x-turtle"})
	wantStatus(t, res, http.StatusOK)
}
