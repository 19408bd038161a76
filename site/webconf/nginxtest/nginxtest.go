// Package nginxtest runs Debian's nginx in a private folder for tests: a generated configuration is only proven by
// the server that reads it. One harness, so that the site's conneg replay and the replica cluster start nginx the
// same way.
package nginxtest

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// TB is the part of testing.TB the harness uses.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	TempDir() string
}

// Options are the few settings in which callers differ.
type Options struct {
	Workers     int  // worker_processes; 1 when zero
	Connections int  // worker_connections; 256 when zero
	AccessLog   bool // log requests to access.log in the private folder; off otherwise
}

// Start writes an nginx.conf whose http block includes include, starts bin on it and waits until it listens on
// addr. stop ends nginx and waits for it.
func Start(t TB, bin, include, addr string, o Options) (stop func()) {
	t.Helper()
	work := t.TempDir()
	user := ""
	if os.Getuid() == 0 { // nginx's workers would otherwise drop to nobody, who cannot read the test's 0700 folders
		user = "user root;"
	}
	accessLog := "off"
	if o.AccessLog {
		accessLog = filepath.Join(work, "access.log")
	}
	main := fmt.Sprintf(`%[2]s
worker_processes %[3]d;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections %[4]d; }
http {
  access_log %[5]s;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
  uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  include %[1]s/ldhub.conf;
}
`, work, user, cmp.Or(o.Workers, 1), cmp.Or(o.Connections, 256), accessLog)
	for name, body := range map[string]string{"nginx.conf": main, "ldhub.conf": include} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-p", work, "-c", filepath.Join(work, "nginx.conf"), "-g", "daemon off;")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return stop
		}
		if time.Now().After(deadline) {
			stop()
			b, _ := os.ReadFile(filepath.Join(work, "error.log"))
			t.Fatalf("nginx did not start: %v\n%s", err, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
