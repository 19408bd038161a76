package remote_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/remote"
)

// TestLoadGraphInChunks loads a file larger than one chunk, with blank nodes spread through it, and checks that the
// graph holds every triple once and each blank node once (one node shared by lines far apart in the file), and that
// loading again replaces the graph instead of adding to it.
func TestLoadGraphInChunks(t *testing.T) {
	v := virtuoso.Get(t)
	ctx := context.Background()
	st, err := remote.New(remote.Config{QueryURL: v.QueryURL, User: v.User, Password: v.Password})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	const n = 3000
	for i := range n {
		fmt.Fprintf(&b, "<http://example.org/s%d> <http://example.org/p> \"value %d\" .\n", i, i)
		if i%500 == 0 {
			fmt.Fprintf(&b, "_:shared <http://example.org/seen> <http://example.org/s%d> .\n", i)
		}
	}
	fmt.Fprintf(&b, "_:other <http://example.org/seen> _:shared .\n")
	file := filepath.Join(t.TempDir(), "data.nt")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	graph := "urn:ldhub-test:chunks"
	for range 2 {
		if err := st.LoadGraph(ctx, graph, file, remote.LoadOptions{ChunkBytes: 16 << 10, Parallel: 2}); err != nil {
			t.Fatal(err)
		}
		if got := count(t, st, graph); got != n+n/500+1 {
			t.Fatalf("%d triples in the graph, want %d", got, n+n/500+1)
		}
		rows, err := st.Select(ctx, "SELECT (COUNT(DISTINCT ?b) AS ?n) WHERE { GRAPH <"+graph+"> { ?b <http://example.org/seen> ?x } }", "n")
		if err != nil {
			t.Fatal(err)
		}
		if rows[0]["n"].Value != "2" {
			t.Errorf("%s distinct blank nodes, want 2 (one split by the chunks would count more)", rows[0]["n"].Value)
		}
	}
}

func count(t *testing.T, st *remote.Store, graph string) int {
	t.Helper()
	rows, err := st.Select(context.Background(), "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <"+graph+"> { ?s ?p ?o } }", "n")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscan(rows[0]["n"].Value, &n)
	return n
}
