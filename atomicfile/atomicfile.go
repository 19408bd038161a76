// Package atomicfile is ldhub's one way to replace a file: the content goes to a temporary file beside it, is
// synced to disk, and is renamed over the target, then the folder is synced. A reader (or a crash) sees the old
// file or the new one, never a part.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// TempPrefix starts the name of every temporary file Write makes, so that a sweep after a crash (the pipeline's)
// finds them among its own staging files.
const TempPrefix = ".tmp-"

// Write replaces path with what write produces, with permissions perm. Nothing changes at path when write fails.
func Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	return replace(path, perm, func(tmp *os.File) error { return write(tmp) })
}

// WriteDirect is Write for a large file that is written once and then read through a mapping (the SPARQL index):
// where the file system allows it (Linux, O_DIRECT), the bytes go from the writer's memory to the disk instead of
// being copied into the page cache first. Write syncs the file before the rename anyway, so the disk write is
// paid either way; what this saves is the copy, which on the project's VM was most of a 94 MB index's save (each
// page cache page the copy touched first cost several microseconds: 0.43 CPU-s of a 0.75 s save, on the path of
// every large upload to going live). The file's pages are then read from the disk on first use rather than found
// in the cache. Where O_DIRECT is refused (tmpfs, other systems) it is Write.
func WriteDirect(path string, perm os.FileMode, write func(io.Writer) error) error {
	return replace(path, perm, func(tmp *os.File) error { return writeDirect(tmp, write) })
}

// replace is Write with the temporary file filled by fill.
func replace(path string, perm os.FileMode, fill func(*os.File) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := fill(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// WriteFile replaces path with b (see Write).
func WriteFile(path string, b []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// SyncDir makes a rename or a new entry in dir durable.
func SyncDir(dir string) error { return Sync(dir) }

// Sync makes what was written to the file or folder at path durable.
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
