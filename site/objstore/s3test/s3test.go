// Package s3test starts a real S3-compatible server for tests, in its own process on a free localhost port:
// Versity Gateway (versitygw, installed from its Go module by scripts/versitygw.sh, which .ci/run calls), or
// SeaweedFS (built from its Go module by scripts/seaweedfs.sh; several times the build), or s3rver (npm). An
// in-process fake would only test our idea of S3; these are other people's implementations of it. LDHUB_S3 picks
// one (versitygw, seaweedfs, s3rver); by default the first one installed in that order.
package s3test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The identities of the server: an administrator, one that may only read and list, and anonymous read.
const (
	AdminKey, AdminSecret   = "ldhub-test-admin", "ldhub-test-admin-secret-0123456789"
	ReaderKey, ReaderSecret = "ldhub-test-reader", "ldhub-test-reader-secret-0123456789"
)

// Server is a running S3 server.
type Server struct {
	Endpoint              string // host:port
	Admin                 *minio.Client
	AdminKey, AdminSecret string
	// Identities is true when the server checks credentials per identity (versitygw, SeaweedFS): the reader
	// identity exists and anonymous requests may only read.
	Identities bool
}

// weedBinary finds weed: LDHUB_SEAWEEDFS, else the cache scripts/seaweedfs.sh builds into, else PATH.
func weedBinary() string {
	if p := os.Getenv("LDHUB_SEAWEEDFS"); p != "" {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		// scripts/seaweedfs.sh builds weed-<version> there.
		found, _ := filepath.Glob(filepath.Join(home, ".cache", "ldhub-ci", "seaweedfs", "weed-v*"))
		for _, p := range found {
			if fileExists(p) {
				return p
			}
		}
	}
	if p, err := exec.LookPath("weed"); err == nil {
		return p
	}
	return ""
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// freePorts returns n ports nobody listens on now.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// Start runs an S3 server with an administrator identity, a read-only one and anonymous read, and makes the
// bucket: versitygw, else SeaweedFS, else s3rver (LDHUB_S3 picks one). s3rver has one identity and lets anyone
// do anything, so a test that needs identities (a refusal) does not run on it.
func Start(t testing.TB, bucket string, identities bool) *Server {
	t.Helper()
	want := os.Getenv("LDHUB_S3")
	if bin := versitygwBinary(); bin != "" && (want == "" || want == "versitygw") {
		return startVersity(t, bin, bucket)
	}
	if bin := weedBinary(); bin != "" && (want == "" || want == "seaweedfs") {
		return startWeed(t, bin, bucket)
	}
	if bin := s3rverBinary(); bin != "" && !identities && (want == "" || want == "s3rver") {
		return startS3rver(t, bin, bucket)
	}
	msg := "no S3 server: scripts/versitygw.sh installs versitygw (.ci/run calls it); LDHUB_VERSITYGW, LDHUB_SEAWEEDFS, LDHUB_S3RVER name binaries"
	if want != "" {
		msg = "LDHUB_S3=" + want + " is not installed (or not one of versitygw, seaweedfs, s3rver): " + msg
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return nil
}

// startWeed runs `weed mini` (master, volume, filer and S3 gateway in one process) on free ports in a temporary
// folder.
func startWeed(t testing.TB, bin, bucket string) *Server {
	t.Helper()
	dir := t.TempDir()
	conf := fmt.Sprintf(`{"identities": [
  {"name": "anonymous", "actions": ["Read"]},
  {"name": "admin", "credentials": [{"accessKey": %q, "secretKey": %q}], "actions": ["Admin", "Read", "List", "Tagging", "Write"]},
  {"name": "reader", "credentials": [{"accessKey": %q, "secretKey": %q}], "actions": ["Read", "List"]}
]}`, AdminKey, AdminSecret, ReaderKey, ReaderSecret)
	if err := os.WriteFile(filepath.Join(dir, "s3.json"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	p := freePorts(t, 9)
	args := []string{"mini", "-dir=" + filepath.Join(dir, "data"), "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + strconv.Itoa(p[0]), "-master.port.grpc=" + strconv.Itoa(p[1]),
		"-volume.port=" + strconv.Itoa(p[2]), "-volume.port.grpc=" + strconv.Itoa(p[3]),
		"-filer.port=" + strconv.Itoa(p[4]), "-filer.port.grpc=" + strconv.Itoa(p[5]),
		"-s3.port=" + strconv.Itoa(p[6]), "-s3.port.grpc=" + strconv.Itoa(p[7]),
		"-admin.port=" + strconv.Itoa(p[8]), "-admin.ui=false", "-webdav=false",
		"-s3.port.iceberg=0", "-s3.port.lance=0", "-master.telemetry=false",
		"-s3.config=" + filepath.Join(dir, "s3.json"), "-master.volumeSizeLimitMB=64",
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=")
	exited := run(t, cmd, dir, "weed.log")
	endpoint := "127.0.0.1:" + strconv.Itoa(p[6])
	admin, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4(AdminKey, AdminSecret, "")})
	if err != nil {
		t.Fatal(err)
	}
	// Ready when the S3 gateway makes the bucket (the volume server registers with the master a moment later:
	// a first write is what proves the whole chain).
	ctx := context.Background()
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case err := <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
			t.Fatalf("weed mini exited: %v\n%s", err, tail(string(b), 3000))
		default:
		}
		err := admin.MakeBucket(ctx, bucket, minio.MakeBucketOptions{})
		if err == nil || minio.ToErrorResponse(err).Code == "BucketAlreadyOwnedByYou" {
			_, err = admin.PutObject(ctx, bucket, "probe", strings.NewReader("x"), 1, minio.PutObjectOptions{})
			if err == nil {
				err = admin.RemoveObject(ctx, bucket, "probe", minio.RemoveObjectOptions{})
			}
			if err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
			t.Fatalf("SeaweedFS not ready after 90 s: %v\n%s", err, tail(string(b), 3000))
		}
		time.Sleep(300 * time.Millisecond)
	}
	return &Server{Endpoint: endpoint, Admin: admin, AdminKey: AdminKey, AdminSecret: AdminSecret, Identities: true}
}

// run starts a server in dir with its output in dir/logName, and stops it when the test ends (interrupt, then
// kill after 10 s). The channel gets its exit.
func run(t testing.TB, cmd *exec.Cmd, dir, logName string) <-chan error {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, logName))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		logf.Close()
	})
	return exited
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Get is a plain, anonymous HTTP GET of an object, as a browser or a CDN pulling from the bucket makes it. The body
// is not decompressed: it is the bytes as stored.
func (s *Server) Get(t testing.TB, bucket, key string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+s.Endpoint+"/"+bucket+"/"+escapeKey(key), nil)
	if err != nil {
		t.Fatal(err)
	}
	// No transparent decompression: the test reads the bytes and headers as stored.
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// escapeKey is the URL path of an object key.
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func s3rverBinary() string {
	if p := os.Getenv("LDHUB_S3RVER"); p != "" {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, ".cache", "ldhub-ci", "s3rver", "node_modules", ".bin", "s3rver"); fileExists(p) {
			return p
		}
	}
	return ""
}

// startS3rver runs s3rver, whose one identity is S3RVER/S3RVER and which lets anyone read.
func startS3rver(t testing.TB, bin, bucket string) *Server {
	t.Helper()
	dir := t.TempDir()
	p := freePorts(t, 1)[0]
	cmd := exec.Command(bin, "-d", dir, "-a", "127.0.0.1", "-p", strconv.Itoa(p), "-s", "--no-vhost-buckets")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	endpoint := "127.0.0.1:" + strconv.Itoa(p)
	admin, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4("S3RVER", "S3RVER", "")})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := admin.MakeBucket(context.Background(), bucket, minio.MakeBucketOptions{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("s3rver not ready after 60 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return &Server{Endpoint: endpoint, Admin: admin, AdminKey: "S3RVER", AdminSecret: "S3RVER"}
}

// versitygwBinary finds versitygw: LDHUB_VERSITYGW, else where scripts/versitygw.sh installs it, else PATH.
func versitygwBinary() string {
	if p := os.Getenv("LDHUB_VERSITYGW"); p != "" {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		found, _ := filepath.Glob(filepath.Join(home, ".cache", "ldhub-ci", "versitygw", "v*", "versitygw"))
		for _, p := range found {
			if fileExists(p) {
				return p
			}
		}
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	return ""
}

// startVersity runs Versity Gateway over a POSIX folder (object metadata in a sidecar folder, so the file system
// needs no extended attributes), with its own IAM: the root account as administrator, a user account that a
// bucket policy lets only read and list, and anonymous read of the objects.
func startVersity(t testing.TB, bin, bucket string) *Server {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"data", "meta", "iam"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	endpoint := "127.0.0.1:" + strconv.Itoa(freePorts(t, 1)[0])
	// Secrets through the environment, as the gateway reads them, not in its argument list.
	cmd := exec.Command(bin, "--port", endpoint, "--iam-dir", filepath.Join(dir, "iam"), "--quiet",
		"posix", "--sidecar", filepath.Join(dir, "meta"), filepath.Join(dir, "data"))
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+AdminKey, "ROOT_SECRET_ACCESS_KEY="+AdminSecret,
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=")
	exited := run(t, cmd, dir, "versitygw.log")
	logs := func() string { b, _ := os.ReadFile(filepath.Join(dir, "versitygw.log")); return tail(string(b), 3000) }
	admin, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4(AdminKey, AdminSecret, "")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("versitygw exited: %v\n%s", err, logs())
		default:
		}
		err := admin.MakeBucket(ctx, bucket, minio.MakeBucketOptions{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw not ready after 60 s: %v\n%s", err, logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	user := exec.Command(bin, "admin", "--endpoint-url", "http://"+endpoint, "create-user",
		"--access", ReaderKey, "--secret", ReaderSecret, "--role", "user")
	user.Env = append(os.Environ(), "ADMIN_ACCESS_KEY_ID="+AdminKey, "ADMIN_SECRET_ACCESS_KEY="+AdminSecret)
	if out, err := user.CombinedOutput(); err != nil {
		t.Fatalf("versitygw admin create-user: %v\n%s", err, out)
	}
	policy := fmt.Sprintf(`{"Version": "2012-10-17", "Statement": [
  {"Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::%[1]s/*"]},
  {"Effect": "Allow", "Principal": {"AWS": [%[2]q]}, "Action": ["s3:GetObject", "s3:ListBucket"],
   "Resource": ["arn:aws:s3:::%[1]s", "arn:aws:s3:::%[1]s/*"]}
]}`, bucket, ReaderKey)
	if err := admin.SetBucketPolicy(ctx, bucket, policy); err != nil {
		t.Fatalf("versitygw bucket policy: %v\n%s", err, logs())
	}
	return &Server{Endpoint: endpoint, Admin: admin, AdminKey: AdminKey, AdminSecret: AdminSecret, Identities: true}
}
