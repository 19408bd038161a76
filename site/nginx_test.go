package site_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site/webconf"
	"github.com/ldhub/ldhub/site/webconf/nginxtest"
)

// needTool skips when a tool is missing, except under CI=true where it fails: CI must install it.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required under CI=true: %v", name, err)
	}
	t.Skipf("%s not installed: %v", name, err)
	return ""
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestNginxAnswersLikeTheHandler runs the real nginx with the generated configuration in front of the handler and
// replays the conneg table against both: same status, type, Content-Location, Vary, Link and body. Rows nginx can
// answer from files must be answered by nginx itself.
func TestNginxAnswersLikeTheHandler(t *testing.T) {
	bin := needTool(t, "nginx")
	f := newFixture(t)
	upstream := httptest.NewServer(f.h)
	defer upstream.Close()
	addr := freePort(t)
	conf, err := webconf.NginxConfig(webconf.ServerConfig{Listen: addr, Dir: f.out, Upstream: strings.TrimPrefix(upstream.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	defer nginxtest.Start(t, bin, conf, addr, nginxtest.Options{})()
	// ETags too: nginx's "<mtime hex>-<size hex>" is the handler's, so caches keep validators across servers.
	static := replay(t, f, upstream.URL, "http://"+addr, "ETag")
	if static < 8 {
		t.Errorf("nginx served only %d rows from files; the rest went to the handler", static)
	}
	t.Logf("%d rows served by nginx from files", static)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, p := range []string{"/org/open/core.nt", "/org/open/core.jsonld", "/org/open/core/versions/" + f.versions[0] + ".ttl"} {
		var etags, encodings []string
		for _, base := range []string{upstream.URL, "http://" + addr} {
			req, _ := http.NewRequest("GET", base+p, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			etags, encodings = append(etags, resp.Header.Get("ETag")), append(encodings, resp.Header.Get("Content-Encoding"))
		}
		if etags[0] == "" || etags[0] != etags[1] || encodings[0] != "gzip" || encodings[1] != "gzip" {
			t.Errorf("%s gzipped: handler ETag %s (%s), nginx %s (%s)", p, etags[0], encodings[0], etags[1], encodings[1])
		}
	}
}

// replay asks the handler and a web server in front of the same tree every row of the conneg table and compares
// the answers (also the headers named in also); it returns how many rows the server answered from files itself.
func replay(t *testing.T, f *fixture, handler, front string, also ...string) int {
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(t *testing.T, base string, tc connegCase) (*http.Response, string) {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		if tc.auth {
			req.Header.Set("Authorization", "Basic dmlld2VyOnNlY3JldA==")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	vary := func(h http.Header) []string {
		var v []string
		for _, line := range h.Values("Vary") {
			for _, x := range strings.Split(line, ",") {
				v = append(v, strings.TrimSpace(x))
			}
		}
		slices.Sort(v)
		return v
	}
	static := 0
	for _, tc := range connegTable(f.versions) {
		t.Run(tc.name, func(t *testing.T) {
			want, wantBody := get(t, handler, tc)
			got, gotBody := get(t, front, tc)
			if got.StatusCode != want.StatusCode {
				t.Fatalf("server %d, handler %d", got.StatusCode, want.StatusCode)
			}
			for _, h := range append([]string{"Content-Type", "Content-Location", "Link", "Cache-Control", "Access-Control-Allow-Origin", "Last-Modified",
				"X-Content-Type-Options", "Content-Security-Policy", "X-Frame-Options", "Referrer-Policy"}, also...) {
				if got.Header.Get(h) != want.Header.Get(h) {
					t.Errorf("%s: server %q, handler %q", h, got.Header.Get(h), want.Header.Get(h))
				}
			}
			if !slices.Equal(vary(got.Header), vary(want.Header)) {
				t.Errorf("Vary: server %q, handler %q", vary(got.Header), vary(want.Header))
			}
			if gotBody != wantBody && !strings.Contains(want.Header.Get("Content-Type"), "json") || got.StatusCode == 200 && gotBody != wantBody {
				t.Errorf("bodies differ:\nserver  %.300s\nhandler %.300s", gotBody, wantBody)
			}
			if got.Header.Get("X-LDHub-Static") != "" {
				static++
			}
		})
	}
	return static
}
