package eval

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// sharedData is a graph of n subjects, each with one value of each of p0 … p4: integers (p0, p1), a link to another
// subject (p2), a dateTime (p3) and one of five classes (p4). With n = 6 000 a predicate's rows (over copyMin) take
// 72 000 bytes as a subject-sorted copy and p2's table of objects 32 768, against a bound of 90 000 (a quarter of
// the SPO rows' bytes): the graph keeps one copy at a time, and a copy and the table evict each other.
func sharedData(t *testing.T, n int) *Dataset {
	r := rand.New(rand.NewPCG(41, 42))
	b, add := builderAdding(t)
	for i := range n {
		s := ex("s", i)
		at := time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(400 * 24 * time.Hour))))
		add(s, ex("p", 0), rdf.Literal(fmt.Sprint(r.IntN(1000)), rdf.XSDInteger))
		add(s, ex("p", 1), rdf.Literal(fmt.Sprint(r.IntN(50)), rdf.XSDInteger))
		add(s, ex("p", 2), ex("s", r.IntN(n)))
		add(s, ex("p", 3), rdf.Literal(at.Format("2006-01-02T15:04:05"), rdf.XSDNS+"dateTime"))
		add(s, ex("p", 4), ex("C", r.IntN(5)))
	}
	return FromIndex(b.Build())
}

// sharedQueries build, read and evict the state a graph keeps across queries: stars read in subject order (kept
// copies of p0's and p1's rows, SubjectRows), a star narrowed by a filter (a copy of parts of p0's rows,
// SortedBySubject), the same stars counted per subject from those copies (groupStars), probes of p2 by object that earn its kept table (NoteObjectProbes, adoptTable), and GROUP BYs
// the split groups on two goroutines (groupSplit).
var sharedQueries = []string{
	`SELECT ?s ?v ?w { ?s <http://ex.org/p0> ?v ; <http://ex.org/p1> ?w }`,
	`SELECT ?s ?v ?w { ?s <http://ex.org/p1> ?w ; <http://ex.org/p0> ?v ; <http://ex.org/p4> ?c }`,
	`SELECT ?s ?w { ?s <http://ex.org/p0> ?v ; <http://ex.org/p1> ?w FILTER(?v >= 200) }`,
	`SELECT ?s ?w { ?s <http://ex.org/p0> ?v ; <http://ex.org/p1> ?w FILTER(?v < 300 || ?v > 800) }`,
	`SELECT ?y ?x { ?x <http://ex.org/p0> ?v . ?y <http://ex.org/p2> ?x FILTER(?v < 100) }`,
	`SELECT ?x (COUNT(?y) AS ?n) { ?x <http://ex.org/p0> ?v . ?y <http://ex.org/p2> ?x FILTER(?v > 900) } GROUP BY ?x`,
	`SELECT (COUNT(*) AS ?n) { ?s <http://ex.org/p0> ?v ; <http://ex.org/p1> ?w FILTER(?v >= 200) }`,
	`SELECT (COUNT(*) AS ?n) { ?s <http://ex.org/p1> ?w ; <http://ex.org/p0> ?v }`,
	`SELECT ?h (COUNT(*) AS ?n) (SUM(IF(MINUTES(?o) < 30, 1, 0)) AS ?f) { ?s <http://ex.org/p3> ?o } GROUP BY (HOURS(?o) AS ?h)`,
	`SELECT ?k (COUNT(*) AS ?n) (SUM(?o) AS ?sum) (AVG(?o) AS ?avg) { ?s <http://ex.org/p0> ?o } GROUP BY (STR(?o) AS ?k)`,
}

// sharedOptions split scans and groups wherever the cores let them (every probe timed as long), on one pool for
// every query, as the endpoint's.
func sharedOptions(cores *Cores) Options {
	return Options{Cores: cores, forkMin: 64, forkChunk: 16,
		forkCosts: func(int, time.Duration, time.Duration) (time.Duration, time.Duration) { return time.Second, 0 }}
}

// answerText is a result's rows as sorted lines: kept copies change the plan, and so the order of unordered rows.
func answerText(res *Result) string {
	lines := make([]string, len(res.Rows))
	for i, row := range res.Rows {
		parts := make([]string, len(row))
		for j, v := range row {
			parts[j] = v.String()
		}
		lines[i] = strings.Join(parts, " ")
	}
	slices.Sort(lines)
	return strings.Join(res.Vars, " ") + "\n" + strings.Join(lines, "\n")
}

// sharedAnswers are sharedQueries' answers, each from one goroutine on a fresh graph.
func sharedAnswers(t *testing.T, n int) []string {
	want := make([]string, len(sharedQueries))
	for i, src := range sharedQueries {
		res, err := runText(t, sharedData(t, n), src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		want[i] = answerText(res)
	}
	return want
}

// sharedRun runs query i on ds in one of several ways: whole (the answer must be want[i]), cancelled at its first
// row or after a few microseconds, or under a budget too small for it (each either fails as it should or answers
// want[i]); salt picks the delay and the budget. It returns a description of what went wrong, or "".
func sharedRun(ds *Dataset, cores *Cores, i, way, salt int, want []string) string {
	q, err := parser.Parse(sharedQueries[i], parser.Options{})
	if err != nil {
		return err.Error()
	}
	opt := sharedOptions(cores)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	what := "whole"
	var res *Result
	switch way {
	case 1:
		what = "cancelled at its first row"
		sink := &cancelSink{collector: collector{res: &Result{}}, cancel: cancel, when: func() bool { return true }}
		err = Stream(ctx, ds, q, opt, sink)
	case 2:
		what = "cancelled within microseconds"
		time.AfterFunc(time.Duration(salt%200)*time.Microsecond, cancel)
		res, err = Run(ctx, ds, q, opt)
	case 3:
		opt.MaxMemory = int64(16<<10) << (salt % 5) // 16 KiB to 256 KiB: below or around a copy's charge
		what = fmt.Sprintf("with a budget of %d bytes", opt.MaxMemory)
		res, err = Run(ctx, ds, q, opt)
	default:
		res, err = Run(ctx, ds, q, opt)
	}
	switch {
	case err == nil && res != nil && answerText(res) != want[i]:
		return fmt.Sprintf("%s %s: a wrong answer", sharedQueries[i], what)
	case err == nil || way == 1 && errors.Is(err, context.Canceled):
	case way == 2 && errors.Is(err, context.Canceled), way == 3 && errors.Is(err, ErrTooLarge):
	default:
		return fmt.Sprintf("%s %s: %v", sharedQueries[i], what, err)
	}
	return ""
}

// TestSharedStateUnderConcurrentQueries: many goroutines query one graph at once, building, reading and evicting
// the copies and tables it keeps for later queries, and splitting GROUP BYs, some of them cancelled or stopped by
// their budget midway; every whole answer is the one the query gives alone on a fresh graph, no query hangs, and
// the kept bytes, sampled throughout, never pass the graph's bound. Run under the race detector (make race), it
// also fails where one query reads state another writes without a lock or a ready signal.
func TestSharedStateUnderConcurrentQueries(t *testing.T) {
	const n = 6000
	want := sharedAnswers(t, n)
	ds := sharedData(t, n)
	g := ds.Default[0]
	p2 := ds.Dict.Lookup(rdf.IRI("http://ex.org/p2"))
	limit := g.CopyLimit()
	cores := NewCores(2)

	var most atomic.Int64
	var sawCopy, sawTable atomic.Bool
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			b := g.CopyBytes()
			if b > most.Load() {
				most.Store(b)
			}
			if g.KeptObjectTable(p2) != nil {
				sawTable.Store(true)
			} else if b > 0 {
				sawCopy.Store(true)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Microsecond):
			}
		}
	}()

	const workers, each = 6, 24
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range each {
				if msg := sharedRun(ds, cores, r.IntN(len(sharedQueries)), r.IntN(6), r.IntN(1000), want); msg != "" {
					mu.Lock()
					failures = append(failures, msg)
					mu.Unlock()
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the concurrent queries did not end within two minutes: one waits for state that is never ready")
	}
	close(stop)
	<-sampled
	for _, f := range failures {
		t.Error(f)
	}
	if b := most.Load(); b > limit {
		t.Errorf("the graph kept %d bytes of copies and tables, over its bound of %d", b, limit)
	}
	if !sawCopy.Load() || !sawTable.Load() {
		t.Errorf("kept a copy: %v, p2's table: %v; the queries did not reach the state they test", sawCopy.Load(), sawTable.Load())
	}
	if forks, _, _ := cores.Splits(); forks == 0 {
		t.Error("no query was split: the test did not reach the split")
	}
	// The state left behind answers every query as a fresh graph does.
	for i := range sharedQueries {
		if msg := sharedRun(ds, cores, i, 0, 0, want); msg != "" {
			t.Error("after the concurrent queries: " + msg)
		}
	}
}

// TestStoppedQueriesLeaveNoHalfState: on a fresh graph, queries cancelled at their first row or within microseconds,
// or stopped by their budget, race whole queries to the graph's first copy or table of a predicate, and then the
// whole query runs again: every whole answer, during and after, is the fresh graph's, and none waits for ever on an
// entry a stopped query left half built. Each query races three times, on three fresh graphs: the first copy's sort
// is a window of ~100 µs.
func TestStoppedQueriesLeaveNoHalfState(t *testing.T) {
	const n = 6000
	want := sharedAnswers(t, n)
	for round := range 3 * len(sharedQueries) {
		i := round % len(sharedQueries)
		ds := sharedData(t, n)
		cores := NewCores(2)
		var wg sync.WaitGroup
		msgs := make([]string, 8)
		start := make(chan struct{})
		for k := range msgs {
			wg.Go(func() {
				<-start
				msgs[k] = sharedRun(ds, cores, i, k%4, k*29+round, want) // two of each way, whole among them
			})
		}
		close(start)
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: queries racing to the graph's first copy did not end within a minute", sharedQueries[i])
		}
		for _, m := range msgs {
			if m != "" {
				t.Error(m)
			}
		}
		if msg := sharedRun(ds, cores, i, 0, 0, want); msg != "" {
			t.Error("after the stopped queries: " + msg)
		}
		if b, limit := ds.Default[0].CopyBytes(), ds.Default[0].CopyLimit(); b > limit {
			t.Errorf("%s: kept %d bytes, over the bound %d", sharedQueries[i], b, limit)
		}
	}
}
