package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
)

// TestWriteAfterAFailedRenderAnswersAtOnce: a version the pipeline cannot render (here bad Turtle committed
// straight into the bare repository with plain git, which the hub never checked) used to hold every later
// push to the repository and every upload of that publication for the full 30 s bound, which then answered
// `still rendering` / `Ldhub-Live: false` as if a moment more would do. Now the push prints, on its sideband,
// which publication failed and the syntax error's line and column.
//
// A good version uploaded after it (curl) used to be held back by it too: the pipeline rendered every version,
// so the upload was a 422 naming the broken one. Now the broken version, an older one by then, is left out: the
// upload answers 200 with `Ldhub-Live: true` and an `Ldhub-Left-Out` header naming the broken version and why, the
// direct URL serves the new version, the broken version's URL is 404, and each later push to the repository says
// which version is left out and why, in the same words.
func TestWriteAfterAFailedRenderAnswersAtOnce(t *testing.T) {
	needGit(t)
	if _, err := exec.LookPath("curl"); err != nil {
		conformance.Missing(t, "curl is not installed")
	}
	data := t.TempDir()
	vars := map[string]string{"LDHUB_DATA": data, "LDHUB_ADMIN_ID": "root", "LDHUB_ADMIN_SECRET": "first-hour-secret"}
	s := startServe(t, vars)
	defer s.stop()
	c := newClient(s.addr, "root", "first-hour-secret")
	defer c.close()
	repo := vocabRepository(t, c)
	dir := t.TempDir()
	good := "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n<Bridge> rdfs:label \"Bridge\"@en .\n"
	file := filepath.Join(dir, "core.ttl")
	if err := os.WriteFile(file, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	curl := func(method, metaPart, contentPart string) (string, map[string]any) {
		t.Helper()
		answer := filepath.Join(dir, "answer.json")
		out, err := exec.Command("curl", "-s", "-S", "-D", "-", "-o", answer, "-u", "root:first-hour-secret", "-X", method,
			"-F", metaPart+`={"name": "core"};type=application/json`, "-F", contentPart+"=@"+file,
			"http://"+s.addr+"/api/v3/repositories/"+repo+"/publications").CombinedOutput()
		if err != nil {
			t.Fatalf("curl: %v\n%s", err, out)
		}
		var body map[string]any
		b, _ := os.ReadFile(answer)
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatalf("the answer is not JSON: %v\n%s\n%s", err, out, b)
		}
		return strings.ToLower(string(out)), body
	}
	if head, _ := curl("POST", "metadata", "content"); !strings.Contains(head, "\nldhub-live: true\r\n") {
		t.Fatalf("the first upload is not live:\n%s", head)
	}

	// An edit made with plain git in the bare repository: the hub's checks never saw it.
	home := t.TempDir()
	bare := filepath.Join(data, "repositories", repo+".git")
	if _, err := gitCmd(home, "clone", "-q", bare, "hand"); err != nil {
		t.Fatal(err)
	}
	hand := filepath.Join(home, "hand")
	bad := good + "<Tunnel> rdfs:label \"Tunnel\"@en\n<Ferry> rdfs:label \"Ferry\"@en .\n"
	if err := os.WriteFile(filepath.Join(hand, "core.ttl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"commit", "-qam", "edited by hand"}, {"push", "-q", "origin", "HEAD"}} {
		if _, err := gitCmd(hand, args...); err != nil {
			t.Fatal(err)
		}
	}
	label, err := gitCmd(hand, "rev-parse", "--short=7", "HEAD") // the version's label (versioning by commit)
	if err != nil {
		t.Fatal(err)
	}

	// A push of another publication over HTTP, with the git CLI's defaults.
	if _, err := gitCmd(home, "clone", "-q", "http://root:first-hour-secret@"+s.addr+"/git/org/vocab.git", "wt"); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(home, "wt")
	if err := os.WriteFile(filepath.Join(wt, "extra.ttl"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "extra.ttl"}, {"commit", "-qm", "extra"}} {
		if _, err := gitCmd(wt, args...); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	out, err := gitCmd(wt, "push")
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	where := "http://" + s.addr + "/org/vocab/core version " + label + " could not be rendered: turtle: line 4, column 1: "
	if !strings.Contains(out, "remote: ldhub: new publication http://"+s.addr+"/org/vocab/extra version ") ||
		!strings.Contains(out, "remote: ldhub:   "+where) || strings.Contains(out, "still rendering") {
		t.Errorf("the push (%v) does not say that core failed and where:\n%s", took, out)
	}
	if r, err := c.do("GET", "/org/vocab/extra", "", nil, "Accept", "application/n-triples"); err != nil || r.status != 200 {
		t.Errorf("the pushed publication is not live when the push answers: %v %v", r, err)
	}

	// An upload of a good version of core. The version made by hand is now an older one: it used to hold this one
	// back (422 naming it, `Ldhub-Live: false`); now it is left out and the new version goes live.
	fixed := good + "<Tunnel> rdfs:label \"Tunnel\"@en .\n"
	if err := os.WriteFile(file, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	head, body := curl("PUT", "meta-data", "Content")
	took = time.Since(start)
	if !strings.Contains(head, " 200") || !strings.Contains(head, "\nldhub-live: true\r\n") {
		t.Errorf("the good upload after the broken version (%v) is not live:\n%s%v", took, head, body)
	}
	// It says, as the push does, that the broken version is left out and why (it said nothing).
	if !strings.Contains(head, "\nldhub-left-out: "+strings.ToLower(where)) {
		t.Errorf("the good upload's answer does not name the left-out version (want Ldhub-Left-Out: %s…):\n%s", where, head)
	}
	r, err := c.do("GET", "/org/vocab/core", "", nil, "Accept", "application/n-triples")
	if err != nil || r.status != 200 || !strings.Contains(string(r.body), `"Tunnel"@en`) {
		t.Errorf("the direct URL does not serve the new version: %v %v", r, err)
	}
	if r, err := c.do("GET", "/org/vocab/core/versions/"+label, "", nil, "Accept", "application/n-triples"); err != nil || r.status != 404 {
		t.Errorf("the broken version's URL: %v %v, want 404", r, err)
	}

	// The next push to the repository still says the broken version is left out, and that it went live.
	if err := os.WriteFile(filepath.Join(wt, "extra.ttl"), []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"commit", "-qam", "extra again"}, {"pull", "-q", "--rebase"}} {
		if _, err := gitCmd(wt, args...); err != nil {
			t.Fatal(err)
		}
	}
	out, err = gitCmd(wt, "push")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "remote: ldhub: live, but these older versions are left out (their URLs answer 404):") ||
		!strings.Contains(out, "remote: ldhub:   "+where) || strings.Contains(out, "not everything went live") ||
		strings.Contains(out, "still rendering") {
		t.Errorf("the push does not say that the broken older version is left out:\n%s", out)
	}
}
