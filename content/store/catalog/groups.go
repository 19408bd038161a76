package catalog

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// CreateGroup records a group. A top-level group may be made by any authenticated credential, which becomes its
// OWNER (the grant is part of the same commit); a subgroup needs MANAGER on its parent.
func (c *Catalog) CreateGroup(ctx context.Context, actor model.Actor, g model.Group) (model.Group, error) {
	if g.Type == "" {
		g.Type = model.GroupPrivate
	}
	if !g.Type.Valid() {
		return model.Group{}, model.Invalidf("group type %q: want PRIVATE, PUBLIC or USER", g.Type)
	}
	if strings.TrimSpace(g.Name) == "" {
		return model.Group{}, model.Invalidf("a group needs a name")
	}
	if err := checkText("group", g.Name, g.Description, g.Owner); err != nil {
		return model.Group{}, err
	}
	seg, err := segment(g.PathSegment, g.Name)
	if err != nil {
		return model.Group{}, err
	}
	now := c.now().UnixMilli()
	g.ID, g.PathSegment = model.NewID(), seg
	g.CreatedBy, g.CreatedOn, g.ModifiedBy, g.ModifiedOn = actor.CredentialID, now, actor.CredentialID, now
	err = c.update(ctx, actor, fmt.Sprintf("Create group %s (%s)", seg, g.Name), func(st *State, tx *gitrepo.Tx) error {
		if g.ParentID == "" {
			if actor.CredentialID == "" {
				return model.Unauthorizedf("creating a group needs credentials")
			}
		} else if err := st.Require(actor, g.ParentID, model.Manager, "group"); err != nil {
			return err
		} else if _, isGroup := st.Groups[g.ParentID]; !isGroup {
			return model.Invalidf("parent %s is a repository, not a group", g.ParentID)
		}
		if err := st.checkSegment(actor, g.ParentID, seg, g.ID); err != nil {
			return err
		}
		if g.ParentID == "" && !actor.System && !actor.Admin {
			owner := model.Grant{ID: model.NewID(), CredentialID: actor.CredentialID, TargetID: g.ID, Role: model.Owner,
				CreatedBy: actor.CredentialID, CreatedOn: now}
			if err := put(tx, grantsDir, owner.ID, owner); err != nil {
				return err
			}
		}
		return put(tx, groupsDir, g.ID, g)
	})
	if err != nil {
		return model.Group{}, err
	}
	return g, nil
}

func segment(seg, name string) (string, error) {
	if seg == "" {
		seg = model.SegmentFrom(name)
		if seg == "" {
			return "", model.Invalidf("no pathSegment given and none can be derived from name %q", name)
		}
	}
	if !model.ValidSegment(seg) {
		return "", model.Invalidf("pathSegment %q: use 1-64 characters of [A-Za-z0-9._-], not starting with '.'", seg)
	}
	return seg, nil
}

// checkSegment refuses a segment the hub reserves (400) or a sibling uses (409). The 409 tells a stranger that a
// hidden group or repository holds the segment, and nothing else about it: a URL cannot mean two things, so the
// name's existence is the one fact that cannot be hidden (docs/api.md, "Names").
func (st *State) checkSegment(actor model.Actor, parentID, seg, self string) error {
	if why := model.ReservedFor(actor, seg, parentID == ""); why != "" {
		return model.Invalidf("pathSegment %q is reserved: %s", seg, why)
	}
	if st.segmentTaken(parentID, seg, self) {
		return model.Conflictf("pathSegment %q is already used in %s", seg, st.Path(parentID))
	}
	return nil
}

// GroupPatch holds the fields a group update may change; nil leaves a field as it is.
type GroupPatch struct {
	Name, Description, Owner, ParentID *string
	Type                               *model.GroupType
}

// UpdateGroup changes a group's meta-data (MANAGER) or moves it under another parent (OWNER on it and MANAGER on
// the new parent).
func (c *Catalog) UpdateGroup(ctx context.Context, actor model.Actor, id string, p GroupPatch) (model.Group, error) {
	var out model.Group
	err := c.update(ctx, actor, "Update group "+id, func(st *State, tx *gitrepo.Tx) error {
		if err := st.Require(actor, id, model.Manager, "group"); err != nil {
			return err
		}
		g, ok := st.Groups[id]
		if !ok {
			return model.NotFoundf("group %s not found", id)
		}
		if p.Name != nil {
			if strings.TrimSpace(*p.Name) == "" {
				return model.Invalidf("a group needs a name")
			}
			g.Name = *p.Name
		}
		if p.Description != nil {
			g.Description = *p.Description
		}
		if p.Owner != nil {
			g.Owner = *p.Owner
		}
		if p.Type != nil {
			if !p.Type.Valid() {
				return model.Invalidf("group type %q: want PRIVATE, PUBLIC or USER", *p.Type)
			}
			g.Type = *p.Type
		}
		if err := checkText("group", g.Name, g.Description, g.Owner); err != nil {
			return err
		}
		if p.ParentID != nil && *p.ParentID != g.ParentID {
			if err := st.Require(actor, id, model.Owner, "group"); err != nil {
				return err
			}
			if np := *p.ParentID; np != "" {
				if err := st.Require(actor, np, model.Manager, "group"); err != nil {
					return err
				}
				if _, isGroup := st.Groups[np]; !isGroup {
					return model.Invalidf("parent %s is not a group", np)
				}
				for _, anc := range st.ancestors(np) {
					if anc == id {
						return model.Invalidf("group %s cannot move below itself", id)
					}
				}
			} else if !actor.System && !actor.Admin {
				return model.Forbiddenf("only an administrator makes a group top-level")
			}
			if err := st.checkSegment(actor, *p.ParentID, g.PathSegment, id); err != nil {
				return err
			}
			g.ParentID = *p.ParentID
		}
		g.ModifiedBy, g.ModifiedOn = actor.CredentialID, c.now().UnixMilli()
		out = g
		return put(tx, groupsDir, id, g)
	})
	return out, err
}

// DeleteGroup removes an empty group and the grants on it (OWNER). A group with subgroups or repositories is a
// conflict: deleting content is always explicit.
func (c *Catalog) DeleteGroup(ctx context.Context, actor model.Actor, id string) (model.Group, error) {
	var out model.Group
	err := c.update(ctx, actor, "Delete group "+id, func(st *State, tx *gitrepo.Tx) error {
		if err := st.Require(actor, id, model.Owner, "group"); err != nil {
			return err
		}
		g, ok := st.Groups[id]
		if !ok {
			return model.NotFoundf("group %s not found", id)
		}
		if gs, rs := st.Children(id); len(gs)+len(rs) > 0 {
			return model.Conflictf("group %s still holds %d subgroups and %d repositories", st.Path(id), len(gs), len(rs))
		}
		st.dropGrants(tx, id)
		tx.Delete(groupsDir + "/" + id + ".json")
		out = g
		return nil
	})
	return out, err
}

func (st *State) dropGrants(tx *gitrepo.Tx, targetID string) {
	for _, gr := range st.Grants {
		if gr.TargetID == targetID {
			tx.Delete(grantsDir + "/" + gr.ID + ".json")
		}
	}
}

// CreateRepository records a repository in a group (MANAGER on the group). The caller creates its git repository
// first, so that a recorded repository always has one.
func (c *Catalog) CreateRepository(ctx context.Context, actor model.Actor, r model.Repository) (model.Repository, error) {
	if strings.TrimSpace(r.Name) == "" {
		return model.Repository{}, model.Invalidf("a repository needs a name")
	}
	if err := checkText("repository", r.Name, r.Description, r.Owner); err != nil {
		return model.Repository{}, err
	}
	if r.ParentID == "" {
		return model.Repository{}, model.Invalidf("a repository needs a parentId (its group)")
	}
	seg, err := segment(r.PathSegment, r.Name)
	if err != nil {
		return model.Repository{}, err
	}
	now := c.now().UnixMilli()
	if r.ID == "" {
		r.ID = model.NewID()
	}
	r.PathSegment = seg
	r.CreatedBy, r.CreatedOn, r.ModifiedBy, r.ModifiedOn = actor.CredentialID, now, actor.CredentialID, now
	err = c.update(ctx, actor, fmt.Sprintf("Create repository %s (%s)", seg, r.Name), func(st *State, tx *gitrepo.Tx) error {
		if err := st.CheckNewRepository(actor, r); err != nil {
			return err
		}
		return put(tx, reposDir, r.ID, r)
	})
	if err != nil {
		return model.Repository{}, err
	}
	return r, nil
}

// CheckNewRepository tells whether CreateRepository would accept r, so the caller can check before it creates
// the git repository.
func (st *State) CheckNewRepository(actor model.Actor, r model.Repository) error {
	if err := st.Require(actor, r.ParentID, model.Manager, "group"); err != nil {
		return err
	}
	if _, isGroup := st.Groups[r.ParentID]; !isGroup {
		return model.Invalidf("parent %s is not a group", r.ParentID)
	}
	if _, dup := st.Repos[r.ID]; dup {
		return model.Conflictf("repository %s exists", r.ID)
	}
	seg, err := segment(r.PathSegment, r.Name)
	if err != nil {
		return err
	}
	return st.checkSegment(actor, r.ParentID, seg, r.ID)
}

// RepositoryPatch holds the fields a repository update may change; nil leaves a field as it is.
type RepositoryPatch struct {
	Name, Description, Owner *string
	Visible                  *bool
}

// UpdateRepository changes a repository's meta-data (MANAGER).
func (c *Catalog) UpdateRepository(ctx context.Context, actor model.Actor, id string, p RepositoryPatch) (model.Repository, error) {
	var out model.Repository
	err := c.update(ctx, actor, "Update repository "+id, func(st *State, tx *gitrepo.Tx) error {
		if err := st.Require(actor, id, model.Manager, "repository"); err != nil {
			return err
		}
		r, ok := st.Repos[id]
		if !ok {
			return model.NotFoundf("repository %s not found", id)
		}
		if p.Name != nil {
			if strings.TrimSpace(*p.Name) == "" {
				return model.Invalidf("a repository needs a name")
			}
			r.Name = *p.Name
		}
		if p.Description != nil {
			r.Description = *p.Description
		}
		if p.Owner != nil {
			r.Owner = *p.Owner
		}
		if p.Visible != nil {
			r.Visible = *p.Visible
		}
		if err := checkText("repository", r.Name, r.Description, r.Owner); err != nil {
			return err
		}
		r.ModifiedBy, r.ModifiedOn = actor.CredentialID, c.now().UnixMilli()
		out = r
		return put(tx, reposDir, id, r)
	})
	return out, err
}

// DeleteRepository removes a repository's record and the grants on it (OWNER). The caller then retires its git
// repository.
func (c *Catalog) DeleteRepository(ctx context.Context, actor model.Actor, id string) (model.Repository, error) {
	var out model.Repository
	err := c.update(ctx, actor, "Delete repository "+id, func(st *State, tx *gitrepo.Tx) error {
		if err := st.Require(actor, id, model.Owner, "repository"); err != nil {
			return err
		}
		r, ok := st.Repos[id]
		if !ok {
			return model.NotFoundf("repository %s not found", id)
		}
		st.dropGrants(tx, id)
		tx.Delete(reposDir + "/" + id + ".json")
		out = r
		return nil
	})
	return out, err
}

// Group returns a group the actor may see.
func (st *State) Group(actor model.Actor, id string) (model.Group, error) {
	g, ok := st.Groups[id]
	if !ok || !st.CanSee(actor, id) {
		return model.Group{}, model.NotFoundf("group %s not found", id)
	}
	return g, nil
}

// Repository returns a repository the actor may see.
func (st *State) Repository(actor model.Actor, id string) (model.Repository, error) {
	r, ok := st.Repos[id]
	if !ok || !st.CanSee(actor, id) {
		return model.Repository{}, model.NotFoundf("repository %s not found", id)
	}
	return r, nil
}

// The free-text fields of groups and repositories are bounded: the catalogue is read whole for every request, so
// one credential must not be able to grow it for everyone (a 1 MB group name was accepted before).
const (
	maxNameLen        = 256      // characters of a name or an owner
	maxDescriptionLen = 16 << 10 // characters of a description
)

func checkText(kind, name, description, owner string) error {
	switch {
	case utf8.RuneCountInString(name) > maxNameLen:
		return model.Invalidf("a %s name has at most %d characters", kind, maxNameLen)
	case utf8.RuneCountInString(owner) > maxNameLen:
		return model.Invalidf("a %s owner has at most %d characters", kind, maxNameLen)
	case utf8.RuneCountInString(description) > maxDescriptionLen:
		return model.Invalidf("a %s description has at most %d characters", kind, maxDescriptionLen)
	}
	return nil
}
