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

// TestLegacyPermissionMatrix: the /ns routes check permissions like v3, except that reads need no credentials
// (a visible repository is public; a hidden one is 404 to the anonymous caller as to a stranger).
func TestLegacyPermissionMatrix(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sys := model.SystemActor
	ns, err := f.st.CreateGroup(ctx, sys, model.Group{Name: "ns", Type: model.GroupPrivate})
	if err != nil {
		t.Fatal(err)
	}
	const name = "public/stable/ctx/fn/core"
	for _, key := range []string{"nsvis", "nshid"} {
		r, err := f.st.CreateRepository(ctx, sys, model.Repository{Name: key, ParentID: ns.ID, Visible: key == "nsvis"})
		if err != nil {
			t.Fatal(err)
		}
		f.ids[key] = r.ID
		if _, err := f.st.CreatePublication(ctx, sys, r.ID, model.PublicationMeta{Name: "core", PublicationURI: name},
			store.Content{Ext: ".ttl", Data: []byte(turtleA)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, rc := range roleCallers {
		if _, err := f.st.Grant(ctx, sys, f.callers[rc.name].id, ns.ID, rc.role); err != nil {
			t.Fatal(err)
		}
	}
	// fresh makes a publication to delete (or, with two versions, one whose first version can be deleted) and
	// returns its name and its first version's label.
	fresh := func(repo string, n int, twoVersions bool) (string, string) {
		uri := fmt.Sprintf("a/b/c/d/del%d", n)
		p, err := f.st.CreatePublication(ctx, sys, f.ids[repo], model.PublicationMeta{Name: "del", PublicationURI: uri},
			store.Content{Ext: ".nt", Data: []byte("<a:s> <a:p> <a:o> .\n")})
		if err != nil {
			t.Fatal(err)
		}
		if twoVersions {
			if _, err := f.st.UpdatePublication(ctx, sys, p.ID, store.PublicationPatch{}, &store.Content{Ext: ".nt", Data: []byte("<a:s> <a:p> <a:o2> .\n")}); err != nil {
				t.Fatal(err)
			}
		}
		return uri, p.Version.Label
	}
	type op struct {
		name, method, path string // {R} repository segment, {P} publication name
		write              bool
		body               func(n int) (io.Reader, string)
		fresh, twoVersions bool
	}
	ops := []op{
		{name: "list", method: "GET", path: "/ns/{R}"},
		{name: "create", method: "POST", path: "/ns/{R}", write: true, body: func(n int) (io.Reader, string) {
			return multipartBody(mpart{name: "metadata", data: fmt.Sprintf(`{"name":"n%d","publicationUri":"x/y/z/w/n%d"}`, n, n)}, mpart{name: "content", filename: "c.ttl", data: turtleA})
		}},
		{name: "get", method: "GET", path: "/ns/{R}/{P}"},
		{name: "update", method: "PUT", path: "/ns/{R}/{P}", write: true, body: func(n int) (io.Reader, string) {
			return multipartBody(mpart{name: "Content", filename: "c.ttl", data: fmt.Sprintf("%s<x:a> <x:b> %d .\n", turtleA, n)})
		}},
		{name: "delete", method: "DELETE", path: "/ns/{R}/{P}", write: true, fresh: true},
		{name: "versions", method: "GET", path: "/ns/{R}/{P}/versions"},
		{name: "version", method: "GET", path: "/ns/{R}/{P}/versions/{V}", fresh: true, twoVersions: true},
		{name: "deleteVersion", method: "DELETE", path: "/ns/{R}/{P}/versions/{V}", write: true, fresh: true, twoVersions: true},
		{name: "versionSparql", method: "GET", path: "/ns/{R}/{P}/versions/{V}/sparql?query=ASK%7B%7D", fresh: true, twoVersions: true},
		{name: "sparql", method: "GET", path: "/ns/{R}/{P}/sparql?query=ASK%7B%7D"},
	}
	n := 0
	for _, o := range ops {
		for _, repo := range []string{"nsvis", "nshid"} {
			for _, who := range []string{"anonymous", "wrongsecret", "expired", "stranger", "viewer", "publisher", "owner", "admin"} {
				n++
				t.Run(o.name+"/"+repo+"/"+who, func(t *testing.T) {
					f.t = t
					c := f.callers[who]
					pub, version := name, ""
					if o.fresh {
						pub, version = fresh(repo, n, o.twoVersions)
					}
					path := strings.NewReplacer("{R}", repo, "{P}", pub, "{V}", version).Replace(o.path)
					var body io.Reader
					var ct string
					if o.body != nil {
						body, ct = o.body(n)
					}
					res := f.do(request{method: o.method, path: path, as: who, body: body, contentType: ct})
					role := c.role
					if c.admin {
						role = model.Owner
					}
					canSee := role >= model.Viewer || repo == "nsvis"
					want := http.StatusOK
					switch {
					case who != "anonymous" && c.authFails, who == "anonymous" && o.write:
						want = http.StatusUnauthorized
					case !canSee:
						want = http.StatusNotFound
					case o.write && role < model.Publisher:
						want = http.StatusForbidden
					}
					if res.code != want {
						t.Fatalf("%s %s as %s: %d, want %d: %s", o.method, path, who, res.code, want, res.body)
					}
				})
			}
		}
	}
}
