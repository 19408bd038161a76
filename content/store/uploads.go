package store

import (
	"errors"
	"sync"
)

// Upload is publication content on its way to a commit, announced before the store validates and writes it, so
// that work derived from the content alone can run while the commit is made: the pipeline renders a large upload
// beside its validation, its git blob and its fsync, and only puts the rendering live once the commit is there.
type Upload struct {
	RepositoryID string
	// PublicationID is the publication that gets a new version.
	PublicationID string
	// Path is the content's path in the repository; its extension names the syntax.
	Path string
	// Data is the content, which must not be modified. A committed upload's bytes are the very bytes that
	// TakePublicationContent then hands to its reader (until RecycleContent); a refused upload's are the caller's
	// and are never reused by the store.
	Data []byte
}

// UploadWatcher is told of an upload and returns what the store calls exactly once when the upload is over: with
// the blob's object id once the commit that holds the content is on the branch, or with a non-nil error when
// nothing was committed (bad content, a conflict, the same bytes as the latest version). It may return nil.
type UploadWatcher func(Upload) (outcome func(blob string, err error))

// errUnchanged is the outcome of content equal to the latest version's: no version was made of it.
var errUnchanged = errors.New("store: the content is the latest version's")

// announceAbove is the smallest content announced: a watcher's head start is only worth something for content
// that takes seconds to derive (the same size from which the blob is staged alongside validation).
const announceAbove = stageAbove

type uploadWatchers struct {
	mu   sync.Mutex
	next int
	all  map[int]UploadWatcher
}

// WatchUploads registers w for every large publication update made through the store (not for pushes, whose
// objects arrive in a pack, nor for new publications); the returned function unregisters it.
func (s *Store) WatchUploads(w UploadWatcher) (stop func()) {
	u := &s.uploads
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.all == nil {
		u.all = map[int]UploadWatcher{}
	}
	id := u.next
	u.next++
	u.all[id] = w
	return func() {
		u.mu.Lock()
		defer u.mu.Unlock()
		delete(u.all, id)
	}
}

// announce tells the watchers of an upload and returns the function that tells them its outcome.
func (s *Store) announce(up Upload) func(blob string, err error) {
	if len(up.Data) < announceAbove {
		return func(string, error) {}
	}
	u := &s.uploads
	u.mu.Lock()
	ws := make([]UploadWatcher, 0, len(u.all))
	for _, w := range u.all {
		ws = append(ws, w)
	}
	u.mu.Unlock()
	var outs []func(string, error)
	for _, w := range ws {
		if o := w(up); o != nil {
			outs = append(outs, o)
		}
	}
	return func(blob string, err error) {
		if err == nil && blob == "" {
			err = errUnchanged
		}
		for _, o := range outs {
			o(blob, err)
		}
	}
}
