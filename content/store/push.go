package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
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

// PushChange is a publication or file whose latest version a push created, or which a push removed.
type PushChange struct {
	Kind  string // "publication" or "file"
	Path  string // its URL path on the site ("/group/repository/name"; files under .../files/)
	Label string // the new version's label; for a removed one, the last version it had
	New   bool   // the push created it
	// Removed: the push deleted its file, so it and its URLs are gone. A publisher who deletes a file must read
	// that the publication went with it, not that nothing changed.
	Removed bool
}

// PushReport is what an accepted push did, for the pusher to read.
type PushReport struct {
	Changes []PushChange
	// Notes are other things the pusher should know (which branch is published, what a push to another branch
	// does), one line each.
	Notes []string
}

// Push receives a git push (PUBLISHER): it checks the commands, stores the pack's objects within lim, checks
// every tree entry and validates every new commit like an upload, and only then moves the refs. When anything is
// refused no ref moves, and the error says why (the path for a bad tree entry; file, line and column for bad
// RDF, one line per refused file). The published branch only moves forward and tags naming versions never move:
// rewriting published history would take back or relabel versions that have been served.
//
// The published branch is the one the repository's HEAD names (main for a new repository). The first push into
// an empty repository that does not create it but creates exactly one branch makes that branch the published
// one, as git hosts do: a clone of an empty repository is on git's default branch (master unless configured),
// and a plain `git push` of it must publish.
func (s *Store) Push(ctx context.Context, actor model.Actor, repoID string, pack io.Reader, updates []RefUpdate, lim gitrepo.PackLimits) (*PushReport, error) {
	h, err := s.writable(ctx, actor, repoID, model.Publisher)
	if err != nil {
		return nil, err
	}
	for _, u := range updates {
		if err := checkRefName(u.Name); err != nil {
			return nil, err
		}
	}
	h.git.Lock()
	defer h.git.Unlock()
	if pack != nil {
		if err := h.git.WritePack(pack, lim); err != nil {
			var le *gitrepo.LimitError
			if errors.As(err, &le) {
				return nil, model.Invalidf("push too large: %s", le.Msg)
			}
			if errors.Is(err, gitrepo.ErrBadPack) {
				return nil, model.Invalidf("unpack failed: %v", err)
			}
			return nil, err
		}
	}
	published, err := s.publishedBranch(h, updates)
	if err != nil {
		return nil, err
	}
	before, err := s.snapshot(ctx, h)
	if err != nil {
		return nil, err
	}
	v := &pushCheck{s: s, h: h, published: published, snap: before, trees: map[plumbing.Hash]int{}}
	for _, u := range updates {
		if err := v.checkUpdate(ctx, u); err != nil {
			return nil, err
		}
	}
	if err := h.git.Sync(); err != nil {
		return nil, err
	}
	if published != h.git.Published() {
		if err := h.git.SetPublished(published); err != nil {
			return nil, err
		}
	}
	for i, u := range updates {
		if err := h.git.UpdateRef(u.Name, u.Old, u.New); err != nil {
			if errors.Is(err, gitrepo.ErrStale) {
				err = model.Conflictf("%s moved while pushing; fetch and try again", u.Name)
			}
			if i > 0 {
				err = fmt.Errorf("%w (earlier refs of this push were updated)", err)
			}
			return nil, err
		}
	}
	for _, u := range updates {
		if strings.HasPrefix(string(u.Name), "refs/tags/") {
			h.idx.Invalidate()
			break
		}
	}
	after, err := s.snapshot(ctx, h)
	if err != nil {
		return nil, err
	}
	return s.pushReport(ctx, h, published, updates, before, after)
}

// checkRefName refuses what git would take for something else, or the hub could not serve.
func checkRefName(n plumbing.ReferenceName) error {
	name := string(n)
	if !strings.HasPrefix(name, "refs/heads/") && !strings.HasPrefix(name, "refs/tags/") {
		return model.Invalidf("%s: only branches and tags can be pushed", name)
	}
	if err := n.Validate(); err != nil || strings.HasSuffix(name, ".lock") {
		return model.Invalidf("%q is not a valid reference name", name)
	}
	if short := n.Short(); short == "HEAD" || strings.HasSuffix(name, "/HEAD") {
		return model.Invalidf("%s: a branch or tag named HEAD is refused (git would take it for the current branch)", name)
	}
	return nil
}

// publishedBranch is the branch this push publishes to: the repository's, unless the repository is empty and
// the push creates exactly one branch other than it (or master among several), which then becomes the
// published one.
func (s *Store) publishedBranch(h *handle, updates []RefUpdate) (plumbing.ReferenceName, error) {
	cur := h.git.Published()
	head, err := h.git.Ref(cur)
	if err != nil || !head.IsZero() {
		return cur, err
	}
	var created []plumbing.ReferenceName
	for _, u := range updates {
		if u.Name == cur {
			return cur, nil
		}
		if u.Name.IsBranch() && !u.New.IsZero() {
			created = append(created, u.Name)
		}
	}
	switch {
	case len(created) == 1:
		return created[0], nil
	case len(created) > 1:
		for _, b := range created {
			if b == "refs/heads/master" {
				return b, nil
			}
		}
		return "", model.Invalidf("this repository is empty and publishes the branch its first push creates, but this push creates several; push the one to publish first (git push origin %s)", created[0].Short())
	}
	return cur, nil
}

// pushCheck checks a push's commands against one snapshot of the repository.
type pushCheck struct {
	s         *Store
	h         *handle
	published plumbing.ReferenceName
	snap      *history.Snapshot
	// trees are the tree objects already checked by this push, with their heights (checkTrees).
	trees map[plumbing.Hash]int
}

func (v *pushCheck) checkUpdate(ctx context.Context, u RefUpdate) error {
	h := v.h
	name := string(u.Name)
	cur, err := h.git.Ref(u.Name)
	if err != nil {
		return err
	}
	if cur != u.Old {
		return model.Conflictf("%s is at %s, not %s; fetch first", name, cur, u.Old)
	}
	isTag := strings.HasPrefix(name, "refs/tags/")
	if isTag && strings.Contains(strings.TrimPrefix(name, "refs/tags/"), "/") {
		// <publication>/<label> names a CUSTOM version: moving or deleting it would relabel a served version.
		if !u.Old.IsZero() {
			if u.New.IsZero() {
				return model.Forbiddenf("%s names a published version and cannot be deleted (a version is withdrawn through the API)", name)
			}
			return model.Forbiddenf("%s names a published version and cannot be moved", name)
		}
	}
	if u.New.IsZero() {
		if u.Name == v.published {
			return model.Forbiddenf("%s is the published branch and cannot be deleted", name)
		}
		return nil
	}
	target := u.New
	if isTag {
		if tag, err := object.GetTag(h.git.Objects(), u.New); err == nil {
			target = tag.Target
		}
	}
	tip, err := h.git.Commit(target)
	if err != nil {
		if isTag {
			return model.Invalidf("%s: %s is not a commit; ldhub takes tags of commits only", name, target)
		}
		return model.Invalidf("%s: %s is not a commit", name, target)
	}
	if isTag {
		if err := v.checkNewTag(name, tip.Hash); err != nil {
			return err
		}
	}
	if u.Name == v.published && !u.Old.IsZero() {
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
	return v.s.validateCommits(ctx, v, tip, u.Old)
}

// checkNewTag refuses a new <publication>/<label> tag that would relabel a version already served: the tag has
// to reach the hub before, or with, the commit that makes the version.
func (v *pushCheck) checkNewTag(name string, commit plumbing.Hash) error {
	rest := strings.TrimPrefix(name, "refs/tags/")
	i := strings.LastIndexByte(rest, '/')
	if i <= 0 {
		return nil
	}
	item, label := rest[:i], rest[i+1:]
	for _, kind := range []history.Kind{history.Publication, history.File} {
		it, ok := v.snap.ByName(kind, item)
		if !ok || it.Mode != model.Custom {
			continue // only CUSTOM versions take their label from a tag
		}
		for _, ver := range append(append([]model.Version(nil), it.Versions...), it.Retracted...) {
			if ver.Commit == commit.String() && ver.Label != label {
				return model.Forbiddenf("%s would relabel version %s of %s, which is already published; tag a commit before pushing it (git push origin <branch> %s)", name, ver.Label, item, rest)
			}
			if ver.Label == label && ver.Commit != commit.String() {
				return model.Conflictf("%s: %s already has a version labelled %s", name, item, label)
			}
		}
	}
	return nil
}

// pushReport lists what the push published: each publication and file whose latest version changed, and notes
// for branches that are not published.
func (s *Store) pushReport(ctx context.Context, h *handle, published plumbing.ReferenceName, updates []RefUpdate, before, after *history.Snapshot) (*PushReport, error) {
	rep := &PushReport{}
	repoPath, err := s.Path(ctx, h.id)
	if err != nil {
		return nil, err
	}
	for _, kind := range []history.Kind{history.Publication, history.File} {
		items := after.Items(kind)
		sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
		for _, it := range items {
			latest := it.Latest()
			old, existed := before.Item(it.ID)
			if existed && old.Latest().ID == latest.ID {
				continue
			}
			p := repoPath + "/" + it.Name
			if kind == history.File {
				p = repoPath + "/" + history.FilesDir + it.Name
			}
			rep.Changes = append(rep.Changes, PushChange{Kind: kind.String(), Path: p, Label: latest.Label, New: !existed})
		}
		for _, it := range before.Items(kind) {
			if _, kept := after.Item(it.ID); kept {
				continue
			}
			p := repoPath + "/" + it.Name
			if kind == history.File {
				p = repoPath + "/" + history.FilesDir + it.Name
			}
			rep.Changes = append(rep.Changes, PushChange{Kind: kind.String(), Path: p, Label: it.Latest().Label, Removed: true})
		}
	}
	for _, u := range updates {
		if u.Name.IsBranch() && u.Name != published && !u.New.IsZero() {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s is stored but not published: this repository publishes branch %s", u.Name.Short(), published.Short()))
		}
	}
	return rep, nil
}

// validateCommits checks the content each new commit brings, walking back from tip until it reaches history the
// hub already holds.
func (s *Store) validateCommits(ctx context.Context, v *pushCheck, tip *object.Commit, old plumbing.Hash) error {
	h := v.h
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
		if err := s.validateCommit(ctx, v, c); err != nil {
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

// maxRefusedFiles bounds how many refused files one refusal lists.
const maxRefusedFiles = 20

// pushedName refuses a pushed publication name that the API would refuse for shadowing URLs: a reserved segment
// (versions, index.html, ...), or a name that lies below another publication's in the tree or has one below it.
func pushedName(tree *object.Tree, name string) error {
	for _, seg := range strings.Split(name, "/") {
		if why := model.ReservedSegment(seg, false); why != "" {
			return fmt.Errorf("segment %q of publication %q is reserved: %s", seg, name, why)
		}
	}
	for i := strings.IndexByte(name, '/'); i >= 0; i = nextSlash(name, i) {
		for ext := range history.RDFExtensions {
			if _, ok := gitrepo.File(tree, name[:i]+ext); ok {
				return fmt.Errorf("publication %q lies below publication %q, whose versions and resources own those URLs", name, name[:i])
			}
		}
	}
	if e, err := tree.FindEntry(name); err == nil && !e.Mode.IsFile() {
		return fmt.Errorf("publication %q would have the publications under %s/ below it, whose URLs would then mean two things", name, name)
	}
	return nil
}

func (s *Store) validateCommit(ctx context.Context, v *pushCheck, c *object.Commit) error {
	h := v.h
	tree, err := c.Tree()
	if err != nil {
		return model.Invalidf("tree %s is missing", c.TreeHash)
	}
	// Every name at every depth first: nothing below reads a path that could leave the repository.
	if err := checkTrees(h.git.Objects(), tree, v.trees); err != nil {
		return err
	}
	var refused []error
	check := func(p string, blob plumbing.Hash) error {
		kind, name, meta := history.Classify(p)
		if kind == 0 {
			return nil
		}
		if err := checkPublishedPath(p); err != nil {
			return err
		}
		if kind == history.File && !meta {
			return nil
		}
		if kind == history.Publication && !meta {
			if err := pushedName(tree, name); err != nil {
				return &model.ContentError{Path: p, Err: err}
			}
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
		if err := s.checkContent(ctx, p, data); err != nil {
			var ce *model.ContentError
			if !errors.As(err, &ce) {
				return err
			}
			// Every refused file is reported, so that one push shows them all.
			if refused = append(refused, err); len(refused) == maxRefusedFiles {
				return errors.Join(refused...)
			}
		}
		return nil
	}
	if len(c.ParentHashes) == 0 {
		err = gitrepo.Walk(tree, check)
	} else {
		var parent *object.Tree
		if parent, err = h.git.Tree(c.ParentHashes[0]); err != nil {
			return err
		}
		var changes object.Changes
		if changes, err = object.DiffTreeWithOptions(ctx, parent, tree, nil); err != nil {
			return err
		}
		for _, ch := range changes {
			if ch.To.Name != "" && ch.To.TreeEntry.Mode.IsFile() {
				if err = check(ch.To.Name, ch.To.TreeEntry.Hash); err != nil {
					break
				}
			}
		}
	}
	if err != nil {
		return err
	}
	return errors.Join(refused...)
}
