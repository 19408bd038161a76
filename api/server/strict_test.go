package server_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

// jsonPartOf names, for each multipart route shape, the part that holds JSON meta-data (optional in the routes
// that list only the content part).
var jsonPartOf = map[string]string{
	"multipart:metadata,content":  "metadata",
	"multipart:meta-data,Content": "meta-data",
	"multipart:fileInfo,content":  "fileInfo",
	"multipart:content":           "fileInfo",
	"multipart:Content":           "meta-data",
}

// validJSON is a body each JSON request type accepts, so that the one unknown field added to it is the only fault.
var validJSON = map[string]map[string]any{
	"json:Group":                 {"name": "strictgroup", "type": "PUBLIC"},
	"json:GroupPartial":          {"description": "changed"},
	"json:RepositoryDataInput":   {"name": "strictrepo", "parentId": "{org}", "visible": true},
	"json:RepositoryPartial":     {"description": "changed"},
	"json:PublicationMetaPatch":  {"description": "changed"},
	"metadata":                   {"name": "strictpub"},
	"meta-data":                  {"name": "core"},
	"fileInfo":                   {"name": "strict.txt"},
	"multipart:content/fileInfo": {},
}

// TestNoFieldIgnored: for every route of the table that reads a JSON body or a JSON multipart part, one field the
// route does not read gets 400 naming it, and nothing changes (the hub's commit stays where it was).
func TestNoFieldIgnored(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ns, err := f.st.CreateGroup(ctx, model.SystemActor, model.Group{Name: "ns", Type: model.GroupPrivate})
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.st.CreateRepository(ctx, model.SystemActor, model.Repository{Name: "nsrepo", ParentID: ns.ID, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.CreatePublication(ctx, model.SystemActor, r.ID, model.PublicationMeta{Name: "core", PublicationURI: "a/b/c/d/core"},
		store.Content{Ext: ".ttl", Data: []byte(turtleA)}); err != nil {
		t.Fatal(err)
	}
	params := map[string]string{
		"{id}": "", "{groupId}": f.ids["org"], "{repositoryId}": f.ids["vis"], "{repository}": "nsrepo",
		"{accessibility}": "a", "{status}": "b", "{context}": "c", "{function}": "d", "{name}": "core",
	}
	idFor := func(pattern string) string {
		switch {
		case strings.Contains(pattern, "/groups/"):
			return f.ids["org"]
		case strings.Contains(pattern, "positories/"):
			return f.ids["vis"]
		case strings.Contains(pattern, "/publications/"):
			return f.ids["vis.pub"]
		default:
			return f.ids["vis.file"]
		}
	}
	tested := 0
	for _, rt := range f.srv.Routes() {
		if rt.Body == "" || rt.Body == "sparql" {
			continue
		}
		tested++
		t.Run(rt.Method+" "+rt.Pattern, func(t *testing.T) {
			path := rt.Pattern
			for k, v := range params {
				if k == "{id}" {
					v = idFor(rt.Pattern)
				}
				path = strings.ReplaceAll(path, k, v)
			}
			if strings.HasPrefix(rt.Pattern, "/api/v2/") && strings.HasSuffix(rt.Pattern, "/publications") && rt.Method == "PATCH" {
				path += "?name=core" // v2 names the publication in the query
			}
			var rq request
			if strings.HasPrefix(rt.Body, "json:") {
				body := fill(f, validJSON[rt.Body])
				body["bogusField"] = 1
				rq = request{method: rt.Method, path: path, as: "admin", body: jsonBody(body), contentType: "application/json"}
			} else {
				part := jsonPartOf[rt.Body]
				if part == "" {
					t.Fatalf("no JSON part known for %s: add it to jsonPartOf", rt.Body)
				}
				meta := fill(f, validJSON[part])
				meta["bogusField"] = 1
				b, _ := json.Marshal(meta)
				contentPart := "content"
				if strings.Contains(rt.Body, "Content") {
					contentPart = "Content"
				}
				body, ct := multipartBody(mpart{name: part, contentType: "application/json", data: string(b)},
					mpart{name: contentPart, filename: "x.ttl", contentType: "text/turtle", data: turtleB})
				rq = request{method: rt.Method, path: path, as: "admin", body: body, contentType: ct}
			}
			before := head(t, f)
			res := f.do(rq)
			wantStatus(t, res, http.StatusBadRequest)
			var e struct {
				Message string            `json:"message"`
				Details map[string]string `json:"details"`
			}
			if err := json.Unmarshal(res.body, &e); err != nil || e.Details["field"] != "bogusField" || !strings.Contains(e.Message, "bogusField") {
				t.Fatalf("the 400 does not name the field: %s", res.body)
			}
			if after := head(t, f); after != before {
				t.Fatalf("the hub changed on a refused request:\n%s\n%s", before, after)
			}
		})
	}
	if tested < 15 {
		t.Fatalf("only %d routes with bodies in the table", tested)
	}
}

// fill copies a body template, replacing {key} strings with fixture ids.
func fill(f *fixture, tmpl map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range tmpl {
		if s, ok := v.(string); ok {
			v = f.path(s)
		}
		out[k] = v
	}
	return out
}

// head is the hub's state as the store sees it: its catalogue and every repository's publications and files.
func head(t *testing.T, f *fixture) string {
	t.Helper()
	ctx := context.Background()
	st, err := f.st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(st.Groups)
	out := string(b)
	b, _ = json.Marshal(st.Repos)
	out += string(b)
	for _, id := range slices.Sorted(maps.Keys(st.Repos)) {
		ps, err := f.st.Publications(ctx, model.SystemActor, id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ = json.Marshal(ps)
		out += string(b)
		fs, err := f.st.Files(ctx, model.SystemActor, id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ = json.Marshal(fs)
		out += string(b)
	}
	return out
}

// TestAliasesAndInapplicableFields: the documented aliases are honoured, read-only fields are accepted only as
// null, versionLabel outside CUSTOM is refused, an unknown versioningMode in a PATCH body is refused, and the
// defaults that hide what was created are echoed in the reply.
func TestAliasesAndInapplicableFields(t *testing.T) {
	f := newFixture(t)
	post := func(path string, body map[string]any) response {
		return f.do(request{method: "POST", path: f.path(path), as: "admin", body: jsonBody(fill(f, body)), contentType: "application/json"})
	}
	// The reply's own name for visibility creates a visible repository.
	for i, alias := range []string{"publiclyVisible", "publicVisibility", "public"} {
		res := post("/api/v3/repositories", map[string]any{"name": "alias" + string(rune('a'+i)), "parentId": "{org}", alias: true})
		wantStatus(t, res, http.StatusOK)
		if got := decodeJSON[map[string]any](t, res); got["publiclyVisible"] != true || got["notes"] != nil {
			t.Fatalf("%s: %s", alias, res.body)
		}
	}
	res := post("/api/v3/repositories", map[string]any{"name": "both", "parentId": "{org}", "visible": true, "publiclyVisible": false})
	wantStatus(t, res, http.StatusBadRequest)
	// Without visible, the reply says the repository is hidden.
	res = post("/api/v3/repositories", map[string]any{"name": "quiet", "parentId": "{org}"})
	wantStatus(t, res, http.StatusOK)
	if !strings.Contains(string(res.body), `"notes":["visible was not given`) {
		t.Fatalf("no note on the hidden default: %s", res.body)
	}
	res = post("/api/v3/groups", map[string]any{"name": "W3C vocabularies"})
	wantStatus(t, res, http.StatusOK)
	if g := decodeJSON[map[string]any](t, res); g["type"] != "PRIVATE" || !strings.Contains(string(res.body), "PRIVATE: only credentials") {
		t.Fatalf("no note on the PRIVATE default: %s", res.body)
	}
	// Read-only fields: null is what a client sends back unchanged; a value would be silently replaced.
	wantStatus(t, post("/api/v3/groups", map[string]any{"name": "ro1", "type": "PUBLIC", "id": nil, "createdOn": nil}), http.StatusOK)
	res = post("/api/v3/groups", map[string]any{"name": "ro2", "type": "PUBLIC", "id": "mine"})
	wantStatus(t, res, http.StatusBadRequest)
	if !strings.Contains(string(res.body), "id is set by the server") {
		t.Fatal(string(res.body))
	}
	// A field of the wrong JSON type is named too.
	res = post("/api/v3/groups", map[string]any{"name": 7, "type": "PUBLIC"})
	wantStatus(t, res, http.StatusBadRequest)
	if !strings.Contains(string(res.body), `"field":"name"`) {
		t.Fatal(string(res.body))
	}

	// versionLabel applies to CUSTOM only, on create and on a new version.
	meta, _ := json.Marshal(map[string]any{"name": "labelled", "versionLabel": "1.0"})
	body, ct := multipartBody(mpart{name: "metadata", data: string(meta)}, mpart{name: "content", filename: "a.ttl", data: turtleA})
	res = f.do(request{method: "POST", path: f.path("/api/v3/repositories/{vis}/publications"), as: "admin", body: body, contentType: ct})
	wantStatus(t, res, http.StatusBadRequest)
	if !strings.Contains(string(res.body), "applies only to versioningMode CUSTOM") {
		t.Fatal(string(res.body))
	}
	meta, _ = json.Marshal(map[string]any{"name": "core", "versionLabel": "2.0"})
	body, ct = multipartBody(mpart{name: "meta-data", data: string(meta)}, mpart{name: "Content", filename: "a.ttl", data: turtleB})
	res = f.do(request{method: "PUT", path: f.path("/api/v3/repositories/{vis}/publications"), as: "admin", body: body, contentType: ct})
	wantStatus(t, res, http.StatusBadRequest)

	// PATCH reads a JSON body: applied when valid, refused when not, never 200 with nothing changed.
	patch := func(body string) response {
		return f.do(request{method: "PATCH", path: f.path("/api/v3/publications/{vis.pub}"), as: "admin",
			body: strings.NewReader(body), contentType: "application/json"})
	}
	res = patch(`{"versioningMode":"BOGUS"}`)
	wantStatus(t, res, http.StatusBadRequest)
	if !strings.Contains(string(res.body), "BOGUS") {
		t.Fatal(string(res.body))
	}
	res = patch(`{"versionLabel":"3"}`)
	wantStatus(t, res, http.StatusBadRequest)
	res = patch(`{"description":"from the body","versioningMode":"CUSTOM"}`)
	wantStatus(t, res, http.StatusOK)
	if p := decodeJSON[map[string]any](t, res); p["description"] != "from the body" || p["versioningMode"] != "CUSTOM" {
		t.Fatalf("PATCH body not applied: %s", res.body)
	}
	// No body keeps working as api.md describes it: the query parameters.
	res = f.do(request{method: "PATCH", path: f.path("/api/v3/publications/{vis.pub}?publisher=Q"), as: "admin", body: io.NopCloser(strings.NewReader(""))})
	wantStatus(t, res, http.StatusOK)
}
