package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
)

// BenchmarkDirectURLvsNginx loads the handler and nginx (serving the same rendered files: the generated
// configuration, and a bare try_files reference) with wrk, alternating rounds, and reports requests per second
// and the handler's ratio to each. It needs nginx and wrk and measures whole servers, so b.N is ignored: run it
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
	work := b.TempDir()
	pathFile := filepath.Join(work, "paths.txt")
	if err := os.WriteFile(pathFile, []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	genAddr, refAddr := freePortB(b), freePortB(b)
	conf, err := site.NginxConfig(site.ServerConfig{Listen: genAddr, Dir: out, Upstream: l.Addr().String()})
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
	rps := func(addr string) float64 {
		c := exec.Command("wrk", "-t2", "-c32", "-d5s", "-s", lua, "http://"+addr)
		c.Env = append(os.Environ(), "WRK_PATHS="+pathFile, "WRK_ACCEPT=application/n-triples")
		outb, err := c.Output()
		if err != nil {
			b.Fatalf("wrk: %v", err)
		}
		lines := strings.Split(strings.TrimSpace(string(outb)), "\n")
		var res struct {
			RPS    float64 `json:"rps"`
			Status int     `json:"errors_status"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Status > 0 {
			b.Fatalf("wrk output %q: %v", outb, err)
		}
		return res.RPS
	}
	var hs, gs, rs []float64
	for b.Loop() {
		for range 3 { // alternate, so that other load on the machine hits every server alike
			hs = append(hs, rps(l.Addr().String()))
			gs = append(gs, rps(genAddr))
			rs = append(rs, rps(refAddr))
		}
	}
	med := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
	b.ReportMetric(med(hs), "handler-rps")
	b.ReportMetric(med(gs), "nginx-generated-rps")
	b.ReportMetric(med(rs), "nginx-bare-rps")
	b.ReportMetric(med(hs)/med(rs), "handler/bare")
	b.ReportMetric(med(hs)/med(gs), "handler/generated")
}

func freePortB(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
