package store

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// ChangeEvent says that a repository (or the catalogue) moved to a new commit, whoever made it: the store itself,
// a git push, or a commit made straight into the bare repository.
type ChangeEvent struct {
	// RepositoryID is the repository that changed; empty when the catalogue changed.
	RepositoryID string
	// Commit is the new head.
	Commit string
	// Items are the ids of the publications and files whose content or meta-data changed (deleted ones included).
	Items []string
	// Resync is set on the first event after this subscriber missed events (it did not keep up): it should
	// re-read everything it derives.
	Resync bool
}

// Subscribe returns a channel of change events that is closed when ctx ends or the store closes. A subscriber
// that falls more than a buffer behind loses events and is told so by Resync.
func (s *Store) Subscribe(ctx context.Context) <-chan ChangeEvent {
	return s.events.subscribe(ctx)
}

type subscriber struct {
	ch     chan ChangeEvent
	missed bool
}

type broker struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

func newBroker() *broker { return &broker{subs: map[*subscriber]struct{}{}} }

const subscriberBuffer = 256

func (b *broker) subscribe(ctx context.Context) <-chan ChangeEvent {
	sub := &subscriber{ch: make(chan ChangeEvent, subscriberBuffer)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(sub.ch)
		return sub.ch
	}
	b.subs[sub] = struct{}{}
	go func() {
		<-ctx.Done()
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[sub]; ok {
			delete(b.subs, sub)
			close(sub.ch)
		}
	}()
	return sub.ch
}

// publish never blocks: the store must not stall because a subscriber is slow.
func (b *broker) publish(e ChangeEvent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for sub := range b.subs {
		ev := e
		ev.Resync = sub.missed
		select {
		case sub.ch <- ev:
			sub.missed = false
		default:
			sub.missed = true
		}
	}
}

func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for sub := range b.subs {
		delete(b.subs, sub)
		close(sub.ch)
	}
}

// startWatcher follows the refs of every open repository, so that commits made behind the store's back (a git
// CLI in the bare repository) are indexed and announced without a restart.
func (s *Store) startWatcher() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	s.watcher = w
	s.watch(s.cat.Repo(), "")
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if strings.HasSuffix(ev.Name, ".lock") {
					continue
				}
				dir := filepath.Dir(ev.Name)
				s.mu.Lock()
				id, known := s.watched[dir]
				h := s.repos[id]
				s.mu.Unlock()
				if !known {
					continue
				}
				if id == "" {
					s.cat.Repo().InvalidateHead()
				} else if h != nil {
					h.git.InvalidateHead()
				}
				// Tags (loose, or packed by git gc) may rename CUSTOM versions: index the history again.
				if h != nil && (filepath.Base(dir) == "tags" || filepath.Base(ev.Name) == "packed-refs") {
					h.idx.Invalidate()
				}
				s.refresh(id)
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				// Events may have been lost (queue overflow): stop trusting every cached head.
				s.cat.Repo().InvalidateHead()
				s.mu.Lock()
				for _, h := range s.repos {
					h.git.InvalidateHead()
				}
				s.mu.Unlock()
			case <-s.done:
				return
			}
		}
	}()
	return nil
}

// refresh re-reads one repository (or the catalogue, for "") after its refs changed on disk.
func (s *Store) refresh(repoID string) {
	ctx := context.Background()
	if repoID == "" {
		// Every catalogue commit, the store's own included, moves the hub repository's ref on disk, so catalogue
		// events all come from here.
		st, err := s.cat.View()
		if err != nil {
			return
		}
		s.mu.Lock()
		moved := st.Head != s.catHead
		s.catHead = st.Head
		s.mu.Unlock()
		if moved {
			s.events.publish(ChangeEvent{Commit: st.Head.String()})
		}
		return
	}
	s.mu.Lock()
	h := s.repos[repoID]
	s.mu.Unlock()
	if h != nil {
		// Errors here are transient (a ref caught mid-update by another writer); the next event or read retries.
		_, _ = s.snapshot(ctx, h)
	}
}

// headCacheAge bounds how long a watched repository's head is trusted from memory: reads then cost no file
// access, and even an event the watcher lost delays a change by at most this long.
const headCacheAge = time.Second

// watch adds a repository's ref folders to the watcher (packed-refs lives in the top folder, branches in
// refs/heads and tags in refs/tags), and lets the repository cache its head while it is watched.
func (s *Store) watch(r *gitrepo.Repo, repoID string) {
	if s.watcher == nil {
		return
	}
	gitDir := r.Dir()
	all := true
	for _, d := range []string{gitDir, filepath.Join(gitDir, "refs", "heads"), filepath.Join(gitDir, "refs", "tags")} {
		if err := s.watcher.Add(d); err == nil {
			s.watched[d] = repoID
		} else {
			all = false
		}
	}
	if all {
		r.CacheHead(headCacheAge)
	}
}

func (s *Store) unwatch(gitDir string) {
	if s.watcher == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for d := range s.watched {
		if d == gitDir || strings.HasPrefix(d, gitDir+string(filepath.Separator)) {
			_ = s.watcher.Remove(d)
			delete(s.watched, d)
		}
	}
}
