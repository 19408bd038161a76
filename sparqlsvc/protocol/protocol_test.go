package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

func testHandler(t *testing.T) *Handler {
	b := index.NewBuilder()
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	for _, q := range []rdf.Quad{
		rdf.Triple(ex("a"), ex("name"), rdf.LangString("Alice", "en")),
		rdf.Triple(ex("b"), ex("name"), rdf.String("Bob")),
		rdf.Triple(ex("a"), ex("knows"), ex("b")),
		rdf.Triple(ex("a"), ex("age"), rdf.Literal("42", rdf.XSDInteger)),
	} {
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	ds := eval.FromIndex(b.Build())
	return &Handler{
		WriteError: apierr.Write,
		Codecs:     codec.Default(),
		Endpoint:   func(*http.Request) string { return "http://hub.example/g/r/p/sparql" },
		Resolve: func(ctx context.Context, r *http.Request, d DatasetRequest) (Backend, func(), error) {
			if len(d.DefaultGraphs) > 0 && d.DefaultGraphs[0] == "secret" {
				return nil, nil, apierr.New(http.StatusNotFound, "no publication secret")
			}
			return ds, func() {}, nil
		},
		Limits: Limits{MaxRows: 1000},
	}
}

const selectNames = "SELECT ?n WHERE { ?s <http://ex.org/name> ?n } ORDER BY ?n"

func TestProtocol(t *testing.T) {
	h := testHandler(t)
	form := url.Values{"query": {selectNames}}.Encode()
	q := url.QueryEscape
	cases := []struct {
		name, method, target, ctype, body, accept string
		status                                    int
		wantType                                  string
		contains                                  []string
	}{
		{"GET json default", "GET", "/?query=" + q(selectNames), "", "", "", 200,
			"application/sparql-results+json", []string{`"vars":["n"]`, `"xml:lang":"en"`, `"Bob"`}},
		{"GET application/json alias", "GET", "/?query=" + q(selectNames), "", "", "application/json", 200,
			"application/sparql-results+json", []string{`"Alice"`}},
		{"POST body xml", "POST", "/", "application/sparql-query", selectNames, "application/sparql-results+xml", 200,
			"application/sparql-results+xml", []string{`<literal xml:lang="en">Alice</literal>`}},
		{"POST form csv", "POST", "/", "application/x-www-form-urlencoded", form, "text/csv", 200,
			"text/csv", []string{"n\r\nAlice\r\nBob\r\n"}},
		{"tsv", "GET", "/?query=" + q(selectNames), "", "", "text/tab-separated-values", 200,
			"text/tab-separated-values", []string{"?n\n\"Alice\"@en\n\"Bob\"\n"}},
		{"q-values", "GET", "/?query=" + q(selectNames), "", "", "text/csv;q=0.5, application/sparql-results+xml", 200,
			"application/sparql-results+xml", nil},
		{"ask", "GET", "/?query=" + q("ASK { ?s ?p 42 }"), "", "", "", 200,
			"application/sparql-results+json", []string{`"boolean":true`}},
		{"construct turtle default", "GET", "/?query=" + q("PREFIX ex: <http://ex.org/> CONSTRUCT { ?b ex:knownBy ?a } WHERE { ?a ex:knows ?b }"), "", "", "*/*", 200,
			"text/turtle", []string{"ex:knownBy", "@prefix ex:"}},
		{"construct n-triples", "POST", "/", "application/sparql-query", "CONSTRUCT WHERE { ?a <http://ex.org/knows> ?b }", "application/n-triples", 200,
			"application/n-triples", []string{"<http://ex.org/a> <http://ex.org/knows> <http://ex.org/b> ."}},
		{"construct json-ld", "GET", "/?query=" + q("CONSTRUCT WHERE { ?a <http://ex.org/knows> ?b }"), "", "", "application/ld+json", 200,
			"application/ld+json", []string{`"@id"`, "http://ex.org/knows"}},
		// A JSON client's Accept, or SPARQLWrapper's format=json beside */*, gets JSON-LD for a graph; a named RDF
		// syntax still wins over application/json, and the keyword does not override an Accept that names one.
		{"construct application/json", "GET", "/?query=" + q("CONSTRUCT WHERE { ?a <http://ex.org/knows> ?b }"), "", "", "application/json", 200,
			"application/ld+json", []string{`"@id"`, "http://ex.org/knows"}},
		{"describe application/json", "POST", "/", "application/sparql-query", "DESCRIBE <http://ex.org/a>", "application/json", 200,
			"application/ld+json", []string{`"@id"`, "Alice"}},
		{"construct json or turtle", "GET", "/?query=" + q("CONSTRUCT WHERE { ?a <http://ex.org/knows> ?b }"), "", "", "application/json, text/turtle", 200,
			"text/turtle", []string{"<http://ex.org/b>"}},
		{"construct format=json", "GET", "/?format=json&output=json&results=json&query=" + q("CONSTRUCT WHERE { ?a <http://ex.org/knows> ?b }"), "", "", "*/*", 200,
			"application/ld+json", []string{`"@id"`}},
		{"construct format=json, Accept turtle", "GET", "/?format=json&query=" + q("CONSTRUCT WHERE { ?a <http://ex.org/knows> ?b }"), "", "", "text/turtle", 200,
			"text/turtle", []string{"<http://ex.org/b>"}},
		{"select format=json", "GET", "/?format=json&query=" + q(selectNames), "", "", "*/*", 200,
			"application/sparql-results+json", []string{`"Alice"`}},
		{"construct x-turtle", "GET", "/?query=" + q("CONSTRUCT WHERE { ?a <http://ex.org/knows> ?b }"), "", "", "application/x-turtle", 200,
			"application/x-turtle", []string{"<http://ex.org/b>"}},
		{"describe rdf/xml", "GET", "/?query=" + q("DESCRIBE <http://ex.org/a>"), "", "", "application/rdf+xml", 200,
			"application/rdf+xml", []string{"Alice"}},
		{"describe n-quads", "GET", "/?query=" + q("DESCRIBE <http://ex.org/a>"), "", "", "application/n-quads", 200,
			"application/n-quads", []string{`<http://ex.org/a> <http://ex.org/age> "42"`}},
		{"syntax error", "GET", "/?query=" + q("SELECT * WHERE {\n  ?s ?p \n}"), "", "", "", 400,
			"application/json", []string{`"line":3`, `"column":1`}},
		{"not acceptable", "GET", "/?query=" + q(selectNames), "", "", "image/png", 406, "application/json", nil},
		{"wrong post type", "POST", "/", "text/plain", selectNames, "", 415, "application/json", nil},
		{"empty post", "POST", "/", "application/sparql-query", "", "", 400, "application/json", nil},
		{"service description", "GET", "/", "", "", "text/turtle", 200, "text/turtle",
			[]string{"sd:Service", "<http://hub.example/g/r/p/sparql>"}},
		{"hidden graph", "GET", "/?default-graph-uri=secret&query=" + q(selectNames), "", "", "", 404, "application/json", nil},
		{"memory budget", "GET", "/?query=" + q("SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o } ORDER BY ?a"), "", "", "", 503,
			"application/json", []string{"memory"}},
		{"delete not allowed", "DELETE", "/", "", "", "", 405, "application/json", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
			if c.ctype != "" {
				req.Header.Set("Content-Type", c.ctype)
			}
			if c.accept != "" {
				req.Header.Set("Accept", c.accept)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.status, rec.Body.String())
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, c.wantType) {
				t.Errorf("Content-Type %q, want %q", ct, c.wantType)
			}
			if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Error("missing CORS header")
			}
			for _, s := range c.contains {
				if !strings.Contains(rec.Body.String(), s) {
					t.Errorf("body lacks %q:\n%s", s, rec.Body.String())
				}
			}
			if c.status >= 400 {
				var b map[string]any
				if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || b["message"] == "" {
					t.Errorf("error body is not the JSON error document: %s", rec.Body.String())
				}
			}
		})
	}
}

func TestPreflight(t *testing.T) {
	rec := httptest.NewRecorder()
	testHandler(t).ServeHTTP(rec, httptest.NewRequest("OPTIONS", "/", nil))
	if rec.Code != 204 || !strings.Contains(rec.Header().Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %d %v", rec.Code, rec.Header())
	}
}

// TestSPARQLWrapper queries the endpoint with a real SPARQL client (Debian's python3-sparqlwrapper).
func TestSPARQLWrapper(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import SPARQLWrapper").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3-sparqlwrapper is required under CI: %v", err)
		}
		t.Skipf("python3-sparqlwrapper not installed (apt-get install python3-sparqlwrapper): %v", err)
	}
	srv := httptest.NewServer(testHandler(t))
	defer srv.Close()
	script := filepath.Join(t.TempDir(), "client.py")
	src := `import sys
from SPARQLWrapper import SPARQLWrapper, JSON, POST
for method in ("GET", "POST"):
    s = SPARQLWrapper(sys.argv[1])
    s.setQuery("SELECT ?n WHERE { ?s <http://ex.org/name> ?n } ORDER BY ?n")
    s.setReturnFormat(JSON)
    if method == "POST":
        s.setMethod(POST)
    r = s.query().convert()
    print(method, ",".join(b["n"]["value"] for b in r["results"]["bindings"]))
s = SPARQLWrapper(sys.argv[1])
s.setQuery("ASK { ?s ?p 42 }")
s.setReturnFormat(JSON)
print("ASK", s.query().convert()["boolean"])
# An update, as SPARQLWrapper sends it (POST, form field update=): refused, saying why.
s = SPARQLWrapper(sys.argv[1])
s.setQuery("INSERT DATA { <http://ex.org/a> <http://ex.org/b> 1 }")
s.setMethod(POST)
try:
    s.query()
    print("UPDATE accepted")
except Exception as e:
    print("UPDATE", type(e).__name__, "not SPARQL Update" in str(e))
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, script, srv.URL+"/sparql").CombinedOutput()
	if err != nil {
		t.Fatalf("SPARQLWrapper failed: %v\n%s", err, out)
	}
	if want := "GET Alice,Bob\nPOST Alice,Bob\nASK True\nUPDATE QueryBadFormed True\n"; string(out) != want {
		t.Errorf("SPARQLWrapper printed %q, want %q", out, want)
	}
}

// TestConstructInEveryFormat asks for a CONSTRUCT answer in every media type the registry writes (aliases such as
// application/x-turtle included) and reads each answer back with the same syntax's decoder.
func TestConstructInEveryFormat(t *testing.T) {
	h := testHandler(t)
	reg := codec.Default()
	const query = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"
	for _, syn := range reg.Syntaxes() {
		if !syn.CanEncode() {
			continue
		}
		for _, mt := range syn.MediaTypes {
			req := httptest.NewRequest("GET", "/?query="+url.QueryEscape(query), nil)
			req.Header.Set("Accept", mt)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), mt) {
				t.Errorf("%s: %d %s", mt, rec.Code, rec.Header().Get("Content-Type"))
				continue
			}
			dec := syn.NewDecoder(strings.NewReader(rec.Body.String()), rdf.DecodeOptions{})
			n := 0
			for {
				_, err := dec.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Errorf("%s: reading the answer back: %v\n%s", mt, err, rec.Body.String())
					}
					break
				}
				n++
			}
			if n != 4 {
				t.Errorf("%s: %d triples read back, want 4:\n%s", mt, n, rec.Body.String())
			}
		}
	}
}
