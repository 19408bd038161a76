package store_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/gitrepo"
	"github.com/ldhub/ldhub/content/store/internal/gittest"
)

// scratchRepo is a git repository to craft objects in.
func scratchRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required:", err)
	}
	dir := t.TempDir()
	gittest.Must(t, dir, dir, "", "init", "-q")
	return dir
}

// TestCraftedTreesRefusedByStore pushes each crafted tree straight into the store (no HTTP): the refusal names the
// path, nothing moves, and no other repository changes.
func TestCraftedTreesRefusedByStore(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.s.CreatePublication(ctx, e.pub, e.open.ID, model.PublicationMeta{Name: "pub"}, ttl("<a> <b> 1 .")); err != nil {
		t.Fatal(err)
	}
	otherBefore := gitOut(t, e, e.open.ID, "rev-parse", "main")
	dir := scratchRepo(t)
	for _, bt := range gittest.BadTrees() {
		t.Run(bt.Name, func(t *testing.T) {
			commit := gittest.Commit(t, dir, bt.Build(t, dir))
			pack := gittest.Pack(t, dir, commit)
			for _, ref := range []plumbing.ReferenceName{gitrepo.Branch, "refs/heads/side", "refs/tags/x"} {
				_, err := e.s.Push(ctx, e.pub, e.repo.ID, bytes.NewReader(pack),
					[]store.RefUpdate{{Name: ref, New: plumbing.NewHash(commit)}}, gitrepo.PackLimits{})
				if !errors.Is(err, model.ErrInvalid) || !strings.Contains(err.Error(), bt.Says) {
					t.Errorf("%s: %v, want a refusal saying %s", ref, err, bt.Says)
				}
			}
			if refs := gitOut(t, e, e.repo.ID, "for-each-ref"); refs != "" {
				t.Errorf("refs after a refused push:\n%s", refs)
			}
		})
	}
	if got := gitOut(t, e, e.open.ID, "rev-parse", "main"); got != otherBefore {
		t.Errorf("another repository moved: %s -> %s", otherBefore, got)
	}
	pubs, err := e.s.Publications(ctx, e.admin, e.repo.ID)
	if err != nil || len(pubs) != 0 {
		t.Errorf("publications after refused pushes: %v %v", pubs, err)
	}
}

func gitOut(t *testing.T, e *env, repoID string, args ...string) string {
	t.Helper()
	return gittest.Must(t, e.dir, e.dir, "", append([]string{"--git-dir", e.s.RepoDir(repoID)}, args...)...)
}

// TestPushLimitsByStore: a pack over a limit is refused while it streams, and nothing of it is stored.
func TestPushLimitsByStore(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	dir := scratchRepo(t)
	big := gittest.Blob(t, dir, strings.Repeat("<a> <b> <c> .\n", 100_000)) // 1.4 MB, a few KB packed
	small := gittest.Blob(t, dir, "<a> <b> <c> .\n")
	var many []gittest.Entry
	for i := 0; i < 30; i++ {
		many = append(many, gittest.Entry{Mode: "100644", Name: strings.Repeat("x", i+1) + ".txt", Hash: gittest.Blob(t, dir, strings.Repeat("y", i+1))})
	}
	for _, tc := range []struct {
		name string
		tree string
		lim  gitrepo.PackLimits
		says string
	}{
		{"one object over the per-file limit", gittest.Tree(t, dir, gittest.Entry{Mode: "100644", Name: "big.ttl", Hash: big}),
			gitrepo.PackLimits{MaxObject: 1 << 20}, "limit of 1048576 per file"},
		{"a push over the total limit", gittest.Tree(t, dir, gittest.Entry{Mode: "100644", Name: "big.ttl", Hash: big}, gittest.Entry{Mode: "100644", Name: "small.ttl", Hash: small}),
			gitrepo.PackLimits{MaxTotal: 1 << 20}, "limit of 1048576 bytes"},
		{"too many objects", gittest.Tree(t, dir, many...),
			gitrepo.PackLimits{MaxObjects: 20}, "more than the limit of 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			commit := gittest.Commit(t, dir, tc.tree)
			pack := gittest.Pack(t, dir, commit)
			packsBefore := gitOut(t, e, e.repo.ID, "count-objects", "-v")
			_, err := e.s.Push(ctx, e.pub, e.repo.ID, bytes.NewReader(pack),
				[]store.RefUpdate{{Name: gitrepo.Branch, New: plumbing.NewHash(commit)}}, tc.lim)
			if !errors.Is(err, model.ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("push of %d bytes: %v, want a refusal saying %q", len(pack), err, tc.says)
			}
			if after := gitOut(t, e, e.repo.ID, "count-objects", "-v"); after != packsBefore {
				t.Errorf("objects stored by a refused push:\n%s\nthen\n%s", packsBefore, after)
			}
			// Within the limits the same pack is taken.
			if _, err := e.s.Push(ctx, e.pub, e.repo.ID, bytes.NewReader(pack),
				[]store.RefUpdate{{Name: plumbing.ReferenceName("refs/heads/" + strings.ReplaceAll(tc.name, " ", "-")), New: plumbing.NewHash(commit)}}, gitrepo.PackLimits{}); err != nil {
				t.Errorf("the same push within the default limits: %v", err)
			}
		})
	}
}
