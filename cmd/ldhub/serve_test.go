package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/syncbuf"
)

type served struct {
	addr           string
	stdout, stderr *syncbuf.Buffer
	stop           func() int
}

// startServe runs `ldhub serve` on a free port until stop is called.
func startServe(t *testing.T, vars map[string]string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}}
	env := &environment{stdin: strings.NewReader(""), stdout: s.stdout, stderr: s.stderr, getenv: func(k string) string { return vars[k] }}
	done := make(chan int, 1)
	go func() { done <- run(ctx, env, []string{"serve", "--addr", "127.0.0.1:0"}) }()
	re := regexp.MustCompile(`msg="ldhub serving" addr=(\S+)`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			s.addr = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d: %s", code, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not start: %s", s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop = func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not stop")
			return -1
		}
	}
	return s
}

func get(t *testing.T, url, id, secret string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if id != "" {
		req.SetBasicAuth(id, secret)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestServe(t *testing.T) {
	data := t.TempDir()
	vars := map[string]string{"LDHUB_DATA": data, "LDHUB_ADMIN_ID": "root", "LDHUB_ADMIN_SECRET": "correct-horse-battery",
		"LDHUB_CORS_ORIGIN": "https://app.example"}
	s := startServe(t, vars)
	base := "http://" + s.addr
	for _, tc := range []struct {
		path, id, secret string
		want             int
	}{
		{"/api/v3/swagger.json", "", "", 200},
		{"/api/v3/groups", "root", "correct-horse-battery", 200},
		{"/api/v3/groups", "root", "wrong-secret-here", 401},
		{"/api/v3/groups", "", "", 401},
		{"/git/x/y.git/info/refs?service=git-upload-pack", "", "", 401}, // mounted: the git handler asks for credentials
		{"/some/page", "", "", 404},
	} {
		if got := get(t, base+tc.path, tc.id, tc.secret); got != tc.want {
			t.Errorf("GET %s as %q: %d, want %d", tc.path, tc.id, got, tc.want)
		}
	}
	// End to end: a publication created through the API is rendered by the pipeline and served at its direct URL.
	post := func(path, ctype string, body io.Reader) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, body)
		req.SetBasicAuth("root", "correct-horse-battery")
		req.Header.Set("Content-Type", ctype)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v map[string]any
		if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != 200 {
			t.Fatalf("POST %s: %d %v %v", path, res.StatusCode, err, v)
		}
		return v
	}
	g := post("/api/v3/groups", "application/json", strings.NewReader(`{"name":"org","type":"PUBLIC"}`))
	r := post("/api/v3/repositories", "application/json", strings.NewReader(`{"name":"repo","visible":true,"parentId":"`+g["id"].(string)+`"}`))
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	fw, _ := mw.CreateFormFile("metadata", "m.json")
	io.WriteString(fw, `{"name":"core"}`)
	fw, _ = mw.CreateFormFile("content", "core.ttl")
	io.WriteString(fw, "<Thing> <http://example.org/p> \"v\" .\n")
	mw.Close()
	post("/api/v3/repositories/"+r["id"].(string)+"/publications", mw.FormDataContentType(), &mp)
	deadline := time.Now().Add(30 * time.Second)
	var body string
	for {
		req, _ := http.NewRequest("GET", base+"/org/repo/core", nil)
		req.Header.Set("Accept", "application/n-triples")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == 200 {
			body = string(b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("direct URL never served: %d %s", res.StatusCode, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(body, "<"+base+"/org/repo/core/Thing>") {
		t.Errorf("direct URL body %q", body)
	}
	// Issue 15, through the real server: security headers on the direct URL (the second request is the fast
	// path's prepared answer) and on the API; a browser write from a foreign origin is refused, one from the
	// configured origin gets its CORS grant.
	send := func(method, path string, hdr map[string]string, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	for i, path := range []string{"/org/repo/core", "/org/repo/core", "/api/v3/swagger.json", "/no/such/page"} {
		res := send("GET", path, nil, "")
		for _, kv := range httpx.SecurityHeaders {
			if got := res.Header.Get(kv[0]); got != kv[1] {
				t.Errorf("GET %s (#%d): %s = %q", path, i, kv[0], got)
			}
		}
	}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("root:correct-horse-battery"))
	group := `{"name":"cross","type":"PUBLIC"}`
	if res := send("POST", "/api/v3/groups", map[string]string{"Authorization": auth, "Content-Type": "application/json", "Origin": "https://evil.example"}, group); res.StatusCode != 403 || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign-origin write: %d %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	if res := send("POST", "/api/v3/groups", map[string]string{"Authorization": auth, "Content-Type": "text/plain"}, group); res.StatusCode != 415 {
		t.Errorf("text/plain write: %d", res.StatusCode)
	}
	if res := send("POST", "/api/v3/groups", map[string]string{"Authorization": auth, "Content-Type": "application/json", "Origin": "https://app.example"}, group); res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("configured-origin write: %d %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	if code := s.stop(); code != 0 {
		t.Errorf("exit code %d: %s", code, s.stderr.String())
	}
	logs := s.stderr.String()
	if !strings.Contains(logs, "ldhub stopped") || !strings.Contains(logs, "path=/api/v3/groups status=401") {
		t.Errorf("logs:\n%s", logs)
	}
	if strings.Contains(logs+s.stdout.String(), "correct-horse-battery") || strings.Contains(logs, "wrong-secret-here") {
		t.Error("a secret reached the output")
	}
}

// TestServeGeneratesAdmin: on a fresh data folder without LDHUB_ADMIN_* the credential is made and printed once.
func TestServeGeneratesAdmin(t *testing.T) {
	data := t.TempDir()
	vars := map[string]string{"LDHUB_DATA": data}
	s := startServe(t, vars)
	m := regexp.MustCompile(`id:\s+(\S+)\n\s+secret:\s+(\S+)`).FindStringSubmatch(s.stdout.String())
	if m == nil {
		s.stop()
		t.Fatalf("no credential printed: %q", s.stdout.String())
	}
	if got := get(t, "http://"+s.addr+"/api/v3/groups", m[1], m[2]); got != 200 {
		t.Errorf("generated credential: %d", got)
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s = startServe(t, vars)
	defer s.stop()
	if strings.Contains(s.stdout.String(), "secret") {
		t.Errorf("printed again on restart: %q", s.stdout.String())
	}
	if got := get(t, "http://"+s.addr+"/api/v3/groups", m[1], m[2]); got != 200 {
		t.Errorf("after restart: %d", got)
	}
}
