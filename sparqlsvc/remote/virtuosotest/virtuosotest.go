// Package virtuosotest starts a private OpenLink Virtuoso 7 (Debian's virtuoso-opensource) for tests and
// benchmarks: its own database and virtuoso.ini in a temporary folder, listening on 127.0.0.1 only, on free ports,
// with a fresh random password for the dba account. Nothing of the machine's own Virtuoso (/etc, /var/lib) is used
// or changed.
package virtuosotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running Virtuoso.
type Server struct {
	// QueryURL is the SPARQL endpoint (http://127.0.0.1:PORT/sparql); updates go to /sparql-auth and graph
	// uploads to /sparql-graph-crud-auth, both with Digest authentication as User.
	QueryURL       string
	User, Password string
	Dir            string
	SQLPort        int
	cmd            *exec.Cmd
	done           chan error
}

// Options tune a server.
type Options struct {
	// Buffers is Virtuoso's NumberOfBuffers (8 KiB pages of cache); 0 is 20000 (160 MiB), enough for tests.
	// Benchmarks at millions of triples want more (about 100000 per 10 M triples).
	Buffers int
	// DirsAllowed are further folders Virtuoso may read files from (BulkLoad's ld_dir needs the data's folder).
	DirsAllowed []string
}

// Binary returns the path of virtuoso-t ($LDHUB_VIRTUOSO overrides the one on PATH).
func Binary() (string, error) {
	if p := os.Getenv("LDHUB_VIRTUOSO"); p != "" {
		return p, nil
	}
	return exec.LookPath("virtuoso-t")
}

// Start runs a new Virtuoso with its database in dir (created when missing; an existing database is reopened) and
// waits until its SPARQL endpoint answers.
func Start(ctx context.Context, dir string, o Options) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, fmt.Errorf("virtuosotest: virtuoso-t not found (Debian package virtuoso-opensource): %w", err)
	}
	if o.Buffers == 0 {
		o.Buffers = 20000
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	httpPort, err := freePort()
	if err != nil {
		return nil, err
	}
	sqlPort, err := freePort()
	if err != nil {
		return nil, err
	}
	dirs := dir
	for _, d := range o.DirsAllowed {
		dirs += ", " + d
	}
	ini := fmt.Sprintf(iniTemplate, dir, sqlPort, dirs, o.Buffers, o.Buffers*3/4, httpPort, dir)
	iniPath := filepath.Join(dir, "virtuoso.ini")
	if err := os.WriteFile(iniPath, []byte(ini), 0o600); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(filepath.Join(dir, "virtuoso.db"))
	fresh := errors.Is(statErr, os.ErrNotExist)
	log, err := os.OpenFile(filepath.Join(dir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-c", iniPath, "+foreground")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	s := &Server{
		QueryURL: fmt.Sprintf("http://127.0.0.1:%d/sparql", httpPort),
		User:     "dba", Password: "dba", Dir: dir, SQLPort: sqlPort, cmd: cmd, done: make(chan error, 1),
	}
	go func() { s.done <- cmd.Wait(); log.Close() }()
	if err := s.wait(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	pw := filepath.Join(dir, "dba-password")
	if fresh {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		secret := "p" + hex.EncodeToString(b) // an SQL identifier: it must not start with a digit
		if isql, err := exec.LookPath("isql-vt"); err == nil {
			out, err := exec.CommandContext(ctx, isql, "127.0.0.1:"+strconv.Itoa(sqlPort), "dba", "dba",
				"exec=set password dba "+secret+";").CombinedOutput()
			if err == nil && !bytes.Contains(out, []byte("Done.")) {
				err = errors.New("isql-vt did not confirm")
			}
			if err != nil {
				s.Stop()
				return nil, fmt.Errorf("virtuosotest: setting the dba password: %v: %s", err, out)
			}
			if err := os.WriteFile(pw, []byte(secret), 0o600); err != nil {
				s.Stop()
				return nil, err
			}
		}
	}
	if b, err := os.ReadFile(pw); err == nil {
		s.Password = string(bytes.TrimSpace(b))
	}
	return s, nil
}

// Pid returns the process id of virtuoso-t (benchmarks read its CPU time and memory in /proc).
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// SQL runs statements through isql-vt as dba and returns its output; an "*** Error" line in it is an error.
func (s *Server) SQL(ctx context.Context, statements string) (string, error) {
	isql, err := exec.LookPath("isql-vt")
	if err != nil {
		return "", fmt.Errorf("virtuosotest: isql-vt not found (Debian package virtuoso-opensource): %w", err)
	}
	cmd := exec.CommandContext(ctx, isql, "127.0.0.1:"+strconv.Itoa(s.SQLPort), s.User, s.Password)
	cmd.Stdin = strings.NewReader(statements)
	out, err := cmd.CombinedOutput()
	if err == nil && bytes.Contains(out, []byte("*** Error")) {
		err = errors.New("statement failed")
	}
	if err != nil {
		return string(out), fmt.Errorf("virtuosotest: isql-vt: %v: %s", err, out)
	}
	return string(out), nil
}

// BulkLoad loads an N-Triples or Turtle file into graph with Virtuoso's bulk loader, the way its documentation
// tells users to load large data: ld_dir registers the file, rdf_loader_run loads it, and a checkpoint makes it
// durable. The file's folder must be in Options.DirsAllowed. A file the loader rejects is an error.
func (s *Server) BulkLoad(ctx context.Context, file, graph string) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	dir, name := filepath.Split(abs)
	quote := func(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }
	if _, err := s.SQL(ctx, fmt.Sprintf("ld_dir(%s, %s, %s);\nrdf_loader_run();\ncheckpoint;\n",
		quote(filepath.Clean(dir)), quote(name), quote(graph))); err != nil {
		return err
	}
	out, err := s.SQL(ctx, "SELECT ll_file, ll_error FROM DB.DBA.load_list WHERE ll_error IS NOT NULL;\n")
	if err != nil {
		return err
	}
	if strings.Contains(out, name) {
		return fmt.Errorf("virtuosotest: the bulk loader rejected %s: %s", file, out)
	}
	return nil
}

func (s *Server) wait(ctx context.Context) error {
	// A fresh database takes Virtuoso 15–20 s to create on an idle machine, but it writes and checkpoints ~50 MB
	// while doing so, and on a machine at load 25 with other I/O that took 80–100 s (seen 2026-11-26).
	const patience = 5 * time.Minute
	deadline := time.Now().Add(patience)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			b, _ := os.ReadFile(filepath.Join(s.Dir, "virtuoso.log"))
			if len(b) > 2000 {
				b = b[len(b)-2000:]
			}
			return fmt.Errorf("virtuosotest: virtuoso-t exited (%v): %s", err, b)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get(s.QueryURL + "?query=ASK%7B%7D")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("virtuosotest: Virtuoso did not answer within %v", patience)
}

// Stop ends the server (SIGTERM: Virtuoso checkpoints and exits) and waits for it.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-s.done:
		s.done <- err
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		err := <-s.done
		s.done <- err
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Shared is one server for a whole test binary, started on first use: starting Virtuoso takes seconds, so tests
// share it (each in graphs of its own) and TestMain calls Close.
type Shared struct {
	once sync.Once
	dir  string
	srv  *Server
	err  error
}

// Get returns the shared server, starting it on first use. Without virtuoso-t the test is skipped with the reason,
// or fails when CI=true (CI installs it: .ci/run).
func (sh *Shared) Get(t testing.TB) *Server {
	t.Helper()
	if _, err := Binary(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI installs virtuoso-opensource: see .ci/run)", err)
		}
		t.Skipf("skipped: %v", err)
	}
	sh.once.Do(func() {
		sh.dir, sh.err = os.MkdirTemp("", "ldhub-virtuoso-")
		if sh.err == nil {
			sh.srv, sh.err = Start(context.Background(), sh.dir, Options{})
		}
	})
	if sh.err != nil {
		t.Fatal(sh.err)
	}
	return sh.srv
}

// Run runs a test binary's tests and then Close: TestMain is func TestMain(m *testing.M) { os.Exit(sh.Run(m)) }.
func (sh *Shared) Run(m *testing.M) int {
	code := m.Run()
	sh.Close()
	return code
}

// Close stops the shared server, if it was started, and removes its folder.
func (sh *Shared) Close() {
	if sh.srv != nil {
		sh.srv.Stop()
	}
	if sh.dir != "" {
		_ = os.RemoveAll(sh.dir)
	}
}

// iniTemplate is a minimal virtuoso.ini: everything in one folder, TCP on 127.0.0.1 only, no result-row cap and no
// query-time cap (ldhub applies its own limits), no VAD packages, no plugins.
const iniTemplate = `[Database]
DatabaseFile = %[1]s/virtuoso.db
ErrorLogFile = %[1]s/virtuoso.log
LockFile = %[1]s/virtuoso.lck
TransactionFile = %[1]s/virtuoso.trx
xa_persistent_file = %[1]s/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = %[1]s/virtuoso-temp.db
TransactionFile = %[1]s/virtuoso-temp.trx
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:%[2]d
DisableUnixSocket = 1
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = ., %[3]s
NumberOfBuffers = %[4]d
MaxDirtyBuffers = %[5]d
ThreadsPerQuery = 2
MaxQueryMem = 1G
AsyncQueueMaxThreads = 4

[HTTPServer]
ServerPort = 127.0.0.1:%[6]d
ServerRoot = %[7]s
MaxClientConnections = 10
ServerThreads = 10
Charset = UTF-8
EnabledGzipContent = 0

[SPARQL]
ResultSetMaxRows = 1000000000
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime = 0
`
