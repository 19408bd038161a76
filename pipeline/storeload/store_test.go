package storeload

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
	"github.com/ldhub/ldhub/sparqlsvc/remote/virtuosotest"
)

var virtuoso virtuosotest.Shared

func TestMain(m *testing.M) { os.Exit(virtuoso.Run(m)) }

// renderVersion writes the part of a rendered tree the loader reads: the repository's state file, the
// publication's latest page, and one version folder with its page and N-Triples dump.
func renderVersion(t *testing.T, out, pubPath, versionID, nt string) (versionPath string) {
	t.Helper()
	label := "v" + versionID
	versionPath = pubPath + "/versions/" + label
	pubDir := tree.PubDir(tree.Root(out, false), pubPath)
	write := func(path string, v any) {
		t.Helper()
		var b []byte
		if s, ok := v.(string); ok {
			b = []byte(s)
		} else {
			var err error
			if b, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	triples := strings.Count(nt, "\n")
	version := tree.Version{ID: versionID, Label: label, URL: versionPath}
	write(filepath.Join(out, "state", "repo.json"), map[string]any{"publications": map[string]any{"p": map[string]any{"path": pubPath}}})
	write(filepath.Join(pubDir, tree.Current, tree.PageJSON), tree.Page{Version: version, Versions: []tree.Version{version}, Stats: tree.Stats{Triples: triples}})
	dir := filepath.Join(pubDir, tree.Versions, label)
	write(filepath.Join(dir, tree.PageJSON), tree.Page{Version: version, Stats: tree.Stats{Triples: triples}})
	write(filepath.Join(dir, tree.DataBase+".nt"), nt)
	return versionPath
}

func countIn(t *testing.T, st *remote.Store, graph string) int {
	t.Helper()
	rows, err := st.Select(context.Background(), "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <"+graph+"> { ?s ?p ?o } }", "n")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(rows[0]["n"].Value)
	return n
}

// TestReplicaReadsWhatThePrimaryLoaded checks the loader of a read replica (serve --follow): it answers from a
// graph only once the primary's mark says the version it renders is loaded, and it never writes to the store —
// it is given no credentials, and a store that lacks the graph stays without it.
func TestReplicaReadsWhatThePrimaryLoaded(t *testing.T) {
	v := virtuoso.Get(t)
	ctx := context.Background()
	primaryStore, err := remote.New(remote.Config{QueryURL: v.QueryURL, User: v.User, Password: v.Password})
	if err != nil {
		t.Fatal(err)
	}
	replicaStore, err := remote.New(remote.Config{QueryURL: v.QueryURL})
	if err != nil {
		t.Fatal(err)
	}
	base := "http://replica.ldhub.test"
	primaryOut, replicaOut := t.TempDir(), t.TempDir()
	nt := "<http://example.org/a> <http://example.org/p> \"1\" .\n<http://example.org/b> <http://example.org/p> \"2\" .\n"
	path := renderVersion(t, primaryOut, "/g/repo/pub", "1", nt)
	renderVersion(t, replicaOut, "/g/repo/pub", "1", nt)
	graph := base + path
	primary := New(Options{Store: primaryStore, Out: primaryOut, BaseURL: base})
	replica := New(Options{Store: replicaStore, Out: replicaOut, BaseURL: base, ReadOnly: true})

	if _, err := replica.Sync(ctx, false); err != nil {
		t.Fatalf("replica sync before the primary loaded: %v", err)
	}
	if replica.Loaded(graph, "1") || countIn(t, primaryStore, graph) != 0 {
		t.Fatal("the replica claims or wrote a graph the primary has not loaded")
	}
	if res, err := primary.Sync(ctx, false); err != nil || len(res.Loaded) != 1 {
		t.Fatalf("primary sync: %+v %v", res, err)
	}
	if res, err := replica.Sync(ctx, true); err != nil || res.Kept != 1 || !replica.Loaded(graph, "1") {
		t.Fatalf("replica sync after the primary loaded: %+v %v, loaded %t", res, err, replica.Loaded(graph, "1"))
	}
	// The replica renders a newer version the primary has not loaded yet: it answers on the built-in engine, and
	// the store keeps the primary's version untouched.
	renderVersion(t, replicaOut, "/g/repo/pub", "2", nt+"<http://example.org/c> <http://example.org/p> \"3\" .\n")
	if _, err := replica.Sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if replica.Loaded(graph, "1") || replica.Loaded(base+"/g/repo/pub/versions/v2", "2") {
		t.Error("the replica answers from a graph that does not hold the version it renders")
	}
	if n := countIn(t, primaryStore, graph); n != 2 {
		t.Errorf("the primary's graph holds %d triples after the replica's syncs, want 2", n)
	}
}
