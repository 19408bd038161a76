package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// RepoHeads is what a follower needs to know of one repository to copy it: where it lives, the branch it
// publishes from and the refs a replica copies (that branch and the tags, which name CUSTOM versions).
type RepoHeads struct {
	ID        string                                   `json:"id"`
	Path      string                                   `json:"path"`
	Published plumbing.ReferenceName                   `json:"branch"`
	Refs      map[plumbing.ReferenceName]plumbing.Hash `json:"refs"`
}

// Followed is the part of the hub an actor may copy: the groups and repositories it can see, with their refs.
type Followed struct {
	Groups       []model.Group      `json:"groups"`
	Repositories []model.Repository `json:"repositories"`
	Heads        []RepoHeads        `json:"heads"`
}

// Follow lists what actor may see, as a replica following this hub with actor's credential copies it. Hidden
// repositories (and groups with nothing the actor can see) are left out, exactly as in every other listing.
func (s *Store) Follow(ctx context.Context, actor model.Actor) (*Followed, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	out := &Followed{Groups: []model.Group{}, Repositories: []model.Repository{}, Heads: []RepoHeads{}}
	for id, g := range st.Groups {
		if st.CanSee(actor, id) {
			out.Groups = append(out.Groups, g)
		}
	}
	for id, r := range st.Repos {
		if !st.CanSee(actor, id) {
			continue
		}
		h, err := s.handle(ctx, id)
		if err != nil {
			return nil, err
		}
		refs, err := h.git.StoredRefs()
		if err != nil {
			return nil, err
		}
		pub := h.git.Published()
		copied := map[plumbing.ReferenceName]plumbing.Hash{}
		for name, hash := range refs {
			if name == pub || name.IsTag() {
				copied[name] = hash
			}
		}
		out.Repositories = append(out.Repositories, r)
		out.Heads = append(out.Heads, RepoHeads{ID: id, Path: st.Path(id), Published: pub, Refs: copied})
	}
	sort.Slice(out.Groups, func(i, j int) bool { return out.Groups[i].ID < out.Groups[j].ID })
	sort.Slice(out.Repositories, func(i, j int) bool { return out.Repositories[i].ID < out.Repositories[j].ID })
	sort.Slice(out.Heads, func(i, j int) bool { return out.Heads[i].ID < out.Heads[j].ID })
	return out, nil
}

// MirrorCatalog makes this store's groups and repositories those of a primary (a read replica's catalogue): a
// repository new to it gets an empty bare repository first, and one that left is moved to deleted/ like a deleted
// one. Credentials and grants stay this store's own.
func (s *Store) MirrorCatalog(ctx context.Context, groups []model.Group, repos []model.Repository) error {
	for _, r := range repos {
		if !model.ValidSegment(r.ID) {
			return model.Invalidf("repository id %q", r.ID)
		}
		if _, err := os.Stat(s.repoDir(r.ID)); err == nil {
			continue
		}
		if _, err := gitrepo.Init(s.repoDir(r.ID)); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	before, err := s.Catalog(ctx)
	if err != nil {
		return err
	}
	if err := s.cat.Mirror(ctx, groups, repos); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, r := range repos {
		keep[r.ID] = true
		if _, err := s.handle(ctx, r.ID); err != nil {
			return err
		}
	}
	for id := range before.Repos {
		if !keep[id] {
			if err := s.retire(id); err != nil {
				return err
			}
		}
	}
	// Announce now rather than when the watcher notices (it may be off).
	s.refresh("")
	return nil
}

// MirroredRefs returns the refs a repository of this store holds (a replica's "have" list when it fetches).
func (s *Store) MirroredRefs(ctx context.Context, repoID string) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	h, err := s.readable(ctx, model.SystemActor, repoID)
	if err != nil {
		return nil, err
	}
	return h.git.StoredRefs()
}

// Mirror stores a pack fetched from a primary into a repository and moves its refs to the primary's: tags first,
// the published branch last, each by git's lock-and-rename, so a reader sees a version only once all its objects
// and labels are there. Refs under refs/heads and refs/tags that the primary no longer has are removed. The pack
// is the primary's, which validated every commit when it was pushed; its size is still bounded by lim.
func (s *Store) Mirror(ctx context.Context, repoID string, published plumbing.ReferenceName, refs map[plumbing.ReferenceName]plumbing.Hash, pack io.Reader, lim gitrepo.PackLimits) error {
	h, err := s.readable(ctx, model.SystemActor, repoID)
	if err != nil {
		return err
	}
	if pack != nil {
		if err := h.git.WritePack(pack, lim); err != nil {
			return fmt.Errorf("store: mirror %s: %w", repoID, err)
		}
		if err := h.git.Sync(); err != nil {
			return fmt.Errorf("store: mirror %s: %w", repoID, err)
		}
	}
	if published != "" && published != h.git.Published() {
		if err := h.git.SetPublished(published); err != nil {
			return fmt.Errorf("store: mirror %s: %w", repoID, err)
		}
	}
	have, err := h.git.StoredRefs()
	if err != nil {
		return err
	}
	names := make([]plumbing.ReferenceName, 0, len(refs))
	for name := range refs {
		if name.IsBranch() || name.IsTag() {
			names = append(names, name)
		}
	}
	// Tags before branches: a version's CUSTOM label is in place when the branch makes the version appear.
	sort.Slice(names, func(i, j int) bool {
		if names[i].IsTag() != names[j].IsTag() {
			return names[i].IsTag()
		}
		return names[i] < names[j]
	})
	tagsMoved := false
	for _, name := range names {
		if have[name] == refs[name] {
			continue
		}
		tagsMoved = tagsMoved || name.IsTag()
		if err := h.git.UpdateRef(name, have[name], refs[name]); err != nil {
			return fmt.Errorf("store: mirror %s: %w", repoID, err)
		}
	}
	for name, old := range have {
		if _, ok := refs[name]; !ok && (name.IsBranch() || name.IsTag()) && !strings.HasSuffix(string(name), ".lock") {
			tagsMoved = tagsMoved || name.IsTag()
			if err := h.git.UpdateRef(name, old, plumbing.ZeroHash); err != nil {
				return fmt.Errorf("store: mirror %s: %w", repoID, err)
			}
		}
	}
	h.git.InvalidateHead()
	if tagsMoved {
		// Tags may rename CUSTOM versions: index the history again, as when a push moves them.
		h.idx.Invalidate()
	}
	_, err = s.snapshot(ctx, h)
	return err
}

// retire forgets a repository and moves its git repository to deleted/, from where an operator can still
// recover it.
func (s *Store) retire(id string) error {
	s.mu.Lock()
	h := s.repos[id]
	delete(s.repos, id)
	s.mu.Unlock()
	if h != nil {
		s.unwatch(h.git.Dir())
	}
	trash := filepath.Join(s.dir, "deleted")
	if err := os.MkdirAll(trash, 0o755); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := os.Rename(s.repoDir(id), filepath.Join(trash, fmt.Sprintf("%s-%d.git", id, s.now().UnixMilli()))); err != nil {
		return fmt.Errorf("store: retire repository %s: %w", id, err)
	}
	return nil
}
