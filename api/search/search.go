// Package search is the full-text index behind the `searchText` listing parameter (decisions.md "Listing"): groups
// and repositories by name, description and path, case-insensitive, every query word matching as a word prefix
// (`voc` finds `Vocabulary`). The index is derived data: it lives in its own folder, is rebuilt from the store when
// missing or unreadable, follows the store's change events, and is brought up to date before a query whenever the
// catalogue moved since it was last indexed, so a listing never lags behind a write the caller just made.
package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/catalog"
)

// Kind of an indexed thing.
const (
	Group      = "group"
	Repository = "repository"
)

const analyzerName = "ldhub-words"

// Catalogue is the part of the store the index reads; *store.Store is one.
type Catalogue interface {
	Catalog(ctx context.Context) (*catalog.State, error)
	Subscribe(ctx context.Context) <-chan store.ChangeEvent
}

// Index is the search index of one store. It is safe for concurrent use.
type Index struct {
	cat Catalogue
	log *slog.Logger

	mu   sync.Mutex // serialises syncs; bleve itself is safe for concurrent reads
	idx  bleve.Index
	head string
	// docs remembers what was indexed per id, so a sync only rewrites what changed.
	docs map[string]doc
}

type doc struct {
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
}

// Open opens the index in dir ("" keeps it in memory), rebuilding it from the catalogue when it is missing or
// cannot be read.
func Open(ctx context.Context, dir string, cat Catalogue, log *slog.Logger) (*Index, error) {
	if log == nil {
		log = slog.Default()
	}
	x := &Index{cat: cat, log: log, docs: map[string]doc{}}
	var err error
	switch {
	case dir == "":
		x.idx, err = bleve.NewMemOnly(newMapping())
	default:
		x.idx, err = bleve.Open(dir)
		if err != nil {
			if !errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
				log.Warn("search index unreadable; rebuilding", "dir", dir, "err", err)
				if rmErr := os.RemoveAll(dir); rmErr != nil {
					return nil, fmt.Errorf("search: remove broken index: %w", rmErr)
				}
			}
			x.idx, err = bleve.New(dir, newMapping())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("search: open index: %w", err)
	}
	// What an existing index holds is unknown to this process: index everything once (unchanged documents are
	// cheap to rewrite), and drop ids the catalogue no longer has.
	if err := x.sync(ctx, true); err != nil {
		x.idx.Close()
		return nil, err
	}
	return x, nil
}

func newMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		panic(err) // a fixed table of built-in components; cannot fail
	}
	text := bleve.NewTextFieldMapping()
	text.Analyzer = analyzerName
	text.Store = false
	kw := bleve.NewKeywordFieldMapping()
	kw.Store = false
	dm := bleve.NewDocumentMapping()
	dm.AddFieldMappingsAt("kind", kw)
	dm.AddFieldMappingsAt("name", text)
	dm.AddFieldMappingsAt("description", text)
	dm.AddFieldMappingsAt("path", text)
	im.DefaultMapping = dm
	im.DefaultAnalyzer = analyzerName
	return im
}

// Close closes the index.
func (x *Index) Close() error { return x.idx.Close() }

// Follow keeps the index current from the store's change events until ctx ends. Catalogue events (and resyncs)
// trigger a sync; repository content events do not touch names or paths.
func (x *Index) Follow(ctx context.Context) {
	for ev := range x.cat.Subscribe(ctx) {
		if ev.RepositoryID != "" && !ev.Resync {
			continue
		}
		if err := x.sync(ctx, false); err != nil && ctx.Err() == nil {
			x.log.Warn("search index sync failed", "err", err)
		}
	}
}

// sync indexes the catalogue as of its current head.
func (x *Index) sync(ctx context.Context, full bool) error {
	st, err := x.cat.Catalog(ctx)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !full && st.Head.String() == x.head {
		return nil
	}
	want := make(map[string]doc, len(st.Groups)+len(st.Repos))
	for id, g := range st.Groups {
		want[id] = doc{Group, g.Name, g.Description, st.Path(id)}
	}
	for id, r := range st.Repos {
		want[id] = doc{Repository, r.Name, r.Description, st.Path(id)}
	}
	b := x.idx.NewBatch()
	for id, d := range want {
		if old, ok := x.docs[id]; full || !ok || old != d {
			if err := b.Index(id, d); err != nil {
				return fmt.Errorf("search: index %s: %w", id, err)
			}
		}
	}
	for id := range x.docs {
		if _, ok := want[id]; !ok {
			b.Delete(id)
		}
	}
	if full {
		// Ids left in an index from an earlier run that the catalogue lost.
		ids, err := x.allIDs(ctx)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, ok := want[id]; !ok {
				b.Delete(id)
			}
		}
	}
	if err := x.idx.Batch(b); err != nil {
		return fmt.Errorf("search: write index: %w", err)
	}
	x.docs, x.head = want, st.Head.String()
	return nil
}

func (x *Index) allIDs(ctx context.Context) ([]string, error) {
	return x.ids(ctx, bleve.NewMatchAllQuery())
}

func (x *Index) ids(ctx context.Context, q query.Query) ([]string, error) {
	// bleve sizes its collector by the request size: start small, ask again when there are more hits.
	size := 64
	for {
		req := bleve.NewSearchRequestOptions(q, size, 0, false)
		res, err := x.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if int(res.Total) <= size {
			out := make([]string, len(res.Hits))
			for i, h := range res.Hits {
				out[i] = h.ID
			}
			return out, nil
		}
		size = int(res.Total)
	}
}

// Match returns the ids of the things of a kind whose name, description or path contains a word starting with
// each word of text. Callers filter the result by what the caller may see.
func (x *Index) Match(ctx context.Context, kind, text string) (map[string]bool, error) {
	if err := x.sync(ctx, false); err != nil {
		return nil, err
	}
	an := x.idx.Mapping().AnalyzerNamed(analyzerName)
	if an == nil {
		return nil, errors.New("search: analyzer missing from the index mapping")
	}
	kq := bleve.NewTermQuery(kind)
	kq.SetField("kind")
	all := []query.Query{kq}
	for _, tok := range an.Analyze([]byte(text)) {
		var any []query.Query
		for _, f := range []string{"name", "description", "path"} {
			pq := bleve.NewPrefixQuery(string(tok.Term))
			pq.SetField(f)
			any = append(any, pq)
		}
		all = append(all, bleve.NewDisjunctionQuery(any...))
	}
	ids, err := x.ids(ctx, bleve.NewConjunctionQuery(all...))
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// compile-time check that the store satisfies Catalogue.
var _ Catalogue = (*store.Store)(nil)
