package store_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/crypto/bcrypt"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/content/store/gitrepo"
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

type env struct {
	s           *store.Store
	dir         string
	admin, pub  model.Actor
	viewer      model.Actor
	outsider    model.Actor
	group, sub  model.Group
	repo, open  model.Repository
	adminSecret string
}

func openStore(t testing.TB, dir string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), dir, store.Options{Validate: fakeValidate, HashCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newEnv(t testing.TB) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{dir: t.TempDir()}
	e.s = openStore(t, e.dir)
	adm, secret, _, err := e.s.EnsureAdmin(ctx, "admin", "")
	if err != nil {
		t.Fatal(err)
	}
	e.admin, e.adminSecret = model.ActorOf(adm), secret
	mk := func(name string) model.Actor {
		c, _, err := e.s.CreateCredential(ctx, e.admin, catalog.CredentialSpec{Kind: model.Token, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return model.ActorOf(c)
	}
	e.pub, e.viewer, e.outsider = mk("publisher"), mk("viewer"), mk("outsider")
	if e.group, err = e.s.CreateGroup(ctx, e.admin, model.Group{Name: "org"}); err != nil {
		t.Fatal(err)
	}
	if e.sub, err = e.s.CreateGroup(ctx, e.admin, model.Group{Name: "team", ParentID: e.group.ID}); err != nil {
		t.Fatal(err)
	}
	if e.repo, err = e.s.CreateRepository(ctx, e.admin, model.Repository{Name: "vocab", ParentID: e.sub.ID}); err != nil {
		t.Fatal(err)
	}
	if e.open, err = e.s.CreateRepository(ctx, e.admin, model.Repository{Name: "open", ParentID: e.sub.ID, Visible: true}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		a    model.Actor
		role model.Role
	}{{e.pub, model.Publisher}, {e.viewer, model.Viewer}} {
		if _, err := e.s.Grant(ctx, e.admin, g.a.CredentialID, e.group.ID, g.role); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=cli", "GIT_AUTHOR_EMAIL=cli@example.org",
		"GIT_COMMITTER_NAME=cli", "GIT_COMMITTER_EMAIL=cli@example.org", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (e *env) commits(t testing.TB, repoID string) int {
	n, err := strconv.Atoi(git(t, e.dir, "--git-dir", e.s.RepoDir(repoID), "rev-list", "--count", "main"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func ttl(s string) store.Content { return store.Content{Ext: ".ttl", Data: []byte(s)} }

func ptr[T any](v T) *T { return &v }

func TestPublicationLifecycleOneCommitEach(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "Core Vocabulary", Description: "d"}, ttl("<a> <b> <c> .\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.PublicationURI != "Core-Vocabulary" || p.Path != "Core-Vocabulary.ttl" || len(p.Versions) != 1 {
		t.Fatalf("created %+v", p)
	}
	steps := []struct {
		name     string
		do       func() error
		versions int
		msg      string
	}{
		{"new content", func() error {
			_, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl("<a> <b> <d> .\n")))
			return err
		}, 2, "Update publication Core-Vocabulary: new content"},
		{"meta-data only", func() error {
			_, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{Description: ptr("better")}, nil)
			return err
		}, 2, "Update meta-data of publication Core-Vocabulary: description"},
		{"new format", func() error {
			_, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &store.Content{Ext: ".nt", Data: []byte("<a> <b> <e> .\n")})
			return err
		}, 3, "Update publication Core-Vocabulary: new content"},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := e.s.Publication(ctx, e.viewer, p.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Versions) != st.versions {
			t.Errorf("%s: %d versions, want %d", st.name, len(got.Versions), st.versions)
		}
		if n := e.commits(t, e.repo.ID); n != i+2 {
			t.Errorf("%s: %d commits, want %d", st.name, n, i+2)
		}
		if msg := git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "log", "-1", "--format=%an|%s"); msg != "publisher|"+st.msg {
			t.Errorf("%s: last commit %q", st.name, msg)
		}
	}
	got, content, err := e.s.PublicationContent(ctx, e.viewer, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if string(content) != "<a> <b> <e> .\n" || got.Path != "Core-Vocabulary.nt" || got.Description != "better" {
		t.Errorf("latest: %q %+v", content, got)
	}
	_, old, err := e.s.PublicationContent(ctx, e.viewer, p.ID, got.Versions[0].ID)
	if err != nil || string(old) != "<a> <b> <c> .\n" {
		t.Errorf("first version: %q %v", old, err)
	}
	if tree := git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "ls-tree", "-r", "--name-only", "main"); tree != "Core-Vocabulary.meta.json\nCore-Vocabulary.nt" {
		t.Errorf("tree:\n%s", tree)
	}
	if _, err := e.s.DeletePublication(ctx, e.pub, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Publication(ctx, e.admin, p.ID, ""); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
	if n := e.commits(t, e.repo.ID); n != 5 {
		t.Errorf("%d commits after delete, want 5", n)
	}
}

func TestVersionLabels(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, tc := range []struct {
		mode  model.VersioningMode
		check func(t *testing.T, vs []model.Version)
	}{
		{model.Undefined, func(t *testing.T, vs []model.Version) {
			for _, v := range vs {
				if v.Label != v.Commit[:7] {
					t.Errorf("label %q, commit %s", v.Label, v.Commit)
				}
			}
		}},
		{model.Incremental, func(t *testing.T, vs []model.Version) {
			for i, v := range vs {
				if v.Label != strconv.Itoa(i+1) {
					t.Errorf("version %d label %q", i, v.Label)
				}
			}
		}},
		{model.Timestamp, func(t *testing.T, vs []model.Version) {
			for i, v := range vs {
				ms, err := strconv.ParseInt(v.Label, 10, 64)
				if err != nil || ms < v.Time.UnixMilli() || ms > v.Time.UnixMilli()+10 {
					t.Errorf("label %q for time %v", v.Label, v.Time)
				}
				if i > 0 && v.Label == vs[i-1].Label {
					t.Errorf("duplicate label %q", v.Label)
				}
			}
		}},
		{model.DateTime, func(t *testing.T, vs []model.Version) {
			for _, v := range vs {
				if !strings.HasPrefix(v.Label, v.Time.UTC().Format("20060102T150405Z")) {
					t.Errorf("label %q for time %v", v.Label, v.Time)
				}
			}
		}},
		{model.None, func(t *testing.T, vs []model.Version) {
			if len(vs) != 1 {
				t.Errorf("NONE lists %d versions", len(vs))
			}
		}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p-" + string(tc.mode), VersioningMode: tc.mode}, ttl("<a> <b> 0 ."))
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < 3; i++ {
				if p, err = e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl(fmt.Sprintf("<a> <b> %d .", i)))); err != nil {
					t.Fatal(err)
				}
			}
			tc.check(t, p.Versions)
			ids := map[string]bool{}
			for _, v := range p.Versions {
				if ids[v.ID] {
					t.Errorf("duplicate version id %s", v.ID)
				}
				ids[v.ID] = true
			}
		})
	}
	t.Run("NONE serves no old version", func(t *testing.T) {
		p, err := e.s.FindPublication(ctx, e.viewer, e.repo.ID, "p-NONE")
		if err != nil {
			t.Fatal(err)
		}
		out := git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "log", "--format=%H", "--", "p-NONE.ttl")
		first := out[strings.LastIndexByte(out, '\n')+1:]
		if _, err := e.s.Publication(ctx, e.viewer, p.ID, first); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("old version of a NONE publication: %v", err)
		}
	})
	t.Run("CUSTOM", func(t *testing.T) {
		meta := model.PublicationMeta{Name: "custom", VersioningMode: model.Custom}
		if _, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, meta, ttl("<a> <b> 0 .")); !errors.Is(err, model.ErrInvalid) {
			t.Errorf("CUSTOM without label: %v", err)
		}
		meta.VersionLabel = "v1.0"
		p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, meta, ttl("<a> <b> 0 ."))
		if err != nil {
			t.Fatal(err)
		}
		before := e.commits(t, e.repo.ID)
		if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{VersionLabel: ptr("v1.0")}, ptr(ttl("<a> <b> 1 ."))); !errors.Is(err, model.ErrConflict) {
			t.Errorf("duplicate label: %v", err)
		}
		if e.commits(t, e.repo.ID) != before {
			t.Error("a refused update made a commit")
		}
		p, err = e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{VersionLabel: ptr("v1.1")}, ptr(ttl("<a> <b> 1 .")))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Versions) != 2 || p.Versions[0].Label != "v1.0" || p.Versions[1].Label != "v1.1" {
			t.Errorf("versions %+v", p.Versions)
		}
		if v, err := e.s.Publication(ctx, e.viewer, p.ID, "v1.0"); err != nil || v.Version.Label != "v1.0" {
			t.Errorf("by label: %v %v", v.Version, err)
		}
	})
}

func TestInvalidContentIsRefusedAndNothingChanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> <c> ."))
	if err != nil {
		t.Fatal(err)
	}
	head := git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "rev-parse", "main")
	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"create", func() error {
			_, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "q"}, ttl("<a> <b> <c> .\n  BAD"))
			return err
		}},
		{"update", func() error {
			_, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{Description: ptr("x")}, ptr(ttl("<a> <b> <c> .\n  BAD")))
			return err
		}},
	} {
		err := tc.do()
		var ce *model.ContentError
		if !errors.Is(err, model.ErrInvalid) || !errors.As(err, &ce) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if se := ce.Syntax(); se == nil || se.Line != 2 || se.Column != 3 || !strings.HasSuffix(ce.Path, ".ttl") {
			t.Errorf("%s: syntax error %+v at %s", tc.name, se, ce.Path)
		}
		if now := git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "rev-parse", "main"); now != head {
			t.Errorf("%s: head moved", tc.name)
		}
	}
	for _, tc := range []struct {
		name string
		meta model.PublicationMeta
		c    store.Content
		want error
	}{
		{"unknown extension", model.PublicationMeta{Name: "x"}, store.Content{Ext: ".docx"}, model.ErrInvalid},
		{"duplicate name", model.PublicationMeta{Name: "p"}, ttl(""), model.ErrConflict},
		{"bad uri", model.PublicationMeta{Name: "x", PublicationURI: "a/../b"}, ttl(""), model.ErrInvalid},
		{"inside files/", model.PublicationMeta{Name: "x", PublicationURI: "files/x"}, ttl(""), model.ErrInvalid},
		// 75 folders of 64 bytes: the site could not store it (file name too long), and the API accepted it.
		{"uri longer than MaxPathLen", model.PublicationMeta{Name: "x", PublicationURI: strings.Repeat(strings.Repeat("b", 64)+"/", 75) + "x"}, ttl(""), model.ErrInvalid},
		{"unknown mode", model.PublicationMeta{Name: "x", VersioningMode: "WEEKLY"}, ttl(""), model.ErrInvalid},
	} {
		if _, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, tc.meta, tc.c); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestAccessIsChecked(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl(""))
	if err != nil {
		t.Fatal(err)
	}
	q, err := e.s.CreatePublication(ctx, e.pub, e.open.ID, model.PublicationMeta{Name: "q"}, ttl(""))
	if err != nil {
		t.Fatal(err)
	}
	anon := model.Actor{}
	for _, tc := range []struct {
		name string
		do   func() error
		want error
	}{
		{"viewer reads", func() error { _, err := e.s.Publication(ctx, e.viewer, p.ID, ""); return err }, nil},
		{"viewer cannot write", func() error {
			_, err := e.s.CreatePublication(ctx, e.viewer, e.repo.ID, model.PublicationMeta{Name: "z"}, ttl(""))
			return err
		}, model.ErrForbidden},
		{"viewer cannot delete", func() error { _, err := e.s.DeletePublication(ctx, e.viewer, p.ID); return err }, model.ErrForbidden},
		{"outsider sees nothing", func() error { _, err := e.s.Publication(ctx, e.outsider, p.ID, ""); return err }, model.ErrNotFound},
		{"outsider cannot write", func() error {
			_, err := e.s.UpdatePublication(ctx, e.outsider, p.ID, store.PublicationPatch{Description: ptr("x")}, nil)
			return err
		}, model.ErrNotFound},
		{"anyone reads a visible repository", func() error { _, err := e.s.Publication(ctx, anon, q.ID, ""); return err }, nil},
		{"anonymous cannot write", func() error {
			_, err := e.s.UpdatePublication(ctx, anon, q.ID, store.PublicationPatch{Description: ptr("x")}, nil)
			return err
		}, model.ErrUnauthorized},
		{"publisher cannot delete the repository", func() error { _, err := e.s.DeleteRepository(ctx, e.pub, e.repo.ID); return err }, model.ErrForbidden},
	} {
		if err := tc.do(); tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	repos, err := e.s.Repositories(ctx, anon, "")
	if err != nil || len(repos) != 1 || repos[0].ID != e.open.ID {
		t.Errorf("anonymous repositories: %+v %v", repos, err)
	}
}

func TestFilesVersionLikePublications(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	f, err := e.s.AddFile(ctx, e.pub, e.repo.ID, model.FileMeta{Name: "logo.png", VersioningMode: model.Incremental}, []byte("png1"))
	if err != nil {
		t.Fatal(err)
	}
	if f.MimeType != "image/png" || f.Path != "files/logo.png" || f.Size != 4 {
		t.Errorf("added %+v", f)
	}
	if f, err = e.s.UpdateFile(ctx, e.pub, f.ID, store.FilePatch{}, []byte("png22")); err != nil {
		t.Fatal(err)
	}
	if len(f.Versions) != 2 || f.Versions[1].Label != "2" || f.Size != 5 {
		t.Errorf("updated %+v", f)
	}
	_, data, err := e.s.FileContent(ctx, e.viewer, f.ID, "1")
	if err != nil || string(data) != "png1" {
		t.Errorf("version 1: %q %v", data, err)
	}
	if byName, err := e.s.FileByName(ctx, e.viewer, e.repo.ID, "logo.png", "2"); err != nil || byName.ID != f.ID {
		t.Errorf("by name: %+v %v", byName, err)
	}
	if _, err := e.s.AddFile(ctx, e.pub, e.repo.ID, model.FileMeta{Name: "logo.png"}, nil); !errors.Is(err, model.ErrConflict) {
		t.Errorf("duplicate file: %v", err)
	}
	if _, err := e.s.AddFile(ctx, e.pub, e.repo.ID, model.FileMeta{Name: strings.Repeat(strings.Repeat("f", 64)+"/", 75) + "x.png"}, []byte("png")); !errors.Is(err, model.ErrInvalid) {
		t.Errorf("file name longer than MaxPathLen: %v", err)
	}
	// An RDF extension under files/ is a file, not a publication.
	if _, err := e.s.AddFile(ctx, e.pub, e.repo.ID, model.FileMeta{Name: "raw.ttl"}, []byte("BAD")); err != nil {
		t.Errorf("file with RDF extension: %v", err)
	}
	if pubs, _ := e.s.Publications(ctx, e.viewer, e.repo.ID); len(pubs) != 0 {
		t.Errorf("files counted as publications: %+v", pubs)
	}
	if _, err := e.s.DeleteFile(ctx, e.pub, f.ID); err != nil {
		t.Fatal(err)
	}
	if files, _ := e.s.Files(ctx, e.viewer, e.repo.ID); len(files) != 1 {
		t.Errorf("files after delete: %+v", files)
	}
}

func TestConcurrentWritersMakeOneCommitEach(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	shared, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "shared", VersioningMode: model.Incremental}, ttl("<a> <b> 0 ."))
	if err != nil {
		t.Fatal(err)
	}
	before := e.commits(t, e.repo.ID)
	const writers = 32
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				_, err = e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: fmt.Sprintf("p%02d", i)}, ttl(fmt.Sprintf("<a> <b> %d .", i)))
			} else {
				_, err = e.s.UpdatePublication(ctx, e.pub, shared.ID, store.PublicationPatch{}, ptr(ttl(fmt.Sprintf("<a> <b> %d .", i))))
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := e.commits(t, e.repo.ID) - before; got != writers {
		t.Errorf("%d commits for %d writers", got, writers)
	}
	pubs, err := e.s.Publications(ctx, e.viewer, e.repo.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(pubs) != 1+writers/2 {
		t.Errorf("%d publications, want %d", len(pubs), 1+writers/2)
	}
	p, _ := e.s.Publication(ctx, e.viewer, shared.ID, "")
	if len(p.Versions) != 1+writers/2 || p.Version.Label != strconv.Itoa(1+writers/2) {
		t.Errorf("shared publication has %d versions, latest %q", len(p.Versions), p.Version.Label)
	}
	git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "fsck", "--strict")
}

func TestFailureBetweenObjectsAndRefLeavesRepository(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> 1 ."))
	if err != nil {
		t.Fatal(err)
	}
	head := git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "rev-parse", "main")
	crash := errors.New("power cut")
	if err := e.s.SetBeforeRefUpdate(ctx, e.repo.ID, func() error { return crash }); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl("<a> <b> 2 ."))); !errors.Is(err, crash) {
		t.Fatalf("err = %v", err)
	}
	if now := git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "rev-parse", "main"); now != head {
		t.Errorf("head moved to %s", now)
	}
	got, content, err := e.s.PublicationContent(ctx, e.viewer, p.ID, "")
	if err != nil || string(content) != "<a> <b> 1 ." || len(got.Versions) != 1 {
		t.Errorf("after failed write: %q %d versions %v", content, len(got.Versions), err)
	}
	git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "fsck")
}

// TestKilledWriterLeavesConsistentRepository kills a writer process at an arbitrary moment, many times, and checks
// that the repository is always at a whole commit that the store reads back.
func TestKilledWriterLeavesConsistentRepository(t *testing.T) {
	if dir := os.Getenv("LDHUB_STORE_CRASH_CHILD"); dir != "" {
		crashChild(dir, os.Getenv("LDHUB_STORE_CRASH_REPO"))
		return
	}
	if testing.Short() {
		t.Skip("spawns writer processes")
	}
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> 0 .")); err != nil {
		t.Fatal(err)
	}
	e.s.Close()
	last := e.commits(t, e.repo.ID)
	for round := 0; round < 5; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesConsistentRepository$")
		cmd.Env = append(os.Environ(), "LDHUB_STORE_CRASH_CHILD="+e.dir, "LDHUB_STORE_CRASH_REPO="+e.repo.ID)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let the child commit a few times, then kill it somewhere inside a later write.
		lines := bufio.NewScanner(stdout)
		for i := 0; i < 3 && lines.Scan(); i++ {
			if !strings.HasPrefix(lines.Text(), "committed") {
				t.Fatalf("child: %s", lines.Text())
			}
		}
		time.Sleep(time.Duration(round*3) * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "fsck", "--connectivity-only")
		s := openStore(t, e.dir)
		pubs, err := s.Publications(ctx, e.admin, e.repo.ID)
		if err != nil || len(pubs) != 1 {
			t.Fatalf("round %d: %v %+v", round, err, pubs)
		}
		_, content, err := s.PublicationContent(ctx, e.admin, pubs[0].ID, "")
		if err != nil || !bytes.HasPrefix(content, []byte("<a> <b> ")) {
			t.Fatalf("round %d: content %q %v", round, content, err)
		}
		n := e.commits(t, e.repo.ID)
		if len(pubs[0].Versions) != n {
			t.Errorf("round %d: %d versions for %d commits", round, len(pubs[0].Versions), n)
		}
		if n < last+3 {
			t.Errorf("round %d: %d commits, the child made fewer than 3", round, n)
		}
		last = n
		s.Close()
	}
}

func crashChild(dir, repoID string) {
	ctx := context.Background()
	s, err := store.Open(ctx, dir, store.Options{Validate: fakeValidate, HashCost: bcrypt.MinCost, NoWatch: true})
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	pubs, err := s.Publications(ctx, model.SystemActor, repoID)
	if err != nil || len(pubs) != 1 {
		fmt.Println(err)
		os.Exit(2)
	}
	for i := 1; ; i++ {
		body := fmt.Sprintf("<a> <b> %d .\n%s", i, strings.Repeat("# padding\n", i%500))
		if _, err := s.UpdatePublication(ctx, model.SystemActor, pubs[0].ID, store.PublicationPatch{}, ptr(ttl(body))); err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		fmt.Println("committed", i)
	}
}

func TestRebuildFromGitGivesSameIDs(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p", VersioningMode: model.Incremental}, ttl("<a> <b> 1 ."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl("<a> <b> 2 ."))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.AddFile(ctx, e.pub, e.repo.ID, model.FileMeta{Name: "a.pdf"}, []byte("%PDF")); err != nil {
		t.Fatal(err)
	}
	// Content committed without ldhub (no sidecar) gets a name-based id.
	wt := t.TempDir()
	git(t, wt, "clone", "-q", e.s.RepoDir(e.repo.ID), ".")
	os.WriteFile(filepath.Join(wt, "pushed.ttl"), []byte("<x> <y> <z> .\n"), 0o644)
	git(t, wt, "add", ".")
	git(t, wt, "commit", "-qm", "by hand")
	git(t, wt, "push", "-q", "origin", "main")

	snapshot := func(s *store.Store) string {
		var b strings.Builder
		for _, parent := range []string{"", e.group.ID} {
			gs, _ := s.Groups(ctx, e.admin, parent)
			for _, g := range gs {
				fmt.Fprintf(&b, "group %s %s\n", g.ID, g.PathSegment)
			}
		}
		repos, _ := s.Repositories(ctx, e.admin, "")
		for _, r := range repos {
			fmt.Fprintf(&b, "repo %s %s\n", r.ID, r.PathSegment)
			pubs, err := s.Publications(ctx, e.admin, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pubs {
				fmt.Fprintf(&b, " pub %s %s\n", p.ID, p.PublicationURI)
				for _, v := range p.Versions {
					fmt.Fprintf(&b, "  version %s %s %s\n", v.ID, v.Label, v.Commit)
				}
			}
			files, _ := s.Files(ctx, e.admin, r.ID)
			for _, f := range files {
				fmt.Fprintf(&b, " file %s %s %d\n", f.ID, f.Name, len(f.Versions))
			}
		}
		creds, _ := s.Credentials(ctx, e.admin)
		for _, c := range creds {
			fmt.Fprintf(&b, "cred %s\n", c.ID)
		}
		return b.String()
	}
	want := snapshot(e.s)
	if !strings.Contains(want, "pushed") {
		t.Fatalf("the hand-made commit is missing:\n%s", want)
	}
	e.s.Close()
	if got := snapshot(openStore(t, e.dir)); got != want {
		t.Errorf("rebuilt store differs:\n%s\nwant:\n%s", got, want)
	}
}

func TestCommitsBehindTheStoresBackAreAnnounced(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> 1 ."))
	if err != nil {
		t.Fatal(err)
	}
	events := e.s.Subscribe(ctx)
	wt := t.TempDir()
	git(t, wt, "clone", "-q", e.s.RepoDir(e.repo.ID), ".")
	os.WriteFile(filepath.Join(wt, "p.ttl"), []byte("<a> <b> 2 .\n"), 0o644)
	git(t, wt, "commit", "-qam", "edited by hand")
	git(t, wt, "push", "-q", "origin", "main")
	head := git(t, wt, "rev-parse", "HEAD")
	for {
		select {
		case ev := <-events:
			if ev.RepositoryID != e.repo.ID || ev.Commit != head {
				continue
			}
			if len(ev.Items) != 1 || ev.Items[0] != p.ID {
				t.Errorf("event items %v, want [%s]", ev.Items, p.ID)
			}
			got, err := e.s.Publication(ctx, e.viewer, p.ID, "")
			if err != nil || len(got.Versions) != 2 || got.Version.Commit != head || got.Version.Author != "cli" {
				t.Errorf("after the event: %+v %v", got.Version, err)
			}
			return
		case <-ctx.Done():
			t.Fatal("no change event for a commit pushed straight into the bare repository")
		}
	}
}

func TestCatalogueChangesAreAnnounced(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	events := e.s.Subscribe(ctx)
	if _, err := e.s.CreateGroup(ctx, e.admin, model.Group{Name: "new"}); err != nil {
		t.Fatal(err)
	}
	head := git(t, e.dir, "--git-dir", filepath.Join(e.dir, "hub.git"), "rev-parse", "main")
	for {
		select {
		case ev := <-events:
			if ev.RepositoryID == "" && ev.Commit == head {
				return
			}
		case <-ctx.Done():
			t.Fatal("no catalogue event")
		}
	}
}

func TestBrokenSidecarFromBehindTheBackReadsAsDefaults(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p", Description: "d"}, ttl("<a> <b> 1 ."))
	if err != nil {
		t.Fatal(err)
	}
	wt := t.TempDir()
	git(t, wt, "clone", "-q", e.s.RepoDir(e.repo.ID), ".")
	os.WriteFile(filepath.Join(wt, "p.meta.json"), []byte("{not json"), 0o644)
	git(t, wt, "commit", "-qam", "broken sidecar")
	git(t, wt, "push", "-q", "origin", "main")
	pubs, err := e.s.Publications(ctx, e.viewer, e.repo.ID)
	if err != nil || len(pubs) != 1 {
		t.Fatalf("listing: %v %+v", err, pubs)
	}
	// Without its sidecar's id the publication falls back to its name-based id; its content is still served.
	if pubs[0].ID == p.ID || pubs[0].Description != "" || pubs[0].Name != "p" {
		t.Errorf("publication %+v", pubs[0].PublicationMeta)
	}
}

func TestPublicationOrVersion(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> 1 ."))
	if err != nil {
		t.Fatal(err)
	}
	if p, err = e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl("<a> <b> 2 ."))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		actor model.Actor
		id    string
		want  string // version id, "" for an error
	}{
		{"publication id gives the latest", e.viewer, p.ID, p.Versions[1].ID},
		{"version id gives that version", e.viewer, p.Versions[0].ID, p.Versions[0].ID},
		{"outsider sees nothing", e.outsider, p.Versions[0].ID, ""},
		{"unknown id", e.viewer, model.NewID(), ""},
	} {
		got, err := e.s.PublicationOrVersion(ctx, tc.actor, tc.id)
		if tc.want == "" {
			if !errors.Is(err, model.ErrNotFound) {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err != nil || got.Version.ID != tc.want || got.ID != p.ID {
			t.Errorf("%s: %v %v", tc.name, got.Version, err)
		}
	}
}

func TestFirstPublicationOfANewRepositoryIsAnnounced(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	events := e.s.Subscribe(ctx)
	r, err := e.s.CreateRepository(ctx, e.admin, model.Repository{Name: "fresh", ParentID: e.sub.ID})
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.s.CreatePublication(ctx, e.pub, r.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> 1 ."))
	if err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case ev := <-events:
			if ev.RepositoryID == r.ID {
				if len(ev.Items) != 1 || ev.Items[0] != p.ID {
					t.Errorf("event %+v", ev)
				}
				return
			}
		case <-ctx.Done():
			t.Fatal("no event for the first publication of a new repository")
		}
	}
}

func TestPushRefusesBadCommands(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> 1 .")); err != nil {
		t.Fatal(err)
	}
	head := plumbing.NewHash(git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "rev-parse", "main"))
	for _, tc := range []struct {
		name string
		u    store.RefUpdate
		want error
	}{
		{"outside heads and tags", store.RefUpdate{Name: "refs/meta/config", New: head}, model.ErrInvalid},
		{"malformed name", store.RefUpdate{Name: "refs/heads/a..b", New: head}, model.ErrInvalid},
		{"a branch named HEAD", store.RefUpdate{Name: "refs/heads/HEAD", New: head}, model.ErrInvalid},
		{"lock file name", store.RefUpdate{Name: "refs/heads/x.lock", New: head}, model.ErrInvalid},
		{"stale old value", store.RefUpdate{Name: "refs/heads/main", New: head}, model.ErrConflict},
		{"deleting the published branch", store.RefUpdate{Name: "refs/heads/main", Old: head}, model.ErrForbidden},
		{"not a commit", store.RefUpdate{Name: "refs/heads/x", New: plumbing.NewHash("1234567890123456789012345678901234567890")}, model.ErrInvalid},
	} {
		if _, err := e.s.Push(ctx, e.pub, e.repo.ID, nil, []store.RefUpdate{tc.u}, gitrepo.PackLimits{}); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := e.s.Push(ctx, e.viewer, e.repo.ID, nil, []store.RefUpdate{{Name: "refs/heads/x", New: head}}, gitrepo.PackLimits{}); !errors.Is(err, model.ErrForbidden) {
		t.Errorf("viewer push: %v", err)
	}
	if _, err := e.s.Push(ctx, e.pub, e.repo.ID, nil, []store.RefUpdate{{Name: "refs/heads/x", New: head}}, gitrepo.PackLimits{}); err != nil {
		t.Errorf("new branch at a known commit: %v", err)
	}
}

func TestGitGCBehindTheStoresBack(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p"}, ttl("<a> <b> 1 ."))
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 3; i++ {
		if p, err = e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl(fmt.Sprintf("<a> <b> %d .", i)))); err != nil {
			t.Fatal(err)
		}
	}
	// Everything moves into a pack the store has never seen, and the loose objects and refs go.
	git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "gc", "-q", "--prune=now")
	for i, v := range p.Versions {
		_, content, err := e.s.PublicationContent(ctx, e.viewer, p.ID, v.ID)
		if err != nil || string(content) != fmt.Sprintf("<a> <b> %d .", i+1) {
			t.Errorf("version %d after gc: %q %v", i+1, content, err)
		}
	}
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl("<a> <b> 4 ."))); err != nil {
		t.Errorf("write after gc: %v", err)
	}
	git(t, e.dir, "--git-dir", e.s.RepoDir(e.repo.ID), "fsck")
}
