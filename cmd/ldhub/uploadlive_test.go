package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
)

// TestUploadIsLiveWhenItReturns is the README's upload by curl, with curl's defaults: create a publication with
// its content, then add versions, and read the publication's URL and its SPARQL endpoint once, right after each
// answer, as a script does (`curl -F … && curl URL`). The upload used to answer when the commit was stored,
// before the pipeline had rendered it: the URL answered 404, then the old version. Each answer must say
// `Ldhub-Live: true` (docs/api.md).
func TestUploadIsLiveWhenItReturns(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		conformance.Missing(t, "curl is not installed")
	}
	vars := map[string]string{"LDHUB_DATA": t.TempDir(), "LDHUB_ADMIN_ID": "root", "LDHUB_ADMIN_SECRET": "first-hour-secret"}
	s := startServe(t, vars)
	defer s.stop()
	c := newClient(s.addr, "root", "first-hour-secret")
	defer c.close()
	repo := vocabRepository(t, c)
	dir := t.TempDir()
	file := filepath.Join(dir, "core.ttl")
	doc := "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
	for i, term := range []string{"Bridge", "Tunnel", "Ferry"} {
		doc += "<" + term + "> rdfs:label \"" + term + "\"@en .\n"
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"-s", "-S", "-D", "-", "-o", filepath.Join(dir, "answer.json"), "-u", "root:first-hour-secret",
			"-F", `metadata={"name": "core"};type=application/json`, "-F", "content=@" + file}
		if i > 0 {
			args = []string{"-s", "-S", "-D", "-", "-o", filepath.Join(dir, "answer.json"), "-u", "root:first-hour-secret",
				"-X", "PUT", "-F", `meta-data={"name": "core"};type=application/json`, "-F", "Content=@" + file}
		}
		args = append(args, "http://"+s.addr+"/api/v3/repositories/"+repo+"/publications")
		out, err := exec.Command("curl", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("upload %d: curl: %v\n%s", i+1, err, out)
		}
		head := strings.ToLower(string(out))
		if !strings.Contains(head, " 200") || !strings.Contains(head, "\nldhub-live: true\r\n") {
			t.Errorf("upload %d: the answer does not say it is live:\n%s", i+1, out)
		}
		readsRightAfter(t, c, "upload "+strconv.Itoa(i+1), "/org/vocab/core", i+1)
	}
}

// readsRightAfter reads the publication at path once, with no retry, right after the write named what answered, as
// a script does (`curl -F … && curl URL`): its N-Triples must hold want labels, and a count of its statements by
// its SPARQL endpoint must say want (one label a statement).
func readsRightAfter(t *testing.T, c *client, what, path string, want int) {
	t.Helper()
	r, err := c.do("GET", path, "", nil, "Accept", "application/n-triples")
	if err != nil || r.status != 200 {
		t.Fatalf("%s: GET %s right after it answered: %v %v", what, path, r, err)
	}
	if n := strings.Count(string(r.body), "rdf-schema#label"); n != want {
		t.Errorf("%s: GET %s right after it answered shows %d labels, want %d:\n%s", what, path, n, want, r.body)
	}
	q := path + "/sparql?query=SELECT%20(COUNT(*)%20AS%20%3Fn)%20WHERE%20%7B%20%3Fs%20%3Fp%20%3Fo%20%7D"
	if r, err := c.do("GET", q, "", nil, "Accept", "text/csv"); err != nil || r.status != 200 || strings.TrimSpace(string(r.body)) != "n\r\n"+strconv.Itoa(want) {
		t.Errorf("%s: SPARQL count right after it answered: %v %v", what, r, err)
	}
}
