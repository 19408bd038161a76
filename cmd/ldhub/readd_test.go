package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeletedAndAddedBackIsANewPublication: a publication deleted and later added back at the same path is a new
// publication whose history starts at the re-add (docs/api.md, "Deleting and adding back"), with git as with the
// REST API. With git (the CLI, a fresh HOME: git rm, commit, push; add, commit, push) the deleted publication's
// versions used to come back with it, its old version URLs answering again; a REST delete and a new upload
// already gave a new publication.
func TestDeletedAndAddedBackIsANewPublication(t *testing.T) {
	needGit(t)
	data := t.TempDir()
	s := startServe(t, map[string]string{"LDHUB_DATA": data, "LDHUB_ADMIN_ID": "root", "LDHUB_ADMIN_SECRET": "readd-secret"})
	defer s.stop()
	c := newClient(s.addr, "root", "readd-secret")
	defer c.close()
	repo := vocabRepository(t, c)
	versionsOf := func(name string) []string {
		t.Helper()
		var pubs []pubListItem
		c.must(t, "GET", "/api/v3/repositories/"+repo+"/publications", "", nil, &pubs)
		for _, p := range pubs {
			if p.Name == name {
				var labels []string
				for _, v := range p.Versions {
					labels = append(labels, v.Version)
				}
				return labels
			}
		}
		return nil
	}
	doc := func(label string) string {
		return "<Bridge> <http://www.w3.org/2000/01/rdf-schema#label> \"" + label + "\"@en .\n"
	}

	home := t.TempDir()
	if _, err := gitCmd(home, "clone", "-q", "http://root:readd-secret@"+s.addr+"/git/org/vocab.git", "wt"); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(home, "wt")
	step := func(content string, args ...[]string) {
		t.Helper()
		if content != "" {
			if err := os.WriteFile(filepath.Join(wt, "core.ttl"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range append(args, []string{"push", "-q", "origin", "HEAD"}) {
			if out, err := gitCmd(wt, a...); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		}
	}
	step(doc("one"), []string{"add", "core.ttl"}, []string{"commit", "-qm", "one"})
	step(doc("two"), []string{"commit", "-qam", "two"})
	old := versionsOf("core")
	step("", []string{"rm", "-q", "core.ttl"}, []string{"commit", "-qm", "gone"})
	if v := versionsOf("core"); v != nil {
		t.Fatalf("core is still listed after git rm: %v", v)
	}
	step(doc("three"), []string{"add", "core.ttl"}, []string{"commit", "-qm", "back"})
	now := versionsOf("core")
	if len(old) != 2 || len(now) != 1 || now[0] == old[0] || now[0] == old[1] {
		t.Errorf("git: versions before the delete %v, after the re-add %v: want one new version", old, now)
	}
	for _, l := range old {
		if r, err := c.do("GET", "/org/vocab/core/versions/"+l, "", nil); err != nil || r.status != 404 {
			t.Errorf("the deleted publication's version %s answers again: %v %v", l, r, err)
		}
	}
	if r, err := c.do("GET", "/org/vocab/core", "", nil, "Accept", "application/n-triples"); err != nil || r.status != 200 ||
		!strings.Contains(string(r.body), `"three"@en`) {
		t.Errorf("the re-added publication: %v %v", r, err)
	}

	// REST: two versions, DELETE, a new upload at the same path: one version, as with git.
	upload := func(method, metaPart, contentPart, label string) {
		body, ctype := multipartBody(metaPart, "meta.json", `{"name":"rest"}`, contentPart, "rest.ttl", doc(label))
		c.must(t, method, "/api/v3/repositories/"+repo+"/publications", ctype, body, nil)
	}
	upload("POST", "metadata", "content", "one")
	upload("PUT", "meta-data", "Content", "two")
	var pubs []pubListItem
	c.must(t, "GET", "/api/v3/repositories/"+repo+"/publications", "", nil, &pubs)
	for _, p := range pubs {
		if p.Name == "rest" {
			c.must(t, "DELETE", "/api/v3/publications/"+p.ID, "", nil, nil)
		}
	}
	upload("POST", "metadata", "content", "three")
	if v := versionsOf("rest"); len(v) != 1 {
		t.Errorf("REST: versions after DELETE and a new upload: %v, want one", v)
	}
}
