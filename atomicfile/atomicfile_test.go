package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesOnlyOnSuccess(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.ttl")
	if err := WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, 0o644, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if err := WriteFile(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("file holds %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
}

// While a write is in flight, its temporary file is the only new entry and its name starts with TempPrefix (what
// the pipeline's sweep removes after a crash).
func TestTemporaryName(t *testing.T) {
	dir := t.TempDir()
	err := Write(filepath.Join(dir, "state.json"), 0o600, func(io.Writer) error {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), TempPrefix) {
			t.Errorf("entries during a write: %v", ents)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
