package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

func labels(vs []model.Version) string {
	var ls []string
	for _, v := range vs {
		ls = append(ls, v.Label)
	}
	return strings.Join(ls, ",")
}

// TestRetractVersion: a version delete is one commit recording the retraction in the sidecar; the version is no
// longer listed or served, its label is never reused, the others keep their ids, and a rebuild from git agrees.
func TestRetractVersion(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	repoDir := e.s.RepoDir(e.repo.ID)
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "p", VersioningMode: model.Incremental}, ttl("<a> <b> 1 .\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl("<a> <b> 2 .\n"))); err != nil {
		t.Fatal(err)
	}
	// The third version changes the syntax, so retracting it must also put the file back under its old name.
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &store.Content{Ext: ".nt", Data: []byte("<a> <b> \"3\" .\n")}); err != nil {
		t.Fatal(err)
	}
	before, err := e.s.Publication(ctx, e.viewer, p.ID, "")
	if err != nil || labels(before.Versions) != "1,2,3" {
		t.Fatalf("before: %v %v", labels(before.Versions), err)
	}
	ids := map[string]string{}
	for _, v := range before.Versions {
		ids[v.Label] = v.ID
	}

	// Who may: a viewer sees but may not change (403); an outsider does not see (404).
	if _, err := e.s.RetractVersion(ctx, e.viewer, p.ID, "2"); !errors.Is(err, model.ErrForbidden) {
		t.Errorf("viewer: %v, want forbidden", err)
	}
	if _, err := e.s.RetractVersion(ctx, e.outsider, p.ID, "2"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("outsider: %v, want not found", err)
	}
	if _, err := e.s.RetractVersion(ctx, e.pub, p.ID, "9"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("unknown version: %v, want not found", err)
	}
	commits := e.commits(t, e.repo.ID)

	// A version in the middle: only the sidecar changes.
	gone, err := e.s.RetractVersion(ctx, e.pub, p.ID, ids["2"])
	if err != nil {
		t.Fatal(err)
	}
	if gone.Version.Label != "2" {
		t.Errorf("answer names version %q, want 2", gone.Version.Label)
	}
	if n := e.commits(t, e.repo.ID); n != commits+1 {
		t.Errorf("%d commits, want one more than %d", n, commits)
	}
	if msg := git(t, e.dir, "--git-dir", repoDir, "log", "-1", "--format=%an|%s"); msg != "publisher|Retract version 2 of publication p" {
		t.Errorf("retraction commit %q", msg)
	}
	got, err := e.s.Publication(ctx, e.viewer, p.ID, "")
	if err != nil || labels(got.Versions) != "1,3" || labels(got.Retracted) != "2" || got.Version.Label != "3" {
		t.Fatalf("after retracting 2: versions %s retracted %s latest %s %v", labels(got.Versions), labels(got.Retracted), got.Version.Label, err)
	}
	for _, ref := range []string{"2", ids["2"], before.Versions[1].Commit} {
		if _, err := e.s.Publication(ctx, e.viewer, p.ID, ref); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("version %s after retraction: %v, want not found", ref, err)
		}
	}
	if _, err := e.s.PublicationOrVersion(ctx, e.viewer, ids["2"]); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("version id after retraction: %v, want not found", err)
	}
	if _, _, err := e.s.PublicationContent(ctx, e.viewer, p.ID, "2"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("content of the retracted version: %v, want not found", err)
	}
	if _, err := e.s.RetractVersion(ctx, e.pub, p.ID, "2"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("retracting again: %v, want not found", err)
	}

	// The latest version: the previous one becomes the latest, and its content is back in the tree.
	if _, err := e.s.RetractVersion(ctx, e.pub, p.ID, "3"); err != nil {
		t.Fatal(err)
	}
	got, content, err := e.s.PublicationContent(ctx, e.viewer, p.ID, "")
	if err != nil || labels(got.Versions) != "1" || got.Version.ID != ids["1"] || string(content) != "<a> <b> 1 .\n" {
		t.Fatalf("after retracting 3: versions %s latest %s %q %v", labels(got.Versions), got.Version.Label, content, err)
	}
	if tree := git(t, e.dir, "--git-dir", repoDir, "ls-tree", "-r", "--name-only", "main"); tree != "p.meta.json\np.ttl" {
		t.Errorf("tree after retracting the latest:\n%s", tree)
	}
	if c := git(t, e.dir, "--git-dir", repoDir, "show", "main:p.ttl"); c != "<a> <b> 1 ." {
		t.Errorf("p.ttl at the head: %q", c)
	}
	if sidecar := git(t, e.dir, "--git-dir", repoDir, "show", "main:p.meta.json"); !strings.Contains(sidecar, `"retractedVersions"`) || !strings.Contains(sidecar, before.Versions[2].Commit) {
		t.Errorf("sidecar does not record the retraction:\n%s", sidecar)
	}

	// The only version left cannot go: that is deleting the publication.
	_, err = e.s.RetractVersion(ctx, e.pub, p.ID, "1")
	if !errors.Is(err, model.ErrConflict) || !strings.Contains(err.Error(), "delete the publication instead") {
		t.Errorf("retracting the only version: %v, want a conflict saying to delete the publication", err)
	}

	// A later version never reuses a retracted label; CUSTOM refuses one.
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, ptr(ttl("<a> <b> 4 .\n"))); err != nil {
		t.Fatal(err)
	}
	got, err = e.s.Publication(ctx, e.viewer, p.ID, "")
	if err != nil || labels(got.Versions) != "1,4" || got.Versions[0].ID != ids["1"] {
		t.Errorf("after a new upload: %s %v", labels(got.Versions), err)
	}
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{VersioningMode: ptr(model.Custom), VersionLabel: ptr("3")}, ptr(ttl("<a> <b> 5 .\n"))); !errors.Is(err, model.ErrConflict) {
		t.Errorf("a CUSTOM label of a retracted version: %v, want conflict", err)
	}
	// Meta-data updates keep the retractions.
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{Description: ptr("still")}, nil); err != nil {
		t.Fatal(err)
	}

	want, _ := e.s.Publication(ctx, e.viewer, p.ID, "")
	e.s.Close()
	rebuilt, err := openStore(t, e.dir).Publication(ctx, e.viewer, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if describe(rebuilt) != describe(want) {
		t.Errorf("rebuilt from git:\n%s\nwant:\n%s", describe(rebuilt), describe(want))
	}
	git(t, e.dir, "--git-dir", repoDir, "fsck", "--strict")
}

func describe(p model.Publication) string {
	var b strings.Builder
	for _, set := range [][]model.Version{p.Versions, p.Retracted} {
		for _, v := range set {
			b.WriteString(v.ID + " " + v.Label + " " + v.Commit + "\n")
		}
		b.WriteString("--\n")
	}
	return b.String() + p.Version.ID
}
