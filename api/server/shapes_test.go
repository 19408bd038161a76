package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/api/server"
)

const (
	groupFields          = "id name type description owner parentId pathSegment createdBy createdOn modifiedBy modifiedOn"
	groupViewFields      = "id name type description owner parentId createdBy createdOn modifiedBy modifiedOn path repositoryCount subgroupCount role"
	repositoryFields     = "id name description parentId pathSegment createdBy createdOn modifiedBy modifiedOn publiclyVisible"
	repositoryDataFields = "id name description owner parentId pathSegment visible createdBy createdOn modifiedBy modifiedOn publicationCount"
	repositoryViewFields = "id name owner status description fullPath accessRequestId publicVisibility"
	publicationFields    = "id name description owner publisher repository publicationDate schemaURIs useVersionedBaseUri versioningMode versions"
	pubListFields        = "id name description owner publisher repository repositoryId uri publicationDate schemaURIs versioningMode useVersionedBaseUri versions"
	versionFields        = "id description publisher version publicationDate schemaURIs"
	fileInfoFields       = "id name location mimeType repositoryId createdBy modifiedBy createdOn modifiedOn versioningMode"
	v4RepoFields         = "id name description pathSegment owner path parentId createdBy createdOn modifiedBy modifiedOn public"
	v4PubFields          = "id name description repositoryId owner publisher publicationDate uri useVersionBasedUri versioningMode schemaURIs pending"
)

func checkKeys(t *testing.T, what string, obj map[string]any, fields string) {
	t.Helper()
	if got, want := keysOf(t, obj), sortedFields(fields); got != want {
		t.Errorf("%s fields\n got %s\nwant %s", what, got, want)
	}
}

func TestGroupOperations(t *testing.T) {
	f := newFixture(t)
	res := f.do(request{method: "POST", path: "/api/v3/groups", as: "stranger", body: jsonBody(map[string]string{"name": "My Vocabularies", "type": "PUBLIC", "description": "d"}), contentType: "application/json"})
	wantStatus(t, res, 200)
	g := decodeJSON[map[string]any](t, res)
	checkKeys(t, "Group", g, groupFields)
	if g["pathSegment"] != "My-Vocabularies" || g["parentId"] != nil || g["type"] != "PUBLIC" || g["createdBy"] != f.callers["stranger"].id {
		t.Errorf("created group %v", g)
	}
	id := g["id"].(string)

	res = f.do(request{method: "GET", path: "/api/v3/groups/" + id, as: "stranger"})
	wantStatus(t, res, 200)
	v := decodeJSON[map[string]any](t, res)
	checkKeys(t, "GroupView", v, groupViewFields)
	if v["role"] != "OWNER" || v["path"] != "/My-Vocabularies" || v["subgroupCount"] != 0.0 {
		t.Errorf("group view %v", v)
	}

	// Counts show only what the caller sees: the stranger sees vis but not hid in org.
	for name, want := range map[string]float64{"stranger": 1, "viewer": 2} {
		v := decodeJSON[map[string]any](t, f.do(request{method: "GET", path: f.path("/api/v3/groups/{org}"), as: name}))
		if v["repositoryCount"] != want {
			t.Errorf("%s: repositoryCount %v, want %v", name, v["repositoryCount"], want)
		}
	}

	res = f.do(request{method: "PATCH", path: "/api/v3/groups/" + id, as: "stranger", body: jsonBody(map[string]string{"description": "new"}), contentType: "application/json"})
	wantStatus(t, res, 200)
	g = decodeJSON[map[string]any](t, res)
	checkKeys(t, "patched Group", g, groupFields)
	if g["description"] != "new" || g["name"] != "My Vocabularies" {
		t.Errorf("patch changed %v", g)
	}

	res = f.do(request{method: "POST", path: "/api/v3/groups/" + id, as: "stranger", body: jsonBody(map[string]string{"name": "sub", "type": "PRIVATE"}), contentType: "application/json"})
	wantStatus(t, res, 200)
	sub := decodeJSON[map[string]any](t, res)
	if sub["parentId"] != id {
		t.Errorf("subgroup parent %v", sub["parentId"])
	}

	res = f.do(request{method: "GET", path: "/api/v3/groups/" + id + "/subgroups", as: "stranger"})
	wantStatus(t, res, 200)
	page := decodeJSON[map[string]any](t, res)
	checkKeys(t, "GroupViewPage", page, "contents total")
	if page["total"] != 1.0 || len(page["contents"].([]any)) != 1 {
		t.Errorf("subgroups %v", page)
	}

	// A group that still holds a subgroup cannot be deleted.
	res = f.do(request{method: "DELETE", path: "/api/v3/groups/" + id, as: "stranger"})
	wantStatus(t, res, http.StatusConflict)
	res = f.do(request{method: "DELETE", path: "/api/v3/groups/" + sub["id"].(string), as: "stranger"})
	wantStatus(t, res, 200)
	del := decodeJSON[map[string]any](t, res)
	checkKeys(t, "deleted Group", del, groupFields)
	if del["name"] != "sub" {
		t.Errorf("delete returned %v", del)
	}
	wantStatus(t, f.do(request{method: "GET", path: "/api/v3/groups/" + sub["id"].(string), as: "stranger"}), 404)

	// The top-level list is a page of GroupViews.
	res = f.do(request{method: "GET", path: "/api/v3/groups", as: "viewer"})
	page = decodeJSON[map[string]any](t, res)
	if page["total"] != 3.0 { // org, closed, and the stranger's PUBLIC group
		t.Errorf("viewer sees %v top groups: %s", page["total"], res.body)
	}
	checkKeys(t, "GroupView item", page["contents"].([]any)[0].(map[string]any), groupViewFields)
}

func TestRepositoryOperations(t *testing.T) {
	f := newFixture(t)
	res := f.do(request{method: "POST", path: "/api/v3/repositories", as: "manager",
		body: jsonBody(map[string]any{"name": "Road Assets", "parentId": f.ids["org"], "visible": true, "description": "roads"}), contentType: "application/json"})
	wantStatus(t, res, 200)
	r := decodeJSON[map[string]any](t, res)
	checkKeys(t, "Repository", r, repositoryFields)
	if r["pathSegment"] != "Road-Assets" || r["publiclyVisible"] != true || r["parentId"] != f.ids["org"] {
		t.Errorf("created %v", r)
	}
	id := r["id"].(string)

	res = f.do(request{method: "GET", path: f.path("/api/v3/repositories/{vis}"), as: "viewer"})
	wantStatus(t, res, 200)
	d := decodeJSON[map[string]any](t, res)
	checkKeys(t, "RepositoryData", d, repositoryDataFields)
	if d["publicationCount"] != 1.0 || d["visible"] != true || d["name"] != "vis" {
		t.Errorf("repository data %v", d)
	}

	res = f.do(request{method: "PATCH", path: "/api/v3/repositories/" + id, as: "manager", body: jsonBody(map[string]any{"visible": false}), contentType: "application/json"})
	wantStatus(t, res, 200)
	d = decodeJSON[map[string]any](t, res)
	checkKeys(t, "patched RepositoryData", d, repositoryDataFields)
	if d["visible"] != false || d["description"] != "roads" {
		t.Errorf("patched %v", d)
	}

	res = f.do(request{method: "GET", path: "/api/v3/repositories", as: "publisher"})
	wantStatus(t, res, 200)
	list := decodeJSON[[]map[string]any](t, res)
	if len(list) != 4 { // vis, hid, inner and Road Assets, all through group grants
		t.Fatalf("publisher lists %d repositories: %s", len(list), res.body)
	}
	for _, it := range list {
		checkKeys(t, "RepositoryView", it, repositoryViewFields)
		if it["status"] != "PUBLISHER" {
			t.Errorf("status %v", it["status"])
		}
	}
	// A stranger holds no role anywhere: visible repositories are not "accessible" in the §5.4 sense.
	if list := decodeJSON[[]map[string]any](t, f.do(request{method: "GET", path: "/api/v3/repositories", as: "stranger"})); len(list) != 0 {
		t.Errorf("stranger lists %v", list)
	}

	res = f.do(request{method: "GET", path: f.path("/api/v3/groups/{org}/repositories"), as: "stranger"})
	wantStatus(t, res, 200)
	page := decodeJSON[map[string]any](t, res)
	if page["total"] != 1.0 {
		t.Errorf("stranger sees %v repositories of org", page["total"])
	}
	checkKeys(t, "RepositoryPage item", page["contents"].([]any)[0].(map[string]any), repositoryDataFields)

	res = f.do(request{method: "DELETE", path: "/api/v3/repositories/" + id, as: "owner"})
	wantStatus(t, res, 200)
	checkKeys(t, "deleted Repository", decodeJSON[map[string]any](t, res), repositoryFields)
	wantStatus(t, f.do(request{method: "GET", path: "/api/v3/repositories/" + id, as: "owner"}), 404)

	// A duplicate pathSegment among siblings is a conflict.
	res = f.do(request{method: "POST", path: "/api/v3/repositories", as: "manager",
		body: jsonBody(map[string]any{"name": "vis", "parentId": f.ids["org"]}), contentType: "application/json"})
	wantStatus(t, res, http.StatusConflict)
}

func TestPublicationOperations(t *testing.T) {
	f := newFixture(t)
	body, ct := multipartBody(
		mpart{name: "metadata", filename: "meta.json", contentType: "application/json",
			data: `{"name":"Road Vocabulary","publicationUri":"road/vocab","versioningMode":"CUSTOM","versionLabel":"v1","description":"roads","publisher":"ACME","schemaURIs":["http://schema.org/"]}`},
		mpart{name: "content", filename: "x.bin", contentType: "application/n-triples", data: "<a:s> <a:p> \"1\" .\n"})
	res := f.do(request{method: "POST", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: body, contentType: ct})
	wantStatus(t, res, 200)
	p := decodeJSON[map[string]any](t, res)
	checkKeys(t, "PublicationView", p, publicationFields)
	if p["name"] != "Road Vocabulary" || p["versioningMode"] != "CUSTOM" || p["repository"] != f.ids["vis"] || fmt.Sprint(p["schemaURIs"]) != "[http://schema.org/]" {
		t.Errorf("created %v", p)
	}
	vs := p["versions"].([]any)
	if len(vs) != 1 || vs[0].(map[string]any)["version"] != "v1" {
		t.Fatalf("versions %v", vs)
	}
	checkKeys(t, "PublicationVersionView", vs[0].(map[string]any), versionFields)
	id := p["id"].(string)

	// Update by publicationUri adds a version; a taken CUSTOM label is a conflict.
	n := 10 // the content of each update differs from the created "1"
	for _, tc := range []struct {
		label string
		code  int
	}{{"v2", 200}, {"v2", http.StatusConflict}} {
		n++
		body, ct = multipartBody(mpart{name: "meta-data", data: `{"publicationUri":"road/vocab","versionLabel":"` + tc.label + `"}`},
			mpart{name: "Content", filename: "v.nt", data: fmt.Sprintf("<a:s> <a:p> \"%d\" .\n", n)})
		res = f.do(request{method: "PUT", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: body, contentType: ct})
		wantStatus(t, res, tc.code)
	}
	res = f.do(request{method: "GET", path: "/api/v3/publications/" + id + "/versions", as: "viewer"})
	wantStatus(t, res, 200)
	versions := decodeJSON[[]map[string]any](t, res)
	if len(versions) != 2 || versions[1]["version"] != "v2" {
		t.Errorf("versions %v", versions)
	}

	res = f.do(request{method: "GET", path: f.path("/api/v3/repositories/{vis}/publications"), as: "viewer"})
	wantStatus(t, res, 200)
	list := decodeJSON[[]map[string]any](t, res)
	if len(list) != 2 {
		t.Fatalf("list %s", res.body)
	}
	for _, it := range list {
		checkKeys(t, "publication list item", it, pubListFields)
		if _, isNum := it["publicationDate"].(float64); !isNum {
			t.Errorf("list publicationDate %v is not epoch milliseconds", it["publicationDate"])
		}
		if it["name"] == "Road Vocabulary" && it["uri"] != "/org/vis/road/vocab" {
			t.Errorf("uri %v", it["uri"])
		}
	}

	res = f.do(request{method: "PATCH", path: "/api/v3/publications/" + id + "?owner=Kim&description=", as: "publisher"})
	wantStatus(t, res, 200)
	p = decodeJSON[map[string]any](t, res)
	if p["owner"] != "Kim" || p["description"] != "" || p["publisher"] != "ACME" {
		t.Errorf("patch gave %v", p)
	}

	res = f.do(request{method: "GET", path: "/api/v3/publications/" + id, as: "viewer"})
	wantStatus(t, res, 200)
	checkKeys(t, "getPublicationMetaData", decodeJSON[map[string]any](t, res), publicationFields)

	res = f.do(request{method: "DELETE", path: "/api/v3/publications/" + id, as: "publisher"})
	wantStatus(t, res, 200)
	if decodeJSON[map[string]any](t, res)["name"] != "Road Vocabulary" {
		t.Errorf("delete returned %s", res.body)
	}
	wantStatus(t, f.do(request{method: "GET", path: "/api/v3/publications/" + id, as: "publisher"}), 404)
}

func TestPublicationContent(t *testing.T) {
	f := newFixture(t)
	thing := "<" + base + "/org/vis/core/Thing>"
	for _, tc := range []struct {
		accept, wantType, contains string
	}{
		{"", "text/turtle", base + "/org/vis/core/Thing"},
		{"application/x-turtle", "application/x-turtle", "Thing"},
		{"application/n-triples", "application/n-triples", thing + ` <http://example.org/label> "A" .`},
		{"application/rdf+xml", "application/rdf+xml", "rdf:RDF"},
		{"application/ld+json", "application/ld+json", `"A"`},
		{"text/html, application/n-triples;q=0.5", "application/n-triples", thing},
	} {
		res := f.do(request{method: "GET", path: f.path("/api/v3/publications/{vis.pub}/statements"), as: "viewer", accept: tc.accept})
		wantStatus(t, res, 200)
		if got := res.header.Get("Content-Type"); got != tc.wantType {
			t.Errorf("Accept %q: Content-Type %q, want %q", tc.accept, got, tc.wantType)
		}
		if !strings.Contains(string(res.body), tc.contains) {
			t.Errorf("Accept %q: body lacks %q:\n%s", tc.accept, tc.contains, res.body)
		}
	}
	res := f.do(request{method: "GET", path: f.path("/api/v3/publications/{vis.pub}/statements"), as: "viewer", accept: "image/png"})
	wantStatus(t, res, http.StatusNotAcceptable)
}

func TestDelta(t *testing.T) {
	f := newFixture(t)
	before := decodeJSON[map[string]any](t, f.do(request{method: "GET", path: f.path("/api/v3/publications/{vis.pub}"), as: "viewer"}))
	v1 := before["versions"].([]any)[0].(map[string]any)["id"].(string)
	body, ct := multipartBody(mpart{name: "meta-data", data: `{"name":"core"}`}, mpart{name: "Content", filename: "c.ttl", data: turtleB})
	wantStatus(t, f.do(request{method: "PUT", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: body, contentType: ct}), 200)

	for _, tc := range []struct {
		accept, wantType string
		code             int
	}{
		{"application/n-quads", "application/n-quads", 200},
		{"application/trig", "application/trig", 200},
		{"", "application/n-quads", 200},
		{"text/turtle", "", http.StatusNotAcceptable},
	} {
		res := f.do(request{method: "GET", path: f.path("/api/v3/publications.delta?version1=" + v1 + "&version2={vis.pub}"), as: "viewer", accept: tc.accept})
		wantStatus(t, res, tc.code)
		if tc.code != 200 {
			continue
		}
		if got := res.header.Get("Content-Type"); got != tc.wantType {
			t.Errorf("Content-Type %q, want %q", got, tc.wantType)
		}
		s := string(res.body)
		if !strings.Contains(s, "urn:ldhub:delta:added") || !strings.Contains(s, `"B"`) || !strings.Contains(s, `"A"`) || strings.Contains(s, "ex:o") || strings.Contains(s, "example.org/o") {
			t.Errorf("%s delta:\n%s", tc.accept, s)
		}
	}
	// By the URLs a git push prints (the publication and `versions/<label>`), as a publisher who pushed has them.
	label := before["versions"].([]any)[0].(map[string]any)["version"].(string)
	byURL := f.do(request{method: "GET", path: "/api/v3/publications.delta?version1=" + url.QueryEscape(base+"/org/vis/core/versions/"+label) +
		"&version2=" + url.QueryEscape(base+"/org/vis/core"), as: "viewer", accept: "application/n-quads"})
	wantStatus(t, byURL, 200)
	byID := f.do(request{method: "GET", path: f.path("/api/v3/publications.delta?version1=" + v1 + "&version2={vis.pub}"), as: "viewer", accept: "application/n-quads"})
	if string(byURL.body) != string(byID.body) || len(byURL.body) == 0 {
		t.Errorf("delta by URL:\n%s\nby id:\n%s", byURL.body, byID.body)
	}
	// To a caller without a grant, a hidden publication's URL is as unknown as a missing one.
	deltaOf := func(ref string) response {
		return f.do(request{method: "GET", path: "/api/v3/publications.delta?version1=" + url.QueryEscape(ref) +
			"&version2=" + url.QueryEscape(base+"/org/vis/core"), as: "stranger", accept: "application/n-quads"})
	}
	hidden, missing := deltaOf(base+"/org/hid/core"), deltaOf(base+"/org/hix/core")
	wantStatus(t, hidden, 404)
	wantStatus(t, missing, 404)
	stamp := regexp.MustCompile(`"timestamp":\d+`)
	if a, b := stamp.ReplaceAllString(strings.ReplaceAll(string(hidden.body), "hid/", "?/"), ""), stamp.ReplaceAllString(strings.ReplaceAll(string(missing.body), "hix/", "?/"), ""); a != b {
		t.Errorf("hidden and missing differ:\n%s\n%s", a, b)
	}
	// The same version twice: an empty delta.
	res := f.do(request{method: "GET", path: f.path("/api/v3/publications.delta?version1={vis.pub}&version2={vis.pub}"), as: "viewer", accept: "application/n-quads"})
	wantStatus(t, res, 200)
	if len(res.body) != 0 {
		t.Errorf("self delta: %s", res.body)
	}
	wantStatus(t, f.do(request{method: "GET", path: "/api/v3/publications.delta?version1=x", as: "viewer"}), 400)
}

func TestFileOperations(t *testing.T) {
	f := newFixture(t)
	body, ct := multipartBody(mpart{name: "fileInfo", data: `{"name":"docs/readme.txt","versioningMode":"INCREMENTAL"}`},
		mpart{name: "content", filename: "readme.txt", contentType: "text/plain", data: "hello"})
	res := f.do(request{method: "POST", path: f.path("/api/v3/repositories/{vis}/files"), as: "publisher", body: body, contentType: ct})
	wantStatus(t, res, 200)
	fi := decodeJSON[map[string]any](t, res)
	checkKeys(t, "FileInfo", fi, fileInfoFields)
	if fi["name"] != "docs/readme.txt" || !strings.HasPrefix(fi["mimeType"].(string), "text/plain") || fi["versioningMode"] != "INCREMENTAL" || fi["repositoryId"] != f.ids["vis"] {
		t.Errorf("added %v", fi)
	}
	id := fi["id"].(string)

	body, ct = multipartBody(mpart{name: "content", filename: "readme.txt", data: "hello again"})
	wantStatus(t, f.do(request{method: "PUT", path: "/api/v3/files/" + id, as: "publisher", body: body, contentType: ct}), 200)

	for _, tc := range []struct{ path, want string }{
		{"/api/v3/files/" + id + "/content", "hello again"},
		{f.path("/api/v3/repositories/{vis}/docs%2Freadme.txt"), "hello again"},
		{f.path("/api/v3/repositories/{vis}/docs%2Freadme.txt/versions/1"), "hello"},
		{f.path("/api/v3/repositories/{vis}/docs%2Freadme.txt/versions/2"), "hello again"},
	} {
		res := f.do(request{method: "GET", path: tc.path, as: "viewer"})
		wantStatus(t, res, 200)
		if string(res.body) != tc.want || !strings.HasPrefix(res.header.Get("Content-Type"), "text/plain") ||
			!strings.Contains(res.header.Get("Content-Disposition"), `filename=readme.txt`) {
			t.Errorf("%s: %q %v", tc.path, res.body, res.header)
		}
	}
	res = f.do(request{method: "GET", path: f.path("/api/v3/repositories/{vis}/files"), as: "viewer"})
	list := decodeJSON[[]map[string]any](t, res)
	if len(list) != 2 {
		t.Errorf("files %s", res.body)
	}
	res = f.do(request{method: "GET", path: "/api/v3/files/" + id, as: "viewer"})
	checkKeys(t, "getFile", decodeJSON[map[string]any](t, res), fileInfoFields)
	res = f.do(request{method: "DELETE", path: "/api/v3/files/" + id, as: "publisher"})
	wantStatus(t, res, 200)
	checkKeys(t, "deleted FileInfo", decodeJSON[map[string]any](t, res), fileInfoFields)
	wantStatus(t, f.do(request{method: "GET", path: "/api/v3/files/" + id, as: "viewer"}), 404)
}

// TestErrors: each bad request gets its status and a Spring-style JSON body.
func TestErrors(t *testing.T) {
	f := newFixture(t)
	mp := func(parts ...mpart) func() request {
		return func() request {
			b, ct := multipartBody(parts...)
			return request{method: "POST", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: b, contentType: ct}
		}
	}
	meta := mpart{name: "metadata", data: `{"name":"n"}`}
	get := func(p string) func() request {
		return func() request { return request{method: "GET", path: f.path(p), as: "viewer"} }
	}
	for _, tc := range []struct {
		name    string
		req     func() request
		code    int
		message string
	}{
		{"pageSize 0", get("/api/v3/groups?pageSize=0"), 400, "pageSize"},
		{"pageSize 101", get("/api/v3/groups?pageSize=101"), 400, "pageSize"},
		{"page -1", get("/api/v3/groups?page=-1"), 400, "page"},
		{"sortBy unknown", get("/api/v3/groups?sortBy=colour"), 400, "sortBy"},
		{"sortDirection", get("/api/v3/groups/{org}/subgroups?sortDirection=UP"), 400, "sortDirection"},
		{"repository pageSize", get("/api/v3/groups/{org}/repositories?pageSize=1000"), 400, "pageSize"},
		{"bad JSON", func() request {
			return request{method: "POST", path: "/api/v3/groups", as: "viewer", body: strings.NewReader("{"), contentType: "application/json"}
		}, 400, "JSON"},
		{"empty body", func() request {
			return request{method: "POST", path: "/api/v3/groups", as: "viewer", contentType: "application/json"}
		}, 400, "JSON body"},
		{"no content type", func() request { return request{method: "POST", path: "/api/v3/groups", as: "viewer"} }, 415, "application/json"},
		{"no name", func() request {
			return request{method: "POST", path: "/api/v3/groups", as: "viewer", body: jsonBody(map[string]string{"type": "PUBLIC"}), contentType: "application/json"}
		}, 400, "name"},
		{"bad group type", func() request {
			return request{method: "POST", path: "/api/v3/groups", as: "viewer", body: jsonBody(map[string]string{"name": "x", "type": "SECRET"}), contentType: "application/json"}
		}, 400, "SECRET"},
		{"reserved segment", func() request {
			return request{method: "POST", path: "/api/v3/groups", as: "viewer", body: jsonBody(map[string]string{"name": "api"}), contentType: "application/json"}
		}, 400, "reserved"},
		{"missing part", mp(meta), 400, "content"},
		{"not multipart", func() request {
			return request{method: "POST", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: strings.NewReader("x"), contentType: "text/plain"}
		}, 415, "multipart"},
		{"unknown extension", mp(meta, mpart{name: "content", filename: "data.bin", data: "x"}), 415, "RDF format"},
		{"unknown media type", mp(meta, mpart{name: "content", filename: "data.ttl", contentType: "application/x-foo", data: "x"}), 415, "application/x-foo"},
		{"syntax error", mp(meta, mpart{name: "content", filename: "data.ttl", data: "@prefix ex: <http://e/> .\nex:a ex:b .\n"}), 400, "line 2"},
		{"duplicate publication", mp(mpart{name: "metadata", data: `{"name":"core"}`}, mpart{name: "content", filename: "c.ttl", data: turtleA}), 409, "already exists"},
		{"CUSTOM without label", mp(mpart{name: "metadata", data: `{"name":"c2","versioningMode":"CUSTOM"}`}, mpart{name: "content", filename: "c.ttl", data: turtleA}), 400, "versionLabel"},
		{"unknown route", get("/api/v3/nothing"), 404, "no API route"},
		{"unknown version", get("/api/v9/groups"), 404, "no API route"},
		{"delta without versions", get("/api/v3/publications.delta"), 400, "version1"},
		{"delta unknown id", get("/api/v3/publications.delta?version1=nope&version2=nope"), 404, "nope"},
		{"v4 publications without repositoryId", get("/api/v4/publications"), 400, "repositoryId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.t = t
			res := f.do(tc.req())
			wantStatus(t, res, tc.code)
			e := decodeJSON[map[string]any](t, res)
			checkKeys(t, "error", deleteKey(e, "details"), "timestamp status error message path")
			if e["status"] != float64(tc.code) || e["error"] != http.StatusText(tc.code) || !strings.Contains(fmt.Sprint(e["message"]), tc.message) {
				t.Errorf("body %s, want message containing %q", res.body, tc.message)
			}
			if res.header.Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type %q", res.header.Get("Content-Type"))
			}
		})
	}
	f.t = t
	// Syntax errors carry the format, line and column.
	b, ct := multipartBody(meta, mpart{name: "content", filename: "data.ttl", data: "@prefix ex: <http://e/> .\nex:a ex:b .\n"})
	e := decodeJSON[map[string]any](t, f.do(request{method: "POST", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: b, contentType: ct}))
	if d, _ := e["details"].(map[string]any); d == nil || d["format"] != "text/turtle" || d["line"] != 2.0 || d["column"] == nil {
		t.Errorf("details %v", e["details"])
	}
	// Wrong method: 405 with Allow.
	res := f.do(request{method: "PUT", path: f.path("/api/v3/groups/{org}"), as: "viewer"})
	wantStatus(t, res, http.StatusMethodNotAllowed)
	if got := res.header.Get("Allow"); got != "DELETE, GET, HEAD, PATCH, POST" {
		t.Errorf("Allow %q", got)
	}
	// Over the upload limit: 413, nothing written.
	cfg := f.cfg
	cfg.MaxUpload = 1024
	small := server.New(cfg)
	f.srv, small = small, f.srv
	b, ct = multipartBody(mpart{name: "metadata", data: `{"name":"big"}`}, mpart{name: "content", filename: "big.nt", data: strings.Repeat("<a:s> <a:p> <a:o> .\n", 200)})
	res = f.do(request{method: "POST", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: b, contentType: ct})
	f.srv = small
	wantStatus(t, res, http.StatusRequestEntityTooLarge)
	list := decodeJSON[[]map[string]any](t, f.do(request{method: "GET", path: f.path("/api/v3/repositories/{vis}/publications"), as: "viewer"}))
	if len(list) != 1 {
		t.Errorf("a refused upload left %d publications", len(list))
	}
}

func deleteKey(m map[string]any, k string) map[string]any {
	delete(m, k)
	return m
}
