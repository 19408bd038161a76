package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/site/webconf"
	"github.com/ldhub/ldhub/site/webconf/nginxtest"
)

// startNginx runs Debian's nginx with an http-level include and waits until it listens on addr.
func startNginx(t *testing.T, include, addr string) (stop func()) {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			conformance.Missing(t, "nginx is not installed")
		}
	}
	return nginxtest.Start(t, bin, include, addr, nginxtest.Options{Workers: 2, Connections: 1024, AccessLog: true})
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

var versionRE = regexp.MustCompile(`"v(\d+)"`)

// TestClusterBehindNginx is the three-node setup (docs/scaling.md): one primary, two replicas, Debian's nginx
// balancing with the configuration `ldhub balancer` generates. Readers read through nginx and from each replica
// directly while a writer publishes new versions; one replica is killed and restarted half-way. No read through
// nginx may fail (nginx retries reads on the surviving nodes), no reader of one replica may see the version go
// backwards, the restarted replica catches up, and every version reaches every replica; the lag from the
// primary's accepted write to each replica serving it is reported (p50, p99). CLUSTER_WRITES sets the number of
// writes (default 12: about a minute on 2 cores; make bench-cluster runs more, and wrk).
func TestClusterBehindNginx(t *testing.T) {
	writes := 12
	if v, err := strconv.Atoi(os.Getenv("CLUSTER_WRITES")); err == nil && v > 0 {
		writes = v
	}
	const rootID, rootSecret = "root", "cluster-test-secret"
	bin := ldhubBinary(t)
	pdata, paddr := t.TempDir(), freeAddr(t)
	lbAddr := freeAddr(t)
	base := "http://" + lbAddr
	// Every node renders with the balancer's address: the public URL readers use.
	primary := startHubArgs(t, bin, []string{"serve", "--data", pdata, "--addr", paddr, "--base-url", base},
		"LDHUB_ADMIN_ID="+rootID, "LDHUB_ADMIN_SECRET="+rootSecret)
	defer primary.stop(t)
	c := newClient(paddr, rootID, rootSecret)
	defer c.close()
	var g, vocab idOnly
	c.must(t, "POST", "/api/v3/groups", "application/json", []byte(`{"name":"org","pathSegment":"org","type":"PUBLIC"}`), &g)
	c.must(t, "POST", "/api/v3/repositories", "application/json", []byte(`{"name":"vocab","pathSegment":"vocab","visible":true,"parentId":"`+g.ID+`"}`), &vocab)
	doc := func(n int) string {
		return fmt.Sprintf("<Thing> <http://www.w3.org/2000/01/rdf-schema#label> \"v%d\" .\n", n)
	}
	body, ctype := multipartBody("metadata", "meta.json", `{"name":"core"}`, "content", "core.ttl", doc(0))
	c.must(t, "POST", "/api/v3/repositories/"+vocab.ID+"/publications", ctype, body, nil)
	renv := followCredential(t, bin, pdata, "replicas")
	type node struct {
		addr, data string
		args       []string
		proc       *hubProc
		mu         sync.Mutex
	}
	replicas := make([]*node, 2)
	for i := range replicas {
		n := &node{addr: freeAddr(t), data: t.TempDir()}
		n.args = []string{"serve", "--data", n.data, "--addr", n.addr, "--follow", "http://" + paddr}
		n.proc = startHubArgs(t, bin, n.args, renv)
		replicas[i] = n
	}
	defer func() {
		for _, n := range replicas {
			n.mu.Lock()
			n.proc.stop(t)
			n.mu.Unlock()
		}
	}()
	conf, err := webconf.BalancerNginxConfig(webconf.BalancerConfig{Listen: lbAddr, Nodes: []string{paddr, replicas[0].addr, replicas[1].addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer startNginx(t, conf, lbAddr)()

	version := func(cl *client) (int, int, error) {
		res, err := cl.do("GET", "/org/vocab/core", "", nil, "Accept", "text/turtle")
		if err != nil {
			return 0, 0, err
		}
		m := versionRE.FindSubmatch(res.body)
		if res.status != 200 || m == nil {
			return res.status, -1, nil
		}
		v, _ := strconv.Atoi(string(m[1]))
		return res.status, v, nil
	}
	lb := newClient(lbAddr, "", "")
	defer lb.close()
	waitVersion := func(cl *client, want int, limit time.Duration) (time.Duration, bool) {
		start := time.Now()
		for time.Since(start) < limit {
			if _, v, err := version(cl); err == nil && v >= want {
				return time.Since(start), true
			}
			time.Sleep(5 * time.Millisecond)
		}
		return limit, false
	}
	for _, n := range replicas {
		if _, ok := waitVersion(newClient(n.addr, "", ""), 0, 60*time.Second); !ok {
			t.Fatalf("replica %s never served the first version:\n%s", n.addr, n.proc.logs.String())
		}
	}

	// Readers: through nginx (no request may fail), and one per replica directly (the version never goes back
	// while the replica lives; connection errors while it is down are expected).
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var lbReads, lbFailures atomic.Int64
	var failMu sync.Mutex
	var failures []string
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := newClient(lbAddr, "", "")
			defer cl.close()
			for {
				select {
				case <-stop:
					return
				default:
				}
				st, v, err := version(cl)
				lbReads.Add(1)
				if err != nil || st != 200 || v < 0 {
					lbFailures.Add(1)
					failMu.Lock()
					failures = append(failures, fmt.Sprintf("through nginx: %d %v", st, err))
					failMu.Unlock()
				}
			}
		}()
	}
	var backwards atomic.Int64
	for _, n := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := newClient(n.addr, "", "")
			defer cl.close()
			last := -1
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, v, err := version(cl)
				if err != nil {
					last = -1 // down: a new process starts from its copy on disk, which may only be ahead
					cl.close()
					time.Sleep(20 * time.Millisecond)
					continue
				}
				if v >= 0 && v < last {
					backwards.Add(1)
					failMu.Lock()
					failures = append(failures, fmt.Sprintf("replica %s went back from v%d to v%d", n.addr, last, v))
					failMu.Unlock()
				}
				if v >= 0 {
					last = v
				}
			}
		}()
	}

	// The writer publishes through nginx (a replica forwards it); lag is measured from the primary's accepted write.
	var lags []time.Duration
	writer := newClient(lbAddr, rootID, rootSecret)
	defer writer.close()
	for i := 1; i <= writes; i++ {
		if i == writes/2 {
			replicas[0].mu.Lock()
			replicas[0].proc.kill()
			replicas[0].mu.Unlock()
		}
		if i == writes/2+2 {
			replicas[0].mu.Lock()
			replicas[0].proc = startHubArgs(t, bin, replicas[0].args, renv)
			replicas[0].mu.Unlock()
		}
		body, ctype := multipartBody("meta-data", "meta.json", `{"name":"core"}`, "Content", "core.ttl", doc(i))
		res, err := writer.do("PUT", "/api/v3/repositories/"+vocab.ID+"/publications", ctype, body)
		if err != nil || !res.ok() {
			t.Fatalf("write %d through nginx: %v %v", i, res, err)
		}
		accepted := time.Now()
		for _, n := range replicas {
			n.mu.Lock()
			alive := n.proc.cmd.ProcessState == nil
			n.mu.Unlock()
			if i >= writes/2 && i < writes/2+2 && n == replicas[0] || !alive {
				continue
			}
			d, ok := waitVersion(newClient(n.addr, "", ""), i, 30*time.Second)
			if !ok {
				t.Errorf("replica %s did not serve v%d within 30 s", n.addr, i)
			}
			_ = d
			lags = append(lags, time.Since(accepted))
		}
	}
	// The restarted replica caught up: it serves the last version.
	if _, ok := waitVersion(newClient(replicas[0].addr, "", ""), writes, 30*time.Second); !ok {
		t.Errorf("the restarted replica did not catch up to v%d:\n%s", writes, replicas[0].proc.logs.String())
	}
	close(stop)
	wg.Wait()
	if lbFailures.Load() > 0 || backwards.Load() > 0 {
		t.Errorf("%d of %d reads through nginx failed, %d went backwards: %.20q", lbFailures.Load(), lbReads.Load(), backwards.Load(), failures)
	}
	t.Logf("cluster: %d writes, %d reads through nginx (0 failed), replica lag p50 %s p99 %s (n=%d)",
		writes, lbReads.Load(), percentile(lags, 0.5), percentile(lags, 0.99), len(lags))
	if os.Getenv("CLUSTER_WRK") != "" {
		clusterThroughput(t, lbAddr, paddr, replicas[0].addr, replicas[1].addr)
	}
}

var (
	rpsRE    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	non2xxRE = regexp.MustCompile(`Non-2xx or 3xx responses:\s+(\d+)`)
)

// clusterThroughput runs wrk (-t2 -c32, 5 s) through nginx balancing over 1, 2 and 3 nodes, on a direct URL and
// on a SPARQL query, and logs requests per second. On a machine of 2 cores this shows the overhead and the
// correctness of balancing, not a speed-up: every node competes for the same cores.
func clusterThroughput(t *testing.T, nodes ...string) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		conformance.Missing(t, "wrk is not installed")
	}
	nodes = nodes[1:]
	xffScript := filepath.Join(t.TempDir(), "xff.lua")
	if err := os.WriteFile(xffScript, []byte(`request = function()
  wrk.headers["X-Forwarded-For"] = "10." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(1, 254)
  return wrk.format()
end
`), 0o644); err != nil {
		t.Fatal(err)
	}
	query := "/org/vocab/core/sparql?query=" + strings.ReplaceAll("SELECT%20%3Fl%20WHERE%20%7B%20%3Fs%20%3Chttp%3A%2F%2Fwww.w3.org%2F2000%2F01%2Frdf-schema%23label%3E%20%3Fl%20%7D", " ", "")
	for n := 1; n <= len(nodes); n++ {
		lb := freeAddr(t)
		conf, err := webconf.BalancerNginxConfig(webconf.BalancerConfig{Listen: lb, Nodes: nodes[:n]})
		if err != nil {
			t.Fatal(err)
		}
		stop := startNginx(t, conf, lb)
		for _, target := range []struct{ name, path, accept string }{
			{"direct URL", "/org/vocab/core", "text/turtle"},
			{"SPARQL", query, "application/sparql-results+json"},
		} {
			args := []string{"-t2", "-c32", "-d5s", "-H", "Accept: " + target.accept}
			if target.name == "SPARQL" {
				// Each request from another client address: ldhub admits 2 queries at once per client (8 per node),
				// and wrk is one client; behind the trusted nginx the forwarded address counts.
				args = append(args, "-s", xffScript)
			}
			out, err := exec.Command(wrk, append(args, "http://"+lb+target.path)...).CombinedOutput()
			m := rpsRE.FindSubmatch(out)
			if err != nil || m == nil {
				t.Errorf("wrk %s over %d nodes: %v\n%s", target.name, n, err, out)
				continue
			}
			non2xx := "0"
			if nm := non2xxRE.FindSubmatch(out); nm != nil {
				non2xx = string(nm[1])
			}
			if target.name == "direct URL" && non2xx != "0" {
				t.Errorf("wrk %s over %d nodes: %s answers not 2xx/3xx\n%s", target.name, n, non2xx, out)
			}
			t.Logf("throughput: %d node(s), %s: %s req/s (%s answers not 2xx/3xx)", n, target.name, m[1], non2xx)
		}
		stop()
	}
}
