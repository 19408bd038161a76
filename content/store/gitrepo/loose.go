package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
)

// writeBlob stores a blob as a loose object itself instead of through go-git, which copies the content into a
// buffer grown by doubling and deflates it at zlib's default level: for a 181 MB upload that was 2.7 s of CPU.
// Here the hash and the compression run side by side over the caller's bytes, at level 1, which is git's own
// default for loose objects (core.looseCompression). The file is written under a temporary name and renamed into
// place, so a crash leaves no torn object; durability before the ref moves is still Sync's job.
func (r *Repo) writeBlob(data []byte) (plumbing.Hash, error) {
	sb, err := r.StageBlob(data)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer sb.Discard()
	return sb.place()
}

// StagedBlob is a blob hashed and compressed ahead of the transaction that commits it (Tx.PutStaged), so that the
// caller can do both while it still checks the content: the store validates a large upload and writes it at the
// same time. Until a transaction places it, it is only a temporary file under objects/, which Discard removes;
// a refused upload leaves no object behind.
type StagedBlob struct {
	r    *Repo
	data []byte
	hash plumbing.Hash
	tmp  string // "" once renamed into place or discarded
	mu   sync.Mutex
}

// StageBlob hashes and deflates data into a temporary loose object. data must not change until the blob is
// committed or discarded.
func (r *Repo) StageBlob(data []byte) (*StagedBlob, error) {
	return r.StageBlobAlongside(data, nil)
}

// StageBlobAlongside is StageBlob with work of the caller's, alongside, run first on the goroutine that then
// hashes, while this one deflates. The store passes its validation of the upload: validation then SHA-1 take
// about as long as the deflate (0.55 and 0.5 s of CPU for 181 MB), so two goroutines keep both cores busy and
// end together, where validation, hash and deflate on three goroutines left the deflate running alone at the end.
// If alongside fails, the deflate stops, nothing is left behind and its error is returned as it is. alongside
// has returned when StageBlobAlongside returns.
func (r *Repo) StageBlobAlongside(data []byte, alongside func() error) (*StagedBlob, error) {
	var refused atomic.Bool
	type hashed struct {
		h   plumbing.Hash
		err error
	}
	done := make(chan hashed, 1)
	go func() {
		if alongside != nil {
			if err := alongside(); err != nil {
				refused.Store(true)
				done <- hashed{err: err}
				return
			}
		}
		done <- hashed{h: plumbing.ComputeHash(plumbing.BlobObject, data)}
	}()

	tmp, err := os.CreateTemp(filepath.Join(r.dir, "objects"), "tmp_obj_")
	if err != nil {
		<-done
		return nil, fmt.Errorf("gitrepo: write blob in %s: %w", r.dir, err)
	}
	err = deflateObject(tmp, plumbing.BlobObject, data, &refused)
	if err == nil && !r.NoSync {
		// On disk while the upload is still validated: the commit's own sync then finds the blob clean.
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	res := <-done
	if res.err != nil {
		os.Remove(tmp.Name())
		return nil, res.err
	}
	if err == nil {
		// Loose objects are read-only in git.
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("gitrepo: write blob in %s: %w", r.dir, err)
	}
	return &StagedBlob{r: r, data: data, hash: res.h, tmp: tmp.Name()}, nil
}

// Hash is the blob's object id.
func (sb *StagedBlob) Hash() plumbing.Hash { return sb.hash }

// Discard removes the temporary object if no transaction placed it; it does nothing after a commit.
func (sb *StagedBlob) Discard() {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.tmp != "" {
		os.Remove(sb.tmp)
		sb.tmp = ""
	}
}

// place renames the temporary object into place. A transaction that runs again after losing a race finds it
// placed already; one that runs after Discard writes the blob anew.
func (sb *StagedBlob) place() (plumbing.Hash, error) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	r := sb.r
	final := r.loosePath(sb.hash)
	if sb.tmp == "" {
		if _, err := os.Stat(final); err == nil {
			return sb.hash, nil
		}
		sb.mu.Unlock()
		fresh, err := r.StageBlob(sb.data)
		sb.mu.Lock()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		sb.tmp = fresh.tmp
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitrepo: write blob in %s: %w", r.dir, err)
	}
	// An existing copy of the same object is simply replaced by an equal one.
	if err := os.Rename(sb.tmp, final); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitrepo: write blob in %s: %w", r.dir, err)
	}
	sb.tmp = ""
	recent.put(r.dir, sb.hash, sb.data)
	return sb.hash, nil
}

func deflateObject(f *os.File, t plumbing.ObjectType, data []byte, stop *atomic.Bool) error {
	bw := bufio.NewWriterSize(f, 256<<10)
	zw, err := zlib.NewWriterLevel(bw, zlib.BestSpeed)
	if err != nil {
		return err
	}
	if _, err := zw.Write(objectHeader(t, int64(len(data)))); err != nil {
		return err
	}
	// In pieces, so that a refused upload stops the work early; the compressor's blocks do not depend on how
	// its input is split, so neither do the object's bytes.
	const piece = 4 << 20
	for rest := data; len(rest) > 0; {
		if stop != nil && stop.Load() {
			return errStopped
		}
		n := min(piece, len(rest))
		if _, err := zw.Write(rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// errStopped ends a deflate whose blob is not wanted any more.
var errStopped = errors.New("gitrepo: deflate stopped")

func objectHeader(t plumbing.ObjectType, size int64) []byte {
	b := append(t.Bytes(), ' ')
	b = strconv.AppendInt(b, size, 10)
	return append(b, 0)
}

func (r *Repo) loosePath(h plumbing.Hash) string {
	s := h.String()
	return filepath.Join(r.dir, "objects", s[:2], s[2:])
}

// errNotLoose says the object is not stored loose (it may be in a pack).
var errNotLoose = errors.New("gitrepo: not a loose object")

// readLooseBlob reads a loose blob into a slice of exactly its size. go-git reads into a buffer grown by copying
// (4.8 s for a 181 MB blob on the profiled run); the header gives the size, so one allocation and one pass do.
// Objects in packs answer errNotLoose and are read through go-git.
func (r *Repo) readLooseBlob(h plumbing.Hash) ([]byte, error) {
	f, err := os.Open(r.loosePath(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNotLoose
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReaderSize(f, 256<<10))
	if err != nil {
		return nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	defer zr.Close()
	var hdr []byte
	one := []byte{0}
	for len(hdr) < 32 {
		if _, err := io.ReadFull(zr, one); err != nil {
			return nil, fmt.Errorf("loose object %s: header: %w", h, err)
		}
		if one[0] == 0 {
			break
		}
		hdr = append(hdr, one[0])
	}
	typ, size, ok := bytes.Cut(hdr, []byte(" "))
	if !ok || string(typ) != plumbing.BlobObject.String() {
		return nil, fmt.Errorf("loose object %s: not a blob (header %q)", h, hdr)
	}
	n, err := strconv.ParseInt(string(size), 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("loose object %s: bad size in header %q", h, hdr)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	// Reading to the end is what checks zlib's checksum; anything after the content means a corrupt object.
	if k, err := zr.Read(one); k != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("longer than its header says")
		}
		return nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	return data, nil
}

// SharedBlob reads a whole blob like Blob, but may answer with the very bytes this process just committed (kept
// for a while by writeBlob), so the caller must not modify them. The pipeline renders every upload right after
// its commit; re-reading and inflating the blob it was just given cost as much as writing it.
func (r *Repo) SharedBlob(h plumbing.Hash) ([]byte, error) {
	if data, ok := recent.get(r.dir, h); ok {
		return data, nil
	}
	return r.Blob(h)
}

// TakeSharedBlob is SharedBlob for the reader the bytes were kept for: afterwards they are no longer kept. The
// pipeline renders each version once, right after its commit; bytes kept past that held up to recentBytes of a
// server's memory for ten minutes, and the garbage collector, counting them live, let the heap grow by as much
// again during the next render (a server's peak grew by about 400 MiB per new 181 MB version).
func (r *Repo) TakeSharedBlob(h plumbing.Hash) ([]byte, error) {
	if data, ok := recent.take(r.dir, h); ok {
		return data, nil
	}
	return r.Blob(h)
}

// RecycleBlob gives back bytes that TakeSharedBlob handed over, once their reader is done with them, to be the
// buffer of the next large upload (UploadBuffer). Bytes that another reader was also given (SharedBlob) are left
// to the garbage collector, as is anything TakeSharedBlob did not hand over: only a buffer nobody else holds may be
// written again.
//
// Why: a 181 MB upload read into fresh memory spent about 1 CPU-s faulting its pages in (on this project's
// virtual machine, over four fifths of the time to read the request's body), and the Go runtime returns a
// finished render's memory to the system within seconds, so every upload paid it again. A buffer that stays in
// use stays in memory.
func RecycleBlob(data []byte) { recent.recycle(data) }

// UploadBuffer returns an empty slice with room for at least n bytes: the buffer RecycleBlob kept when it fits
// (neither smaller than n nor more than twice as large), else a new one with a little room to spare, so that a
// next version a few bytes longer still fits it.
func UploadBuffer(n int) []byte { return recent.buffer(n) }

// Recently written large blobs, shared by every Repo of the process and bounded in bytes and age, so that a hub
// of many repositories holds at most recentBytes however uploads are spread over them.
const (
	recentMin   = 1 << 20   // smaller blobs are cheap to read back
	recentBytes = 512 << 20 // total held
	recentAge   = 10 * time.Minute
)

var recent = &blobCache{m: map[blobKey]*blobEntry{}, spareAge: spareAge}

type blobKey struct {
	dir string
	h   plumbing.Hash
}

type blobEntry struct {
	data   []byte
	sum    uint32 // CRC-32C of data when it was committed
	gone   *time.Timer
	shared bool // get handed the bytes to a reader, who may hold them still
}

type blobCache struct {
	mu    sync.Mutex
	m     map[blobKey]*blobEntry
	order []blobKey // oldest first
	size  int

	// handed are the buffers take gave to their only holder (by address and capacity, which do not keep them
	// alive), the last few: only those may come back through recycle. spare is the one kept for the next upload,
	// until spareAge passes unused.
	handed    []handedBuf
	spare     []byte
	spareGone *time.Timer
	spareAge  time.Duration
}

type handedBuf struct {
	addr uintptr
	cap  int
}

// spareAge is how long a recycled buffer waits for the next upload: a publisher sending versions in a row (the
// case that pays for fresh memory each time) comes back within it, and an idle server gives the memory back.
const spareAge = 2 * time.Minute

// maxHanded bounds the buffers remembered as handed over but not (yet) recycled: a reader that never recycles
// (a failed render) must not make the list grow.
const maxHanded = 4

// put keeps the caller's slice with its checksum, which get verifies: the bytes (an HTTP request body) are not
// ours, and a caller that reused them would otherwise hand the pipeline other content under this hash. Copying
// instead cost more than the check (0.74 s against about 0.02 s for 181 MB on the loaded machine: fresh pages).
func (c *blobCache) put(dir string, h plumbing.Hash, data []byte) {
	if len(data) < recentMin || len(data) > recentBytes {
		return
	}
	k := blobKey{dir, h}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	for c.size+len(data) > recentBytes && len(c.order) > 0 {
		c.dropLocked(c.order[0])
	}
	e := &blobEntry{data: data, sum: crc32.Checksum(data, castagnoli)}
	e.gone = time.AfterFunc(recentAge, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.m[k] == e {
			c.dropLocked(k)
		}
	})
	c.m[k] = e
	c.order = append(c.order, k)
	c.size += len(data)
}

func (c *blobCache) get(dir string, h plumbing.Hash) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.checkedLocked(blobKey{dir, h})
	if !ok {
		return nil, false
	}
	e.shared = true
	return e.data, true
}

// checkedLocked returns k's entry if its bytes still have their checksum; an entry that lost it is dropped.
func (c *blobCache) checkedLocked(k blobKey) (*blobEntry, bool) {
	e, ok := c.m[k]
	if !ok {
		return nil, false
	}
	if crc32.Checksum(e.data, castagnoli) != e.sum {
		c.dropLocked(k)
		return nil, false
	}
	return e, true
}

// take is get, then forgets the entry. Bytes no get handed out are the taker's alone, which recycle accepts.
func (c *blobCache) take(dir string, h plumbing.Hash) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := blobKey{dir, h}
	e, ok := c.checkedLocked(k)
	if !ok {
		return nil, false
	}
	c.dropLocked(k)
	if !e.shared {
		if len(c.handed) == maxHanded {
			c.handed = c.handed[1:]
		}
		c.handed = append(c.handed, handedBuf{bufAddr(e.data), cap(e.data)})
	}
	return e.data, true
}

func bufAddr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

func (c *blobCache) recycle(data []byte) {
	if cap(data) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	hb := handedBuf{bufAddr(data), cap(data)}
	i := slices.Index(c.handed, hb)
	if i < 0 {
		return
	}
	c.handed = slices.Delete(c.handed, i, i+1)
	c.dropSpareLocked()
	c.spare = data[:0]
	spare := c.spare
	c.spareGone = time.AfterFunc(c.spareAge, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if cap(c.spare) > 0 && bufAddr(c.spare) == bufAddr(spare) {
			c.dropSpareLocked()
		}
	})
}

func (c *blobCache) buffer(n int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.spare; cap(s) >= n && cap(s) <= 2*n {
		c.dropSpareLocked()
		return s
	}
	return make([]byte, 0, n+n/32)
}

func (c *blobCache) dropSpareLocked() {
	if c.spareGone != nil {
		c.spareGone.Stop()
		c.spareGone = nil
	}
	c.spare = nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli) // in hardware on amd64 and arm64

func (c *blobCache) dropLocked(k blobKey) {
	e, ok := c.m[k]
	if !ok {
		return
	}
	e.gone.Stop()
	delete(c.m, k)
	c.size -= len(e.data)
	for i, o := range c.order {
		if o == k {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}
