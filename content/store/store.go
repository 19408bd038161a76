// Package store is ldhub's one door to its data: the catalogue (groups, repositories, credentials, grants),
// publications and files with their versions, and change notifications. Git is the source of truth — every write
// is one commit, authored by the acting credential — and nothing outside this package tree touches git.
//
// On disk, a data folder holds hub.git (the catalogue) and repositories/<repository id>.git (one bare
// repository per ldhub repository). Every method takes a context and returns errors that wrap one of model's
// sentinel kinds (ErrNotFound, ErrConflict, ErrInvalid, ErrForbidden, ErrUnauthorized) when the caller is at fault.
package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/content/store/gitrepo"
	"github.com/ldhub/ldhub/content/store/history"
)

// Validator parses uploaded content in full. It returns nil for good content and, for bad RDF, an error
// wrapping an *rdf.SyntaxError (with line and column). path is the file's path in the repository; its extension
// names the syntax.
type Validator func(ctx context.Context, path string, content []byte) error

// Options configure a store.
type Options struct {
	// Validate checks publication content before it is committed. Required.
	Validate Validator
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// HashCost is the bcrypt cost of new secrets; zero is bcrypt's default.
	HashCost int
	// NoWatch turns off the file system watcher (changes made behind the store's back are then noticed on the
	// next read only).
	NoWatch bool
}

// Store is an open data folder. It is safe for concurrent use.
type Store struct {
	dir      string
	cat      *catalog.Catalog
	validate Validator
	now      func() time.Time

	mu    sync.Mutex
	repos map[string]*handle
	// where maps publication, file and version ids to their repository, filled as snapshots are made.
	where map[string]string

	events  *broker
	uploads uploadWatchers
	watcher *fsnotify.Watcher
	// watched maps a watched directory to the repository id it belongs to ("" for the hub repository).
	watched map[string]string
	// catHead is the catalogue commit last announced.
	catHead plumbing.Hash
	done    chan struct{}
	wg      sync.WaitGroup
}

// handle is an open ldhub repository and its history index.
type handle struct {
	id  string
	git *gitrepo.Repo
	idx *history.Index
}

// Open opens the data folder dir, initialising an empty one.
func Open(ctx context.Context, dir string, o Options) (*Store, error) {
	if o.Validate == nil {
		return nil, errors.New("store: a content validator is required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Join(dir, "repositories"), 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	cat, err := catalog.Open(filepath.Join(dir, "hub.git"), catalog.Options{Now: o.Now, HashCost: o.HashCost})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s := &Store{dir: dir, cat: cat, validate: o.Validate, now: o.Now, repos: map[string]*handle{},
		where: map[string]string{}, events: newBroker(), watched: map[string]string{}, done: make(chan struct{})}
	if !o.NoWatch {
		if err := s.startWatcher(); err != nil {
			return nil, err
		}
	}
	st, err := cat.View()
	if err != nil {
		return nil, err
	}
	s.catHead = st.Head
	for id := range st.Repos {
		if _, err := s.handle(ctx, id); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Close stops the watcher and ends every subscription.
func (s *Store) Close() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	close(s.done)
	var err error
	if s.watcher != nil {
		err = s.watcher.Close()
	}
	s.wg.Wait()
	s.events.close()
	return err
}

func (s *Store) repoDir(id string) string {
	return filepath.Join(s.dir, "repositories", id+".git")
}

// handle returns the open repository with an id; it must be in the catalogue.
func (s *Store) handle(ctx context.Context, id string) (*handle, error) {
	s.mu.Lock()
	h, ok := s.repos[id]
	s.mu.Unlock()
	if ok {
		return h, nil
	}
	g, err := gitrepo.Open(s.repoDir(id))
	if err != nil {
		return nil, fmt.Errorf("store: repository %s: %w", id, err)
	}
	head, err := g.Head()
	if err != nil {
		return nil, fmt.Errorf("store: repository %s: %w", id, err)
	}
	s.mu.Lock()
	if h, ok := s.repos[id]; ok {
		s.mu.Unlock()
		return h, nil
	}
	h = &handle{id: id, git: g}
	// The first snapshot of a repository that already has commits is the state found, not a change; an empty
	// repository's state is known (nothing), so its first commit is announced.
	first := !head.IsZero()
	h.idx = history.New(g, id, func(snap *history.Snapshot) {
		s.mu.Lock()
		for _, kind := range []history.Kind{history.Publication, history.File} {
			for _, it := range snap.Items(kind) {
				s.where[it.ID] = id
				for _, v := range it.Versions {
					s.where[v.ID] = id
				}
			}
		}
		s.mu.Unlock()
		// The first snapshot is the state found at start-up, not a change.
		if !first {
			s.events.publish(ChangeEvent{RepositoryID: id, Commit: snap.Head.String(), Items: snap.Changed})
		}
		first = false
	})
	s.repos[id] = h
	s.watch(g, id)
	s.mu.Unlock()
	// Index now, so that the baseline is the state at opening and every later commit is announced as a change.
	if _, err := s.snapshot(ctx, h); err != nil {
		return nil, err
	}
	return h, nil
}

// snapshot returns the repository's index as of its head (announcing what changed since the last one).
func (s *Store) snapshot(ctx context.Context, h *handle) (*history.Snapshot, error) {
	snap, err := h.idx.Current(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return snap, nil
}

// Catalog exposes the catalogue's view for callers that need paths and roles in bulk (listings).
func (s *Store) Catalog(ctx context.Context) (*catalog.State, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.cat.View()
}

// readable returns the repository's handle after checking that actor may read it.
func (s *Store) readable(ctx context.Context, actor model.Actor, repoID string) (*handle, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if _, ok := st.Repos[repoID]; !ok || !st.CanSee(actor, repoID) {
		return nil, model.NotFoundf("repository %s not found", repoID)
	}
	return s.handle(ctx, repoID)
}

// writable returns the repository's handle after checking that actor holds role on it.
func (s *Store) writable(ctx context.Context, actor model.Actor, repoID string, role model.Role) (*handle, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if err := st.Require(actor, repoID, role, "repository"); err != nil {
		return nil, err
	}
	return s.handle(ctx, repoID)
}
