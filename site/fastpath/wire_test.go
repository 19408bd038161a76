package fastpath

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLargeBodyFileChecked: a large body is sent from its file only while the file is still the one the prepared
// header describes; a file replaced since (other size or modification time) or removed goes to net/http.
func TestLargeBodyFileChecked(t *testing.T) {
	name := filepath.Join(t.TempDir(), "data.nt")
	if err := os.WriteFile(name, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	w := &wire{file: name, size: fi.Size(), mod: fi.ModTime()}
	f, ok := w.open()
	if !ok {
		t.Fatal("the unchanged file was refused")
	}
	_ = f.Close()
	later := fi.ModTime().Add(time.Second)
	if err := os.Chtimes(name, later, later); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.open(); ok {
		t.Error("a file with another modification time was sent")
	}
	if err := os.WriteFile(name, []byte("0123456789abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(name, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.open(); ok {
		t.Error("a file of another size was sent")
	}
	_ = os.Remove(name)
	if _, ok := w.open(); ok {
		t.Error("a removed file was sent")
	}
}
