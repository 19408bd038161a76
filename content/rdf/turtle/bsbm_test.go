package turtle_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/rdf/rdftest"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

// TestBSBMMatchesNTriples has the benchmark generator write the same graph as Turtle (prefixes, ';' lists, '[ ]'
// nodes, escapes, long literals) and as N-Triples, and requires the decoded Turtle to be isomorphic to it.
func TestBSBMMatchesNTriples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Python generator")
	}
	gen := filepath.Join(filepath.Dir(rdftest.ModuleRoot(t)), "shared", "bench", "gen-data.py")
	if _, err := os.Stat(gen); err != nil {
		t.Skipf("generator not found: %v", err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	dir := t.TempDir()
	ttl, nt := filepath.Join(dir, "d.ttl"), filepath.Join(dir, "d.nt")
	if out, err := exec.Command(py, gen, "10000", "-o", ttl, "-o", nt).CombinedOutput(); err != nil {
		t.Fatalf("gen-data.py: %v\n%s", err, out)
	}
	read := func(path string, dec func(f *os.File) rdf.Decoder) []rdf.Quad {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		qs, err := collect(dec(f))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return qs
	}
	got := read(ttl, func(f *os.File) rdf.Decoder { return turtle.NewDecoder(f, rdf.DecodeOptions{}) })
	want := read(nt, func(f *os.File) rdf.Decoder { return ntriples.NewDecoder(f, rdf.DecodeOptions{}) })
	if len(got) != 10000 || !iso.Isomorphic(got, want) {
		t.Fatalf("%d triples, not isomorphic to the N-Triples:\n%s", len(got), iso.Diff(got, want))
	}
}
