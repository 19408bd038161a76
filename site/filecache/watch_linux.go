//go:build linux

package filecache

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ldhub/ldhub/site/tree"
)

// watcher learns from inotify when a publication's renderings change: its cur symlink switched, a version folder
// added or removed, the publication deleted. Events are read without blocking at the start of every request, not
// by a goroutine: the kernel queues an event before the rename or unlink that caused it returns, so a request that
// starts after a switch always sees it, at the cost of one read system call instead of a readlink and a stat.
type watcher struct {
	mu      sync.Mutex
	fd      int
	metas   map[int32]string  // watch descriptor -> the publication's MetaDir it belongs to
	entries map[string]*Entry // MetaDir -> its tracked entry
	drop    func(*Entry)
	buf     []byte
}

// Events that can change what a publication serves: entries of the watched folder created, removed, renamed or
// written (a version's page is replaced in place when the theme changes), or the folder itself going away. Reads
// raise none of them.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF |
	unix.IN_MOVE_SELF | unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_ONLYDIR

func newWatcher(drop func(*Entry)) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("filecache: inotify: %w", err)
	}
	return &watcher{fd: fd, metas: map[int32]string{}, entries: map[string]*Entry{}, drop: drop,
		buf: make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))}, nil
}

// track watches meta and its versions folder and makes pe the entry their events invalidate. pe is not looked
// up until it is marked ready, after its link was read with the watch in place.
func (w *watcher) track(meta string, pe *Entry) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return errors.New("filecache: watcher closed")
	}
	for _, d := range []string{meta, filepath.Join(meta, tree.Versions)} {
		wd, err := unix.InotifyAddWatch(w.fd, d, watchMask)
		if err != nil {
			return fmt.Errorf("filecache: watch %s: %w", d, err)
		}
		w.metas[int32(wd)] = meta
	}
	if old := w.entries[meta]; old != nil && old != pe {
		w.invalidateLocked(meta)
	}
	w.entries[meta] = pe
	return nil
}

// watchDir watches one more folder of meta's publication (a rendered folder about to be read and cached).
func (w *watcher) watchDir(meta, dir string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return errors.New("filecache: watcher closed")
	}
	wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
	if err != nil {
		return fmt.Errorf("filecache: watch %s: %w", dir, err)
	}
	w.metas[int32(wd)] = meta
	return nil
}

// lookup returns the ready, not invalidated entry of meta, if any.
func (w *watcher) lookup(meta string) *Entry {
	w.mu.Lock()
	pe := w.entries[meta]
	w.mu.Unlock()
	if pe == nil || !pe.ready.Load() || pe.stale.Load() {
		return nil
	}
	return pe
}

// forget invalidates pe if it still is meta's entry.
func (w *watcher) forget(pe *Entry) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.entries[pe.meta] == pe {
		w.invalidateLocked(pe.meta)
	}
}

func (w *watcher) invalidateLocked(meta string) {
	pe := w.entries[meta]
	if pe == nil {
		return
	}
	delete(w.entries, meta)
	pe.stale.Store(true)
	w.drop(pe)
}

var tmpPrefix = []byte(".tmp-")

// drain applies every queued event. When the queue overflowed or cannot be read, every entry is invalidated.
func (w *watcher) drain() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.fd >= 0 {
		n, err := unix.Read(w.fd, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			return
		}
		if err != nil || n <= 0 {
			// Events can no longer be learnt: stop watching, so that every request goes to the file system.
			w.invalidateAllLocked()
			_ = unix.Close(w.fd)
			w.fd = -1
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameStart := off + unix.SizeofInotifyEvent
			name := w.buf[nameStart : nameStart+int(ev.Len)]
			off = nameStart + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.invalidateAllLocked()
				continue
			}
			meta, ok := w.metas[ev.Wd]
			if ev.Mask&unix.IN_IGNORED != 0 {
				delete(w.metas, ev.Wd)
			}
			// The pipeline builds under .tmp- names and renames into place; only the rename's target matters.
			if ok && !bytes.HasPrefix(name, tmpPrefix) {
				w.invalidateLocked(meta)
			}
		}
	}
}

func (w *watcher) invalidateAllLocked() {
	for meta := range w.entries {
		w.invalidateLocked(meta)
	}
}

// close stops watching; every entry is invalidated.
func (w *watcher) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return nil
	}
	w.invalidateAllLocked()
	err := unix.Close(w.fd)
	w.fd = -1
	return err
}
