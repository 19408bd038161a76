// Package catalog keeps the hub's catalogue — groups, repositories, credentials and access grants — as JSON records
// in one git repository, and decides who may do what. The in-memory view is rebuilt from git whenever the
// repository's head moves, so git stays the only source of truth.
package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/crypto/bcrypt"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

const (
	groupsDir = "groups"
	reposDir  = "repositories"
	grantsDir = "grants"
	credsDir  = "credentials"
)

// Catalog is the hub repository and its current view.
type Catalog struct {
	repo *gitrepo.Repo
	now  func() time.Time
	// hashCost is the bcrypt cost of new secrets.
	hashCost int

	mu    sync.Mutex
	state *State
	// verified remembers secrets that passed the slow hash check, as a fast hash, so that every request of a
	// client does not pay bcrypt again. It lives only in memory.
	verified map[string][32]byte
	// dummy is compared against when a credential does not exist, so unknown ids cost the same time.
	dummy []byte
}

// Options configure a catalogue.
type Options struct {
	Now      func() time.Time
	HashCost int // bcrypt cost; zero takes bcrypt.DefaultCost
}

// Open opens (creating when needed) the hub repository at dir.
func Open(dir string, o Options) (*Catalog, error) {
	r, err := gitrepo.Init(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	c := &Catalog{repo: r, now: o.Now, hashCost: o.HashCost, verified: map[string][32]byte{}}
	if c.dummy, err = bcrypt.GenerateFromPassword([]byte(NewSecret()), c.cost()); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if _, err := c.View(); err != nil {
		return nil, err
	}
	return c, nil
}

// Repo is the hub's git repository.
func (c *Catalog) Repo() *gitrepo.Repo { return c.repo }

// State is an immutable view of the catalogue at one commit.
type State struct {
	Head   plumbing.Hash
	Groups map[string]model.Group
	Repos  map[string]model.Repository
	Grants map[string]model.Grant
	Creds  map[string]model.Credential
}

// View returns the catalogue as of the current head, reloading it from git when the head moved.
func (c *Catalog) View() (*State, error) {
	head, err := c.repo.Head()
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	c.mu.Lock()
	st := c.state
	c.mu.Unlock()
	if st != nil && st.Head == head {
		return st, nil
	}
	tree, err := c.repo.Tree(head)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	st, err = c.load(head, tree)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.state = st
	c.mu.Unlock()
	return st, nil
}

func (c *Catalog) load(head plumbing.Hash, tree *object.Tree) (*State, error) {
	st := &State{Head: head, Groups: map[string]model.Group{}, Repos: map[string]model.Repository{},
		Grants: map[string]model.Grant{}, Creds: map[string]model.Credential{}}
	err := gitrepo.Walk(tree, func(p string, blob plumbing.Hash) error {
		dir, file := path.Split(p)
		if !strings.HasSuffix(file, ".json") {
			return nil
		}
		data, err := c.repo.Blob(blob)
		if err != nil {
			return err
		}
		switch strings.TrimSuffix(dir, "/") {
		case groupsDir:
			return decodeInto(p, data, st.Groups, func(g model.Group) string { return g.ID })
		case reposDir:
			return decodeInto(p, data, st.Repos, func(r model.Repository) string { return r.ID })
		case grantsDir:
			return decodeInto(p, data, st.Grants, func(g model.Grant) string { return g.ID })
		case credsDir:
			return decodeInto(p, data, st.Creds, func(c model.Credential) string { return c.ID })
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

func decodeInto[T any](p string, data []byte, m map[string]T, id func(T) string) error {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("catalog: %s: %w", p, err)
	}
	m[id(v)] = v
	return nil
}

// update runs fn on the state as of the transaction's head and commits what it wrote, as actor.
func (c *Catalog) update(ctx context.Context, actor model.Actor, msg string, fn func(st *State, tx *gitrepo.Tx) error) error {
	_, err := c.repo.Transact(ctx, func(tx *gitrepo.Tx) error {
		st, err := c.View()
		if err != nil {
			return err
		}
		if st.Head != tx.Head {
			// The view moved between reading the head and loading; load exactly the transaction's head.
			if st, err = c.load(tx.Head, tx.Tree); err != nil {
				return err
			}
		}
		tx.Author = Author(actor, c.now())
		tx.Message = msg
		return fn(st, tx)
	})
	if err != nil {
		return err
	}
	_, err = c.View()
	return err
}

// Author is the commit signature of an actor.
func Author(a model.Actor, when time.Time) gitrepo.Signature {
	name := a.Name
	if name == "" {
		name = a.CredentialID
	}
	return gitrepo.Signature{Name: name, Email: a.CredentialID + "@ldhub", When: when}
}

func put(tx *gitrepo.Tx, dir, id string, v any) error {
	b, err := model.Marshal(v)
	if err != nil {
		return fmt.Errorf("catalog: encode %s/%s: %w", dir, id, err)
	}
	tx.Put(dir+"/"+id+".json", b)
	return nil
}

// Path returns the path of a group or repository: "/" and the segments from the top group down. Unknown ids give "".
func (st *State) Path(id string) string {
	var segs []string
	for guard := 0; id != "" && guard < 1000; guard++ {
		if g, ok := st.Groups[id]; ok {
			segs = append(segs, g.PathSegment)
			id = g.ParentID
		} else if r, ok := st.Repos[id]; ok {
			segs = append(segs, r.PathSegment)
			id = r.ParentID
		} else {
			return ""
		}
	}
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	return "/" + strings.Join(segs, "/")
}

// Resolve finds the group or repository at a path ("/a/b/repo"); isRepo tells which.
func (st *State) Resolve(p string) (id string, isRepo bool, ok bool) {
	parent := ""
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i, seg := range segs {
		found := false
		for _, g := range st.Groups {
			if g.ParentID == parent && g.PathSegment == seg {
				parent, found = g.ID, true
				break
			}
		}
		if found {
			continue
		}
		if i == len(segs)-1 && parent != "" {
			for _, r := range st.Repos {
				if r.ParentID == parent && r.PathSegment == seg {
					return r.ID, true, true
				}
			}
		}
		return "", false, false
	}
	return parent, false, parent != ""
}

// Children returns the direct subgroups and repositories of a group ("" for the top level), sorted by name.
func (st *State) Children(parentID string) ([]model.Group, []model.Repository) {
	var gs []model.Group
	var rs []model.Repository
	for _, g := range st.Groups {
		if g.ParentID == parentID {
			gs = append(gs, g)
		}
	}
	for _, r := range st.Repos {
		if r.ParentID == parentID && parentID != "" {
			rs = append(rs, r)
		}
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name < gs[j].Name || gs[i].Name == gs[j].Name && gs[i].ID < gs[j].ID })
	sort.Slice(rs, func(i, j int) bool { return rs[i].Name < rs[j].Name || rs[i].Name == rs[j].Name && rs[i].ID < rs[j].ID })
	return gs, rs
}

// segmentTaken reports whether a sibling (group or repository under parentID) other than self uses seg.
func (st *State) segmentTaken(parentID, seg, self string) bool {
	for _, g := range st.Groups {
		if g.ParentID == parentID && g.ID != self && strings.EqualFold(g.PathSegment, seg) {
			return true
		}
	}
	for _, r := range st.Repos {
		if r.ParentID == parentID && r.ID != self && strings.EqualFold(r.PathSegment, seg) {
			return true
		}
	}
	return false
}

// ancestors returns id's chain of parent groups, nearest first (id itself included).
func (st *State) ancestors(id string) []string {
	var out []string
	for guard := 0; id != "" && guard < 1000; guard++ {
		out = append(out, id)
		if g, ok := st.Groups[id]; ok {
			id = g.ParentID
		} else if r, ok := st.Repos[id]; ok {
			id = r.ParentID
		} else {
			break
		}
	}
	return out
}
