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
// answer from files must be answered by nginx itself: the term pages too (compareTermAnswers), while a reader who
// prefers another language, a query (a language chosen with the switch, a page of references), a version's
// resource and a resource without files go to ldhub, which answers them.
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
	compareTermAnswers(t, f, upstream.URL, "http://"+addr, "ETag")
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

// compareTermAnswers asks the handler and a web server in front of it for terms' pages and descriptions, in the
// ways the web server must answer from files and the ways it must leave to ldhub, and compares the answers (also
// the headers named in also).
func compareTermAnswers(t *testing.T, f *fixture, handler, front string, also ...string) {
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, tc := range []struct {
		path, accept, lang string
		static             bool
		status             int
		body               string
	}{
		{"/org/open/core/Thing", "", "", true, 200, "anonymous part"},
		{"/org/open/core/Thing", "application/n-triples", "", true, 200, "anonymous part"},
		{"/org/open/core/Thing", "application/rdf+xml", "", true, 200, "anonymous part"},
		{"/org/open/core/Thing.jsonld", "text/html", "", true, 200, "anonymous part"},
		{"/org/open/core/Other.ttl", "", "", true, 200, "subClassOf"},
		{"/org/open/core/Thing", browserAccept, "", true, 200, ">Thing</h1>"},
		{"/org/open/core/Thing", browserAccept, "en", true, 200, ">Thing</h1>"},
		{"/org/open/core/Thing.html", "", "EN;q=0.8", true, 200, ">Thing</h1>"},
		{"/org/open/core/Thing", browserAccept, "nl", false, 200, ">Ding</h1>"},
		{"/org/open/core/Thing", browserAccept, "en-GB,en;q=0.8", false, 200, ">Thing</h1>"},
		{"/org/open/core/Thing.html", "", "nl, en;q=0.5", false, 200, ">Ding</h1>"},
		{"/org/open/core/Thing?lang=nl", browserAccept, "", false, 200, ">Ding</h1>"},
		{"/org/open/core/Thing?page=0", "", "", false, 200, "anonymous part"},
		{"/org/open/core/Thing", "text/turtle;q=0.5, application/ld+json", "", false, 200, "anonymous part"},
		{"/org/open/core/versions/" + f.versions[1] + "/Thing", "", "", false, 200, "anonymous part"},
		{"/org/open/core/Nothing", "", "", false, 404, ""},
		{"/org/open/core/.ld/cur/t/Thing.ttl", "", "", false, 404, ""},
		{"/org/closed/secret/Thing", "", "", false, 404, ""},
	} {
		name := tc.path + " " + tc.accept + " " + tc.lang
		var answers [2]*http.Response
		var bodies [2]string
		for i, base := range []string{handler, front} {
			req, _ := http.NewRequest("GET", base+tc.path, nil)
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			if tc.lang != "" {
				req.Header.Set("Accept-Language", tc.lang)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers[i], bodies[i] = resp, string(b)
		}
		want, got := answers[0], answers[1]
		if got.StatusCode != tc.status || want.StatusCode != tc.status {
			t.Errorf("%s: server %d, handler %d, want %d", name, got.StatusCode, want.StatusCode, tc.status)
			continue
		}
		if static := got.Header.Get("X-LDHub-Static") != ""; static != tc.static {
			t.Errorf("%s: served from files %v, want %v", name, static, tc.static)
		}
		if !strings.Contains(bodies[1], tc.body) {
			t.Errorf("%s: body lacks %q:\n%.400s", name, tc.body, bodies[1])
		}
		if tc.status != 200 {
			continue
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s: bodies differ:\nserver  %.300s\nhandler %.300s", name, bodies[1], bodies[0])
		}
		for _, h := range append([]string{"Content-Type", "Content-Location", "Link", "Cache-Control", "Access-Control-Allow-Origin",
			"Last-Modified", "X-Content-Type-Options", "Content-Security-Policy"}, also...) {
			if got.Header.Get(h) != want.Header.Get(h) {
				t.Errorf("%s: %s: server %q, handler %q", name, h, got.Header.Get(h), want.Header.Get(h))
			}
		}
		if gv, wv := varyOf(got.Header), varyOf(want.Header); !slices.Equal(gv, wv) {
			t.Errorf("%s: Vary: server %q, handler %q", name, gv, wv)
		}
	}
}

func varyOf(h http.Header) []string {
	var v []string
	for _, line := range h.Values("Vary") {
		for _, x := range strings.Split(line, ",") {
			if x = strings.TrimSpace(x); x != "" && x != "Accept-Encoding" {
				v = append(v, x)
			}
		}
	}
	slices.Sort(v)
	return v
}
