package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/api/server"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
)

func TestListing(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"Vocabulary of Roads", "road signs", "Bridges", "vocab tools"} {
		res := f.do(request{method: "POST", path: f.path("/api/v3/groups/{org}"), as: "manager",
			body: jsonBody(map[string]string{"name": name, "type": "PUBLIC", "description": "about " + strings.ToLower(name)}), contentType: "application/json"})
		wantStatus(t, res, 200)
	}
	names := func(res response) (string, float64) {
		t.Helper()
		wantStatus(t, res, 200)
		page := decodeJSON[map[string]any](t, res)
		var ns []string
		for _, it := range page["contents"].([]any) {
			ns = append(ns, it.(map[string]any)["name"].(string))
		}
		return strings.Join(ns, ","), page["total"].(float64)
	}
	for _, tc := range []struct {
		query, want string
		total       float64
	}{
		{"", "Bridges,empty,road signs,vocab tools,Vocabulary of Roads", 5},
		{"searchText=VOC", "vocab tools,Vocabulary of Roads", 2},
		{"searchText=roa", "road signs,Vocabulary of Roads", 2},
		{"searchText=voc%20roa", "Vocabulary of Roads", 1},
		{"searchText=org%2Fbri", "Bridges", 1}, // path words match too
		{"searchText=zzz", "", 0},
		{"sortDirection=DESC&pageSize=2", "Vocabulary of Roads,vocab tools", 5},
		{"pageSize=2&page=2", "Vocabulary of Roads", 5},
		{"pageSize=2&page=9", "", 5},
		{"sortBy=description&pageSize=1", "Bridges", 5},
	} {
		got, total := names(f.do(request{method: "GET", path: f.path("/api/v3/groups/{org}/subgroups?" + tc.query), as: "viewer"}))
		if got != tc.want || total != tc.total {
			t.Errorf("%s: %q total %v, want %q total %v", tc.query, got, total, tc.want, tc.total)
		}
	}
	// The stranger's search sees only what it may see: org's private "empty" and hidden repositories stay out.
	got, total := names(f.do(request{method: "GET", path: f.path("/api/v3/groups/{org}/subgroups?searchText=e"), as: "stranger"}))
	if strings.Contains(got, "empty") || total != 0 {
		t.Errorf("stranger search: %q %v", got, total)
	}
	got, total = names(f.do(request{method: "GET", path: f.path("/api/v3/groups/{org}/repositories?searchText=repos"), as: "stranger"}))
	if got != "vis" || total != 1 {
		t.Errorf("stranger repository search: %q %v", got, total)
	}
	// A rename is found at once (the index follows the catalogue head).
	res := f.do(request{method: "PATCH", path: f.path("/api/v3/repositories/{hid}"), as: "manager", body: jsonBody(map[string]string{"name": "Hidden Treasures"}), contentType: "application/json"})
	wantStatus(t, res, 200)
	got, _ = names(f.do(request{method: "GET", path: f.path("/api/v3/groups/{org}/repositories?searchText=treas"), as: "viewer"}))
	if got != "Hidden Treasures" {
		t.Errorf("after rename: %q", got)
	}
}

func TestV4(t *testing.T) {
	f := newFixture(t)
	res := f.do(request{method: "GET", path: "/api/v4/repositories", as: "viewer"})
	wantStatus(t, res, 200)
	page := decodeJSON[map[string]any](t, res)
	checkKeys(t, "v4 page", page, "total contents")
	if page["total"] != 3.0 {
		t.Errorf("total %v", page["total"])
	}
	item := page["contents"].([]any)[0].(map[string]any)
	checkKeys(t, "v4 repository", item, v4RepoFields)
	if item["name"] != "hid" || item["path"] != "/org/hid" || item["public"] != false {
		t.Errorf("first item %v", item)
	}

	res = f.do(request{method: "GET", path: f.path("/api/v4/publications?repositoryId={vis}"), as: "publisher"})
	wantStatus(t, res, 200)
	var raw struct {
		Total    int
		Contents []map[string]json.RawMessage
	}
	if err := json.Unmarshal(res.body, &raw); err != nil || raw.Total != 1 {
		t.Fatalf("%v %s", err, res.body)
	}
	p := map[string]any{}
	for k, v := range raw.Contents[0] {
		p[k] = v
	}
	checkKeys(t, "v4 publication", p, v4PubFields)
	// Seconds since the epoch with a fraction.
	if d := string(raw.Contents[0]["publicationDate"]); d != "1767323045" && !strings.HasPrefix(d, "1767323045.") {
		t.Errorf("publicationDate %s", d)
	}
	if string(raw.Contents[0]["uri"]) != `"/org/vis/core"` || string(raw.Contents[0]["pending"]) != "false" {
		t.Errorf("item %s", res.body)
	}
	wantStatus(t, f.do(request{method: "GET", path: f.path("/api/v4/publications?repositoryId={vis}"), as: "viewer"}), 403)
}

func TestV2(t *testing.T) {
	f := newFixture(t)
	for _, seg := range []string{"respositories", "repositories"} {
		t.Run(seg, func(t *testing.T) {
			f.t = t
			res := f.do(request{method: "GET", path: f.path("/api/v2/" + seg + "/{vis}"), as: "viewer"})
			wantStatus(t, res, 200)
			checkKeys(t, "v2 repository", decodeJSON[map[string]any](t, res), repositoryDataFields)

			res = f.do(request{method: "GET", path: f.path("/api/v2/" + seg + "/{vis}/publications"), as: "viewer"})
			wantStatus(t, res, 200)
			if l := decodeJSON[[]map[string]any](t, res); len(l) != 1 {
				t.Errorf("list %s", res.body)
			}
			res = f.do(request{method: "GET", path: f.path("/api/v2/" + seg + "/{vis}/publications?name=core"), as: "viewer"})
			wantStatus(t, res, 200)
			checkKeys(t, "v2 meta-data", decodeJSON[map[string]any](t, res), publicationFields)

			res = f.do(request{method: "GET", path: f.path("/api/v2/" + seg + "/{vis}/publications/publication?id={vis.pub}"), as: "viewer", accept: "application/n-triples"})
			wantStatus(t, res, 200)
			if !strings.Contains(string(res.body), `"A"`) {
				t.Errorf("content %s", res.body)
			}
			res = f.do(request{method: "PATCH", path: f.path("/api/v2/" + seg + "/{vis}/publications?name=core&owner=" + seg), as: "publisher"})
			wantStatus(t, res, 200)
			if decodeJSON[map[string]any](t, res)["owner"] != seg {
				t.Errorf("patch %s", res.body)
			}
			res = f.do(request{method: "GET", path: f.path("/api/v2/" + seg + "/{org}/repositories"), as: "viewer"})
			wantStatus(t, res, 200)
			res = f.do(request{method: "GET", path: f.path("/api/v2/" + seg + "/{vis}/publications/sparql?name=core&query=ASK%7B%3Fs%20%3Fp%20%22A%22%7D"), as: "viewer"})
			wantStatus(t, res, 200)
			if !strings.Contains(string(res.body), "true") {
				t.Errorf("ASK %s", res.body)
			}
			// Another repository's publication is not reachable through this one.
			wantStatus(t, f.do(request{method: "GET", path: f.path("/api/v2/" + seg + "/{vis}/publications/publication?id={hid.pub}"), as: "viewer"}), 404)
		})
	}
	f.t = t
	wantStatus(t, f.do(request{method: "GET", path: "/api/v2/groups", as: "viewer"}), 200)
	wantStatus(t, f.do(request{method: "GET", path: f.path("/api/v2/groups/{org}/subgroups"), as: "viewer"}), 200)
}

func TestLegacyNS(t *testing.T) {
	f := newFixture(t)
	res := f.do(request{method: "POST", path: "/api/v3/groups", as: "admin", body: jsonBody(map[string]string{"name": "ns", "type": "PUBLIC"}), contentType: "application/json"})
	wantStatus(t, res, 200)
	ns := decodeJSON[map[string]any](t, res)["id"].(string)
	res = f.do(request{method: "POST", path: "/api/v3/repositories", as: "admin", body: jsonBody(map[string]any{"name": "otl", "parentId": ns, "visible": true}), contentType: "application/json"})
	wantStatus(t, res, 200)
	name := "public/stable/road/vocab/core"
	body, ct := multipartBody(mpart{name: "metadata", data: `{"name":"core","publicationUri":"` + name + `"}`}, mpart{name: "content", filename: "c.ttl", data: turtleA})
	wantStatus(t, f.do(request{method: "POST", path: "/ns/otl", as: "admin", body: body, contentType: ct}), 200)

	res = f.do(request{method: "GET", path: "/ns/otl", as: "anonymous"})
	wantStatus(t, res, 200)
	if l := decodeJSON[[]map[string]any](t, res); len(l) != 1 || l[0]["uri"] != "/ns/otl/"+name {
		t.Errorf("list %s", res.body)
	}
	res = f.do(request{method: "GET", path: "/ns/otl/" + name, as: "anonymous", accept: "application/n-triples"})
	wantStatus(t, res, 200)
	if !strings.Contains(string(res.body), "<"+base+"/ns/otl/"+name+"/Thing>") {
		t.Errorf("content %s", res.body)
	}
	body, ct = multipartBody(mpart{name: "Content", filename: "c.ttl", data: turtleB})
	wantStatus(t, f.do(request{method: "PUT", path: "/ns/otl/" + name, as: "anonymous", body: body, contentType: ct}), 401)
	body, ct = multipartBody(mpart{name: "Content", filename: "c.ttl", data: turtleB})
	wantStatus(t, f.do(request{method: "PUT", path: "/ns/otl/" + name, as: "admin", body: body, contentType: ct}), 200)

	res = f.do(request{method: "GET", path: "/ns/otl/" + name + "/versions", as: "anonymous"})
	wantStatus(t, res, 200)
	vs := decodeJSON[[]map[string]any](t, res)
	if len(vs) != 2 {
		t.Fatalf("versions %s", res.body)
	}
	first := vs[0]["version"].(string)
	res = f.do(request{method: "GET", path: "/ns/otl/" + name + "/versions/" + first, as: "anonymous", accept: "application/n-triples"})
	wantStatus(t, res, 200)
	if !strings.Contains(string(res.body), `"A"`) {
		t.Errorf("first version %s", res.body)
	}
	// Every URL form answers SPARQL (GET, form POST, POST of application/sparql-query), each seeing its version:
	// "A" in the first, "B" in the latest.
	const labelQuery = "SELECT ?l {?s <http://example.org/label> ?l}"
	for _, tc := range []struct{ path, want string }{
		{"/ns/otl/" + name, `"B"`},
		{"/ns/otl/" + name + "/sparql", `"B"`},
		{"/ns/otl/" + name + "/versions/" + first, `"A"`},
		{"/ns/otl/" + name + "/versions/" + first + "/sparql", `"A"`},
	} {
		for _, rq := range []request{
			{method: "GET", path: tc.path + "?query=" + url.QueryEscape(labelQuery)},
			{method: "POST", path: tc.path, body: strings.NewReader("query=" + url.QueryEscape(labelQuery)), contentType: "application/x-www-form-urlencoded"},
			{method: "POST", path: tc.path, body: strings.NewReader(labelQuery), contentType: "application/sparql-query"},
		} {
			rq.as = "anonymous"
			res = f.do(rq)
			wantStatus(t, res, 200)
			if !strings.Contains(string(res.body), tc.want) || !strings.Contains(res.header.Get("Content-Type"), "sparql-results+json") {
				t.Errorf("%s %s: %s", rq.method, tc.path, res.body)
			}
		}
	}
	// Without a query, the …/sparql forms describe themselves (SPARQL 1.1 Service Description) to RDF clients.
	res = f.do(request{method: "GET", path: "/ns/otl/" + name + "/versions/" + first + "/sparql", as: "anonymous", accept: "text/turtle"})
	wantStatus(t, res, 200)
	if !strings.Contains(string(res.body), "sd:Service") || !strings.Contains(string(res.body), "/versions/"+first+"/sparql>") {
		t.Errorf("service description: %s", res.body)
	}
	wantStatus(t, f.do(request{method: "GET", path: "/ns/otl/a/b/c/d/missing", as: "anonymous"}), 404)
	wantStatus(t, f.do(request{method: "DELETE", path: "/ns/otl/" + name, as: "admin"}), 200)
	// Paths no legacy route knows go to the direct-URL site (404 JSON until it is mounted).
	res = f.do(request{method: "GET", path: "/ns/otl/core", as: "anonymous"})
	wantStatus(t, res, 404)
	if !strings.Contains(string(res.body), "no such page") {
		t.Errorf("fallback %s", res.body)
	}
}

// TestSwaggerMatchesRoutes: the document names every v3 route and no route the dispatcher lacks.
func TestSwaggerMatchesRoutes(t *testing.T) {
	f := newFixture(t)
	res := f.do(request{method: "GET", path: "/api/v3/swagger.json", as: "anonymous"})
	wantStatus(t, res, 200)
	var doc struct {
		Swagger string
		Info    struct{ Version string }
		Paths   map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct{ Name, In string }
		}
	}
	if err := json.Unmarshal(res.body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Swagger != "2.0" || doc.Info.Version != "v3" {
		t.Errorf("swagger %q version %q", doc.Swagger, doc.Info.Version)
	}
	documented := map[string]bool{}
	for p, ops := range doc.Paths {
		for m, op := range ops {
			documented[strings.ToUpper(m)+" "+p] = true
			// A request to the documented path reaches a handler: never the router's 404 or 405.
			path := p
			for _, prm := range op.Parameters {
				if prm.In == "path" {
					path = strings.ReplaceAll(path, "{"+prm.Name+"}", "x")
				}
			}
			if strings.Contains(path, "{") {
				t.Errorf("%s %s: path parameter not declared", m, p)
			}
			res := f.do(request{method: strings.ToUpper(m), path: path, as: "viewer"})
			if res.code == 405 || res.code == 404 && strings.Contains(string(res.body), "no API route") {
				t.Errorf("%s %s (%s) is documented but not routed: %d %s", m, p, op.OperationID, res.code, res.body)
			}
		}
	}
	want := map[string]bool{}
	for _, r := range f.srv.Routes() {
		if strings.HasPrefix(r.Pattern, "/api/v3/") {
			want[r.Method+" "+r.Pattern] = true
			if !documented[r.Method+" "+r.Pattern] {
				t.Errorf("route %s %s missing from swagger.json", r.Method, r.Pattern)
			}
		}
	}
	for k := range documented {
		if !want[k] {
			t.Errorf("swagger.json names %s, which no route serves", k)
		}
	}
	// api.md §4 lists 7+6+10+8 operations, plus versions and the document itself.
	if len(want) != 7+6+10+1+8+1 {
		t.Errorf("%d v3 routes", len(want))
	}
	for _, op := range []string{"getTopGroups", "createTopGroup", "getGroupDetails", "deleteGroup", "updatePartialGroup", "createSubGroup", "getSubGroups",
		"getRepositoriesWithAccessStatus", "createRepositoryInGroup", "getRepositoryMetadata", "updateRepository", "deleteRepository", "getRepositories",
		"getRepositoryPublications", "createPublication", "updatePublication", "getPublicationMetaData", "updatePublicationMetadata", "deletePublication",
		"findDeltaForPublicationVersions", "getPublicationContent", "executeSparqlQueryGet", "executeSparqlQueryPost",
		"getRepositoryFiles", "addFile", "getFileContent", "getVersionOfFileContent", "getFile", "updateNonVersionFile", "deleteFile", "downloadFile"} {
		if !strings.Contains(string(res.body), fmt.Sprintf(`"operationId":%q`, op)) {
			t.Errorf("operation %s missing", op)
		}
	}
}

// TestSPARQL: the publication's endpoint through sparqlsvc/protocol, with default-graph-uri and named-graph-uri
// naming other publications by id or URI, each checked for VIEWER.
func TestSPARQL(t *testing.T) {
	f := newFixture(t)
	// A second publication in the visible repository, for the dataset parameters.
	body, ct := multipartBody(mpart{name: "metadata", data: `{"name":"extra"}`}, mpart{name: "content", filename: "e.nt", data: "<http://example.org/x> <http://example.org/label> \"X\" .\n"})
	res := f.do(request{method: "POST", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: body, contentType: ct})
	wantStatus(t, res, 200)
	extra := decodeJSON[map[string]any](t, res)["id"].(string)
	q := url.QueryEscape
	labels := "SELECT ?l WHERE { ?s <http://example.org/label> ?l } ORDER BY ?l"
	for _, tc := range []struct {
		name, as, method, target, ctype, body, accept string
		code                                          int
		contains, lacks                               []string
	}{
		{"own graph", "viewer", "GET", "/api/v3/publications/{vis.pub}/sparql?query=" + q(labels), "", "", "", 200, []string{`"A"`, `"vars":["l"]`}, []string{`"X"`}},
		{"relative IRIs resolved", "viewer", "GET", "/api/v3/publications/{vis.pub}/sparql?query=" + q("SELECT ?s { ?s <http://example.org/label> \"A\" }"), "", "", "", 200, []string{base + "/org/vis/core/Thing"}, nil},
		{"default-graph-uri by id", "viewer", "GET", "/api/v3/publications/{vis.pub}/sparql?query=" + q(labels) + "&default-graph-uri=" + extra, "", "", "", 200, []string{`"A"`, `"X"`}, nil},
		{"default-graph-uri by URI", "viewer", "GET", "/api/v3/publications/{vis.pub}/sparql?query=" + q(labels) + "&default-graph-uri=" + q(base+"/org/vis/extra"), "", "", "", 200, []string{`"X"`}, nil},
		{"named-graph-uri", "viewer", "GET", "/api/v3/publications/{vis.pub}/sparql?query=" + q("SELECT ?g ?l { GRAPH ?g { ?s ?p ?l } }") + "&named-graph-uri=" + q(base+"/org/vis/extra"), "", "", "", 200, []string{base + "/org/vis/extra", `"X"`}, []string{`"A"`}},
		{"hidden default-graph-uri", "stranger", "GET", "/api/v3/publications/{vis.pub}/sparql?query=" + q(labels) + "&default-graph-uri={hid.pub}", "", "", "", 404, nil, []string{`"A"`}},
		{"POST sparql-query", "viewer", "POST", "/api/v3/publications/{vis.pub}/sparql", "application/sparql-query", labels, "text/csv", 200, []string{"l\r\nA\r\n"}, nil},
		{"POST form", "viewer", "POST", "/api/v3/publications/{vis.pub}/sparql", "application/x-www-form-urlencoded", "query=" + q(labels), "application/sparql-results+xml", 200, []string{"<literal>A</literal>"}, nil},
		{"syntax error", "viewer", "GET", "/api/v3/publications/{vis.pub}/sparql?query=" + q("SELECT ?x WHERE {"), "", "", "", 400, []string{`"line"`}, nil},
		{"CONSTRUCT as Turtle", "viewer", "GET", "/api/v3/publications/{vis.pub}/sparql?query=" + q("CONSTRUCT WHERE { ?s ?p ?o }"), "", "", "text/turtle", 200, []string{"example.org"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.t = t
			var b io.Reader
			if tc.body != "" {
				b = strings.NewReader(tc.body)
			}
			res := f.do(request{method: tc.method, path: f.path(tc.target), as: tc.as, body: b, contentType: tc.ctype, accept: tc.accept})
			wantStatus(t, res, tc.code)
			for _, s := range tc.contains {
				if !strings.Contains(string(res.body), s) {
					t.Errorf("lacks %q: %s", s, res.body)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(string(res.body), s) {
					t.Errorf("has %q: %s", s, res.body)
				}
			}
		})
	}
	f.t = t
	// The cached index of a version never serves a newer one: after an update the endpoint answers from it.
	body, ct = multipartBody(mpart{name: "meta-data", data: `{"name":"core"}`}, mpart{name: "Content", filename: "c.ttl", data: turtleB})
	wantStatus(t, f.do(request{method: "PUT", path: f.path("/api/v3/repositories/{vis}/publications"), as: "publisher", body: body, contentType: ct}), 200)
	res = f.do(request{method: "GET", path: f.path("/api/v3/publications/{vis.pub}/sparql?query=" + q(labels)), as: "viewer"})
	wantStatus(t, res, 200)
	if !strings.Contains(string(res.body), `"B"`) || strings.Contains(string(res.body), `"A"`) {
		t.Errorf("after update: %s", res.body)
	}
}

func TestDispatch(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		path string
		code int
		msg  string
	}{
		{"/git/org/vis.git/info/refs", 404, "git access is not enabled"},
		{"/org/vis/core", 404, "no such page"},
		{"/", 404, "no such page"},
		{"/api/v3/repositories/x/files/extra/segments", 404, "no API route"},
	} {
		res := f.do(request{method: "GET", path: tc.path, as: "viewer"})
		if res.code != tc.code || !strings.Contains(string(res.body), tc.msg) {
			t.Errorf("%s: %d %s", tc.path, res.code, res.body)
		}
	}
	// A file literally named "files" or "publications" is shadowed by the static routes; other names reach
	// getFileContent beside them.
	res := f.do(request{method: "GET", path: f.path("/api/v3/repositories/{vis}/logo.png"), as: "viewer"})
	wantStatus(t, res, 200)
	if string(res.body) != "PNGDATA" {
		t.Errorf("file %q", res.body)
	}
	res = f.do(request{method: "HEAD", path: "/api/v3/groups", as: "viewer"})
	wantStatus(t, res, 200)
	// CORS preflight, without credentials, for browser clients.
	res = f.do(request{method: "OPTIONS", path: f.path("/api/v3/publications/{vis.pub}/sparql"), as: "anonymous"})
	wantStatus(t, res, http.StatusNoContent)
	if res.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(res.header.Get("Access-Control-Allow-Headers"), "Authorization") ||
		res.header.Get("Allow") != "GET, HEAD, POST, OPTIONS" {
		t.Errorf("preflight headers %v", res.header)
	}
	wantStatus(t, f.do(request{method: "OPTIONS", path: "/api/v3/nothing", as: "anonymous"}), 404)

	// Odd paths get a JSON answer, never a panic or a handler with an empty parameter.
	for _, p := range []string{"/api/v3//groups", "/api/v3/groups//subgroups", "/api/v3/repositories/%2F/files",
		"/api/v3/files/" + strings.Repeat("a", 5000), "/api", "/api/", "/ns", "/ns/", "/api/v3/groups/x%00y"} {
		res := f.do(request{method: "GET", path: p, as: "viewer"})
		if res.code < 400 || res.code >= 500 || res.header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %s", p, res.code, res.body)
		}
	}
}

// TestSPARQLLimitsByCaller checks that anonymous callers get the anonymous limits and credentialed ones theirs:
// the same query on a visible /ns publication is cut for the first (marked as such) and whole for the second.
func TestSPARQLLimitsByCaller(t *testing.T) {
	f := newFixture(t)
	cfg := f.cfg
	cfg.SPARQL = protocol.Limits{MaxResults: 1}
	cfg.SPARQLCredentialed = protocol.Limits{MaxResults: 10}
	f.srv = server.New(cfg)
	res := f.do(request{method: "POST", path: "/api/v3/groups", as: "admin", body: jsonBody(map[string]string{"name": "ns", "type": "PUBLIC"}), contentType: "application/json"})
	wantStatus(t, res, 200)
	ns := decodeJSON[map[string]any](t, res)["id"].(string)
	res = f.do(request{method: "POST", path: "/api/v3/repositories", as: "admin", body: jsonBody(map[string]any{"name": "otl", "parentId": ns, "visible": true}), contentType: "application/json"})
	wantStatus(t, res, 200)
	name := "public/stable/road/vocab/core"
	body, ct := multipartBody(mpart{name: "metadata", data: `{"name":"core","publicationUri":"` + name + `"}`}, mpart{name: "content", filename: "c.ttl", data: turtleA})
	wantStatus(t, f.do(request{method: "POST", path: "/ns/otl", as: "admin", body: body, contentType: ct}), 200)

	q := "/ns/otl/" + name + "/sparql?query=" + url.QueryEscape("SELECT * WHERE { ?s ?p ?o }")
	res = f.do(request{method: "GET", path: q, as: "anonymous"})
	wantStatus(t, res, 200)
	if !strings.Contains(string(res.body), `"ldhub:truncated":"the answer was cut at the endpoint's limit of 1 solutions`) {
		t.Errorf("anonymous: %s", res.body)
	}
	res = f.do(request{method: "GET", path: q, as: "viewer"})
	wantStatus(t, res, 200)
	if strings.Contains(string(res.body), "truncated") || strings.Count(string(res.body), `"s":`) != 2 {
		t.Errorf("viewer: %s", res.body)
	}
}
