package server

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/ldhub/ldhub/api/listing"
	"github.com/ldhub/ldhub/api/search"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/httpx/apierr"
)

var (
	groupSorts = []string{"name", "description", "createdOn", "modifiedOn"}
	// api.md leaves sortBy of a group's repositories a free string; these are the fields it can mean.
	repoSorts = []string{"name", "description", "createdOn", "modifiedOn", "pathSegment", "id"}
)

// sortable is what the listings sort on.
type sortable struct {
	id, name, description, pathSegment string
	createdOn, modifiedOn              int64
}

// page sorts, searches and pages items. match is nil without searchText.
func page[T any](items []T, p listing.Params, key func(T) sortable, match map[string]bool) ([]T, int64) {
	if match != nil {
		items = slices.DeleteFunc(items, func(t T) bool { return !match[key(t).id] })
	}
	slices.SortStableFunc(items, func(a, b T) int {
		ka, kb := key(a), key(b)
		var c int
		switch p.SortBy {
		case "description":
			c = cmp.Compare(strings.ToLower(ka.description), strings.ToLower(kb.description))
		case "createdOn":
			c = cmp.Compare(ka.createdOn, kb.createdOn)
		case "modifiedOn":
			c = cmp.Compare(ka.modifiedOn, kb.modifiedOn)
		case "pathSegment":
			c = cmp.Compare(ka.pathSegment, kb.pathSegment)
		case "id":
			c = cmp.Compare(ka.id, kb.id)
		}
		if c == 0 {
			c = cmp.Compare(strings.ToLower(ka.name), strings.ToLower(kb.name))
		}
		if c == 0 {
			c = cmp.Compare(ka.id, kb.id)
		}
		if p.Descending {
			c = -c
		}
		return c
	})
	from, to := p.Window(len(items))
	return items[from:to], int64(len(items))
}

func groupKey(g model.Group) sortable {
	return sortable{g.ID, g.Name, g.Description, g.PathSegment, g.CreatedOn, g.ModifiedOn}
}

func repoKey(r model.Repository) sortable {
	return sortable{r.ID, r.Name, r.Description, r.PathSegment, r.CreatedOn, r.ModifiedOn}
}

// matching returns the ids matching searchText, or nil when there is none.
func (s *Server) matching(ctx context.Context, kind string, p listing.Params) (map[string]bool, error) {
	if p.SearchText == "" {
		return nil, nil
	}
	if s.cfg.Search == nil {
		return nil, apierr.New(http.StatusNotImplemented, "search is not enabled on this hub")
	}
	return s.cfg.Search.Match(ctx, kind, p.SearchText)
}

func (s *Server) listGroups(w http.ResponseWriter, r *http.Request, c *call, parentID string) error {
	p, err := listing.Parse(r.URL.Query(), groupSorts)
	if err != nil {
		return err
	}
	gs, err := s.cfg.Store.Groups(r.Context(), c.actor, parentID)
	if err != nil {
		return err
	}
	match, err := s.matching(r.Context(), search.Group, p)
	if err != nil {
		return err
	}
	st, err := s.cfg.Store.Catalog(r.Context())
	if err != nil {
		return err
	}
	gs, total := page(gs, p, groupKey, match)
	out := GroupViewPage{Contents: []GroupView{}, Total: total}
	for _, g := range gs {
		out.Contents = append(out.Contents, groupView(st, c.actor, g))
	}
	return writeJSON(w, out)
}

func (s *Server) getTopGroups(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.listGroups(w, r, c, "")
}

func (s *Server) getSubGroups(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.listGroups(w, r, c, c.p("id"))
}

func (s *Server) createGroup(w http.ResponseWriter, r *http.Request, c *call, parentID string) error {
	var in Group
	if err := readJSON(r, &in); err != nil {
		return err
	}
	if parentID == "" && in.ParentID != nil && *in.ParentID != "" {
		return badRequest("a top-level group has no parentId; create a subgroup with POST /api/v3/groups/{id}")
	}
	if parentID != "" && in.ParentID != nil && *in.ParentID != "" && *in.ParentID != parentID {
		return badRequest("parentId in the body differs from the group in the path")
	}
	g, err := s.cfg.Store.CreateGroup(r.Context(), c.actor, model.Group{Name: in.Name, Type: model.GroupType(in.Type),
		Description: in.Description, Owner: in.Owner, ParentID: parentID, PathSegment: in.PathSegment})
	if err != nil {
		return err
	}
	out := withNotes[Group]{Item: groupOut(g)}
	if in.Type == "" && g.Type == model.GroupPrivate {
		out.Notes = append(out.Notes, `type was not given, so the group is PRIVATE: only credentials granted a role see it and its repositories; send "type": "PUBLIC" to create a group everyone sees`)
	}
	return writeJSON(w, out)
}

func (s *Server) createTopGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.createGroup(w, r, c, "")
}

func (s *Server) createSubGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.createGroup(w, r, c, c.p("id"))
}

func (s *Server) getGroupDetails(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.cfg.Store.Catalog(r.Context())
	if err != nil {
		return err
	}
	g, err := st.Group(c.actor, c.p("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, groupView(st, c.actor, g))
}

func (s *Server) deleteGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	g, err := s.cfg.Store.DeleteGroup(r.Context(), c.actor, c.p("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, groupOut(g))
}

func (s *Server) updatePartialGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	var in GroupPartial
	if err := readJSON(r, &in); err != nil {
		return err
	}
	p := catalog.GroupPatch{Name: in.Name, Description: in.Description, Owner: in.Owner, ParentID: in.ParentID}
	if in.Type != nil {
		t := model.GroupType(*in.Type)
		p.Type = &t
	}
	g, err := s.cfg.Store.UpdateGroup(r.Context(), c.actor, c.p("id"), p)
	if err != nil {
		return err
	}
	return writeJSON(w, groupOut(g))
}

// accessible lists the repositories on which the caller holds at least VIEWER (api.md §5.4): visible
// repositories without a grant are not "accessible" in this sense.
func (s *Server) accessible(ctx context.Context, a model.Actor) (*catalog.State, []model.Repository, error) {
	st, err := s.cfg.Store.Catalog(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out []model.Repository
	for _, r := range st.Repos {
		if st.Role(a, r.ID) >= model.Viewer {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b model.Repository) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	return st, out, nil
}

func (s *Server) getRepositoriesWithAccessStatus(w http.ResponseWriter, r *http.Request, c *call) error {
	st, rs, err := s.accessible(r.Context(), c.actor)
	if err != nil {
		return err
	}
	out := make([]RepositoryView, 0, len(rs))
	for _, repo := range rs {
		out = append(out, RepositoryView{ID: repo.ID, Name: repo.Name, Owner: ownerOf(repo),
			Status: st.Role(c.actor, repo.ID).String(), Description: repo.Description, FullPath: st.Path(repo.ID),
			PublicVisibility: repo.Visible})
	}
	return writeJSON(w, out)
}

func (s *Server) createRepositoryInGroup(w http.ResponseWriter, r *http.Request, c *call) error {
	var in RepositoryDataInput
	if err := readJSON(r, &in); err != nil {
		return err
	}
	if in.ParentID == "" {
		return badRequest("parentId is required: the id of the group to create the repository in")
	}
	repo := model.Repository{Name: in.Name, Description: in.Description, Owner: in.Owner, ParentID: in.ParentID,
		PathSegment: in.PathSegment, Visible: in.Visible != nil && *in.Visible}
	created, err := s.cfg.Store.CreateRepository(r.Context(), c.actor, repo)
	if err != nil {
		return err
	}
	out := withNotes[Repository]{Item: repositoryOut(created)}
	if in.Visible == nil && !created.Visible {
		out.Notes = append(out.Notes, `visible was not given, so the repository is hidden: anonymous readers get 404 for its publications; send "visible": true (or PATCH it later) to publish openly`)
	}
	return writeJSON(w, out)
}

func (s *Server) repositoryData(ctx context.Context, a model.Actor, repo model.Repository) (RepositoryData, error) {
	ps, err := s.cfg.Store.Publications(ctx, a, repo.ID)
	if err != nil {
		return RepositoryData{}, err
	}
	return repositoryData(repo, len(ps)), nil
}

func (s *Server) getRepositoryMetadata(w http.ResponseWriter, r *http.Request, c *call) error {
	repo, err := s.cfg.Store.Repository(r.Context(), c.actor, c.p("id"))
	if err != nil {
		return err
	}
	out, err := s.repositoryData(r.Context(), c.actor, repo)
	if err != nil {
		return err
	}
	return writeJSON(w, out)
}

func (s *Server) updateRepository(w http.ResponseWriter, r *http.Request, c *call) error {
	var in RepositoryPartial
	if err := readJSON(r, &in); err != nil {
		return err
	}
	repo, err := s.cfg.Store.UpdateRepository(r.Context(), c.actor, c.p("id"),
		catalog.RepositoryPatch{Name: in.Name, Description: in.Description, Visible: in.Visible})
	if err != nil {
		return err
	}
	out, err := s.repositoryData(r.Context(), c.actor, repo)
	if err != nil {
		return err
	}
	return writeJSON(w, out)
}

func (s *Server) deleteRepository(w http.ResponseWriter, r *http.Request, c *call) error {
	repo, err := s.cfg.Store.DeleteRepository(r.Context(), c.actor, c.p("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, repositoryOut(repo))
}

func (s *Server) getRepositories(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := listing.Parse(r.URL.Query(), repoSorts)
	if err != nil {
		return err
	}
	rs, err := s.cfg.Store.Repositories(r.Context(), c.actor, c.p("groupId"))
	if err != nil {
		return err
	}
	match, err := s.matching(r.Context(), search.Repository, p)
	if err != nil {
		return err
	}
	rs, total := page(rs, p, repoKey, match)
	out := RepositoryPage{Contents: []RepositoryData{}, Total: total}
	for _, repo := range rs {
		d, err := s.repositoryData(r.Context(), c.actor, repo)
		if err != nil {
			return err
		}
		out.Contents = append(out.Contents, d)
	}
	return writeJSON(w, out)
}
