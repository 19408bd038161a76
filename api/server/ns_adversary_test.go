package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

// TestAdversaryNS runs issue 15's probes against the legacy /ns routes as ordinary credentials: the top-level ns
// group cannot be squatted (before or after the administrator creates it), a stranger can neither publish into,
// overwrite, retract nor delete what the ns repositories hold, a publisher of one ns repository cannot shadow a
// publication's version or SPARQL URLs, a cross-origin browser write is refused, and nothing outside the
// prober's own groups changed.
func TestAdversaryNS(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const js = "application/json"
	// Before the hub has an ns group, nobody but the administrator may create it.
	for _, as := range []string{"stranger", "publisher", "owner"} {
		res := f.do(request{method: "POST", path: "/api/v3/groups", as: as, body: jsonBody(map[string]string{"name": "ns", "type": "PUBLIC"}), contentType: js})
		if res.code != 400 || !strings.Contains(errorMessage(t, res), "reserved") {
			t.Errorf("%s creating the ns group: %d %s", as, res.code, res.body)
		}
	}
	res := f.do(request{method: "POST", path: "/api/v3/groups", as: "admin", body: jsonBody(map[string]string{"name": "ns", "type": "PUBLIC"}), contentType: js})
	wantStatus(t, res, 200)
	nsID := decodeJSON[map[string]any](t, res)["id"].(string)
	repo, err := f.st.CreateRepository(ctx, model.SystemActor, model.Repository{Name: "terms", ParentID: nsID, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	const name = "public/stable/ctx/fn/core"
	if _, err := f.st.CreatePublication(ctx, model.SystemActor, repo.ID, model.PublicationMeta{Name: "core", PublicationURI: name},
		store.Content{Ext: ".ttl", Data: []byte(turtleA)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Grant(ctx, model.SystemActor, f.callers["publisher"].id, repo.ID, model.Publisher); err != nil {
		t.Fatal(err)
	}
	before := f.world()
	var mine []string
	own := func(id string) bool { return slices.Contains(mine, id) }

	// Squatting again, under another spelling, or by moving a group to the top.
	for _, seg := range []string{"ns", "NS", "Ns"} {
		res := f.do(request{method: "POST", path: "/api/v3/groups", as: "stranger", body: jsonBody(map[string]string{"name": "x", "pathSegment": seg}), contentType: js})
		if res.code != 400 {
			t.Errorf("stranger creating %q: %d %s", seg, res.code, res.body)
		}
	}
	// A stranger cannot write into the ns repository.
	mp, ct := multipartBody(mpart{name: "metadata", data: `{"name":"n","publicationUri":"x/y/z/w/n"}`}, mpart{name: "content", filename: "c.ttl", data: turtleA})
	if res := f.do(request{method: "POST", path: "/ns/terms", as: "stranger", body: mp, contentType: ct}); res.code != 403 {
		t.Errorf("stranger publishing into /ns/terms: %d %s", res.code, res.body)
	}
	for _, m := range []string{"PUT", "DELETE"} {
		mp, ct := multipartBody(mpart{name: "meta-data", data: `{}`}, mpart{name: "Content", filename: "c.ttl", data: turtleB})
		if res := f.do(request{method: m, path: "/ns/terms/" + name, as: "stranger", body: mp, contentType: ct}); res.code != 403 {
			t.Errorf("stranger %s of an ns publication: %d %s", m, res.code, res.body)
		}
	}
	// A publisher of the repository cannot shadow the publication's versions or its SPARQL endpoint, nor send a
	// form.
	for _, uri := range []string{name + "/versions", name + "/sparql", name + "/x"} {
		mp, ct := multipartBody(mpart{name: "metadata", data: `{"name":"n","publicationUri":"` + uri + `"}`}, mpart{name: "content", filename: "c.ttl", data: turtleA})
		if res := f.do(request{method: "POST", path: "/ns/terms", as: "publisher", body: mp, contentType: ct}); res.code != 400 && res.code != 409 {
			t.Errorf("publisher creating %s: %d %s", uri, res.code, res.body)
		}
	}
	if res := f.do(request{method: "POST", path: "/ns/terms", as: "publisher", body: strings.NewReader("name=x"), contentType: "application/x-www-form-urlencoded"}); res.code != 415 {
		t.Errorf("form post to /ns/terms: %d %s", res.code, res.body)
	}
	// A cross-origin browser write with the publisher's cached credentials is refused before it is read.
	mp, ct = multipartBody(mpart{name: "meta-data", data: `{}`}, mpart{name: "Content", filename: "c.ttl", data: turtleB})
	if res := f.doWith(request{method: "PUT", path: "/ns/terms/" + name, as: "publisher", body: mp, contentType: ct}, map[string]string{"Origin": "https://evil.example"}); res.code != 403 {
		t.Errorf("cross-origin PUT: %d %s", res.code, res.body)
	}
	f.unchangedOutside(before, own)
}
