// Package storeload keeps an external SPARQL store (sparqlsvc/remote) in step with the rendered tree: every
// published version of a publication that goes to the store is one named graph there, named after the version's
// URI, loaded from the version's N-Triples dump; versions that are no longer published (retracted, their
// publication or repository deleted, their NONE-mode predecessor replaced) are dropped.
//
// The store's content is derived data like every other artefact. What is loaded is recorded in the store itself,
// in the graph <urn:ldhub:store-loads>: a version is marked "loading" before its graph is replaced and "loaded"
// after, so a crash at any point leaves a mark that the next Sync acts on (reload when still wanted, drop when
// not), and an emptied store has no marks and is loaded again whole. Loading a graph is a Graph Store PUT, which
// replaces it: a version reloaded after a crash is in the store once, never twice.
package storeload

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
)

// LoadsGraph is the store graph that records what ldhub loaded.
const LoadsGraph = "urn:ldhub:store-loads"

const (
	markLoading = "urn:ldhub:loading"
	markLoaded  = "urn:ldhub:loaded"
)

// Options configure a Loader.
type Options struct {
	Store *remote.Store
	// Out is the rendered tree the pipeline writes (its state/ says which publications exist).
	Out string
	// BaseURL is the hub's public URL; a version's graph is BaseURL + its URL path.
	BaseURL string
	// Threshold sends a publication to the store when its latest version has more than Threshold triples; 0 sends
	// every publication.
	Threshold int
	// Include and Exclude are URL paths of repositories or publications (/group/repo, /group/repo/pub) that go to
	// the store, or stay on the built-in engine, whatever their size; the longest match wins.
	Include, Exclude []string
	// ReadOnly is for a read replica (ldhub serve --follow): the primary fills the store, and this loader only
	// reads its marks, answering from a graph when the mark says the version this replica renders is loaded. It
	// never writes to the store (it needs no credentials), and Threshold, Include and Exclude are the primary's.
	ReadOnly bool
	// Load tunes how a version is sent (chunk size, requests in flight).
	Load remote.LoadOptions
	Log  *slog.Logger
}

// Loader syncs the store. Its methods may be called concurrently.
type Loader struct {
	o      Options
	syncMu sync.Mutex // one Sync at a time
	mu     sync.RWMutex
	loaded map[string]string // store graph → version id, loaded and still wanted
}

// New returns a loader.
func New(o Options) *Loader {
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Loader{o: o, loaded: map[string]string{}}
}

// Store is the store the loader fills.
func (l *Loader) Store() *remote.Store { return l.o.Store }

// Graph is the store graph of a version: its URI.
func (l *Loader) Graph(versionPath string) string { return l.o.BaseURL + versionPath }

// Loaded reports whether the graph holds the version (by id) in the store now. A query whose graphs are not all
// loaded runs on the built-in engine, so a publication answers the same while it is being loaded.
func (l *Loader) Loaded(graph, versionID string) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	v, ok := l.loaded[graph]
	return ok && v == versionID
}

// wanted is one version the store should hold.
type wanted struct {
	version string // id
	dump    string // its N-Triples file
	size    int64
	triples int
}

// Result says what a Sync did.
type Result struct {
	Loaded, Dropped []string // store graphs
	Kept            int
}

// Sync loads what is published and not yet in the store, and drops what is in the store and no longer published.
// With reload, every version is loaded again.
func (l *Loader) Sync(ctx context.Context, reload bool) (Result, error) {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	want, err := l.wanted()
	if err != nil {
		return Result{}, err
	}
	marks, err := l.marks(ctx)
	if err != nil {
		return Result{}, err
	}
	if l.o.ReadOnly {
		return l.follow(want, marks), nil
	}
	var res Result
	// Drop first: the graph, then its mark, so a crash in between leaves a mark the next Sync drops again.
	for _, g := range sortedKeys(marks) {
		m := marks[g]
		if w, ok := want[g]; ok && w.version == m.version && m.state == markLoaded && !reload {
			continue
		}
		l.forget(g)
		if _, ok := want[g]; ok {
			continue // reloaded below; PUT replaces the graph
		}
		if err := l.o.Store.Update(ctx, fmt.Sprintf("DROP SILENT GRAPH %s ;\nDELETE WHERE { GRAPH %s { %s ?state ?v } }",
			iri(g), iri(LoadsGraph), iri(g))); err != nil {
			return res, err
		}
		res.Dropped = append(res.Dropped, g)
	}
	for _, g := range sortedKeys(want) {
		w := want[g]
		if m, ok := marks[g]; ok && m.version == w.version && m.state == markLoaded && !reload {
			l.remember(g, w.version)
			res.Kept++
			continue
		}
		if err := l.load(ctx, g, w); err != nil {
			return res, fmt.Errorf("storeload: loading %s: %w", g, err)
		}
		l.remember(g, w.version)
		res.Loaded = append(res.Loaded, g)
		l.o.Log.Info("sparql store: loaded", "graph", g, "triples", w.triples)
	}
	// Whatever was remembered and is no longer wanted is not answered from the store any more.
	l.mu.Lock()
	for g := range l.loaded {
		if _, ok := want[g]; !ok {
			delete(l.loaded, g)
		}
	}
	l.mu.Unlock()
	return res, nil
}

// follow is Sync on a replica: remember what the marks say is loaded, write nothing.
func (l *Loader) follow(want map[string]wanted, marks map[string]mark) Result {
	var res Result
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.loaded)
	for g, w := range want {
		if m, ok := marks[g]; ok && m.version == w.version && m.state == markLoaded {
			l.loaded[g] = w.version
			res.Kept++
		}
	}
	return res
}

func (l *Loader) load(ctx context.Context, g string, w wanted) error {
	mark := func(state string) string {
		return fmt.Sprintf("DELETE WHERE { GRAPH %s { %s ?state ?v } } ;\nINSERT DATA { GRAPH %s { %s %s %s } }",
			iri(LoadsGraph), iri(g), iri(LoadsGraph), iri(g), iri(state), literal(w.version))
	}
	if err := l.o.Store.Update(ctx, mark(markLoading)); err != nil {
		return err
	}
	if err := l.o.Store.LoadGraph(ctx, g, w.dump, l.o.Load); err != nil {
		return err
	}
	return l.o.Store.Update(ctx, mark(markLoaded))
}

func (l *Loader) remember(g, version string) {
	l.mu.Lock()
	l.loaded[g] = version
	l.mu.Unlock()
}

func (l *Loader) forget(g string) {
	l.mu.Lock()
	delete(l.loaded, g)
	l.mu.Unlock()
}

type mark struct{ state, version string }

func (l *Loader) marks(ctx context.Context) (map[string]mark, error) {
	rows, err := l.o.Store.Select(ctx, fmt.Sprintf("SELECT ?g ?state ?v WHERE { GRAPH %s { ?g ?state ?v } }", iri(LoadsGraph)), "g", "state", "v")
	if err != nil {
		return nil, err
	}
	out := map[string]mark{}
	for _, r := range rows {
		g := r["g"].Value
		m := mark{state: r["state"].Value, version: r["v"].Value}
		if old, ok := out[g]; ok && old.state == markLoading {
			continue // a loading mark beside a loaded one (a crash between the two updates): not loaded
		}
		out[g] = m
	}
	return out, nil
}

// repoState is the part of the pipeline's state file (state/<repository>.json) the loader reads.
type repoState struct {
	Publications map[string]struct {
		Path    string `json:"path"`
		Private bool   `json:"private"`
	} `json:"publications"`
}

// wanted lists, from the rendered tree, every version the store should hold.
func (l *Loader) wanted() (map[string]wanted, error) {
	states, err := filepath.Glob(filepath.Join(l.o.Out, "state", "*.json"))
	if err != nil {
		return nil, err
	}
	out := map[string]wanted{}
	for _, s := range states {
		b, err := os.ReadFile(s)
		if err != nil {
			continue // removed since the listing
		}
		var st repoState
		if json.Unmarshal(b, &st) != nil {
			continue
		}
		for _, p := range st.Publications {
			pubDir := tree.PubDir(tree.Root(l.o.Out, p.Private), p.Path)
			cur, err := readPage(filepath.Join(pubDir, tree.Current))
			if err != nil || !l.o.ReadOnly && !l.sends(p.Path, cur.Stats.Triples) {
				continue
			}
			for _, v := range cur.Versions {
				dir := filepath.Join(pubDir, tree.Versions, filepath.Base(v.URL))
				page, err := readPage(dir)
				if err != nil || page.Version.ID != v.ID {
					continue
				}
				dump := filepath.Join(dir, tree.DataBase+".nt")
				fi, err := os.Stat(dump)
				if err != nil {
					continue // a dataset with named graphs (no .nt dump) stays on the built-in engine
				}
				out[l.Graph(v.URL)] = wanted{version: v.ID, dump: dump, size: fi.Size(), triples: page.Stats.Triples}
			}
		}
	}
	return out, nil
}

// sends decides whether a publication goes to the store.
func (l *Loader) sends(path string, triples int) bool {
	best, in := -1, false
	for _, list := range []struct {
		paths []string
		in    bool
	}{{l.o.Include, true}, {l.o.Exclude, false}} {
		for _, p := range list.paths {
			p = strings.TrimRight(p, "/")
			if (path == p || strings.HasPrefix(path, p+"/")) && len(p) > best {
				best, in = len(p), list.in
			}
		}
	}
	if best >= 0 {
		return in
	}
	return triples > l.o.Threshold || l.o.Threshold == 0
}

func readPage(dir string) (tree.Page, error) {
	var p tree.Page
	b, err := os.ReadFile(filepath.Join(dir, tree.PageJSON))
	if err != nil {
		return p, err
	}
	return p, json.Unmarshal(b, &p)
}

// Run syncs every interval until ctx ends: after the pipeline renders, and after the store lost what it held.
func (l *Loader) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		res, err := l.Sync(ctx, false)
		if err != nil && ctx.Err() == nil {
			l.o.Log.Warn("sparql store: sync", "err", err)
		} else if len(res.Loaded)+len(res.Dropped) > 0 {
			l.o.Log.Info("sparql store: synced", "loaded", len(res.Loaded), "dropped", len(res.Dropped), "kept", res.Kept)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func iri(s string) string {
	var b strings.Builder
	rdf.AppendNTriples(&b, rdf.IRI(s))
	return b.String()
}

func literal(s string) string {
	var b strings.Builder
	rdf.AppendNTriples(&b, rdf.String(s))
	return b.String()
}
