package index

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// warmData is a saved dataset of 3·2^15 triples over 2^15 subjects, enough rows for fences (fenceMin): the file's
// path.
func warmData(t *testing.T) string {
	t.Helper()
	b := NewBuilder()
	for i := range 1 << 15 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		for j, p := range []string{"a", "b", "c"} {
			if err := b.Add(rdf.Triple(s, rdf.IRI("http://ex.org/"+p), rdf.String(fmt.Sprint(i*3+j)))); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "x.idx")
	if err := b.Build().Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// openFile opens the index file at path; it is closed when the test ends.
func openFile(t *testing.T, path string) *Dataset {
	t.Helper()
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestWarmBuildsWhatFirstQueriesNeed: Warm builds the default graph's SPO fences and subject starts, which a
// process's far subject probes built before (the first query after a start paid for them), and they give the
// answers a plain search gives. Without Warm nothing is built until far probes add up.
func TestWarmBuildsWhatFirstQueriesNeed(t *testing.T) {
	d := openFile(t, warmData(t))
	g := d.Default
	if g.fences[SPO].Load() != nil || g.starts.Load() != nil {
		t.Fatal("fences or starts built on open")
	}
	d.Warm(t.Context())
	if g.fences[SPO].Load() == nil || g.starts.Load() == nil {
		t.Fatal("Warm built no SPO fences or subject starts")
	}
	for _, s := range []string{"http://ex.org/s0", "http://ex.org/s4097", "http://ex.org/s32767"} {
		id := d.Dict.Lookup(rdf.IRI(s))
		if id == 0 {
			t.Fatalf("%s not in the dictionary", s)
		}
		lo, hi, ok := g.subjectRange(id)
		if !ok || hi-lo != 3 {
			t.Errorf("%s: starts give rows %d:%d (%v), want 3 rows", s, lo, hi, ok)
		}
		if m := g.Match(id, 0, 0); m.Len() != 3 {
			t.Errorf("%s: %d rows after Warm, want 3", s, m.Len())
		}
	}
}

// TestCloseEndsWarm: Close ends a Warm in progress and waits for it before the file is unmapped (a Warm reading
// an unmapped page would crash the process), and no Warm starts after Close.
func TestCloseEndsWarm(t *testing.T) {
	path := warmData(t)
	for range 20 {
		d := openFile(t, path)
		started := make(chan struct{})
		done := make(chan struct{})
		go func() {
			close(started)
			d.Warm(t.Context())
			close(done)
		}()
		<-started
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		<-done
		d.Warm(t.Context()) // after Close: returns at once, touching nothing
		if d.warm.done != nil && !d.warm.closed {
			t.Fatal("a Warm registered after Close")
		}
	}
}
