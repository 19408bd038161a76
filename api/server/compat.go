package server

import (
	"net/http"
	"strings"

	"github.com/ldhub/ldhub/api/listing"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

// v4Repositories lists the repositories the credential holds at least VIEWER on, paged as `{total, contents}`.
func (s *Server) v4Repositories(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := listing.Parse(r.URL.Query(), repoSorts)
	if err != nil {
		return err
	}
	st, rs, err := s.accessible(r.Context(), c.actor)
	if err != nil {
		return err
	}
	rs, total := page(rs, p, repoKey, nil)
	out := V4Page[V4Repository]{Total: total, Contents: []V4Repository{}}
	for _, repo := range rs {
		out.Contents = append(out.Contents, V4Repository{ID: repo.ID, Name: repo.Name, Description: repo.Description,
			PathSegment: repo.PathSegment, Owner: ownerOf(repo), Path: st.Path(repo.ID), ParentID: repo.ParentID,
			CreatedBy: repo.CreatedBy, CreatedOn: repo.CreatedOn, ModifiedBy: repo.ModifiedBy, ModifiedOn: repo.ModifiedOn,
			Public: repo.Visible})
	}
	return writeJSON(w, out)
}

// v4Publications lists a repository's publications; api.md 4.7 asks PUBLISHER for it.
func (s *Server) v4Publications(w http.ResponseWriter, r *http.Request, c *call) error {
	repoID := r.URL.Query().Get("repositoryId")
	if repoID == "" {
		return badRequest("the query parameter repositoryId is required")
	}
	st, err := s.cfg.Store.Catalog(r.Context())
	if err != nil {
		return err
	}
	if _, isRepo := st.Repos[repoID]; !isRepo {
		return model.NotFoundf("repository %s not found", repoID)
	}
	if err := st.Require(c.actor, repoID, model.Publisher, "repository"); err != nil {
		return err
	}
	ps, err := s.cfg.Store.Publications(r.Context(), c.actor, repoID)
	if err != nil {
		return err
	}
	out := V4Page[V4Publication]{Total: int64(len(ps)), Contents: []V4Publication{}}
	for _, p := range ps {
		uri, err := s.uriPath(r.Context(), p)
		if err != nil {
			return err
		}
		pending := s.cfg.Pending != nil && s.cfg.Pending(r.Context(), p)
		out.Contents = append(out.Contents, V4Publication{ID: p.ID, Name: p.Name, Description: p.Description,
			RepositoryID: p.RepositoryID, Owner: p.Owner, Publisher: p.Publisher,
			PublicationDate: float64(p.Version.Time.UnixNano()) / 1e9, URI: uri, UseVersionBasedURI: p.UseVersionedBaseURI,
			VersioningMode: string(p.VersioningMode.Or()), SchemaURIs: nonNil(p.SchemaURIs), Pending: pending})
	}
	return writeJSON(w, out)
}

// v2Publications is the list, or one publication's meta-data when the query names one.
func (s *Server) v2Publications(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	if q.Has("id") || q.Has("publicationUri") || q.Has("name") {
		return s.v2Named(s.getPublicationMetaData)(w, r, c)
	}
	return s.getRepositoryPublications(w, r, c)
}

// v2Named runs a v3 publication handler on the publication the query names within the path's repository.
func (s *Server) v2Named(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		p, err := s.publicationByQuery(r, c, c.p("repositoryId"))
		if err != nil {
			return err
		}
		c.params["id"] = p.ID
		return h(w, r, c)
	}
}

// nsRepo resolves /ns/{repository} to the repository of the top-level group ns.
func (s *Server) nsRepo(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		id, isRepo, err := s.cfg.Store.Resolve(r.Context(), c.actor, "/ns/"+c.p("repository"))
		if err != nil {
			return err
		}
		if !isRepo {
			return model.NotFoundf("/ns/%s is not a repository", c.p("repository"))
		}
		c.params["repositoryId"] = id
		return h(w, r, c)
	}
}

// nsPub resolves P to the publication whose name is the five segments after the repository.
func (s *Server) nsPub(h handlerFunc) handlerFunc {
	return s.nsRepo(func(w http.ResponseWriter, r *http.Request, c *call) error {
		name := strings.Join([]string{c.p("accessibility"), c.p("status"), c.p("context"), c.p("function"), c.p("name")}, "/")
		p, err := s.cfg.Store.FindPublication(r.Context(), c.actor, c.p("repositoryId"), name)
		if err != nil {
			return err
		}
		c.params["id"] = p.ID
		return h(w, r, c)
	})
}

// nsUpdate adds a version to the publication of the path: parts `Content` (required) and `meta-data` (optional),
// as in updatePublication.
func (s *Server) nsUpdate(w http.ResponseWriter, r *http.Request, c *call) error {
	parts, err := s.readParts(r, "Content")
	if err != nil {
		return err
	}
	var patch store.PublicationPatch
	if p := parts["meta-data"]; p != nil {
		if err := jsonPart(p, &patch); err != nil {
			return err
		}
	}
	content, err := s.content(parts["Content"])
	if err != nil {
		return err
	}
	p, err := s.cfg.Store.UpdatePublication(r.Context(), c.actor, c.p("id"), patch, &content)
	if err != nil {
		return err
	}
	return s.writePublished(w, r, p)
}

// orSPARQL answers a GET that carries a query with sparql, any other with content.
func orSPARQL(content, sparql handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		if r.URL.Query().Has("query") {
			return sparql(w, r, c)
		}
		return content(w, r, c)
	}
}

func (s *Server) nsVersionContent(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.getPublicationContent(w, r, c)
}

func (s *Server) nsVersionSPARQL(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.sparqlFor(w, r, c, c.p("id"), c.p("version"))
}

// nsDeleteVersion retracts a version (PUBLISHER): git history keeps its commit, but it is no longer listed or
// served, and the answer is the deleted version. The only version left is 409: delete the publication instead.
func (s *Server) nsDeleteVersion(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.cfg.Store.RetractVersion(r.Context(), c.actor, c.p("id"), c.p("version"))
	if err != nil {
		return err
	}
	return writeJSON(w, versionView(p, p.Version))
}
