package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
	"github.com/ldhub/ldhub/content/store/history"
)

// GitAccess resolves a repository by its git path ("/group/sub/repository") and checks that actor holds role on
// it (VIEWER is implied for visible repositories). It is what the smart HTTP handler calls before serving git.
func (s *Store) GitAccess(ctx context.Context, actor model.Actor, path string, role model.Role) (string, *gitrepo.Repo, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return "", nil, err
	}
	id, isRepo, ok := st.Resolve(path)
	if !ok || !isRepo || !st.CanSee(actor, id) {
		if actor.CredentialID == "" {
			// git sends credentials only after a challenge, so a private repository first answers 401.
			return "", nil, model.Unauthorizedf("repository %s: credentials required", path)
		}
		return "", nil, model.NotFoundf("repository %s not found", path)
	}
	if role > model.Viewer {
		if err := st.Require(actor, id, role, "repository"); err != nil {
			return "", nil, err
		}
	}
	h, err := s.handle(ctx, id)
	if err != nil {
		return "", nil, err
	}
	return id, h.git, nil
}

// RefUpdate is one command of a push: move Name from Old to New (zero Old creates, zero New deletes).
type RefUpdate struct {
	Name     plumbing.ReferenceName
	Old, New plumbing.Hash
}

// Push receives a git push (PUBLISHER): it stores the pack's objects, validates every new commit like an upload
// and only then moves the refs. When anything is refused no ref moves, and the error says why (file, line,
// column for bad RDF). The published branch only moves forward: rewriting published history would take back
// versions that have been served.
func (s *Store) Push(ctx context.Context, actor model.Actor, repoID string, pack io.Reader, updates []RefUpdate) error {
	h, err := s.writable(ctx, actor, repoID, model.Publisher)
	if err != nil {
		return err
	}
	h.git.Lock()
	defer h.git.Unlock()
	if pack != nil {
		if err := h.git.WritePack(pack); err != nil {
			return model.Invalidf("unpack failed: %v", err)
		}
	}
	for _, u := range updates {
		if err := s.checkUpdate(ctx, h, u); err != nil {
			return err
		}
	}
	if err := h.git.Sync(); err != nil {
		return err
	}
	for i, u := range updates {
		if err := h.git.UpdateRef(u.Name, u.Old, u.New); err != nil {
			if errors.Is(err, gitrepo.ErrStale) {
				err = model.Conflictf("%s moved while pushing; fetch and try again", u.Name)
			}
			if i > 0 {
				err = fmt.Errorf("%w (earlier refs of this push were updated)", err)
			}
			return err
		}
	}
	for _, u := range updates {
		if strings.HasPrefix(string(u.Name), "refs/tags/") {
			h.idx.Invalidate()
			break
		}
	}
	if _, err := s.snapshot(ctx, h); err != nil {
		return err
	}
	return nil
}

func (s *Store) checkUpdate(ctx context.Context, h *handle, u RefUpdate) error {
	name := string(u.Name)
	if !strings.HasPrefix(name, "refs/heads/") && !strings.HasPrefix(name, "refs/tags/") {
		return model.Invalidf("%s: only branches and tags can be pushed", name)
	}
	if err := u.Name.Validate(); err != nil || strings.HasSuffix(name, ".lock") {
		return model.Invalidf("%q is not a valid reference name", name)
	}
	cur, err := h.git.Ref(u.Name)
	if err != nil {
		return err
	}
	if cur != u.Old {
		return model.Conflictf("%s is at %s, not %s; fetch first", name, cur, u.Old)
	}
	if u.New.IsZero() {
		if u.Name == gitrepo.Branch {
			return model.Forbiddenf("%s is the published branch and cannot be deleted", name)
		}
		return nil
	}
	if strings.HasPrefix(name, "refs/tags/") {
		if _, err := object.GetTag(h.git.Objects(), u.New); err == nil {
			return nil // annotated tag; its commit is validated when a branch brings it
		}
	}
	tip, err := h.git.Commit(u.New)
	if err != nil {
		return model.Invalidf("%s: %s is not a commit", name, u.New)
	}
	if u.Name == gitrepo.Branch && !u.Old.IsZero() {
		old, err := h.git.Commit(u.Old)
		if err != nil {
			return err
		}
		if ok, err := old.IsAncestor(tip); err != nil {
			return err
		} else if !ok {
			return model.Conflictf("%s: non-fast-forward update refused (published history is never rewritten)", name)
		}
	}
	return s.validateCommits(ctx, h, tip, u.Old)
}

// validateCommits checks the content each new commit brings, walking back from tip until it reaches history the
// hub already holds.
func (s *Store) validateCommits(ctx context.Context, h *handle, tip *object.Commit, old plumbing.Hash) error {
	refs, err := h.git.Refs("refs/")
	if err != nil {
		return err
	}
	stop := map[plumbing.Hash]bool{old: true}
	for _, c := range refs {
		stop[c] = true
	}
	seen := map[plumbing.Hash]bool{}
	queue := []*object.Commit{tip}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c.Hash] || stop[c.Hash] || h.idx.Known(c.Hash) {
			continue
		}
		seen[c.Hash] = true
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.validateCommit(ctx, h, c); err != nil {
			return fmt.Errorf("commit %s: %w", c.Hash.String()[:7], err)
		}
		for _, p := range c.ParentHashes {
			pc, err := h.git.Commit(p)
			if err != nil {
				return model.Invalidf("commit %s: parent %s is missing", c.Hash.String()[:7], p)
			}
			queue = append(queue, pc)
		}
	}
	return nil
}

func (s *Store) validateCommit(ctx context.Context, h *handle, c *object.Commit) error {
	tree, err := c.Tree()
	if err != nil {
		return model.Invalidf("tree %s is missing", c.TreeHash)
	}
	check := func(p string, blob plumbing.Hash) error {
		kind, name, meta := history.Classify(p)
		if kind == 0 || kind == history.File && !meta {
			return nil
		}
		if kind == history.Publication && !meta {
			// One name, one publication: core.ttl beside core.rdf would make one of them unreachable.
			for ext := range history.RDFExtensions {
				if other := name + ext; other != p {
					if _, clash := gitrepo.File(tree, other); clash {
						return &model.ContentError{Path: p, Err: fmt.Errorf("%s already holds publication %q", other, name)}
					}
				}
			}
		}
		data, err := h.git.Blob(blob)
		if err != nil {
			return err
		}
		if meta {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				return &model.ContentError{Path: p, Err: fmt.Errorf("meta-data is not a JSON object: %w", err)}
			}
			return nil
		}
		return s.checkContent(ctx, p, data)
	}
	if len(c.ParentHashes) == 0 {
		return gitrepo.Walk(tree, check)
	}
	parent, err := h.git.Tree(c.ParentHashes[0])
	if err != nil {
		return err
	}
	changes, err := object.DiffTreeWithOptions(ctx, parent, tree, nil)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		if ch.To.Name != "" && ch.To.TreeEntry.Mode.IsFile() {
			if err := check(ch.To.Name, ch.To.TreeEntry.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}
