// Package filecache keeps what the direct-URL handler (site) reads of the rendered tree (site/tree) in memory: each
// publication's current folder, every rendered folder's page, its small files within one memory budget, and every
// response it gives prepared once, with the content negotiation of each Accept header remembered.
//
// It is its own package because it is the one part of serving that must stay true to a tree another process
// (the pipeline) rewrites underneath it: an inotify watch (Linux) invalidates a publication's entry when its cur
// link switches or a folder of it changes, a stat of page.json stands in where nothing is watched, and a periodic
// look at the file system covers what inotify cannot report. What a URL means, who may see it and how it is
// answered stay in site.
package filecache

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ldhub/ldhub/site/tree"
)

// Options configure a Cache.
type Options struct {
	// MaxBytes bounds the bytes of file content all folders keep in memory (default 64 MiB), MaxFileBytes one
	// file (default 64 KiB; a larger file is served from disk).
	MaxBytes, MaxFileBytes int64
	// Log receives why the tree is not watched; nil is slog.Default().
	Log *slog.Logger
}

// Cache is the in-memory view of one rendered tree.
type Cache struct {
	log        *slog.Logger
	folders    sync.Map // resolved folder path -> *Folder, for publications whose changes are not watched
	budget     *budget
	negTables  shared[negTable]
	langTables shared[langTable]
	watchOnce  sync.Once
	watch      atomic.Pointer[watcher]
}

// New returns an empty cache.
func New(o Options) *Cache {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 20
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 64 << 10
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Cache{log: o.Log, budget: &budget{max: o.MaxBytes, per: o.MaxFileBytes}}
}

// Close stops watching the rendered tree; the cache keeps answering, validating every folder on the file system.
// Without Close the watch ends when the cache is garbage collected.
func (c *Cache) Close() error {
	c.watchOnce.Do(func() {}) // no watch may start after this
	if w := c.watch.Swap(nil); w != nil {
		return w.close()
	}
	return nil
}

// Watch starts the inotify watch on first use and reports whether the tree is watched: a handler that never
// serves a publication holds no inotify instance (there are 128 per user by default).
func (c *Cache) Watch() bool {
	c.watchOnce.Do(func() {
		w, err := newWatcher((*Entry).release)
		if err != nil {
			c.log.Warn("site: serving without the route cache", "err", err)
			return
		}
		c.watch.Store(w)
		runtime.AddCleanup(c, func(w *watcher) { _ = w.close() }, w)
	})
	return c.watch.Load() != nil
}

// Watching reports whether the tree is watched, without starting the watch.
func (c *Cache) Watching() bool { return c.watch.Load() != nil }

// Drain applies the tree's changes reported since the last call. A caller keeping something derived from an entry
// (a route) drains before it checks the entry with Fresh.
func (c *Cache) Drain() {
	if w := c.watch.Load(); w != nil {
		w.drain()
	}
}

// Entry is what the cache keeps of one publication's MetaDir while inotify watches it: where its cur link
// points, and its folders (the latest's and the versions' read so far). Any change in the MetaDir or its versions
// folder marks it stale; a new entry is then built from the file system.
type Entry struct {
	meta    string
	link    string // cur's target, relative to meta
	ino     uint64 // meta's inode, to notice a tree replaced above the watched folders
	ready   atomic.Bool
	stale   atomic.Bool
	checked atomic.Int64 // when the entry was last compared with the file system (UnixNano)

	mu      sync.Mutex
	folders map[string]*Folder // nil once released
}

// recheckEvery bounds how long an entry is trusted on inotify alone. Changes inotify cannot report (the tree
// moved or replaced above a watched folder, a network file system written by another host) show after at most
// this long; the pipeline's own switches show on the next request.
const recheckEvery = time.Second

// Fresh reports whether pe may be used, comparing it with the file system once per recheckEvery.
func (c *Cache) Fresh(pe *Entry) bool {
	if pe.stale.Load() {
		return false
	}
	now := time.Now().UnixNano()
	last := pe.checked.Load()
	if now-last < int64(recheckEvery) || !pe.checked.CompareAndSwap(last, now) {
		return true // checked recently, or another request is checking now
	}
	link, err := os.Readlink(filepath.Join(pe.meta, tree.Current))
	if err == nil && link == pe.link && dirInode(pe.meta) == pe.ino {
		return true
	}
	if w := c.watch.Load(); w != nil {
		w.forget(pe)
	}
	pe.stale.Store(true)
	return false
}

// release gives the entry's cached bytes back to the budget; folders loaded into it afterwards keep none.
func (pe *Entry) release() {
	pe.mu.Lock()
	fs := pe.folders
	pe.folders = nil
	pe.mu.Unlock()
	for _, f := range fs {
		f.release()
	}
}

func dirInode(dir string) uint64 {
	fi, err := os.Lstat(dir)
	if err != nil {
		return 0
	}
	return inode(fi)
}

// Resolve finds the folder serving the latest version of the publication rendered in meta (its MetaDir). When
// inotify can watch meta the answer is kept in an Entry; otherwise pe is nil and the caller reads the folder's
// page anew.
func (c *Cache) Resolve(meta string) (pe *Entry, dir string, err error) {
	var w *watcher
	if c.Watch() {
		w = c.watch.Load()
	}
	if w != nil {
		if pe := w.lookup(meta); pe != nil && c.Fresh(pe) {
			return pe, filepath.Join(meta, pe.link), nil
		}
	}
	cur := filepath.Join(meta, tree.Current)
	link, err := os.Readlink(cur)
	if err != nil {
		return nil, "", err
	}
	if w == nil {
		return nil, filepath.Join(meta, link), nil
	}
	pe = &Entry{meta: meta, folders: map[string]*Folder{}}
	if err := w.track(meta, pe); err != nil {
		c.log.Debug("site: publication not watched", "meta", meta, "err", err)
		return nil, filepath.Join(meta, link), nil
	}
	// Read the link again under the watch: a switch between the first read and the watch would go unnoticed.
	if link, err = os.Readlink(cur); err != nil {
		w.forget(pe)
		return nil, "", err
	}
	pe.link, pe.ino = link, dirInode(meta)
	pe.checked.Store(time.Now().UnixNano())
	pe.ready.Store(true)
	return pe, filepath.Join(meta, link), nil
}

// Retracted returns the latest folder (cur) of the publication when name (a version's label, escaped as esc,
// its id or commit hash) is a version deleted through the API: its URLs answer 410 Gone, not 404, so that caches
// and crawlers drop them.
func (c *Cache) Retracted(pe *Entry, cur, esc, name string) (*Folder, bool) {
	fo, _, err := c.FolderIn(pe, cur)
	if err != nil {
		return nil, false
	}
	for _, v := range fo.Page.Retracted {
		if path.Base(v.URL) == esc || v.ID == name || v.Commit == name || len(name) >= 7 && strings.HasPrefix(v.Commit, name) {
			return fo, true
		}
	}
	return nil, false
}

// VersionByID finds a version folder by version id or commit (prefix) through the latest page's version list
// (cur, in the MetaDir meta); "" when there is none.
func (c *Cache) VersionByID(pe *Entry, cur, meta, name string) string {
	fo, _, err := c.FolderIn(pe, cur)
	if err != nil {
		return ""
	}
	for _, v := range fo.Page.Versions {
		if v.ID == name || v.Commit == name || len(name) >= 7 && strings.HasPrefix(v.Commit, name) {
			return filepath.Join(meta, tree.Versions, path.Base(v.URL))
		}
	}
	return ""
}

// FolderIn returns a folder of a tracked publication, read once while the entry lives and watched like its
// MetaDir, or (pe nil, or the folder cannot be watched) through the stat-validated folder cache; tracked says
// which.
func (c *Cache) FolderIn(pe *Entry, dir string) (f *Folder, tracked bool, err error) {
	if pe == nil {
		f, err = c.folder(dir)
		return f, false, err
	}
	pe.mu.Lock()
	f = pe.folders[dir]
	pe.mu.Unlock()
	if f != nil {
		return f, true, nil
	}
	// Watched before it is read, so that a change made while reading it shows as an event.
	if w := c.watch.Load(); w == nil || w.watchDir(pe.meta, dir) != nil {
		f, err = c.folder(dir)
		return f, false, err
	}
	if f, err = c.readFolder(dir); err != nil {
		return nil, false, err
	}
	f.watched = true
	pe.mu.Lock()
	defer pe.mu.Unlock()
	if pe.folders == nil { // released meanwhile: serve this request, keep nothing
		f.dropped = true
		return f, true, nil
	}
	if old := pe.folders[dir]; old != nil {
		return old, true, nil
	}
	pe.folders[dir] = f
	return f, true, nil
}

// readFolder reads a rendered folder's page.json.
func (c *Cache) readFolder(dir string) (*Folder, error) {
	name := filepath.Join(dir, tree.PageJSON)
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	var p tree.Page
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("filecache: %s: %w", name, err)
	}
	return c.newFolder(dir, &p, inode(fi), fi.ModTime()), nil
}

// folder returns what the cache knows of a rendered folder, re-reading its page.json only when that file was
// replaced (one stat per request instead of a read and a JSON decode).
func (c *Cache) folder(dir string) (*Folder, error) {
	name := filepath.Join(dir, tree.PageJSON)
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	ino := inode(fi)
	if v, ok := c.folders.Load(dir); ok {
		if f := v.(*Folder); f.ino == ino && f.mod.Equal(fi.ModTime()) {
			return f, nil
		}
	}
	f, err := c.readFolder(dir)
	if err != nil {
		return nil, err
	}
	if old, loaded := c.folders.Swap(dir, f); loaded {
		old.(*Folder).release()
	}
	return f, nil
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
