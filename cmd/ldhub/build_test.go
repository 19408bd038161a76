package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

func TestBuildCommand(t *testing.T) {
	hub := pipelinetest.New(t)
	hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	// The fixture's terms (Thing, Other, size) get pre-rendered pages, once.
	for i, want := range []string{"rendered 1 publications, 0 unchanged, 0 removed, 3 term pages", "rendered 0 publications, 1 unchanged, 0 removed, 0 term pages"} {
		var stdout, stderr bytes.Buffer
		env := &environment{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		code := run(context.Background(), env, []string{"build", "--data", hub.Dir, "--out", out, "--base-url", "http://hub.example"})
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("run %d: stdout %q, want %q", i, stdout.String(), want)
		}
		// Not a terminal: plain progress lines.
		if !strings.Contains(stderr.String(), "build: 2/2 repositories") {
			t.Errorf("run %d: progress %q", i, stderr.String())
		}
	}
	for _, conf := range []string{"nginx.conf", "apache.conf"} {
		if b, err := os.ReadFile(filepath.Join(out, conf)); err != nil || !bytes.Contains(b, []byte(out+"/public")) {
			t.Errorf("%s: %v %.200s", conf, err, b)
		}
	}
	b, err := os.ReadFile(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/core"), tree.Current, tree.PageHTML))
	if err != nil || !bytes.Contains(b, []byte("http://hub.example/org/open/core")) {
		t.Errorf("page: %v %.200s", err, b)
	}
	b, err = os.ReadFile(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/core"), tree.Current, tree.TermPages, "Thing.ttl"))
	if err != nil || !bytes.Contains(b, []byte("anonymous part")) {
		t.Errorf("term page: %v %.200s", err, b)
	}
}

func TestBuildRejectsStrayArguments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := &environment{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(context.Background(), env, []string{"build", "--data", t.TempDir(), "extra"}); code == 0 {
		t.Error("exit 0 for a stray argument")
	}
}
