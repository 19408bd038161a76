// Command sparqlstore-bench compares, in one run on the same data and queries, ldhub's built-in engine, ldhub over
// an external Virtuoso (sparqlsvc/remote: the query rewritten for its dataset, the answer streamed back through
// ldhub's reader) and Virtuoso queried directly over HTTP with the same query and the graph as default-graph-uri.
// It starts its own Virtuoso (sparqlsvc/remote/virtuosotest) in a temporary folder, loads the data through the
// Graph Store protocol as the pipeline does (remote.LoadGraph), and prints a markdown table and JSON.
// `make bench-sparql-store`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
	"github.com/ldhub/ldhub/sparqlsvc/remote/virtuosotest"
)

const graph = "http://bench.ldhub.test/bsbm/versions/1"

type row struct {
	Query                     string
	Builtin, Store, Direct    float64 // median ms
	NBuiltin, NStore, NDirect int     // answers
	Err                       string
}

func main() {
	data := flag.String("data", "", "N-Triples file")
	queries := flag.String("queries", "", "folder of .rq files")
	runs := flag.Int("runs", 5, "counted runs per query and engine")
	buffers := flag.Int("buffers", 150000, "Virtuoso NumberOfBuffers (8 KiB pages)")
	flag.Parse()
	if err := run(*data, *queries, *runs, *buffers); err != nil {
		fmt.Fprintln(os.Stderr, "sparqlstore-bench:", err)
		os.Exit(1)
	}
}

func run(data, qdir string, runs, buffers int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "ldhub-bench-virtuoso-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	v, err := virtuosotest.Start(ctx, dir, virtuosotest.Options{Buffers: buffers})
	if err != nil {
		return err
	}
	defer v.Stop()
	st, err := remote.New(remote.Config{QueryURL: v.QueryURL, User: v.User, Password: v.Password})
	if err != nil {
		return err
	}
	start := time.Now()
	if err := st.LoadGraph(ctx, graph, data, remote.LoadOptions{}); err != nil {
		return err
	}
	load := time.Since(start)
	f, err := os.Open(data)
	if err != nil {
		return err
	}
	start = time.Now()
	d, err := index.BuildFrom(ctx, ntriples.NewDecoder(f, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")}))
	f.Close()
	if err != nil {
		return err
	}
	build := time.Since(start)
	triples := d.Default.Len()
	fmt.Printf("%d triples: Virtuoso load (Graph Store PUT and POSTs, as ldhub loads) %.1f s (%.0f triples/s); ldhub index build %.1f s\n\n",
		triples, load.Seconds(), float64(triples)/load.Seconds(), build.Seconds())
	builtin := eval.FromIndex(d)
	files, err := filepath.Glob(filepath.Join(qdir, "*.rq"))
	if err != nil {
		return err
	}
	slices.Sort(files)
	var rows []row
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		r := row{Query: strings.TrimSuffix(filepath.Base(file), ".rq")}
		r.Builtin, r.NBuiltin, err = timeIt(runs, func() (int, error) {
			q, err := parser.Parse(string(src), parser.Options{})
			if err != nil {
				return 0, err
			}
			c := &counter{}
			err = builtin.Stream(ctx, q, eval.Options{}, c)
			return c.n, err
		})
		if err != nil {
			r.Err = "built-in: " + err.Error()
		}
		r.Store, r.NStore, err = timeIt(runs, func() (int, error) {
			q, err := parser.Parse(string(src), parser.Options{})
			if err != nil {
				return 0, err
			}
			c := &counter{}
			err = (&remote.Query{Store: st, Dataset: remote.Dataset{Default: []string{graph}}}).Stream(ctx, q, eval.Options{}, c)
			return c.n, err
		})
		if err != nil {
			r.Err += " store: " + err.Error()
		}
		r.Direct, r.NDirect, err = timeIt(runs, func() (int, error) { return direct(ctx, v.QueryURL, string(src)) })
		if err != nil {
			r.Err += " direct: " + err.Error()
		}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "%s: built-in %.1f ms, ldhub+Virtuoso %.1f ms, Virtuoso %.1f ms\n", r.Query, r.Builtin, r.Store, r.Direct)
	}
	fmt.Println("| query | ldhub built-in (ms) | ldhub + Virtuoso (ms) | Virtuoso direct (ms) | answers (built-in / via ldhub / direct) |")
	fmt.Println("|---|---:|---:|---:|---|")
	for _, r := range rows {
		note := ""
		if r.Err != "" {
			note = " — " + strings.Join(strings.Fields(r.Err), " ")
			if len(note) > 140 {
				note = note[:140] + "…"
			}
		}
		fmt.Printf("| %s | %.1f | %.1f | %.1f | %d / %d / %d%s |\n", r.Query, r.Builtin, r.Store, r.Direct, r.NBuiltin, r.NStore, r.NDirect, note)
	}
	fmt.Printf("| geometric mean | %.1f | %.1f | %.1f | |\n", geo(rows, func(r row) float64 { return r.Builtin }),
		geo(rows, func(r row) float64 { return r.Store }), geo(rows, func(r row) float64 { return r.Direct }))
	return json.NewEncoder(os.Stderr).Encode(map[string]any{"triples": triples, "load_s": load.Seconds(), "build_s": build.Seconds(), "rows": rows})
}

// timeIt runs f once to warm up and runs times more; it returns the median in ms and the answer count.
func timeIt(runs int, f func() (int, error)) (float64, int, error) {
	n, err := f()
	if err != nil {
		return 0, n, err
	}
	var ms []float64
	for range runs {
		start := time.Now()
		if n, err = f(); err != nil {
			return 0, n, err
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	sort.Float64s(ms)
	return ms[len(ms)/2], n, nil
}

// direct sends the query as written to Virtuoso with the graph as default-graph-uri and reads the whole answer.
func direct(ctx context.Context, endpoint, query string) (int, error) {
	form := url.Values{"query": {query}, "default-graph-uri": {graph}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/sparql-results+json, application/n-triples;q=0.9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %.200s", resp.Status, b)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/n-triples") {
		return strings.Count(string(b), "\n"), nil
	}
	var doc struct {
		Boolean *bool
		Results struct{ Bindings []json.RawMessage }
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return 0, err
	}
	if doc.Boolean != nil {
		return 1, nil
	}
	return len(doc.Results.Bindings), nil
}

type counter struct{ n int }

func (c *counter) Begin([]string) error  { return nil }
func (c *counter) Row([]rdf.Term) error  { c.n++; return nil }
func (c *counter) Boolean(bool) error    { c.n = 1; return nil }
func (c *counter) Triple(rdf.Quad) error { c.n++; return nil }
func geo(rows []row, f func(row) float64) float64 {
	var sum float64
	var n int
	for _, r := range rows {
		if v := f(r); v > 0 {
			sum += math.Log(v)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(sum / float64(n))
}
