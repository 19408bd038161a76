// Command sparql-bench measures ldhub's SPARQL engine on the BSBM-like data and queries of ../shared/bench, in the
// same shape as ../shared/bench/oxigraph-bench.mjs so the two can be compared row by row:
//
//	sparql-bench -build DATA.nt -index X.idx        parse + index + save; prints triples/s
//	sparql-bench -index X.idx -queries DIR [-runs N] open (mmap) and run each query; prints medians and RSS
//	sparql-bench -virtuoso DATA.nt -db DIR -queries DIR  the Virtuoso 7 anchor: bulk load, queries over HTTP
//
// The phases run as separate processes so the query phase's resident memory is that of an opened publication,
// not of the build. -dump DIR writes each query's rows sorted and rendered like the Oxigraph script does.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

type queryResult struct {
	Query    string    `json:"query"`
	Results  int       `json:"results"`
	MedianMS float64   `json:"median_ms"`
	MinMS    float64   `json:"min_ms"`
	MaxMS    float64   `json:"max_ms"`
	RunsMS   []float64 `json:"runs_ms"`
	CPUMS    float64   `json:"cpu_ms"` // median CPU time (user+sys) of the process per run: on a shared machine wall time measures the neighbours
	Hash     string    `json:"hash"`
	Error    string    `json:"error,omitempty"`
	// WorkerChunks and ChunksRedone count, over all runs, the chunks of split scans whose solutions a worker
	// delivered and those a worker failed and the query's goroutine evaluated again (eval.Cores).
	WorkerChunks int64 `json:"worker_chunks,omitempty"`
	ChunksRedone int64 `json:"chunks_redone,omitempty"`
	// SplitsStarted, SplitsKept and SplitsStopped count, over all runs, the scans that started workers, those
	// timed and kept on one goroutine (their chain too cheap against its consumer), and the runs whose workers
	// stopped part-way because their chunks turned out cheap (eval.Cores.Splits).
	SplitsStarted int64 `json:"splits_started,omitempty"`
	SplitsKept    int64 `json:"splits_kept,omitempty"`
	SplitsStopped int64 `json:"splits_stopped,omitempty"`
	// GCCycles and GCCPUMS are the garbage collections that ended while the query ran (all its runs, warm-up
	// included) and the runtime's estimate of their CPU; HeapLiveMiB is the heap the last collection before the
	// query left live. A query run after others in one process (a server, the full benchmark) meets the heap they
	// left: these tell whether that is where its CPU went.
	GCCycles    uint64  `json:"gc_cycles"`
	GCCPUMS     float64 `json:"gc_cpu_ms"`
	HeapLiveMiB float64 `json:"heap_live_mib"`
}

// gcSamples are the runtime's counters queryResult's GC fields come from.
func gcSamples() []metrics.Sample {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s
}

func main() {
	build := flag.String("build", "", "N-Triples file to index (build phase)")
	idx := flag.String("index", "", "index file")
	queries := flag.String("queries", "", "folder of .rq files (query phase)")
	runs := flag.Int("runs", 5, "counted runs per query")
	warmup := flag.Int("warmup", 1, "uncounted runs per query")
	dump := flag.String("dump", "", "write sorted result rows here")
	only := flag.String("only", "", "run only queries whose file name contains this")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the query phase")
	memprofile := flag.String("memprofile", "", "write a profile of the query phase's allocations (go tool pprof -sample_index=alloc_space)")
	virtuoso := flag.String("virtuoso", "", "N-Triples file to bulk-load into a private Virtuoso and query there")
	db := flag.String("db", "", "Virtuoso's database folder (-virtuoso; emptied first unless -reuse)")
	reuse := flag.Bool("reuse", false, "-virtuoso: reopen the database already loaded in -db instead of emptying and loading it again (load figures then 0)")
	buffers := flag.Int("buffers", 150000, "Virtuoso's NumberOfBuffers (8 KiB pages of cache)")
	budget := flag.Duration("budget", time.Minute, "a query is not repeated once its runs add up to this (-virtuoso)")
	timeout := flag.Duration("timeout", 5*time.Minute, "Virtuoso ends a query after this (its anytime-query timeout) and the query is reported as timed out (-virtuoso)")
	cores := flag.Int("cores", runtime.GOMAXPROCS(0), "core tokens of the query pool, as a server has one per core (eval.Cores); 1: every query on one goroutine")
	flag.Parse()
	var err error
	switch {
	case *virtuoso != "" && *db != "" && *queries != "":
		err = runVirtuoso(*virtuoso, *db, *reuse, *queries, *runs, *warmup, *dump, *only, *buffers, *budget, *timeout)
	case *build != "" && *idx != "":
		if *cpuprofile != "" {
			f, perr := os.Create(*cpuprofile)
			if perr == nil {
				_ = pprof.StartCPUProfile(f)
				defer pprof.StopCPUProfile()
			}
		}
		err = runBuild(*build, *idx) // buildprofile: -cpuprofile also covers the build phase
	case *idx != "" && *queries != "":
		if *cpuprofile != "" {
			f, perr := os.Create(*cpuprofile)
			if perr == nil {
				_ = pprof.StartCPUProfile(f)
				defer pprof.StopCPUProfile()
			}
		}
		if *memprofile != "" {
			// Every allocation sampled: a query's per-run allocations are what its garbage collections cost.
			runtime.MemProfileRate = 4096
		}
		err = runQueries(*idx, *queries, *runs, *warmup, *dump, *only, eval.NewCores(*cores))
		if *memprofile != "" {
			if f, perr := os.Create(*memprofile); perr == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sparql-bench:", err)
		os.Exit(1)
	}
}

func runBuild(data, out string) error {
	f, err := os.Open(data)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	// A fixed blank-node prefix, as the pipeline uses, keeps the index deterministic.
	ds, err := index.BuildFrom(context.Background(), ntriples.NewDecoder(f, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")}))
	if err != nil {
		return err
	}
	built := time.Since(start)
	if err := ds.Save(out); err != nil {
		return err
	}
	total := time.Since(start)
	st, _ := os.Stat(out)
	n := ds.Default.Len()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"triples": n, "build_ms": ms(built), "build_and_save_ms": ms(total),
		"triples_per_s": int(float64(n) / built.Seconds()), "index_mib": st.Size() >> 20,
		"terms": ds.Dict.Len(),
	})
}

func runQueries(idxPath, dir string, runs, warmup int, dump, only string, cores *eval.Cores) error {
	start := time.Now()
	d, err := index.Open(idxPath)
	if err != nil {
		return err
	}
	defer d.Close()
	openTime := time.Since(start)
	ds := eval.FromIndex(d)
	var out []queryResult
	err = eachQuery(dir, only, func(name string, src []byte) {
		chunks, redone := cores.Chunks(), cores.Redone()
		forks, kept, stopped := cores.Splits()
		gc0 := gcSamples()
		qr := timeQuery(name, warmup, runs, 0, conformance.CPUTime, dump, func() (*eval.Result, error) {
			// Parsing is part of answering a query, as it is for Oxigraph's query() call.
			q, err := parser.Parse(string(src), parser.Options{})
			if err != nil {
				return nil, err
			}
			return eval.Run(context.Background(), ds, q, eval.Options{Timeout: 5 * time.Minute, Cores: cores})
		})
		qr.WorkerChunks, qr.ChunksRedone = cores.Chunks()-chunks, cores.Redone()-redone
		f, k, s := cores.Splits()
		qr.SplitsStarted, qr.SplitsKept, qr.SplitsStopped = f-forks, k-kept, s-stopped
		gc1 := gcSamples()
		qr.GCCycles = gc1[0].Value.Uint64() - gc0[0].Value.Uint64()
		qr.GCCPUMS = (gc1[1].Value.Float64() - gc0[1].Value.Float64()) * 1000
		qr.HeapLiveMiB = float64(gc0[2].Value.Uint64()) / (1 << 20)
		out = append(out, qr)
		fmt.Fprintf(os.Stderr, "%-32s %7d results  median %.3f ms\n", name, qr.Results, qr.MedianMS)
	})
	if err != nil {
		return err
	}
	runtime.GC()
	debug.FreeOSMemory()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"open_ms": ms(openTime), "rss_mib": rssMiB("VmRSS"), "peak_rss_mib": rssMiB("VmHWM"), "cores": cores.Size(), "queries": out,
	})
}

// eachQuery calls fn with the name and text of every .rq file of dir, in name order, whose name contains only.
func eachQuery(dir, only string, fn func(name string, src []byte)) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.rq"))
	if err != nil {
		return err
	}
	slices.Sort(files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".rq")
		if only != "" && !strings.Contains(name, only) {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		fn(name, src)
	}
	return nil
}

// timeQuery runs one query warmup+runs times through do and returns its median wall and CPU time (cpu reads the
// clock that counts: this process's, or a server's), answer count and hash, and writes its sorted rows to dump.
// With budget > 0, a query is not repeated once its counted runs add up to budget.
func timeQuery(name string, warmup, runs int, budget time.Duration, cpu func() time.Duration, dump string, do func() (*eval.Result, error)) queryResult {
	qr := queryResult{Query: name}
	var rows []string
	var times, cpus []float64
	var spent time.Duration
	for i := 0; i < warmup+runs; i++ {
		t, c := time.Now(), cpu()
		res, err := do()
		el, used := time.Since(t), cpu()-c
		if err != nil {
			qr.Error = err.Error()
			return qr
		}
		if i >= warmup {
			times = append(times, ms(el))
			cpus = append(cpus, ms(used))
			spent += el
		}
		rows = render(res)
		if budget > 0 && spent > budget {
			break
		}
	}
	sorted := slices.Clone(rows)
	slices.Sort(sorted)
	h := sha256.Sum256([]byte(strings.Join(sorted, "\n")))
	qr.Hash = hex.EncodeToString(h[:])[:16]
	qr.Results = len(rows)
	qr.RunsMS = times
	if len(times) > 0 {
		s := slices.Clone(times)
		slices.Sort(s)
		qr.MinMS, qr.MaxMS = s[0], s[len(s)-1]
		qr.MedianMS, qr.CPUMS = median(times), median(cpus)
	}
	if dump != "" {
		_ = os.MkdirAll(dump, 0o755)
		_ = os.WriteFile(filepath.Join(dump, name+".txt"), []byte(strings.Join(sorted, "\n")+"\n"), 0o644)
	}
	return qr
}

// render writes rows the way oxigraph-bench.mjs does: bound variables sorted by name as name=term, blank nodes
// as _:b, literals as JSON strings with @lang (lower case) or ^^<datatype>.
func render(r *eval.Result) []string {
	switch r.Form {
	case algebra.Ask:
		return []string{strconv.FormatBool(r.Boolean)}
	case algebra.Construct, algebra.Describe:
		out := make([]string, len(r.Triples))
		for i, t := range r.Triples {
			out[i] = term(t.S) + " " + term(t.P) + " " + term(t.O)
		}
		return out
	}
	order := make([]int, len(r.Vars))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(r.Vars[a], r.Vars[b]) })
	out := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		var parts []string
		for _, j := range order {
			if !row[j].IsZero() {
				parts = append(parts, r.Vars[j]+"="+term(row[j]))
			}
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

// unescapeHTML undoes encoding/json's HTML escaping (JSON.stringify does not escape these).
var unescapeHTML = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")

func term(t rdf.Term) string {
	switch t.Kind {
	case rdf.KindIRI:
		return "<" + t.Value + ">"
	case rdf.KindBlank:
		return "_:b"
	}
	v, _ := json.Marshal(t.Value)
	s := unescapeHTML.Replace(string(v))
	switch {
	case t.Lang != "":
		return s + "@" + strings.ToLower(t.Lang)
	case t.Datatype != "" && t.Datatype != rdf.XSDString:
		return s + "^^<" + t.Datatype + ">"
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rssMiB(field string) int { return procMiB(0, field) }

// procMiB reads a memory figure (VmRSS, VmHWM) of process pid, 0 meaning this one.
func procMiB(pid int, field string) int {
	path := "/proc/self/status"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/status", pid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb >> 10
		}
	}
	return -1
}
