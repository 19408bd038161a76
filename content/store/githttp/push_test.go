package githttp_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
	"github.com/ldhub/ldhub/content/store/internal/gittest"
)

// newRepo creates an empty repository in the hub's group and returns its id.
func (h *hub) newRepo(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	r, err := h.s.CreateRepository(ctx, model.SystemActor, model.Repository{Name: name, ParentID: h.private.ParentID})
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func (h *hub) pubs(t *testing.T, repoID string) string {
	t.Helper()
	pubs, err := h.s.Publications(context.Background(), model.SystemActor, repoID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pubs {
		out = append(out, fmt.Sprintf("%s:%s", p.PublicationURI, p.Version.Label))
	}
	return strings.Join(out, " ")
}

func write(t *testing.T, p, data string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustContain(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s: output lacks %q:\n%s", what, w, out)
		}
	}
}

// TestEmptyCloneAndPlainPush is a new publisher's first day, with git's default branch and with main: clone the
// empty repository, commit, `git push` with no arguments. The push publishes, says what it published, and the
// branch it came from is the repository's published branch from then on.
func TestEmptyCloneAndPlainPush(t *testing.T) {
	h := newHub(t)
	for _, branch := range []string{"master", "main"} {
		t.Run(branch, func(t *testing.T) {
			home := t.TempDir()
			if branch == "main" {
				write(t, filepath.Join(home, ".gitconfig"), "[init]\n\tdefaultBranch = main\n")
			}
			repoID := h.newRepo(t, "empty-"+branch)
			url := h.url("empty-"+branch, &h.publisher)
			out := mustGit(t, home, "clone", url, "wt")
			mustContain(t, "clone", out, "You appear to have cloned an empty repository")
			wt := filepath.Join(home, "wt")
			write(t, filepath.Join(wt, "core.ttl"), "<a> <b> <c> .\n")
			mustGit(t, wt, "add", ".")
			mustGit(t, wt, "commit", "-m", "first")
			out = mustGit(t, wt, "push")
			t.Logf("git push prints:\n%s", out)
			mustContain(t, "first push", out,
				"remote: ldhub: new publication "+h.srv.URL+"/org/empty-"+branch+"/core version ",
				"* [new branch]      "+branch+" -> "+branch)
			if got := h.pubs(t, repoID); !strings.HasPrefix(got, "core:") {
				t.Fatalf("publications after the first push: %q", got)
			}
			if got := mustGit(t, wt, "ls-remote", "--symref", "origin", "HEAD"); !strings.HasPrefix(got, "ref: refs/heads/"+branch+"\tHEAD") {
				t.Errorf("HEAD after the first push: %s", got)
			}
			// The next push is a new version, and says so.
			write(t, filepath.Join(wt, "core.ttl"), "<a> <b> <d> .\n")
			mustGit(t, wt, "commit", "-am", "second")
			out = mustGit(t, wt, "push")
			mustContain(t, "second push", out, "remote: ldhub: new version "+h.srv.URL+"/org/empty-"+branch+"/core version ")
			// A fresh clone checks out the published branch.
			home2 := t.TempDir()
			mustGit(t, home2, "clone", "-q", url, "again")
			if got := mustGit(t, filepath.Join(home2, "again"), "branch", "--show-current"); got != branch {
				t.Errorf("a second clone is on %q", got)
			}
			// Another branch is stored but not published, and the push says so; it can be rewritten.
			published := h.pubs(t, repoID)
			mustGit(t, wt, "checkout", "-q", "-b", "draft")
			write(t, filepath.Join(wt, "core.ttl"), "<a> <b> <e> .\n")
			mustGit(t, wt, "commit", "-am", "draft")
			out = mustGit(t, wt, "push", "-u", "origin", "draft")
			mustContain(t, "push of another branch", out, "remote: ldhub: draft is stored but not published: this repository publishes branch "+branch)
			mustGit(t, wt, "commit", "--amend", "-m", "draft, reworded")
			out = mustGit(t, wt, "push", "--force")
			mustContain(t, "force push of another branch", out, "+ ", "draft -> draft (forced update)")
			if got := h.pubs(t, repoID); got != published {
				t.Errorf("publications changed by another branch: %q -> %q", published, got)
			}
			// The published branch is never rewritten, nor is a branch named HEAD taken.
			mustGit(t, wt, "checkout", "-q", branch)
			mustGit(t, wt, "commit", "--amend", "-m", "rewritten")
			out, err := git(t, wt, "push", "--force")
			if err == nil {
				t.Errorf("force push of the published branch accepted:\n%s", out)
			}
			mustContain(t, "force push of the published branch", out, "non-fast-forward update refused")
			out, err = git(t, wt, "push", "origin", "HEAD:refs/heads/HEAD")
			if err == nil {
				t.Errorf("push to refs/heads/HEAD accepted:\n%s", out)
			}
			mustContain(t, "push to refs/heads/HEAD", out, "a branch or tag named HEAD is refused")
		})
	}
}

// TestPushRemovingFiles: a publisher deletes a file with git rm and pushes. The publication (or file) goes with
// it, and the push says so, naming its URL, rather than "no publication or file changed".
func TestPushRemovingFiles(t *testing.T) {
	h := newHub(t)
	home := t.TempDir()
	repoID := h.newRepo(t, "removing")
	mustGit(t, home, "clone", "-q", h.url("removing", &h.publisher), "wt")
	wt := filepath.Join(home, "wt")
	write(t, filepath.Join(wt, "keep.ttl"), "<a> <b> <c> .\n")
	write(t, filepath.Join(wt, "gone.ttl"), "<a> <b> <d> .\n")
	write(t, filepath.Join(wt, "files", "notes.txt"), "notes\n")
	mustGit(t, wt, "add", ".")
	mustGit(t, wt, "commit", "-qm", "three")
	mustGit(t, wt, "push")
	mustGit(t, wt, "rm", "-q", "gone.ttl", "files/notes.txt")
	mustGit(t, wt, "commit", "-qm", "two gone")
	out := mustGit(t, wt, "push")
	base := h.srv.URL + "/org/removing/"
	mustContain(t, "push removing files", out,
		"remote: ldhub: removed publication "+base+"gone ",
		"remote: ldhub: removed file "+base+"files/notes.txt ")
	if strings.Contains(out, "no publication or file changed") || strings.Contains(out, "keep") {
		t.Errorf("push removing files:\n%s", out)
	}
	if got := h.pubs(t, repoID); !strings.HasPrefix(got, "keep:") || strings.Contains(got, "gone") {
		t.Errorf("publications after the removal: %q", got)
	}
}

// TestLargePushWithDefaultPostBuffer: a push over git's 1 MiB http.postBuffer starts with a probe request and
// streams in chunks; then clone, fetch and pull over both protocol versions git may ask for.
func TestLargePushWithDefaultPostBuffer(t *testing.T) {
	h := newHub(t)
	home := t.TempDir()
	wt := filepath.Join(home, "wt")
	mustGit(t, home, "clone", "-q", h.url("private", &h.publisher), "wt")
	var big strings.Builder
	buf := make([]byte, 32)
	for big.Len() < 3<<20 {
		rand.Read(buf)
		fmt.Fprintf(&big, "<urn:x:%s> <urn:p> \"%s\" .\n", hex.EncodeToString(buf[:8]), hex.EncodeToString(buf))
	}
	write(t, filepath.Join(wt, "big.nt"), big.String())
	mustGit(t, wt, "add", ".")
	mustGit(t, wt, "commit", "-qm", "big")
	out := mustGit(t, wt, "push")
	mustContain(t, "large push", out, "remote: ldhub: new publication "+h.srv.URL+"/org/private/big version ")
	head := mustGit(t, wt, "rev-parse", "HEAD")
	for _, v := range []string{"0", "2"} {
		dir := t.TempDir()
		mustGit(t, dir, "-c", "protocol.version="+v, "clone", "-q", h.url("private", &h.viewer), "c")
		c := filepath.Join(dir, "c")
		if got := mustGit(t, c, "rev-parse", "HEAD"); got != head {
			t.Errorf("protocol v%s clone at %s, want %s", v, got, head)
		}
		write(t, filepath.Join(wt, "core.ttl"), "<a> <b> \"v"+v+"\" .\n")
		mustGit(t, wt, "commit", "-qam", "v"+v)
		mustGit(t, wt, "push", "-q")
		head = mustGit(t, wt, "rev-parse", "HEAD")
		mustGit(t, c, "-c", "protocol.version="+v, "fetch", "-q")
		mustGit(t, c, "-c", "protocol.version="+v, "pull", "-q")
		if data, _ := os.ReadFile(filepath.Join(c, "core.ttl")); !strings.Contains(string(data), "v"+v) {
			t.Errorf("protocol v%s pull: core.ttl = %q", v, data)
		}
	}
}

// TestPushOverLimits: a pack that inflates past a limit is refused with a remote: line saying which, and nothing
// changes.
func TestPushOverLimits(t *testing.T) {
	h := newHub(t)
	h.git.Limits = gitrepo.PackLimits{MaxObject: 1 << 20, MaxTotal: 2 << 20, MaxObjects: 40}
	home := t.TempDir()
	wt := filepath.Join(home, "wt")
	mustGit(t, home, "clone", "-q", h.url("private", &h.publisher), "wt")
	before := mustGit(t, wt, "rev-parse", "HEAD")
	published := h.pubs(t, h.private.ID)
	for _, tc := range []struct {
		name  string
		files func()
		says  string
	}{
		{"a file inflating past the per-file limit", func() {
			write(t, filepath.Join(wt, "big.ttl"), strings.Repeat("<a> <b> <c> .\n", 100_000))
		}, "an object of the push inflates to 1400000 bytes, more than the limit of 1048576 per file"},
		{"a file past the per-file limit in a pack git streams (over http.postBuffer)", func() {
			buf := make([]byte, 3<<20)
			rand.Read(buf)
			write(t, filepath.Join(wt, "files", "noise.bin"), string(buf))
		}, "an object of the push inflates to 3145728 bytes, more than the limit of 1048576 per file"},
		{"files inflating past the push limit", func() {
			for i := 0; i < 3; i++ {
				write(t, filepath.Join(wt, fmt.Sprintf("part%d.ttl", i)), strings.Repeat(fmt.Sprintf("<a> <b> %d .\n", i), 70_000))
			}
		}, "the push inflates to more than the limit of 2097152 bytes"},
		{"a pack over the request limit", func() {
			h.git.MaxPush = 64 << 10
			buf := make([]byte, 100<<10)
			rand.Read(buf)
			write(t, filepath.Join(wt, "files", "noise.bin"), string(buf))
		}, "the push is larger than the limit of 65536 bytes"},
		{"too many objects", func() {
			for i := 0; i < 50; i++ {
				write(t, filepath.Join(wt, fmt.Sprintf("f%02d.ttl", i)), fmt.Sprintf("<a> <b> %d .\n", i))
			}
		}, "the push holds 52 objects, more than the limit of 40"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustGit(t, wt, "reset", "-q", "--hard", before)
			mustGit(t, wt, "clean", "-qfd")
			h.git.MaxPush = 1 << 30
			tc.files()
			mustGit(t, wt, "add", ".")
			mustGit(t, wt, "commit", "-qm", tc.name)
			out, err := git(t, wt, "push")
			if err == nil {
				t.Fatalf("push accepted:\n%s", out)
			}
			mustContain(t, "push", out, "remote: ldhub refused the push; nothing changed:", "push too large: "+tc.says, "[remote rejected] main -> main")
			if got := mustGit(t, wt, "ls-remote", "origin", "refs/heads/main"); !strings.HasPrefix(got, before) {
				t.Errorf("main moved: %s", got)
			}
			if got := h.pubs(t, h.private.ID); got != published {
				t.Errorf("publications changed: %q -> %q", published, got)
			}
		})
	}
}

// TestCraftedTreesRefused pushes crafted trees (git hash-object --literally) with the git CLI: each is refused
// through git's own remote: and ref status lines naming the path, never "internal error", and no repository, the
// pusher's or another, changes.
func TestCraftedTreesRefused(t *testing.T) {
	h := newHub(t)
	home := t.TempDir()
	wt := filepath.Join(home, "wt")
	mustGit(t, home, "clone", "-q", h.url("private", &h.publisher), "wt")
	before := mustGit(t, wt, "rev-parse", "HEAD")
	mine, theirs := h.pubs(t, h.private.ID), h.pubs(t, h.visible.ID)
	for _, bt := range gittest.BadTrees() {
		t.Run(bt.Name, func(t *testing.T) {
			commit := gittest.Commit(t, wt, bt.Build(t, wt), before)
			mustGit(t, wt, "update-ref", "refs/heads/main", commit)
			out, err := git(t, wt, "push")
			if err == nil {
				t.Fatalf("push accepted:\n%s", out)
			}
			mustContain(t, "push", out, "remote: ldhub refused the push; nothing changed:", bt.Says, "[remote rejected] main -> main")
			if strings.Contains(out, "internal error") {
				t.Errorf("internal error:\n%s", out)
			}
			if got := mustGit(t, wt, "ls-remote", "origin", "refs/heads/main"); !strings.HasPrefix(got, before) {
				t.Errorf("main moved: %s", got)
			}
		})
	}
	if got := h.pubs(t, h.private.ID); got != mine {
		t.Errorf("the pusher's publications changed: %q -> %q", mine, got)
	}
	if got := h.pubs(t, h.visible.ID); got != theirs {
		t.Errorf("another repository's publications changed: %q -> %q", theirs, got)
	}
	// The repository stays clonable.
	mustGit(t, t.TempDir(), "clone", "-q", h.url("private", &h.viewer), "again")
}

// TestRefusedFilesAreListed: every bad file of a push is named with line and column, not only the first.
func TestRefusedFilesAreListed(t *testing.T) {
	h := newHub(t)
	home := t.TempDir()
	wt := filepath.Join(home, "wt")
	mustGit(t, home, "clone", "-q", h.url("private", &h.publisher), "wt")
	write(t, filepath.Join(wt, "a.ttl"), "<a> <b> BAD .\n")
	write(t, filepath.Join(wt, "sub", "b.ttl"), "<a> <b> <c> .\n\n  BAD\n")
	mustGit(t, wt, "add", ".")
	mustGit(t, wt, "commit", "-qm", "two bad files")
	out, err := git(t, wt, "push")
	if err == nil {
		t.Fatalf("push accepted:\n%s", out)
	}
	mustContain(t, "push", out, "remote:   commit ", "a.ttl: ", "line 1, column 9", "remote:   sub/b.ttl: ", "line 3, column 3")
}

// TestPushWaitsUntilRendered: an accepted push that changed publications answers only once Rendered says the
// repository is live, so that the URLs it prints answer when git returns; a push to a branch that publishes
// nothing does not wait; and past Settle the push says the URLs are still being rendered.
func TestPushWaitsUntilRendered(t *testing.T) {
	h := newHub(t)
	repoID := h.newRepo(t, "rendered")
	var mu sync.Mutex
	asked, liveAfter := 0, 0 // Rendered answers false liveAfter times, then true (or failed, when set)
	var failed error
	h.git.Rendered = func(_ context.Context, id string) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if id != repoID {
			t.Errorf("Rendered asked for repository %s, pushed %s", id, repoID)
		}
		asked++
		if asked > liveAfter && failed != nil {
			return false, failed
		}
		return asked > liveAfter, nil
	}
	home := t.TempDir()
	mustGit(t, home, "clone", "-q", h.url("rendered", &h.publisher), "wt")
	wt := filepath.Join(home, "wt")
	push := func(content string, args ...string) string {
		t.Helper()
		write(t, filepath.Join(wt, "core.ttl"), content)
		mustGit(t, wt, "add", ".")
		mustGit(t, wt, "commit", "-qm", content)
		return mustGit(t, wt, append([]string{"push"}, args...)...)
	}
	reset := func(n int) {
		mu.Lock()
		asked, liveAfter = 0, n
		mu.Unlock()
	}
	calls := func() int {
		mu.Lock()
		defer mu.Unlock()
		return asked
	}

	reset(5)
	out := push("<a> <b> <c> .\n")
	mustContain(t, "first push", out, "remote: ldhub: new publication "+h.srv.URL+"/org/rendered/core version ")
	if n := calls(); n != 6 {
		t.Errorf("the push answered after Rendered was asked %d times, want 6 (false 5 times, then true)", n)
	}
	if strings.Contains(out, "still rendering") {
		t.Errorf("a push that went live says it is still rendering:\n%s", out)
	}

	reset(1 << 30)
	h.git.Settle = 200 * time.Millisecond
	start := time.Now()
	out = push("<a> <b> <d> .\n")
	if d := time.Since(start); d < h.git.Settle {
		t.Errorf("the push answered after %v, before Settle (%v) while not rendered", d, h.git.Settle)
	}
	mustContain(t, "push not rendered within Settle", out, "remote: ldhub: new version "+h.srv.URL+"/org/rendered/core version ",
		"remote: ldhub: still rendering: these URLs answer with the new versions in a moment")

	// A failed render ends the wait at once (Settle is far off) and the push prints why.
	reset(2)
	h.git.Settle = time.Hour
	mu.Lock()
	failed = errors.Join(errors.New("http://x/org/rendered/core version 1 could not be rendered: turtle: line 4, column 1: bad"), errors.New("second"))
	mu.Unlock()
	out = push("<a> <b> <f> .\n")
	mustContain(t, "push that failed to render", out, "remote: ldhub: stored, but not everything went live:",
		"remote: ldhub:   http://x/org/rendered/core version 1 could not be rendered: turtle: line 4, column 1: bad", "remote: ldhub:   second")
	if n := calls(); n != 3 || strings.Contains(out, "still rendering") {
		t.Errorf("the push answered after Rendered was asked %d times, want 3 (false twice, then failed):\n%s", n, out)
	}
	mu.Lock()
	failed = nil
	mu.Unlock()

	reset(1 << 30)
	mustGit(t, wt, "checkout", "-q", "-b", "draft")
	out = push("<a> <b> <e> .\n", "-u", "origin", "draft")
	mustContain(t, "push of a draft", out, "draft is stored but not published")
	if n := calls(); n != 0 {
		t.Errorf("a push that published nothing asked Rendered %d times", n)
	}
}

// TestPushOverMaxPushSaysWhy: a push over MaxPush, small (one request with a length) or streamed in chunks
// over http.postBuffer, ends with the reason and a non-zero exit from the git CLI with its default settings,
// and no transport error ("RPC failed", "hung up") that would make the pusher look for a network fault.
func TestPushOverMaxPushSaysWhy(t *testing.T) {
	h := newHub(t)
	for _, tc := range []struct {
		name      string
		max, size int64
	}{
		{"one request", 64 << 10, 200 << 10},
		{"streamed, just over", 1 << 20, 3 << 20},
		{"streamed, far over", 256 << 10, 12 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			wt := filepath.Join(home, "wt")
			mustGit(t, home, "clone", "-q", h.url("private", &h.publisher), "wt")
			before := mustGit(t, wt, "rev-parse", "HEAD")
			h.git.MaxPush = tc.max
			t.Cleanup(func() { h.git.MaxPush = 1 << 30 })
			buf := make([]byte, tc.size)
			rand.Read(buf)
			write(t, filepath.Join(wt, "files", "noise.bin"), string(buf))
			mustGit(t, wt, "add", ".")
			mustGit(t, wt, "commit", "-qm", tc.name)
			out, err := git(t, wt, "push")
			if err == nil {
				t.Fatalf("push accepted:\n%s", out)
			}
			mustContain(t, "push", out, "! [remote rejected] main -> main", fmt.Sprintf("the push is larger than the limit of %d bytes", tc.max))
			for _, bad := range []string{"RPC failed", "hung up", "unexpected disconnect", "Everything up-to-date"} {
				if strings.Contains(out, bad) {
					t.Errorf("the git CLI printed %q:\n%s", bad, out)
				}
			}
			if got := mustGit(t, wt, "ls-remote", "origin", "refs/heads/main"); !strings.HasPrefix(got, before) {
				t.Errorf("main moved: %s", got)
			}
		})
	}
}
