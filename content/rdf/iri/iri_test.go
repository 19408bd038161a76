package iri

import "testing"

// Cases from RFC 3986 §5.4 (normal and abnormal examples).
func TestResolveRFC3986(t *testing.T) {
	const base = "http://a/b/c/d;p?q"
	cases := map[string]string{
		"g:h": "g:h", "g": "http://a/b/c/g", "./g": "http://a/b/c/g", "g/": "http://a/b/c/g/",
		"/g": "http://a/g", "//g": "http://g", "?y": "http://a/b/c/d;p?y", "g?y": "http://a/b/c/g?y",
		"#s": "http://a/b/c/d;p?q#s", "g#s": "http://a/b/c/g#s", "g?y#s": "http://a/b/c/g?y#s",
		";x": "http://a/b/c/;x", "g;x": "http://a/b/c/g;x", "g;x?y#s": "http://a/b/c/g;x?y#s",
		"": "http://a/b/c/d;p?q", ".": "http://a/b/c/", "./": "http://a/b/c/", "..": "http://a/b/",
		"../": "http://a/b/", "../g": "http://a/b/g", "../..": "http://a/", "../../": "http://a/",
		"../../g": "http://a/g", "../../../g": "http://a/g", "../../../../g": "http://a/g",
		"/./g": "http://a/g", "/../g": "http://a/g", "g.": "http://a/b/c/g.", ".g": "http://a/b/c/.g",
		"g..": "http://a/b/c/g..", "..g": "http://a/b/c/..g", "./../g": "http://a/b/g", "./g/.": "http://a/b/c/g/",
		"g/./h": "http://a/b/c/g/h", "g/../h": "http://a/b/c/h", "g;x=1/./y": "http://a/b/c/g;x=1/y",
		"g;x=1/../y": "http://a/b/c/y", "g?y/./x": "http://a/b/c/g?y/./x", "g?y/../x": "http://a/b/c/g?y/../x",
		"g#s/./x": "http://a/b/c/g#s/./x", "g#s/../x": "http://a/b/c/g#s/../x", "http:g": "http:g",
	}
	for ref, want := range cases {
		got, err := Resolve(base, ref)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
}

func TestResolveEdges(t *testing.T) {
	cases := []struct{ base, ref, want string }{
		{"http://example.org", "a", "http://example.org/a"},
		{"http://example.org/a#frag", "#x", "http://example.org/a#x"},
		{"urn:ex:a", "#x", "urn:ex:a#x"},
		{"file:///tmp/x.ttl", "y", "file:///tmp/y"},
		{"http://ex.org/a/b", "", "http://ex.org/a/b"},
		{"http://ex.org/a/b#f", "", "http://ex.org/a/b"},
	}
	for _, c := range cases {
		got, err := Resolve(c.base, c.ref)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", c.base, c.ref, got, err, c.want)
		}
	}
	if _, err := Resolve("", "rel"); err == nil {
		t.Error("relative reference without base must fail")
	}
}

func TestRelative(t *testing.T) {
	cases := []struct{ base, abs, want string }{
		{"http://ex.org/p/", "http://ex.org/p/Thing", "Thing"},
		{"http://ex.org/p/doc", "http://ex.org/p/doc#x", "#x"},
		{"http://ex.org/p/doc", "http://ex.org/q/x", "http://ex.org/q/x"},
		{"http://ex.org/p/", "http://ex.org/p/a/b", "http://ex.org/p/a/b"},
		{"http://ex.org/p/", "http://ex.org/p/a:b", "http://ex.org/p/a:b"},
	}
	for _, c := range cases {
		got := Relative(c.base, c.abs)
		if got != c.want {
			t.Errorf("Relative(%q, %q) = %q; want %q", c.base, c.abs, got, c.want)
		}
		if got != c.abs {
			back, _ := Resolve(c.base, got)
			if back != c.abs {
				t.Errorf("Relative(%q, %q) = %q does not resolve back (%q)", c.base, c.abs, got, back)
			}
		}
	}
}
