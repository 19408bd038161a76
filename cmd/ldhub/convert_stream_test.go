package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
)

// TestConvertLargeInputStreams: above codec.StreamAbove, Turtle, TriG, RDF/XML and JSON-LD are written by the
// streaming encoders (one block per subject run, prefixes from the first statements) and read back as the same
// graph.
func TestConvertLargeInputStreams(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() <= codec.StreamAbove+(16<<10); i++ {
		fmt.Fprintf(&b, "<http://example.org/item/%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/def/Thing> .\n", i/5)
		fmt.Fprintf(&b, "<http://example.org/item/%d> <http://example.org/def/label> \"item %d, line %d\" .\n", i/5, i/5, i)
	}
	in := writeFile(t, dir, "big.nt", b.String())
	reg := codec.Default()
	want := decodeFile(t, reg, in)
	for _, ext := range []string{".ttl", ".trig", ".rdf", ".jsonld"} {
		out := filepath.Join(dir, "out"+ext)
		if _, stderr, code := runCmd(t, "", in, out); code != 0 {
			t.Fatalf("%s: %s", ext, stderr)
		}
		text := readFile(t, out)
		// The pretty encoders nest and sort; the streaming ones keep each run of a subject together as it came.
		if strings.Count(text, "item 0, line 4") != 1 {
			t.Errorf("%s: unexpected output", ext)
		}
		if ext == ".ttl" && !strings.HasPrefix(text, "@prefix") {
			t.Errorf("turtle output is not the streaming form:\n%.400s", text)
		}
		got := decodeFile(t, reg, out)
		if !iso.Isomorphic(got, want) {
			t.Errorf("%s: %s", ext, iso.Diff(got, want))
		}
	}
}

func decodeFile(t *testing.T, reg *codec.Registry, path string) []rdf.Quad {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syn, _ := reg.ByPath(path)
	dec := syn.NewDecoder(f, rdf.DecodeOptions{})
	var out []rdf.Quad
	for {
		q, err := dec.Next()
		if err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, q)
	}
}
