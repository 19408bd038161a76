package accesslog

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/syncbuf"
)

// The access log is written in blocks: nothing per request, everything within the flush interval and on Close.
func TestBuffered(t *testing.T) {
	out := &syncbuf.Buffer{}
	b := NewBuffered(out, 200*time.Millisecond)
	log := slog.New(slog.NewTextHandler(b, nil))
	Request(log, "GET", "/org/open/core", 200, 1171, 3*time.Millisecond)
	if out.String() != "" {
		t.Fatalf("written at once: %q", out.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), `msg=request method=GET path=/org/open/core status=200 bytes=1171 ms=3`) {
		if time.Now().After(deadline) {
			t.Fatalf("not flushed by the interval: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	Request(log, "HEAD", "/x", 304, 0, 0)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "method=HEAD path=/x status=304") {
		t.Fatalf("not flushed by Close: %q", out.String())
	}
	Request(log, "GET", "/after", 200, 0, 0) // after Close: straight through
	if !strings.Contains(out.String(), "path=/after") {
		t.Fatalf("lost after Close: %q", out.String())
	}
}

// A full block is written without waiting for the interval.
func TestBufferedBlock(t *testing.T) {
	out := &syncbuf.Buffer{}
	b := NewBuffered(out, time.Hour)
	defer b.Close()
	line := strings.Repeat("x", 1000) + "\n"
	for range Block/len(line) + 1 {
		b.Write([]byte(line))
	}
	if n := len(out.String()); n < Block {
		t.Errorf("%d bytes written after more than a block of lines", n)
	}
}

// Requests are logged with the path only: no query, no header.
func TestHandlerNoSecrets(t *testing.T) {
	out := &syncbuf.Buffer{}
	b := NewBuffered(out, time.Hour)
	h := Handler(slog.New(slog.NewTextHandler(b, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}))
	r := httptest.NewRequest("GET", "/api/v3/groups?token=hunter2", nil)
	r.SetBasicAuth("root", "correct-horse-battery")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	logs := out.String()
	if !strings.Contains(logs, "method=GET path=/api/v3/groups status=418 bytes=0") {
		t.Errorf("log %q", logs)
	}
	if strings.Contains(logs, "hunter2") || strings.Contains(logs, "correct-horse") || strings.Contains(logs, "cm9vd") {
		t.Errorf("a secret reached the log: %q", logs)
	}
}

type readFromRecorder struct {
	*httptest.ResponseRecorder
	used bool
}

func (r *readFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.used = true
	return io.Copy(r.ResponseRecorder, src)
}

// The wrapper must not hide the connection's ReadFrom (sendfile for large dumps) and must count what went
// through it either way.
func TestWriterKeepsReadFrom(t *testing.T) {
	rec := &readFromRecorder{ResponseRecorder: httptest.NewRecorder()}
	sw := &statusWriter{ResponseWriter: rec, status: http.StatusOK}
	if n, err := io.Copy(sw, io.LimitReader(strings.NewReader("hello"), 5)); err != nil || n != 5 || !rec.used || sw.n != 5 {
		t.Errorf("with ReadFrom: n=%d err=%v used=%v counted=%d", n, err, rec.used, sw.n)
	}
	plain := httptest.NewRecorder()
	sw = &statusWriter{ResponseWriter: plain, status: http.StatusOK}
	if n, err := io.Copy(sw, io.LimitReader(strings.NewReader("hello"), 5)); err != nil || n != 5 || plain.Body.String() != "hello" || sw.n != 5 {
		t.Errorf("without ReadFrom: n=%d err=%v body=%q counted=%d", n, err, plain.Body.String(), sw.n)
	}
}
