// Package gitrepo is the store's only door to git: a bare repository opened through go-git, read at any commit,
// and written by crash-safe, serialised transactions (objects first, then the branch moves by one atomic rename).
package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Branch is the branch a new repository publishes from. HEAD names the published branch of each repository
// (Published): the first push into an empty repository may point it elsewhere, as git hosts do, so that a clone
// made with git's default branch name publishes by a plain `git push`.
const Branch = plumbing.ReferenceName("refs/heads/main")

// staleLock is the age after which a ref lock file is taken to be left over from a crash.
const staleLock = 2 * time.Second

// ErrStale reports that a ref was not at the commit the caller expected (someone else moved it first).
var ErrStale = errors.New("gitrepo: reference moved concurrently")

// ErrLocked reports that a ref's lock file stayed taken by another writer for longer than UpdateRef waits.
var ErrLocked = errors.New("gitrepo: reference locked by another writer")

// Repo is one bare git repository. A Repo serialises the writes made through it; open one Repo per directory and
// share it.
type Repo struct {
	dir string
	// st is go-git's storage: refs are read through it directly, objects only through objs.
	st   *filesystem.Storage
	objs *objects
	// mu serialises writers in this process; the ref lock file serialises against other processes (git CLI).
	mu sync.Mutex
	// BeforeRefUpdate, when set, runs after a transaction's objects are written and before its ref moves. Tests
	// use it to inject a crash at the worst moment.
	BeforeRefUpdate func() error
	// NoSync skips flushing objects to disk before a ref moves (tests and benchmarks of throughput only: a power
	// cut could then leave a ref pointing at lost objects).
	NoSync bool

	head headCache
	// branch is the published branch, as HEAD names it.
	branch atomic.Value // plumbing.ReferenceName
}

// headCache remembers the published branch's commit for callers that watch the refs and invalidate it on change.
type headCache struct {
	mu     sync.Mutex
	maxAge time.Duration // zero: no caching
	h      plumbing.Hash
	at     time.Time
	valid  bool
	// gen counts invalidations, so that a read that raced with one is not cached.
	gen uint64
}

// CacheHead lets Head answer from memory for up to maxAge. Only a caller that watches the repository's refs and
// calls InvalidateHead on every change may turn it on; maxAge bounds how stale a missed event can make a read.
// Writes through this Repo keep the cache current themselves.
func (r *Repo) CacheHead(maxAge time.Duration) {
	r.head.mu.Lock()
	defer r.head.mu.Unlock()
	r.head.maxAge, r.head.valid = maxAge, false
	r.head.gen++
}

// InvalidateHead makes the next Head read the ref again.
func (r *Repo) InvalidateHead() {
	r.head.mu.Lock()
	defer r.head.mu.Unlock()
	r.head.valid = false
	r.head.gen++
}

// Init creates a bare repository at dir whose HEAD points at Branch, or opens it when one already exists.
func Init(dir string) (*Repo, error) {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
		return Open(dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("gitrepo: init %s: %w", dir, err)
	}
	_, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		Bare:        true,
		InitOptions: git.InitOptions{DefaultBranch: Branch},
	})
	if err != nil {
		return nil, fmt.Errorf("gitrepo: init %s: %w", dir, err)
	}
	return Open(dir)
}

// largeObject is the size above which a packed object is streamed rather than held whole by go-git.
const largeObject = 1 << 20

// Open opens an existing bare repository.
func Open(dir string) (*Repo, error) {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return nil, fmt.Errorf("gitrepo: open %s: not a git repository: %w", dir, err)
	}
	sweepTemp(dir, time.Now().Add(-staleTemp))
	// A packed object over largeObject is streamed from its pack when read, not inflated into a go-git memory
	// object first (grown by appends, then kept in the object cache): for a 49 MB pushed file that was four to six
	// copies of it in the heap at once, and the server's peak grew with the push (docs/reliability.md).
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRUDefault(),
		filesystem.Options{LargeObjectThreshold: largeObject})
	r := &Repo{dir: dir, st: st, objs: &objects{st: st, packDir: filepath.Join(dir, "objects", "pack")}}
	branch := Branch
	if head, err := st.Reference(plumbing.HEAD); err == nil && head.Type() == plumbing.SymbolicReference && head.Target().IsBranch() {
		branch = head.Target()
	}
	r.branch.Store(branch)
	return r, nil
}

// Published is the branch the repository publishes from: the one its HEAD names.
func (r *Repo) Published() plumbing.ReferenceName { return r.branch.Load().(plumbing.ReferenceName) }

// SetPublished points HEAD at branch. Only a repository whose published branch does not exist yet may change
// it: the first push into an empty repository chooses the branch it publishes from.
func (r *Repo) SetPublished(branch plumbing.ReferenceName) error {
	if !branch.IsBranch() {
		return fmt.Errorf("gitrepo: %s is not a branch", branch)
	}
	if cur, err := r.Ref(r.Published()); err != nil {
		return err
	} else if !cur.IsZero() {
		return fmt.Errorf("gitrepo: %s already publishes from %s", r.dir, r.Published())
	}
	// HEAD is written like git writes it: a new file renamed over the old one.
	tmp := filepath.Join(r.dir, "HEAD.lock")
	if err := os.WriteFile(tmp, []byte("ref: "+string(branch)+"\n"), 0o644); err != nil {
		return fmt.Errorf("gitrepo: set HEAD of %s: %w", r.dir, err)
	}
	if err := os.Rename(tmp, filepath.Join(r.dir, "HEAD")); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("gitrepo: set HEAD of %s: %w", r.dir, err)
	}
	r.branch.Store(branch)
	r.InvalidateHead()
	return nil
}

// staleTemp is the age from which a temporary object is a killed writer's leftover: a blob is staged while its
// upload is validated, so a writer killed then leaves one as large as the compressed upload, and nothing else
// would ever remove it. Another live process's writer never takes that long over one blob.
const staleTemp = time.Hour

// sweepTemp removes temporary objects written before cutoff (best effort: a leftover costs disk, not correctness).
func sweepTemp(dir string, cutoff time.Time) {
	objDir := filepath.Join(dir, "objects")
	ents, err := os.ReadDir(objDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasPrefix(e.Name(), "tmp_obj_") {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			if err := os.Remove(filepath.Join(objDir, e.Name())); err == nil {
				slog.Info("gitrepo: removed a killed writer's temporary object", "repo", dir, "file", e.Name(), "size", info.Size())
			}
		}
	}
}

// Dir is the repository's directory.
func (r *Repo) Dir() string { return r.dir }

// References is the go-git reference storage (listing and reading refs; moves go through UpdateRef).
func (r *Repo) References() storer.ReferenceStorer { return r.st }

// Lock and Unlock serialise a write that does not go through Transact (a push).
func (r *Repo) Lock()   { r.mu.Lock() }
func (r *Repo) Unlock() { r.mu.Unlock() }

// Ref returns the commit a reference points at, or the zero hash when it does not exist.
func (r *Repo) Ref(name plumbing.ReferenceName) (plumbing.Hash, error) {
	// Every read of the store checks the head, so the common case (a loose ref file) is one plain file read;
	// go-git's path resolution through billy costs several stats per call. Packed and symbolic refs take the
	// general path.
	if data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(string(name)))); err == nil {
		if line := strings.TrimSpace(string(data)); plumbing.IsHash(line) {
			return plumbing.NewHash(line), nil
		}
	}
	ref, err := r.st.Reference(name)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitrepo: read %s in %s: %w", name, r.dir, err)
	}
	if ref.Type() != plumbing.HashReference {
		return plumbing.ZeroHash, fmt.Errorf("gitrepo: %s in %s is not a hash reference", name, r.dir)
	}
	return ref.Hash(), nil
}

// Head returns the commit of the published branch, or the zero hash while the repository is empty.
func (r *Repo) Head() (plumbing.Hash, error) {
	c := &r.head
	c.mu.Lock()
	if c.valid && time.Since(c.at) < c.maxAge {
		h := c.h
		c.mu.Unlock()
		return h, nil
	}
	gen, at := c.gen, time.Now()
	c.mu.Unlock()
	h, err := r.Ref(r.Published())
	if err != nil {
		return h, err
	}
	c.mu.Lock()
	if c.maxAge > 0 && c.gen == gen {
		c.h, c.at, c.valid = h, at, true
	}
	c.mu.Unlock()
	return h, nil
}

// Commit reads a commit.
func (r *Repo) Commit(h plumbing.Hash) (*object.Commit, error) {
	c, err := object.GetCommit(r.objs, h)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: commit %s in %s: %w", h, r.dir, err)
	}
	return c, nil
}

// Tree returns the root tree of a commit; nil for the zero hash (the empty repository).
func (r *Repo) Tree(commit plumbing.Hash) (*object.Tree, error) {
	if commit.IsZero() {
		return nil, nil
	}
	c, err := r.Commit(commit)
	if err != nil {
		return nil, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("gitrepo: tree of %s in %s: %w", commit, r.dir, err)
	}
	return t, nil
}

// Blob reads a whole blob.
func (r *Repo) Blob(h plumbing.Hash) ([]byte, error) {
	data, err := r.readLooseBlob(h)
	if err == nil {
		return data, nil
	}
	if !errors.Is(err, errNotLoose) {
		return nil, fmt.Errorf("gitrepo: blob %s in %s: %w", h, r.dir, err)
	}
	b, err := object.GetBlob(r.objs, h)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: blob %s in %s: %w", h, r.dir, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("gitrepo: blob %s in %s: %w", h, r.dir, err)
	}
	defer rd.Close()
	data = make([]byte, 0, b.Size)
	if data, err = readAllInto(data, rd); err != nil {
		return nil, fmt.Errorf("gitrepo: blob %s in %s: %w", h, r.dir, err)
	}
	return data, nil
}

// readAllInto is io.ReadAll into a slice whose capacity is already the expected size.
func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// BlobSize returns a blob's size without reading it.
func (r *Repo) BlobSize(h plumbing.Hash) (int64, error) {
	b, err := object.GetBlob(r.objs, h)
	if err != nil {
		return 0, fmt.Errorf("gitrepo: blob %s in %s: %w", h, r.dir, err)
	}
	return b.Size, nil
}

// File returns the blob hash of path in tree t; found is false when the path is absent or not a file.
func File(t *object.Tree, p string) (h plumbing.Hash, found bool) {
	if t == nil {
		return plumbing.ZeroHash, false
	}
	e, err := t.FindEntry(p)
	if err != nil || !e.Mode.IsFile() {
		return plumbing.ZeroHash, false
	}
	return e.Hash, true
}

// ReadFile reads path in tree t; found is false when it is absent.
func (r *Repo) ReadFile(t *object.Tree, p string) (data []byte, found bool, err error) {
	h, ok := File(t, p)
	if !ok {
		return nil, false, nil
	}
	data, err = r.Blob(h)
	return data, err == nil, err
}

// Signature names the author of a commit.
type Signature struct {
	Name, Email string
	When        time.Time
}

// Tx is one write transaction: the tree as of Head, plus the changes made so far.
type Tx struct {
	repo    *Repo
	Head    plumbing.Hash
	Tree    *object.Tree // nil while the repository is empty
	changes map[string]*[]byte
	staged  map[*[]byte]*StagedBlob // changes whose blob is written already
	Author  Signature
	Message string
}

// Read returns a file's content as the transaction sees it (its own changes included).
func (tx *Tx) Read(p string) (data []byte, found bool, err error) {
	if c, ok := tx.changes[p]; ok {
		if c == nil {
			return nil, false, nil
		}
		return *c, true, nil
	}
	return tx.repo.ReadFile(tx.Tree, p)
}

// Put writes a file.
func (tx *Tx) Put(p string, content []byte) { tx.changes[p] = &content }

// PutStaged writes a file whose blob was staged with StageBlob; the commit then only renames it into place.
func (tx *Tx) PutStaged(p string, sb *StagedBlob) {
	c := &sb.data
	tx.changes[p] = c
	if tx.staged == nil {
		tx.staged = map[*[]byte]*StagedBlob{}
	}
	tx.staged[c] = sb
}

// Delete removes a file (nothing when it is absent).
func (tx *Tx) Delete(p string) { tx.changes[p] = nil }

// Changed reports whether the transaction has changes.
func (tx *Tx) Changed() bool { return len(tx.changes) > 0 }

// Transact runs fn against the current head and, when fn returns nil with changes, commits them as one commit
// on the published branch. Writers are serialised. The objects are written before the branch moves, and the move is one
// atomic rename, so a crash at any point leaves the branch at the old commit or the new one, never in between.
// It returns the new head (the old one when nothing changed or the tree came out identical).
//
// A write that loses a race with a writer outside this Repo (the git CLI, another process; fn may also report
// ErrStale when what it read was older than the transaction's head) runs fn again on the new head, after a pause
// that grows with each attempt, for up to maxAttempts attempts or until ctx ends; after optimisticAttempts lost
// races the branch's lock is held through the whole attempt, so that a busy writer outside cannot starve it.
func (r *Repo) Transact(ctx context.Context, fn func(tx *Tx) error) (plumbing.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for attempt := 1; ; attempt++ {
		h, err := r.transact(ctx, fn, attempt > optimisticAttempts)
		if !retryable(err) || attempt >= maxAttempts {
			return h, err
		}
		t := time.NewTimer(retryPause(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return h, fmt.Errorf("gitrepo: %w (after %d attempts: %v)", ctx.Err(), attempt, err)
		case <-t.C:
		}
	}
}

// optimisticAttempts is how many attempts run without holding the branch's lock throughout.
const optimisticAttempts = 3

// maxAttempts bounds how often a transaction runs again after losing a race; with retryPause's growth that is
// several seconds of another writer committing back to back.
const maxAttempts = 40

// retryable tells the failures that another writer caused and that running again on the new head resolves.
func retryable(err error) bool {
	return errors.Is(err, ErrStale) || errors.Is(err, ErrLocked)
}

// retryPause is the pause before attempt n+1: 1 ms doubling up to 128 ms, with jitter so that two processes that
// keep colliding fall out of step.
func retryPause(n int) time.Duration {
	d := time.Millisecond << min(n-1, 7)
	return d/2 + rand.N(d)
}

// transact runs one attempt. With hold, the branch's lock is taken first and held to the end, so no other writer
// can move the branch in between: Transact falls back to that after losing races, because an attempt (objects,
// flush) can take longer than the gap between another writer's commits, and optimism alone could then starve.
// It is not the default because the git CLI gives up on a ref lock held for more than a moment.
func (r *Repo) transact(ctx context.Context, fn func(tx *Tx) error, hold bool) (plumbing.Hash, error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	branch := r.Published()
	var lock *refLock
	if hold {
		var err error
		if lock, err = r.lockRef(branch); err != nil {
			return plumbing.ZeroHash, err
		}
		defer lock.release()
	}
	// Always the ref itself, never the cache: the transaction's parent must be the current commit.
	head, err := r.Ref(branch)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tree, err := r.Tree(head)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tx := &Tx{repo: r, Head: head, Tree: tree, changes: map[string]*[]byte{}}
	if err := fn(tx); err != nil {
		return head, err
	}
	if !tx.Changed() {
		return head, nil
	}
	if err := ctx.Err(); err != nil {
		return head, err
	}
	if lock != nil {
		lock.touch()
	}
	var base plumbing.Hash
	if tree != nil {
		base = tree.Hash
	}
	newTree, err := r.editTree(base, tx.changes, tx.staged)
	if err != nil {
		return head, err
	}
	if newTree.IsZero() {
		// Everything was deleted: the root is git's empty tree, which must exist as an object.
		if newTree, err = r.writeObject(plumbing.TreeObject, nil); err != nil {
			return head, err
		}
	}
	if newTree == base {
		return head, nil
	}
	sig := object.Signature{Name: tx.Author.Name, Email: tx.Author.Email, When: tx.Author.When}
	if sig.When.IsZero() {
		sig.When = time.Now()
	}
	c := &object.Commit{Author: sig, Committer: sig, Message: tx.Message, TreeHash: newTree}
	if !head.IsZero() {
		c.ParentHashes = []plumbing.Hash{head}
	}
	obj := r.objs.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return head, fmt.Errorf("gitrepo: encode commit: %w", err)
	}
	ch, err := r.objs.SetEncodedObject(obj)
	if err != nil {
		return head, fmt.Errorf("gitrepo: write commit in %s: %w", r.dir, err)
	}
	if lock != nil {
		lock.touch()
	}
	written, err := r.txObjects(ch, newTree, tx.changes)
	if err != nil {
		return head, err
	}
	if err := r.syncTx(written); err != nil {
		return head, err
	}
	if r.BeforeRefUpdate != nil {
		if err := r.BeforeRefUpdate(); err != nil {
			return head, err
		}
	}
	if lock != nil {
		err = lock.move(head, ch)
	} else {
		err = r.UpdateRef(branch, head, ch)
	}
	if err != nil {
		return head, err
	}
	return ch, nil
}

func (r *Repo) writeObject(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	if t == plumbing.BlobObject {
		return r.writeBlob(data)
	}
	obj := r.objs.NewEncodedObject()
	obj.SetType(t)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := r.objs.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitrepo: write %s in %s: %w", t, r.dir, err)
	}
	return h, nil
}

// editTree returns the tree that is base with changes applied (keys are slash paths; nil deletes). Only the
// subtrees on changed paths are rewritten; directories left empty disappear, as in git.
func (r *Repo) editTree(base plumbing.Hash, changes map[string]*[]byte, staged map[*[]byte]*StagedBlob) (plumbing.Hash, error) {
	blob := func(c *[]byte) (plumbing.Hash, error) {
		if sb, ok := staged[c]; ok {
			return sb.place()
		}
		return r.writeObject(plumbing.BlobObject, *c)
	}
	var entries []object.TreeEntry
	if !base.IsZero() {
		t, err := object.GetTree(r.objs, base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("gitrepo: tree %s in %s: %w", base, r.dir, err)
		}
		entries = append(entries, t.Entries...)
	}
	here := map[string]*[]byte{}
	sub := map[string]map[string]*[]byte{}
	for p, c := range changes {
		dir, rest, nested := strings.Cut(p, "/")
		if nested {
			if sub[dir] == nil {
				sub[dir] = map[string]*[]byte{}
			}
			sub[dir][rest] = c
		} else {
			here[p] = c
		}
	}
	out := entries[:0:0]
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.Name] = true
		if c, ok := here[e.Name]; ok {
			if c != nil {
				h, err := blob(c)
				if err != nil {
					return plumbing.ZeroHash, err
				}
				out = append(out, object.TreeEntry{Name: e.Name, Mode: filemode.Regular, Hash: h})
			}
			continue
		}
		if s, ok := sub[e.Name]; ok {
			var subBase plumbing.Hash
			if e.Mode == filemode.Dir {
				subBase = e.Hash
			}
			h, err := r.editTree(subBase, s, staged)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if !h.IsZero() {
				out = append(out, object.TreeEntry{Name: e.Name, Mode: filemode.Dir, Hash: h})
			}
			continue
		}
		out = append(out, e)
	}
	for name, c := range here {
		if !seen[name] && c != nil {
			if _, clash := sub[name]; clash {
				return plumbing.ZeroHash, fmt.Errorf("gitrepo: %s is both a file and a directory", name)
			}
			h, err := blob(c)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			out = append(out, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
		}
	}
	for name, s := range sub {
		if !seen[name] {
			h, err := r.editTree(plumbing.ZeroHash, s, staged)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if !h.IsZero() {
				out = append(out, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
			}
		}
	}
	if len(out) == 0 {
		return plumbing.ZeroHash, nil
	}
	// git orders entries by name, comparing a directory as if its name ended in '/'.
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	t := &object.Tree{Entries: out}
	obj := r.objs.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitrepo: encode tree: %w", err)
	}
	h, err := r.objs.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitrepo: write tree in %s: %w", r.dir, err)
	}
	return h, nil
}

// Sync makes the objects written so far durable (see syncObjects); call it before moving a ref to them.
func (r *Repo) Sync() error {
	if r.NoSync {
		return nil
	}
	return syncObjects(r.dir)
}

// UpdateRef moves a reference from old to new (the zero hash for old means "must not exist"; for new, delete it).
// It takes git's own lock file, so it also serialises against the git CLI, and writes the new value by renaming
// the lock file over the ref: a crash leaves either value, never a torn file.
func (r *Repo) UpdateRef(name plumbing.ReferenceName, old, new plumbing.Hash) error {
	l, err := r.lockRef(name)
	if err != nil {
		return err
	}
	defer l.release()
	return l.move(old, new)
}

// refLock is a held ref lock file (`<ref>.lock`, as git names it).
type refLock struct {
	r                 *Repo
	name              plumbing.ReferenceName
	refPath, lockPath string
	f                 *os.File
	done              bool
}

// lockRef takes a ref's lock file, waiting while another writer holds it and breaking one left by a crash.
func (r *Repo) lockRef(name plumbing.ReferenceName) (*refLock, error) {
	if !strings.HasPrefix(string(name), "refs/") || strings.Contains(string(name), "..") {
		return nil, fmt.Errorf("gitrepo: refusing to update %q", name)
	}
	refPath := filepath.Join(r.dir, filepath.FromSlash(string(name)))
	lockPath := refPath + ".lock"
	if err := os.MkdirAll(filepath.Dir(refPath), 0o755); err != nil {
		return nil, fmt.Errorf("gitrepo: update %s: %w", name, err)
	}
	var lock *os.File
	var err error
	for i := 0; i < 300; i++ {
		lock, err = os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, os.ErrExist) {
			break
		}
		// git holds a ref lock for milliseconds; one this old was left by a process that died holding it.
		if fi, statErr := os.Stat(lockPath); statErr == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(lockPath)
			continue
		}
		time.Sleep(10 * time.Millisecond)
	}
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w: %s in %s", ErrLocked, name, r.dir)
	}
	if err != nil {
		return nil, fmt.Errorf("gitrepo: lock %s in %s: %w", name, r.dir, err)
	}
	return &refLock{r: r, name: name, refPath: refPath, lockPath: lockPath, f: lock}, nil
}

// touch renews the lock's modification time, so that a lock held through a long transaction is not taken for
// one left by a crash (staleLock).
func (l *refLock) touch() {
	now := time.Now()
	_ = os.Chtimes(l.lockPath, now, now)
}

// release gives the lock up unless move consumed it.
func (l *refLock) release() {
	if !l.done {
		l.done = true
		mine := l.ours() // before Close: it compares the open file with the path
		l.f.Close()
		if mine {
			os.Remove(l.lockPath)
		}
	}
}

// ours reports whether the lock file at the lock path is still the one this lock created: another writer breaks
// a lock it takes for stale, and renaming that writer's lock over the ref would publish its value, not ours.
func (l *refLock) ours() bool {
	mine, err1 := l.f.Stat()
	there, err2 := os.Stat(l.lockPath)
	return err1 == nil && err2 == nil && os.SameFile(mine, there)
}

// move checks that the ref is at old and moves it to new (deletes it for the zero hash), consuming the lock.
func (l *refLock) move(old, new plumbing.Hash) error {
	r, name := l.r, l.name
	cur, err := r.Ref(name)
	if err != nil {
		return err
	}
	if cur != old {
		return fmt.Errorf("%w: %s is at %s, expected %s", ErrStale, name, short(cur), short(old))
	}
	takenOver := func() error {
		return fmt.Errorf("%w: the lock of %s was broken by another writer as stale (held over %v)", ErrStale, name, staleLock)
	}
	if !l.ours() {
		return takenOver()
	}
	if new.IsZero() {
		if name == r.Published() {
			defer r.InvalidateHead()
		}
		if err := r.st.RemoveReference(name); err != nil {
			return fmt.Errorf("gitrepo: delete %s in %s: %w", name, r.dir, err)
		}
		return nil
	}
	if _, err := l.f.WriteString(new.String() + "\n"); err != nil {
		return fmt.Errorf("gitrepo: write %s in %s: %w", name, r.dir, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("gitrepo: sync %s in %s: %w", name, r.dir, err)
	}
	// The flush can take seconds on a loaded machine, long enough for another writer to break the lock: check
	// again right before the rename.
	if !l.ours() {
		return takenOver()
	}
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("gitrepo: write %s in %s: %w", name, r.dir, err)
	}
	l.done = true
	err = os.Rename(l.lockPath, l.refPath)
	if name == r.Published() {
		r.InvalidateHead()
	}
	if errors.Is(err, fs.ErrNotExist) {
		return takenOver() // broken between the check and the rename
	}
	if err != nil {
		os.Remove(l.lockPath)
		return fmt.Errorf("gitrepo: move %s in %s: %w", name, r.dir, err)
	}
	return nil
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}

// Refs lists the references under prefix (e.g. "refs/tags/") with the commits they point at; annotated tags are
// peeled to their commits.
func (r *Repo) Refs(prefix string) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	stored, err := r.StoredRefs()
	if err != nil {
		return nil, err
	}
	out := map[plumbing.ReferenceName]plumbing.Hash{}
	for name, h := range stored {
		if !strings.HasPrefix(string(name), prefix) {
			continue
		}
		if tag, err := object.GetTag(r.objs, h); err == nil {
			h = tag.Target
		}
		out[name] = h
	}
	return out, nil
}

// StoredRefs lists every hash reference under refs/ with its stored value (an annotated tag's own id). Unlike
// go-git's IterReferences it skips lock files: a writer killed between creating refs/heads/main.lock and renaming
// it leaves an empty lock behind, and a live writer holds one for a moment; neither is a reference, and reading
// one as a reference made every listing fail until the lock was cleared. Loose refs win over packed-refs, as in git.
func (r *Repo) StoredRefs() (map[plumbing.ReferenceName]plumbing.Hash, error) {
	out := map[plumbing.ReferenceName]plumbing.Hash{}
	if err := r.readPackedRefs(out); err != nil {
		return nil, err
	}
	root := filepath.Join(r.dir, "refs")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walked
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(d.Name(), ".lock") {
			return nil
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		// Symbolic and broken refs are not listed (git itself ignores a broken ref with a warning).
		if line := strings.TrimSpace(string(data)); plumbing.IsHash(line) {
			rel, err := filepath.Rel(r.dir, p)
			if err != nil {
				return err
			}
			out[plumbing.ReferenceName(filepath.ToSlash(rel))] = plumbing.NewHash(line)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitrepo: refs of %s: %w", r.dir, err)
	}
	return out, nil
}

func (r *Repo) readPackedRefs(out map[plumbing.ReferenceName]plumbing.Hash) error {
	data, err := os.ReadFile(filepath.Join(r.dir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("gitrepo: packed refs of %s: %w", r.dir, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		// "# pack-refs with: ..." headers and "^<peeled>" lines carry nothing we list.
		h, name, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && plumbing.IsHash(h) && strings.HasPrefix(name, "refs/") {
			out[plumbing.ReferenceName(name)] = plumbing.NewHash(h)
		}
	}
	return nil
}

// Walk calls fn for every file in tree t (paths relative to the root, slash-separated). Paths are the entry names
// joined as stored, never cleaned: cleaning would turn a crafted "a/../b.ttl" into another file's path.
func Walk(t *object.Tree, fn func(p string, blob plumbing.Hash) error) error {
	if t == nil {
		return nil
	}
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("gitrepo: walk tree: %w", err)
		}
		if e.Mode.IsFile() {
			if err := fn(name, e.Hash); err != nil {
				return err
			}
		}
	}
}
