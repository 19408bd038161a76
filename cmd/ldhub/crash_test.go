package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// crashObject is one publication or file a single writer owns, with every write attempted on it in order.
type crashObject struct {
	name, repo string // repo is the repository's key in crashHub.repos
	file       bool
	id         string
	attempts   []crashAttempt
}

type crashAttempt struct {
	content string
	acked   bool   // a 2xx answer arrived before the kill
	version string // the version id that answer named (publications)
}

// allowed lists what the object's latest content may be: the last acknowledged write or any write attempted
// after it (a write may commit and lose only its answer to the kill).
func (o *crashObject) allowed() []string {
	last := -1
	for i, a := range o.attempts {
		if a.acked {
			last = i
		}
	}
	var out []string
	for _, a := range o.attempts[max(last, 0):] {
		out = append(out, a.content)
	}
	return out
}

func (o *crashObject) acked() bool {
	return slices.ContainsFunc(o.attempts, func(a crashAttempt) bool { return a.acked })
}

type crashHub struct {
	t                   *testing.T
	bin, data, addr     string
	env                 []string
	id, secret          string
	repos               map[string]string // key -> repository id
	objects             []*crashObject
	pushDir             string
	pushAcked, pushSent []string     // commit hashes acknowledged by git push / every commit made
	pushCount           atomic.Int64 // len(pushAcked), for the main goroutine to watch
	pushFailures        []string     // git push output when it failed
	leftovers           []string     // staging entries found in the rendered tree after a kill
	unexpected          []string     // answers that are neither 2xx nor the kill cutting the connection
	mu                  sync.Mutex
}

func (h *crashHub) bare(repo string) string {
	return filepath.Join(h.data, "repositories", h.repos[repo]+".git")
}

func (h *crashHub) note(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.unexpected = append(h.unexpected, fmt.Sprintf(format, args...))
}

// TestCrashRecoveryAfterSIGKILL kills `ldhub serve` with SIGKILL 10 times at random moments while uploads over the REST API,
// pushes with the git client and the pipeline are running, restarts it each time and checks that nothing
// acknowledged was lost, that no half version exists and that the rendered tree is brought back in line.
func TestCrashRecoveryAfterSIGKILL(t *testing.T) {
	needGit(t)
	h := &crashHub{t: t, bin: ldhubBinary(t), data: t.TempDir(), addr: freeAddr(t), id: "root",
		secret: "crash-harness-secret-1", repos: map[string]string{}}
	h.env = []string{"LDHUB_ADMIN_ID=" + h.id, "LDHUB_ADMIN_SECRET=" + h.secret}
	p := startHub(t, h.bin, h.data, h.addr, h.env...)
	c := newClient(h.addr, h.id, h.secret)
	var g idOnly
	c.must(t, "POST", "/api/v3/groups", "application/json", []byte(`{"name":"crash","type":"PUBLIC"}`), &g)
	// One repository per writer: this test is about crashes, concurrency on one repository is another test's.
	for _, name := range []string{"api0", "api1", "files", "pushed"} {
		var r idOnly
		c.must(t, "POST", "/api/v3/repositories", "application/json",
			[]byte(`{"name":"`+name+`","visible":true,"parentId":"`+g.ID+`"}`), &r)
		h.repos[name] = r.ID
	}
	for _, repo := range []string{"api0", "api1"} {
		for j := range 2 {
			h.objects = append(h.objects, &crashObject{name: fmt.Sprintf("%s-p%d", repo, j), repo: repo})
		}
	}
	for j := range 2 {
		h.objects = append(h.objects, &crashObject{name: fmt.Sprintf("f%d.txt", j), repo: "files", file: true})
	}
	h.pushDir = t.TempDir()
	if _, err := gitCmd(h.pushDir, "clone", h.gitURL(), "wt"); err != nil {
		t.Fatal(err)
	}
	h.pushDir = filepath.Join(h.pushDir, "wt")
	if _, err := gitCmd(h.pushDir, "symbolic-ref", "HEAD", "refs/heads/main"); err != nil {
		t.Fatal(err)
	}

	const kills = 10
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	var delays []string
	for round := range kills {
		// Most kills land at a random moment of the first second; two during start-up (the pipeline's first full
		// build); three just after a push was acknowledged, because on a loaded machine one push can take longer
		// than a second and the kills would otherwise never let one through.
		delay := time.Duration(rng.Int64N(int64(time.Second)))
		afterPush := round%5 == 1 || round%5 == 3
		switch {
		case round%5 == 4:
			delay = time.Duration(rng.Int64N(int64(150 * time.Millisecond)))
		case afterPush:
			delay = time.Duration(rng.Int64N(int64(500 * time.Millisecond)))
		}
		label := delay.Round(time.Millisecond).String()
		if afterPush {
			label = "push+" + label
		}
		delays = append(delays, label)
		pushedBefore := h.pushCount.Load()
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for _, repo := range []string{"api0", "api1", "files"} { // one writer per repository, owning its objects
			wg.Add(1)
			go func() { defer wg.Done(); h.writer(c, repo, stop) }()
		}
		wg.Add(1)
		go func() { defer wg.Done(); h.pusher(stop) }()
		for deadline := time.Now().Add(30 * time.Second); afterPush && h.pushCount.Load() == pushedBefore && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(delay)
		p.kill()
		close(stop)
		wg.Wait()
		c.close()

		h.noteLeftovers()
		logCounts := h.checkDead(t)
		p = startHub(t, h.bin, h.data, h.addr, h.env...)
		c = newClient(h.addr, h.id, h.secret)
		h.checkAlive(t, c, logCounts)
		if t.Failed() {
			t.Logf("round %d after a kill %s in: ldhub log:\n%s", round, delay, tail(p.logs.String(), 4000))
			break
		}
	}
	t.Logf("%d kills, delays %v", kills, delays)
	h.checkConverged(t, c)
	p.stop(t)
	n := 0
	for _, o := range h.objects {
		for _, a := range o.attempts {
			if a.acked {
				n++
			}
		}
	}
	t.Logf("%d acknowledged uploads, %d acknowledged pushes (%d commits made)", n, len(h.pushAcked), len(h.pushSent))
	refused := 0
	for _, f := range h.pushFailures {
		if strings.Contains(f, "Couldn't connect to server") {
			refused++ // started after the kill
			continue
		}
		t.Logf("git push cut by a kill: %s", f)
	}
	t.Logf("%d more pushes found no server (started after a kill)", refused)
	for _, u := range h.unexpected {
		t.Errorf("unexpected answer: %s", u)
	}
	if n == 0 || len(h.pushAcked) == 0 {
		t.Errorf("the workload never got a write acknowledged: the kills prove nothing")
	}
}

func (h *crashHub) gitURL() string {
	return "http://" + h.id + ":" + h.secret + "@" + h.addr + "/git/crash/pushed.git"
}

// writer uploads new content to the objects of one repository in turn until stop.
func (h *crashHub) writer(c *client, repo string, stop <-chan struct{}) {
	var mine []*crashObject
	for _, o := range h.objects {
		if o.repo == repo {
			mine = append(mine, o)
		}
	}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		o := mine[i%len(mine)]
		seq := len(o.attempts)
		content := ntDoc(o.name, seq, 3+seq%4)
		var path, method, ctype string
		var body []byte
		switch {
		case o.file && o.id == "":
			method, path = "POST", "/api/v3/repositories/"+h.repos[repo]+"/files"
			body, ctype = multipartBody("fileInfo", "info.json", `{"name":"`+o.name+`"}`, "content", o.name, content)
		case o.file:
			method, path = "PUT", "/api/v3/files/"+o.id
			body, ctype = multipartBody("content", o.name, content)
		case o.id == "":
			method, path = "POST", "/api/v3/repositories/"+h.repos[repo]+"/publications"
			body, ctype = multipartBody("metadata", "m.json", `{"name":"`+o.name+`"}`, "content", o.name+".nt", content)
		default:
			method, path = "PUT", "/api/v3/repositories/"+h.repos[repo]+"/publications"
			body, ctype = multipartBody("meta-data", "m.json", `{"name":"`+o.name+`"}`, "Content", o.name+".nt", content)
		}
		o.attempts = append(o.attempts, crashAttempt{content: content})
		r, err := c.do(method, path, ctype, body)
		if err != nil {
			select {
			case <-stop: // the kill cut it
			default:
				time.Sleep(20 * time.Millisecond) // the kill is happening; the stop signal follows
			}
			continue
		}
		if !r.ok() {
			h.note("%s %s: %s", method, path, r)
			continue
		}
		var v struct {
			ID       string `json:"id"`
			Versions []struct {
				ID string `json:"id"`
			} `json:"versions"`
		}
		if err := json.Unmarshal(r.body, &v); err != nil || v.ID == "" {
			h.note("%s %s: undecodable 2xx answer %s", method, path, r)
			continue
		}
		a := &o.attempts[len(o.attempts)-1]
		a.acked, o.id = true, v.ID
		if !o.file {
			if len(v.Versions) == 0 {
				h.note("%s %s: no versions in %s", method, path, r)
				continue
			}
			a.version = v.Versions[len(v.Versions)-1].ID
		}
	}
}

// pusher commits to its clone and pushes with the git client until stop. A push that fails keeps its commit
// locally; the next push sends it again.
func (h *crashHub) pusher(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		n := len(h.pushSent)
		f, err := os.OpenFile(filepath.Join(h.pushDir, "pushed.nt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			h.note("pusher: %v", err)
			return
		}
		fmt.Fprintf(f, "<http://example.org/pushed/s%d> <http://example.org/p> \"push %d\" .\n", n, n)
		f.Close()
		if _, err := gitCmd(h.pushDir, "add", "pushed.nt"); err != nil {
			h.note("pusher: %v", err)
			return
		}
		if _, err := gitCmd(h.pushDir, "commit", "-q", "-m", fmt.Sprintf("push %d", n)); err != nil {
			h.note("pusher: %v", err)
			return
		}
		head, _ := gitCmd(h.pushDir, "rev-parse", "HEAD")
		h.pushSent = append(h.pushSent, head)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "git", "push", "-q", "origin", "HEAD:refs/heads/main")
		cmd.Dir = h.pushDir
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil {
			h.pushAcked = append(h.pushAcked, head)
			h.pushCount.Add(1)
			continue
		}
		h.mu.Lock()
		h.pushFailures = append(h.pushFailures, strings.TrimSpace(string(out)))
		h.mu.Unlock()
		select {
		case <-stop:
		default:
			// The connection was cut by the kill (git reports that in many ways); anything else is an answer.
			if strings.Contains(string(out), "rejected") || strings.Contains(string(out), "error: RPC failed; HTTP") {
				h.note("git push: %v: %s", err, out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// checkDead runs git's own checks on every repository while no process holds it, and counts each publication's
// commits as git sees them.
func (h *crashHub) checkDead(t *testing.T) map[string]int {
	t.Helper()
	dirs := []string{filepath.Join(h.data, "hub.git")}
	for repo := range h.repos {
		dirs = append(dirs, h.bare(repo))
	}
	for _, d := range dirs {
		if out, err := gitCmd(d, "--git-dir", d, "fsck", "--no-dangling", "--no-progress"); err != nil || strings.Contains(out, "error") {
			t.Errorf("git fsck %s: %v\n%s", filepath.Base(d), err, out)
		}
	}
	counts := map[string]int{}
	for _, o := range h.objects {
		if o.file {
			continue
		}
		out, err := gitCmd(h.bare(o.repo), "--git-dir", h.bare(o.repo), "log", "--format=%H", "main", "--", o.name+".nt")
		if err != nil {
			if head, herr := gitCmd("", "--git-dir", h.bare(o.repo), "rev-parse", "--verify", "-q", "main"); herr == nil && head != "" {
				t.Errorf("git log %s: %v", o.name, err)
			}
			continue
		}
		counts[o.name] = len(strings.Fields(out))
	}
	for _, c := range h.pushAcked {
		if _, err := gitCmd("", "--git-dir", h.bare("pushed"), "merge-base", "--is-ancestor", c, "main"); err != nil {
			t.Errorf("acknowledged push %s is not on main: %v", c[:12], err)
		}
	}
	out, err := gitCmd("", "--git-dir", h.bare("pushed"), "log", "--format=%H", "main", "--", "pushed.nt")
	if err == nil {
		counts["pushed"] = len(strings.Fields(out))
	}
	return counts
}

// checkAlive compares what the restarted hub lists with what was acknowledged and with git.
func (h *crashHub) checkAlive(t *testing.T, c *client, gitCounts map[string]int) {
	t.Helper()
	for repo, id := range h.repos {
		if repo == "files" {
			var fs []fileItem
			c.must(t, "GET", "/api/v3/repositories/"+id+"/files", "", nil, &fs)
			for _, o := range h.objects {
				if o.repo != repo {
					continue
				}
				i := slices.IndexFunc(fs, func(f fileItem) bool { return f.Name == o.name })
				if i < 0 {
					if o.acked() {
						t.Errorf("file %s was acknowledged and is gone", o.name)
					}
					continue
				}
				if o.id != "" && o.id != fs[i].ID {
					t.Errorf("file %s: id %s, acknowledged as %s", o.name, fs[i].ID, o.id)
				}
				o.id = fs[i].ID // an add whose answer the kill cut may still have committed
			}
			continue
		}
		var ps []pubListItem
		c.must(t, "GET", "/api/v3/repositories/"+id+"/publications", "", nil, &ps)
		for _, pub := range ps {
			if want, ok := gitCounts[pub.Name]; !ok || want != len(pub.Versions) {
				t.Errorf("publication %s: %d versions listed, git log has %d commits touching it", pub.Name, len(pub.Versions), want)
			}
		}
		for _, o := range h.objects {
			if o.repo != repo {
				continue
			}
			i := slices.IndexFunc(ps, func(p pubListItem) bool { return p.Name == o.name })
			if i < 0 {
				if o.acked() {
					t.Errorf("publication %s was acknowledged and is gone", o.name)
				}
				continue
			}
			if o.id != "" && o.id != ps[i].ID {
				t.Errorf("publication %s: id %s, acknowledged as %s", o.name, ps[i].ID, o.id)
			}
			o.id = ps[i].ID
			for _, a := range o.attempts {
				if a.acked && !slices.ContainsFunc(ps[i].Versions, func(v struct {
					ID      string `json:"id"`
					Version string `json:"version"`
				}) bool {
					return v.ID == a.version
				}) {
					t.Errorf("publication %s: acknowledged version %s is not listed", o.name, a.version)
				}
			}
		}
	}
}

// checkConverged waits for the pipeline to catch up after the last restart, then reads every acknowledged
// version back through the API and the latest through its direct URL.
func (h *crashHub) checkConverged(t *testing.T, c *client) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for _, repo := range []string{"api0", "api1", "pushed"} {
		for {
			var page v4Pubs
			c.must(t, "GET", "/api/v4/publications?repositoryId="+h.repos[repo], "", nil, &page)
			pending := slices.ContainsFunc(page.Contents, func(p struct {
				ID      string `json:"id"`
				Name    string `json:"name"`
				Pending bool   `json:"pending"`
			}) bool {
				return p.Pending
			})
			if !pending {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("repository %s: still pending 60 s after the restart: %+v", repo, page.Contents)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	nt := []string{"Accept", "application/n-triples"}
	read := func(path string) string {
		r, err := c.do("GET", path, "", nil, nt...)
		if err != nil || !r.ok() {
			t.Errorf("GET %s: %v %s", path, err, r)
			return ""
		}
		return string(r.body)
	}
	for _, o := range h.objects {
		if o.id == "" {
			continue
		}
		allowed := o.allowed()
		if o.file {
			got := read("/api/v3/files/" + o.id + "/content")
			if !slices.Contains(allowed, got) {
				t.Errorf("file %s: content %.80q is none of the %d allowed", o.name, got, len(allowed))
			}
			continue
		}
		for _, a := range o.attempts {
			if a.acked {
				if got := read("/api/v3/publications/" + o.id + "/statements?version=" + a.version); ntLines([]byte(got)) != ntLines([]byte(a.content)) {
					t.Errorf("publication %s version %s: content %.120q, acknowledged %.120q", o.name, a.version, got, a.content)
				}
			}
		}
		latest := ntLines([]byte(read("/api/v3/publications/" + o.id + "/statements")))
		if !slices.ContainsFunc(allowed, func(s string) bool { return ntLines([]byte(s)) == latest }) {
			t.Errorf("publication %s: latest content %.120q is none of the %d allowed", o.name, latest, len(allowed))
		}
		if direct := ntLines([]byte(read("/crash/" + o.repo + "/" + o.name))); direct != latest {
			t.Errorf("publication %s: direct URL serves %.120q, the API %.120q", o.name, direct, latest)
		}
	}
	if len(h.pushAcked) > 0 {
		want, err := gitCmd("", "--git-dir", h.bare("pushed"), "show", "main:pushed.nt")
		if err != nil {
			t.Fatal(err)
		}
		if direct := ntLines([]byte(read("/crash/pushed/pushed"))); direct != ntLines([]byte(want)) {
			t.Errorf("pushed publication: direct URL serves %.120q, main has %.120q", direct, want)
		}
	}
	// What the kills left half-rendered is gone once the restarted pipeline has caught up (it sweeps at start).
	still := 0
	for _, l := range h.leftovers {
		if _, err := os.Lstat(l); err == nil {
			still++
		}
	}
	t.Logf("staging folders left by the kills: %d, still there after the last restart: %d", len(h.leftovers), still)
	if still > 0 {
		t.Errorf("%d staging folders of killed renders were never removed (each crash leaks disk)", still)
	}
}

// noteLeftovers records the staging entries a kill left in the rendered tree.
func (h *crashHub) noteLeftovers() {
	site := filepath.Join(h.data, "site")
	for _, pattern := range []string{".tmp-*", "state/.tmp-*", "*/crash/*/*/.ld/.tmp-*", "*/crash/*/*/.ld/v/.tmp-*"} {
		m, _ := filepath.Glob(filepath.Join(site, pattern))
		for _, l := range m {
			if !slices.Contains(h.leftovers, l) {
				h.leftovers = append(h.leftovers, l)
			}
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
