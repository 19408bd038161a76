package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplicaAnswersAFailedRenderAtOnce: a push through a read replica is forwarded to the primary, and its answer
// held until the replica serves what it wrote (docs/scaling.md). When a publication of the repository cannot be
// rendered (bad Turtle committed by hand into the primary's bare repository), the primary answers at once, saying
// which version failed and where; the replica used to hold that answer for its whole catch-up bound (10 s) and
// then mark it `Ldhub-Replica-Synced: false`. Now it sees the same failure in its own pipeline and passes the
// answer on at once, as synced. The git CLI pushes (a fresh HOME), GIT_TRACE_CURL shows the header.
func TestReplicaAnswersAFailedRenderAtOnce(t *testing.T) {
	needGit(t)
	const rootID, rootSecret = "root", "replica-fail-secret"
	bin := ldhubBinary(t)
	pdata, paddr := t.TempDir(), freeAddr(t)
	primary := startHub(t, bin, pdata, paddr, "LDHUB_ADMIN_ID="+rootID, "LDHUB_ADMIN_SECRET="+rootSecret)
	defer primary.stop(t)
	c := newClient(paddr, rootID, rootSecret)
	defer c.close()
	repo := vocabRepository(t, c)
	good := "<Bridge> <http://www.w3.org/2000/01/rdf-schema#label> \"Bridge\"@en .\n"
	body, ctype := multipartBody("metadata", "meta.json", `{"name":"core"}`, "content", "core.ttl", good)
	c.must(t, "POST", "/api/v3/repositories/"+repo+"/publications", ctype, body, nil)

	rdata, raddr := t.TempDir(), freeAddr(t)
	replica := startHubArgs(t, bin, []string{"serve", "--data", rdata, "--addr", raddr, "--follow", "http://" + paddr},
		followCredential(t, bin, pdata, "replica"))
	defer replica.stop(t)
	anonR := newClient(raddr, "", "")
	defer anonR.close()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if r, err := anonR.do("GET", "/org/vocab/core", "", nil); err == nil && r.status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica does not serve core within 60 s:\n%s", replica.logs.String())
		}
	}

	// A version of core that no check saw: committed with plain git into the primary's bare repository.
	home := t.TempDir()
	git := func(dir string, env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.org", "GIT_COMMITTER_NAME=Alice",
			"GIT_COMMITTER_EMAIL=alice@example.org"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git(home, nil, "clone", "-q", filepath.Join(pdata, "repositories", repo+".git"), "hand")
	hand := filepath.Join(home, "hand")
	if err := os.WriteFile(filepath.Join(hand, "core.ttl"), []byte(good+"<Tunnel> <http://www.w3.org/2000/01/rdf-schema#label> \"Tunnel\"@en\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(hand, nil, "commit", "-qam", "edited by hand")
	git(hand, nil, "push", "-q", "origin", "HEAD")

	// Another publication, pushed through the replica.
	git(home, nil, "clone", "-q", "http://"+paddr+"/git/org/vocab.git", "wt")
	wt := filepath.Join(home, "wt")
	if err := os.WriteFile(filepath.Join(wt, "extra.ttl"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	git(wt, nil, "add", "extra.ttl")
	git(wt, nil, "commit", "-qm", "extra")
	out2 := git(wt, []string{"GIT_TRACE_CURL=1", "GIT_TRACE_CURL_NO_DATA=1"}, "push",
		"http://"+rootID+":"+rootSecret+"@"+raddr+"/git/org/vocab.git", "HEAD")
	if !strings.Contains(out2, "remote: ldhub: stored, but not everything went live:") ||
		!strings.Contains(out2, "/org/vocab/core version ") || !strings.Contains(out2, "could not be rendered: turtle: line 3, column 1: ") {
		t.Errorf("the push through the replica does not say that core failed and where:\n%s", out2)
	}
	if !strings.Contains(strings.ToLower(out2), "ldhub-replica-synced: true") {
		t.Errorf("the replica held the answer of a push whose render failed instead of passing it on as synced:\n%s", out2)
	}
	if r, err := anonR.do("GET", "/org/vocab/extra", "", nil, "Accept", "application/n-triples"); err != nil || r.status != 200 {
		t.Errorf("the replica does not serve the pushed publication when the push answers: %v %v", r, err)
	}
}
