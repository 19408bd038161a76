// Package history indexes one ldhub repository's git history: which publications and files exist at the head,
// and the versions of each (every commit that changed its content), labelled per its versioning mode. The index is
// built once by walking the history and then extended by the new commits only, so reading the latest version or
// listing versions never walks the history again.
package history

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// Kind tells publications from files.
type Kind uint8

const (
	Publication Kind = iota + 1
	File
)

func (k Kind) String() string {
	if k == File {
		return "file"
	}
	return "publication"
}

// FilesDir is the folder whose content is Files, not publications.
const FilesDir = "files/"

// MetaSuffix ends every meta-data sidecar.
const MetaSuffix = ".meta.json"

// RDFExtensions are the extensions that make a file outside files/ a publication (decisions.md).
var RDFExtensions = map[string]bool{".ttl": true, ".nt": true, ".n3": true, ".rdf": true, ".owl": true, ".xml": true,
	".jsonld": true, ".rj": true, ".nq": true, ".trig": true}

// Classify tells what a path in a repository tree is: the content of a publication or file (name is the
// publication's name, or the file's path below files/), its meta-data sidecar (meta true), or nothing (kind 0).
func Classify(p string) (kind Kind, name string, meta bool) {
	if rest, ok := strings.CutPrefix(p, FilesDir); ok {
		if n, isMeta := strings.CutSuffix(rest, MetaSuffix); isMeta {
			return File, n, true
		}
		return File, rest, false
	}
	if n, isMeta := strings.CutSuffix(p, MetaSuffix); isMeta {
		return Publication, n, true
	}
	ext := path.Ext(p)
	if RDFExtensions[strings.ToLower(ext)] {
		return Publication, strings.TrimSuffix(p, ext), false
	}
	return 0, "", false
}

// BadSegment returns the first segment of p that is not a URL path segment the API would accept (1-64 of
// [A-Za-z0-9._-], not starting with a dot), or "" when every one is. A push of content at such a path is
// refused, as the API refuses such a name: the site serves a publication at its path.
func BadSegment(p string) (string, bool) {
	for _, seg := range strings.Split(p, "/") {
		if !model.ValidSegment(seg) {
			return seg, true
		}
	}
	return "", false
}

// indexed is Classify for the index: a path that could reach outside the repository's folder, or into the
// site's own (.ld), is nothing. It is looser than BadSegment so that content pushed before pushes were checked
// as strictly (a space, a long name) stays published.
func indexed(p string) (kind Kind, name string, meta bool) {
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg[0] == '.' || strings.ContainsAny(seg, "\\\x00") {
			return 0, "", false
		}
	}
	return Classify(p)
}

// MetaPath is where the meta-data sidecar of a publication or file lives.
func MetaPath(kind Kind, name string) string {
	if kind == File {
		return FilesDir + name + MetaSuffix
	}
	return name + MetaSuffix
}

// DefaultID is the id of a publication or file whose sidecar names none (content pushed without meta-data). It
// is name-based, so a rebuild gives the same id.
func DefaultID(repoID string, kind Kind, name string) string {
	return model.NameID(repoID, kind.String(), name)
}

// VersionID is the deterministic id of the version of an item made by a commit.
func VersionID(itemID string, commit plumbing.Hash) string {
	return model.NameID(itemID, commit.String())
}

// Item is a publication or file present at the head.
type Item struct {
	Kind Kind
	Name string
	ID   string
	Path string        // content path at the head
	Blob plumbing.Hash // content at the head
	Meta []byte        // the sidecar at the head; nil when there is none
	Mode model.VersioningMode
	// Versions holds every version still offered, oldest first, whatever the mode (callers apply NONE).
	Versions []model.Version
	// Retracted holds the versions the head sidecar takes back (a version delete), oldest first: they stay in git
	// and keep their labels, which no later version may reuse, but are not offered.
	Retracted []model.Version
}

// Latest is the newest version.
func (it *Item) Latest() model.Version { return it.Versions[len(it.Versions)-1] }

// Find returns the version named by ref: a label, a version id or a commit hash (full or an unambiguous prefix of
// at least 7 hex digits).
func (it *Item) Find(ref string) (model.Version, bool) {
	for _, v := range it.Versions {
		if v.Label == ref || v.ID == ref || v.Commit == ref {
			return v, true
		}
	}
	if len(ref) >= 7 {
		var hit []model.Version
		for _, v := range it.Versions {
			if strings.HasPrefix(v.Commit, ref) {
				hit = append(hit, v)
			}
		}
		if len(hit) == 1 {
			return hit[0], true
		}
	}
	return model.Version{}, false
}

// HasLabel reports whether a label is used by a version of the item, retracted ones included.
func (it *Item) HasLabel(label string) bool {
	for _, vs := range [][]model.Version{it.Versions, it.Retracted} {
		for _, v := range vs {
			if v.Label == label {
				return true
			}
		}
	}
	return false
}

// FindRetracted returns the retracted version named by ref (a label, version id or full commit hash).
func (it *Item) FindRetracted(ref string) (model.Version, bool) {
	for _, v := range it.Retracted {
		if v.Label == ref || v.ID == ref || v.Commit == ref {
			return v, true
		}
	}
	return model.Version{}, false
}

// Snapshot is the index as of one head. It is immutable.
type Snapshot struct {
	Head   plumbing.Hash
	byID   map[string]*Item
	byName [3]map[string]*Item
	// Changed lists, for the commits added since the previous snapshot, the ids of the items whose content or
	// meta-data changed (for change events).
	Changed []string
}

// Item returns the item with an id.
func (s *Snapshot) Item(id string) (*Item, bool) {
	it, ok := s.byID[id]
	return it, ok
}

// ByName returns the publication or file with a name.
func (s *Snapshot) ByName(kind Kind, name string) (*Item, bool) {
	it, ok := s.byName[kind][name]
	return it, ok
}

// Items lists the publications or files, by name.
func (s *Snapshot) Items(kind Kind) []*Item {
	out := make([]*Item, 0, len(s.byName[kind]))
	for _, it := range s.byName[kind] {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Known reports whether a commit is already indexed (it is on the branch the index follows).
func (ix *Index) Known(h plumbing.Hash) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.done[h]
}

// Index follows one repository.
type Index struct {
	repo   *gitrepo.Repo
	repoID string

	mu   sync.Mutex
	snap *Snapshot
	// What the history walk has learnt so far; only touched under mu.
	done     map[plumbing.Hash]bool
	versions map[string][]model.Version
	metas    map[plumbing.Hash]sidecar
	// onAdvance sees every new snapshot, in order.
	onAdvance func(*Snapshot)
	// stale asks the next Current to index the history again from the start.
	stale bool
}

// Invalidate makes the next Current index the whole history again. Tags name CUSTOM versions, so when tags move
// the labels of versions indexed earlier may change; a rebuild gives the labels a fresh start would give.
func (ix *Index) Invalidate() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.stale = true
}

// New returns an index of repo; nothing is read until the first Current. onAdvance, when not nil, is called with
// every new snapshot, in order and exactly once, while the index is locked: it must be quick and must not call
// back into the index.
func New(repo *gitrepo.Repo, repoID string, onAdvance func(*Snapshot)) *Index {
	return &Index{repo: repo, repoID: repoID, done: map[plumbing.Hash]bool{}, versions: map[string][]model.Version{},
		metas: map[plumbing.Hash]sidecar{}, snap: &Snapshot{byID: map[string]*Item{}, byName: emptyNames()},
		onAdvance: onAdvance}
}

func emptyNames() [3]map[string]*Item {
	return [3]map[string]*Item{nil, {}, {}}
}

// Current returns the snapshot of the repository's head, indexing the commits that arrived since the last call.
func (ix *Index) Current(ctx context.Context) (*Snapshot, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// The head is read under the lock: a head read before it could be older than the snapshot by now.
	head, err := ix.repo.Head()
	if err != nil {
		return nil, err
	}
	if ix.snap.Head == head && !ix.stale {
		return ix.snap, nil
	}
	if ix.done[head] || head.IsZero() || ix.stale {
		ix.stale = false
		// The branch moved back to a commit already indexed (a reset made behind the hub's back): what was
		// learnt from the abandoned commits no longer holds, so the index starts over.
		ix.done = map[plumbing.Hash]bool{}
		ix.versions = map[string][]model.Version{}
	}
	var snap *Snapshot
	if head.IsZero() {
		snap = &Snapshot{byID: map[string]*Item{}, byName: emptyNames()}
		for id := range ix.snap.byID {
			snap.Changed = append(snap.Changed, id)
		}
		sort.Strings(snap.Changed)
	} else if snap, err = ix.advance(ctx, head); err != nil {
		return nil, fmt.Errorf("history of %s: %w", ix.repoID, err)
	}
	ix.snap = snap
	if ix.onAdvance != nil {
		ix.onAdvance(snap)
	}
	return snap, nil
}

// sidecar is the part of a meta-data file that versioning needs.
type sidecar struct {
	ID           string               `json:"id"`
	Mode         model.VersioningMode `json:"versioningMode"`
	VersionLabel string               `json:"versionLabel"`
	Retracted    []model.Retraction   `json:"retractedVersions"`
	raw          []byte
}

// retracts reports whether the sidecar takes back the version a commit made.
func (m sidecar) retracts(commit string) bool {
	for _, r := range m.Retracted {
		if r.Commit == commit {
			return true
		}
	}
	return false
}

// lastOffered is the newest of vs that m does not take back.
func (m sidecar) lastOffered(vs []model.Version) (model.Version, bool) {
	for i := len(vs) - 1; i >= 0; i-- {
		if !m.retracts(vs[i].Commit) {
			return vs[i], true
		}
	}
	return model.Version{}, false
}

func (ix *Index) sidecar(blob plumbing.Hash) (sidecar, error) {
	if blob.IsZero() {
		return sidecar{}, nil
	}
	if m, ok := ix.metas[blob]; ok {
		return m, nil
	}
	data, err := ix.repo.Blob(blob)
	if err != nil {
		return sidecar{}, err
	}
	var m sidecar
	// A sidecar that is not valid JSON counts as absent: content pushed by hand must not break the index.
	_ = json.Unmarshal(data, &m)
	m.raw = data
	ix.metas[blob] = m
	return m, nil
}

func (ix *Index) advance(ctx context.Context, head plumbing.Hash) (*Snapshot, error) {
	commits, err := ix.newCommits(ctx, head)
	if err != nil {
		return nil, err
	}
	tags, err := ix.customTags()
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	for _, c := range commits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := ix.indexCommit(c, tags, changed); err != nil {
			return nil, err
		}
		ix.done[c.Hash] = true
	}
	snap, err := ix.headView(head)
	if err != nil {
		return nil, err
	}
	for id := range changed {
		snap.Changed = append(snap.Changed, id)
	}
	// Items that disappeared count as changed too.
	for id := range ix.snap.byID {
		if _, still := snap.byID[id]; !still && !changed[id] {
			snap.Changed = append(snap.Changed, id)
		}
	}
	sort.Strings(snap.Changed)
	return snap, nil
}

// newCommits returns the commits reachable from head that are not indexed yet, parents before children.
func (ix *Index) newCommits(ctx context.Context, head plumbing.Hash) ([]*object.Commit, error) {
	var order []*object.Commit
	type frame struct {
		c    *object.Commit
		next int
	}
	visiting := map[plumbing.Hash]bool{}
	root, err := ix.repo.Commit(head)
	if err != nil {
		return nil, err
	}
	stack := []frame{{c: root}}
	visiting[head] = true
	// Iterative depth-first post-order: deep histories must not overflow the goroutine stack.
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.c.ParentHashes) {
			p := top.c.ParentHashes[top.next]
			top.next++
			if ix.done[p] || visiting[p] {
				continue
			}
			if len(visiting)%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			pc, err := ix.repo.Commit(p)
			if err != nil {
				return nil, err
			}
			visiting[p] = true
			stack = append(stack, frame{c: pc})
			continue
		}
		order = append(order, top.c)
		stack = stack[:len(stack)-1]
	}
	return order, nil
}

// customTags maps commit -> item name -> label for tags named `<publication>/<label>`.
func (ix *Index) customTags() (map[plumbing.Hash]map[string]string, error) {
	refs, err := ix.repo.Refs("refs/tags/")
	if err != nil {
		return nil, err
	}
	out := map[plumbing.Hash]map[string]string{}
	for name, commit := range refs {
		rest := strings.TrimPrefix(string(name), "refs/tags/")
		i := strings.LastIndexByte(rest, '/')
		if i <= 0 || i == len(rest)-1 {
			continue
		}
		if out[commit] == nil {
			out[commit] = map[string]string{}
		}
		out[commit][rest[:i]] = rest[i+1:]
	}
	return out, nil
}

type contentChange struct {
	kind       Kind
	name, path string
	blob       plumbing.Hash
}

func (ix *Index) indexCommit(c *object.Commit, tags map[plumbing.Hash]map[string]string, changed map[string]bool) error {
	tree, err := c.Tree()
	if err != nil {
		return fmt.Errorf("tree of %s: %w", c.Hash, err)
	}
	var contents []contentChange
	// metaTouched maps items whose sidecar changed, or that were deleted, to the tree their id is read from.
	metaTouched := map[[2]string]*object.Tree{}
	// removed are the items whose content this commit deleted, with the tree their id is read from.
	removed := map[[2]string]*object.Tree{}
	note := func(p string, blob plumbing.Hash) {
		kind, name, meta := indexed(p)
		switch {
		case kind == 0:
		case meta:
			metaTouched[[2]string{kind.String(), name}] = tree
		case !blob.IsZero():
			contents = append(contents, contentChange{kind, name, p, blob})
		}
	}
	if len(c.ParentHashes) == 0 {
		err = gitrepo.Walk(tree, func(p string, blob plumbing.Hash) error { note(p, blob); return nil })
	} else {
		// Each commit is compared with its first parent. Commits of a merged side branch are indexed too (parents
		// first), so a merge that only brings their content adds no version of its own.
		var parentTree *object.Tree
		parentTree, err = ix.repo.Tree(c.ParentHashes[0])
		if err != nil {
			return err
		}
		var changes object.Changes
		changes, err = object.DiffTree(parentTree, tree)
		for _, ch := range changes {
			if ch.To.Name != "" {
				note(ch.To.Name, ch.To.TreeEntry.Hash)
			}
			if ch.From.Name != "" && ch.To.Name == "" {
				if kind, name, meta := indexed(ch.From.Name); kind != 0 {
					metaTouched[[2]string{kind.String(), name}] = parentTree
					if !meta {
						removed[[2]string{kind.String(), name}] = parentTree
					}
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("changes of %s: %w", c.Hash, err)
	}
	// An item whose content is gone from the tree is deleted: its history ends here. Content added at its path by
	// a later commit is a new publication (or file) whose history starts there, as a REST delete and a new upload
	// give (docs/api.md, "Deleting and adding back"); its old versions do not come back. Content that only
	// changed its extension in this commit (core.ttl to core.rdf) is still there.
	for key, in := range removed {
		kind := itemKind(key[0])
		if present(tree, kind, key[1]) {
			continue
		}
		delete(ix.versions, ix.itemID(in, kind, key[1]))
	}
	sort.Slice(contents, func(i, j int) bool { return contents[i].path < contents[j].path })
	for _, cc := range contents {
		metaBlob, _ := gitrepo.File(tree, MetaPath(cc.kind, cc.name))
		m, err := ix.sidecar(metaBlob)
		if err != nil {
			return err
		}
		id := m.ID
		if id == "" {
			id = DefaultID(ix.repoID, cc.kind, cc.name)
		}
		prev := ix.versions[id]
		if last, ok := m.lastOffered(prev); ok && last.Blob == cc.blob.String() {
			// A merge bringing content a side commit already versioned, or a retraction putting the previous
			// version's content back: same content as the latest offered version, no new version.
			continue
		}
		v := model.Version{
			ID: VersionID(id, c.Hash), Commit: c.Hash.String(), Time: c.Committer.When.UTC(),
			Author: c.Author.Name, Message: strings.TrimSpace(c.Message), Path: cc.path, Blob: cc.blob.String(),
		}
		v.Label = label(m, cc.name, c, len(prev), tags[c.Hash])
		v.Label = unique(v.Label, prev, m.Mode.Or() == model.Timestamp)
		ix.versions[id] = append(prev, v)
		changed[id] = true
	}
	for key, in := range metaTouched {
		changed[ix.itemID(in, itemKind(key[0]), key[1])] = true
	}
	return nil
}

func itemKind(s string) Kind {
	if s == File.String() {
		return File
	}
	return Publication
}

// itemID is the id of the item kind/name as the sidecar in tree names it, else its name-based id.
func (ix *Index) itemID(tree *object.Tree, kind Kind, name string) string {
	if metaBlob, ok := gitrepo.File(tree, MetaPath(kind, name)); ok {
		if m, err := ix.sidecar(metaBlob); err == nil && m.ID != "" {
			return m.ID
		}
	}
	return DefaultID(ix.repoID, kind, name)
}

// present reports whether tree holds content of the item kind/name (a file under files/, or a publication in
// any RDF extension, in any case).
func present(tree *object.Tree, kind Kind, name string) bool {
	if kind == File {
		_, ok := gitrepo.File(tree, FilesDir+name)
		return ok
	}
	dir := path.Dir(name)
	folder := tree
	if dir != "." {
		var err error
		if folder, err = tree.Tree(dir); err != nil {
			return false
		}
	}
	for _, e := range folder.Entries {
		if k, n, meta := Classify(path.Join(dir, e.Name)); k == Publication && n == name && !meta && e.Mode.IsFile() {
			return true
		}
	}
	return false
}

// label computes a new version's label per decisions.md's table.
func label(m sidecar, name string, c *object.Commit, previous int, tags map[string]string) string {
	when := c.Committer.When.UTC()
	switch m.Mode.Or() {
	case model.Timestamp:
		return strconv.FormatInt(when.UnixMilli(), 10)
	case model.Incremental:
		return strconv.Itoa(previous + 1)
	case model.DateTime:
		return when.Format("20060102T150405Z")
	case model.Custom:
		if l := tags[name]; l != "" {
			return l
		}
		if m.VersionLabel != "" {
			return m.VersionLabel
		}
	}
	return c.Hash.String()[:7]
}

// unique makes a label unique among the item's earlier versions: a timestamp moves on by a millisecond, any
// other label gets "-2", "-3", … (git times have one-second resolution, so fast writers share a second).
func unique(l string, prev []model.Version, numeric bool) string {
	used := make(map[string]bool, len(prev))
	for _, v := range prev {
		used[v.Label] = true
	}
	if !used[l] {
		return l
	}
	if n, err := strconv.ParseInt(l, 10, 64); err == nil && numeric {
		for used[strconv.FormatInt(n, 10)] {
			n++
		}
		return strconv.FormatInt(n, 10)
	}
	for i := 2; ; i++ {
		if c := l + "-" + strconv.Itoa(i); !used[c] {
			return c
		}
	}
}

// headView lists the items present at head, with their versions.
func (ix *Index) headView(head plumbing.Hash) (*Snapshot, error) {
	tree, err := ix.repo.Tree(head)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Head: head, byID: map[string]*Item{}, byName: emptyNames()}
	metas := map[[2]string]plumbing.Hash{}
	var contents []contentChange
	err = gitrepo.Walk(tree, func(p string, blob plumbing.Hash) error {
		kind, name, meta := indexed(p)
		if kind == 0 {
			return nil
		}
		if meta {
			metas[[2]string{kind.String(), name}] = blob
		} else {
			contents = append(contents, contentChange{kind, name, p, blob})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Walk order is path order, so when two files give one publication name (core.rdf and core.ttl) the first in
	// path order wins, the same way on every rebuild.
	for _, cc := range contents {
		if _, dup := snap.byName[cc.kind][cc.name]; dup {
			continue
		}
		metaBlob := metas[[2]string{cc.kind.String(), cc.name}]
		m, err := ix.sidecar(metaBlob)
		if err != nil {
			return nil, err
		}
		it := &Item{Kind: cc.kind, Name: cc.name, ID: m.ID, Path: cc.path, Blob: cc.blob, Mode: m.Mode.Or()}
		if it.ID == "" {
			it.ID = DefaultID(ix.repoID, cc.kind, cc.name)
		}
		if _, dup := snap.byID[it.ID]; dup {
			// A sidecar copied with its id: the later one falls back to its name-based id.
			it.ID = DefaultID(ix.repoID, cc.kind, cc.name)
		}
		it.Meta = m.raw
		all := ix.versions[it.ID]
		last, ok := m.lastOffered(all)
		if (!ok || last.Blob != cc.blob.String()) && !retractedBlob(m, all, cc.blob) {
			// The content at head was not reached through first-parent changes (e.g. it came with a merge whose
			// first parent already had another blob); the head itself is its latest version. Content a
			// retraction took back (a sidecar edited by hand without putting the older content back) is not
			// offered again this way.
			hc, err := ix.repo.Commit(head)
			if err != nil {
				return nil, err
			}
			v := model.Version{ID: VersionID(it.ID, head), Commit: head.String(), Time: hc.Committer.When.UTC(),
				Author: hc.Author.Name, Message: strings.TrimSpace(hc.Message), Path: cc.path, Blob: cc.blob.String()}
			v.Label = unique(label(sidecar{Mode: it.Mode}, it.Name, hc, len(all), nil), all, it.Mode == model.Timestamp)
			ix.versions[it.ID] = append(ix.versions[it.ID], v)
			all = ix.versions[it.ID]
		}
		it.Versions, it.Retracted = split(m, all)
		snap.byID[it.ID] = it
		snap.byName[it.Kind][it.Name] = it
	}
	return snap, nil
}

// retractedBlob reports whether blob is the content of a version m takes back.
func retractedBlob(m sidecar, vs []model.Version, blob plumbing.Hash) bool {
	for _, v := range vs {
		if v.Blob == blob.String() && m.retracts(v.Commit) {
			return true
		}
	}
	return false
}

// split divides an item's versions into those offered and those m takes back. An item always offers a version:
// a sidecar (edited by hand) that takes back every version leaves the newest offered.
func split(m sidecar, vs []model.Version) (offered, retracted []model.Version) {
	if len(m.Retracted) == 0 {
		return vs, nil
	}
	for _, v := range vs {
		if m.retracts(v.Commit) {
			retracted = append(retracted, v)
		} else {
			offered = append(offered, v)
		}
	}
	if len(offered) == 0 && len(retracted) > 0 {
		offered, retracted = retracted[len(retracted)-1:], retracted[:len(retracted)-1]
	}
	return offered, retracted
}
