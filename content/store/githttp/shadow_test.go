package githttp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 15: a push is held to the API's rules for publication names: none below another publication (whose
// versions and resources own those URLs), none with another below it, no reserved segment.
func TestPushCannotShadowPublications(t *testing.T) {
	h := newHub(t)
	dir := t.TempDir()
	wt := filepath.Join(dir, "wt")
	mustGit(t, dir, "clone", "-q", h.url("private", &h.publisher), "wt")
	before := mustGit(t, wt, "rev-parse", "HEAD")
	for _, tc := range []struct{ file, want string }{
		{"core/versions/3c5afce.ttl", "reserved"},
		{"core/Thing.ttl", `below publication "core"`},
		{"index.html.ttl", "reserved"},
	} {
		mustGit(t, wt, "reset", "-q", "--hard", before)
		p := filepath.Join(wt, filepath.FromSlash(tc.file))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("<a> <b> <c> .\n"), 0o644)
		mustGit(t, wt, "add", ".")
		mustGit(t, wt, "commit", "-qm", "shadow")
		if out, err := git(t, wt, "push", "origin", "main"); err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("push of %s: %v, want a refusal naming %q\n%s", tc.file, err, tc.want, out)
		}
	}
	// The other direction: a new publication whose URL has existing publications below it.
	mustGit(t, wt, "reset", "-q", "--hard", before)
	os.MkdirAll(filepath.Join(wt, "lib"), 0o755)
	os.WriteFile(filepath.Join(wt, "lib", "a.ttl"), []byte("<a> <b> <c> .\n"), 0o644)
	mustGit(t, wt, "add", ".")
	mustGit(t, wt, "commit", "-qm", "lib/a")
	if out, err := git(t, wt, "push", "origin", "main"); err != nil {
		t.Fatalf("push of lib/a: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(wt, "lib.ttl"), []byte("<a> <b> <c> .\n"), 0o644)
	mustGit(t, wt, "add", ".")
	mustGit(t, wt, "commit", "-qm", "lib")
	if out, err := git(t, wt, "push", "origin", "main"); err == nil || !strings.Contains(out, "below it") {
		t.Errorf("push of lib.ttl above lib/a.ttl: %v\n%s", err, out)
	}
}
