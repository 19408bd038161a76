package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
)

// sparqlFor serves the SPARQL endpoint of a publication (at a version, "" for the latest) through
// sparqlsvc/protocol. The dataset is built per request from the stored content: the publication's default graph
// merged with each default-graph-uri (and FROM, when no parameter is given), plus each named-graph-uri (FROM
// NAMED) as a named graph; every part is read as the caller, so a publication it may not see is 404.
func (s *Server) sparqlFor(w http.ResponseWriter, r *http.Request, c *call, pubID, version string) error {
	// Check visibility first, so an invisible publication is 404 before anything else is looked at.
	if _, err := s.cfg.Store.Publication(r.Context(), c.actor, pubID, version); err != nil {
		return err
	}
	lim := s.cfg.SPARQL
	if c.actor.CredentialID != "" {
		lim = s.cfg.SPARQLCredentialed
	}
	h := &protocol.Handler{
		WriteError: apierr.Write,
		Codecs:     s.codecs,
		Log:        s.log,
		Limits:     lim,
		Gate:       s.cfg.SPARQLGate,
		Endpoint:   func(r *http.Request) string { return s.cfg.BaseURL + r.URL.Path },
		Resolve: func(ctx context.Context, r *http.Request, d protocol.DatasetRequest) (protocol.Backend, func(), error) {
			return s.sparqlDataset(ctx, c.actor, pubID, version, d)
		},
	}
	h.ServeHTTP(w, r)
	return nil
}

func (s *Server) sparqlDataset(ctx context.Context, a model.Actor, pubID, version string, d protocol.DatasetRequest) (protocol.Backend, func(), error) {
	defaults, named := d.DefaultGraphs, d.NamedGraphs
	if len(defaults) == 0 && len(named) == 0 {
		defaults, named = d.QueryDefault, d.QueryNamed
	}
	if s.cfg.SPARQLStore != nil {
		q, err := s.storeDataset(ctx, a, pubID, version, defaults, named)
		if err != nil || q != nil {
			return q, func() {}, err
		}
	}
	if len(named) == 0 {
		// The common case: the publication's own index, with each default-graph-uri joined as an extra graph over
		// its own index.
		p, err := s.cfg.Store.Publication(ctx, a, pubID, version)
		if err != nil {
			return nil, nil, err
		}
		own, release, err := s.versionIndex(ctx, p, func() ([]byte, error) {
			_, data, err := s.cfg.Store.PublicationContent(ctx, a, pubID, p.Version.ID)
			return data, err
		})
		if err != nil {
			return nil, nil, err
		}
		releases := []func(){release}
		done := func() {
			for _, r := range releases {
				r()
			}
		}
		ds := eval.FromIndex(own)
		for _, ref := range defaults {
			xp, xdata, err := s.graphRef(ctx, a, ref)
			if err != nil {
				done()
				return nil, nil, err
			}
			x, release, err := s.versionIndex(ctx, xp, func() ([]byte, error) { return xdata, nil })
			if err != nil {
				done()
				return nil, nil, err
			}
			releases = append(releases, release)
			// Only the default graph of another publication joins the default graph.
			ds.Extra = append(ds.Extra, eval.Source{Dict: x.Dict, Graph: x.Default})
		}
		return ds, done, nil
	}
	// Named graphs from other publications need one dictionary: build the whole dataset for this request.
	p, data, err := s.cfg.Store.PublicationContent(ctx, a, pubID, version)
	if err != nil {
		return nil, nil, err
	}
	b := index.NewBuilder()
	if err := s.addGraph(ctx, b, p, data, nil, true); err != nil {
		return nil, nil, err
	}
	for _, ref := range defaults {
		p, data, err := s.graphRef(ctx, a, ref)
		if err != nil {
			return nil, nil, err
		}
		if err := s.addGraph(ctx, b, p, data, nil, false); err != nil {
			return nil, nil, err
		}
	}
	for _, ref := range named {
		p, data, err := s.graphRef(ctx, a, ref)
		if err != nil {
			return nil, nil, err
		}
		name := rdf.IRI(ref)
		if !strings.Contains(ref, ":") {
			uri, err := s.publicationURI(ctx, p)
			if err != nil {
				return nil, nil, err
			}
			name = rdf.IRI(uri)
		}
		if err := s.addGraph(ctx, b, p, data, &name, false); err != nil {
			return nil, nil, err
		}
	}
	ds := b.Build()
	return eval.FromIndex(ds), func() { ds.Close() }, nil
}

// storeDataset resolves the dataset into graphs of the external store, as the caller (every part is read as the
// caller, so what it may not see is 404 as on the built-in engine). It returns nil when some graph is not loaded
// in the store: that query runs on the built-in engine. A publication's URI (or id) names its latest version's
// graph: the store holds versions only, and "latest" is resolved here, per query.
func (s *Server) storeDataset(ctx context.Context, a model.Actor, pubID, version string, defaults, named []string) (protocol.Backend, error) {
	st := s.cfg.SPARQLStore
	graph := func(p model.Publication) (string, bool, error) {
		uri, err := s.publicationURI(ctx, p)
		if err != nil {
			return "", false, err
		}
		dir, err := tree.VersionDirName(p.Version.Label)
		if err != nil {
			return "", false, err
		}
		g := uri + "/versions/" + dir
		return g, st.Loaded(g, p.Version.ID), nil
	}
	p, err := s.cfg.Store.Publication(ctx, a, pubID, version)
	if err != nil {
		return nil, err
	}
	own, ok, err := graph(p)
	if err != nil || !ok {
		return nil, err
	}
	ds := remote.Dataset{Default: []string{own}}
	for _, ref := range defaults {
		xp, err := s.graphPub(ctx, a, ref)
		if err != nil {
			return nil, err
		}
		g, ok, err := graph(xp)
		if err != nil || !ok {
			return nil, err
		}
		ds.Default = append(ds.Default, g)
	}
	for _, ref := range named {
		xp, err := s.graphPub(ctx, a, ref)
		if err != nil {
			return nil, err
		}
		g, ok, err := graph(xp)
		if err != nil || !ok {
			return nil, err
		}
		name := ref
		if !strings.Contains(ref, ":") {
			if name, err = s.publicationURI(ctx, xp); err != nil {
				return nil, err
			}
		}
		ds.Named = append(ds.Named, remote.NamedGraph{Name: name, Graph: g})
	}
	return &remote.Query{Store: st.Store(), Dataset: ds}, nil
}

func (s *Server) buildIndex(ctx context.Context, p model.Publication, data []byte, keepNamed bool) (*index.Dataset, error) {
	b := index.NewBuilder()
	if err := s.addGraph(ctx, b, p, data, nil, keepNamed); err != nil {
		return nil, err
	}
	return b.Build(), nil
}

// versionIndex returns the SPARQL index of a publication version, and a release to call when the query is done.
// It is the pipeline's index file when the pipeline has rendered that version reading the document with the same
// base IRI: mapped once, shared by every query, pinned while one runs. Otherwise (no tree, a version not rendered
// yet, or rendered under another base) it is built in memory from content on first use and kept: a version's
// content never changes, so its id and base are the key, and nothing is ever invalidated, only evicted.
func (s *Server) versionIndex(ctx context.Context, p model.Publication, content func() ([]byte, error)) (*index.Dataset, func(), error) {
	base, err := s.documentBase(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	if dir, ok := s.renderedIndex(ctx, p, base); ok {
		// Acquire checks the folder still renders that version once the file is open.
		ds, release, err := s.cfg.Indexes.Acquire(dir, p.Version.ID, base)
		if err == nil {
			return ds, release, nil
		}
		// Removed or rendered again since its page was read (a re-render, a move): build it instead.
		s.log.Debug("sparql: rendered index unavailable", "dir", dir, "err", err)
	}
	key := p.ID + "\x00" + p.Version.ID + "\x00" + base
	for {
		if ds, ok := s.built.Get(key); ok {
			return ds, func() {}, nil
		}
		b, mine := s.builds.start(key)
		if !mine {
			select {
			case <-b.done:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			if b.err != nil && ctx.Err() == nil && !errors.Is(b.err, context.Canceled) && !errors.Is(b.err, context.DeadlineExceeded) {
				return nil, nil, b.err // the version's content is at fault, not the request that read it
			}
			continue // kept now, or its builder's request gave up: look again
		}
		ds, err := s.buildOnce(ctx, p, content)
		if err == nil {
			ds, _ = s.built.LoadOrAdd(key, ds)
		}
		s.builds.finish(key, b, err)
		if err != nil {
			return nil, nil, err
		}
		return ds, func() {}, nil
	}
}

// buildOnce builds p's index from content once one of the server's build slots is free.
func (s *Server) buildOnce(ctx context.Context, p model.Publication, content func() ([]byte, error)) (*index.Dataset, error) {
	select {
	case s.builds.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.builds.slots }()
	s.builds.count.Add(1)
	if s.builds.hook != nil {
		s.builds.hook()
	}
	data, err := content()
	if err != nil {
		return nil, err
	}
	return s.buildIndex(ctx, p, data, true)
}

// maxIndexBuilds is how many versions' indexes are built in memory at once (two cores are enough for two).
const maxIndexBuilds = 2

// indexBuilds bounds the in-memory index builds of versions the tree does not hold. Each holds the version's
// content and a builder several times its size, so requests for one version wait for its one build (eight
// concurrent queries of a 1 M-triple version built it eight times at once: 1.8 GB), and builds of different
// versions take turns in a few slots, so that anonymous queries of many old versions cannot add up either.
type indexBuilds struct {
	slots   chan struct{}
	mu      sync.Mutex
	running map[string]*indexBuild
	count   atomic.Int64 // builds started, for tests
	hook    func()       // tests: called in a build slot before the build
}

// indexBuild is one running build; done is closed when err is set and the index, if any, is in the cache.
type indexBuild struct {
	done chan struct{}
	err  error
}

func newIndexBuilds(slots int) *indexBuilds {
	return &indexBuilds{slots: make(chan struct{}, max(slots, 1)), running: map[string]*indexBuild{}}
}

// start returns key's running build, and whether the caller is to run it (none was running).
func (b *indexBuilds) start(key string) (*indexBuild, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.running[key]; r != nil {
		return r, false
	}
	r := &indexBuild{done: make(chan struct{})}
	b.running[key] = r
	return r, true
}

func (b *indexBuilds) finish(key string, r *indexBuild, err error) {
	b.mu.Lock()
	delete(b.running, key)
	b.mu.Unlock()
	r.err = err
	close(r.done)
}

// renderedIndex is the folder of p's version in the pipeline's tree, when the tree holds that version (its page
// names the same version id) rendered from the document read with base.
func (s *Server) renderedIndex(ctx context.Context, p model.Publication, base string) (string, bool) {
	if s.cfg.Tree == "" {
		return "", false
	}
	urlPath, err := s.uriPath(ctx, p)
	if err != nil {
		return "", false
	}
	name, err := tree.VersionDirName(p.Version.Label)
	if err != nil {
		return "", false
	}
	for _, private := range []bool{false, true} {
		dir := filepath.Join(tree.PubDir(tree.Root(s.cfg.Tree, private), urlPath), tree.Versions, name)
		if page, err := tree.ReadPage(dir); err == nil && page.Version.ID == p.Version.ID && page.Base == base {
			return dir, true
		}
	}
	return "", false
}

// addGraph adds a publication's statements: its default graph into graph (nil: the default graph), and its
// named graphs only when keepNamed (the endpoint's own publication).
func (s *Server) addGraph(ctx context.Context, b *index.Builder, p model.Publication, data []byte, graph *rdf.Term, keepNamed bool) error {
	dec, _, err := s.decode(ctx, p, data)
	if err != nil {
		return err
	}
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !q.G.IsZero() && !keepNamed {
			continue
		}
		if graph != nil {
			q.G = *graph
		}
		if err := b.Add(q); err != nil {
			return err
		}
	}
}

// graphRef finds the publication version a protocol parameter names: a publication or version id, or its URI
// or direct URL (`{base}/<group path>/<repository>/<publication>[/versions/<label>]`).
func (s *Server) graphRef(ctx context.Context, a model.Actor, ref string) (model.Publication, []byte, error) {
	return s.findGraph(ctx, a, ref, s.cfg.Store.PublicationContent)
}

// graphPub is graphRef without the content, for the external store's path: the store holds the data, and reading
// a large publication's content only to name its graph would cost as much as the query.
func (s *Server) graphPub(ctx context.Context, a model.Actor, ref string) (model.Publication, error) {
	p, _, err := s.findGraph(ctx, a, ref, s.metadataOnly)
	return p, err
}

func (s *Server) metadataOnly(ctx context.Context, a model.Actor, id, version string) (model.Publication, []byte, error) {
	p, err := s.cfg.Store.Publication(ctx, a, id, version)
	return p, nil, err
}

// publicationLoader is PublicationContent or metadataOnly.
type publicationLoader func(ctx context.Context, a model.Actor, id, version string) (model.Publication, []byte, error)

func (s *Server) findGraph(ctx context.Context, a model.Actor, ref string, load publicationLoader) (model.Publication, []byte, error) {
	notFound := apierr.New(http.StatusNotFound, "no publication "+ref)
	p, ok := strings.CutPrefix(ref, s.cfg.BaseURL)
	if !ok || !strings.HasPrefix(p, "/") {
		if strings.Contains(ref, ":") {
			return model.Publication{}, nil, notFound
		}
		pub, data, err := s.resolveVersion(ctx, a, ref, load)
		if errors.Is(err, model.ErrNotFound) {
			return pub, data, notFound
		}
		return pub, data, err
	}
	version := ""
	if i := strings.Index(p, "/versions/"); i >= 0 {
		p, version = p[:i], p[i+len("/versions/"):]
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for k := len(segs) - 1; k >= 2; k-- {
		repoID, isRepo, err := s.cfg.Store.Resolve(ctx, a, "/"+strings.Join(segs[:k], "/"))
		if err != nil || !isRepo {
			continue
		}
		pub, err := s.cfg.Store.FindPublication(ctx, a, repoID, strings.Join(segs[k:], "/"))
		if err != nil {
			break
		}
		return load(ctx, a, pub.ID, version)
	}
	return model.Publication{}, nil, notFound
}
