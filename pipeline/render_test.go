package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/tree"
)

// largeNTriples is N-Triples above codec.StreamAbove, so every graph dump takes its streaming encoder: runs of subjects,
// a subject that comes back later, typed and language-tagged literals, characters that need escaping.
func largeNTriples() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() <= codec.StreamAbove+(64<<10); i++ {
		s := fmt.Sprintf("<http://example.org/product/%d>", i/5)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "%s <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/vocab/Product%d> .\n", s, i%3)
		case 1:
			fmt.Fprintf(&b, "%s <http://www.w3.org/2000/01/rdf-schema#label> \"product <%d> & \\\"more\\\"\\n\"@en .\n", s, i)
		case 2:
			fmt.Fprintf(&b, "%s <http://example.org/vocab/price> \"%d.5\"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n", s, i)
		case 3:
			fmt.Fprintf(&b, "%s <http://purl.org/dc/terms/publisher> <http://example.org/publisher/%d> .\n", s, i%17)
		default:
			fmt.Fprintf(&b, "<http://example.org/product/%d> <http://example.org/other#ref> %s .\n", i%7, s)
		}
	}
	return b.Bytes()
}

func readDump(t *testing.T, path string, syn codec.Syntax, gz bool) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if gz {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	dec := syn.NewDecoder(r, rdf.DecodeOptions{Base: "http://wrong.example/"})
	var out []string
	for {
		q, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, q.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestLargeVersionDumpsReadBack renders a version large enough to be streamed, twice: every dump and its .gz
// sibling (written afterwards, as after the switch) must read back as the source graph, and both renderings must
// be byte-identical.
func TestLargeVersionDumpsReadBack(t *testing.T) {
	reg := codec.Default()
	nt, _ := reg.ByName("n-triples")
	data := largeNTriples()
	src := source{data: data, syntax: nt, base: "http://hub.example/org/open/large/"}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var dirs []string
	for range 2 {
		dir := t.TempDir()
		r, err := renderVersion(context.Background(), reg, dir, src, mtime, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.skipped) > 0 || len(r.formats) != len(graphSyntaxes) {
			t.Fatalf("formats %v, skipped %v", r.formats, r.skipped)
		}
		// A large version's siblings are written after the switch (gzip.go), not by renderVersion.
		if len(r.unzipped) != len(r.formats) {
			t.Fatalf("dumps left to compress: %v, want every one of %v", r.unzipped, r.formats)
		}
		for _, name := range r.unzipped {
			if _, err := os.Stat(filepath.Join(dir, name+".gz")); !os.IsNotExist(err) {
				t.Fatalf("%s.gz written with the dump (%v)", name, err)
			}
			if ok, err := (&Pipeline{}).gzipDump(context.Background(), dir, name, false); !ok || err != nil {
				t.Fatalf("compressing %s: %v %v", name, ok, err)
			}
		}
		dirs = append(dirs, dir)
	}
	want := readDump(t, filepath.Join(dirs[0], tree.DataBase+".nt"), nt, false)
	if len(want) < 30000 {
		t.Fatalf("only %d distinct triples in the N-Triples dump", len(want))
	}
	for _, name := range graphSyntaxes {
		syn, _ := reg.ByName(name)
		file := tree.DataBase + syn.Extensions[0]
		for _, gz := range []bool{false, true} {
			p := filepath.Join(dirs[0], file)
			if gz {
				p += ".gz"
			}
			if got := readDump(t, p, syn, gz); !slices.Equal(got, want) {
				t.Errorf("%s (gz %v): %d distinct triples read back, want %d", file, gz, len(got), len(want))
			}
		}
	}
	if name := tree.DataBase + ".rdf"; !strings.Contains(readHead(t, filepath.Join(dirs[0], name)), "<rdf:RDF") {
		t.Errorf("%s is not RDF/XML", name)
	}
	ents, err := os.ReadDir(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		a, errA := os.ReadFile(filepath.Join(dirs[0], e.Name()))
		b, errB := os.ReadFile(filepath.Join(dirs[1], e.Name()))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two renderings of the same content (%v, %v)", e.Name(), errA, errB)
		}
	}
}

func readHead(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	return string(b[:n])
}

// TestNTriplesDumpsGetPrefixes: an upload without prefix declarations is dumped in Turtle with the well-known
// prefixes it uses and one for its own frequent namespace (prefixes.Counter), not with every IRI in full.
func TestNTriplesDumpsGetPrefixes(t *testing.T) {
	reg := codec.Default()
	nt, _ := reg.ByName("n-triples")
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "<http://example.org/def/road/T%d> <http://www.w3.org/2004/02/skos/core#prefLabel> \"t%d\"@en .\n", i, i)
	}
	src := source{data: []byte(b.String()), syntax: nt, base: "http://hub.example/org/open/roads/"}
	dir := t.TempDir()
	if _, err := renderVersion(context.Background(), reg, dir, src, time.Now(), false); err != nil {
		t.Fatal(err)
	}
	ttl, err := os.ReadFile(filepath.Join(dir, tree.DataBase+".ttl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"@prefix skos: <http://www.w3.org/2004/02/skos/core#>", "@prefix road: <http://example.org/def/road/>", "road:T3 skos:prefLabel"} {
		if !strings.Contains(string(ttl), want) {
			t.Errorf("Turtle dump lacks %q:\n%s", want, ttl)
		}
	}
}
