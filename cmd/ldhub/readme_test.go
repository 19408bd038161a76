package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestREADMEWalkthrough runs the README's walkthrough as a reader would: every ```sh block between the
// walkthrough markers, in order, in one bash with `set -euo pipefail`, from the top of the clone, with a fresh
// HOME and no LDHUB_ settings of the caller's. The hub it starts listens on a free port instead of 8080
// (LDHUB_ADDR, and the address in the text is the only change made to it). git asks for the credential as it asks a person; GIT_ASKPASS stands in for
// the person and answers with the id and secret `ldhub app create` printed. Each ```text block under a command
// block lists lines its output must contain, with … matching anything.
func TestREADMEWalkthrough(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "python3", "git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is needed to run the README's walkthrough: %v", tool, err)
			}
			t.Skipf("%s is needed to run the README's walkthrough: %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := walkthrough(t, string(readme))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for i, b := range blocks {
		fmt.Fprintf(&script, "echo '@@block %d@@'\n%s\n", i, strings.ReplaceAll(b.code, "127.0.0.1:8080", addr))
	}
	script.WriteString("echo '@@end@@'\n")
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(tmp, "output.log")
	askpass := filepath.Join(tmp, "askpass")
	// git prints its prompt to the terminal, where the reader sees it; the stand-in writes it to the log.
	if err := os.WriteFile(askpass, []byte(`#!/bin/sh
printf '%s …\n' "$1" >&2
case "$1" in
Username*) sed -n 's/^id: *//p' "`+logPath+`" | tail -n 1 ;;
*) sed -n 's/^secret: *//p' "`+logPath+`" | tail -n 1 ;;
esac
`), 0o755); err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = root
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LDHUB_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	// Go's caches live under HOME by default: keep the caller's, so that `make build` does not start cold.
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	gv := strings.Fields(string(goEnv))
	if len(gv) != 3 {
		t.Fatalf("go env: %q", goEnv)
	}
	cmd.Env = append(env, "HOME="+home, "GIT_ASKPASS="+askpass, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1",
		"GOCACHE="+gv[0], "GOMODCACHE="+gv[1], "GOPATH="+gv[2], "LDHUB_ADDR="+addr)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group, so that the hub it starts in the background is stopped whatever happens.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	runErr := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	out, _ := os.ReadFile(logPath)
	if runErr != nil {
		t.Fatalf("the walkthrough failed (%v):\n%s", runErr, out)
	}
	parts := regexp.MustCompile(`(?m)^@@block (\d+)@@$|^@@end@@$`).Split(string(out), -1)
	if len(parts) != len(blocks)+2 {
		t.Fatalf("%d outputs for %d blocks:\n%s", len(parts)-2, len(blocks), out)
	}
	for i, b := range blocks {
		got := parts[i+1]
		for _, want := range b.expect {
			if !outputHas(got, strings.ReplaceAll(want, "127.0.0.1:8080", addr)) {
				t.Errorf("block %d (%.60q…): output lacks %q:\n%s", i, b.code, want, got)
			}
		}
	}
}

type readmeBlock struct {
	code   string
	expect []string // lines the output must contain (… is a wildcard)
}

// walkthrough extracts the command blocks between <!-- walkthrough --> and <!-- /walkthrough -->, each with the
// ```text block that follows it, if any.
func walkthrough(t *testing.T, readme string) []readmeBlock {
	t.Helper()
	start, end := strings.Index(readme, "<!-- walkthrough -->"), strings.Index(readme, "<!-- /walkthrough -->")
	if start < 0 || end < start {
		t.Fatal("README.md has no walkthrough markers")
	}
	fence := regexp.MustCompile("(?s)```(sh|text)\n(.*?)```")
	var blocks []readmeBlock
	for _, m := range fence.FindAllStringSubmatch(readme[start:end], -1) {
		switch {
		case m[1] == "sh":
			blocks = append(blocks, readmeBlock{code: m[2]})
		case len(blocks) == 0:
			t.Fatal("a text block before any command block")
		default:
			for _, line := range strings.Split(m[2], "\n") {
				if strings.TrimSpace(line) != "" {
					blocks[len(blocks)-1].expect = append(blocks[len(blocks)-1].expect, strings.TrimSpace(line))
				}
			}
		}
	}
	if len(blocks) < 5 {
		t.Fatalf("only %d command blocks in the walkthrough", len(blocks))
	}
	return blocks
}

// outputHas reports whether a line of out contains want, where … in want matches any text.
func outputHas(out, want string) bool {
	var parts []string
	for _, p := range strings.Split(want, "…") {
		parts = append(parts, regexp.QuoteMeta(p))
	}
	re := regexp.MustCompile(strings.Join(parts, ".*"))
	for _, line := range strings.Split(out, "\n") {
		if re.MatchString(line) {
			return true
		}
	}
	return bytes.Contains([]byte(out), []byte(want))
}
