package index

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
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
