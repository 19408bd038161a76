package main

// Helpers for the tests that drive a real `ldhub serve` over HTTP and git: the crash harness (crash_test.go) runs
// the built binary so that it can SIGKILL it; the concurrency test runs serve in-process so -race sees it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/syncbuf"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	virtuoso.Close()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// ldhubBinary builds cmd/ldhub once per test binary; the build cache makes it a link step after the test's own
// compilation.
func ldhubBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		if binDir, binErr = os.MkdirTemp("", "ldhub-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ldhub")
		out, err := exec.Command(goTool, "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// needGit fails under CI=true (skips elsewhere) when the git client is missing.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		conformance.Missing(t, "git is not installed")
	}
}

// freeAddr picks a loopback port that is free now. The crash harness restarts serve on the same address because
// the base URL (and so every rendered IRI) derives from it.
func freeAddr(t *testing.T) string {
	t.Helper()
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		if _, dup := handedOut.LoadOrStore(addr, true); !dup {
			return addr
		}
	}
	t.Fatal("no port that was not handed out already")
	return ""
}

// handedOut holds the addresses freeAddr returned in this test binary. A port is free again once the probe's
// listener is closed, and the kernel may give it to the next call before the first caller's server binds it:
// TestClusterBehindNginx's nginx lost its port to a replica started just before it.
var handedOut sync.Map

// hubProc is one `ldhub serve` process.
type hubProc struct {
	cmd    *exec.Cmd
	logs   *syncbuf.Buffer
	exited chan struct{}
}

var servingRE = regexp.MustCompile(`msg="ldhub serving" addr=(\S+)`)

// startHub runs the binary on data and addr and waits until it listens.
func startHub(t *testing.T, bin, data, addr string, env ...string) *hubProc {
	t.Helper()
	return startHubArgs(t, bin, []string{"serve", "--data", data, "--addr", addr}, env...)
}

// startHubArgs runs the binary with args (a serve command) and waits until it listens.
func startHubArgs(t *testing.T, bin string, args []string, env ...string) *hubProc {
	t.Helper()
	p := &hubProc{logs: &syncbuf.Buffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start ldhub: %v", err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for !servingRE.MatchString(p.logs.String()) {
		select {
		case <-p.exited:
			t.Fatalf("ldhub serve exited: %v\n%s", p.cmd.ProcessState, p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			p.kill()
			t.Fatalf("ldhub serve did not start within 60 s:\n%s", p.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p
}

// kill ends the process with SIGKILL: no deferred function, no flush, no shutdown runs.
func (p *hubProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// stop asks for a clean shutdown and reports how it ended.
func (p *hubProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.kill()
		t.Errorf("ldhub serve ignored SIGTERM for 30 s")
	}
	if !p.cmd.ProcessState.Success() {
		t.Errorf("ldhub serve: %v\n%s", p.cmd.ProcessState, p.logs.String())
	}
}

// client talks to one running hub as one credential. Each hub process gets a client of its own so that no
// pooled connection outlives the process it was opened to.
type client struct {
	base, id, secret string
	hc               *http.Client
}

func newClient(addr, id, secret string) *client {
	return &client{base: "http://" + addr, id: id, secret: secret,
		hc: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
}

func (c *client) close() { c.hc.CloseIdleConnections() }

type reply struct {
	status int
	body   []byte
	header http.Header
}

func (r reply) ok() bool { return r.status >= 200 && r.status < 300 }

func (r reply) String() string { return fmt.Sprintf("%d %.300s", r.status, r.body) }

// do sends one request; an error is a transport failure (no answer at all).
func (c *client) do(method, path, ctype string, body []byte, hdr ...string) (reply, error) {
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	if c.id != "" {
		req.SetBasicAuth(c.id, c.secret)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	return reply{status: res.StatusCode, body: b, header: res.Header}, nil
}

// must sends a request that has to succeed with 2xx and decodes its JSON answer into v (when not nil).
func (c *client) must(t *testing.T, method, path, ctype string, body []byte, v any) {
	t.Helper()
	r, err := c.do(method, path, ctype, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if !r.ok() {
		t.Fatalf("%s %s: %s", method, path, r)
	}
	if v != nil {
		if err := json.Unmarshal(r.body, v); err != nil {
			t.Fatalf("%s %s: decode %.300s: %v", method, path, r.body, err)
		}
	}
}

// multipartBody builds a multipart/form-data body; parts are name, file name, content triples.
func multipartBody(parts ...string) ([]byte, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for i := 0; i+2 < len(parts); i += 3 {
		w, _ := mw.CreateFormFile(parts[i], parts[i+1])
		io.WriteString(w, parts[i+2])
	}
	mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

type idOnly struct {
	ID string `json:"id"`
}

// vocabRepository makes, through c, the public group org and its visible repository vocab, and returns the
// repository's id.
func vocabRepository(t *testing.T, c *client) string {
	t.Helper()
	var g, r idOnly
	c.must(t, "POST", "/api/v3/groups", "application/json", []byte(`{"name":"org","type":"PUBLIC"}`), &g)
	c.must(t, "POST", "/api/v3/repositories", "application/json",
		[]byte(`{"name":"vocab","pathSegment":"vocab","visible":true,"parentId":"`+g.ID+`"}`), &r)
	return r.ID
}

type pubListItem struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Versions []struct {
		ID      string `json:"id"`
		Version string `json:"version"`
	} `json:"versions"`
}

type fileItem struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Location string `json:"location"`
}

type v4Pubs struct {
	Total    int `json:"total"`
	Contents []struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Pending bool   `json:"pending"`
	} `json:"contents"`
}

// ntLines is an N-Triples document as the sorted set of its statements, so that two serialisations of one graph
// without blank nodes compare equal.
func ntLines(b []byte) string {
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
	}
	slices.Sort(lines)
	return strings.Join(slices.Compact(lines), "\n")
}

// ntDoc is a small N-Triples document unique to (who, seq) with absolute IRIs only, so that what is read back can
// be matched to what was written.
func ntDoc(who string, seq, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<http://example.org/%s/s%d> <http://example.org/p%d> \"%s %d\" .\n", who, i, i%3, who, seq)
	}
	return b.String()
}

// gitCmd runs the git CLI without the user's configuration or any prompt.
func gitCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=harness", "GIT_AUTHOR_EMAIL=harness@example.org",
		"GIT_COMMITTER_NAME=harness", "GIT_COMMITTER_EMAIL=harness@example.org", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}
