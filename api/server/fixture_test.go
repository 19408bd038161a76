package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

const base = "https://hub.example"

// caller is one identity of the permission matrix.
type caller struct {
	name       string
	id, secret string
	role       model.Role // grant on the group "org" (and "closed")
	admin      bool
	// authFails marks identities that must get 401 everywhere.
	authFails bool
}

// fixture is a hub with:
//
//	/org (PRIVATE)          grants for viewer, publisher, manager, owner
//	  /org/vis  (visible)   publication "core" (Turtle), file "logo.png"
//	  /org/hid  (hidden)    publication "core" (Turtle), file "logo.png"
//	  /org/empty (PRIVATE, no children)
//	/closed (PRIVATE)       same grants; only a hidden repository "inner"
type fixture struct {
	t       *testing.T
	st      *store.Store
	srv     *server.Server
	cfg     server.Config
	clock   *atomic.Int64
	callers map[string]*caller
	ids     map[string]string // "org", "vis", "hid", "empty", "closed", "inner", "vis.pub", "hid.pub", "vis.file", "hid.file"
}

var roleCallers = []struct {
	name string
	role model.Role
}{{"viewer", model.Viewer}, {"publisher", model.Publisher}, {"manager", model.Manager}, {"owner", model.Owner}}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWatching(t, false)
}

// newFixtureWatching is newFixture with the store's file system watcher on or off (on, as in `ldhub serve`, the
// store answers heads from memory and learns of commits made behind its back from events).
func newFixtureWatching(t *testing.T, watch bool) *fixture {
	t.Helper()
	ctx := context.Background()
	clock := &atomic.Int64{}
	clock.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	st, err := store.Open(ctx, t.TempDir(), store.Options{Validate: validator.Codec(codec.Default(), rdf.Limits{}),
		Now: now, HashCost: bcrypt.MinCost, NoWatch: !watch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{t: t, st: st, clock: clock, callers: map[string]*caller{}, ids: map[string]string{}}
	sys := model.SystemActor
	mk := func(name string, spec catalog.CredentialSpec) *caller {
		if spec.Kind == "" {
			spec.Kind = model.Application
		}
		spec.Name = name
		c, secret, err := st.CreateCredential(ctx, sys, spec)
		if err != nil {
			t.Fatal(err)
		}
		cl := &caller{name: name, id: c.ID, secret: secret, admin: spec.Admin}
		f.callers[name] = cl
		return cl
	}
	mk("admin", catalog.CredentialSpec{Admin: true})
	mk("stranger", catalog.CredentialSpec{Kind: model.Token})
	for _, rc := range roleCallers {
		mk(rc.name, catalog.CredentialSpec{}).role = rc.role
	}
	exp := mk("expired", catalog.CredentialSpec{Kind: model.Token, ExpiresOn: now().Add(time.Hour).UnixMilli()})
	exp.authFails = true
	rev := mk("revoked", catalog.CredentialSpec{})
	rev.authFails = true
	if err := st.RevokeCredential(ctx, sys, rev.id); err != nil {
		t.Fatal(err)
	}
	f.callers["anonymous"] = &caller{name: "anonymous", authFails: true}
	f.callers["wrongsecret"] = &caller{name: "wrongsecret", id: f.callers["publisher"].id, secret: "not-the-secret-at-all", authFails: true}

	group := func(key, parent, name string) {
		g, err := st.CreateGroup(ctx, sys, model.Group{Name: name, Type: model.GroupPrivate, ParentID: parent, Description: "the " + name + " group"})
		if err != nil {
			t.Fatal(err)
		}
		f.ids[key] = g.ID
	}
	repo := func(key, parent, name string, visible bool) {
		r, err := st.CreateRepository(ctx, sys, model.Repository{Name: name, ParentID: parent, Visible: visible, Description: "repository " + name})
		if err != nil {
			t.Fatal(err)
		}
		f.ids[key] = r.ID
	}
	group("org", "", "org")
	group("closed", "", "closed")
	repo("vis", f.ids["org"], "vis", true)
	repo("hid", f.ids["org"], "hid", false)
	group("empty", f.ids["org"], "empty")
	repo("inner", f.ids["closed"], "inner", false)
	for _, rc := range roleCallers {
		for _, target := range []string{"org", "closed"} {
			if _, err := st.Grant(ctx, sys, f.callers[rc.name].id, f.ids[target], rc.role); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, key := range []string{"vis", "hid"} {
		p, err := st.CreatePublication(ctx, sys, f.ids[key], model.PublicationMeta{Name: "core", Description: "core vocabulary",
			Publisher: "ACME", Owner: "Jo"}, store.Content{Ext: ".ttl", Data: []byte(turtleA)})
		if err != nil {
			t.Fatal(err)
		}
		f.ids[key+".pub"] = p.ID
		fl, err := st.AddFile(ctx, sys, f.ids[key], model.FileMeta{Name: "logo.png"}, []byte("PNGDATA"))
		if err != nil {
			t.Fatal(err)
		}
		f.ids[key+".file"] = fl.ID
	}
	// The expired token's hour passes.
	clock.Add(int64(2 * time.Hour))
	idx, err := search.Open(ctx, "", st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	// No slow-down in these tests: wrong secrets are part of the matrix.
	guard := auth.New(st, auth.Options{FreeFailures: 1 << 30})
	f.cfg = server.Config{Store: st, Auth: guard, Search: idx, BaseURL: base}
	f.srv = server.New(f.cfg)
	return f
}

const turtleA = "@prefix ex: <http://example.org/> .\n<Thing> ex:label \"A\" .\nex:s ex:p ex:o .\n"
const turtleB = "@prefix ex: <http://example.org/> .\n<Thing> ex:label \"B\" .\nex:s ex:p ex:o .\n"

// request describes one HTTP request of a test.
type request struct {
	method, path string
	as           string // caller name
	body         io.Reader
	contentType  string
	accept       string
}

type response struct {
	code   int
	header http.Header
	body   []byte
}

func (f *fixture) do(rq request) response {
	f.t.Helper()
	r := httptest.NewRequest(rq.method, rq.path, rq.body)
	if rq.contentType != "" {
		r.Header.Set("Content-Type", rq.contentType)
	}
	if rq.accept != "" {
		r.Header.Set("Accept", rq.accept)
	}
	if c := f.callers[rq.as]; c != nil && c.id != "" {
		r.SetBasicAuth(c.id, c.secret)
	} else if rq.as != "" && rq.as != "anonymous" {
		f.t.Fatalf("unknown caller %q", rq.as)
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, r)
	return response{code: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

// path replaces {key} with fixture ids.
func (f *fixture) path(p string) string {
	for k, v := range f.ids {
		p = strings.ReplaceAll(p, "{"+k+"}", v)
	}
	return p
}

func jsonBody(v any) io.Reader {
	b, _ := json.Marshal(v)
	return bytes.NewReader(b)
}

// mpart is one multipart part.
type mpart struct {
	name, filename, contentType, data string
}

func multipartBody(parts ...mpart) (io.Reader, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := `form-data; name="` + p.name + `"`
		if p.filename != "" {
			cd += `; filename="` + p.filename + `"`
		}
		h.Set("Content-Disposition", cd)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		w, _ := mw.CreatePart(h)
		io.WriteString(w, p.data)
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}

func decodeJSON[T any](t *testing.T, res response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.body, &v); err != nil {
		t.Fatalf("body is not the expected JSON (%v): %s", err, res.body)
	}
	return v
}

// keysOf returns the sorted field names of a JSON object.
func keysOf(t *testing.T, obj map[string]any) string {
	t.Helper()
	var ks []string
	for k := range obj {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

func sortedFields(fields string) string {
	fs := strings.Fields(fields)
	sort.Strings(fs)
	return strings.Join(fs, " ")
}

func wantStatus(t *testing.T, res response, code int) {
	t.Helper()
	if res.code != code {
		t.Fatalf("status %d, want %d: %s", res.code, code, res.body)
	}
}

// actorOf is the store actor of a fixture caller.
func actorOf(f *fixture, name string) model.Actor {
	c := f.callers[name]
	return model.Actor{CredentialID: c.id, Name: c.name, Admin: c.admin}
}
