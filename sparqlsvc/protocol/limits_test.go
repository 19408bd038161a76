package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// hostileData is a 20k-triple graph: nodes in a chain and a second permuted link (so closures reach everything),
// each with a long label of a's (for regular expressions), a number and a type.
func hostileData(t *testing.T, n int) *eval.Dataset {
	t.Helper()
	b := index.NewBuilder()
	node := func(i int) rdf.Term { return rdf.IRI(fmt.Sprintf("http://ex.org/n%d", i%n)) }
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	for i := 0; i < n; i++ {
		for _, q := range []rdf.Quad{
			rdf.Triple(node(i), ex("next"), node(i+1)),
			rdf.Triple(node(i), ex("rel"), node(i*7+3)),
			rdf.Triple(node(i), ex("label"), rdf.LangString(strings.Repeat("a", 40)+strconv.Itoa(i), "en")),
			rdf.Triple(node(i), ex("val"), rdf.Literal(strconv.Itoa(i), rdf.XSDInteger)),
			rdf.Triple(node(i), rdf.IRI(rdf.RDFType), ex("Node")),
		} {
			if err := b.Add(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	return eval.FromIndex(b.Build())
}

// clientHeader lets a test speak as many client addresses over one loopback connection.
func clientHeader(r *http.Request) string { return r.Header.Get("X-Test-Client") }

func sparqlGet(t *testing.T, srv, client, query, accept string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", srv+"/sparql?query="+url.QueryEscape(query), nil)
	req.Header.Set("X-Test-Client", client)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil, ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("%s: reading the answer: %v", query, err)
	}
	return resp, string(body)
}

// TestHostileQueriesStayBounded runs the queries that used to exhaust a server — a three-way cartesian product, a
// property-path closure over the whole graph, a GROUP_CONCAT over a product, a string doubled by a chain of BINDs
// and a regular expression over millions of strings — anonymously and at once, each from its own address, with the default gate and limits a
// quarter of the defaults (so the test takes seconds), while another client keeps looking up single values.
// Every heavy query must end with a clear error or a marked truncated answer, the heap must stay within the
// budgets, and every lookup must answer correctly.
func TestHostileQueriesStayBounded(t *testing.T) {
	ds := hostileData(t, 4000)
	const budget = DefaultMaxMemory / 4
	h := &Handler{
		Codecs:   codec.Default(),
		Endpoint: func(*http.Request) string { return "http://hub.example/p/sparql" },
		Resolve: func(context.Context, *http.Request, DatasetRequest) (Backend, func(), error) {
			return ds, func() {}, nil
		},
		Limits: Limits{Timeout: 6 * time.Second, MaxMemory: budget, MaxResults: DefaultMaxResults / 4},
		Gate:   NewGate(0, 0, clientHeader),
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()

	heavy := []struct {
		name, query string
		// status is the answer's status; want is in its body (the error message, or the truncation marker). A
		// query stopped by its budget on an idle machine may meet its time limit first on a loaded one: either
		// is a clear end ("memory|time").
		status int
		want   string
	}{
		{"cartesian product", "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", 200, `"ldhub:truncated":"`},
		{"sorted cartesian product", "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?i", 503, "memory|time"},
		{"path closure", "SELECT (COUNT(*) AS ?n) WHERE { ?s (<http://ex.org/next>|<http://ex.org/rel>)+ ?o }", 503, "memory|time"},
		{"huge GROUP_CONCAT", "SELECT (GROUP_CONCAT(?l) AS ?x) WHERE { ?a <http://ex.org/label> ?l . ?b <http://ex.org/label> ?m }", 503, "memory|time"},
		// A label doubled 23 times in one row (370 MB): the server took 9.6 GB from a query like it.
		{"doubled string", "SELECT (STRLEN(?l23) AS ?n) WHERE { <http://ex.org/n1> <http://ex.org/label> ?l0 " + doublings(23) + "}", 503, "memory"},
		{"regex over a product", `SELECT (COUNT(*) AS ?n) WHERE { ?a <http://ex.org/label> ?l . ?b <http://ex.org/label> ?m FILTER regex(concat(?l, ?m), "^(a|aa)+(a|aa)+[0-9]+$") }`, 503, "longer than its limit"},
	}
	var wg sync.WaitGroup
	for i, q := range heavy {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, body := sparqlGet(t, srv.URL, fmt.Sprintf("10.0.0.%d", i+1), q.query, "")
			if resp == nil {
				return
			}
			found := false
			for _, w := range strings.Split(q.want, "|") {
				found = found || strings.Contains(body, strings.Replace(w, "time", "ran longer than its limit", 1))
			}
			if resp.StatusCode != q.status || !found {
				if len(body) > 300 {
					body = body[:150] + " … " + body[len(body)-150:]
				}
				t.Errorf("%s: %d %s, want %d with %q", q.name, resp.StatusCode, body, q.status, q.want)
			}
			if q.status == 200 && resp.Trailer.Get(TruncatedHeader) == "" {
				t.Errorf("%s: trailer %q", q.name, resp.Trailer)
			}
		}()
	}
	// Point lookups from another address, while the heavy queries run.
	lookups, slowest := 0, time.Duration(0)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		i := 17 * (lookups + 1) % 4000
		start := time.Now()
		resp, body := sparqlGet(t, srv.URL, "192.0.2.1", fmt.Sprintf("SELECT ?v WHERE { <http://ex.org/n%d> <http://ex.org/val> ?v }", i), "text/csv")
		if d := time.Since(start); d > slowest {
			slowest = d
		}
		if resp == nil || resp.StatusCode != 200 || body != fmt.Sprintf("v\r\n%d\r\n", i) {
			t.Fatalf("lookup %d during the heavy queries: %v %q", i, resp.Status, body)
		}
		lookups++
	}
	close(stop)
	<-sampled
	grew := int64(peak.Load()) - int64(base)
	t.Logf("%d lookups answered during the heavy queries, slowest %s; heap grew by %d MiB at most", lookups, slowest, grew>>20)
	// Six queries' budgets, twice for what the collector has not reclaimed yet, and the answers' buffers: where
	// the cartesian product alone used to take 2.3 GB.
	if limit := int64(6*budget)*2 + 32<<20; grew > limit {
		t.Errorf("heap grew by %d MiB, more than %d MiB", grew>>20, limit>>20)
	}
	// Lookups must not queue behind the heavy queries; the bound is loose because the test machine may be loaded
	// far beyond its cores (the slowest is logged: about 1 s on a 2-core machine at load 25).
	if lookups == 0 || slowest > 15*time.Second {
		t.Errorf("%d lookups, slowest %s", lookups, slowest)
	}
	if rss := vmHWM(); rss > 0 {
		t.Logf("peak resident memory of the test process: %d MiB", rss>>20)
	}
}

// doublings binds ?l1 … ?ln, each the previous twice over.
func doublings(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "BIND(CONCAT(?l%d, ?l%d) AS ?l%d) ", i, i, i+1)
	}
	return b.String()
}

// vmHWM is the process's peak resident memory on Linux (0 elsewhere).
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestConcurrencyGate holds queries inside the endpoint and checks that a third query from the same address and
// a query beyond the server's limit (after its wait) get 503 with Retry-After, while another client still gets a
// slot.
func TestConcurrencyGate(t *testing.T) {
	ds := hostileData(t, 10)
	release := make(chan struct{})
	var entered sync.WaitGroup
	h := &Handler{
		Codecs: codec.Default(),
		Resolve: func(_ context.Context, r *http.Request, _ DatasetRequest) (Backend, func(), error) {
			if strings.Contains(r.URL.RawQuery, "hold") {
				entered.Done()
				<-release
			}
			return ds, func() {}, nil
		},
		Gate: NewGate(3, 2, clientHeader),
	}
	// A query beyond the server's limit waits for a slot (TestSlotsAreShared): a short wait, and no held query
	// yields its slot.
	h.Gate.slice, h.Gate.wait = time.Hour, 100*time.Millisecond
	srv := httptest.NewServer(h)
	defer srv.Close()
	const held = "ASK { ?s ?p ?o } # hold"
	var wg sync.WaitGroup
	hold := func(client string) {
		entered.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, _ := sparqlGet(t, srv.URL, client, held, ""); resp != nil && resp.StatusCode != 200 {
				t.Errorf("held query of %s: %d", client, resp.StatusCode)
			}
		}()
	}
	hold("198.51.100.1")
	hold("198.51.100.1")
	entered.Wait()
	resp, body := sparqlGet(t, srv.URL, "198.51.100.1", "ASK { ?s ?p ?o }", "")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "too many") {
		t.Errorf("third query of one address: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	hold("198.51.100.2")
	entered.Wait()
	resp, _ = sparqlGet(t, srv.URL, "198.51.100.3", "ASK { ?s ?p ?o }", "")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("query beyond the server's limit: %d", resp.StatusCode)
	}
	close(release)
	wg.Wait()
	if resp, body := sparqlGet(t, srv.URL, "198.51.100.1", "ASK { ?s ?p ?o }", ""); resp.StatusCode != 200 || !strings.Contains(body, "true") {
		t.Errorf("after the held queries ended: %d %s", resp.StatusCode, body)
	}
}

// TestTruncatedAnswers checks the documented signal of an answer cut at the result limit in every format.
func TestTruncatedAnswers(t *testing.T) {
	ds := hostileData(t, 100)
	h := &Handler{
		Codecs: codec.Default(),
		Resolve: func(context.Context, *http.Request, DatasetRequest) (Backend, func(), error) {
			return ds, func() {}, nil
		},
		Limits: Limits{MaxResults: 7},
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	const sel = "SELECT ?s ?v WHERE { ?s <http://ex.org/val> ?v }"
	const con = "CONSTRUCT WHERE { ?s <http://ex.org/val> ?v }"
	for _, tc := range []struct {
		query, accept, marker string
		items                 func(string) int
	}{
		{sel, "application/sparql-results+json", `"ldhub:truncated":"the answer was cut at the endpoint's limit of 7 solutions`, func(b string) int {
			var doc struct {
				Results struct{ Bindings []any }
			}
			if err := json.Unmarshal([]byte(b), &doc); err != nil {
				t.Errorf("truncated JSON does not parse: %v", err)
			}
			return len(doc.Results.Bindings)
		}},
		{sel, "application/sparql-results+xml", "<!-- ldhub:truncated: the answer was cut", func(b string) int { return strings.Count(b, "<result>") }},
		{sel, "text/csv", "", func(b string) int { return strings.Count(b, "\r\n") - 1 }},
		{sel, "text/tab-separated-values", "", func(b string) int { return strings.Count(b, "\n") - 1 }},
		{con, "application/n-triples", "# ldhub:truncated: the answer was cut at the endpoint's limit of 7 triples", func(b string) int { return strings.Count(b, " .\n") }},
		{con, "text/turtle", "# ldhub:truncated:", func(b string) int { return strings.Count(b, "<http://ex.org/val>") + strings.Count(b, ":val ") }},
		{con, "application/ld+json", "", func(b string) int { return strings.Count(b, `"@id"`) }},
	} {
		resp, body := sparqlGet(t, srv.URL, "", tc.query, tc.accept)
		if resp == nil {
			continue
		}
		if resp.StatusCode != 200 || !strings.Contains(body, tc.marker) || tc.items(body) != 7 {
			t.Errorf("%s: %d, %d items, body:\n%s", tc.accept, resp.StatusCode, tc.items(body), body)
		}
		if !strings.Contains(resp.Trailer.Get(TruncatedHeader)+resp.Header.Get(TruncatedHeader), "limit of 7") {
			t.Errorf("%s: no %s trailer or header: %v %v", tc.accept, TruncatedHeader, resp.Header, resp.Trailer)
		}
		// A script of another origin reads the reason only if the answer exposes it (CORS).
		if !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), TruncatedHeader) {
			t.Errorf("%s: Access-Control-Expose-Headers %q lacks %s", tc.accept, resp.Header.Get("Access-Control-Expose-Headers"), TruncatedHeader)
		}
	}
	// An answer within the limit carries no marker.
	resp, body := sparqlGet(t, srv.URL, "", sel+" LIMIT 7", "")
	if strings.Contains(body, "truncated") || resp.Trailer.Get(TruncatedHeader) != "" || resp.Header.Get(TruncatedHeader) != "" {
		t.Errorf("a whole answer marked as cut: %s %v", body, resp.Trailer)
	}
}

// TestSlowReaderFreesItsSlot: the time limit includes sending. A client that asks for a long answer and then does
// not read kept its query's slot for as long as the connection's write deadline allowed (60 s in ldhub serve; for
// ever on a server without one), so two such clients of an address, or eight of several, held the endpoint. Now
// its writes fail once the time limit and a short grace have passed, and the address gets a slot again.
func TestSlowReaderFreesItsSlot(t *testing.T) {
	ds := hostileData(t, 2000)
	const limit = time.Second
	h := &Handler{
		Codecs:   codec.Default(),
		Endpoint: func(*http.Request) string { return "http://hub.example/p/sparql" },
		Resolve: func(context.Context, *http.Request, DatasetRequest) (Backend, func(), error) {
			return ds, func() {}, nil
		},
		Limits: Limits{Timeout: limit, MaxResults: 50_000_000},
		Gate:   NewGate(0, 1, clientHeader),
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Millions of distinct triples of 2 KB, so the answer outgrows the connection's buffers within the time limit.
	q := url.QueryEscape("CONSTRUCT { ?b <http://ex.org/x> ?big } WHERE { ?a <http://ex.org/label> ?l . ?b ?p ?o BIND(CONCAT(" + strings.Repeat("?l, ", 47) + "?l) AS ?big) }")
	if _, err := fmt.Fprintf(c, "GET /sparql?query=%s HTTP/1.1\r\nHost: x\r\nAccept: application/n-triples\r\nX-Test-Client: 203.0.113.9\r\n\r\n", q); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		time.Sleep(100 * time.Millisecond)
		resp, body := sparqlGet(t, srv.URL, "203.0.113.9", "ASK { <http://ex.org/n1> ?p ?o }", "")
		if resp == nil {
			return
		}
		if resp.StatusCode == 200 {
			if !strings.Contains(body, "true") {
				t.Errorf("lookup after the slow reader: %q", body)
			}
			break
		}
		if waited := time.Since(start); waited > limit+endGrace+10*time.Second {
			t.Fatalf("the address still has no slot %s after its slow query began (time limit %s): %d %s", waited, limit, resp.StatusCode, body)
		}
	}
	t.Logf("the slow reader's slot was free again after %s (time limit %s, grace %s)", time.Since(start).Round(time.Millisecond), limit, endGrace)
}

// TestDeclaredHugeBodyIsRefusedAtOnce: a POST declaring a body larger than the query limit is answered 413 before
// anything is read. Before, the endpoint read up to the limit and waited for bytes that never came, holding the
// connection until the server's body deadline (10 s in ldhub serve, for ever without one) and then answering 400.
func TestDeclaredHugeBodyIsRefusedAtOnce(t *testing.T) {
	h := &Handler{
		Codecs: codec.Default(),
		Resolve: func(context.Context, *http.Request, DatasetRequest) (Backend, func(), error) {
			return hostileData(t, 10), func() {}, nil
		},
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, ct := range []string{"application/sparql-query", "application/x-www-form-urlencoded"} {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: 10000000000\r\n\r\nquery=ASK {}", ct)
		line, err := bufio.NewReader(c).ReadString('\n')
		if !strings.HasPrefix(line, "HTTP/1.1 413 ") {
			t.Errorf("%s declaring 10 GB: %q, %v; want 413 at once", ct, line, err)
		}
		c.Close()
	}
}

// fromAddress is an HTTP client whose connections come from the loopback address ip, so that a server sees it
// as that client address (Linux routes all of 127.0.0.0/8 to the loopback).
func fromAddress(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// heavyLoad starts heavy queries from loopback addresses, one after the other, each once the gate runs it or it
// was refused, so that the order of admissions is the test's. cancel ends them.
type heavyLoad struct {
	t       *testing.T
	srv     string
	gate    *Gate
	ctx     context.Context
	cancel  context.CancelFunc
	refused atomic.Int32
	yielded atomic.Int32 // ended with 503 to give their slot to a waiting client
	// yieldedOff counts those of yielded sent to a path other than /sparql (TestCredentialedQueriesKeepTheirSlots).
	yieldedOff atomic.Int32
	wg         sync.WaitGroup
}

const heavyQuery = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }" // 10^9 rows over 1000 triples

func newHeavyLoad(t *testing.T, srv string, gate *Gate) *heavyLoad {
	l := &heavyLoad{t: t, srv: srv, gate: gate}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() { l.cancel(); l.wg.Wait() })
	return l
}

func (l *heavyLoad) running() int {
	l.gate.mu.Lock()
	defer l.gate.mu.Unlock()
	return len(l.gate.slots)
}

func (l *heavyLoad) waiting() int {
	l.gate.mu.Lock()
	defer l.gate.mu.Unlock()
	return len(l.gate.queue)
}

// start sends one heavy query from ip and waits until the gate has admitted or refused it.
func (l *heavyLoad) start(ip string) { l.startAt(ip, "/sparql", "") }

// startAt is start at the endpoint path, with an X-Forwarded-For of forwarded when it is not empty.
func (l *heavyLoad) startAt(ip, path, forwarded string) {
	c := fromAddress(ip)
	before := l.running() + l.waiting() + int(l.refused.Load())
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		req, _ := http.NewRequestWithContext(l.ctx, "GET", l.srv+path+"?query="+url.QueryEscape(heavyQuery), nil)
		if forwarded != "" {
			req.Header.Set("X-Forwarded-For", forwarded)
		}
		resp, err := c.Do(req)
		if err != nil {
			return // cancelled at the end
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		switch {
		case resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(body), "gave its slot"):
			l.yielded.Add(1)
			if path != "/sparql" {
				l.yieldedOff.Add(1)
			}
			if resp.Header.Get("Retry-After") == "" {
				l.t.Errorf("a query that yielded its slot: no Retry-After")
			}
		case resp.StatusCode == http.StatusServiceUnavailable:
			l.refused.Add(1)
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for l.running()+l.waiting()+int(l.refused.Load()) == before && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}

// fillSlots fills the gate's eight slots with heavy queries from five loopback addresses: three with two, two
// newcomers with one.
func fillSlots(t *testing.T, srv string, gate *Gate) *heavyLoad {
	t.Helper()
	load := newHeavyLoad(t, srv, gate)
	for _, ip := range []string{"127.0.0.11", "127.0.0.11", "127.0.0.12", "127.0.0.12", "127.0.0.13", "127.0.0.13", "127.0.0.14", "127.0.0.15"} {
		load.start(ip)
	}
	if n := load.running(); n != DefaultMaxConcurrent {
		t.Fatalf("%d heavy queries running, want the gate's %d", n, DefaultMaxConcurrent)
	}
	return load
}

// getFrom sends query from the loopback address ip and returns the status and body.
func getFrom(t *testing.T, srv, ip, query string) (int, string) {
	t.Helper()
	resp, err := fromAddress(ip).Get(srv + "/sparql?query=" + url.QueryEscape(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func heavyServer(t *testing.T, gate *Gate) *httptest.Server {
	ds := hostileData(t, 200)
	srv := httptest.NewServer(&Handler{
		Codecs:   codec.Default(),
		Endpoint: func(*http.Request) string { return "http://hub.example/p/sparql" },
		Resolve: func(context.Context, *http.Request, DatasetRequest) (Backend, func(), error) {
			return ds, func() {}, nil
		},
		Limits: Limits{Timeout: 20 * time.Second},
		Gate:   gate,
	})
	t.Cleanup(srv.Close)
	return srv
}

// TestSlotsForAddressesHoldingNone: four client addresses, each running two heavy queries (the per-address
// limit), used to take all eight slots, and every other client's cheap query got 503 until one ended. The last
// slots are now kept for addresses that hold none: one of the eight heavy queries is refused, and a fifth
// address's query answers while the other seven run. Real clients from five loopback addresses, the default
// gate, the peer's address as the client.
func TestSlotsForAddressesHoldingNone(t *testing.T) {
	gate := NewGate(0, 0, nil)
	srv := heavyServer(t, gate)
	load := newHeavyLoad(t, srv.URL, gate)
	for i := range 4 {
		load.start(fmt.Sprintf("127.0.0.%d", 11+i))
		load.start(fmt.Sprintf("127.0.0.%d", 11+i))
	}
	// Three addresses hold two slots each; the fourth gets one of the two kept for newcomers, not a second.
	if n, r := load.running(), load.refused.Load(); n != DefaultMaxConcurrent-1 || r != 1 {
		t.Errorf("%d heavy queries running and %d refused, want %d and 1", n, r, DefaultMaxConcurrent-1)
	}
	// Not a lookup (isLookup): it takes the last slot, not the lane.
	if status, body := getFrom(t, srv.URL, "127.0.0.20", "ASK { ?s <http://ex.org/next> <http://ex.org/n2> }"); status != 200 || !strings.Contains(body, "true") {
		t.Errorf("a fifth address's query while %d heavy queries run: %d %s", load.running(), status, body)
	}
}

// TestLookupsWhenTheSlotsAreFull: five addresses fill the gate's eight slots with heavy queries (three with two,
// two newcomers with one). A third heavy query of one of them is refused, as before; a sixth address's lookup,
// which used to be refused, is answered in the gate's lane at once (not queued, TestSlotsAreShared), and a query
// that only looks like a lookup (a chain of constants' fan-outs, 2^30 rows) ends at the lane's time limit. Real clients from six loopback addresses, default gate.
func TestLookupsWhenTheSlotsAreFull(t *testing.T) {
	gate := NewGate(0, 0, nil)
	srv := heavyServer(t, gate)
	load := fillSlots(t, srv.URL, gate)
	if status, body := getFrom(t, srv.URL, "127.0.0.11", heavyQuery); status != 503 || !strings.Contains(body, "too many") {
		t.Errorf("a third heavy query of an address running two: %d %s", status, body)
	}
	for i, q := range []string{
		"SELECT ?v WHERE { <http://ex.org/n7> <http://ex.org/val> ?v }",
		"SELECT ?l WHERE { <http://ex.org/n7> <http://ex.org/next> ?n . ?n <http://ex.org/label> ?l OPTIONAL { ?n <http://ex.org/val> ?v } }",
		"SELECT ?v WHERE { VALUES ?s { <http://ex.org/n7> <http://ex.org/n8> } ?s <http://ex.org/val> ?v } ORDER BY ?v",
	} {
		status, body := getFrom(t, srv.URL, "127.0.0.16", q)
		want := []string{`"value":"7"`, `aaaaaaaa8"`, `"value":"8"`}[i]
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("lookup %d while the slots are full: %d %s", i, status, body)
		}
	}
	// Each node has two links (next, rel) to others: 2^30 paths from n1.
	var chain strings.Builder
	chain.WriteString("SELECT (COUNT(*) AS ?n) WHERE { <http://ex.org/n1> ?p0 ?x0 ")
	for i := range 29 {
		fmt.Fprintf(&chain, ". ?x%d ?p%d ?x%d ", i, i+1, i+1)
	}
	chain.WriteString("}")
	start := time.Now()
	if status, body := getFrom(t, srv.URL, "127.0.0.16", chain.String()); status != 503 || !strings.Contains(body, "limit of 1s") {
		t.Errorf("a lookup of 2^30 rows in the lane: %d %s", status, body)
	}
	t.Logf("the lookup of 2^30 rows ended after %s", time.Since(start).Round(time.Millisecond))
	if n := load.running(); n != DefaultMaxConcurrent {
		t.Errorf("%d heavy queries running after the lookups, want %d", n, DefaultMaxConcurrent)
	}
}

// TestGateCountsClients: the gate counts an IPv6 client by its /64 and an IPv4 one by its address, an IPv6 /48
// holds at most half the slots, and its lane takes one lookup per client and at most half the slots' number.
func TestGateCountsClients(t *testing.T) {
	for addr, want := range map[string][2]string{ // clientKey, networkKey
		"2001:db8:1:2:aaaa::1":    {"2001:db8:1:2::/64", "2001:db8:1::/48"},
		"2001:db8:1:2:ffff:1:2:3": {"2001:db8:1:2::/64", "2001:db8:1::/48"},
		"2001:db8:1:ffff::3":      {"2001:db8:1:ffff::/64", "2001:db8:1::/48"},
		"fe80::1%eth0":            {"fe80::/64", "fe80::/48"},
		"::ffff:192.0.2.7":        {"192.0.2.7", "192.0.2.7"},
		"192.0.2.7":               {"192.0.2.7", "192.0.2.7"},
		"not an address":          {"not an address", "not an address"},
	} {
		if got := [2]string{clientKey(addr), networkKey(addr)}; got != want {
			t.Errorf("clientKey, networkKey(%q) = %q, want %q", addr, got, want)
		}
	}
	gate := NewGate(4, 2, clientHeader)
	gate.wait = 0 // a query that finds no slot is refused, not queued (TestGateSharesSlots)
	admit := func(client string, lookup bool) (func(), bool, bool) {
		leave, lane, err := gate.enter(t.Context(), from(client), lookup, false, func() {})
		return leave, lane, err == nil
	}
	// Two addresses of one /64 hold its two queries; a third of it is refused, another /64 is not.
	admit("2001:db8:1:2::a", false)
	admit("2001:db8:1:2::b", false)
	if _, _, ok := admit("2001:db8:1:2::c", false); ok {
		t.Errorf("a third query of one /64 admitted")
	}
	// Another /64 of the same /48 is refused: the /48 holds its half of the slots (networkKey); one of another
	// /48 is not.
	if _, _, ok := admit("2001:db8:1:3::1", false); ok {
		t.Errorf("a third query of one /48 admitted, beyond its half of the slots")
	}
	if _, lane, ok := admit("2001:db8:2:3::1", false); !ok || lane {
		t.Errorf("another /48: admitted %v, lane %v", ok, lane)
	}
	if _, _, ok := admit("192.0.2.1", false); !ok {
		t.Errorf("the gate's fourth slot refused")
	}
	// The four slots are full: lookups go to the lane, one per client, two in all.
	if _, lane, ok := admit("2001:db8:1:2::d", true); !ok || !lane {
		t.Errorf("a lookup of a full /64: admitted %v, lane %v", ok, lane)
	}
	if _, _, ok := admit("2001:db8:1:2::e", true); ok {
		t.Errorf("a second lookup of one /64 in the lane")
	}
	if _, _, ok := admit("192.0.2.9", false); ok {
		t.Errorf("a query that is not a lookup admitted past the slots")
	}
	leave, lane, ok := admit("192.0.2.9", true)
	if !ok || !lane {
		t.Errorf("a second client's lookup: admitted %v, lane %v", ok, lane)
	}
	if _, _, ok := admit("192.0.2.10", true); ok {
		t.Errorf("a third lookup in a lane of two")
	}
	leave()
	if _, lane, ok := admit("192.0.2.10", true); !ok || !lane {
		t.Errorf("a lookup once the lane has room again: admitted %v, lane %v", ok, lane)
	}
}

// from is a request from client, named in the header clientHeader reads.
func from(client string) *http.Request {
	r := httptest.NewRequest("GET", "/sparql", nil)
	r.Header.Set("X-Test-Client", client)
	return r
}

// TestServerMemoryBudget: a query that would pass the memory the gate's queries share (Gate.SetMemory) ends
// with 503, Retry-After and a message naming the server's budget, not its own, and gives back what it charged.
func TestServerMemoryBudget(t *testing.T) {
	ds := hostileData(t, 2000)
	gate := NewGate(0, 0, clientHeader)
	gate.SetMemory(1 << 20)
	h := &Handler{
		Codecs: codec.Default(),
		Resolve: func(context.Context, *http.Request, DatasetRequest) (Backend, func(), error) {
			return ds, func() {}, nil
		},
		Gate: gate,
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, body := sparqlGet(t, srv.URL, "198.51.100.1", "SELECT * WHERE { ?a <http://ex.org/val> ?b . ?c <http://ex.org/val> ?d } ORDER BY ?b ?d", "")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "the queries running on this server hold its memory for queries (1 MiB)") {
		t.Errorf("a sort past the server's 1 MiB: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if u := gate.Memory().Used(); u != 0 {
		t.Errorf("%d bytes still charged", u)
	}
}
