package githttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/ldhub/ldhub/api/auth"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/content/store/githttp"
)

// fakeValidate stands in for the codec registry: a line containing "BAD" is a syntax error at that word.
func fakeValidate(ctx context.Context, path string, content []byte) error {
	for i, line := range strings.Split(string(content), "\n") {
		if col := strings.Index(line, "BAD"); col >= 0 {
			return &rdf.SyntaxError{Syntax: "turtle", Line: i + 1, Column: col + 1, Msg: "unexpected BAD"}
		}
	}
	return nil
}

type user struct{ id, secret string }

type hub struct {
	s                  *store.Store
	git                *githttp.Handler
	srv                *httptest.Server
	publisher, viewer  user
	private, visible   model.Repository
	privatePub, pubPub model.Publication
}

func newHub(t *testing.T) *hub {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, t.TempDir(), store.Options{Validate: fakeValidate, HashCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	adm, _, _, err := s.EnsureAdmin(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	admin := model.ActorOf(adm)
	h := &hub{s: s}
	g, err := s.CreateGroup(ctx, admin, model.Group{Name: "org"})
	if err != nil {
		t.Fatal(err)
	}
	if h.private, err = s.CreateRepository(ctx, admin, model.Repository{Name: "private", ParentID: g.ID}); err != nil {
		t.Fatal(err)
	}
	if h.visible, err = s.CreateRepository(ctx, admin, model.Repository{Name: "open", ParentID: g.ID, Visible: true}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct {
		u    *user
		role model.Role
	}{{&h.publisher, model.Publisher}, {&h.viewer, model.Viewer}} {
		c, secret, err := s.CreateCredential(ctx, admin, catalog.CredentialSpec{Kind: model.Token})
		if err != nil {
			t.Fatal(err)
		}
		*u.u = user{c.ID, secret}
		if _, err := s.Grant(ctx, admin, c.ID, g.ID, u.role); err != nil {
			t.Fatal(err)
		}
	}
	content := store.Content{Ext: ".ttl", Data: []byte("<a> <b> <c> .\n")}
	if h.privatePub, err = s.CreatePublication(ctx, admin, h.private.ID, model.PublicationMeta{Name: "core"}, content); err != nil {
		t.Fatal(err)
	}
	if h.pubPub, err = s.CreatePublication(ctx, admin, h.visible.ID, model.PublicationMeta{Name: "core"}, content); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	// The API's one Basic-auth path (with its slow-down), which ldhub serve mounts the handler with.
	h.git = githttp.New(s, auth.New(s, auth.Options{}), "/git/")
	mux.Handle("/git/", h.git)
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hub) url(repo string, u *user) string {
	base, _ := url.Parse(h.srv.URL)
	if u != nil {
		base.User = url.UserPassword(u.id, u.secret)
	}
	return base.String() + "/git/org/" + repo + ".git"
}

// git runs the git CLI; it returns combined output and the error instead of failing, so refusals can be checked.
func git(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=cli", "GIT_AUTHOR_EMAIL=cli@example.org",
		"GIT_COMMITTER_NAME=cli", "GIT_COMMITTER_EMAIL=cli@example.org", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
		"GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(t, dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func TestCloneAccess(t *testing.T) {
	h := newHub(t)
	for _, tc := range []struct {
		name string
		repo string
		user *user
		ok   bool
		says string
	}{
		{"anonymous clones a visible repository", "open", nil, true, ""},
		{"anonymous cannot clone a private one (401 challenge)", "private", nil, false, "could not read Username"},
		{"viewer clones a private one", "private", &h.viewer, true, ""},
		{"wrong secret", "private", &user{h.viewer.id, "wrong-secret-123"}, false, "Authentication failed"},
		{"unknown repository", "nope", &h.viewer, false, "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := git(t, dir, "clone", h.url(tc.repo, tc.user), "wt")
			if tc.ok != (err == nil) {
				t.Fatalf("clone: %v\n%s", err, out)
			}
			if !tc.ok {
				if !strings.Contains(out, tc.says) {
					t.Errorf("output %q lacks %q", out, tc.says)
				}
				return
			}
			data, err := os.ReadFile(filepath.Join(dir, "wt", "core.ttl"))
			if err != nil || string(data) != "<a> <b> <c> .\n" {
				t.Errorf("core.ttl = %q, %v", data, err)
			}
			if branch := mustGit(t, filepath.Join(dir, "wt"), "rev-parse", "--abbrev-ref", "HEAD"); branch != "main" {
				t.Errorf("checked out %q", branch)
			}
			mustGit(t, filepath.Join(dir, "wt"), "fsck")
		})
	}
}

func TestPushIsValidatedAndPublished(t *testing.T) {
	h := newHub(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	wt := filepath.Join(dir, "wt")
	mustGit(t, dir, "clone", "-q", h.url("private", &h.publisher), "wt")
	before := mustGit(t, wt, "rev-parse", "HEAD")

	// A commit with bad RDF is refused with file, line and column, and no ref moves.
	os.WriteFile(filepath.Join(wt, "core.ttl"), []byte("<a> <b> <c> .\n<a> <b> BAD .\n"), 0o644)
	mustGit(t, wt, "commit", "-qam", "broken")
	out, err := git(t, wt, "push", "origin", "main")
	if err == nil {
		t.Fatalf("bad push accepted:\n%s", out)
	}
	for _, want := range []string{"remote rejected", "core.ttl", "line 2, column 9", "remote: ldhub refused the push"} {
		if !strings.Contains(out, want) {
			t.Errorf("push output lacks %q:\n%s", want, out)
		}
	}
	if remote := mustGit(t, wt, "ls-remote", "origin", "refs/heads/main"); !strings.HasPrefix(remote, before) {
		t.Errorf("ref moved after a refused push: %s", remote)
	}

	// Fixing it in a second commit does not help: every pushed commit is checked.
	os.WriteFile(filepath.Join(wt, "core.ttl"), []byte("<a> <b> <d> .\n"), 0o644)
	mustGit(t, wt, "commit", "-qam", "fixed")
	if out, err := git(t, wt, "push", "origin", "main"); err == nil {
		t.Fatalf("push with a bad commit in its history accepted:\n%s", out)
	}
	mustGit(t, wt, "reset", "-q", "--hard", before)

	// A good push publishes a new version and a new publication.
	events := h.s.Subscribe(ctx)
	os.WriteFile(filepath.Join(wt, "core.ttl"), []byte("<a> <b> <d> .\n"), 0o644)
	os.MkdirAll(filepath.Join(wt, "sub"), 0o755)
	os.WriteFile(filepath.Join(wt, "sub", "extra.nt"), []byte("<x> <y> <z> .\n"), 0o644)
	mustGit(t, wt, "add", ".")
	mustGit(t, wt, "commit", "-qm", "good")
	if out, err := git(t, wt, "push", "origin", "main"); err != nil {
		t.Fatalf("good push refused: %v\n%s", err, out)
	}
	head := mustGit(t, wt, "rev-parse", "HEAD")
	select {
	case ev := <-events:
		if ev.RepositoryID != h.private.ID || ev.Commit != head {
			t.Errorf("event %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no change event after a push")
	}
	pubs, err := h.s.Publications(ctx, model.SystemActor, h.private.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pubs {
		names = append(names, fmt.Sprintf("%s:%d", p.PublicationURI, len(p.Versions)))
	}
	if got := strings.Join(names, " "); got != "core:2 sub/extra:1" {
		t.Errorf("publications after push: %s", got)
	}

	// Two files for one publication name are refused.
	os.WriteFile(filepath.Join(wt, "core.nt"), []byte("<a> <b> <c> .\n"), 0o644)
	mustGit(t, wt, "add", ".")
	mustGit(t, wt, "commit", "-qm", "second core")
	if out, err := git(t, wt, "push", "origin", "main"); err == nil || !strings.Contains(out, "already holds publication") {
		t.Errorf("push of core.nt beside core.ttl: %v\n%s", err, out)
	}
	mustGit(t, wt, "reset", "-q", "--hard", head)

	// A rewrite of published history is refused.
	mustGit(t, wt, "commit", "-q", "--amend", "-m", "rewritten")
	if out, err := git(t, wt, "push", "-f", "origin", "main"); err == nil || !strings.Contains(out, "non-fast-forward") {
		t.Errorf("force push: %v\n%s", err, out)
	}

	// A tag <publication>/<label> names a CUSTOM version; tags are pushed like branches.
	mustGit(t, wt, "reset", "-q", "--hard", head)
	mustGit(t, wt, "tag", "core/v2", head)
	if out, err := git(t, wt, "push", "origin", "core/v2"); err != nil {
		t.Fatalf("tag push: %v\n%s", err, out)
	}
}

func TestPushNeedsPublisher(t *testing.T) {
	h := newHub(t)
	for _, tc := range []struct {
		name string
		user *user
		says string
	}{
		// git shows the refusal's text: it names the repository by the path the pusher knows.
		{"viewer", &h.viewer, "remote: repository /org/open (" + h.visible.ID + "): needs PUBLISHER"},
		{"anonymous (401 challenge)", nil, "could not read Username"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			wt := filepath.Join(dir, "wt")
			mustGit(t, dir, "clone", "-q", h.url("open", nil), "wt")
			mustGit(t, wt, "remote", "set-url", "origin", h.url("open", tc.user))
			os.WriteFile(filepath.Join(wt, "core.ttl"), []byte("<a> <b> <e> .\n"), 0o644)
			mustGit(t, wt, "commit", "-qam", "change")
			out, err := git(t, wt, "push", "origin", "main")
			if err == nil || !strings.Contains(out, tc.says) {
				t.Errorf("push: %v\n%s", err, out)
			}
		})
	}
}

func TestFetchAfterStoreWrites(t *testing.T) {
	h := newHub(t)
	ctx := context.Background()
	dir := t.TempDir()
	wt := filepath.Join(dir, "wt")
	mustGit(t, dir, "clone", "-q", h.url("open", nil), "wt")
	for i := 0; i < 3; i++ {
		c := store.Content{Ext: ".ttl", Data: []byte(fmt.Sprintf("<a> <b> %d .\n", i))}
		if _, err := h.s.UpdatePublication(ctx, model.SystemActor, h.pubPub.ID, store.PublicationPatch{}, &c); err != nil {
			t.Fatal(err)
		}
		// unpackLimit=1 keeps each fetched pack as it came, so its size can be checked below.
		out, err := git(t, wt, "-c", "fetch.unpackLimit=1", "pull", "-q", "--ff-only")
		if err != nil {
			t.Fatalf("pull %d: %v\n%s", i, err, out)
		}
		// Negotiation found the common history: only the new commit, its tree and its blob travel.
		if n := newestPackObjects(t, wt); n != 3 {
			t.Errorf("pull %d fetched %d objects, want 3", i, n)
		}
		data, _ := os.ReadFile(filepath.Join(wt, "core.ttl"))
		if string(data) != string(c.Data) {
			t.Errorf("pull %d: core.ttl = %q", i, data)
		}
	}
	p, err := h.s.Publication(ctx, model.Actor{}, h.pubPub.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if log := mustGit(t, wt, "log", "--format=%H", "--", "core.ttl"); strings.Count(log, "\n")+1 != len(p.Versions) {
		t.Errorf("git log has %d commits for core.ttl, the store %d versions", strings.Count(log, "\n")+1, len(p.Versions))
	}
}

func TestBadRequests(t *testing.T) {
	h := newHub(t)
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/git/org/open.git/info/refs", http.StatusForbidden}, // dumb protocol
		{"GET", "/git/org/open.git/objects/info/packs", http.StatusNotFound},
		{"POST", "/git/org/open.git/info/refs?service=git-upload-pack", http.StatusMethodNotAllowed},
		{"GET", "/git/org/open.git/git-upload-pack", http.StatusMethodNotAllowed},
		{"POST", "/git/org/open.git/git-upload-pack", http.StatusBadRequest}, // empty request
		{"GET", "/git/org/private.git/info/refs?service=git-upload-pack", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(tc.method, h.srv.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
		if tc.want == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: no WWW-Authenticate", tc.path)
		}
	}
}

// newestPackObjects counts the objects of the most recently written pack of a clone.
func newestPackObjects(t *testing.T, wt string) int {
	t.Helper()
	idxs, _ := filepath.Glob(filepath.Join(wt, ".git", "objects", "pack", "*.idx"))
	var newest string
	var newestTime time.Time
	for _, p := range idxs {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(newestTime) {
			newest, newestTime = p, fi.ModTime()
		}
	}
	if newest == "" {
		t.Fatal("no pack")
	}
	out := mustGit(t, wt, "verify-pack", "-v", newest)
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && len(f[0]) == 40 {
			n++
		}
	}
	return n
}

func TestPushedTagNamesCustomVersion(t *testing.T) {
	h := newHub(t)
	ctx := context.Background()
	p, err := h.s.CreatePublication(ctx, model.SystemActor, h.private.ID,
		model.PublicationMeta{Name: "cust", VersioningMode: model.Custom, VersionLabel: "v1"},
		store.Content{Ext: ".ttl", Data: []byte("<a> <b> 1 .\n")})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wt := filepath.Join(dir, "wt")
	mustGit(t, dir, "clone", "-q", h.url("private", &h.publisher), "wt")
	os.WriteFile(filepath.Join(wt, "cust.ttl"), []byte("<a> <b> 2 .\n"), 0o644)
	mustGit(t, wt, "commit", "-qam", "second")
	label := func() string {
		got, err := h.s.Publication(ctx, model.SystemActor, p.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		return got.Version.Label
	}
	// Tagged before it is published, the commit's version takes the tag's label: the tags first, then the branch.
	mustGit(t, wt, "tag", "cust/v2")
	mustGit(t, wt, "push", "-q", "--tags")
	if l := label(); l != "v1" {
		t.Errorf("label after pushing only the tag: %q", l)
	}
	mustGit(t, wt, "push", "-q")
	if l := label(); l != "v2" {
		t.Errorf("label after pushing tag cust/v2 and then the branch: %q", l)
	}
	// A tag naming a published version neither moves nor goes away.
	mustGit(t, wt, "tag", "-f", "cust/v2", "HEAD~1")
	if out, err := git(t, wt, "push", "--force", "origin", "cust/v2"); err == nil || !strings.Contains(out, "cannot be moved") {
		t.Errorf("force-moving a version's tag: %v\n%s", err, out)
	}
	if out, err := git(t, wt, "push", "--delete", "origin", "cust/v2"); err == nil || !strings.Contains(out, "cannot be deleted") {
		t.Errorf("deleting a version's tag: %v\n%s", err, out)
	}
	mustGit(t, wt, "tag", "-f", "cust/v2", "HEAD")
	// A version already published under another label is not relabelled by a tag pushed after it.
	os.WriteFile(filepath.Join(wt, "cust.ttl"), []byte("<a> <b> 3 .\n"), 0o644)
	mustGit(t, wt, "commit", "-qam", "third")
	mustGit(t, wt, "push", "-q")
	before := label()
	mustGit(t, wt, "tag", "cust/v3")
	if out, err := git(t, wt, "push", "--tags"); err == nil || !strings.Contains(out, "would relabel version "+before) {
		t.Errorf("tag after the version was published: %v\n%s", err, out)
	}
	if l := label(); l != before {
		t.Errorf("label changed from %q to %q by a refused tag", before, l)
	}
}

func TestCloneAndPushEmptyRepository(t *testing.T) {
	h := newHub(t)
	ctx := context.Background()
	st, err := h.s.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.CreateRepository(ctx, model.SystemActor, model.Repository{Name: "empty", ParentID: st.Repos[h.private.ID].ParentID}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wt := filepath.Join(dir, "wt")
	out := mustGit(t, dir, "clone", h.url("empty", &h.publisher), "wt")
	if !strings.Contains(out, "empty repository") {
		t.Errorf("clone of an empty repository: %s", out)
	}
	mustGit(t, wt, "checkout", "-q", "-b", "main")
	os.WriteFile(filepath.Join(wt, "first.ttl"), []byte("<a> <b> <c> .\n"), 0o644)
	mustGit(t, wt, "add", ".")
	mustGit(t, wt, "commit", "-qm", "first")
	if out, err := git(t, wt, "push", "origin", "main"); err != nil {
		t.Fatalf("first push: %v\n%s", err, out)
	}
	id, _, err := h.s.Resolve(ctx, model.SystemActor, "/org/empty")
	if err != nil {
		t.Fatal(err)
	}
	pubs, err := h.s.Publications(ctx, model.SystemActor, id)
	if err != nil || len(pubs) != 1 || pubs[0].PublicationURI != "first" {
		t.Errorf("after the first push: %+v %v", pubs, err)
	}
}
