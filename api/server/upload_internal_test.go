package server

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/ldhub/ldhub/content/conformance"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

// readPart returns exactly the part's bytes whatever length the body announced, and reads a large part into one
// buffer of the announced length instead of growing it by copies.
func TestReadPart(t *testing.T) {
	small := []byte("<http://ex/s> <http://ex/p> \"o\" .\n")
	large := bytes.Repeat(small, (3<<20)/len(small)+1) // above the 1 MiB read ahead
	for _, tt := range []struct {
		name string
		data []byte
		hint int64
	}{
		{"small, length unknown", small, -1},
		{"small, body length", small, int64(len(small)) + 300},
		{"large, length unknown", large, -1},
		{"large, body length", large, int64(len(large)) + 300},
		{"large, body length exactly the part", large, int64(len(large))},
		{"large, announced length too short", large, int64(len(large)) / 2},
		{"large, announced length too long", large, 4 * int64(len(large))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// One byte per read at most of the first bytes, as a slow client's body arrives.
			got, err := readPart(iotest.HalfReader(bytes.NewReader(tt.data)), tt.hint)
			if err != nil || !bytes.Equal(got, tt.data) {
				t.Fatalf("read %d bytes (%v), want the %d of the part", len(got), err, len(tt.data))
			}
			if tt.hint >= int64(len(tt.data)) && tt.hint < 2*int64(len(tt.data)) && cap(got) > int(tt.hint)+64<<10 {
				t.Errorf("capacity %d for a body of %d bytes: the buffer grew past the announced length", cap(got), tt.hint)
			}
		})
	}
	failing := iotest.ErrReader(errors.New("connection reset"))
	if _, err := readPart(failing, 100); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("a failing body: %v, want its error", err)
	}
	if _, err := readPart(io.MultiReader(bytes.NewReader(large), failing), int64(len(large))); err == nil {
		t.Error("a body failing after 3 MiB read without an error")
	}
}

// chunked reads at most 32 KiB at a time, as a multipart part of a request body does.
type chunked struct{ r io.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), 32<<10)]) }

// BenchmarkReadPart reads a 64 MB part as an upload arrives, against io.ReadAll, which readPart replaced. B/op is
// the figure that a loaded machine does not blur: every byte allocated is cleared and faulted in.
func BenchmarkReadPart(b *testing.B) {
	data := bytes.Repeat([]byte("<http://ex/s> <http://ex/p> \"o\" .\n"), (64<<20)/35)
	b.Run("readPart", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := readPart(chunked{bytes.NewReader(data)}, int64(len(data))+300); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("io.ReadAll", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := io.ReadAll(chunked{bytes.NewReader(data)}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadPartsOverTCP is readParts on a real connection: a 64 MB multipart upload from net/http's client to
// an httptest server, as curl sends one. cpu-ms/op is the whole process's CPU (client and server), the figure
// the read buffer in front of multipart changes (one read call per 4 KiB without it).
func BenchmarkReadPartsOverTCP(b *testing.B) {
	data := bytes.Repeat([]byte("<http://ex/s> <http://ex/p> \"o\" .\n"), (64<<20)/35)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("content", "data.nt")
	w.Write(data)
	mw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts, err := readParts(r, "content")
		if err != nil || len(parts["content"].data) != len(data) {
			http.Error(w, fmt.Sprint(err), 500)
		}
	}))
	defer srv.Close()
	b.SetBytes(int64(body.Len()))
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		res, err := http.Post(srv.URL, mw.FormDataContentType(), bytes.NewReader(body.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatal(res.Status)
		}
	}
	b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}
