package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestTxObjectsAreWhatTheCommitWrote: the objects a transaction makes durable (instead of syncfs) are exactly the
// new commit, the trees on its changed paths and its changed blobs (git itself names them), each stored loose;
// deleted paths and untouched folders add nothing.
func TestTxObjectsAreWhatTheCommitWrote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	r, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := r.Transact(ctx, func(tx *Tx) error {
		tx.Put("a/b/c.nt", []byte("<x> <y> <z> .\n"))
		tx.Put("keep/k.nt", []byte("<k> <k> <k> .\n"))
		tx.Put("top.txt", []byte("top\n"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var changes map[string]*[]byte
	head, err := r.Transact(ctx, func(tx *Tx) error {
		tx.Put("a/b/c.nt", []byte("<x> <y> <w> .\n"))
		tx.Delete("top.txt")
		tx.Put("x/y.nt", []byte("<n> <e> <w> .\n"))
		changes = tx.changes
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rev := func(spec string) plumbing.Hash { return plumbing.NewHash(gitCLI(t, dir, "rev-parse", spec)) }
	want := []plumbing.Hash{head, rev("main^{tree}"), rev("main:a"), rev("main:a/b"), rev("main:a/b/c.nt"),
		rev("main:x"), rev("main:x/y.nt")}
	got, err := r.txObjects(head, rev("main^{tree}"), changes)
	if err != nil {
		t.Fatal(err)
	}
	str := func(hs []plumbing.Hash) []string {
		var s []string
		for _, h := range hs {
			s = append(s, h.String())
		}
		slices.Sort(s)
		return s
	}
	if g, w := str(got), str(want); !slices.Equal(g, w) {
		t.Fatalf("objects synced:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	for _, h := range got {
		if _, err := os.Stat(r.loosePath(h)); err != nil {
			t.Errorf("%s is not a loose object: %v", h, err)
		}
	}
	if err := r.syncTx(got); err != nil {
		t.Fatal(err)
	}
}
