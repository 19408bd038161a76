package site_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/webconf"
)

var wrkRPS = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

// BenchmarkNginxGeneratedVsPlain is the single-node goal of issue 21: ldhub serve's own answer (the fast path in
// front of the handler) and nginx with the configuration ldhub generates (content negotiation, Link, security
// headers), each against plain nginx serving the same rendered Turtle file (try_files, nothing else), all three
// logging every request to a file, wrk -t2 -c32 with Accept: text/turtle, for documents of about 1 KB, 16 KB and
// 1 MB. Rounds alternate between the servers (WRK_ROUNDS, default 3) and the medians are reported with their
// ratios to plain nginx (goal ≥ 0.9). It measures whole servers, so b.N is ignored: run it with -benchtime 1x.
func BenchmarkNginxGeneratedVsPlain(b *testing.B) {
	for _, tool := range []string{"nginx", "wrk"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("WRK_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	hub := pipelinetest.New(b)
	sizes := []struct {
		name    string
		triples int
	}{{"1KB", 9}, {"16KB", 150}, {"1MB", 9800}}
	for _, s := range sizes {
		var doc strings.Builder
		for i := range s.triples {
			fmt.Fprintf(&doc, "<http://example.org/term/%06d> <http://www.w3.org/2000/01/rdf-schema#label> \"a label of some length for term %d\"@en .\n", i, i)
		}
		hub.Publish(b, hub.Open.ID, "doc"+s.name, ".ttl", doc.String())
	}
	out := b.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	work := b.TempDir()
	genAddr, plainAddr := freePortB(b), freePortB(b)
	// The upstream is never reached for these requests (a dead address makes sure of it: a 502 would fail wrk).
	conf, err := webconf.NginxConfig(webconf.ServerConfig{Listen: genAddr, Dir: out, Upstream: "127.0.0.1:9"})
	if err != nil {
		b.Fatal(err)
	}
	user := ""
	if os.Getuid() == 0 {
		user = "user root;"
	}
	// Debian's nginx.conf settings for both servers (sendfile, tcp_nopush, keepalive); each server logs to its own
	// file in the default combined format.
	mainConf := fmt.Sprintf(`%[2]s
worker_processes 2;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
  sendfile on; tcp_nopush on; keepalive_requests 100000;
  access_log %[1]s/generated.log;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
  uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  include %[1]s/ldhub.conf;
  server { listen %[3]s; root %[4]s/public; default_type text/turtle; access_log %[1]s/plain.log;
    location / { try_files $uri/.ld/cur/data.ttl =404; } }
}
`, work, user, plainAddr, out)
	for name, body := range map[string]string{"nginx.conf": mainConf, "ldhub.conf": conf} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cmd := exec.Command("nginx", "-p", work, "-c", filepath.Join(work, "nginx.conf"), "-g", "daemon off;")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	time.Sleep(300 * time.Millisecond)
	nginxCPU := workersCPU(b, cmd.Process.Pid)
	// ldhub serve's own answer for the same files: the fast path in front of the handler, logging every request
	// to a file as the two nginx servers do.
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		b.Fatal(err)
	}
	fast := serveFastPath(b, h, filepath.Join(work, "ldhub.log"))
	defer fast.Close()
	type result struct{ rps, cpuPerReq float64 }
	run := func(url string, cpu func() float64) result {
		before := cpu()
		o, err := exec.Command("wrk", "-t2", "-c32", "-d5s", "-H", "Accept: text/turtle", url).CombinedOutput()
		used := cpu() - before
		m := wrkRPS.FindSubmatch(o)
		if err != nil || m == nil || strings.Contains(string(o), "Non-2xx") {
			b.Fatalf("wrk %s: %v\n%s", url, err, o)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return result{v, used / (v * 5) * 1e6}
	}
	for b.Loop() {
		for _, s := range sizes {
			path := "/org/open/doc" + s.name
			fi, err := os.Stat(filepath.Join(out, "public", "org", "open", "doc"+s.name, ".ld", "cur", "data.ttl"))
			if err != nil {
				b.Fatal(err)
			}
			servers := []struct {
				name string
				url  string
				cpu  func() float64
			}{
				{"ldhub", "http://" + fast.Addr + path, selfCPU},
				{"generated", "http://" + genAddr + path, nginxCPU},
				{"plain", "http://" + plainAddr + path, nginxCPU},
			}
			rps := make([][]float64, len(servers))
			cpus := make([][]float64, len(servers))
			for range rounds {
				for i, sv := range servers {
					r := run(sv.url, sv.cpu)
					rps[i], cpus[i] = append(rps[i], r.rps), append(cpus[i], r.cpuPerReq)
				}
			}
			med := func(x []float64) float64 { x = slices.Clone(x); slices.Sort(x); return x[len(x)/2] }
			pl, pc := med(rps[2]), med(cpus[2])
			for i, sv := range servers[:2] {
				g, gc := med(rps[i]), med(cpus[i])
				// CPU per request is what the server costs; req/s also moves with the machine's other load.
				b.Logf("%s (data.ttl %d bytes): %s %.0f req/s %.0f, %.1f µs CPU/req %.1f; plain %.0f req/s %.0f, %.1f µs CPU/req %.1f; req/s ratio %.2f, CPU ratio (plain ÷ %s) %.2f",
					s.name, fi.Size(), sv.name, g, rps[i], gc, cpus[i], pl, rps[2], pc, cpus[2], g/pl, sv.name, pc/gc)
				b.ReportMetric(g/pl, s.name+"-"+sv.name+"/plain")
				b.ReportMetric(pc/gc, s.name+"-cpu-plain/"+sv.name)
			}
		}
	}
}
