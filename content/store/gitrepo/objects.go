package gitrepo

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objects guards go-git's object storage, which is not safe for concurrent use: it fills its map of pack indexes
// lazily and adds to it when a pack is written. It also notices packs that appeared behind the store's back (a
// push by the git CLI, git gc): an object that is not found is looked up once more after re-reading the packs.
type objects struct {
	mu      sync.Mutex
	st      *filesystem.Storage
	packDir string
	// packsSeen is the pack folder's modification time when the pack list was last re-read: misses (a fetch
	// sends many haves the hub does not have) re-read it only when a pack came or went.
	packsSeen time.Time
}

// retry reports whether a miss is worth a second look, re-reading the pack list when packs changed.
func (o *objects) retry(err error) bool {
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return false
	}
	fi, statErr := os.Stat(o.packDir)
	if statErr != nil || fi.ModTime().Equal(o.packsSeen) {
		return false
	}
	o.packsSeen = fi.ModTime()
	o.st.Reindex()
	return true
}

var _ storer.EncodedObjectStorer = (*objects)(nil)

func (o *objects) NewEncodedObject() plumbing.EncodedObject { return o.st.NewEncodedObject() }

func (o *objects) SetEncodedObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.st.SetEncodedObject(obj)
}

func (o *objects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	obj, err := o.st.EncodedObject(t, h)
	if o.retry(err) {
		obj, err = o.st.EncodedObject(t, h)
	}
	return obj, err
}

func (o *objects) HasEncodedObject(h plumbing.Hash) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	err := o.st.HasEncodedObject(h)
	if o.retry(err) {
		err = o.st.HasEncodedObject(h)
	}
	return err
}

func (o *objects) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	size, err := o.st.EncodedObjectSize(h)
	if o.retry(err) {
		size, err = o.st.EncodedObjectSize(h)
	}
	return size, err
}

// IterEncodedObjects is not used by ldhub; it is refused rather than handing out an unguarded iterator.
func (o *objects) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errors.New("gitrepo: iterating all objects is not supported")
}

func (o *objects) AddAlternate(string) error {
	return errors.New("gitrepo: alternates are not supported")
}

// Objects is the repository's object storage, safe for concurrent use.
func (r *Repo) Objects() storer.EncodedObjectStorer { return r.objs }
