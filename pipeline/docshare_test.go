package pipeline

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/ldhub/ldhub/site/tree"
)

// TestSharedDocs: readers of one terms.json at the same time get one decoded copy; a replaced file is decoded
// anew; a missing one is none, a broken one an error.
func TestSharedDocs(t *testing.T) {
	dir := t.TempDir()
	write := func(iri string) {
		t.Helper()
		b := []byte(`{"terms":[{"iri":"` + iri + `","kinds":["class"]}]}`)
		if err := os.WriteFile(filepath.Join(dir, tree.Terms), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var s sharedDocs
	if d, err := s.read(dir); d != nil || err != nil {
		t.Fatalf("no terms.json: %v, %v", d, err)
	}
	write("http://example.org/A")
	var wg sync.WaitGroup
	docs := make([]any, 4)
	for i := range docs {
		wg.Go(func() {
			d, err := s.read(dir)
			if err != nil || d == nil || len(d.Terms) != 1 {
				t.Errorf("read %d: %v, %v", i, d, err)
			}
			docs[i] = d
		})
	}
	wg.Wait()
	for i := range docs {
		if docs[i] != docs[0] {
			t.Errorf("reader %d got a copy of its own", i)
		}
	}
	runtime.KeepAlive(docs)
	write("http://example.org/Bee")
	if d, err := s.read(dir); err != nil || d == nil || d.Terms[0].IRI != "http://example.org/Bee" {
		t.Errorf("replaced file: %v, %v", d, err)
	}
	if err := os.WriteFile(filepath.Join(dir, tree.Terms), []byte(`{"terms":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.read(dir); err == nil {
		t.Error("a broken terms.json read without an error")
	}
}
