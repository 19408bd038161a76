package gitrepo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigContent is deterministic content above recentMin, so that writes go through the cache as uploads do.
func bigContent(seed string) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < recentMin+12345; i++ {
		sum := sha256.Sum256(fmt.Appendf(nil, "%s %d", seed, i))
		fmt.Fprintf(&b, "<http://example.org/%x> <http://example.org/p> \"%d\" .\n", sum[:6], i)
	}
	return b.Bytes()
}

func TestLargeBlobIsWhatGitReads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	r, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := bigContent("a")
	upload := bytes.Clone(data)
	var blob string
	head, err := r.Transact(context.Background(), func(tx *Tx) error {
		tx.Put("big.nt", upload)
		return put(map[string]string{"small.ttl": "S"}, "m")(tx)
	})
	if err != nil {
		t.Fatal(err)
	}
	blob = gitCLI(t, dir, "rev-parse", "main:big.nt")
	gitCLI(t, dir, "fsck", "--strict")
	out, err := gitCLIRaw(dir, "cat-file", "blob", blob)
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("git cat-file gives %d bytes (%v), want the %d committed", len(out), err, len(data))
	}
	tree, err := r.Tree(head)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := File(tree, "big.nt")
	if !ok || h.String() != blob {
		t.Fatalf("big.nt is %s in go-git, %s in git", h, blob)
	}
	shared, err := r.SharedBlob(h)
	if err != nil || !bytes.Equal(shared, data) {
		t.Errorf("SharedBlob: %d bytes, %v", len(shared), err)
	} else if &shared[0] != &upload[0] {
		t.Error("SharedBlob read the blob back instead of serving the bytes just committed")
	}
	// A caller that reuses its buffer after the upload must not change what the hash reads as.
	for i := range upload {
		upload[i] = 'x'
	}
	shared, err = r.SharedBlob(h)
	if err != nil || !bytes.Equal(shared, data) {
		t.Errorf("SharedBlob after the upload's buffer changed: %d bytes, %v", len(shared), err)
	}
	read, err := r.Blob(h)
	if err != nil || !bytes.Equal(read, data) {
		t.Errorf("Blob (loose): %d bytes, %v", len(read), err)
	}
	if got, ok, err := r.ReadFile(tree, "small.ttl"); err != nil || !ok || string(got) != "S" {
		t.Errorf("small.ttl: %q %v %v", got, ok, err)
	}
	// Packed by git, the same blob is read through go-git, and a fresh Repo has nothing cached.
	gitCLI(t, dir, "gc", "-q", "--prune=now")
	r2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r2.loosePath(h)); !os.IsNotExist(err) {
		t.Fatalf("blob still loose after gc: %v", err)
	}
	read, err = r2.Blob(h)
	if err != nil || !bytes.Equal(read, data) {
		t.Errorf("Blob (packed): %d bytes, %v", len(read), err)
	}
}

func TestCorruptLooseBlobIsAnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	r, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.writeBlob([]byte("short"))
	if err != nil {
		t.Fatal(err)
	}
	p := r.loosePath(h)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xff // zlib's checksum
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := r.Blob(h); err == nil {
		t.Errorf("read %q from a corrupt object without an error", data)
	}
}

func TestRecentBlobsStayBounded(t *testing.T) {
	c := &blobCache{m: map[blobKey]*blobEntry{}}
	chunk := make([]byte, recentBytes/3+1)
	for i := range 5 {
		c.put("d", [20]byte{byte(i)}, chunk)
		if c.size > recentBytes {
			t.Fatalf("after %d puts the cache holds %d bytes, more than %d", i+1, c.size, recentBytes)
		}
	}
	if _, ok := c.get("d", [20]byte{0}); ok {
		t.Error("the oldest blob was kept past the bound")
	}
	if _, ok := c.get("d", [20]byte{4}); !ok {
		t.Error("the newest blob was dropped")
	}
	if _, ok := c.get("other", [20]byte{4}); ok {
		t.Error("a blob is shared with another repository")
	}
	c.put("d", [20]byte{9}, make([]byte, recentMin-1))
	if _, ok := c.get("d", [20]byte{9}); ok {
		t.Error("a small blob was cached")
	}
}

func gitCLIRaw(dir string, args ...string) ([]byte, error) {
	return exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
}

// BenchmarkLargeBlob compares writing and reading back a 48 MB N-Triples blob through writeBlob/Blob with go-git's
// own object storage (the reference rows, same run).
func BenchmarkLargeBlob(b *testing.B) {
	var data []byte
	for len(data) < 48<<20 {
		data = append(data, bigContent(fmt.Sprint(len(data)))...)
	}
	r, err := Init(filepath.Join(b.TempDir(), "r.git"))
	if err != nil {
		b.Fatal(err)
	}
	goGitWrite := func() plumbing.Hash {
		obj := r.objs.NewEncodedObject()
		obj.SetType(plumbing.BlobObject)
		obj.SetSize(int64(len(data)))
		w, _ := obj.Writer()
		w.Write(data)
		w.Close()
		h, err := r.objs.SetEncodedObject(obj)
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	b.Run("write", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := r.writeBlob(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference-write-go-git", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			goGitWrite()
		}
	})
	h := goGitWrite()
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := r.Blob(h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference-read-go-git", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			blob, err := object.GetBlob(r.objs, h)
			if err != nil {
				b.Fatal(err)
			}
			rd, _ := blob.Reader()
			if _, err := io.ReadAll(rd); err != nil {
				b.Fatal(err)
			}
			rd.Close()
		}
	})
}

func TestStagedBlobCommitsOrLeavesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	r, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	objects := func() []string {
		var out []string
		filepath.WalkDir(filepath.Join(dir, "objects"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, p)
			}
			return err
		})
		return out
	}
	// Discarded: no object, no temporary file.
	sb, err := r.StageBlob(bigContent("discarded"))
	if err != nil {
		t.Fatal(err)
	}
	sb.Discard()
	if got := objects(); len(got) != 0 {
		t.Fatalf("a discarded blob left %v", got)
	}
	if _, err := os.Stat(r.loosePath(sb.Hash())); !os.IsNotExist(err) {
		t.Fatalf("discarded blob is an object: %v", err)
	}

	data := bigContent("staged")
	sb, err = r.StageBlob(data)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Discard()
	if want := plumbing.ComputeHash(plumbing.BlobObject, data); sb.Hash() != want {
		t.Fatalf("staged hash %s, want %s", sb.Hash(), want)
	}
	// The first attempt loses a race after the blob is placed; the second must still find it.
	attempts := 0
	head, err := r.Transact(context.Background(), func(tx *Tx) error {
		attempts++
		tx.PutStaged("big.nt", sb)
		if attempts == 1 {
			if _, err := r.editTree(plumbing.ZeroHash, tx.changes, tx.staged); err != nil {
				return err
			}
			return ErrStale
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Fatalf("%d attempts, want 2", attempts)
	}
	gitCLI(t, dir, "fsck", "--strict")
	if got := gitCLI(t, dir, "rev-parse", "main:big.nt"); got != sb.Hash().String() {
		t.Fatalf("big.nt is %s, staged %s", got, sb.Hash())
	}
	out, err := gitCLIRaw(dir, "cat-file", "blob", "main:big.nt")
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("git reads %d bytes (%v), want the %d staged", len(out), err, len(data))
	}
	sb.Discard() // after the commit: must not remove the object
	tree, err := r.Tree(head)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := File(tree, "big.nt")
	if read, err := r2.Blob(h); err != nil || !bytes.Equal(read, data) {
		t.Fatalf("Blob after Discard: %d bytes, %v", len(read), err)
	}
	for _, p := range objects() {
		if strings.Contains(filepath.Base(p), "tmp_obj_") {
			t.Errorf("temporary file left: %s", p)
		}
	}
}

func TestOpenSweepsOnlyStaleTemporaryObjects(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r.git")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	objDir := filepath.Join(dir, "objects")
	stale, fresh := filepath.Join(objDir, "tmp_obj_killed"), filepath.Join(objDir, "tmp_obj_writing")
	other := filepath.Join(objDir, "not_a_temp")
	for _, p := range []string{stale, fresh, other} {
		if err := os.WriteFile(p, []byte("x"), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	for _, p := range []string{stale, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale temporary object survived Open: %v", err)
	}
	for _, p := range []string{fresh, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("Open removed %s: %v", filepath.Base(p), err)
		}
	}
}

// TestTakeSharedBlob: the reader the bytes were kept for takes the very bytes committed, and the cache lets them go,
// so the next read inflates the object.
func TestTakeSharedBlob(t *testing.T) {
	r, err := Init(filepath.Join(t.TempDir(), "r.git"))
	if err != nil {
		t.Fatal(err)
	}
	data := bigContent("take")
	upload := bytes.Clone(data)
	head, err := r.Transact(context.Background(), func(tx *Tx) error {
		tx.Put("big.nt", upload)
		return put(map[string]string{}, "m")(tx)
	})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.Tree(head)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := File(tree, "big.nt")
	if !ok {
		t.Fatal("big.nt not committed")
	}
	taken, err := r.TakeSharedBlob(h)
	if err != nil || !bytes.Equal(taken, data) || &taken[0] != &upload[0] {
		t.Fatalf("TakeSharedBlob: %d bytes, %v; want the bytes just committed", len(taken), err)
	}
	if _, ok := recent.get(r.dir, h); ok {
		t.Error("the blob is still kept after TakeSharedBlob")
	}
	again, err := r.TakeSharedBlob(h)
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("TakeSharedBlob after the take: %d bytes, %v", len(again), err)
	}
	if &again[0] == &upload[0] {
		t.Error("the second take was served from memory, not from the object")
	}
}

// TestRecycledUploadBuffer: bytes that TakeSharedBlob handed to their only reader come back through RecycleBlob as
// the next upload's buffer; bytes another reader was given, or that were never handed over, do not, and a spare
// nobody asks for is let go.
func TestRecycledUploadBuffer(t *testing.T) {
	c := &blobCache{m: map[blobKey]*blobEntry{}, spareAge: time.Hour}
	a, b := bigContent("a"), bigContent("b")
	c.put("r", plumbing.ComputeHash(plumbing.BlobObject, a), a)
	c.put("r", plumbing.ComputeHash(plumbing.BlobObject, b), b)
	if _, ok := c.get("r", plumbing.ComputeHash(plumbing.BlobObject, b)); !ok { // another reader holds b
		t.Fatal("b not kept")
	}
	ta, ok := c.take("r", plumbing.ComputeHash(plumbing.BlobObject, a))
	tb, ok2 := c.take("r", plumbing.ComputeHash(plumbing.BlobObject, b))
	if !ok || !ok2 {
		t.Fatal("take missed")
	}
	c.recycle(tb)
	if got := c.buffer(len(b)); cap(got) > 0 && bufAddr(got) == bufAddr(b) {
		t.Fatal("a buffer another reader was given came back for writing")
	}
	c.recycle(bytes.Clone(a)) // never handed over
	if got := c.buffer(len(a)); bufAddr(got) == bufAddr(a) || cap(c.spare) != 0 {
		t.Fatal("a buffer take did not hand over was kept")
	}
	c.recycle(ta)
	if got := c.buffer(4 * len(a)); bufAddr(got) == bufAddr(a) {
		t.Fatal("a spare much smaller than asked was handed out")
	}
	if got := c.buffer(len(a) / 4); bufAddr(got) == bufAddr(a) {
		t.Fatal("a spare over twice the size asked was handed out")
	}
	got := c.buffer(len(a))
	if len(got) != 0 || bufAddr(got) != bufAddr(a) {
		t.Fatalf("the recycled buffer was not handed out (len %d)", len(got))
	}
	if again := c.buffer(len(a)); bufAddr(again) == bufAddr(a) {
		t.Fatal("the same spare was handed out twice")
	}
	c.recycle(ta) // once only: it is no longer listed as handed over
	if cap(c.spare) != 0 {
		t.Fatal("a buffer was recycled twice")
	}

	// A spare nobody asks for goes after spareAge.
	c.spareAge = 10 * time.Millisecond
	c.put("r", plumbing.ComputeHash(plumbing.BlobObject, a), a)
	ta, _ = c.take("r", plumbing.ComputeHash(plumbing.BlobObject, a))
	c.recycle(ta)
	if cap(c.spare) == 0 {
		t.Fatal("not kept")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		gone := c.spare == nil
		c.mu.Unlock()
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the spare outlived spareAge")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
