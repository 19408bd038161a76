package site

import (
	"bytes"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ldhub/ldhub/site/tree"
)

// folder is one rendered folder as the handler knows it: its page, and its small files kept in memory. Files
// under a rendered folder never change while it exists; a folder rebuilt under the same name (a publication
// deleted and published again) has a new page.json inode, which starts a new folder value with an empty cache.
// Serving from memory saves the open, stat, seek and close of every request, which for small dumps cost more
// than sending them.
type folder struct {
	page  *tree.Page
	ino   uint64
	mod   time.Time
	mu    sync.Mutex
	files map[string]cachedFile
}

type cachedFile struct {
	data []byte
	mod  time.Time
}

// budget bounds the bytes all folders keep in memory.
type budget struct {
	used, max, per int64
}

func (b *budget) take(n int64) bool {
	if n > b.per {
		return false
	}
	if atomic.AddInt64(&b.used, n) > b.max {
		atomic.AddInt64(&b.used, -n)
		return false
	}
	return true
}

// open returns a file's content to serve: from memory, or an open file (which the caller closes) when it is too
// large to keep or the budget is spent.
func (f *folder) open(name string, b *budget) (io.ReadSeeker, time.Time, error) {
	f.mu.Lock()
	c, ok := f.files[name]
	f.mu.Unlock()
	if ok {
		return bytes.NewReader(c.data), c.mod, nil
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, time.Time{}, err
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, time.Time{}, err
	}
	if fi.Size() > b.per {
		return file, fi.ModTime(), nil
	}
	data, err := io.ReadAll(file)
	file.Close()
	if err != nil {
		return nil, time.Time{}, err
	}
	f.mu.Lock()
	if _, dup := f.files[name]; !dup && b.take(int64(len(data))) {
		f.files[name] = cachedFile{data: data, mod: fi.ModTime()}
	}
	f.mu.Unlock()
	return bytes.NewReader(data), fi.ModTime(), nil
}
