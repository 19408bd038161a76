package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/turtle"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
	"github.com/ldhub/ldhub/sparqlsvc/remote/virtuosotest"
	"github.com/ldhub/ldhub/sparqlsvc/results"
)

// virtuosoGraph is the graph the data is loaded into and queried as the default graph (default-graph-uri), as a
// Virtuoso user queries one dataset among the others a server holds.
const virtuosoGraph = "http://bench.ldhub.test/bsbm"

// runVirtuoso starts a private Virtuoso 7 (sparqlsvc/remote/virtuosotest) with its database in db, bulk-loads data
// with ld_dir/rdf_loader_run (timed, with the server's CPU time and peak memory), then sends every query to its
// SPARQL endpoint over HTTP as a client would, and prints the same JSON and dumps as the query phase and the
// other anchors. CPU time per query is the server process's. A query is not repeated once its runs add up to
// budget. Each run asks Virtuoso to stop after timeout (the endpoint's timeout parameter, its "anytime query"):
// a run that reaches it answers only part of the solutions, so the query is reported as timed out, with no time,
// and not run again. Virtuoso stops the work itself, so the next query is not measured beside it. With reuse, a
// database db already holds (a previous run's load of the same data) is reopened and not loaded again: the load
// takes minutes of both cores at 10 M triples, and a second look at a few queries needs none of it.
func runVirtuoso(data, db string, reuse bool, dir string, runs, warmup int, dump, only string, buffers int, budget, timeout time.Duration) error {
	ctx := context.Background()
	_, statErr := os.Stat(filepath.Join(db, "virtuoso.db"))
	reuse = reuse && statErr == nil
	if !reuse {
		if err := os.RemoveAll(db); err != nil {
			return err
		}
	}
	abs, err := filepath.Abs(data)
	if err != nil {
		return err
	}
	v, err := virtuosotest.Start(ctx, db, virtuosotest.Options{Buffers: buffers, DirsAllowed: []string{filepath.Dir(abs)}})
	if err != nil {
		return err
	}
	defer v.Stop()
	pid := v.Pid()
	c0, t0 := procCPU(pid), time.Now()
	if !reuse {
		if err := v.BulkLoad(ctx, abs, virtuosoGraph); err != nil {
			return err
		}
	}
	load, loadCPU := time.Since(t0), procCPU(pid)-c0
	loadPeak, afterLoad := procMiB(pid, "VmHWM"), procMiB(pid, "VmRSS")
	n, err := virtuosoCount(ctx, v.QueryURL)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "Virtuoso bulk load: %d triples in %.1f s (server CPU %.1f s, peak RSS %d MiB)\n",
		n, load.Seconds(), loadCPU.Seconds(), loadPeak)
	var out []queryResult
	client := &http.Client{}
	err = eachQuery(dir, only, func(name string, src []byte) {
		accept := "application/sparql-results+json"
		if q, err := parser.Parse(string(src), parser.Options{}); err == nil && (q.Form == algebra.Construct || q.Form == algebra.Describe) {
			accept = "application/n-triples, text/turtle;q=0.5" // Virtuoso would answer graphs in JSON too
		}
		qr := timeQuery(name, warmup, runs, budget, func() time.Duration { return procCPU(pid) }, dump,
			func() (*eval.Result, error) {
				return virtuosoQuery(ctx, client, v.QueryURL, string(src), accept, timeout)
			})
		out = append(out, qr)
		fmt.Fprintf(os.Stderr, "virtuoso %-32s %7d results  median %.3f ms  %s\n", name, qr.Results, qr.MedianMS, qr.Error)
	})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"data": map[string]any{
			"triples": n, "load_ms": ms(load), "load_cpu_ms": ms(loadCPU), "load_peak_rss_mib": loadPeak,
			"rss_mib_after_load": afterLoad, "buffers": buffers, "cpu_resolution_ms": 10,
		},
		"rss_mib": procMiB(pid, "VmRSS"), "peak_rss_mib": procMiB(pid, "VmHWM"), "queries": out,
	})
}

// virtuosoQuery sends one query as an HTML form POST with the graph as default-graph-uri, asking for accept (SPARQL
// JSON results, or N-Triples for a graph), and reads the whole answer.
func virtuosoQuery(ctx context.Context, client *http.Client, endpoint, query, accept string, timeout time.Duration) (*eval.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second) // Virtuoso's own timeout comes first
	defer cancel()
	form := url.Values{"query": {query}, "default-graph-uri": {virtuosoGraph},
		"timeout": {strconv.FormatInt(timeout.Milliseconds(), 10)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", accept)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// An anytime query that ran out of time answers with what it found: 206, or as Debian's 7.2 does here, 500
	// with a partial result in the body; either way it took the whole timeout.
	if resp.StatusCode != http.StatusOK && (resp.StatusCode == http.StatusPartialContent ||
		resp.Header.Get("X-SQL-State") == "S1TAT" || time.Since(start) >= timeout) {
		return nil, fmt.Errorf("timed out after %s (Virtuoso's anytime-query timeout)", timeout)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return nil, fmt.Errorf("%s: %s", resp.Status, strings.Join(strings.Fields(string(b)), " "))
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var dec rdf.Decoder
	switch mt {
	case "application/sparql-results+json", "application/json":
		r, err := results.Read(resp.Body, results.JSON)
		if err != nil {
			return nil, err
		}
		if r.Boolean != nil {
			return &eval.Result{Form: algebra.Ask, Boolean: *r.Boolean}, nil
		}
		return &eval.Result{Form: algebra.Select, Vars: r.Vars, Rows: r.Rows}, nil
	case "application/n-triples", "text/plain":
		dec = ntriples.NewDecoder(resp.Body, rdf.DecodeOptions{})
	case "text/turtle":
		dec = turtle.NewDecoder(resp.Body, rdf.DecodeOptions{})
	default:
		return nil, fmt.Errorf("unexpected answer type %q", mt)
	}
	res := &eval.Result{Form: algebra.Construct}
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		res.Triples = append(res.Triples, q)
	}
}

func virtuosoCount(ctx context.Context, endpoint string) (int, error) {
	res, err := virtuosoQuery(ctx, http.DefaultClient, endpoint, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
		"application/sparql-results+json", 10*time.Minute)
	if err != nil {
		return 0, err
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return 0, fmt.Errorf("virtuoso: no count in %v", res.Rows)
	}
	return strconv.Atoi(res.Rows[0][0].Value)
}

// procCPU is a process's user+sys CPU time (from /proc/PID/stat, in the kernel's 100 Hz clock ticks).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}
