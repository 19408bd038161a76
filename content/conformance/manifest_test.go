package conformance

import (
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// The counts are those of the suites README, which were made by walking mf:entries independently.
func TestLoadManifestCounts(t *testing.T) {
	dir := SuitesDir(t)
	tests := []struct {
		path  string
		count int
		first string
	}{
		{"rdf/rdf11/rdf-turtle/manifest.ttl", 313, "IRI_subject"},
		{"rdf/rdf11/rdf-trig/manifest.ttl", 356, "anonymous_blank_node_graph"},
		{"rdf/rdf11/rdf-n-triples/manifest.ttl", 70, ""},
		{"rdf/rdf11/rdf-n-quads/manifest.ttl", 87, ""},
		{"rdf/rdf11/rdf-xml/manifest.ttl", 166, ""},
		{"sparql/sparql11/manifest-sparql11-query.ttl", 328, ""},
		{"sparql/sparql10/manifest.ttl", 482, ""},
		{"rdf-canon/manifest.ttl", 86, ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			m, err := LoadManifest(filepath.Join(dir, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Tests) != tc.count {
				t.Errorf("%d tests, want %d", len(m.Tests), tc.count)
			}
			if tc.first != "" && len(m.Tests) > 0 && m.Tests[0].Name != tc.first {
				t.Errorf("first test %q, want %q", m.Tests[0].Name, tc.first)
			}
			for _, x := range m.Tests {
				if x.IRI == "" || len(x.Types) == 0 || x.Action.IsZero() {
					t.Errorf("incomplete test %+v", x)
					break
				}
			}
		})
	}
}

func TestManifestFieldsAndPaths(t *testing.T) {
	dir := SuitesDir(t)
	m, err := LoadManifest(filepath.Join(dir, "sparql/sparql11/manifest-sparql11-query.ttl"))
	if err != nil {
		t.Fatal(err)
	}
	var bind01 *Test
	for i := range m.Tests {
		if m.Tests[i].IRI == "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/bind/manifest#bind01" {
			bind01 = &m.Tests[i]
		}
	}
	if bind01 == nil {
		t.Fatal("bind01 not found")
	}
	if !bind01.HasType(MF+"QueryEvaluationTest") || bind01.Approval != DAWGT+"Approved" {
		t.Errorf("bind01 = %+v", bind01)
	}
	q := m.Object(bind01.Action, QT+"query")
	want := filepath.Join(dir, "sparql/sparql11/bind/bind01.rq")
	if abs, _ := filepath.Abs(want); LocalPath(q) != abs {
		t.Errorf("LocalPath(%v) = %q, want %q", q, LocalPath(q), abs)
	}
	if got, w := W3CBase(LocalPath(q)), "https://w3c.github.io/rdf-tests/sparql/sparql11/bind/bind01.rq"; got != w {
		t.Errorf("W3CBase = %q, want %q", got, w)
	}
	if LocalPath(rdf.IRI("http://example.org/x")) != "" {
		t.Error("LocalPath of an http IRI should be empty")
	}
	for in, want := range map[string]string{
		"rdf/rdf11/rdf-turtle/turtle-subm-01.ttl": "https://w3c.github.io/rdf-tests/rdf/rdf11/rdf-turtle/turtle-subm-01.ttl",
		"json-ld/toRdf/0001-in.jsonld":            "https://w3c.github.io/json-ld-api/tests/toRdf/0001-in.jsonld",
		"rdf-canon/rdfc10/test001-in.nq":          "https://w3c.github.io/rdf-canon/tests/rdfc10/test001-in.nq",
	} {
		if got := W3CBase(filepath.Join(dir, in)); got != want {
			t.Errorf("W3CBase(%s) = %q, want %q", in, got, want)
		}
	}
}
