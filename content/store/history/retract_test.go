package history

import (
	"context"
	"fmt"
	"testing"
)

// TestRetractionsWrittenByHand: retractions are read from the sidecar at the head whoever wrote it (a push), so
// they survive a rebuild; a retraction that leaves the retracted content in the tree does not bring that content
// back as a new version, and one that would leave nothing leaves the newest version offered.
func TestRetractionsWrittenByHand(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	meta := func(commits ...string) string {
		s := `{"id": "pub-1", "versioningMode": "INCREMENTAL", "retractedVersions": [`
		for i, c := range commits {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf(`{"commit": %q}`, c)
		}
		return s + "]}"
	}
	c1 := r.commit(map[string]string{"core.ttl": "1", "core.meta.json": meta()})
	c2 := r.commit(map[string]string{"core.ttl": "2"})
	c3 := r.commit(map[string]string{"core.ttl": "3"})
	// The latest version taken back by hand, its content left in the tree.
	r.commit(map[string]string{"core.meta.json": meta(c3)})
	check := func(ix *Index, offered, retracted, latestBlob string) {
		t.Helper()
		snap, err := ix.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		it, ok := snap.Item("pub-1")
		if !ok {
			t.Fatal("publication missing")
		}
		got := labels(it)
		var gone []string
		for _, v := range it.Retracted {
			gone = append(gone, v.Label)
		}
		if got != offered || fmt.Sprint(gone) != retracted {
			t.Errorf("offered %q retracted %v, want %q %s", got, gone, offered, retracted)
		}
		if b, err := ix.repo.Blob(mustHash(t, it.Latest().Blob)); err != nil || string(b) != latestBlob {
			t.Errorf("latest content %q %v, want %q", b, err, latestBlob)
		}
		if !it.HasLabel("3") {
			t.Error("the retracted label counts as used")
		}
	}
	check(New(r.r, "repo-1", nil), "1 2", "[3]", "2")
	// Every version taken back: the newest stays offered.
	r.commit(map[string]string{"core.meta.json": meta(c1, c2, c3)})
	check(New(r.r, "repo-1", nil), "3", "[1 2]", "3")
	// New content after a retraction is a new version with a new label.
	r.commit(map[string]string{"core.meta.json": meta(c3), "core.ttl": "4"})
	ix := New(r.r, "repo-1", nil)
	check(ix, "1 2 4", "[3]", "4")
}
