package filecache

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/site/tree"
)

// A folder read without inotify (no watch could be set) answers compressed as soon as a .gz sibling appears: the
// pipeline writes those of a large version after the version is live, and nothing would tell this folder.
func TestUnwatchedFolderFindsALaterGzipSibling(t *testing.T) {
	c := New(Options{})
	c.Close() // no watch: folders are validated by their page.json only
	dir := t.TempDir()
	page := tree.Page{Self: "/g/r/p", Formats: []tree.Format{{Ext: ".ttl", MediaType: "text/turtle", Name: "Turtle", Size: 4}}}
	b, _ := json.Marshal(page)
	for name, data := range map[string][]byte{tree.PageJSON: b, "data.ttl": []byte("<a> <b> <c> .\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	encoding := func() string {
		t.Helper()
		f, tracked, err := c.FolderIn(nil, dir)
		if err != nil || tracked {
			t.Fatalf("folder: %v (tracked %v)", err, tracked)
		}
		r, err := f.Rep(0, false, true)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		r.SetHeader(h)
		return h.Get("Content-Encoding")
	}
	if enc := encoding(); enc != "" {
		t.Fatalf("Content-Encoding %q without a sibling", enc)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.ttl.gz"), []byte("\x1f\x8b not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if enc := encoding(); enc != "gzip" {
		t.Errorf("Content-Encoding %q once the sibling is there, want gzip", enc)
	}
}
