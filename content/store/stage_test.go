package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

// largeTTL is content above the size from which the store writes the blob while it validates.
func largeTTL(seed string, bad bool) store.Content {
	var b bytes.Buffer
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "<http://example.org/%s/%d> <http://example.org/p> \"%d\" .\n", seed, i, i)
		if bad && i == 20000 {
			b.WriteString("  BAD\n")
		}
	}
	return store.Content{Ext: ".ttl", Data: b.Bytes()}
}

// objectFiles lists every file under a repository's objects folder, temporary ones included.
func objectFiles(t *testing.T, gitDir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(gitDir, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestLargeUploadIsWrittenWhileValidated(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	gitDir := e.s.RepoDir(e.repo.ID)
	good := largeTTL("a", false)
	p, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "big"}, good)
	if err != nil {
		t.Fatal(err)
	}
	blob := git(t, e.dir, "--git-dir", gitDir, "rev-parse", "main:big.ttl")
	git(t, e.dir, "--git-dir", gitDir, "fsck", "--strict")
	if n := git(t, e.dir, "--git-dir", gitDir, "cat-file", "-s", blob); n != fmt.Sprint(len(good.Data)) {
		t.Fatalf("committed blob has %s bytes, want %d", n, len(good.Data))
	}
	_, content, err := e.s.PublicationContent(ctx, e.viewer, p.ID, "")
	if err != nil || !bytes.Equal(content, good.Data) {
		t.Fatalf("content: %d bytes, %v", len(content), err)
	}
	head := git(t, e.dir, "--git-dir", gitDir, "rev-parse", "main")
	before := objectFiles(t, gitDir)

	// Refused uploads, new and as a new version, leave neither a commit nor an object nor a temporary file.
	bad := largeTTL("b", true)
	if _, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{Name: "bad"}, bad); !errors.Is(err, model.ErrInvalid) {
		t.Fatalf("create with bad content: %v", err)
	}
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &bad); !errors.Is(err, model.ErrInvalid) {
		t.Fatalf("update with bad content: %v", err)
	}
	if now := git(t, e.dir, "--git-dir", gitDir, "rev-parse", "main"); now != head {
		t.Error("a refused upload moved the branch")
	}
	if after := objectFiles(t, gitDir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("a refused upload left files under objects/:\nbefore %v\nafter  %v", before, after)
	}

	// The same bytes again are no new version (the staged blob's hash is what is compared); other bytes are.
	if _, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &good); err != nil {
		t.Fatal(err)
	}
	if now := git(t, e.dir, "--git-dir", gitDir, "rev-parse", "main"); now != head {
		t.Error("the same content again made a commit")
	}
	if after := objectFiles(t, gitDir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the same content again left files under objects/: %v", after)
	}
	next := largeTTL("c", false)
	got, err := e.s.UpdatePublication(ctx, e.pub, p.ID, store.PublicationPatch{}, &next)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Versions) != 2 {
		t.Errorf("%d versions after a new upload, want 2", len(got.Versions))
	}
	git(t, e.dir, "--git-dir", gitDir, "fsck", "--strict")
	if n := git(t, e.dir, "--git-dir", gitDir, "cat-file", "-s", "main:big.ttl"); n != fmt.Sprint(len(next.Data)) {
		t.Errorf("new version's blob has %s bytes, want %d", n, len(next.Data))
	}
}
