package gitrepo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
)

// TestStageBlobAlongside: the caller's work runs before the blob is placed; when it fails nothing is left under
// objects/ and its error comes back as it is; when it passes, the object is the one StageBlob writes, byte for
// byte (the deflate in pieces makes the same stream as one write).
func TestStageBlobAlongside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	r, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := func() []string {
		var out []string
		filepath.WalkDir(filepath.Join(dir, "objects"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, p)
			}
			return err
		})
		return out
	}
	data := bytes.Repeat(bigContent("alongside"), 7) // several deflate pieces
	bad := errors.New("refused")
	sb, err := r.StageBlobAlongside(data, func() error { return bad })
	if err != bad || sb != nil {
		t.Fatalf("refused: got %v, %v; want nil and the caller's error itself", sb, err)
	}
	if got := files(); len(got) != 0 {
		t.Fatalf("a refused blob left %v", got)
	}

	ran := false
	sb, err = r.StageBlobAlongside(data, func() error { ran = true; return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Discard()
	if !ran {
		t.Fatal("alongside did not run")
	}
	if want := plumbing.ComputeHash(plumbing.BlobObject, data); sb.Hash() != want {
		t.Fatalf("hash %s, want %s", sb.Hash(), want)
	}
	got, err := os.ReadFile(sb.tmp)
	if err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	zw, err := zlib.NewWriterLevel(&one, zlib.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(append(objectHeader(plumbing.BlobObject, int64(len(data))), data...))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, one.Bytes()) {
		t.Fatalf("staged object (%d bytes) differs from a single deflate (%d bytes)", len(got), one.Len())
	}
}
