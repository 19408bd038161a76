package pipeline

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/site/webconf"
	"github.com/ldhub/ldhub/site/webconf/nginxtest"
)

// answer is what a GET of a direct URL gave.
type answer struct {
	status                       int
	body                         []byte
	ctype, etag, modified        string
	vary                         []string
	location, link, cacheControl string
	static                       bool // nginx answered from files
}

func getAs(t *testing.T, url, accept, encoding string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req) // Accept-Encoding is the test's alone
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := res.Header
	return answer{status: res.StatusCode, body: b, ctype: h.Get("Content-Type"), etag: h.Get("ETag"),
		modified: h.Get("Last-Modified"), vary: h.Values("Vary"), location: h.Get("Content-Location"), link: h.Get("Link"),
		cacheControl: h.Get("Cache-Control"), static: h.Get("X-LDHub-Static") != ""}
}

// TestLargeDumpsAfterTheSwitch: under Run, a large N-Triples version goes live without its RDF/XML and JSON-LD
// dumps. Its page lists them, and both folders hold the marker. Until the background worker writes them, the
// direct URL answers their media types by converting the N-Triples dump: the bytes the worker then writes, with
// the same headers (ETag and Last-Modified included); the worker's files are byte for byte those of a render that
// writes every dump at once (blank nodes included), one inode in the version and latest folders, with the
// version's time, and page.json then gives their sizes. A stop before the worker ran leaves them to the next
// sync, which writes them at once without a worker.
func TestLargeDumpsAfterTheSwitch(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "big", ".nt", largeVocabNT("first"))
	late := []string{"data.ttl", "data.rdf", "data.jsonld"}

	// The reference: a pipeline without a background worker writes every dump in the render.
	ref := t.TempDir()
	p0, err := New(Options{Store: h.Store, Out: ref, BaseURL: "http://hub.example", HTML: &HTML{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p0.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	refCur := filepath.Join(tree.PubDir(tree.Root(ref, false), "/org/open/big"), tree.Current)
	want := map[string][]byte{}
	for _, name := range late {
		if want[name], err = os.ReadFile(filepath.Join(refCur, name)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(want[name], []byte("A. Creator")) {
			t.Fatalf("the reference %s lacks the blank node's statement", name)
		}
	}
	if latePending(refCur) {
		t.Fatal("a marker without a background worker")
	}

	p, q, out := laterPipeline(t, h)
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	meta := tree.PubDir(tree.Root(out, false), "/org/open/big")
	cur := filepath.Join(meta, tree.Current)
	pg := readPage(t, cur)
	v1 := filepath.Join(meta, tree.Versions, filepath.Base(pg.Version.URL))
	for _, dir := range []string{cur, v1} {
		for _, name := range late {
			if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Fatalf("%s: %s before the worker ran (%v)", dir, name, err)
			}
		}
		if !latePending(dir) {
			t.Fatalf("%s: no marker", dir)
		}
		if fs := readPage(t, dir).Formats; len(fs) != len(graphSyntaxes) || fs[2].Ext != ".rdf" || fs[3].Ext != ".jsonld" {
			t.Fatalf("%s: the page lists %v", dir, fs)
		}
	}

	// The direct URL, before and after the worker.
	srv := serveTree(t, out)
	type ask struct{ url, accept, encoding, file string }
	asks := []ask{
		{srv.URL + "/org/open/big", "application/rdf+xml", "", "data.rdf"},
		{srv.URL + "/org/open/big", "*/*", "", "data.ttl"},
		{srv.URL + "/org/open/big.ttl", "", "gzip", "data.ttl"},
		{srv.URL + "/org/open/big", "application/ld+json", "gzip", "data.jsonld"},
		{srv.URL + "/org/open/big.rdf", "*/*", "", "data.rdf"},
		{srv.URL + pg.Version.URL + ".jsonld", "", "", "data.jsonld"},
	}
	before := make([]answer, len(asks))
	for i, a := range asks {
		before[i] = getAs(t, a.url, a.accept, a.encoding)
		if before[i].status != http.StatusOK || !bytes.Equal(before[i].body, want[a.file]) || before[i].etag == "" || before[i].modified == "" {
			t.Fatalf("%s (Accept %s) before the worker: %d, %d bytes (want %d), ETag %q, Last-Modified %q", a.url, a.accept,
				before[i].status, len(before[i].body), len(want[a.file]), before[i].etag, before[i].modified)
		}
	}
	// The generated nginx configuration in front: a publication whose data.rdf is not written yet is ldhub's to
	// answer, whole; once it is, nginx answers from the files, with the same validators.
	nginx := startNginx(t, out, srv.URL)
	front := func(a ask) answer {
		b := getAs(t, nginx+strings.TrimPrefix(a.url, srv.URL), a.accept, a.encoding)
		if b.status != http.StatusOK || !bytes.Equal(b.body, want[a.file]) {
			t.Fatalf("nginx: %s (Accept %s): %d, %d bytes (want %d)", a.url, a.accept, b.status, len(b.body), len(want[a.file]))
		}
		return b
	}
	for i, a := range asks {
		if b := front(a); b.static || b.etag != before[i].etag {
			t.Errorf("nginx: %s (Accept %s) before the worker: from files %v, ETag %s (ldhub's %s)", a.url, a.accept, b.static, b.etag, before[i].etag)
		}
	}

	// A stop now: another process's next sync, without a worker, writes them.
	other := t.TempDir()
	if err := os.CopyFS(other, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
	p2, err := New(Options{Store: h.Store, Out: other, BaseURL: "http://hub.example", HTML: &HTML{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	ocur := filepath.Join(tree.PubDir(tree.Root(other, false), "/org/open/big"), tree.Current)
	for _, name := range late {
		if got, err := os.ReadFile(filepath.Join(ocur, name)); err != nil || !bytes.Equal(got, want[name]) {
			t.Errorf("after a stop, the next sync's %s differs from the reference (%v)", name, err)
		}
		if got := gunzip(t, filepath.Join(ocur, name+".gz")); !bytes.Equal(got, want[name]) {
			t.Errorf("after a stop, %s.gz differs from the reference", name)
		}
	}
	if latePending(ocur) {
		t.Error("after a stop, the next sync left the marker")
	}

	// The worker: the late dumps first.
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); p.runGzip(wctx, q) }()
	if err := p.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	<-done
	for _, name := range late {
		vf, err := os.Stat(filepath.Join(v1, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{cur, v1} {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.Equal(got, want[name]) {
				t.Errorf("%s: %s differs from the one written in the render (%v)", dir, name, err)
			}
			if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !os.SameFile(fi, vf) || !fi.ModTime().Equal(pg.Modified) {
				t.Errorf("%s: %s is not the version folder's file with the version's time: %v", dir, name, err)
			}
			if got := gunzip(t, filepath.Join(dir, name+".gz")); !bytes.Equal(got, want[name]) {
				t.Errorf("%s: %s.gz differs", dir, name)
			}
		}
	}
	for _, dir := range []string{cur, v1} {
		if latePending(dir) {
			t.Errorf("%s: marker left", dir)
		}
		for _, f := range readPage(t, dir).Formats {
			if fi, err := os.Stat(filepath.Join(dir, f.File())); err != nil || fi.Size() != f.Size {
				t.Errorf("%s: page.json gives %s %d bytes (%v)", dir, f.File(), f.Size, err)
			}
		}
	}
	time.Sleep(1100 * time.Millisecond) // nginx's open_file_cache_valid: it looks for data.rdf again
	for i, a := range asks {
		if b := front(ask{a.url, a.accept, "", a.file}); !b.static || b.etag != before[i].etag {
			t.Errorf("nginx: %s (Accept %s) after the worker: from files %v, ETag %s (ldhub's before: %s)", a.url, a.accept, b.static, b.etag, before[i].etag)
		}
	}
	for i, a := range asks {
		after := getAs(t, a.url, a.accept, "")
		b := before[i]
		b.body, after.body = nil, nil // compared with the reference above
		if !reflect.DeepEqual(b, after) {
			t.Errorf("%s (Accept %s): before the worker\n%+v\nafter it\n%+v", a.url, a.accept, b, after)
		}
	}
}

// startNginx runs the real nginx with the generated configuration over the rendered tree out, in front of the
// handler at upstream, and returns its URL. Without nginx it skips (fails under CI=true).
func startNginx(t *testing.T, out, upstream string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("nginx is required under CI=true: %v", err)
		}
		t.Skipf("nginx not installed: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	conf, err := webconf.NginxConfig(webconf.ServerConfig{Listen: addr, Dir: out, Upstream: strings.TrimPrefix(upstream, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nginxtest.Start(t, bin, conf, addr, nginxtest.Options{}))
	return "http://" + addr
}

// TestLateDumpThatCannotBeWritten: a large version whose data RDF/XML cannot hold (a predicate that does not split
// into a QName) goes live with RDF/XML listed; until the worker has tried, the direct URL answers RDF/XML with 406
// and the reason, and JSON-LD with the converted dump; once it has, the page no longer lists RDF/XML, as a render
// that writes every dump at once leaves it out, and the marker is gone.
func TestLateDumpThatCannotBeWritten(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "odd", ".nt", largeVocabNT("odd")+"<http://example.org/s> <http://example.org/p/123> \"x\" .\n")
	ref := t.TempDir()
	p0, err := New(Options{Store: h.Store, Out: ref, BaseURL: "http://hub.example", HTML: &HTML{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p0.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	refPage := readPage(t, filepath.Join(tree.PubDir(tree.Root(ref, false), "/org/open/odd"), tree.Current))
	if len(refPage.Formats) != len(graphSyntaxes)-1 {
		t.Fatalf("a render at once lists %v; RDF/XML should be left out", refPage.Formats)
	}

	p, q, out := laterPipeline(t, h)
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	cur := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/odd"), tree.Current)
	if n := len(readPage(t, cur).Formats); n != len(graphSyntaxes) {
		t.Fatalf("live with %d formats listed", n)
	}
	srv := serveTree(t, out)
	if a := getAs(t, srv.URL+"/org/open/odd", "application/rdf+xml", ""); a.status != http.StatusNotAcceptable || !bytes.Contains(a.body, []byte("RDF/XML")) && !bytes.Contains(a.body, []byte("rdf")) {
		t.Errorf("RDF/XML before the worker: %d %s", a.status, a.body)
	}
	if a := getAs(t, srv.URL+"/org/open/odd", "application/ld+json", ""); a.status != http.StatusOK {
		t.Errorf("JSON-LD before the worker: %d %.200s", a.status, a.body)
	}

	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); p.runGzip(wctx, q) }()
	if err := p.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	<-done
	got := readPage(t, cur).Formats
	if len(got) != len(refPage.Formats) {
		t.Fatalf("after the worker the page lists %v; a render at once lists %v", got, refPage.Formats)
	}
	for i := range got {
		if got[i] != refPage.Formats[i] {
			t.Errorf("format %d: %+v, a render at once: %+v", i, got[i], refPage.Formats[i])
		}
	}
	if latePending(cur) {
		t.Error("marker left")
	}
	if a := getAs(t, srv.URL+"/org/open/odd", "application/rdf+xml", ""); a.status != http.StatusNotAcceptable {
		t.Errorf("RDF/XML after the worker: %d", a.status)
	}
}

// TestLateConversionInTheTree: the handler's conversion of a dump not written yet is made in the rendered tree
// under a .tmp- name, not in os.TempDir: with TMPDIR unusable it still answers, leaves nothing behind once
// answered, and a file of that name left by a process killed mid-conversion is removed by the start-up sweep.
func TestLateConversionInTheTree(t *testing.T) {
	ctx := context.Background()
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "big", ".nt", largeVocabNT("tmp"))
	p, _, out := laterPipeline(t, h)
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if !latePending(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/big"), tree.Current)) {
		t.Fatal("no late dumps: the test converts nothing")
	}
	srv := serveTree(t, out)
	t.Setenv("TMPDIR", filepath.Join(out, "no-such-folder")) // os.CreateTemp("", …) fails from here on
	for _, accept := range []string{"application/rdf+xml", "application/ld+json"} {
		if a := getAs(t, srv.URL+"/org/open/big", accept, ""); a.status != http.StatusOK || !bytes.Contains(a.body, []byte("tmp")) {
			t.Errorf("%s with TMPDIR unusable: %d %.200s", accept, a.status, a.body)
		}
	}
	left, err := filepath.Glob(filepath.Join(out, ".tmp-*"))
	if err != nil || len(left) > 0 {
		t.Fatalf("left after the answers: %v (%v)", left, err)
	}
	killed := filepath.Join(out, ".tmp-late-123")
	if err := os.WriteFile(killed, []byte("half a dump"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := p.sweep(); err != nil || n != 1 {
		t.Fatalf("sweep: %d removed, %v", n, err)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("a killed conversion's file survives the sweep: %v", err)
	}
}

// serveTree serves the rendered tree out with ldhub's handler until the test ends.
func serveTree(t *testing.T, out string) *httptest.Server {
	t.Helper()
	hd, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hd.Close() })
	srv := httptest.NewServer(hd)
	t.Cleanup(srv.Close)
	return srv
}
