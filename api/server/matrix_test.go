package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

// need says what an operation requires of the caller on its target.
type need int

const (
	needSee  need = iota // may see the target (VIEWER, or visible to everyone)
	needAuth             // any valid credential
	needRole             // at least op.role
)

type matrixOp struct {
	name    string
	method  string
	path    string // {T} is the target id
	targets []string
	need    need
	role    model.Role
	ok      int // status on success
	// body builds the request body for one case; n makes names unique.
	body func(f *fixture, target string, n int) (io.Reader, string)
	// fresh creates a new target for a case (deletes), returning its id; nil uses the fixture's target.
	fresh func(f *fixture, target string, n int) string
}

// visibleToStranger: what a credential without any grant may see.
var visibleToStranger = map[string]bool{"vis": true, "org": true, "vis.pub": true, "vis.file": true, "pubgrp": true}

func pubMeta(name string) string { return `{"name":"` + name + `","versioningMode":"INCREMENTAL"}` }

func matrixOps() []matrixOp {
	repos := []string{"vis", "hid"}
	groups := []string{"org", "closed"}
	createPub := func(f *fixture, target string, n int) (io.Reader, string) {
		return multipartBody(mpart{name: "metadata", filename: "m.json", contentType: "application/json", data: pubMeta(fmt.Sprintf("p%d", n))},
			mpart{name: "content", filename: "c.ttl", data: turtleA})
	}
	updatePub := func(f *fixture, target string, n int) (io.Reader, string) {
		return multipartBody(mpart{name: "meta-data", data: `{"name":"core"}`},
			mpart{name: "Content", filename: "c.ttl", data: fmt.Sprintf("%s<x> <y> %d .\n", turtleA, n)})
	}
	addFile := func(f *fixture, target string, n int) (io.Reader, string) {
		return multipartBody(mpart{name: "fileInfo", data: fmt.Sprintf(`{"name":"f%d.txt"}`, n)},
			mpart{name: "content", filename: "f.txt", contentType: "text/plain", data: "hello"})
	}
	replaceFile := func(f *fixture, target string, n int) (io.Reader, string) {
		return multipartBody(mpart{name: "content", filename: "logo.png", data: fmt.Sprintf("PNG%d", n)})
	}
	js := func(v any) func(*fixture, string, int) (io.Reader, string) {
		return func(*fixture, string, int) (io.Reader, string) { return jsonBody(v), "application/json" }
	}
	freshPub := func(f *fixture, target string, n int) string {
		p, err := f.st.CreatePublication(context.Background(), model.SystemActor, f.ids[strings.TrimSuffix(target, ".pub")],
			model.PublicationMeta{Name: fmt.Sprintf("del%d", n)}, store.Content{Ext: ".nt", Data: []byte("<a:s> <a:p> <a:o> .\n")})
		if err != nil {
			f.t.Fatal(err)
		}
		return p.ID
	}
	freshFile := func(f *fixture, target string, n int) string {
		fl, err := f.st.AddFile(context.Background(), model.SystemActor, f.ids[strings.TrimSuffix(target, ".file")],
			model.FileMeta{Name: fmt.Sprintf("del%d.bin", n)}, []byte{1, 2, 3})
		if err != nil {
			f.t.Fatal(err)
		}
		return fl.ID
	}
	freshRepo := func(f *fixture, target string, n int) string {
		r, err := f.st.CreateRepository(context.Background(), model.SystemActor, model.Repository{Name: fmt.Sprintf("del%d", n),
			ParentID: f.ids["org"], Visible: target == "vis"})
		if err != nil {
			f.t.Fatal(err)
		}
		return r.ID
	}
	freshGroup := func(f *fixture, target string, n int) string {
		typ := model.GroupPrivate
		if target == "pubgrp" {
			typ = model.GroupPublic
		}
		g, err := f.st.CreateGroup(context.Background(), model.SystemActor, model.Group{Name: fmt.Sprintf("del%d", n), Type: typ, ParentID: f.ids["org"]})
		if err != nil {
			f.t.Fatal(err)
		}
		return g.ID
	}
	pubs := []string{"vis.pub", "hid.pub"}
	files := []string{"vis.file", "hid.file"}
	return []matrixOp{
		{name: "getTopGroups", method: "GET", path: "/api/v3/groups", targets: []string{""}, need: needAuth},
		{name: "createTopGroup", method: "POST", path: "/api/v3/groups", targets: []string{""}, need: needAuth,
			body: func(f *fixture, _ string, n int) (io.Reader, string) {
				return jsonBody(map[string]string{"name": fmt.Sprintf("top%d", n), "type": "PRIVATE"}), "application/json"
			}},
		{name: "getGroupDetails", method: "GET", path: "/api/v3/groups/{T}", targets: groups, need: needSee},
		{name: "updatePartialGroup", method: "PATCH", path: "/api/v3/groups/{T}", targets: groups, need: needRole, role: model.Manager, body: js(map[string]string{"description": "changed"})},
		{name: "createSubGroup", method: "POST", path: "/api/v3/groups/{T}", targets: groups, need: needRole, role: model.Manager,
			body: func(f *fixture, _ string, n int) (io.Reader, string) {
				return jsonBody(map[string]string{"name": fmt.Sprintf("sub%d", n), "type": "PRIVATE"}), "application/json"
			}},
		{name: "getSubGroups", method: "GET", path: "/api/v3/groups/{T}/subgroups", targets: groups, need: needSee},
		{name: "deleteGroup", method: "DELETE", path: "/api/v3/groups/{T}", targets: []string{"empty", "pubgrp"}, need: needRole, role: model.Owner, fresh: freshGroup},
		{name: "getRepositoriesWithAccessStatus", method: "GET", path: "/api/v3/repositories", targets: []string{""}, need: needAuth},
		{name: "createRepositoryInGroup", method: "POST", path: "/api/v3/repositories", targets: groups, need: needRole, role: model.Manager,
			body: func(f *fixture, target string, n int) (io.Reader, string) {
				return jsonBody(map[string]any{"name": fmt.Sprintf("r%d", n), "parentId": f.ids[target], "visible": false}), "application/json"
			}},
		{name: "getRepositoryMetadata", method: "GET", path: "/api/v3/repositories/{T}", targets: repos, need: needSee},
		{name: "updateRepository", method: "PATCH", path: "/api/v3/repositories/{T}", targets: repos, need: needRole, role: model.Manager, body: js(map[string]string{"description": "changed"})},
		{name: "deleteRepository", method: "DELETE", path: "/api/v3/repositories/{T}", targets: repos, need: needRole, role: model.Owner, fresh: freshRepo},
		{name: "getRepositories", method: "GET", path: "/api/v3/groups/{T}/repositories", targets: groups, need: needSee},
		{name: "getRepositoryPublications", method: "GET", path: "/api/v3/repositories/{T}/publications", targets: repos, need: needSee},
		{name: "createPublication", method: "POST", path: "/api/v3/repositories/{T}/publications", targets: repos, need: needRole, role: model.Publisher, body: createPub},
		{name: "updatePublication", method: "PUT", path: "/api/v3/repositories/{T}/publications", targets: repos, need: needRole, role: model.Publisher, body: updatePub},
		{name: "getPublicationMetaData", method: "GET", path: "/api/v3/publications/{T}", targets: pubs, need: needSee},
		{name: "getPublicationVersions", method: "GET", path: "/api/v3/publications/{T}/versions", targets: pubs, need: needSee},
		{name: "updatePublicationMetadata", method: "PATCH", path: "/api/v3/publications/{T}?description=new", targets: pubs, need: needRole, role: model.Publisher},
		{name: "deletePublication", method: "DELETE", path: "/api/v3/publications/{T}", targets: pubs, need: needRole, role: model.Publisher, fresh: freshPub},
		{name: "findDeltaForPublicationVersions", method: "GET", path: "/api/v3/publications.delta?version1={T}&version2={T}", targets: pubs, need: needSee},
		{name: "getPublicationContent", method: "GET", path: "/api/v3/publications/{T}/statements", targets: pubs, need: needSee},
		{name: "executeSparqlQueryGet", method: "GET", path: "/api/v3/publications/{T}/sparql?query=ASK%7B%7D", targets: pubs, need: needSee},
		{name: "executeSparqlQueryPost", method: "POST", path: "/api/v3/publications/{T}/sparql", targets: pubs, need: needSee,
			body: func(*fixture, string, int) (io.Reader, string) {
				return strings.NewReader("ASK {}"), "application/sparql-query"
			}},
		{name: "getRepositoryFiles", method: "GET", path: "/api/v3/repositories/{T}/files", targets: repos, need: needSee},
		{name: "addFile", method: "POST", path: "/api/v3/repositories/{T}/files", targets: repos, need: needRole, role: model.Publisher, body: addFile},
		{name: "getFileContent", method: "GET", path: "/api/v3/repositories/{T}/logo.png", targets: repos, need: needSee},
		{name: "getVersionOfFileContent", method: "GET", path: "/api/v3/repositories/{T}/logo.png/versions/1", targets: repos, need: needSee, ok: http.StatusNotFound},
		{name: "getFile", method: "GET", path: "/api/v3/files/{T}", targets: files, need: needSee},
		{name: "updateNonVersionFile", method: "PUT", path: "/api/v3/files/{T}", targets: files, need: needRole, role: model.Publisher, body: replaceFile},
		{name: "deleteFile", method: "DELETE", path: "/api/v3/files/{T}", targets: files, need: needRole, role: model.Publisher, fresh: freshFile},
		{name: "downloadFile", method: "GET", path: "/api/v3/files/{T}/content", targets: files, need: needSee},
		{name: "v4Repositories", method: "GET", path: "/api/v4/repositories", targets: []string{""}, need: needAuth},
		{name: "v4Publications", method: "GET", path: "/api/v4/publications?repositoryId={T}", targets: repos, need: needRole, role: model.Publisher},
		{name: "v2GetRepository", method: "GET", path: "/api/v2/respositories/{T}", targets: repos, need: needSee},
		{name: "v2PatchRepository", method: "PATCH", path: "/api/v2/repositories/{T}", targets: repos, need: needRole, role: model.Manager, body: js(map[string]string{"name": "renamed"})},
		{name: "v2GetPublication", method: "GET", path: "/api/v2/repositories/{T}/publications/publication?name=core", targets: repos, need: needSee},
	}
}

// TestPermissionMatrix runs every operation as every kind of caller on a target each caller may see and on one
// a stranger may not, and checks the status: 401 for bad or missing credentials, 404 exactly as for a missing
// thing when the caller may not see the target, 403 when it may see but not change it.
func TestPermissionMatrix(t *testing.T) {
	f := newFixture(t)
	// pubgrp: a PUBLIC subgroup target for deleteGroup (the stranger sees it and gets 403).
	names := []string{"anonymous", "wrongsecret", "expired", "revoked", "stranger", "viewer", "publisher", "manager", "owner", "admin"}
	n := 0
	for _, op := range matrixOps() {
		for _, target := range op.targets {
			for _, name := range names {
				n++
				c := f.callers[name]
				t.Run(op.name+"/"+target+"/"+name, func(t *testing.T) {
					f.t = t
					id := f.ids[target]
					if op.fresh != nil {
						id = op.fresh(f, target, n)
					}
					path := strings.ReplaceAll(op.path, "{T}", id)
					var body io.Reader
					var ct string
					if op.body != nil {
						body, ct = op.body(f, target, n)
					}
					res := f.do(request{method: op.method, path: path, as: name, body: body, contentType: ct})
					want := expected(op, c, target)
					if res.code != want {
						t.Fatalf("%s %s as %s: status %d, want %d: %s", op.method, path, name, res.code, want, res.body)
					}
					switch want {
					case http.StatusUnauthorized:
						if got := res.header.Get("WWW-Authenticate"); got != `Basic realm="ldhub"` {
							t.Errorf("WWW-Authenticate %q", got)
						}
					case http.StatusNotFound:
						if id == "" || op.ok == http.StatusNotFound {
							break
						}
						// No leak: the answer is the one for an id that never existed.
						ghost := model.NewID()
						body2, ct2 := rebody(op, f, target, n)
						res2 := f.do(request{method: op.method, path: strings.ReplaceAll(op.path, "{T}", ghost), as: name, body: body2, contentType: ct2})
						m1 := decodeJSON[map[string]any](t, res)["message"]
						m2 := decodeJSON[map[string]any](t, res2)["message"]
						if res2.code != http.StatusNotFound || strings.ReplaceAll(fmt.Sprint(m2), ghost, id) != fmt.Sprint(m1) {
							t.Errorf("hidden target answers %q, a missing one %d %q", m1, res2.code, m2)
						}
					}
					if want >= 400 && strings.Contains(string(res.body), c.secret) && c.secret != "" {
						t.Errorf("error body contains the secret")
					}
				})
			}
		}
	}
}

func rebody(op matrixOp, f *fixture, target string, n int) (io.Reader, string) {
	if op.body == nil {
		return nil, ""
	}
	return op.body(f, target, n)
}

func expected(op matrixOp, c *caller, target string) int {
	ok := op.ok
	if ok == 0 {
		ok = http.StatusOK
	}
	if c.authFails {
		return http.StatusUnauthorized
	}
	role := c.role
	if c.admin {
		role = model.Owner
	}
	canSee := role >= model.Viewer || visibleToStranger[target]
	switch op.need {
	case needAuth:
		return ok
	case needSee:
		if canSee {
			return ok
		}
	case needRole:
		if role >= op.role {
			return ok
		}
		if canSee {
			return http.StatusForbidden
		}
	}
	return http.StatusNotFound
}
