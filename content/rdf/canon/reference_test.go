package canon_test

import (
	"context"
	"fmt"
	"github.com/ldhub/ldhub/content/conformance"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/canon"
)

// rdfCanonizeDir returns the folder holding node_modules/rdf-canonize ($LDHUB_RDF_CANONIZE, else the bench tools'
// ~/.cache/ldhub-bench/node), skipping the test when it or node is missing.
func rdfCanonizeDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LDHUB_RDF_CANONIZE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "ldhub-bench", "node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "rdf-canonize")); err != nil {
		conformance.Missing(t, fmt.Sprintf("rdf-canonize not installed (%v): run ../shared/bench/setup.sh or set LDHUB_RDF_CANONIZE", err))
	}
	if _, err := exec.LookPath("node"); err != nil {
		conformance.Missing(t, "node not installed")
	}
	return dir
}

// TestAgainstRdfCanonize compares canonical N-Quads byte for byte with the reference implementation on random small
// datasets, a third of them with blank graph names (where even the tie-breaking on input order must agree).
func TestAgainstRdfCanonize(t *testing.T) {
	nodeDir := rdfCanonizeDir(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(99, 100))
	const n = 600
	want := make([][]byte, n)
	for c := range n {
		data := make([]byte, 4*(2+r.IntN(12)))
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		qs := quadsFromBytes(data)
		if c%3 == 0 {
			for i := range qs {
				if data[4*i+3]%4 == 3 {
					qs[i].G = rdf.Blank(fmt.Sprint("n", data[4*i+3]%6))
				}
			}
		}
		res, err := canon.Canonicalize(context.Background(), qs, canon.Options{MaxWork: -1})
		if err != nil {
			t.Fatal(err)
		}
		want[c] = res.NQuads()
		var in []byte
		for _, q := range qs {
			in = append(in, canon.Line(q)...)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%04d.in.nq", c)), in, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs(filepath.Join("testdata", "rdf-canonize.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("node", script, nodeDir, dir).CombinedOutput(); err != nil {
		t.Fatalf("rdf-canonize: %v\n%s", err, out)
	}
	for c := range n {
		js, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%04d.js.nq", c)))
		if err != nil {
			t.Fatal(err)
		}
		if string(js) != string(want[c]) {
			in, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%04d.in.nq", c)))
			t.Fatalf("case %d differs from rdf-canonize:\ninput\n%sours\n%srdf-canonize\n%s", c, in, want[c], js)
		}
	}
}
