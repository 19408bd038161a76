package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestGitPushIsLiveWhenItReturns is a publisher's first hour with the git CLI and its defaults: clone an empty
// repository over HTTP, add a Turtle file, commit, `git push` with no flags, and open the URL the push printed
// at once, as a user (or a script: `git push && curl URL`) does. The push used to answer when the commit was
// stored, before the pipeline had rendered it: the printed URL answered 404, then the old version, for a second
// or more. Each URL is read once, with no retry.
func TestGitPushIsLiveWhenItReturns(t *testing.T) {
	needGit(t)
	vars := map[string]string{"LDHUB_DATA": t.TempDir(), "LDHUB_ADMIN_ID": "root", "LDHUB_ADMIN_SECRET": "first-hour-secret"}
	s := startServe(t, vars)
	defer s.stop()
	c := newClient(s.addr, "root", "first-hour-secret")
	defer c.close()
	vocabRepository(t, c)
	home := t.TempDir()
	if _, err := gitCmd(home, "clone", "-q", "http://root:first-hour-secret@"+s.addr+"/git/org/vocab.git", "wt"); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(home, "wt")
	printed := regexp.MustCompile(`remote: ldhub: new (?:publication|version) (http://\S+) version (\S+)`)
	for i, doc := range []string{
		"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n<Bridge> rdfs:label \"Bridge\"@en .\n",
		"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n<Bridge> rdfs:label \"Bridge\"@en .\n<Tunnel> rdfs:label \"Tunnel\"@en .\n",
	} {
		if err := os.WriteFile(filepath.Join(wt, "core.ttl"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := gitCmd(wt, "add", "core.ttl"); err != nil {
			t.Fatal(err)
		}
		if _, err := gitCmd(wt, "commit", "-q", "-m", "version"); err != nil {
			t.Fatal(err)
		}
		out, err := gitCmd(wt, "push")
		if err != nil {
			t.Fatal(err)
		}
		m := printed.FindStringSubmatch(out)
		if m == nil || m[1] != "http://"+s.addr+"/org/vocab/core" {
			t.Fatalf("push %d printed no URL of org/vocab/core:\n%s", i+1, out)
		}
		if strings.Contains(out, "still rendering") {
			t.Errorf("push %d: %s", i+1, out)
		}
		path := strings.TrimPrefix(m[1], "http://"+s.addr)
		readsRightAfter(t, c, "push "+strconv.Itoa(i+1), path, i+1)
		if r, err := c.do("GET", path+"/versions/"+m[2], "", nil); err != nil || r.status != 200 {
			t.Errorf("push %d: GET the version URL right after the push: %v %v", i+1, r, err)
		}
	}
}
