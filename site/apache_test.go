package site_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/ldhub/ldhub/site/webconf"
)

// TestApacheAnswersLikeTheHandler is TestNginxAnswersLikeTheHandler for the generated Apache configuration.
func TestApacheAnswersLikeTheHandler(t *testing.T) {
	bin, modules := needApache(t)
	f := newFixture(t)
	upstream := httptest.NewServer(f.h)
	defer upstream.Close()
	addr := startApache(t, bin, modules, f.out, strings.TrimPrefix(upstream.URL, "http://"), "")
	compareTermAnswers(t, f, upstream.URL, "http://"+addr)
	static := replay(t, f, upstream.URL, "http://"+addr)
	t.Logf("%d rows served by Apache from files", static)
	if static < 8 {
		t.Errorf("Apache served only %d rows from files; the rest went to the handler", static)
	}
}

// needApache finds Debian's Apache and its modules; without them the test is skipped, or fails under CI=true.
func needApache(t *testing.T) (bin, modules string) {
	t.Helper()
	bin = needTool(t, "apache2")
	modules = "/usr/lib/apache2/modules"
	if _, err := os.Stat(filepath.Join(modules, "mod_rewrite.so")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Apache modules are required under CI=true: %v", err)
		}
		t.Skipf("Apache modules not found in %s", modules)
	}
	return bin, modules
}

// startApache runs Debian's Apache with the generated configuration over the tree in out, in front of ldhub at
// upstream, for the hub language lang; it stops with the test. It returns the address Apache listens on.
func startApache(t *testing.T, bin, modules, out, upstream, lang string) string {
	t.Helper()
	// Apache's workers run as www-data, which must be able to read the tree.
	for d := out; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addr := freePort(t)
	conf, err := webconf.ApacheConfig(webconf.ServerConfig{Listen: addr, Dir: out, Upstream: upstream, Language: lang})
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	var mods strings.Builder
	for _, m := range []string{"mpm_event", "authz_core", "mime", "rewrite", "headers", "proxy", "proxy_http", "setenvif"} {
		fmt.Fprintf(&mods, "LoadModule %s_module %s/mod_%s.so\n", m, modules, m)
	}
	main := fmt.Sprintf(`ServerRoot %[1]s
%[2]sListen %[3]s
PidFile %[1]s/httpd.pid
ErrorLog %[1]s/error.log
LogLevel warn
User www-data
Group www-data
ServerName 127.0.0.1
TypesConfig /dev/null
Mutex file:%[1]s
Include %[1]s/ldhub.conf
`, work, mods.String(), addr)
	for name, body := range map[string]string{"httpd.conf": main, "ldhub.conf": conf} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-f", filepath.Join(work, "httpd.conf"), "-DFOREGROUND")
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "APACHE_RUN_DIR="+work)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(work, "error.log"))
			t.Fatalf("apache did not start: %v\n%s", err, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(work, "error.log"))
			t.Logf("error.log:\n%s", b)
		}
	})
	return addr
}
