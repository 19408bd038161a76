package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/site/webconf"
)

// TestJSONAcceptGetsJSONLD: a reader that asks a publication's direct URL for `application/json` (curl -H, as
// a script that wants JSON writes it) gets its JSON-LD, from `ldhub serve` and from Debian's nginx serving the
// rendered tree with the generated configuration alike, and nginx answers it from the files. Both answered 406.
func TestJSONAcceptGetsJSONLD(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		conformance.Missing(t, "curl is not installed")
	}
	data := t.TempDir()
	s, _ := jsonAcceptServe(t, data, "<Bridge> <http://www.w3.org/2000/01/rdf-schema#label> \"Bridge\"@en .\n")
	defer s.stop()

	addr := freeAddr(t)
	conf, err := webconf.NginxConfig(webconf.ServerConfig{Listen: addr, Dir: filepath.Join(data, "site"), Upstream: s.addr})
	if err != nil {
		t.Fatal(err)
	}
	defer startNginx(t, conf, addr)()

	type answer struct{ head, body string }
	var answers []answer
	for _, base := range []string{"http://" + s.addr, "http://" + addr} {
		for _, path := range []string{"/org/vocab/core", "/org/vocab/core/Bridge"} {
			out := filepath.Join(t.TempDir(), "body")
			head, err := exec.Command("curl", "-sS", "-D", "-", "-o", out, "-H", "Accept: application/json", base+path).CombinedOutput()
			if err != nil {
				t.Fatalf("curl %s%s: %v\n%s", base, path, err, head)
			}
			b, _ := os.ReadFile(out)
			h := strings.ToLower(string(head))
			var doc any
			if !strings.HasPrefix(h, "http/1.1 200") || !strings.Contains(h, "\ncontent-type: application/ld+json") ||
				json.Unmarshal(b, &doc) != nil || !strings.Contains(string(b), "Bridge") {
				t.Errorf("curl -H 'Accept: application/json' %s%s: want 200 and the JSON-LD\n%s%.300s", base, path, head, b)
			}
			answers = append(answers, answer{h, string(b)})
		}
	}
	if !strings.Contains(answers[2].head, "\nx-ldhub-static:") {
		t.Errorf("nginx did not answer application/json from the files:\n%s", answers[2].head)
	}
	for i := range 2 {
		if answers[i].body != answers[i+2].body {
			t.Errorf("ldhub and nginx answer differently:\n%.300s\n%.300s", answers[i].body, answers[i+2].body)
		}
	}
}

// TestSPARQLJSONAcceptGetsJSONLD: a CONSTRUCT or DESCRIBE asked for `application/json` (curl -H) answers JSON-LD,
// as the direct URLs do, at the publication's endpoint and the API's; so does Python's SPARQLWrapper left to its
// defaults with setReturnFormat(JSON) (it sends `Accept: */*` and `format=json`, and reads a JSON-LD answer into
// an rdflib graph). Both answered 406 (curl) or Turtle (SPARQLWrapper, which then returned the text unparsed).
func TestSPARQLJSONAcceptGetsJSONLD(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		conformance.Missing(t, "curl is not installed")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import SPARQLWrapper, rdflib").Run(); err != nil {
		conformance.Missing(t, "python3-sparqlwrapper (with python3-rdflib) is not installed")
	}
	s, pubID := jsonAcceptServe(t, t.TempDir(),
		"<Bridge> <http://www.w3.org/2000/01/rdf-schema#label> \"Bridge\"@en ; <http://www.w3.org/2000/01/rdf-schema#seeAlso> <River> .\n")
	defer s.stop()
	const label = "http://www.w3.org/2000/01/rdf-schema#label"
	queries := []string{"CONSTRUCT WHERE { ?s <" + label + "> ?o }", "DESCRIBE ?s WHERE { ?s <" + label + "> ?o }"}
	// rdflib reads each answer (the file curl wrote) as JSON-LD and prints its statements.
	read := `import sys, rdflib
g = rdflib.Graph().parse(sys.argv[1], format="json-ld")
print(len(g), sorted(str(o) for o in g.objects(None, rdflib.RDFS.label)))
`
	endpoints := []string{"/org/vocab/core/sparql", "/api/v3/publications/" + pubID + "/sparql"}
	for _, ep := range endpoints {
		for _, q := range queries {
			out := filepath.Join(t.TempDir(), "body")
			head, err := exec.Command("curl", "-sS", "-G", "-u", "root:json-accept-secret", "-D", "-", "-o", out, "-H", "Accept: application/json",
				"--data-urlencode", "query="+q, "http://"+s.addr+ep).CombinedOutput()
			if err != nil {
				t.Fatalf("curl %s: %v\n%s", ep, err, head)
			}
			h := strings.ToLower(string(head))
			b, _ := os.ReadFile(out)
			if !strings.HasPrefix(h, "http/1.1 200") || !strings.Contains(h, "\ncontent-type: application/ld+json") {
				t.Errorf("curl -H 'Accept: application/json' %s (%s): want 200 and JSON-LD\n%s%.300s", ep, q, head, b)
				continue
			}
			got, err := exec.Command(py, "-c", read, out).CombinedOutput()
			if want := "1 ['Bridge']\n"; q[0] == 'D' {
				want = "2 ['Bridge']\n"
				if err != nil || string(got) != want {
					t.Errorf("rdflib read %s's DESCRIBE answer as %q (%v), want %q\n%s", ep, got, err, want, b)
				}
			} else if err != nil || string(got) != want {
				t.Errorf("rdflib read %s's CONSTRUCT answer as %q (%v), want %q\n%s", ep, got, err, want, b)
			}
		}
	}
	// SPARQLWrapper with its defaults: setReturnFormat(JSON) on a graph query, convert() to an rdflib graph.
	script := `import sys, warnings, rdflib
from SPARQLWrapper import SPARQLWrapper, JSON
warnings.simplefilter("ignore", RuntimeWarning) # "Sending Accept header '*/*' because unexpected returned format"
for url in sys.argv[1:3]:
    for q in sys.argv[3:]:
        s = SPARQLWrapper(url)
        s.setCredentials("root", "json-accept-secret")
        s.setQuery(q)
        s.setReturnFormat(JSON)
        r = s.query()
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning) # a Turtle answer to a JSON request is only a warning
            g = r.convert()
        print(r.info()["content-type"].split(";")[0], type(g).__name__, len(g), sorted(str(o) for o in g.objects(None, rdflib.RDFS.label)))
`
	args := []string{"-c", script, "http://" + s.addr + endpoints[0], "http://" + s.addr + endpoints[1]}
	got, err := exec.Command(py, append(args, queries...)...).CombinedOutput()
	want := strings.Repeat("application/ld+json ConjunctiveGraph 1 ['Bridge']\napplication/ld+json ConjunctiveGraph 2 ['Bridge']\n", 2)
	if err != nil || string(got) != want {
		t.Errorf("SPARQLWrapper printed (%v)\n%s\nwant\n%s", err, got, want)
	}
}

// jsonAcceptServe starts `ldhub serve` on data with the Turtle publication /org/vocab/core and returns its id.
func jsonAcceptServe(t *testing.T, data, turtle string) (*served, string) {
	s := startServe(t, map[string]string{"LDHUB_DATA": data, "LDHUB_ADMIN_ID": "root", "LDHUB_ADMIN_SECRET": "json-accept-secret"})
	published := false
	defer func() {
		if !published { // the caller's deferred stop is not there yet
			s.stop()
		}
	}()
	c := newClient(s.addr, "root", "json-accept-secret")
	defer c.close()
	repo := vocabRepository(t, c)
	body, ctype := multipartBody("metadata", "meta.json", `{"name":"core"}`, "content", "core.ttl", turtle)
	var pub struct{ ID string }
	c.must(t, "POST", "/api/v3/repositories/"+repo+"/publications", ctype, body, &pub)
	published = true
	return s, pub.ID
}
