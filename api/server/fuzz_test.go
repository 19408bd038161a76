package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/ldhub/ldhub/api/auth"
	"github.com/ldhub/ldhub/api/search"
	"github.com/ldhub/ldhub/api/server"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/content/store/validator"
)

// fuzzHub is a hub for the fuzz targets: one administrator, a group "org" with a visible repository holding the
// publication "core" (Turtle) and the file "logo.png". It lives as long as the fuzz target, not one input.
type fuzzHub struct {
	srv                      *server.Server
	id, secret               string
	repo, pub, file, groupID string
	siteHits, gitHits        atomic.Int64
}

func newFuzzHub(f *testing.F) *fuzzHub {
	ctx := context.Background()
	st, err := store.Open(ctx, f.TempDir(), store.Options{Validate: validator.Codec(codec.Default(), rdf.Limits{}),
		HashCost: bcrypt.MinCost, NoWatch: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	sys := model.SystemActor
	h := &fuzzHub{}
	c, secret, err := st.CreateCredential(ctx, sys, catalog.CredentialSpec{Kind: model.Application, Name: "admin", Admin: true})
	if err != nil {
		f.Fatal(err)
	}
	h.id, h.secret = c.ID, secret
	g, err := st.CreateGroup(ctx, sys, model.Group{Name: "org", Type: model.GroupPublic})
	if err != nil {
		f.Fatal(err)
	}
	r, err := st.CreateRepository(ctx, sys, model.Repository{Name: "vis", ParentID: g.ID, Visible: true})
	if err != nil {
		f.Fatal(err)
	}
	p, err := st.CreatePublication(ctx, sys, r.ID, model.PublicationMeta{Name: "core"}, store.Content{Ext: ".ttl", Data: []byte(turtleA)})
	if err != nil {
		f.Fatal(err)
	}
	fl, err := st.AddFile(ctx, sys, r.ID, model.FileMeta{Name: "logo.png"}, []byte("PNGDATA"))
	if err != nil {
		f.Fatal(err)
	}
	h.groupID, h.repo, h.pub, h.file = g.ID, r.ID, p.ID, fl.ID
	idx, err := search.Open(ctx, "", st, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { idx.Close() })
	h.srv = server.New(server.Config{Store: st, Auth: auth.New(st, auth.Options{FreeFailures: 1 << 30}), Search: idx,
		BaseURL: base, MaxUpload: 1 << 20,
		Site: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.siteHits.Add(1)
			w.WriteHeader(http.StatusTeapot)
		}),
		Git: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.gitHits.Add(1)
			w.WriteHeader(http.StatusTeapot)
		}),
	})
	return h
}

// expand replaces {repo}, {pub}, {file} and {group} in a seed with the hub's ids.
func (h *fuzzHub) expand(s string) string {
	return strings.NewReplacer("{repo}", h.repo, "{pub}", h.pub, "{file}", h.file, "{group}", h.groupID).Replace(s)
}

// checkErrorBody: every answer of 400 and above is the JSON error of api.md with its own status.
func checkErrorBody(t *testing.T, what string, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code >= 500 {
		t.Fatalf("%s: %d %s", what, w.Code, w.Body)
	}
	if w.Code < 400 || w.Code == http.StatusTeapot || strings.HasPrefix(what, "HEAD ") {
		return // a HEAD answer has no body
	}
	var e struct {
		Status  int    `json:"status"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Status != w.Code || e.Message == "" || e.Error == "" {
		t.Fatalf("%s: %d with a body that is not the JSON error (%v): %q", what, w.Code, err, w.Body)
	}
}

func fuzzMultipart(parts ...[3]string) (*bytes.Buffer, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		hd := textproto.MIMEHeader{}
		hd.Set("Content-Disposition", `form-data; name="`+p[0]+`"; filename="`+p[1]+`"`)
		w, _ := mw.CreatePart(hd)
		w.Write([]byte(p[2]))
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}

// FuzzMetadataJSON sends arbitrary meta-data JSON in the multipart uploads that carry it: create a publication
// (`metadata`), add a version (`meta-data`), add a file and replace a file (`fileInfo`). No input may crash the
// server or get a 5xx; JSON that does not parse is a 400, and every refusal is the JSON error body.
func FuzzMetadataJSON(f *testing.F) {
	h := newFuzzHub(f)
	seeds := []string{
		`{"name":"core2"}`,
		`{"name":"core"}`,
		`{"name":"vocab","description":"a vocabulary","owner":"Jo","publisher":"ACME","versioningMode":"CUSTOM","versionLabel":"v1.0","useVersionedBaseUri":true,"schemaURIs":["http://example.org/s"],"publicationUri":"vocab/core"}`,
		`{"publicationUri":"core","versioningMode":"TIMESTAMP"}`,
		`{"name":"d","versioningMode":"DATE_TIME"}`,
		`{"name":"n","versioningMode":"NONE"}`,
		`{"name":"x","versioningMode":"bogus"}`,
		`{"name":"logo.png","versionLabel":"2"}`,
		`{"name":"../escape"}`, `{"name":"a/b/c"}`, `{"name":"files/x"}`, `{"name":".hidden"}`, `{"name":"core.meta.json"}`,
		`{"publicationUri":"../../x"}`, `{"publicationUri":"/abs"}`, `{"publicationUri":"a//b"}`, `{"name":"%2e%2e"}`,
		`{"name":""}`, `{"name":null}`, `{"name":5}`, `{"name":["a"]}`, `{"schemaURIs":"x"}`, `{"useVersionedBaseUri":"yes"}`,
		`{"versionLabel":"` + strings.Repeat("v", 300) + `","name":"long"}`,
		`{"name":"\u0000"}`, `{"name":"\ud800"}`, `{"name":"é"}`, `{"name":"a b"}`,
		`{}`, `[]`, `null`, `""`, `0`, ``, `{`, `{"name":"x",}`, `{"name":"x"}{"name":"y"}`, `{"name":"x","name":"y"}`,
		`{"a":` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `}`, `{"name":1e999}`,
	}
	for _, s := range seeds {
		for op := range uint8(4) {
			f.Add(op, s)
		}
	}
	f.Fuzz(func(t *testing.T, op uint8, meta string) {
		var body *bytes.Buffer
		var ctype, method, path, part string
		switch op % 4 {
		case 0:
			part, method, path = "metadata", "POST", "/api/v3/repositories/{repo}/publications"
			body, ctype = fuzzMultipart([3]string{"metadata", "m.json", meta}, [3]string{"content", "c.ttl", turtleB})
		case 1:
			part, method, path = "meta-data", "PUT", "/api/v3/repositories/{repo}/publications"
			body, ctype = fuzzMultipart([3]string{"meta-data", "m.json", meta}, [3]string{"Content", "c.ttl", turtleB})
		case 2:
			part, method, path = "fileInfo", "POST", "/api/v3/repositories/{repo}/files"
			body, ctype = fuzzMultipart([3]string{"fileInfo", "i.json", meta}, [3]string{"content", "f.bin", "DATA"})
		case 3:
			part, method, path = "fileInfo", "PUT", "/api/v3/files/{file}"
			body, ctype = fuzzMultipart([3]string{"fileInfo", "i.json", meta}, [3]string{"content", "f.bin", "DATA2"})
		}
		r := httptest.NewRequest(method, h.expand(path), body)
		r.Header.Set("Content-Type", ctype)
		r.SetBasicAuth(h.id, h.secret)
		w := httptest.NewRecorder()
		h.srv.ServeHTTP(w, r)
		what := method + " " + path + " with " + part + " " + strings.ToValidUTF8(meta[:min(len(meta), 200)], "?")
		checkErrorBody(t, what, w)
		if !json.Valid([]byte(meta)) && w.Code != http.StatusBadRequest {
			t.Fatalf("%s: invalid JSON answered %d, want 400: %s", what, w.Code, w.Body)
		}
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict:
		default:
			t.Fatalf("%s: unexpected status %d: %s", what, w.Code, w.Body)
		}
	})
}

// FuzzPath sends arbitrary request targets through the dispatcher: no crash and no 5xx; /api/... never reaches the
// site or git handlers and /git/... only git; a path parameter holding a `..` element (decoded from %2e%2e or
// %2f) never gets a 2xx; errors are JSON.
func FuzzPath(f *testing.F) {
	h := newFuzzHub(f)
	methods := []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"}
	seeds := []string{
		"/api/v3/groups", "/api/v3/groups/{group}", "/api/v3/groups/{group}/subgroups?page=0&pageSize=100",
		"/api/v3/groups/{group}/repositories?searchText=v&sortBy=name&sortDirection=DESC",
		"/api/v3/repositories", "/api/v3/repositories/{repo}", "/api/v3/repositories/{repo}/publications",
		"/api/v3/repositories/{repo}/files", "/api/v3/repositories/{repo}/logo.png",
		"/api/v3/repositories/{repo}/logo.png/versions/1", "/api/v3/files/{file}", "/api/v3/files/{file}/content",
		"/api/v3/publications/{pub}", "/api/v3/publications/{pub}/versions", "/api/v3/publications/{pub}/statements",
		"/api/v3/publications/{pub}/sparql?query=ASK%7B%7D", "/api/v3/publications.delta?version1={pub}&version2={pub}",
		"/api/v3/swagger.json", "/api/v4/repositories", "/api/v4/publications?repositoryId={repo}",
		"/api/v2/respositories/{repo}/publications?name=core", "/api/v2/repositories/{repo}/publications/publication?name=core",
		"/ns/vis", "/ns/vis/a/b/c/d/e", "/ns/vis/a/b/c/d/e/versions/1/sparql", "/git/org/vis.git/info/refs?service=git-upload-pack",
		"/org/vis/core", "/org/vis/core.ttl", "/", "//", "/api", "/api/", "/api//v3", "/API/v3/groups",
		"/api/v3/repositories/{repo}/..%2Fcore.ttl", "/api/v3/repositories/{repo}/%2e%2e", "/api/v3/repositories/%2e%2e/logo.png",
		"/api/v3/repositories/{repo}/..%2F..%2Fhub.git%2Fconfig", "/api/v3/repositories/..%2Fhub/publications",
		"/api/v3/files/..%2F{file}", "/api/v3/publications/%2e%2e%2f{pub}/statements", "/api/v3/repositories/{repo}/%252e%252e",
		"/api/v3/repositories/{repo}/logo.png/versions/..%2F..", "/api/v3/repositories/{repo}/%5c..%5ccore.ttl",
		"/api/v3/groups/%00", "/api/v3/groups/%zz", "/api/v3/groups/\u00e9", "/api/v3/groups?page=-1", "/api/v3/groups?pageSize=101",
		"/ns/..%2F..%2Fapi/v3/groups", "/git/../api/v3/groups", "/api/../git/x", "/%2e%2e/%2e%2e/etc/passwd",
	}
	for _, s := range seeds {
		f.Add(uint8(0), true, s)
		f.Add(uint8(3), false, s)
	}
	f.Fuzz(func(t *testing.T, m uint8, authed bool, target string) {
		u, err := url.ParseRequestURI(h.expand(target))
		if err != nil {
			return // net/http answers 400 before any handler runs
		}
		method := methods[int(m)%len(methods)]
		if authed && method != "GET" && method != "HEAD" && method != "OPTIONS" {
			method = "GET" // the administrator could delete the fixture; anonymous writes are refused anyway
		}
		r := &http.Request{Method: method, URL: u, RequestURI: u.RequestURI(), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{}, Host: "hub.example", Body: http.NoBody}
		r = r.WithContext(context.Background())
		if authed {
			r.SetBasicAuth(h.id, h.secret)
		}
		site, git := h.siteHits.Load(), h.gitHits.Load()
		w := httptest.NewRecorder()
		h.srv.ServeHTTP(w, r)
		what := method + " " + u.RequestURI()
		checkErrorBody(t, what, w)
		first, _, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
		reachedSite, reachedGit := h.siteHits.Load() != site, h.gitHits.Load() != git
		switch {
		case first == "api" && (reachedSite || reachedGit):
			t.Fatalf("%s: an API path reached the site or git handler", what)
		case first == "git" && (reachedSite || !reachedGit):
			t.Fatalf("%s: a git path did not go to the git handler alone", what)
		case first != "api" && first != "git" && first != "ns" && !reachedSite:
			t.Fatalf("%s: a direct URL did not reach the site handler (%d)", what, w.Code)
		}
		// A CORS preflight (OPTIONS) answers 204 from the route table alone and reads nothing.
		if w.Code < 200 || w.Code > 299 || method == "OPTIONS" || first != "api" && first != "ns" {
			return
		}
		for _, seg := range strings.Split(u.EscapedPath(), "/") {
			dec, err := url.PathUnescape(seg)
			if err != nil {
				continue
			}
			for _, el := range strings.FieldsFunc(dec, func(r rune) bool { return r == '/' || r == '\\' }) {
				if el == ".." {
					t.Fatalf("%s: a path parameter with a .. element answered %d: %.300s", what, w.Code, w.Body)
				}
			}
		}
	})
}
