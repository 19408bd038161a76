package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/delta"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/githttp"
	"github.com/ldhub/ldhub/httpx/apierr"
)

// statementTypes are the media types getPublicationContent offers (api.md 4.3), then the dataset syntaxes for
// publications with named graphs.
var statementTypes = []string{"text/turtle", "application/x-turtle", "application/rdf+xml", "application/n-triples", "application/ld+json"}

var datasetTypes = []string{"application/trig", "application/n-quads", "application/ld+json"}

// publicationURI is `{base}/<group path>/<repository>/<publicationUri>` (decisions.md "URIs").
func (s *Server) publicationURI(ctx context.Context, p model.Publication) (string, error) {
	repoPath, err := s.cfg.Store.Path(ctx, p.RepositoryID)
	if err != nil {
		return "", err
	}
	return s.cfg.BaseURL + repoPath + "/" + p.PublicationURI, nil
}

// uriPath is the publication's URI path (the list's `uri`, starting with a slash).
func (s *Server) uriPath(ctx context.Context, p model.Publication) (string, error) {
	repoPath, err := s.cfg.Store.Path(ctx, p.RepositoryID)
	if err != nil {
		return "", err
	}
	return repoPath + "/" + p.PublicationURI, nil
}

func (s *Server) getRepositoryPublications(w http.ResponseWriter, r *http.Request, c *call) error {
	ps, err := s.cfg.Store.Publications(r.Context(), c.actor, c.p("repositoryId"))
	if err != nil {
		return err
	}
	out := make([]PublicationListItem, 0, len(ps))
	for _, p := range ps {
		uri, err := s.uriPath(r.Context(), p)
		if err != nil {
			return err
		}
		out = append(out, PublicationListItem{ID: p.ID, Name: p.Name, Description: p.Description, Owner: p.Owner,
			Publisher: p.Publisher, Repository: p.RepositoryID, RepositoryID: p.RepositoryID, URI: uri,
			PublicationDate: p.Version.Time.UnixMilli(), SchemaURIs: nonNil(p.SchemaURIs),
			VersioningMode: string(p.VersioningMode.Or()), UseVersionedBaseURI: p.UseVersionedBaseURI,
			Versions: versionViews(p)})
	}
	return writeJSON(w, out)
}

// content reads the RDF part of an upload and names its syntax by the extension the store files it under.
func (s *Server) content(p *part) (store.Content, error) {
	syn, err := s.uploadSyntax(p)
	if err != nil {
		return store.Content{}, err
	}
	return store.Content{Ext: syn.Extensions[0], Data: p.data}, nil
}

func (s *Server) createPublication(w http.ResponseWriter, r *http.Request, c *call) error {
	parts, err := s.readParts(r, "metadata", "content")
	if err != nil {
		return err
	}
	var in PublicationMetaInput
	if err := jsonPart(parts["metadata"], &in); err != nil {
		return err
	}
	content, err := s.content(parts["content"])
	if err != nil {
		return err
	}
	p, err := s.cfg.Store.CreatePublication(r.Context(), c.actor, c.p("repositoryId"), model.PublicationMeta{
		Name: in.Name, Description: in.Description, Owner: in.Owner, Publisher: in.Publisher,
		VersioningMode: model.VersioningMode(in.VersioningMode), VersionLabel: in.VersionLabel,
		UseVersionedBaseURI: in.UseVersionedBaseURI, SchemaURIs: in.SchemaURIs, PublicationURI: in.PublicationURI,
	}, content)
	if err != nil {
		return err
	}
	return s.writePublished(w, r, p)
}

// updatePublication finds the publication by publicationUri, else by name, and adds a version (decisions.md).
func (s *Server) updatePublication(w http.ResponseWriter, r *http.Request, c *call) error {
	parts, err := s.readParts(r, "meta-data", "Content")
	if err != nil {
		return err
	}
	var in PublicationMetaInput
	if err := jsonPart(parts["meta-data"], &in); err != nil {
		return err
	}
	// The strict pass above has checked every key; the patch reads the same object for which fields were given.
	var patch store.PublicationPatch
	if err := json.Unmarshal(parts["meta-data"].data, &patch); err != nil {
		return &apierr.Error{Status: http.StatusBadRequest, Message: "the part meta-data: " + err.Error(), Err: err}
	}
	key := in.PublicationURI
	if key == "" {
		key = in.Name
	}
	if key == "" {
		return badRequest("meta-data needs a publicationUri or a name to find the publication to update")
	}
	content, err := s.content(parts["Content"])
	if err != nil {
		return err
	}
	cur, err := s.cfg.Store.FindPublication(r.Context(), c.actor, c.p("repositoryId"), key)
	if err != nil {
		return err
	}
	p, err := s.cfg.Store.UpdatePublication(r.Context(), c.actor, cur.ID, patch, &content)
	if err != nil {
		return err
	}
	return s.writePublished(w, r, p)
}

// LiveHeader is on the answer of every upload that published a version: "true" when the version is live at the
// publication's URL (and its SPARQL endpoint) as the answer is sent, "false" when Settle passed first or the
// pipeline could not render it.
const LiveHeader = "Ldhub-Live"

// LeftOutHeader is on the answer of an upload whose version went live without an older version of the publication
// whose content could not be rendered (invalid RDF stored with plain git): one field per such version, naming it
// and why in the words a push prints under "live, but these older versions are left out". Its URL answers 404.
const LeftOutHeader = "Ldhub-Left-Out"

// writePublished answers an upload that published a version of p once that version is live, at most Settle: the
// pipeline renders after the commit, and a client that read the publication's URL right after the answer got 404
// (or the old version). The push waits the same way (githttp.WaitLive). When the render fails, the answer is at
// once an error naming why (an RDF syntax error's line and column), since waiting longer changes nothing.
func (s *Server) writePublished(w http.ResponseWriter, r *http.Request, p model.Publication) error {
	live, failed := true, error(nil)
	if s.cfg.Pending != nil {
		live, failed = githttp.WaitLive(r.Context(), s.cfg.Settle, func(ctx context.Context) (bool, error) {
			if s.cfg.Failed != nil {
				if err := s.cfg.Failed(ctx, p); err != nil {
					return false, err
				}
			}
			return !s.cfg.Pending(ctx, p), nil
		})
	}
	w.Header().Set(LiveHeader, strconv.FormatBool(live))
	if failed != nil {
		return renderFailed(failed)
	}
	if live && s.cfg.LeftOut != nil {
		for _, why := range s.cfg.LeftOut(r.Context(), p) {
			w.Header().Add(LeftOutHeader, strings.Join(strings.Fields(why), " "))
		}
	}
	return writeJSON(w, publicationView(p))
}

// renderFailed is the answer to an upload whose version is stored but could not be rendered: 422, as the content
// (or an earlier version's, stored before it was checked) is what the pipeline refused.
func renderFailed(err error) error {
	e := &apierr.Error{Status: http.StatusUnprocessableEntity, Err: err,
		Message: "the version is stored but not live: " + err.Error()}
	if syn, ok := errors.AsType[*rdf.SyntaxError](err); ok {
		e.Details = apierr.Syntax{Format: syn.Syntax, Line: syn.Line, Column: syn.Column}
	}
	return e
}

func (s *Server) getPublicationMetaData(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.cfg.Store.Publication(r.Context(), c.actor, c.p("id"), versionParam(r, c))
	if err != nil {
		return err
	}
	return writeJSON(w, publicationView(p))
}

func (s *Server) getPublicationVersions(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.cfg.Store.Publication(r.Context(), c.actor, c.p("id"), "")
	if err != nil {
		return err
	}
	return writeJSON(w, VersionList(versionViews(p)))
}

// updatePublicationMetadata changes only the query parameters supplied.
func (s *Server) updatePublicationMetadata(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	var patch store.PublicationPatch
	// api.md gives this route three query parameters. A JSON body is read too, strictly, so that a client
	// sending {"versioningMode": …} is applied or told why not, rather than answered 200 with nothing changed.
	if r.ContentLength != 0 {
		var in PublicationMetaPatch
		if err := readJSONIfAny(r, &in); err != nil {
			return err
		}
		patch = store.PublicationPatch(in)
	}
	for name, dst := range map[string]**string{"publisher": &patch.Publisher, "owner": &patch.Owner, "description": &patch.Description} {
		if q.Has(name) {
			v := q.Get(name)
			*dst = &v
		}
	}
	p, err := s.cfg.Store.UpdatePublication(r.Context(), c.actor, c.p("id"), patch, nil)
	if err != nil {
		return err
	}
	return writeJSON(w, publicationView(p))
}

func (s *Server) deletePublication(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.cfg.Store.DeletePublication(r.Context(), c.actor, c.p("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, publicationView(p))
}

// decode parses a stored publication version with its base IRI: the publication URI (or version URI when
// useVersionedBaseUri) followed by a slash, so that `<Thing>` becomes `<publication URI>/Thing`.
func (s *Server) decode(ctx context.Context, p model.Publication, data []byte) (rdf.Decoder, codec.Syntax, error) {
	syn, ok := s.codecs.ByPath(p.Version.Path)
	if !ok {
		return nil, syn, errors.New("no codec for stored publication " + p.Version.Path)
	}
	base, err := s.documentBase(ctx, p)
	if err != nil {
		return nil, syn, err
	}
	return syn.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{Base: base}), syn, nil
}

// documentBase is the base IRI a publication version's document is read with: the publication's URI, or its
// version's URL when the publication uses versioned base URIs.
func (s *Server) documentBase(ctx context.Context, p model.Publication) (string, error) {
	uri, err := s.publicationURI(ctx, p)
	if err != nil {
		return "", err
	}
	if p.UseVersionedBaseURI {
		return uri + "/versions/" + p.Version.Label + "/", nil
	}
	return uri + "/", nil
}

func readAll(ctx context.Context, dec rdf.Decoder) ([]rdf.Quad, error) {
	var qs []rdf.Quad
	for {
		if len(qs)%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return qs, nil
		}
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
}

func (s *Server) getPublicationContent(w http.ResponseWriter, r *http.Request, c *call) error {
	p, data, err := s.cfg.Store.PublicationContent(r.Context(), c.actor, c.p("id"), versionParam(r, c))
	if err != nil {
		return err
	}
	dec, _, err := s.decode(r.Context(), p, data)
	if err != nil {
		return err
	}
	qs, err := readAll(r.Context(), dec)
	if err != nil {
		return err
	}
	offers := statementTypes
	for _, q := range qs {
		if !q.G.IsZero() {
			offers = datasetTypes
			break
		}
	}
	// The media type chosen is sent back as asked: a client asking for application/x-turtle gets that name.
	mt, ok := codec.Negotiate(r.Header.Get("Accept"), offers)
	if !ok {
		return apierr.New(http.StatusNotAcceptable, "this publication is offered as "+strings.Join(offers, ", "))
	}
	syn, _ := s.codecs.ByMediaType(mt)
	var eo rdf.EncodeOptions
	if ps, ok := dec.(rdf.PrefixSource); ok {
		eo.Prefixes = ps.Prefixes()
	}
	var buf bytes.Buffer
	enc := syn.NewEncoder(&buf, eo)
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	w.Header().Set("Content-Type", mt)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "private, no-cache")
	_, err = w.Write(buf.Bytes())
	return err
}

// resolveVersion finds a publication version by publication id (its latest) or by version id, among what the
// caller may read, loaded by load.
func (s *Server) resolveVersion(ctx context.Context, a model.Actor, ref string, load publicationLoader) (model.Publication, []byte, error) {
	p, data, err := load(ctx, a, ref, "")
	if !errors.Is(err, model.ErrNotFound) {
		return p, data, err
	}
	st, err := s.cfg.Store.Catalog(ctx)
	if err != nil {
		return model.Publication{}, nil, err
	}
	for id := range st.Repos {
		if !st.CanSee(a, id) {
			continue
		}
		ps, err := s.cfg.Store.Publications(ctx, a, id)
		if err != nil {
			return model.Publication{}, nil, err
		}
		for _, p := range ps {
			for _, v := range p.Versions {
				if v.ID == ref {
					return load(ctx, a, p.ID, v.ID)
				}
			}
		}
	}
	return model.Publication{}, nil, model.NotFoundf("no publication or version %s", ref)
}

var deltaTypes = []string{"application/n-quads", "application/trig"}

func (s *Server) findDeltaForPublicationVersions(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	v1, v2 := q.Get("version1"), q.Get("version2")
	if v1 == "" || v2 == "" {
		return badRequest("version1 and version2 (publication or version ids, or their URLs) are required")
	}
	mt, ok := codec.Negotiate(r.Header.Get("Accept"), deltaTypes)
	if !ok {
		return apierr.New(http.StatusNotAcceptable, "a delta is offered as application/n-quads or application/trig")
	}
	// Ids, or the URLs a push prints (`…/core` and `…/core/versions/<label>`), as default-graph-uri takes them: a
	// publisher who pushed with git has labels and URLs, not version ids.
	pa, da, err := s.graphRef(r.Context(), c.actor, v1)
	if err != nil {
		return err
	}
	pb, db, err := s.graphRef(r.Context(), c.actor, v2)
	if err != nil {
		return err
	}
	decA, _, err := s.decode(r.Context(), pa, da)
	if err != nil {
		return err
	}
	decB, _, err := s.decode(r.Context(), pb, db)
	if err != nil {
		return err
	}
	added, removed, err := delta.ComputeDecoders(r.Context(), decA, decB, delta.Options{HashLabels: true})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if mt == "application/trig" {
		var eo rdf.EncodeOptions
		if ps, ok := decB.(rdf.PrefixSource); ok {
			eo.Prefixes = ps.Prefixes()
		}
		err = delta.WriteTriG(&buf, added, removed, eo)
	} else {
		err = delta.WriteNQuads(&buf, added, removed)
	}
	if errors.Is(err, delta.ErrNamedGraph) {
		return &apierr.Error{Status: http.StatusBadRequest, Message: err.Error(), Err: err}
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", mt)
	w.Header().Set("Vary", "Accept")
	_, err = w.Write(buf.Bytes())
	return err
}

// sparql hands the request to the SPARQL service, or answers 501 until it is mounted.
func (s *Server) sparql(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.sparqlFor(w, r, c, c.p("id"), "")
}

// publicationByQuery finds a publication of a repository from the query (`id`, else `publicationUri`, else
// `name`), for the v2 routes that name no publication in their path.
func (s *Server) publicationByQuery(r *http.Request, c *call, repoID string) (model.Publication, error) {
	q := r.URL.Query()
	if id := q.Get("id"); id != "" {
		p, err := s.cfg.Store.Publication(r.Context(), c.actor, id, "")
		if err == nil && p.RepositoryID != repoID {
			return model.Publication{}, model.NotFoundf("publication %s not found in repository %s", id, repoID)
		}
		return p, err
	}
	for _, k := range []string{"publicationUri", "name"} {
		if v := q.Get(k); v != "" {
			return s.cfg.Store.FindPublication(r.Context(), c.actor, repoID, v)
		}
	}
	return model.Publication{}, badRequest("name the publication with the query parameter id, publicationUri or name")
}

// versionParam is the version a route names in its path, else the `version` query parameter ("" for the latest).
func versionParam(r *http.Request, c *call) string {
	if v := c.p("version"); v != "" {
		return v
	}
	return r.URL.Query().Get("version")
}
