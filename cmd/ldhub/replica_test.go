package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
)

// treeDigest maps every file of a rendered public tree to a hash of its bytes (symlinks to their targets).
func treeDigest(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	// The background term-page worker creates and renames .tmp- folders while the tree is read: an entry that
	// vanished under the walk is left out (the caller compares again until the trees agree), not a failure.
	gone := func(err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return gone(err)
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return gone(err)
			}
			out[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return gone(err)
		}
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// treeDiff names the files that differ between two digests (at most a few).
func treeDiff(a, b map[string]string) []string {
	var diff []string
	for k, v := range a {
		if b[k] != v {
			diff = append(diff, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, k+" (only in the second)")
		}
	}
	if len(diff) > 8 {
		diff = append(diff[:8], "…")
	}
	return diff
}

var credLineRE = regexp.MustCompile(`(?m)^\s*(id|secret):\s+(\S+)`)

// followCredential makes an application without grants on the primary's data (it sees the visible repositories
// only) and returns the environment entry that gives it to `serve --follow`.
func followCredential(t *testing.T, bin, pdata, name string) string {
	t.Helper()
	out, err := exec.Command(bin, "app", "create", "--data", pdata, "--name", name).CombinedOutput()
	if err != nil {
		t.Fatalf("app create: %v\n%s", err, out)
	}
	cred := map[string]string{}
	for _, m := range credLineRE.FindAllStringSubmatch(string(out), -1) {
		cred[m[1]] = m[2]
	}
	return "LDHUB_FOLLOW_CREDENTIAL=" + cred["id"] + ":" + cred["secret"]
}

// TestReplicaFollowsPrimary runs a primary and a replica (`ldhub serve --follow`) as real processes and checks
// what a replica promises: it copies what its credential may see and nothing hidden from it, renders the
// primary's bytes, serves reads itself, forwards writes so that curl, the git CLI (fresh HOME) and Python
// (urllib, then SPARQLWrapper reading) work unchanged and read their own write through the replica at once, and a
// replica killed while the primary moved on catches up from its resume token.
func TestReplicaFollowsPrimary(t *testing.T) {
	needGit(t)
	for _, tool := range []string{"curl", "/usr/bin/python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			conformance.Missing(t, tool+" is not installed")
		}
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import SPARQLWrapper").Run(); err != nil {
		conformance.Missing(t, "python3-sparqlwrapper is not installed")
	}
	const rootID, rootSecret = "root", "replica-test-secret"
	bin := ldhubBinary(t)
	pdata, paddr := t.TempDir(), freeAddr(t)
	primary := startHub(t, bin, pdata, paddr, "LDHUB_ADMIN_ID="+rootID, "LDHUB_ADMIN_SECRET="+rootSecret)
	defer func() {
		select {
		case <-primary.exited:
		default:
			primary.kill() // the test ended before the promotion step killed it
		}
	}()
	c := newClient(paddr, rootID, rootSecret)
	defer c.close()
	var g, vocab, secret idOnly
	c.must(t, "POST", "/api/v3/groups", "application/json", []byte(`{"name":"org","pathSegment":"org","type":"PUBLIC"}`), &g)
	c.must(t, "POST", "/api/v3/repositories", "application/json", []byte(`{"name":"vocab","pathSegment":"vocab","visible":true,"parentId":"`+g.ID+`"}`), &vocab)
	c.must(t, "POST", "/api/v3/repositories", "application/json", []byte(`{"name":"secret","pathSegment":"secret","visible":false,"parentId":"`+g.ID+`"}`), &secret)
	publish := func(cl *client, repo, name, ttl string) {
		t.Helper()
		body, ctype := multipartBody("metadata", "meta.json", `{"name":"`+name+`"}`, "content", name+".ttl", ttl)
		cl.must(t, "POST", "/api/v3/repositories/"+repo+"/publications", ctype, body, nil)
	}
	publish(c, vocab.ID, "core", "<Thing> a <http://www.w3.org/2000/01/rdf-schema#Class> ; <http://www.w3.org/2000/01/rdf-schema#label> \"Thing\"@en .\n")
	publish(c, secret.ID, "hush", "<Quiet> a <http://www.w3.org/2000/01/rdf-schema#Class> .\n")

	// The replication credential: an application without grants, so it sees the visible repository only.
	renv := followCredential(t, bin, pdata, "replica")
	rdata, raddr := t.TempDir(), freeAddr(t)
	rargs := []string{"serve", "--data", rdata, "--addr", raddr, "--follow", "http://" + paddr}
	replica := startHubArgs(t, bin, rargs, renv)
	defer func() {
		select {
		case <-replica.exited:
		default:
			replica.kill()
		}
	}()
	anonR, anonP := newClient(raddr, "", ""), newClient(paddr, "", "")
	defer anonR.close()
	defer anonP.close()
	waitBody := func(cl *client, path, want string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			res, err := cl.do("GET", path, "", nil, "Accept", "text/turtle")
			if err == nil && res.status == 200 && strings.Contains(string(res.body), want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s%s: no %q within 60 s (last: %v %v)\nreplica:\n%s", cl.base, path, want, res, err, replica.logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitBody(anonR, "/org/vocab/core", "Thing")
	waitBody(anonP, "/org/vocab/core", "Thing")

	// Byte-identical: the replica's public tree is the primary's (they settle independently, so wait).
	sameTrees := func(when string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			a, b := treeDigest(t, filepath.Join(pdata, "site", "public")), treeDigest(t, filepath.Join(rdata, "site", "public"))
			diff := treeDiff(a, b)
			if len(diff) == 0 && len(a) > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the replica's rendered tree differs from the primary's (%d and %d files): %v", when, len(a), len(b), diff)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	sameTrees("after the first copy")

	// Hidden from the credential: not copied, and answered like anything missing.
	if _, err := os.Stat(filepath.Join(rdata, "repositories", secret.ID+".git")); !os.IsNotExist(err) {
		t.Errorf("the hidden repository was copied to the replica (%v)", err)
	}
	if res, _ := anonR.do("GET", "/org/secret/hush", "", nil); res.status != 404 {
		t.Errorf("replica, anonymous GET of a hidden publication: %v, want 404", res)
	}
	// With credentials the request is the primary's to answer: the owner reads it through the replica.
	rootR := newClient(raddr, rootID, rootSecret)
	defer rootR.close()
	if res, _ := rootR.do("GET", "/api/v3/repositories/"+secret.ID, "", nil); res.status != 200 {
		t.Errorf("replica, owner reading the hidden repository's record: %v, want 200 from the primary", res)
	}
	if res, _ := rootR.do("GET", "/org/secret/hush", "", nil, "Accept", "text/turtle"); res.status != 200 || !strings.Contains(string(res.body), "Quiet") {
		t.Errorf("replica, owner reading the hidden publication's direct URL: %v, want 200 from the primary", res)
	}
	// A direct URL of a visible repository answers the same to any credential, right or wrong, on the primary and
	// on the replica (which answers it from its copy: checked below with the primary gone).
	for _, cl := range []*client{newClient(paddr, rootID, "wrong-secret"), newClient(raddr, rootID, "wrong-secret")} {
		res, _ := cl.do("GET", "/org/vocab/core", "", nil, "Accept", "text/turtle")
		if res.status != 200 || !strings.Contains(string(res.body), "Thing") {
			t.Errorf("%s: a wrong secret reading a public direct URL: %v, want 200 as anonymous", cl.base, res)
		}
		cl.close()
	}

	// curl, through the replica: the write is forwarded and its answer held until the replica serves it.
	dir := t.TempDir()
	ttl2 := filepath.Join(dir, "core.ttl")
	os.WriteFile(ttl2, []byte("<Thing> a <http://www.w3.org/2000/01/rdf-schema#Class> .\n<Curled> a <http://www.w3.org/2000/01/rdf-schema#Class> .\n"), 0o644)
	cout, err := exec.Command("curl", "-sS", "-D", "-", "-o", "/dev/null", "-u", rootID+":"+rootSecret, "-X", "PUT",
		"-F", `meta-data={"name":"core"};type=application/json`, "-F", "Content=@"+ttl2,
		"http://"+raddr+"/api/v3/repositories/"+vocab.ID+"/publications").CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^HTTP/1.1 20\d`).Match(cout) || !strings.Contains(strings.ToLower(string(cout)), "ldhub-replica-synced: true") {
		t.Fatalf("curl PUT through the replica: %v\n%s", err, cout)
	}
	if res, _ := anonR.do("GET", "/org/vocab/core", "", nil, "Accept", "text/turtle"); !strings.Contains(string(res.body), "Curled") {
		t.Errorf("the writer does not read its own write through the replica right after the answer: %v", res)
	}

	// git CLI with a fresh HOME: clone from the replica (anonymous, served by it), push through it (forwarded).
	home := t.TempDir()
	git := func(wd string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.org", "GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.org")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git(home, "clone", "-q", "http://"+raddr+"/git/org/vocab.git", "vocab")
	wd := filepath.Join(home, "vocab")
	os.WriteFile(filepath.Join(wd, "roads.ttl"), []byte("<Road> a <http://www.w3.org/2000/01/rdf-schema#Class> .\n"), 0o644)
	git(wd, "add", "roads.ttl")
	git(wd, "commit", "-q", "-m", "Roads")
	git(wd, "push", "http://"+rootID+":"+rootSecret+"@"+raddr+"/git/org/vocab.git", "HEAD")
	if res, _ := anonR.do("GET", "/org/vocab/roads", "", nil, "Accept", "text/turtle"); res.status != 200 || !strings.Contains(string(res.body), "Road") {
		t.Errorf("after git push through the replica, the replica does not serve it at once: %v", res)
	}

	// Python: urllib writes through the replica, SPARQLWrapper reads the replica's endpoint.
	py := filepath.Join(dir, "client.py")
	os.WriteFile(py, []byte(`import base64, sys, urllib.request
from SPARQLWrapper import SPARQLWrapper, JSON, POST
replica, repo, user, pw = sys.argv[1:5]
b = "----ldhub"
body = ("--" + b + "\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n{\"name\": \"py\"}\r\n"
        "--" + b + "\r\nContent-Disposition: form-data; name=\"content\"; filename=\"py.ttl\"\r\nContent-Type: text/turtle\r\n\r\n"
        "<Snake> <http://www.w3.org/2000/01/rdf-schema#label> \"python wrote this\" .\r\n--" + b + "--\r\n").encode()
req = urllib.request.Request(replica + "/api/v3/repositories/" + repo + "/publications", data=body, method="POST",
    headers={"Content-Type": "multipart/form-data; boundary=" + b,
             "Authorization": "Basic " + base64.b64encode((user + ":" + pw).encode()).decode()})
with urllib.request.urlopen(req) as res:
    print(res.status, res.headers.get("Ldhub-Replica-Synced"))
for method in ("GET", "POST"):
    s = SPARQLWrapper(replica + "/org/vocab/py/sparql")
    s.setQuery("SELECT ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l }")
    s.setReturnFormat(JSON)
    if method == "POST":
        s.setMethod(POST)
    print(method, [b["l"]["value"] for b in s.query().convert()["results"]["bindings"]])
`), 0o644)
	pout, err := exec.Command("/usr/bin/python3", py, "http://"+raddr, vocab.ID, rootID, rootSecret).CombinedOutput()
	if err != nil || !strings.Contains(string(pout), "true") || strings.Count(string(pout), "python wrote this") != 2 {
		t.Errorf("Python through the replica: %v\n%s", err, pout)
	}
	sameTrees("after writes through the replica")

	// Killed, then the primary moves on: the restarted replica resumes from its token and catches up.
	var st struct{ Token string }
	if b, err := os.ReadFile(filepath.Join(rdata, "follow.json")); err != nil || json.Unmarshal(b, &st) != nil || st.Token == "" {
		t.Fatalf("follow.json holds no resume token: %v %s", err, b)
	}
	replica.kill()
	publish(c, vocab.ID, "late", "<Late> a <http://www.w3.org/2000/01/rdf-schema#Class> .\n")
	replica = startHubArgs(t, bin, rargs, renv)
	waitBody(anonR, "/org/vocab/late", "Late")
	sameTrees("after the restarted replica caught up")

	// Promotion (docs/scaling.md): the primary is gone; the replica, started without --follow and with an
	// administrator of its own, serves everything it had and takes writes.
	primary.kill()
	// With the primary gone, credentialed reads of what the replica has are still answered (from its copy), with
	// the credentials as curl sends them; what it lacks (the hidden repository) needs the primary: 503.
	cout, err = exec.Command("curl", "-sS", "-u", rootID+":"+rootSecret, "-H", "Accept: text/turtle", "-w", "\n%{http_code}",
		"http://"+raddr+"/org/vocab/late").CombinedOutput()
	if err != nil || !strings.HasSuffix(string(cout), "\n200") || !strings.Contains(string(cout), "Late") {
		t.Errorf("curl -u, a public direct URL through the replica with the primary down: %v\n%s", err, cout)
	}
	if res, _ := rootR.do("GET", "/org/secret/hush", "", nil); res.status != http.StatusServiceUnavailable {
		t.Errorf("replica, owner reading the hidden publication with the primary down: %v, want 503", res)
	}
	replica.stop(t)
	if err := os.Remove(filepath.Join(rdata, "follow.json")); err != nil {
		t.Fatal(err)
	}
	promoted := startHubArgs(t, bin, []string{"serve", "--data", rdata, "--addr", raddr, "--base-url", "http://" + paddr},
		"LDHUB_ADMIN_ID=new-root", "LDHUB_ADMIN_SECRET=promoted-secret-1")
	defer promoted.stop(t)
	waitBody(anonR, "/org/vocab/late", "Late")
	waitBody(anonR, "/org/vocab/roads", "Road")
	admin := newClient(raddr, "new-root", "promoted-secret-1")
	defer admin.close()
	body, ctype := multipartBody("meta-data", "meta.json", `{"name":"core"}`, "Content", "core.ttl", "<Promoted> a <http://www.w3.org/2000/01/rdf-schema#Class> .\n")
	admin.must(t, "PUT", "/api/v3/repositories/"+vocab.ID+"/publications", ctype, body, nil)
	waitBody(anonR, "/org/vocab/core", "Promoted")
	var versions []struct{ ID string }
	admin.must(t, "GET", "/api/v3/publications/"+corePub(t, admin, vocab.ID)+"/versions", "", nil, &versions)
	if len(versions) != 3 {
		t.Errorf("the promoted hub lists %d versions of core, want 3 (first, curl's, its own)", len(versions))
	}
}

// corePub is the id of the publication core of a repository.
func corePub(t *testing.T, c *client, repo string) string {
	t.Helper()
	var pubs []pubListItem
	c.must(t, "GET", "/api/v3/repositories/"+repo+"/publications", "", nil, &pubs)
	for _, p := range pubs {
		if p.Name == "core" {
			return p.ID
		}
	}
	t.Fatalf("no publication core in %s", repo)
	return ""
}
