package gitrepo

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// PackLimits bound what a received pack may inflate to. Zero fields take the defaults.
type PackLimits struct {
	// MaxObject bounds one object's inflated size (a whole object's, or what a delta rebuilds); default 256 MiB,
	// the REST upload limit.
	MaxObject int64
	// MaxTotal bounds the sum of those sizes over the pack; default 1 GiB.
	MaxTotal int64
	// MaxObjects bounds the number of objects; default 200 000.
	MaxObjects uint32
}

// Defaults for PackLimits.
const (
	DefaultMaxObject  = 256 << 20
	DefaultMaxTotal   = 1 << 30
	DefaultMaxObjects = 200_000
)

func (l PackLimits) orDefaults() PackLimits {
	if l.MaxObject <= 0 {
		l.MaxObject = DefaultMaxObject
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultMaxTotal
	}
	if l.MaxObjects == 0 {
		l.MaxObjects = DefaultMaxObjects
	}
	return l
}

// LimitError reports a pack over one of its PackLimits; nothing of the pack was stored.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// ErrBadPack reports a stream that is not a well-formed pack.
var ErrBadPack = errors.New("malformed pack")

// pack object types (gitformat-pack).
const (
	objOfsDelta = 6
	objRefDelta = 7
)

// scanPack reads a pack from r to its end, inflating every object into nothing, and refuses it as soon as it
// goes over lim: memory stays at the buffers' size whatever the pack declares, and a pack that inflates past a
// limit is refused without ever being inflated whole.
func scanPack(r io.Reader, lim PackLimits) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var hdr [12]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return fmt.Errorf("%w: header: %v", ErrBadPack, err)
	}
	if string(hdr[:4]) != "PACK" {
		return fmt.Errorf("%w: no PACK signature", ErrBadPack)
	}
	if v := binary.BigEndian.Uint32(hdr[4:8]); v != 2 && v != 3 {
		return fmt.Errorf("%w: version %d", ErrBadPack, v)
	}
	count := binary.BigEndian.Uint32(hdr[8:12])
	if count > lim.MaxObjects {
		return &LimitError{fmt.Sprintf("the push holds %d objects, more than the limit of %d", count, lim.MaxObjects)}
	}
	var total int64
	var zr io.ReadCloser
	for i := uint32(0); i < count; i++ {
		b, err := br.ReadByte()
		if err != nil {
			return fmt.Errorf("%w: object %d: %v", ErrBadPack, i, err)
		}
		typ := (b >> 4) & 7
		size := int64(b & 15)
		for shift := 4; b&0x80 != 0; shift += 7 {
			if shift > 56 {
				return fmt.Errorf("%w: object %d: size overflows", ErrBadPack, i)
			}
			if b, err = br.ReadByte(); err != nil {
				return fmt.Errorf("%w: object %d: %v", ErrBadPack, i, err)
			}
			size |= int64(b&0x7f) << shift
		}
		switch typ {
		case objOfsDelta:
			for {
				if b, err = br.ReadByte(); err != nil {
					return fmt.Errorf("%w: object %d: %v", ErrBadPack, i, err)
				}
				if b&0x80 == 0 {
					break
				}
			}
		case objRefDelta:
			if _, err := br.Discard(20); err != nil {
				return fmt.Errorf("%w: object %d: %v", ErrBadPack, i, err)
			}
		case 1, 2, 3, 4:
		default:
			return fmt.Errorf("%w: object %d has type %d", ErrBadPack, i, typ)
		}
		// A whole object declares its inflated size; a delta declares its own, and the size of what it rebuilds
		// opens its data. Either is checked before it is inflated, and the inflated bytes must match it.
		if size > lim.MaxObject {
			return &LimitError{fmt.Sprintf("an object of the push inflates to %d bytes, more than the limit of %d per file", size, lim.MaxObject)}
		}
		if zr == nil {
			zr, err = zlib.NewReader(br)
		} else {
			err = zr.(zlib.Resetter).Reset(br, nil)
		}
		if err != nil {
			return fmt.Errorf("%w: object %d: %v", ErrBadPack, i, err)
		}
		cr := &countingReader{r: zr}
		data := io.LimitReader(cr, size+1)
		built := size
		if typ >= objOfsDelta {
			dr := bufio.NewReaderSize(data, 32)
			if _, err := binary.ReadUvarint(dr); err != nil { // the base's size
				return fmt.Errorf("%w: delta %d: %v", ErrBadPack, i, err)
			}
			u, err := binary.ReadUvarint(dr)
			if err != nil {
				return fmt.Errorf("%w: delta %d: %v", ErrBadPack, i, err)
			}
			if u > uint64(lim.MaxObject) {
				return &LimitError{fmt.Sprintf("an object of the push inflates to %d bytes, more than the limit of %d per file", u, lim.MaxObject)}
			}
			built = int64(u)
			if _, err := io.Copy(io.Discard, dr); err != nil {
				return fmt.Errorf("%w: object %d: %v", ErrBadPack, i, err)
			}
		}
		if total += max(built, size); total > lim.MaxTotal {
			return &LimitError{fmt.Sprintf("the push inflates to more than the limit of %d bytes", lim.MaxTotal)}
		}
		// Reading to the end also checks the stream's checksum and leaves br at the next object.
		if _, err := io.Copy(io.Discard, data); err != nil {
			return fmt.Errorf("%w: object %d: %v", ErrBadPack, i, err)
		}
		if cr.n != size {
			return fmt.Errorf("%w: object %d inflates to a size other than the %d bytes it declares", ErrBadPack, i, size)
		}
	}
	if _, err := br.Discard(20); err != nil {
		return fmt.Errorf("%w: no trailing checksum: %v", ErrBadPack, err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return fmt.Errorf("%w: data after the pack's end", ErrBadPack)
	}
	return nil
}

// WritePack stores the objects of a pack (a push). The stream is first copied to a temporary file while it is
// scanned against lim; only a pack within the limits reaches go-git, through a storage of its own so readers of
// the shared one are not held up, and the shared storage then sees the new pack. An empty pack is not an error.
// Over a limit it returns a *LimitError and stores nothing.
func (r *Repo) WritePack(pack io.Reader, lim PackLimits) error {
	lim = lim.orDefaults()
	// tmp_obj_ so that Open's sweep removes one left by a killed process.
	f, err := os.CreateTemp(filepath.Join(r.dir, "objects"), "tmp_obj_pack_")
	if err != nil {
		return fmt.Errorf("gitrepo: receive pack in %s: %w", r.dir, err)
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	src := &errReader{r: pack}
	if err := scanPack(io.TeeReader(src, f), lim); err != nil {
		// A source that failed over a limit of its own (the request body's) says so better than the scan.
		var le *LimitError
		if errors.As(src.err, &le) {
			return le
		}
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("gitrepo: receive pack in %s: %w", r.dir, err)
	}
	own := filesystem.NewStorage(osfs.New(r.dir), cache.NewObjectLRU(cache.MiByte))
	if err := packfile.UpdateObjectStorage(own, f); err != nil && !errors.Is(err, packfile.ErrEmptyPackfile) {
		return fmt.Errorf("gitrepo: unpack into %s: %w", r.dir, err)
	}
	r.objs.mu.Lock()
	r.objs.st.Reindex()
	r.objs.mu.Unlock()
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// errReader remembers the first error its reader returned other than io.EOF.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}
