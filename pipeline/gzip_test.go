package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
)

// gunzip reads a .gz file whole.
func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// checkSiblings: every dump of the folder has a .gz sibling holding exactly its bytes, with its modification time.
func checkSiblings(t *testing.T, dir string, formats []tree.Format) {
	t.Helper()
	for _, f := range formats {
		plain := filepath.Join(dir, f.File())
		want, err := os.ReadFile(plain)
		if err != nil {
			t.Fatal(err)
		}
		if got := gunzip(t, plain+".gz"); !bytes.Equal(got, want) {
			t.Errorf("%s.gz: %d bytes uncompressed, not the %d of its dump", plain, len(got), len(want))
		}
		a, _ := os.Stat(plain)
		b, _ := os.Stat(plain + ".gz")
		if !a.ModTime().Equal(b.ModTime()) || b.Mode().Perm() != 0o644 {
			t.Errorf("%s.gz: time %v mode %v, want the dump's %v and 0644", plain, b.ModTime(), b.Mode(), a.ModTime())
		}
	}
}

func testPipeline(t *testing.T, h *pipelinetest.Hub, out string) *Pipeline {
	t.Helper()
	p, err := New(Options{Store: h.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readPage(t *testing.T, dir string) tree.Page {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, tree.PageJSON))
	if err != nil {
		t.Fatal(err)
	}
	var pg tree.Page
	if err := json.Unmarshal(b, &pg); err != nil {
		t.Fatal(err)
	}
	return pg
}

// TestLargeVersionGoesLiveBeforeItsGzip: a large version is switched live with its dumps but without their .gz
// siblings, which the background compressor adds afterwards, to the version folder and to the latest folder that
// serves it; never to the latest folder of another version, even when a newer version went live in between.
// A stop before they are written leaves them to the next sync.
func TestLargeVersionGoesLiveBeforeItsGzip(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	out := t.TempDir()
	p := testPipeline(t, h, out)
	q := newGzipQueue()
	p.gz.Store(q) // a compressor that has not run yet: the jobs wait in q
	data := string(largeNTriples())
	pub := h.Publish(t, h.Open.ID, "large", ".nt", data+"<http://example.org/m> <http://example.org/v> \"1\" .\n")
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	meta := tree.PubDir(tree.Root(out, false), "/org/open/large")
	cur := filepath.Join(meta, tree.Current)
	pg := readPage(t, cur)
	if len(pg.Formats) != len(graphSyntaxes) || p.Pending(pub.ID) {
		t.Fatalf("not live with every dump: %v (pending %v)", pg.Formats, p.Pending(pub.ID))
	}
	for _, f := range pg.Formats {
		if _, err := os.Stat(filepath.Join(cur, f.File())); f.Ext == ".ttl" || f.Ext == ".rdf" || f.Ext == ".jsonld" {
			if !os.IsNotExist(err) {
				t.Fatalf("%s is there before the worker wrote it (%v)", f.File(), err) // dumps.go
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(cur, f.File()+".gz")); !os.IsNotExist(err) {
			t.Fatalf("%s.gz is there before the compressor ran (%v)", f.File(), err)
		}
	}
	v1 := filepath.Join(meta, tree.Versions, filepath.Base(pg.Version.URL))

	// A second version goes live before the first one's siblings are written.
	h.Update(t, pub.ID, ".nt", data+"<http://example.org/m> <http://example.org/v> \"2\" .\n")
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	pg2 := readPage(t, cur)
	v2 := filepath.Join(meta, tree.Versions, filepath.Base(pg2.Version.URL))
	if v2 == v1 {
		t.Fatal("the second version has the first one's folder")
	}
	// The first version's folder is queued again by the second sync (it is still without siblings): writing them
	// twice is harmless, the second job finds them there.
	if n := len(q.jobs); n < 2 || q.jobs[0].dir != v1 || q.jobs[n-1].dir != v2 {
		t.Fatalf("queued %+v, want the first version's folder, then the second's", q.jobs)
	}
	// The worker's order: the late dumps of both versions (dumps.go), which queue their own siblings, then their
	// terms (terms.go), then the siblings. The first version's are queued again by the second sync, like its
	// siblings.
	if ds := q.takeDumps(); len(ds) < 2 || ds[0] != v1 || ds[len(ds)-1] != v2 {
		t.Fatalf("late dumps jobs %+v, want both versions'", ds)
	} else {
		for _, d := range ds {
			p.writeLateDumps(ctx, d, true)
		}
	}
	if ts := q.takeTerms(); len(ts) < 2 || ts[0].dir != v1 || ts[len(ts)-1].dir != v2 {
		t.Fatalf("terms jobs %+v, want both versions'", ts)
	} else {
		for _, j := range ts {
			if _, err := p.writeLaterTerms(ctx, j, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	for {
		j, ok := q.next()
		if !ok {
			break
		}
		p.gzipFolder(ctx, j, true)
	}
	checkSiblings(t, v1, pg.Formats)
	checkSiblings(t, v2, pg2.Formats)
	checkSiblings(t, cur, pg2.Formats)
	for _, f := range pg2.Formats {
		a, _ := os.Stat(filepath.Join(cur, f.File()+".gz"))
		b, _ := os.Stat(filepath.Join(v2, f.File()+".gz"))
		if !os.SameFile(a, b) {
			t.Errorf("%s.gz of the latest folder is not the second version's", f.File())
		}
		if !strings.Contains(string(gunzip(t, filepath.Join(cur, f.File()+".gz"))), "2") {
			t.Errorf("%s.gz of the latest folder lacks the second version's marker", f.File())
		}
	}

	// A stop before the siblings were written: the next sync (of an unchanged publication) writes them.
	for _, dir := range []string{v2, cur} {
		if err := os.Remove(filepath.Join(dir, "data.ttl.gz")); err != nil {
			t.Fatal(err)
		}
	}
	p2 := testPipeline(t, h, out)
	res, err := p2.SyncRepository(ctx, h.Open.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rendered) != 0 {
		t.Fatalf("rendered %v again; only the siblings were missing", res.Rendered)
	}
	checkSiblings(t, v2, pg2.Formats)
	checkSiblings(t, cur, pg2.Formats)
}

// TestSmallVersionGzipsAtOnce: a small version's siblings are written with its dumps, before it goes live.
func TestSmallVersionGzipsAtOnce(t *testing.T) {
	h := pipelinetest.New(t)
	out := t.TempDir()
	p := testPipeline(t, h, out)
	q := newGzipQueue()
	p.gz.Store(q)
	h.Publish(t, h.Open.ID, "small", ".ttl", pipelinetest.Vocab)
	if _, err := p.SyncRepository(context.Background(), h.Open.ID); err != nil {
		t.Fatal(err)
	}
	cur := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/small"), tree.Current)
	checkSiblings(t, cur, readPage(t, cur).Formats)
	if len(q.jobs) != 0 {
		t.Errorf("queued %+v for a small version", q.jobs)
	}
}
