package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

// TestBuildSkipsPathsOverTheLimit: a repository whose history has a path the store's limit refuses
// (model.MaxPathLen, checked on push and upload since 14e) was written by an older ldhub or pushed with plain git
// into the bare repository. `ldhub build` used to fail on it; now it warns naming the path, skips that
// publication and builds every other one.
func TestBuildSkipsPathsOverTheLimit(t *testing.T) {
	needGit(t)
	hub := pipelinetest.New(t)
	hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	hub.Publish(t, hub.Closed.ID, "hidden", ".ttl", pipelinetest.Vocab)
	home := t.TempDir()
	if _, err := gitCmd(home, "clone", "-q", hub.Store.RepoDir(hub.Open.ID), "wt"); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(home, "wt")
	// Past the limit, and then past what a file system's path holds (4096 bytes), as the refused pushes were.
	long := filepath.Join(strings.Repeat(strings.Repeat("a", 60)+"/", 9), "long.ttl")
	deep := filepath.Join(strings.Repeat(strings.Repeat("b", 64)+"/", 75), "deep.ttl")
	if len(long) <= model.MaxPathLen {
		t.Fatalf("%d bytes is not over the limit", len(long))
	}
	// Written into git's index only: no file system holds the deeper path.
	if err := os.WriteFile(filepath.Join(home, "vocab.ttl"), []byte(pipelinetest.Vocab), 0o644); err != nil {
		t.Fatal(err)
	}
	blob, err := gitCmd(wt, "hash-object", "-w", filepath.Join(home, "vocab.ttl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{long, deep, "after.ttl"} {
		if _, err := gitCmd(wt, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"commit", "-qm", "long paths, by hand"}, {"push", "-q", "origin", "HEAD"}} {
		if _, err := gitCmd(wt, args...); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	env := &environment{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := run(context.Background(), env, []string{"build", "--data", hub.Dir, "--out", out, "--base-url", "http://hub.example"})
	if code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	for _, p := range []string{long, deep} {
		uri := strings.TrimSuffix(p, ".ttl")
		want := `level=WARN msg="pipeline: publication not rendered: its path is over the limit" repository=/org/open path=` + uri + " bytes=" + strconv.Itoa(len(uri)) + " limit=512"
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no warning naming %.40s…:\n%s", uri, stderr.String())
		}
	}
	if want := "rendered 3 publications, 0 unchanged, 0 removed,"; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("stdout %q, want %q…", stdout.String(), want)
	}
	for _, p := range []string{"/org/open/core", "/org/open/after"} {
		if _, err := os.Stat(filepath.Join(tree.PubDir(tree.Root(out, false), p), tree.Current, tree.Index)); err != nil {
			t.Errorf("%s is not built: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tree.PubDir(tree.Root(out, true), "/org/closed/hidden"), tree.Current, tree.Index)); err != nil {
		t.Errorf("/org/closed/hidden is not built: %v", err)
	}
}
