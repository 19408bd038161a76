package site_test

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSPARQLWrapperAtEveryURL drives Python's SPARQLWrapper (Debian's python3-sparqlwrapper, with its defaults) at
// every URL form of a publication: the publication URL, <publication URL>/sparql, a version URL and <version
// URL>/sparql, with GET, a form POST and a POST of application/sparql-query.
func TestSPARQLWrapperAtEveryURL(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import SPARQLWrapper").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3-sparqlwrapper is required under CI: %v", err)
		}
		t.Skipf("python3-sparqlwrapper not installed (apt-get install python3-sparqlwrapper): %v", err)
	}
	f := newFixture(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	script := filepath.Join(t.TempDir(), "client.py")
	src := `import sys
from SPARQLWrapper import SPARQLWrapper, JSON, POST, GET, POSTDIRECTLY, URLENCODED
for url in sys.argv[1:]:
    got = []
    for method, request in ((GET, URLENCODED), (POST, URLENCODED), (POST, POSTDIRECTLY)):
        s = SPARQLWrapper(url)
        s.setQuery("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        s.setReturnFormat(JSON)
        s.setMethod(method)
        s.setRequestMethod(request)
        got.append(s.query().convert()["results"]["bindings"][0]["n"]["value"])
    print(url[len(sys.argv[1]):] or "/", " ".join(got))
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pub := srv.URL + "/org/open/core"
	ver := pub + "/versions/" + f.versions[0]
	out, err := exec.Command(py, script, pub, pub+"/sparql", ver, ver+"/sparql").CombinedOutput()
	if err != nil {
		t.Fatalf("SPARQLWrapper failed: %v\n%s", err, out)
	}
	want := strings.Join([]string{
		"/ 12 12 12",
		"/sparql 12 12 12",
		"/versions/" + f.versions[0] + " 11 11 11",
		"/versions/" + f.versions[0] + "/sparql 11 11 11",
	}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("SPARQLWrapper printed\n%s\nwant\n%s", out, want)
	}
}
