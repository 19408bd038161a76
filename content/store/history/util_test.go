package history

import (
	"os"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func mustHash(t *testing.T, s string) plumbing.Hash {
	t.Helper()
	h := plumbing.NewHash(s)
	if h.IsZero() {
		t.Fatalf("bad hash %q", s)
	}
	return h
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
