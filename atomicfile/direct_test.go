package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// WriteDirect gives the same file as Write for lengths around the alignment and the buffer, replaces the file only
// on success, and leaves no temporary file; where the file system takes O_DIRECT, the written pages are not in the
// page cache afterwards (the copy it saves).
func TestWriteDirect(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index.sparql")
	var resident []int
	for _, n := range []int{0, 1, 4095, 4096, 4097, 4 << 20, 4<<20 + 1, 3*(4<<20) + 12345} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(i*31 + n)
		}
		// In uneven pieces, as the index's writer sends them.
		err := WriteDirect(p, 0o600, func(w io.Writer) error {
			for rest := want; len(rest) > 0; {
				k := min(len(rest), 1+len(rest)/3)
				if _, err := w.Write(rest[:k]); err != nil {
					return err
				}
				rest = rest[k:]
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if n > 4<<20 {
			resident = append(resident, residentPages(t, p)) // before reading it back, which caches it
		}
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes written, %d read back (%v), equal %v", n, len(got), err, bytes.Equal(got, want))
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v", fi.Mode())
		}
	}
	boom := errors.New("boom")
	if err := WriteDirect(p, 0o600, func(w io.Writer) error {
		_, _ = w.Write(make([]byte, 5<<20))
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if fi, _ := os.Stat(p); fi.Size() != 3*(4<<20)+12345 {
		t.Fatalf("a failed write changed the file (%d bytes)", fi.Size())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}

	if runtime.GOOS != "linux" {
		return
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		t.Skipf("the test folder's file system refuses O_DIRECT (%v): WriteDirect wrote through the page cache, checked above", err)
	}
	f.Close()
	for _, n := range resident {
		if n > 1 {
			t.Errorf("%d pages of the file were in the page cache after WriteDirect: it was copied there", n)
		}
	}
	// The check can fail: the same bytes through Write stay in the cache.
	data, _ := os.ReadFile(p)
	if err := WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := residentPages(t, p); n == 0 {
		t.Error("mincore saw no page of a file written through the page cache: the check above proves nothing")
	}
}

// residentPages counts the pages of the file at p that are in the page cache (mincore over a mapping of it).
func residentPages(t *testing.T, p string) int {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	m, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// On a file system that refuses O_DIRECT (tmpfs), WriteDirect writes as Write does.
func TestWriteDirectWithoutODirect(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm (tmpfs) here")
	}
	dir, err := os.MkdirTemp("/dev/shm", "atomicfile-test-")
	if err != nil {
		t.Skipf("cannot write to /dev/shm: %v", err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "f")
	want := bytes.Repeat([]byte("0123456789"), 500_001)
	if err := WriteDirect(p, 0o644, func(w io.Writer) error { _, err := w.Write(want); return err }); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%d bytes read back (%v)", len(got), err)
	}
}
