package store

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// Authenticate checks HTTP Basic credentials against the hub's applications and tokens.
func (s *Store) Authenticate(ctx context.Context, id, secret string) (model.Credential, error) {
	if err := ctx.Err(); err != nil {
		return model.Credential{}, err
	}
	return s.cat.Authenticate(ctx, id, secret)
}

// EnsureAdmin makes sure an administrator credential exists; see catalog.EnsureAdmin.
func (s *Store) EnsureAdmin(ctx context.Context, id, secret string) (model.Credential, string, bool, error) {
	return s.cat.EnsureAdmin(ctx, id, secret)
}

// CreateCredential makes an application or token; the secret is returned once and stored only hashed.
func (s *Store) CreateCredential(ctx context.Context, actor model.Actor, spec catalog.CredentialSpec) (model.Credential, string, error) {
	return s.cat.CreateCredential(ctx, actor, spec)
}

// RevokeCredential makes a credential unusable.
func (s *Store) RevokeCredential(ctx context.Context, actor model.Actor, id string) error {
	return s.cat.RevokeCredential(ctx, actor, id)
}

// Credentials lists the credentials actor may see, without secrets.
func (s *Store) Credentials(ctx context.Context, actor model.Actor) ([]model.Credential, error) {
	return s.cat.Credentials(ctx, actor)
}

// Grant gives a credential a role on a group or repository.
func (s *Store) Grant(ctx context.Context, actor model.Actor, credID, targetID string, role model.Role) (model.Grant, error) {
	return s.cat.Grant(ctx, actor, credID, targetID, role)
}

// RevokeGrant removes a grant.
func (s *Store) RevokeGrant(ctx context.Context, actor model.Actor, grantID string) error {
	return s.cat.RevokeGrant(ctx, actor, grantID)
}

// Grants lists grants by credential and/or target.
func (s *Store) Grants(ctx context.Context, actor model.Actor, credID, targetID string) ([]model.Grant, error) {
	return s.cat.Grants(ctx, actor, credID, targetID)
}

// Role is the role actor holds on a group or repository.
func (s *Store) Role(ctx context.Context, actor model.Actor, id string) (model.Role, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return model.RoleNone, err
	}
	return st.Role(actor, id), nil
}

// CreateGroup creates a top-level group (parentId empty) or a subgroup.
func (s *Store) CreateGroup(ctx context.Context, actor model.Actor, g model.Group) (model.Group, error) {
	return s.cat.CreateGroup(ctx, actor, g)
}

// UpdateGroup changes a group's meta-data or parent.
func (s *Store) UpdateGroup(ctx context.Context, actor model.Actor, id string, p catalog.GroupPatch) (model.Group, error) {
	return s.cat.UpdateGroup(ctx, actor, id, p)
}

// DeleteGroup deletes an empty group.
func (s *Store) DeleteGroup(ctx context.Context, actor model.Actor, id string) (model.Group, error) {
	return s.cat.DeleteGroup(ctx, actor, id)
}

// Group returns a group actor may see.
func (s *Store) Group(ctx context.Context, actor model.Actor, id string) (model.Group, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return model.Group{}, err
	}
	return st.Group(actor, id)
}

// Groups lists the subgroups of a group ("" for the top level) that actor may see, by name.
func (s *Store) Groups(ctx context.Context, actor model.Actor, parentID string) ([]model.Group, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if parentID != "" {
		if _, err := st.Group(actor, parentID); err != nil {
			return nil, err
		}
	}
	gs, _ := st.Children(parentID)
	out := gs[:0]
	for _, g := range gs {
		if st.CanSee(actor, g.ID) {
			out = append(out, g)
		}
	}
	return out, nil
}

// CreateRepository creates a repository in a group: first its bare git repository, then its catalogue record,
// so that a recorded repository always has one; a refused record leaves no folder behind.
func (s *Store) CreateRepository(ctx context.Context, actor model.Actor, r model.Repository) (model.Repository, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return model.Repository{}, err
	}
	r.ID = model.NewID()
	if err := st.CheckNewRepository(actor, r); err != nil {
		return model.Repository{}, err
	}
	dir := s.repoDir(r.ID)
	if _, err := gitrepo.Init(dir); err != nil {
		return model.Repository{}, fmt.Errorf("store: %w", err)
	}
	out, err := s.cat.CreateRepository(ctx, actor, r)
	if err != nil {
		os.RemoveAll(dir)
		return model.Repository{}, err
	}
	if _, err := s.handle(ctx, out.ID); err != nil {
		return model.Repository{}, err
	}
	return out, nil
}

// UpdateRepository changes a repository's meta-data.
func (s *Store) UpdateRepository(ctx context.Context, actor model.Actor, id string, p catalog.RepositoryPatch) (model.Repository, error) {
	return s.cat.UpdateRepository(ctx, actor, id, p)
}

// DeleteRepository removes a repository from the catalogue and moves its git repository to deleted/, from where
// an operator can still recover it.
func (s *Store) DeleteRepository(ctx context.Context, actor model.Actor, id string) (model.Repository, error) {
	r, err := s.cat.DeleteRepository(ctx, actor, id)
	if err != nil {
		return r, err
	}
	if err := s.retire(id); err != nil {
		return r, err
	}
	return r, nil
}

// Repository returns a repository actor may see.
func (s *Store) Repository(ctx context.Context, actor model.Actor, id string) (model.Repository, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return model.Repository{}, err
	}
	return st.Repository(actor, id)
}

// Repositories lists the repositories of a group that actor may see ("" lists every group's), by name.
func (s *Store) Repositories(ctx context.Context, actor model.Actor, groupID string) ([]model.Repository, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	var rs []model.Repository
	if groupID != "" {
		if _, err := st.Group(actor, groupID); err != nil {
			return nil, err
		}
		_, rs = st.Children(groupID)
	} else {
		for _, r := range st.Repos {
			rs = append(rs, r)
		}
		sortRepos(rs)
	}
	out := rs[:0]
	for _, r := range rs {
		if st.CanSee(actor, r.ID) {
			out = append(out, r)
		}
	}
	return out, nil
}

// Resolve finds the group or repository at a path ("/group/sub/repository") that actor may see.
func (s *Store) Resolve(ctx context.Context, actor model.Actor, path string) (id string, isRepo bool, err error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return "", false, err
	}
	id, isRepo, ok := st.Resolve(path)
	if !ok || !st.CanSee(actor, id) {
		return "", false, model.NotFoundf("%s not found", path)
	}
	return id, isRepo, nil
}

// Path is the path of a group or repository ("" when unknown).
func (s *Store) Path(ctx context.Context, id string) (string, error) {
	st, err := s.Catalog(ctx)
	if err != nil {
		return "", err
	}
	return st.Path(id), nil
}

// RepoDir is where a repository's bare git repository lives (for derived-data builders that read git through
// this package's readers, and for diagnostics).
func (s *Store) RepoDir(id string) string { return s.repoDir(id) }

// Dir is the data folder.
func (s *Store) Dir() string { return s.dir }

func sortRepos(rs []model.Repository) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Name < rs[j].Name || rs[i].Name == rs[j].Name && rs[i].ID < rs[j].ID })
}
