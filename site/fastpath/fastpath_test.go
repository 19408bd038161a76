package fastpath_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/fastpath"
	"github.com/ldhub/ldhub/site/fastpath/fptest"
)

const viewer = "Basic dmlld2VyOnNlY3JldA=="

type fixture struct {
	h   *site.Handler
	old string // label of the first version of /org/open/core
}

// newFixture renders a tree: /org/open/core with two
// versions, the dataset /org/open/ds and the private /org/closed/secret, readable with viewer's credentials.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	hub := pipelinetest.New(t)
	pub := hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	hub.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	hub.Publish(t, hub.Closed.ID, "secret", ".ttl", pipelinetest.Vocab)
	hub.Publish(t, hub.Open.ID, "ds", ".trig", "<http://x/g> { <http://x/s> <http://x/p> \"in a graph\" . }\n")
	// Larger than the 64 KiB a folder keeps in memory: its dumps go out by sendfile.
	var big strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&big, "<http://x/s%d> <http://x/p> \"a literal long enough to make the dump large, number %d\" .\n", i, i)
	}
	hub.Publish(t, hub.Open.ID, "big", ".nt", big.String())
	out := buildTree(t, hub, nil)
	closed := hub.Closed.ID
	h, err := site.NewHandler(site.Options{Dir: out, Auth: site.AuthorizerFunc(func(r *http.Request, repo string) bool {
		return repo == closed && r.Header.Get("Authorization") == viewer
	})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return &fixture{h: h, old: pub.Versions[0].Label}
}

// buildTree renders hub's publications (with pages made with pages; nil: none) into a new folder.
func buildTree(t testing.TB, hub *pipelinetest.Hub, pages *pipeline.HTML) string {
	t.Helper()
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example", HTML: pages})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return out
}

func (f *fixture) start(t *testing.T, opts func(*http.Server)) *fptest.Pair {
	return fptest.Start(t, f.h, f.h.Prepared, opts)
}

func get(path string, fields ...string) string {
	s := "GET " + path + " HTTP/1.1\r\nHost: hub.example\r\n"
	for _, f := range fields {
		s += f + "\r\n"
	}
	return s + "\r\n"
}

// validators fetches the ETag and Last-Modified of path through net/http.
func validators(t *testing.T, addr, path string, fields ...string) (etag, mod string) {
	t.Helper()
	raw := fptest.Exchange(t, addr, []byte(get(path, fields...)), 0)
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("ETag") == "" || resp.Header.Get("Last-Modified") == "" {
		t.Fatalf("%s: %d %v", path, resp.StatusCode, resp.Header)
	}
	return resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
}

func TestAnswersLikeNetHTTP(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, nil)
	etag, mod := validators(t, p.Plain, "/org/open/core.nt")
	gzTag, _ := validators(t, p.Plain, "/org/open/core.nt", "Accept-Encoding: gzip")
	bigTag, _ := validators(t, p.Plain, "/org/open/big.nt")
	older := time.Now().Add(-24 * 365 * time.Hour).UTC().Format(http.TimeFormat)
	cases := []struct {
		name string
		raw  string
		fast int64 // requests the fast path must answer itself
	}{
		{"conneg default", get("/org/open/core"), 1},
		{"N-Triples by Accept", get("/org/open/core", "Accept: application/n-triples"), 1},
		{"browser", get("/org/open/core", "Accept: text/html,application/xhtml+xml,*/*;q=0.8"), 0}, // no HTML rendered here: 404
		{"q-values", get("/org/open/core", "Accept: application/n-triples;q=0.5, application/rdf+xml"), 1},
		{"lower-case names, spaces", "GET /org/open/core HTTP/1.1\r\nhost:hub.example\r\naccept:  application/ld+json \t\r\n\r\n", 1},
		{"extension", get("/org/open/core.nt", "Accept: text/html"), 1},
		{"gzip", get("/org/open/core.nt", "Accept-Encoding: gzip, deflate"), 1},
		{"gzip refused", get("/org/open/core", "Accept-Encoding: gzip;q=0"), 1},
		{"old version", get("/org/open/core/versions/" + f.old), 1},
		{"old version by extension", get("/org/open/core/versions/"+f.old+".jsonld", "Accept-Encoding: gzip"), 1},
		{"VoID", get("/org/open/core/void.ttl"), 1},
		{"dataset", get("/org/open/ds", "Accept: application/ld+json"), 1},
		{"large file", get("/org/open/big.nt"), 1},
		{"large file negotiated", get("/org/open/big", "Accept: application/n-triples"), 1},
		{"large file twice pipelined", get("/org/open/big") + get("/org/open/big.nt") + get("/org/open/core"), 3},
		{"large file HEAD", "HEAD /org/open/big.nt HTTP/1.1\r\nHost: x\r\n\r\n", 1},
		{"large file 304", get("/org/open/big.nt", "If-None-Match: "+bigTag), 1},
		{"large file, Connection: close", get("/org/open/big.nt", "Connection: close") + get("/org/open/big.nt"), 1},
		{"trailing slash", get("/org/open/core/"), 1},
		{"HEAD", "HEAD /org/open/core.nt HTTP/1.1\r\nHost: x\r\n\r\n", 1},
		{"HEAD gzip", "HEAD /org/open/core HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n", 1},
		{"Content-Length 0", get("/org/open/core", "Content-Length: 0"), 1},
		{"Connection: close", get("/org/open/core", "Connection: close") + get("/org/open/core"), 1},
		{"Connection: keep-alive", get("/org/open/core", "Connection: keep-alive"), 1},
		{"304 If-None-Match", get("/org/open/core.nt", "If-None-Match: "+etag), 1},
		{"304 If-None-Match list, weak", get("/org/open/core.nt", `If-None-Match: "x", W/`+etag), 1},
		{"304 If-None-Match *", get("/org/open/core.nt", "If-None-Match: *"), 1},
		{"304 gzip", get("/org/open/core.nt", "Accept-Encoding: gzip", "If-None-Match: "+gzTag), 1},
		{"304 HEAD", "HEAD /org/open/core.nt HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + etag + "\r\n\r\n", 1},
		{"304 If-Modified-Since", get("/org/open/core.nt", "If-Modified-Since: "+mod), 1},
		{"If-None-Match wins over If-Modified-Since", get("/org/open/core.nt", `If-None-Match: "other"`, "If-Modified-Since: "+mod), 0},
		{"If-None-Match not matching", get("/org/open/core.nt", `If-None-Match: "other"`), 0},
		{"If-None-Match gzip not matching", get("/org/open/core.nt", "Accept-Encoding: gzip", "If-None-Match: "+etag), 0},
		{"If-Modified-Since older", get("/org/open/core.nt", "If-Modified-Since: "+older), 0},
		{"If-Modified-Since garbage", get("/org/open/core.nt", "If-Modified-Since: yesterday"), 0},
		{"empty If-None-Match", get("/org/open/core.nt", "If-None-Match:"), 0},
		{"Range", get("/org/open/core.nt", "Range: bytes=0-9"), 0},
		{"If-Match", get("/org/open/core.nt", "If-Match: "+etag), 0},
		{"not acceptable", get("/org/open/core", "Accept: image/png"), 0},
		{"no such representation", get("/org/open/ds.ttl"), 0},
		{"resource", get("/org/open/core/Thing"), 0},
		{"unknown", get("/org/open/nope"), 0},
		{"unknown version", get("/org/open/core/versions/nope"), 0},
		{"tree internals", get("/org/open/core/.ld/cur/data.ttl"), 0},
		{"private", get("/org/closed/secret"), 0},
		{"private with credentials", get("/org/closed/secret", "Authorization: "+viewer), 0},
		{"query", get("/org/open/core?query=ASK%7B%7D", "Accept: application/sparql-results+json"), 0},
		{"percent-escape", get("/org/open/c%6Fre"), 0},
		{"HTTP/1.0", "GET /org/open/core HTTP/1.0\r\nHost: x\r\n\r\n", 0},
		{"HTTP/1.0 keep-alive", "GET /org/open/core HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n" + get("/org/open/core"), 0},
		{"POST", "POST /org/open/core HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 0},
		{"OPTIONS", "OPTIONS /org/open/core HTTP/1.1\r\nHost: x\r\n\r\n", 0},
		{"GET with a body", "GET /org/open/core HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", 0},
		{"chunked", "GET /org/open/core HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 0},
		{"Expect", get("/org/open/core", "Expect: 100-continue"), 0},
		{"Upgrade", get("/org/open/core", "Connection: Upgrade", "Upgrade: websocket"), 0},
		{"two Accept fields", get("/org/open/core", "Accept: text/html", "Accept: application/n-triples"), 0},
		{"no Host", "GET /org/open/core HTTP/1.1\r\n\r\n", 0},
		{"two Hosts", "GET /org/open/core HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 0},
		{"bad Host", "GET /org/open/core HTTP/1.1\r\nHost: a b\r\n\r\n", 0},
		{"bare LF", "GET /org/open/core HTTP/1.1\nHost: x\n\n", 0},
		{"obs-fold", "GET /org/open/core HTTP/1.1\r\nHost: x\r\nAccept: text/html,\r\n application/n-triples\r\n\r\n", 0},
		{"space before colon", "GET /org/open/core HTTP/1.1\r\nHost : x\r\n\r\n", 0},
		{"bad field name", "GET /org/open/core HTTP/1.1\r\nHost: x\r\nAc(cept: x\r\n\r\n", 0},
		{"control character", "GET /org/open/core HTTP/1.1\r\nHost: x\r\nAccept: a\x01b\r\n\r\n", 0},
		{"CR in a value", "GET /org/open/core HTTP/1.1\r\nHost: x\r\nAccept: a\rb\r\n\r\n", 0},
		{"absolute form", "GET http://x/org/open/core HTTP/1.1\r\nHost: x\r\n\r\n", 0},
		{"garbage", "\x16\x03\x01\x00\xa5\x01\x00\x00", 0},
		{"double space", "GET  /org/open/core HTTP/1.1\r\nHost: x\r\n\r\n", 0},
		{"header block over 8 KiB", get("/org/open/core", "X-Pad: "+strings.Repeat("a", 9000)), 0},
		{"header block over 1 MiB", get("/org/open/core", "X-Pad: "+strings.Repeat("a", 1<<20+8192)), 0},
		{"API path", get("/api/v3/groups"), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, n := p.Compare(t, []byte(tc.raw), 0)
			if n != tc.fast {
				t.Errorf("the fast path answered %d requests, want %d", n, tc.fast)
			}
		})
	}
}

// TestPipelined sends several requests in one write, the fourth needing credentials: the fast path answers the
// first three, net/http the rest on the same connection, in order.
func TestPipelined(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, nil)
	reqs := []string{
		get("/org/open/core"), get("/org/open/core.nt"), "HEAD /org/open/core/void.ttl HTTP/1.1\r\nHost: x\r\n\r\n",
		get("/org/closed/secret", "Authorization: "+viewer), get("/org/open/core.jsonld"), get("/org/open/core"),
	}
	raw := []byte(strings.Join(reqs, ""))
	out, n := p.Compare(t, raw, 0)
	if n != 3 {
		t.Errorf("the fast path answered %d requests, want 3", n)
	}
	statuses := readStatuses(t, out, []string{"GET", "GET", "HEAD", "GET", "GET", "GET"})
	if fmt.Sprint(statuses) != "[200 200 200 200 200 200]" {
		t.Errorf("statuses %v", statuses)
	}
	// A request split over many small writes, and pipelined requests split anywhere.
	for _, chunk := range []int{1, 7, 100} {
		if _, n := p.Compare(t, []byte(get("/org/open/core")+get("/org/open/core.nt")+get("/org/open/core/void.ttl")), chunk); n != 3 {
			t.Errorf("chunks of %d: the fast path answered %d requests, want 3", chunk, n)
		}
	}
}

func readStatuses(t *testing.T, raw []byte, methods []string) []int {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(raw))
	var out []int
	for _, m := range methods {
		resp, err := http.ReadResponse(br, &http.Request{Method: m})
		if err != nil {
			t.Fatalf("response %d: %v", len(out)+1, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out = append(out, resp.StatusCode)
	}
	return out
}

// TestPrivateNeverFast: a private publication's route, once in the route cache through an authorised request, is
// still never answered by the fast path, with or without credentials.
func TestPrivateNeverFast(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, nil)
	for range 2 {
		out, n := p.Compare(t, []byte(get("/org/closed/secret", "Authorization: "+viewer)), 0)
		if n != 0 || !bytes.HasPrefix(out, []byte("HTTP/1.1 200 ")) {
			t.Fatalf("authorised: fast path answered %d:\n%.300s", n, out)
		}
		out, n = p.Compare(t, []byte(get("/org/closed/secret")+get("/org/closed/secret.ttl")+get("/org/closed/secret/void.ttl")), 0)
		if n != 0 || !bytes.HasPrefix(out, []byte("HTTP/1.1 404 ")) {
			t.Fatalf("anonymous: fast path answered %d:\n%.300s", n, out)
		}
	}
	for _, path := range []string{"/org/closed/secret", "/org/closed/secret.ttl", "/org/closed/secret/void.ttl"} {
		if _, ok := f.h.Prepared(path, "", "", ""); ok {
			t.Errorf("Prepared(%s) answers a private publication", path)
		}
	}
	if _, ok := f.h.Prepared("/org/open/core", "", "", ""); !ok {
		t.Error("Prepared(/org/open/core) has no answer")
	}
}

// dial opens a connection to addr and returns it with a reader.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader, raw string) *http.Response {
	t.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: strings.Fields(raw)[0]})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// closedWithin waits for the server to close c (EOF with nothing read) and reports how long it took.
func closedWithin(t *testing.T, br *bufio.Reader, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	b, err := br.ReadByte()
	if err == nil {
		t.Fatalf("read %q, want the connection closed", b)
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("connection still open after %v", time.Since(start))
	}
	if d := time.Since(start); d > limit {
		t.Fatalf("closed after %v, want within %v", d, limit)
	}
	return time.Since(start)
}

// TestHandOverMidConnection: keep-alive requests answered by the fast path, then one that needs credentials is
// answered by net/http on the same connection, and so is every later one.
func TestHandOverMidConnection(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, nil)
	c, br := dial(t, p.Fast)
	before := p.Answered.Load()
	for range 3 {
		if r := roundTrip(t, c, br, get("/org/open/core.nt")); r.StatusCode != 200 {
			t.Fatalf("status %d", r.StatusCode)
		}
	}
	if n := p.Answered.Load() - before; n != 3 {
		t.Fatalf("the fast path answered %d of 3", n)
	}
	r := roundTrip(t, c, br, get("/org/closed/secret", "Authorization: "+viewer))
	if r.StatusCode != 200 || r.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("private with credentials: %d %v", r.StatusCode, r.Header)
	}
	if r := roundTrip(t, c, br, get("/org/open/core.nt")); r.StatusCode != 200 {
		t.Fatalf("after the hand-over: %d", r.StatusCode)
	}
	if n := p.Answered.Load() - before; n != 3 {
		t.Errorf("the fast path answered %d requests, want 3 (net/http keeps the connection)", n)
	}
}

// TestSlowloris: a header block that does not arrive within ReadHeaderTimeout closes the connection, whether
// nothing more comes or it trickles in.
func TestSlowloris(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, func(hs *http.Server) { hs.ReadHeaderTimeout = 300 * time.Millisecond })
	c, br := dial(t, p.Fast)
	_, _ = io.WriteString(c, "GET /org/open/core HTTP/1.1\r\nHost: x\r\n")
	closedWithin(t, br, 2*time.Second)

	c, br = dial(t, p.Fast)
	stop := make(chan struct{})
	defer close(stop)
	go func(c net.Conn) {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := io.WriteString(c, []string{"GET /org/open/core HTTP/1.1\r\n", "X-A: b\r\n"}[min(i, 1)]); err != nil {
				return
			}
		}
	}(c)
	closedWithin(t, br, 2*time.Second)

	// The timeout of a later request runs from its first byte, not from the connection's start.
	c, br = dial(t, p.Fast)
	roundTrip(t, c, br, get("/org/open/core"))
	time.Sleep(400 * time.Millisecond)
	if r := roundTrip(t, c, br, get("/org/open/core")); r.StatusCode != 200 {
		t.Fatalf("second request: %d", r.StatusCode)
	}
}

// TestIdleTimeout: a keep-alive connection with no request for IdleTimeout is closed.
func TestIdleTimeout(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, func(hs *http.Server) { hs.IdleTimeout = 300 * time.Millisecond })
	c, br := dial(t, p.Fast)
	for range 3 {
		roundTrip(t, c, br, get("/org/open/core"))
		time.Sleep(100 * time.Millisecond) // shorter than the timeout: the connection stays
	}
	if d := closedWithin(t, br, 2*time.Second); d < 150*time.Millisecond {
		t.Errorf("closed after %v, before the idle timeout", d)
	}
}

// TestShutdown: Shutdown closes idle connections on both sides at once, lets a request being answered finish,
// refuses new connections and returns.
func TestShutdown(t *testing.T) {
	f := newFixture(t)
	hs := &http.Server{Handler: f.h}
	fs, err := fastpath.New(fastpath.Options{HTTP: hs, Lookup: f.h.Prepared})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- fs.Serve(l) }()
	addr := l.Addr().String()
	fastC, fastR := dial(t, addr)
	roundTrip(t, fastC, fastR, get("/org/open/core"))
	slowC, slowR := dial(t, addr)
	roundTrip(t, slowC, slowR, get("/org/closed/secret", "Authorization: "+viewer)) // now net/http's
	// Connected, nothing sent: closed like an idle one.
	_, silentR := dial(t, addr)
	// A request half sent: Shutdown waits for it.
	busyC, busyR := dial(t, addr)
	_, _ = io.WriteString(busyC, "GET /org/open/core HTTP/1.1\r\n")
	time.Sleep(50 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- fs.Shutdown(ctx) }()
	closedWithin(t, fastR, time.Second)
	closedWithin(t, slowR, time.Second)
	closedWithin(t, silentR, time.Second)
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v while a request was being read", err)
	case <-time.After(100 * time.Millisecond):
	}
	_, _ = io.WriteString(busyC, "Host: x\r\n\r\n")
	resp, err := http.ReadResponse(busyR, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the request in progress: %v %v", resp, err)
	}
	resp.Body.Close()
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Fatalf("Serve returned %v", err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatal("a connection was accepted after Shutdown")
	}
}

// FuzzRequest sends arbitrary bytes to the fast path and to net/http alone: no panic, and the same answer (which
// also covers any request the fast path answers itself).
func FuzzRequest(f *testing.F) {
	fx := newFixture(f)
	p := fptest.Start(f, fx.h, fx.h.Prepared, nil)
	for _, s := range []string{
		get("/org/open/core"),
		get("/org/open/core.nt", "Accept-Encoding: gzip", "If-Modified-Since: Mon, 02 Jan 2006 15:04:05 GMT"),
		get("/org/open/core", "Accept: text/turtle;q=0, */*;q=0.1") + get("/org/open/core.jsonld"),
		"HEAD /org/open/core/void.ttl HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		get("/org/closed/secret"),
		"GET /org/open/core HTTP/1.1\r\nHost: x\r\nIf-None-Match: W/\"a\", *\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p.Compare(t, raw, 0)
	})
}

// TestPageLanguages: a publication page in several languages (the fixture ontology's labels are English and
// Dutch) is answered by the fast path in the language Accept-Language asks for, byte for byte as net/http answers;
// a request with two Accept-Language fields goes to net/http.
func TestPageLanguages(t *testing.T) {
	hub := pipelinetest.New(t)
	hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h, err := site.NewHandler(site.Options{Dir: buildTree(t, hub, &pipeline.HTML{})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	pair := fptest.Start(t, h, h.Prepared, nil)
	const browser = "Accept: text/html,application/xhtml+xml,*/*;q=0.8"
	en, nl := `hreflang="en" lang="en" aria-current="true"`, `hreflang="nl" lang="nl" aria-current="true"`
	for _, tc := range []struct {
		name, raw, want string
		fast            int64
	}{
		{"no language", get("/org/open/core", browser), en, 1},
		{"Dutch", get("/org/open/core", browser, "Accept-Language: nl-BE, nl;q=0.9"), nl, 1},
		{"English by weight", get("/org/open/core", browser, "Accept-Language: nl;q=0.2, en;q=0.8"), en, 1},
		{"no page in French", get("/org/open/core", browser, "Accept-Language: fr"), en, 1},
		{"extension", get("/org/open/core.html", "Accept-Language: nl"), nl, 1},
		{"chosen with the switch", get("/org/open/core?lang=nl", browser), nl, 0},
		{"two fields", get("/org/open/core", browser, "Accept-Language: nl", "Accept-Language: en"), nl, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, n := pair.Compare(t, []byte(tc.raw), 0)
			if n != tc.fast {
				t.Errorf("the fast path answered %d requests, want %d", n, tc.fast)
			}
			if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "Vary: Accept") {
				t.Errorf("the answer lacks %q or Vary:\n%.600s", tc.want, out)
			}
		})
	}
}
