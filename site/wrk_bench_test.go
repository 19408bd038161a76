package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/httpx/accesslog"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/fastpath"
	"github.com/ldhub/ldhub/site/webconf"
)

// BenchmarkDirectURLvsNginx loads the handler, the fast path as ldhub serve runs it (site/fastpath, access log
// included) and nginx (serving the same rendered files: the generated configuration, and a bare try_files
// reference) with wrk, alternating rounds, and reports requests per second, CPU per request and the ratios. It needs nginx and wrk and measures whole servers, so b.N is ignored: run it
// with -benchtime 1x.
func BenchmarkDirectURLvsNginx(b *testing.B) {
	for _, tool := range []string{"nginx", "wrk"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	hub := pipelinetest.New(b)
	const pubs = 100
	var paths []string
	for i := range pubs {
		hub.Publish(b, hub.Open.ID, fmt.Sprintf("p%03d", i), ".ttl", pipelinetest.Vocab)
		paths = append(paths, fmt.Sprintf("/org/open/p%03d", i))
	}
	out := b.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	defer srv.Close()
	ceiling := serveCeiling(b, h, paths[0])
	defer ceiling.Close()
	fast := serveFastPath(b, h, os.DevNull)
	defer fast.Close()
	work := b.TempDir()
	pathFile := filepath.Join(work, "paths.txt")
	if err := os.WriteFile(pathFile, []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	genAddr, refAddr := freePortB(b), freePortB(b)
	conf, err := webconf.NginxConfig(webconf.ServerConfig{Listen: genAddr, Dir: out, Upstream: l.Addr().String()})
	if err != nil {
		b.Fatal(err)
	}
	user := ""
	if os.Getuid() == 0 {
		user = "user root;"
	}
	mainConf := fmt.Sprintf(`%[2]s
worker_processes 2;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
  uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  include %[1]s/ldhub.conf;
  server { listen %[3]s; root %[4]s/public; default_type application/n-triples;
    location / { try_files $uri/.ld/cur/data.nt =404; } }
}
`, work, user, refAddr, out)
	for name, body := range map[string]string{"nginx.conf": mainConf, "ldhub.conf": conf} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cmd := exec.Command("nginx", "-p", work, "-c", filepath.Join(work, "nginx.conf"), "-g", "daemon off;")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	time.Sleep(300 * time.Millisecond)
	lua, _ := filepath.Abs("/work/shared/bench/wrk-paths.lua")
	type result struct{ rps, cpuPerReq float64 }
	run := func(addr string, cpu func() float64) result {
		before := cpu()
		c := exec.Command("wrk", "-t2", "-c32", "-d5s", "-s", lua, "http://"+addr)
		c.Env = append(os.Environ(), "WRK_PATHS="+pathFile, "WRK_ACCEPT=application/n-triples")
		outb, err := c.Output()
		if err != nil {
			b.Fatalf("wrk: %v", err)
		}
		used := cpu() - before
		lines := strings.Split(strings.TrimSpace(string(outb)), "\n")
		var res struct {
			Requests float64 `json:"requests"`
			RPS      float64 `json:"rps"`
			Status   int     `json:"errors_status"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Status > 0 || res.Requests == 0 {
			b.Fatalf("wrk output %q: %v", outb, err)
		}
		return result{res.RPS, used / res.Requests * 1e6}
	}
	nginxCPU := workersCPU(b, cmd.Process.Pid)
	servers := []struct {
		name, addr string
		cpu        func() float64
	}{
		{"handler", l.Addr().String(), selfCPU},
		{"nginx-generated", genAddr, nginxCPU},
		{"nginx-bare", refAddr, nginxCPU},
		{"go-ceiling", ceiling.Addr, selfCPU},
		{"fastpath", fast.Addr, selfCPU},
	}
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("WRK_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	res := make([][]result, len(servers))
	for b.Loop() {
		for range rounds { // alternate, so that other load on the machine hits every server alike
			for i, s := range servers {
				res[i] = append(res[i], run(s.addr, s.cpu))
			}
		}
	}
	// Medians; the CPU time each server used per request is steadier than req/s when other work shares the cores.
	rps, cpu := make([]float64, len(servers)), make([]float64, len(servers))
	for i, s := range servers {
		var r, c []float64
		for _, x := range res[i] {
			r, c = append(r, x.rps), append(c, x.cpuPerReq)
		}
		b.Logf("%s: req/s %.0f, CPU µs/req %.1f", s.name, r, c)
		slices.Sort(r)
		slices.Sort(c)
		rps[i], cpu[i] = r[len(r)/2], c[len(c)/2]
		b.ReportMetric(rps[i], s.name+"-rps")
		b.ReportMetric(cpu[i], s.name+"-cpu-us/req")
	}
	b.ReportMetric(rps[0]/rps[2], "handler/bare")
	b.ReportMetric(rps[0]/rps[1], "handler/generated")
	b.ReportMetric(rps[0]/rps[3], "handler/ceiling")
	b.ReportMetric(rps[3]/rps[2], "ceiling/bare")
	b.ReportMetric(rps[4]/rps[2], "fastpath/bare")
	b.ReportMetric(cpu[4]/cpu[2], "fastpath/bare-cpu")
	b.ReportMetric(rps[4]/rps[0], "fastpath/handler")
}

// serveFastPath starts what `ldhub serve` runs for direct URLs (cmd/ldhub/serve.go): site/fastpath in front of an
// http.Server whose handler logs each request, the fast path logging its own requests in the same format, the
// log buffered and flushed every second (here to /dev/null).
// Its access log goes to logPath (os.DevNull for none), written in blocks as ldhub serve writes it.
func serveFastPath(b *testing.B, h *site.Handler, logPath string) *fastServer {
	devnull, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	lw := accesslog.NewBuffered(devnull, time.Second)
	access := slog.New(slog.NewTextHandler(lw, nil))
	logRequest := func(method, path string, status int, n int64, d time.Duration) {
		accesslog.Request(access, method, path, status, n, d)
	}
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 75 * time.Second, Handler: accesslog.Handler(access, h)}
	fs, err := fastpath.New(fastpath.Options{HTTP: hs, Lookup: h.Prepared, Log: logRequest})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go fs.Serve(l)
	return &fastServer{Addr: l.Addr().String(), close: func() {
		_ = fs.Close()
		_ = lw.Close()
		_ = devnull.Close()
	}}
}

type fastServer struct {
	Addr  string
	close func()
}

func (s *fastServer) Close() { s.close() }

// selfCPU is the CPU time (user + system, seconds) this process has used: the Go servers run in it.
func selfCPU() float64 { return conformance.CPUTime().Seconds() }

// workersCPU returns a function summing the CPU time of the processes whose parent is master (nginx's workers),
// from /proc/<pid>/stat in clock ticks (100 per second on Linux).
func workersCPU(b *testing.B, master int) func() float64 {
	var pids []string
	deadline := time.Now().Add(5 * time.Second)
	for len(pids) < 2 && time.Now().Before(deadline) {
		pids = pids[:0]
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if f := statFields(e.Name()); len(f) > 14 && f[1] == strconv.Itoa(master) {
				pids = append(pids, e.Name())
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(pids) == 0 {
		b.Fatalf("no nginx worker under pid %d", master)
	}
	return func() float64 {
		var ticks float64
		for _, pid := range pids {
			if f := statFields(pid); len(f) > 14 {
				u, _ := strconv.ParseFloat(f[11], 64)
				s, _ := strconv.ParseFloat(f[12], 64)
				ticks += u + s
			}
		}
		return ticks / 100
	}
}

// statFields are the fields of /proc/<pid>/stat after the command name: state, ppid, ... (field 4 of proc(5) is
// index 1).
func statFields(pid string) []string {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// serveCeiling starts a net/http server that answers every request with one prepared response: the handler's
// own answer to path (same header fields, same body), copied once. No Go handler can be faster on net/http, so
// handler/ceiling is what is left to gain in the handler and ceiling/bare what net/http costs against nginx.
func serveCeiling(b *testing.B, h http.Handler, path string) *ceilingServer {
	req, err := http.NewRequest("GET", path, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", "application/n-triples")
	rec := &recorder{hdr: http.Header{}}
	h.ServeHTTP(rec, req)
	if rec.status != http.StatusOK {
		b.Fatalf("handler answered %d to %s", rec.status, path)
	}
	body := slices.Clone(rec.body)
	fields := rec.hdr.Clone()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		for k, v := range fields {
			hd[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})}
	go srv.Serve(l)
	return &ceilingServer{Server: srv, Addr: l.Addr().String()}
}

type ceilingServer struct {
	*http.Server
	Addr string
}

type recorder struct {
	hdr    http.Header
	status int
	body   []byte
}

func (r *recorder) Header() http.Header { return r.hdr }
func (r *recorder) WriteHeader(s int)   { r.status = s }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body = append(r.body, b...)
	return len(b), nil
}

func freePortB(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
