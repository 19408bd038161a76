package codec_test

import (
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

func TestDefaultLookups(t *testing.T) {
	r := codec.Default()
	tests := []struct {
		how, key string
		want     string // syntax name, "" for no match
	}{
		{"name", "turtle", "turtle"},
		{"name", "N-Triples", "n-triples"},
		{"name", "nope", ""},
		{"media", "text/turtle", "turtle"},
		{"media", "Text/Turtle; charset=UTF-8", "turtle"},
		{"media", "application/x-turtle", "turtle"},
		{"media", "application/n-triples", "n-triples"},
		{"media", "application/n-quads", "n-quads"},
		{"media", "application/trig", "trig"},
		{"media", "text/n3", "n3"},
		{"media", "application/ld+json;profile=\"http://www.w3.org/ns/json-ld#expanded\"", "json-ld"},
		{"media", "text/html", ""},
		{"media", "", ""},
		{"ext", ".ttl", "turtle"},
		{"ext", "TTL", "turtle"},
		{"ext", ".nt", "n-triples"},
		{"ext", ".nq", "n-quads"},
		{"ext", ".trig", "trig"},
		{"ext", ".n3", "n3"},
		{"ext", ".jsonld", "json-ld"},
		{"ext", ".rdf", "rdf-xml"},
		{"ext", ".owl", "rdf-xml"},
		{"ext", ".xml", "rdf-xml"},
		{"media", "application/rdf+xml", "rdf-xml"},
		{"media", "application/rdf+json", "rdf-json"},
		{"ext", ".rj", "rdf-json"},
		{"ext", ".txt", ""},
		{"path", "/data/x.Ttl", "turtle"},
		{"path", "archive.tar.nq", "n-quads"},
		{"path", "README", ""},
		{"lookup", "TriG", "trig"},
		{"lookup", "application/n-quads", "n-quads"},
		{"lookup", "ttl", "turtle"},
		{"lookup", ".rdf", "rdf-xml"},
		{"lookup", "yaml", ""},
	}
	for _, tt := range tests {
		t.Run(tt.how+" "+tt.key, func(t *testing.T) {
			var s codec.Syntax
			var ok bool
			switch tt.how {
			case "name":
				s, ok = r.ByName(tt.key)
			case "media":
				s, ok = r.ByMediaType(tt.key)
			case "ext":
				s, ok = r.ByExtension(tt.key)
			case "path":
				s, ok = r.ByPath(tt.key)
			case "lookup":
				s, ok = r.Lookup(tt.key)
			}
			if ok != (tt.want != "") || s.Name != tt.want {
				t.Errorf("got %q, %v; want %q", s.Name, ok, tt.want)
			}
		})
	}
}

// Every registered syntax is complete, and its first media type and extension map back to it.
func TestDefaultConsistent(t *testing.T) {
	r := codec.Default()
	for _, s := range r.Syntaxes() {
		if s.NewDecoder == nil || len(s.MediaTypes) == 0 || len(s.Extensions) == 0 {
			t.Errorf("%s is incomplete", s.Name)
			continue
		}
		if got, _ := r.ByMediaType(s.MediaTypes[0]); got.Name != s.Name {
			t.Errorf("%s: media type %s maps to %q", s.Name, s.MediaTypes[0], got.Name)
		}
		if got, _ := r.ByExtension(s.Extensions[0]); got.Name != s.Name {
			t.Errorf("%s: extension %s maps to %q", s.Name, s.Extensions[0], got.Name)
		}
	}
	if n3, _ := r.ByName("n3"); n3.CanEncode() {
		t.Error("n3 is decode-only")
	}
}

func TestNewRegistryRejectsDuplicates(t *testing.T) {
	dec := func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewDecoder(r, o) }
	tests := []struct {
		name string
		syn  []codec.Syntax
	}{
		{"same name", []codec.Syntax{{Name: "a", MediaTypes: []string{"x/a"}, NewDecoder: dec}, {Name: "A", MediaTypes: []string{"x/b"}, NewDecoder: dec}}},
		{"same media type", []codec.Syntax{{Name: "a", MediaTypes: []string{"x/a"}, NewDecoder: dec}, {Name: "b", MediaTypes: []string{"X/A"}, NewDecoder: dec}}},
		{"same extension", []codec.Syntax{{Name: "a", MediaTypes: []string{"x/a"}, Extensions: []string{".a"}, NewDecoder: dec},
			{Name: "b", MediaTypes: []string{"x/b"}, Extensions: []string{".a"}, NewDecoder: dec}}},
		{"extension without dot", []codec.Syntax{{Name: "a", MediaTypes: []string{"x/a"}, Extensions: []string{"a"}, NewDecoder: dec}}},
		{"no decoder", []codec.Syntax{{Name: "a", MediaTypes: []string{"x/a"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := codec.NewRegistry(tt.syn...); err == nil {
				t.Error("want an error")
			}
		})
	}
}

func TestNegotiate(t *testing.T) {
	offers := []string{"text/turtle", "application/n-triples", "application/ld+json", "text/html"}
	tests := []struct {
		name, accept string
		want         string // "" when nothing is acceptable
	}{
		{"empty header takes the server's first", "", "text/turtle"},
		{"exact", "application/ld+json", "application/ld+json"},
		{"case-insensitive", "Application/LD+JSON", "application/ld+json"},
		{"highest q wins", "text/turtle;q=0.5, application/n-triples;q=0.9", "application/n-triples"},
		{"ties keep server order", "application/ld+json, text/turtle", "text/turtle"},
		{"wildcard", "*/*", "text/turtle"},
		{"type wildcard", "application/*", "application/n-triples"},
		{"specific q=0 beats wildcard", "text/*, text/turtle;q=0", "text/html"},
		{"more specific range sets the weight", "*/*;q=0.1, application/ld+json;q=0.5", "application/ld+json"},
		{"wildcard weight applies to the rest", "text/turtle;q=0.2, */*;q=0.3", "application/n-triples"},
		{"q=0 everywhere", "*/*;q=0", ""},
		{"nothing matches", "image/png", ""},
		{"browser header", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html"},
		{"spaces and params", " text/turtle ; charset=utf-8 ; q=0.7 , application/n-triples ; q=0.6", "application/n-triples"},
		{"malformed range ignored", "garbage, text/*;q=0.5", "text/turtle"},
		{"bad q ignored", "text/turtle;q=2, application/n-triples;q=0.4", "application/n-triples"},
		{"q with too many digits ignored", "text/turtle;q=0.1234, application/ld+json;q=0.1", "application/ld+json"},
		{"NaN weight ignored", "text/turtle;q=NaN, application/ld+json;q=0.1", "application/ld+json"},
		{"quoted comma in parameter", `text/turtle;x="a,b";q=0.9, application/ld+json;q=0.1`, "application/ld+json"},
		{"accept-extension after q", "application/n-triples;q=0.9;ext=1", "application/n-triples"},
		{"invalid */sub", "*/turtle", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := codec.Negotiate(tt.accept, offers)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("Negotiate(%q) = %q, %v; want %q", tt.accept, got, ok, tt.want)
			}
		})
	}
	// A range with a parameter matches only offers carrying it.
	if got, _ := codec.Negotiate(`text/turtle;charset=utf-8`, []string{"text/turtle", "text/turtle; charset=UTF-8"}); got != "text/turtle; charset=UTF-8" {
		t.Errorf("parameterised range matched %q", got)
	}
	if _, ok := codec.Negotiate("*/*", nil); ok {
		t.Error("no offers must not negotiate")
	}
}

func TestRegistryNegotiate(t *testing.T) {
	r := codec.Default()
	tests := []struct{ accept, want string }{
		{"application/n-quads", "n-quads"},
		{"text/n3", ""}, // decode-only syntaxes are never offered
		{"*/*", "turtle"},
		{"application/ld+json;q=1, application/n-triples;q=0.5", "json-ld"},
	}
	for _, tt := range tests {
		s, ok := r.Negotiate(tt.accept, nil)
		if ok != (tt.want != "") || s.Name != tt.want {
			t.Errorf("Negotiate(%q) = %q, %v; want %q", tt.accept, s.Name, ok, tt.want)
		}
	}
	if !strings.Contains(strings.Join(r.Writable(), " "), "application/n-triples") {
		t.Errorf("Writable() = %v lacks N-Triples", r.Writable())
	}
}
