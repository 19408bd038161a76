package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// TestLegacyVersionDeleteRetracts: DELETE /ns/…/versions/{v} retracts the version. It disappears from every
// versions list (v3, v2 under both spellings, /ns), its meta-data, content, SPARQL and delta routes answer 404,
// retracting the latest makes the previous one the latest, the only version left is 409, and a later version
// does not reuse the label.
func TestLegacyVersionDeleteRetracts(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sys := model.SystemActor
	ns, err := f.st.CreateGroup(ctx, sys, model.Group{Name: "ns", Type: model.GroupPrivate})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := f.st.CreateRepository(ctx, sys, model.Repository{Name: "otl", ParentID: ns.ID, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range roleCallers {
		if _, err := f.st.Grant(ctx, sys, f.callers[rc.name].id, ns.ID, rc.role); err != nil {
			t.Fatal(err)
		}
	}
	const name = "public/stable/road/vocab/core"
	content := func(n int) store.Content {
		return store.Content{Ext: ".ttl", Data: []byte(fmt.Sprintf("@prefix ex: <http://example.org/> .\n<Thing> ex:label \"v%d\" .\n", n))}
	}
	times := map[string]time.Time{}
	p, err := f.st.CreatePublication(ctx, sys, repo.ID, model.PublicationMeta{Name: "core", PublicationURI: name, VersioningMode: model.Incremental}, content(1))
	if err != nil {
		t.Fatal(err)
	}
	times["1"] = p.Version.Time
	for n := 2; n <= 3; n++ {
		f.clock.Add(int64(time.Hour))
		q, err := f.st.UpdatePublication(ctx, sys, p.ID, store.PublicationPatch{}, ptr(content(n)))
		if err != nil {
			t.Fatal(err)
		}
		times[q.Version.Label] = q.Version.Time
	}
	ids := map[string]string{}
	if q, err := f.st.Publication(ctx, sys, p.ID, ""); err != nil {
		t.Fatal(err)
	} else {
		for _, v := range q.Versions {
			ids[v.Label] = v.ID
		}
	}
	P := "/ns/otl/" + name
	id := p.ID
	list := func(path, as string) string {
		t.Helper()
		res := f.do(request{method: "GET", path: path, as: as})
		wantStatus(t, res, 200)
		var vs []map[string]any
		switch {
		case strings.HasSuffix(path, "/versions"):
			vs = decodeJSON[[]map[string]any](t, res)
		case strings.Contains(path, "/publications/"+id), strings.Contains(path, "?id="):
			for _, v := range decodeJSON[map[string]any](t, res)["versions"].([]any) {
				vs = append(vs, v.(map[string]any))
			}
		default: // a repository's list
			for _, item := range decodeJSON[[]map[string]any](t, res) {
				if item["id"] == id {
					for _, v := range item["versions"].([]any) {
						vs = append(vs, v.(map[string]any))
					}
				}
			}
		}
		var ls []string
		for _, v := range vs {
			ls = append(ls, fmt.Sprint(v["version"]))
		}
		return strings.Join(ls, ",")
	}
	lists := []struct{ path, as string }{
		{P + "/versions", "anonymous"},
		{"/ns/otl", "anonymous"},
		{"/api/v3/publications/" + id + "/versions", "viewer"},
		{"/api/v3/publications/" + id, "viewer"},
		{"/api/v3/repositories/" + repo.ID + "/publications", "viewer"},
		{"/api/v2/respositories/" + repo.ID + "/publications", "viewer"},
		{"/api/v2/repositories/" + repo.ID + "/publications", "viewer"},
		{"/api/v2/repositories/" + repo.ID + "/publications?id=" + id, "viewer"},
	}
	checkLists := func(want string) {
		t.Helper()
		for _, l := range lists {
			if got := list(l.path, l.as); got != want {
				t.Errorf("%s lists versions %q, want %q", l.path, got, want)
			}
		}
	}
	v4Date := func() float64 {
		t.Helper()
		res := f.do(request{method: "GET", path: "/api/v4/publications?repositoryId=" + repo.ID, as: "publisher"})
		wantStatus(t, res, 200)
		for _, it := range decodeJSON[struct{ Contents []map[string]any }](t, res).Contents {
			if it["id"] == id {
				return it["publicationDate"].(float64)
			}
		}
		t.Fatalf("v4 list lacks the publication: %s", res.body)
		return 0
	}
	latestLabel := func() string {
		t.Helper()
		res := f.do(request{method: "GET", path: P, as: "anonymous", accept: "application/n-triples"})
		wantStatus(t, res, 200)
		for n := 1; n <= 9; n++ {
			if strings.Contains(string(res.body), fmt.Sprintf(`"v%d"`, n)) {
				return fmt.Sprint(n)
			}
		}
		return string(res.body)
	}
	checkLists("1,2,3")

	// A version in the middle, by its label.
	res := f.do(request{method: "DELETE", path: P + "/versions/2", as: "publisher"})
	wantStatus(t, res, 200)
	if got := decodeJSON[map[string]any](t, res); got["version"] != "2" || got["id"] != ids["2"] {
		t.Errorf("the answer is not the deleted version: %s", res.body)
	}
	checkLists("1,3")
	sparql := "?query=" + url.QueryEscape("SELECT ?l { ?s <http://example.org/label> ?l }")
	for _, path := range []string{
		P + "/versions/2",
		P + "/versions/" + ids["2"],
		P + "/versions/2/sparql" + sparql,
		"/api/v3/publications/" + id + "?version=2",
		"/api/v3/publications/" + id + "/statements?version=" + ids["2"],
		"/api/v2/repositories/" + repo.ID + "/publications/publication?id=" + id + "&version=2",
		"/api/v3/publications.delta?version1=" + ids["1"] + "&version2=" + ids["2"],
	} {
		res := f.do(request{method: "GET", path: path, as: "admin", accept: "application/n-quads"})
		if res.code != http.StatusNotFound {
			t.Errorf("GET %s after retraction: %d, want 404: %s", path, res.code, res.body)
		}
	}
	wantStatus(t, f.do(request{method: "DELETE", path: P + "/versions/2", as: "publisher"}), http.StatusNotFound)
	if got := latestLabel(); got != "3" {
		t.Errorf("latest content is version %s, want 3", got)
	}

	// The latest version, by its id: version 1 is the latest again, everywhere.
	wantStatus(t, f.do(request{method: "DELETE", path: P + "/versions/" + ids["3"], as: "owner"}), 200)
	checkLists("1")
	if got := latestLabel(); got != "1" {
		t.Errorf("latest content is version %s, want 1", got)
	}
	if got, want := v4Date(), float64(times["1"].UnixNano())/1e9; got != want {
		t.Errorf("v4 publicationDate %f, want version 1's %f", got, want)
	}
	res = f.do(request{method: "GET", path: P + "/sparql" + sparql, as: "anonymous"})
	wantStatus(t, res, 200)
	if !strings.Contains(string(res.body), `"v1"`) || strings.Contains(string(res.body), `"v3"`) {
		t.Errorf("SPARQL on the latest after retracting version 3: %s", res.body)
	}

	// The only version left.
	res = f.do(request{method: "DELETE", path: P + "/versions/1", as: "publisher"})
	wantStatus(t, res, http.StatusConflict)
	if !strings.Contains(string(res.body), "delete the publication instead") {
		t.Errorf("409 without saying what to do: %s", res.body)
	}

	// The retraction is a commit by the caller; a later version takes a new label.
	g, err := gitrepo.Open(f.st.RepoDir(repo.ID))
	if err != nil {
		t.Fatal(err)
	}
	head, _ := g.Head()
	c, err := g.Commit(head)
	if err != nil {
		t.Fatal(err)
	}
	if c.Author.Name != "owner" || !strings.HasPrefix(c.Message, "Retract version 3 of publication "+name) {
		t.Errorf("retraction commit by %q: %q", c.Author.Name, c.Message)
	}
	body, ct := multipartBody(mpart{name: "Content", filename: "c.ttl", data: string(content(4).Data)})
	wantStatus(t, f.do(request{method: "PUT", path: P, as: "publisher", body: body, contentType: ct}), 200)
	checkLists("1,4")
	if got := latestLabel(); got != "4" {
		t.Errorf("latest content is version %s, want 4", got)
	}
}

func ptr[T any](v T) *T { return &v }
