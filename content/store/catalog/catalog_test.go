package catalog

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/ldhub/ldhub/content/model"
)

func open(t *testing.T, dir string, now func() time.Time) *Catalog {
	t.Helper()
	c, err := Open(filepath.Join(dir, "hub.git"), Options{Now: now, HashCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type fixture struct {
	c                       *Catalog
	admin, alice, bob, anon model.Actor
	top, sub                model.Group
	repo, pub               model.Repository
}

func setup(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{c: open(t, t.TempDir(), nil)}
	adm, _, created, err := f.c.EnsureAdmin(ctx, "", "")
	if err != nil || !created {
		t.Fatalf("EnsureAdmin: %v %v", created, err)
	}
	f.admin = model.ActorOf(adm)
	mk := func(name string) model.Actor {
		cr, _, err := f.c.CreateCredential(ctx, f.admin, CredentialSpec{Kind: model.Token, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return model.ActorOf(cr)
	}
	f.alice, f.bob = mk("alice"), mk("bob")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	f.top, err = f.c.CreateGroup(ctx, f.alice, model.Group{Name: "Top Group"})
	must(err)
	f.sub, err = f.c.CreateGroup(ctx, f.alice, model.Group{Name: "sub", ParentID: f.top.ID})
	must(err)
	f.repo, err = f.c.CreateRepository(ctx, f.alice, model.Repository{Name: "Private Repo", ParentID: f.sub.ID})
	must(err)
	f.pub, err = f.c.CreateRepository(ctx, f.alice, model.Repository{Name: "open", ParentID: f.sub.ID, Visible: true})
	must(err)
	return f
}

func TestPathsAndResolve(t *testing.T) {
	f := setup(t)
	st, err := f.c.View()
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Path(f.repo.ID); got != "/Top-Group/sub/Private-Repo" {
		t.Errorf("path = %q", got)
	}
	for _, tc := range []struct {
		path   string
		id     string
		isRepo bool
		ok     bool
	}{
		{"/Top-Group", f.top.ID, false, true},
		{"/Top-Group/sub", f.sub.ID, false, true},
		{"/Top-Group/sub/Private-Repo", f.repo.ID, true, true},
		{"/Top-Group/sub/nope", "", false, false},
		{"/Top-Group/sub/Private-Repo/x", "", false, false},
	} {
		id, isRepo, ok := st.Resolve(tc.path)
		if id != tc.id || isRepo != tc.isRepo || ok != tc.ok {
			t.Errorf("Resolve(%q) = %q %v %v", tc.path, id, isRepo, ok)
		}
	}
}

func TestRolesAndVisibility(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	if _, err := f.c.Grant(ctx, f.alice, f.bob.CredentialID, f.sub.ID, model.Viewer); err != nil {
		t.Fatal(err)
	}
	st, _ := f.c.View()
	tests := []struct {
		name  string
		actor model.Actor
		id    string
		role  model.Role
		want  error
	}{
		{"owner of top owns repo below", f.alice, f.repo.ID, model.Owner, nil},
		{"viewer grant on group reaches repo", f.bob, f.repo.ID, model.Viewer, nil},
		{"viewer may not publish", f.bob, f.repo.ID, model.Publisher, model.ErrForbidden},
		{"anonymous cannot see private repo", f.anon, f.repo.ID, model.Viewer, model.ErrNotFound},
		{"anonymous sees visible repo but cannot publish", f.anon, f.pub.ID, model.Publisher, model.ErrUnauthorized},
		{"admin owns everything", f.admin, f.repo.ID, model.Owner, nil},
		{"unknown id", f.admin, "nope", model.Viewer, model.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := st.Require(tc.actor, tc.id, tc.role, "x")
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Require = %v, want %v", err, tc.want)
			}
		})
	}
	// A MANAGER may grant PUBLISHER but not OWNER.
	if _, err := f.c.Grant(ctx, f.alice, f.bob.CredentialID, f.sub.ID, model.Manager); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.Grant(ctx, f.bob, f.bob.CredentialID, f.repo.ID, model.Owner); !errors.Is(err, model.ErrForbidden) {
		t.Errorf("manager granting OWNER: %v", err)
	}
	if _, err := f.c.Grant(ctx, f.bob, f.alice.CredentialID, f.pub.ID, model.Publisher); err != nil {
		t.Errorf("manager granting PUBLISHER: %v", err)
	}
}

func TestSegmentsConflictsAndDeletes(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	_, err := f.c.CreateGroup(ctx, f.alice, model.Group{Name: "x", PathSegment: "private-repo", ParentID: f.sub.ID})
	if !errors.Is(err, model.ErrConflict) {
		t.Errorf("sibling segment clash (case-insensitive, repo vs group): %v", err)
	}
	if _, err := f.c.CreateGroup(ctx, f.alice, model.Group{Name: "api"}); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("reserved segment: %v", err)
	}
	if _, err := f.c.CreateGroup(ctx, f.alice, model.Group{Name: "y", PathSegment: ".hidden"}); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("bad segment: %v", err)
	}
	if _, err := f.c.DeleteGroup(ctx, f.alice, f.sub.ID); !errors.Is(err, model.ErrConflict) {
		t.Errorf("delete non-empty group: %v", err)
	}
	if _, err := f.c.UpdateGroup(ctx, f.alice, f.top.ID, GroupPatch{ParentID: &f.sub.ID}); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("cycle: %v", err)
	}
	for _, id := range []string{f.repo.ID, f.pub.ID} {
		if _, err := f.c.DeleteRepository(ctx, f.alice, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.c.DeleteGroup(ctx, f.alice, f.sub.ID); err != nil {
		t.Errorf("delete empty group: %v", err)
	}
}

func TestAuthenticate(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := open(t, t.TempDir(), func() time.Time { return now })
	ctx := context.Background()
	adm, secret, _, err := c.EnsureAdmin(ctx, "admin", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if secret != "correct horse battery" || adm.SecretHash != "" {
		t.Fatalf("EnsureAdmin returned secret %q, hash %q", secret, adm.SecretHash)
	}
	if _, again, created, _ := c.EnsureAdmin(ctx, "admin", ""); created || again != "" {
		t.Error("second EnsureAdmin created another administrator")
	}
	tok, tokSecret, err := c.CreateCredential(ctx, model.ActorOf(adm), CredentialSpec{Kind: model.Token, ExpiresOn: now.Add(time.Hour).UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id, secret string
		ok         bool
	}{
		{"admin", "correct horse battery", true},
		{"admin", "correct horse battery", true}, // from the verified cache
		{"admin", "wrong", false},
		{"nobody", "correct horse battery", false},
		{tok.ID, tokSecret, true},
	} {
		_, err := c.Authenticate(ctx, tc.id, tc.secret)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, model.ErrUnauthorized) {
			t.Errorf("Authenticate(%s, %s) = %v", tc.id, tc.secret, err)
		}
	}
	now = now.Add(2 * time.Hour)
	if _, err := c.Authenticate(ctx, tok.ID, tokSecret); !errors.Is(err, model.ErrUnauthorized) {
		t.Errorf("expired token: %v", err)
	}
	if err := c.RevokeCredential(ctx, model.ActorOf(adm), "admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Authenticate(ctx, "admin", "correct horse battery"); !errors.Is(err, model.ErrUnauthorized) {
		t.Errorf("revoked credential: %v", err)
	}
	// The secret appears nowhere in the committed records.
	st, _ := c.View()
	for _, cr := range st.Creds {
		if cr.SecretHash == "" || cr.SecretHash == tokSecret {
			t.Errorf("credential %s stored hash %q", cr.ID, cr.SecretHash)
		}
	}
}

func TestRebuildFromGitGivesSameCatalogue(t *testing.T) {
	f := setup(t)
	a, err := f.c.View()
	if err != nil {
		t.Fatal(err)
	}
	b, err := open(t, filepath.Dir(f.c.Repo().Dir()), nil).View()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("rebuilt catalogue differs:\n%+v\n%+v", a, b)
	}
}

// Issue 15: names the rendered tree, the pages or the router use are refused at every level, and the legacy ns
// group is the hub's (an ordinary credential cannot squat /ns).
func TestReservedSegmentsEveryLevel(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	for _, seg := range []string{"index.html", "versions", "void.ttl", "sparql", "x.ttl", "x.html", "api", "git", "ns", "NS"} {
		if _, err := f.c.CreateGroup(ctx, f.alice, model.Group{Name: "g", PathSegment: seg}); !errors.Is(err, model.ErrInvalid) || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("top-level group %q: %v", seg, err)
		}
	}
	for _, seg := range []string{"index.html", "versions", "void.ttl", "sparql", "x.ttl"} {
		if _, err := f.c.CreateGroup(ctx, f.alice, model.Group{Name: "g", PathSegment: seg, ParentID: f.top.ID}); !errors.Is(err, model.ErrInvalid) {
			t.Errorf("subgroup %q: %v", seg, err)
		}
		if _, err := f.c.CreateRepository(ctx, f.alice, model.Repository{Name: "r", PathSegment: seg, ParentID: f.top.ID}); !errors.Is(err, model.ErrInvalid) {
			t.Errorf("repository %q: %v", seg, err)
		}
	}
	// Names that are reserved only at the top are fine below it.
	if _, err := f.c.CreateGroup(ctx, f.alice, model.Group{Name: "ns", ParentID: f.top.ID}); err != nil {
		t.Errorf("subgroup ns: %v", err)
	}
	// Moving a group to the top level under a reserved name is refused too (the administrator may move).
	g, err := f.c.CreateGroup(ctx, f.alice, model.Group{Name: "api", ParentID: f.top.ID})
	if err != nil {
		t.Fatal(err)
	}
	top := ""
	if _, err := f.c.UpdateGroup(ctx, f.admin, g.ID, GroupPatch{ParentID: &top}); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("moving %q to the top level: %v", "api", err)
	}
	// The administrator creates the hub's ns group.
	if _, err := f.c.CreateGroup(ctx, f.admin, model.Group{Name: "ns", Type: model.GroupPublic}); err != nil {
		t.Errorf("administrator creating ns: %v", err)
	}
}

// TestTextFieldsAreBounded: names, owners and descriptions of groups and repositories have a length limit, on
// create and on update, so that no credential can grow the catalogue every request reads.
func TestTextFieldsAreBounded(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	long, huge := strings.Repeat("n", maxNameLen+1), strings.Repeat("d", maxDescriptionLen+1)
	for _, g := range []model.Group{{Name: long, PathSegment: "a1"}, {Name: "ok", PathSegment: "a2", Owner: long}, {Name: "ok", PathSegment: "a3", Description: huge}} {
		if _, err := f.c.CreateGroup(ctx, f.alice, g); !errors.Is(err, model.ErrInvalid) {
			t.Errorf("group %.20q: %v", g.Name+g.Owner+g.Description, err)
		}
	}
	if _, err := f.c.CreateRepository(ctx, f.alice, model.Repository{Name: long, ParentID: f.top.ID}); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("repository name: %v", err)
	}
	if _, err := f.c.UpdateGroup(ctx, f.alice, f.top.ID, GroupPatch{Description: &huge}); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("group description patch: %v", err)
	}
	if _, err := f.c.UpdateRepository(ctx, f.alice, f.repo.ID, RepositoryPatch{Name: &long}); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("repository name patch: %v", err)
	}
	// At the limit is fine (characters, not bytes).
	if _, err := f.c.CreateGroup(ctx, f.alice, model.Group{Name: strings.Repeat("é", maxNameLen), PathSegment: "fine"}); err != nil {
		t.Errorf("a name at the limit: %v", err)
	}
}
