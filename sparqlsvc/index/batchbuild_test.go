package index

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// batches hands out quads in batches of size and then end; BuildFrom must read it through NextBatch only.
type batches struct {
	quads []rdf.Quad
	size  int
	end   error
	nexts int
}

func (d *batches) Next() (rdf.Quad, error) {
	d.nexts++
	return rdf.Quad{}, errors.New("Next called on a batch source")
}

func (d *batches) NextBatch() ([]rdf.Quad, error) {
	if len(d.quads) == 0 {
		return nil, d.end
	}
	n := min(d.size, len(d.quads))
	qs := d.quads[:n]
	d.quads = d.quads[n:]
	return qs, nil
}

// TestBuildFromBatches: a batch source gives the very same index file as adding its quads one by one, and its
// error or a cancelled context stops the build.
func TestBuildFromBatches(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 20000} {
		quads := randomDataset(rand.New(rand.NewPCG(uint64(n), 9)), n)
		src := &batches{quads: quads, size: 4096, end: io.EOF}
		got, err := BuildFrom(t.Context(), src)
		if err != nil {
			t.Fatal(err)
		}
		if src.nexts != 0 {
			t.Fatalf("n=%d: Next called %d times", n, src.nexts)
		}
		b := NewBuilder()
		for _, q := range quads {
			if err := b.Add(q); err != nil {
				t.Fatal(err)
			}
		}
		want := b.Build()
		dir := t.TempDir()
		for name, d := range map[string]*Dataset{"batches": got, "add": want} {
			if err := d.Save(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		g, _ := os.ReadFile(filepath.Join(dir, "batches"))
		w, _ := os.ReadFile(filepath.Join(dir, "add"))
		if len(w) == 0 || !bytes.Equal(g, w) {
			t.Fatalf("n=%d: index from batches (%d bytes) differs from Add's (%d bytes)", n, len(g), len(w))
		}
	}
	quads := randomDataset(rand.New(rand.NewPCG(1, 2)), 10000)
	boom := errors.New("boom")
	if _, err := BuildFrom(t.Context(), &batches{quads: quads, size: 1000, end: boom}); !errors.Is(err, boom) {
		t.Errorf("decoder error: got %v, want boom", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := BuildFrom(ctx, &batches{quads: quads, size: 1000, end: io.EOF}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
}

// TestAddSubjectAndPredicateCache: Add's caches of the last subject and of recent predicates give the same index
// as the raw build (which has neither) when predicates outnumber the cache's slots, equal strings are separate
// copies or shared, and a subject recurs after others.
func TestAddSubjectAndPredicateCache(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var quads []rdf.Quad
	shared := make([]string, 300)
	for i := range shared {
		shared[i] = "http://ex.org/p" + strconv.Itoa(i)
	}
	s := rdf.IRI("http://ex.org/s0")
	for range 30000 {
		if r.IntN(4) == 0 {
			k := strconv.Itoa(r.IntN(500))
			s = rdf.IRI("http://ex.org/s" + k)
			if r.IntN(3) == 0 {
				s = rdf.Blank("b" + k)
			}
		}
		p := shared[r.IntN(len(shared))]
		o := rdf.IRI(shared[r.IntN(len(shared))]) // predicates as objects share their keys
		if r.IntN(2) == 0 {
			o = rdf.String("v" + strconv.Itoa(r.IntN(1000)))
		}
		quads = append(quads, rdf.Triple(s, rdf.IRI(p), o))
	}
	var doc strings.Builder
	enc := ntriples.NewQuadEncoder(&doc, rdf.EncodeOptions{})
	for _, q := range quads {
		if err := enc.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	// Both builds read the document, so blank nodes get the same labels; Add sees every other predicate as a
	// copy of its own.
	opts := func() rdf.DecodeOptions { return rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")} }
	dec := ntriples.NewQuadDecoder(strings.NewReader(doc.String()), opts())
	b := NewBuilder()
	for i := 0; ; i++ {
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			q.P.Value = strings.Clone(q.P.Value)
		}
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := BuildFrom(t.Context(), ntriples.NewQuadDecoder(strings.NewReader(doc.String()), opts()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, d := range map[string]*Dataset{"add": b.Build(), "raw": raw} {
		if err := d.Save(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	g, _ := os.ReadFile(filepath.Join(dir, "add"))
	w, _ := os.ReadFile(filepath.Join(dir, "raw"))
	if len(w) == 0 || !bytes.Equal(g, w) {
		t.Fatalf("index from Add (%d bytes) differs from the raw build's (%d bytes)", len(g), len(w))
	}
}
