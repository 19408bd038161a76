package atomicfile

import (
	"errors"
	"io"
	"os"
	"syscall"
	"unsafe"
)

// directAlign is the alignment O_DIRECT asks of a write's memory, offset and length: the page size covers every
// logical block size in use (512 bytes to 4 KiB).
const directAlign = 4096

// directChunk is the aligned buffer the bytes pass through on their way to the disk.
const directChunk = 4 << 20

// writeDirect fills tmp through a second descriptor opened with O_DIRECT, when the file system takes one.
func writeDirect(tmp *os.File, write func(io.Writer) error) error {
	df, err := os.OpenFile(tmp.Name(), os.O_WRONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return write(tmp) // no O_DIRECT here (tmpfs refuses it with EINVAL)
	}
	defer df.Close()
	raw := make([]byte, directChunk+directAlign)
	skip := (directAlign - int(uintptr(unsafe.Pointer(&raw[0]))%directAlign)) % directAlign
	w := &directWriter{f: df, plain: tmp, buf: raw[skip : skip+directChunk], direct: true}
	if err := write(w); err != nil {
		return err
	}
	return w.close()
}

// directWriter collects writes into an aligned buffer and writes it whole; the last, partial buffer is padded to
// the alignment and the file cut back to its length. A write O_DIRECT refuses after all (EINVAL: an alignment
// the file system wants larger) switches it to ordinary writes at the same offset.
type directWriter struct {
	f, plain *os.File
	buf      []byte
	n        int   // bytes in buf
	off      int64 // bytes written to the file before buf
	direct   bool
}

func (w *directWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		k := copy(w.buf[w.n:], p)
		w.n += k
		p = p[k:]
		if w.n == len(w.buf) {
			if err := w.flush(w.n); err != nil {
				return total - len(p) - k, err
			}
		}
	}
	return total, nil
}

// flush writes the first size bytes of buf (size is w.n, padded up to the alignment when it is the last).
func (w *directWriter) flush(size int) error {
	if w.direct {
		_, err := w.f.WriteAt(w.buf[:size], w.off)
		if errors.Is(err, syscall.EINVAL) {
			w.direct = false
		} else if err != nil {
			return err
		}
	}
	if !w.direct {
		if _, err := w.plain.WriteAt(w.buf[:w.n], w.off); err != nil {
			return err
		}
	}
	w.off += int64(w.n)
	w.n = 0
	return nil
}

func (w *directWriter) close() error {
	if w.n > 0 {
		pad := (w.n + directAlign - 1) / directAlign * directAlign
		clear(w.buf[w.n:pad])
		if err := w.flush(pad); err != nil {
			return err
		}
	}
	// The padding of the last block is not part of the file.
	return w.plain.Truncate(w.off)
}
