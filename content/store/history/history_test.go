package history

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
	"github.com/ldhub/ldhub/content/store/internal/gittest"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		path string
		kind Kind
		name string
		meta bool
	}{
		{"core.ttl", Publication, "core", false},
		{"otl/2024/core.TTL", Publication, "otl/2024/core", false},
		{"core.meta.json", Publication, "core", true},
		{"data.trig", Publication, "data", false},
		{"README.md", 0, "", false},
		{"core.json", 0, "", false},
		{"files/logo.png", File, "logo.png", false},
		{"files/raw.ttl", File, "raw.ttl", false},
		{"files/logo.png.meta.json", File, "logo.png", true},
	} {
		kind, name, meta := Classify(tc.path)
		if kind != tc.kind || name != tc.name || meta != tc.meta {
			t.Errorf("Classify(%q) = %v %q %v", tc.path, kind, name, meta)
		}
	}
}

func TestUnique(t *testing.T) {
	vs := func(labels ...string) []model.Version {
		var out []model.Version
		for _, l := range labels {
			out = append(out, model.Version{Label: l})
		}
		return out
	}
	for _, tc := range []struct {
		label   string
		prev    []model.Version
		numeric bool
		want    string
	}{
		{"abc1234", vs("x"), false, "abc1234"},
		{"20261122T101530Z", vs("20261122T101530Z"), false, "20261122T101530Z-2"},
		{"20261122T101530Z", vs("20261122T101530Z", "20261122T101530Z-2"), false, "20261122T101530Z-3"},
		{"1000", vs("1000", "1001"), true, "1002"},
	} {
		if got := unique(tc.label, tc.prev, tc.numeric); got != tc.want {
			t.Errorf("unique(%q) = %q, want %q", tc.label, got, tc.want)
		}
	}
}

type repo struct {
	t   *testing.T
	r   *gitrepo.Repo
	now time.Time
}

func newRepo(t *testing.T) *repo {
	r, err := gitrepo.Init(filepath.Join(t.TempDir(), "r.git"))
	if err != nil {
		t.Fatal(err)
	}
	return &repo{t: t, r: r, now: time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)}
}

func (r *repo) commit(files map[string]string) string {
	r.t.Helper()
	r.now = r.now.Add(time.Second)
	h, err := r.r.Transact(context.Background(), func(tx *gitrepo.Tx) error {
		for p, c := range files {
			if c == "" {
				tx.Delete(p)
			} else {
				tx.Put(p, []byte(c))
			}
		}
		tx.Author = gitrepo.Signature{Name: "t", Email: "t@x", When: r.now}
		tx.Message = "m"
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

func labels(it *Item) string {
	var ls []string
	for _, v := range it.Versions {
		ls = append(ls, v.Label)
	}
	return strings.Join(ls, " ")
}

func TestVersionsFollowContentChangesOnly(t *testing.T) {
	r := newRepo(t)
	ix := New(r.r, "repo-1", nil)
	ctx := context.Background()
	meta := func(mode, label string) string {
		return fmt.Sprintf(`{"id": "pub-1", "versioningMode": %q, "versionLabel": %q}`, mode, label)
	}
	r.commit(map[string]string{"core.ttl": "1", "core.meta.json": meta("INCREMENTAL", "")})
	r.commit(map[string]string{"core.meta.json": meta("INCREMENTAL", "") + " "}) // meta only: no version
	r.commit(map[string]string{"core.ttl": "2", "other.nt": "x"})
	snap, err := ix.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := snap.Item("pub-1")
	if !ok || labels(it) != "1 2" {
		t.Fatalf("versions %v %v", ok, it)
	}
	// A publication without a sidecar gets its name-based id.
	other, ok := snap.ByName(Publication, "other")
	if !ok || other.ID != DefaultID("repo-1", Publication, "other") {
		t.Errorf("other: %+v", other)
	}
	// Only the new commits are indexed, and the snapshot says what they changed.
	r.commit(map[string]string{"core.ttl": "3", "core.meta.json": meta("DATE_TIME", "")})
	snap2, err := ix.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	it2, _ := snap2.Item("pub-1")
	if labels(it2) != "1 2 20261122T101534Z" || strings.Join(snap2.Changed, ",") != "pub-1" {
		t.Errorf("after one more commit: %s, changed %v", labels(it2), snap2.Changed)
	}
	if labels(it) != "1 2" {
		t.Errorf("an older snapshot changed: %s", labels(it))
	}
	// Version ids depend only on the publication id and the commit.
	for _, v := range it2.Versions {
		if v.ID != model.NameID("pub-1", v.Commit) {
			t.Errorf("version id %s", v.ID)
		}
	}
	// A rebuilt index agrees.
	snap3, err := New(r.r, "repo-1", nil).Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	it3, _ := snap3.Item("pub-1")
	if fmt.Sprint(it3.Versions) != fmt.Sprint(it2.Versions) {
		t.Errorf("rebuilt:\n%v\nincremental:\n%v", it3.Versions, it2.Versions)
	}
	// Deleting the content removes the publication and names it as changed.
	r.commit(map[string]string{"core.ttl": "", "core.meta.json": ""})
	snap4, err := ix.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap4.Item("pub-1"); ok || strings.Join(snap4.Changed, ",") != "pub-1" {
		t.Errorf("after delete: changed %v", snap4.Changed)
	}
}

func TestCustomLabelsFromSidecarAndTags(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	meta := func(label string) string {
		return fmt.Sprintf(`{"id": "p", "versioningMode": "CUSTOM", "versionLabel": %q}`, label)
	}
	r.commit(map[string]string{"core.ttl": "1", "core.meta.json": meta("v1")})
	second := r.commit(map[string]string{"core.ttl": "2"}) // label unchanged: a tag names it
	cmd := exec.Command("git", "--git-dir", r.r.Dir(), "tag", "core/v2", second)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	third := r.commit(map[string]string{"core.ttl": "3"}) // neither: the label repeats and is made unique
	ix := New(r.r, "x", nil)
	snap, err := ix.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	it, _ := snap.Item("p")
	if got := labels(it); got != "v1 v2 v1-2" {
		t.Errorf("labels %q", got)
	}
	// A tag made later renames the version once the index is invalidated, as a fresh start would.
	cmd = exec.Command("git", "--git-dir", r.r.Dir(), "tag", "core/v3", third)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	ix.Invalidate()
	if snap, err = ix.Current(ctx); err != nil {
		t.Fatal(err)
	}
	it, _ = snap.Item("p")
	if got := labels(it); got != "v1 v2 v3" {
		t.Errorf("labels after the new tag %q", got)
	}
	if v, ok := it.Find(third[:8]); !ok || v.Commit != third {
		t.Errorf("find by commit prefix: %v %v", v, ok)
	}
}

func TestMergedBranchesAreVersionsOfTheMerge(t *testing.T) {
	r := newRepo(t)
	base := r.commit(map[string]string{"a.ttl": "1", "b.ttl": "1"})
	// A side branch changes b; main changes a; then a merge commit joins them.
	dir := r.r.Dir()
	run := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	r.commit(map[string]string{"a.ttl": "2"})
	mainTip := run("rev-parse", "main")
	if err := r.r.UpdateRef("refs/heads/side", [20]byte{}, mustHash(t, base)); err != nil {
		t.Fatal(err)
	}
	wt := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = wt
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "HOME="+wt)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("clone", "-q", "-b", "side", dir, ".")
	if err := writeFile(filepath.Join(wt, "b.ttl"), "2"); err != nil {
		t.Fatal(err)
	}
	git("commit", "-qam", "side change")
	git("fetch", "-q", "origin", "main")
	git("merge", "-q", "--no-edit", "origin/main")
	merge := git("rev-parse", "HEAD")
	git("push", "-q", "origin", "HEAD:main")
	snap, err := New(r.r, "x", nil).Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := snap.ByName(Publication, "a")
	b, _ := snap.ByName(Publication, "b")
	// Each change is a version of the commit that made it; the merge that joins them adds none.
	if len(a.Versions) != 2 || a.Latest().Commit != mainTip {
		t.Errorf("a: %v (main tip %s, merge %s)", a.Versions, mainTip, merge)
	}
	if len(b.Versions) != 2 || b.Latest().Commit == merge || b.Latest().Commit == mainTip {
		t.Errorf("b: %v", b.Versions)
	}
}

func TestResetBehindTheBackRebuilds(t *testing.T) {
	r := newRepo(t)
	ix := New(r.r, "x", nil)
	ctx := context.Background()
	first := r.commit(map[string]string{"a.ttl": "1"})
	r.commit(map[string]string{"a.ttl": "2"})
	if snap, err := ix.Current(ctx); err != nil || len(snap.Items(Publication)[0].Versions) != 2 {
		t.Fatalf("%v", err)
	}
	if err := r.r.UpdateRef(gitrepo.Branch, mustHash(t, mustRef(t, r)), mustHash(t, first)); err != nil {
		t.Fatal(err)
	}
	snap, err := ix.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if vs := snap.Items(Publication)[0].Versions; len(vs) != 1 || vs[0].Commit != first {
		t.Errorf("after reset: %v", vs)
	}
}

func mustRef(t *testing.T, r *repo) string {
	h, err := r.r.Head()
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// TestCraftedPathsBehindTheBackAreNotIndexed: a tree written into the repository behind the hub's back (the git CLI
// on the server; pushes refuse it) whose names hold "/", ".." or a hidden segment gives no item, so nothing is
// rendered outside the repository's folder.
func TestCraftedPathsBehindTheBackAreNotIndexed(t *testing.T) {
	r := newRepo(t)
	ix := New(r.r, "x", nil)
	head := r.commit(map[string]string{"a.ttl": "1"})
	dir := r.r.Dir()
	blob := gittest.Blob(t, dir, "<a> <b> <c> .\n")
	up := gittest.Tree(t, dir, gittest.Entry{Mode: "100644", Name: "x.ttl", Hash: blob})
	tree := gittest.Tree(t, dir,
		gittest.Entry{Mode: "100644", Name: "../../othergroup/repo/pub.ttl", Hash: blob},
		gittest.Entry{Mode: "100644", Name: "a/../b.ttl", Hash: blob},
		gittest.Entry{Mode: "100644", Name: ".hidden.ttl", Hash: blob},
		gittest.Entry{Mode: "40000", Name: "..", Hash: up},
		gittest.Entry{Mode: "100644", Name: "ok.ttl", Hash: blob})
	commit := gittest.Commit(t, dir, tree, head)
	gittest.Must(t, dir, dir, "", "update-ref", "refs/heads/main", commit)
	r.r.InvalidateHead()
	snap, err := ix.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range snap.Items(Publication) {
		names = append(names, it.Name+"@"+it.Path)
	}
	if got := strings.Join(names, " "); got != "ok@ok.ttl" {
		t.Errorf("publications indexed: %s", got)
	}
}

// TestDeletedAndAddedBackStartsAfresh: content deleted from the branch and added back at the same path later is a
// new publication (or file) whose history starts at the re-add, as a REST delete and a new upload give; its old
// versions used to come back with it. Content that only changes its extension in one commit keeps its history.
func TestDeletedAndAddedBackStartsAfresh(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	ix := New(r.r, "repo-1", nil)
	r.commit(map[string]string{"core.ttl": "1", "files/logo.png": "a"})
	r.commit(map[string]string{"core.ttl": "2", "files/logo.png": "b"})
	if _, err := ix.Current(ctx); err != nil { // indexed in two steps, as a hub does between pushes
		t.Fatal(err)
	}
	r.commit(map[string]string{"core.ttl": "", "files/logo.png": ""})
	readd := r.commit(map[string]string{"core.ttl": "3", "files/logo.png": "c"})
	moved := r.commit(map[string]string{"core.ttl": "", "core.rdf": "4"})
	for _, x := range []*Index{ix, New(r.r, "repo-1", nil)} { // incremental and rebuilt alike
		snap, err := x.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		core, ok := snap.ByName(Publication, "core")
		if !ok || labels(core) != readd[:7]+" "+moved[:7] {
			t.Errorf("core's versions after it was deleted, added back and moved to .rdf: %v, want %s %s", labels(core), readd[:7], moved[:7])
		}
		logo, ok := snap.ByName(File, "logo.png")
		if !ok || labels(logo) != readd[:7] {
			t.Errorf("logo.png's versions after it was deleted and added back: %v, want %s", labels(logo), readd[:7])
		}
	}
}
