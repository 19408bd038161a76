package prefixes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

func TestNamespace(t *testing.T) {
	for _, tt := range []struct{ iri, want string }{
		{"http://www.w3.org/2004/02/skos/core#Concept", "http://www.w3.org/2004/02/skos/core#"},
		{"http://example.org/def/road/Bridge", "http://example.org/def/road/"},
		{"http://example.org/def/road/", ""}, // no local part
		{"http://example.org", ""},           // the authority is not a namespace
		{"http://example.org/a?b=c", ""},     // '?' cannot be in a local name
		{"urn:isbn:123", ""},                 // no '/' or '#'
		{"http://example.org/x/1.0", "http://example.org/x/"},
	} {
		if got := Namespace(tt.iri); got != tt.want {
			t.Errorf("Namespace(%q) = %q, want %q", tt.iri, got, tt.want)
		}
	}
}

func TestPrefixes(t *testing.T) {
	c := NewCounter()
	add := func(s, p, o string) {
		c.Add(rdf.Quad{S: rdf.IRI(s), P: rdf.IRI(p), O: rdf.IRI(o)})
	}
	for i := range 20 {
		add(fmt.Sprintf("http://example.org/def/road/T%d", i), "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", "http://www.w3.org/2002/07/owl#Class")
	}
	add("http://other.example/x/once", "http://www.w3.org/2000/01/rdf-schema#seeAlso", "http://example.org/def/road/T1")
	// A dataset's own declaration wins over both the well-known name and an invented one.
	got := c.Prefixes([]rdf.Prefix{{Name: "r", IRI: "http://example.org/def/road/"}})
	var names []string
	for _, p := range got {
		names = append(names, p.Name+"="+p.IRI)
	}
	want := "r=http://example.org/def/road/ rdf=http://www.w3.org/1999/02/22-rdf-syntax-ns# rdfs=http://www.w3.org/2000/01/rdf-schema# owl=http://www.w3.org/2002/07/owl#"
	if strings.Join(names, " ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(names, " "), want)
	}
	// Without a declaration the frequent namespace gets a name from its path; the rare one none.
	got = c.Prefixes(nil)
	if last := got[len(got)-1]; last.Name != "road" || last.IRI != "http://example.org/def/road/" {
		t.Fatalf("invented prefix %+v", last)
	}
	for _, p := range got {
		if strings.HasPrefix(p.IRI, "http://other.example/") {
			t.Fatalf("a namespace used once got a prefix: %+v", p)
		}
	}
}

func TestNameFor(t *testing.T) {
	taken := map[string]bool{"road": true}
	for _, tt := range []struct{ ns, want string }{
		{"http://example.org/def/road/", "road2"},
		{"http://example.org/ontology/v1/", "ontology"},
		{"https://www.data.example/", "data"},
		{"http://example.org/2024/", "example"},
		{"http://123.example/", "ns"},
		{"http://example.org/My_Vocab#", "my_vocab"},
	} {
		if got := nameFor(tt.ns, taken); got != tt.want {
			t.Errorf("nameFor(%q) = %q, want %q", tt.ns, got, tt.want)
		}
	}
}

func TestPick(t *testing.T) {
	got := Pick("skos", "rdf")
	if len(got) != 2 || got[0].IRI != "http://www.w3.org/2004/02/skos/core#" || got[1].Name != "rdf" {
		t.Fatalf("Pick: %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown name did not panic")
		}
	}()
	Pick("nope")
}
