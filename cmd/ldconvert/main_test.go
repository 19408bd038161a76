package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// TestNoHubLinked is why ldconvert exists: none of the hub's packages, nor the modules behind its pages, search
// and git store, may be linked into it, or it costs what `ldhub convert` costs.
func TestNoHubLinked(t *testing.T) {
	out, err := exec.Command(goTool(t), "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{"github.com/gohugoio/", "github.com/blevesearch/", "github.com/go-git/",
		"github.com/ldhub/ldhub/site", "github.com/ldhub/ldhub/api/", "github.com/ldhub/ldhub/pipeline",
		"github.com/ldhub/ldhub/content/store", "github.com/ldhub/ldhub/sparqlsvc"}
	seen := 0
	for _, pkg := range strings.Fields(string(out)) {
		seen++
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f) {
				t.Errorf("ldconvert links %s", pkg)
			}
		}
	}
	if seen < 10 || !strings.Contains(string(out), "github.com/ldhub/ldhub/content/codec") {
		t.Fatalf("go list -deps listed %d packages, without content/codec:\n%s", seen, out)
	}
}

// TestBinary runs the built command: a conversion between files, the usage under its own name, and an error that
// names the input and exits 1 without touching the output.
func TestBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ldconvert")
	if out, err := exec.Command(goTool(t), "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	in := filepath.Join(dir, "in.ttl")
	if err := os.WriteFile(in, []byte("@prefix ex: <http://example.org/ns#> .\nex:a ex:name \"Alice\"@en ; ex:knows ex:b .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.nt")
	if b, err := exec.Command(bin, in, out).CombinedOutput(); err != nil {
		t.Fatalf("ldconvert in.ttl out.nt: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "<http://example.org/ns#a> <http://example.org/ns#name> \"Alice\"@en .\n" +
		"<http://example.org/ns#a> <http://example.org/ns#knows> <http://example.org/ns#b> .\n"
	if string(got) != want {
		t.Errorf("out.nt =\n%s\nwant\n%s", got, want)
	}

	help, err := exec.Command(bin, "--help").Output()
	if err != nil || !bytes.HasPrefix(help, []byte("usage: ldconvert [--from")) || !bytes.Contains(help, []byte("json-ld")) {
		t.Errorf("ldconvert --help: %v\n%s", err, help)
	}

	bad := filepath.Join(dir, "bad.ttl")
	if err := os.WriteFile(bad, []byte("<http://ex/s> <http://ex/p> \"open .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, bad, out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("bad input: %v, want exit 1", err)
	}
	if msg := stderr.String(); !strings.HasPrefix(msg, "ldconvert: "+bad+":") || !strings.Contains(msg, "line 1") {
		t.Errorf("bad input: stderr %q, want the file and line", msg)
	}
	if again, _ := os.ReadFile(out); string(again) != want {
		t.Errorf("a failed conversion changed the output file:\n%s", again)
	}
}
