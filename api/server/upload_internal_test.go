package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/httpx/apierr"
)

func freshBuffer(n int) []byte { return make([]byte, 0, n) }

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
			got, err := readPart(iotest.HalfReader(bytes.NewReader(tt.data)), tt.hint, freshBuffer)
			if err != nil || !bytes.Equal(got, tt.data) {
				t.Fatalf("read %d bytes (%v), want the %d of the part", len(got), err, len(tt.data))
			}
			if tt.hint >= int64(len(tt.data)) && tt.hint < 2*int64(len(tt.data)) && cap(got) > int(tt.hint)+64<<10 {
				t.Errorf("capacity %d for a body of %d bytes: the buffer grew past the announced length", cap(got), tt.hint)
			}
		})
	}
	failing := iotest.ErrReader(errors.New("connection reset"))
	if _, err := readPart(failing, 100, freshBuffer); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("a failing body: %v, want its error", err)
	}
	if _, err := readPart(io.MultiReader(bytes.NewReader(large), failing), int64(len(large)), freshBuffer); err == nil {
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
			if _, err := readPart(chunked{bytes.NewReader(data)}, int64(len(data))+300, freshBuffer); err != nil {
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
// an httptest server, as curl sends one. cpu-ms/op is the whole process's CPU (client and server) during the
// uploads, the figure the read buffer in front of multipart changes (one read call per 4 KiB without it).
//
// "fresh" reads each upload into new memory, as every upload did before the store recycled the last rendered
// upload's buffer: between two uploads to ldhub serve the runtime hands the freed memory back to the system
// (debug.FreeOSMemory here, outside the measured CPU), so each one faults its pages in again. "recycled" reads
// each upload into the previous one's buffer, as UploadBuffer hands it out after RecycleContent.
func BenchmarkReadPartsOverTCP(b *testing.B) {
	data := bytes.Repeat([]byte("<http://ex/s> <http://ex/p> \"o\" .\n"), (64<<20)/35)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("content", "data.nt")
	w.Write(data)
	mw.Close()
	for _, recycled := range []bool{false, true} {
		name := map[bool]string{false: "fresh", true: "recycled"}[recycled]
		b.Run(name, func(b *testing.B) {
			var last []byte
			alloc := func(n int) []byte {
				if recycled && cap(last) >= n {
					return last[:0]
				}
				return make([]byte, 0, n)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				parts, err := readPartsInto(r, alloc, "content")
				if err != nil || !bytes.Equal(parts["content"].data, data) {
					http.Error(w, fmt.Sprint(err), 500)
					return
				}
				if recycled {
					last = parts["content"].data
				}
			}))
			defer srv.Close()
			b.SetBytes(int64(body.Len()))
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				debug.FreeOSMemory()
				b.StartTimer()
				cpu0 := conformance.CPUTime()
				res, err := http.Post(srv.URL, mw.FormDataContentType(), bytes.NewReader(body.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				res.Body.Close()
				cpu += conformance.CPUTime() - cpu0
				if res.StatusCode != 200 {
					b.Fatal(res.Status)
				}
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// A large body is split by readPartsInto itself (splitParts) when it has the usual shape, and by mime/multipart
// otherwise; either way the parts are those mime/multipart reads from the same bytes, and an error is the same
// status. The usual shape is split without mime/multipart, the largest part staying in the buffer from alloc.
func TestReadPartsWholeBodyAsMultipart(t *testing.T) {
	const b = "XyZ123boundary"
	big := bytes.Repeat([]byte("<http://ex/s> <http://ex/p> \"o\" .\n"), (2<<20)/35)
	body := func(parts ...string) string {
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString("--" + b + "\r\n" + p + "\r\n")
		}
		sb.WriteString("--" + b + "--\r\n")
		return sb.String()
	}
	meta := "Content-Disposition: form-data; name=\"meta-data\"\r\nContent-Type: application/json\r\n\r\n{\"name\":\"data\"}"
	content := "Content-Disposition: form-data; name=\"Content\"; filename=\"../dir/data.nt\"\r\nContent-Type: application/n-triples\r\n\r\n" + string(big)
	usual := body(meta, content)
	for _, tt := range []struct {
		name  string
		body  string
		split bool // splitParts takes it
	}{
		{"usual", usual, true},
		{"content first", body(content, meta), true},
		{"epilogue", usual + "whatever follows\r\n", true},
		{"last boundary without CRLF", strings.TrimSuffix(usual, "\r\n"), true},
		{"two large parts", body(content, strings.Replace(content, "Content", "other", 1)), true},
		{"data with a boundary-like line", body(meta, content+"\r\n--"+b+"X not one\r\n"+string(big[:100])), false},
		{"empty part", body(meta, "Content-Disposition: form-data; name=\"empty\"\r\n\r\n", content), true},
		{"empty part, boundary right after the header", "--" + b + "\r\nContent-Disposition: form-data; name=\"e\"\r\n\r\n--" + b + "\r\n" + content + "\r\n--" + b + "--\r\n", false},
		{"preamble", "a preamble\r\n" + usual, false},
		{"padding after a boundary", strings.Replace(usual, "--"+b+"\r\n", "--"+b+"  \r\n", 1), false},
		{"LF line ends in a header", strings.Replace(usual, "application/json\r\n", "application/json\n", 1), false},
		{"quoted-printable", body("Content-Disposition: form-data; name=\"qp\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\na=3Db", content), false},
		{"not form-data", body(strings.Replace(meta, "form-data", "attachment", 1), content), true},
		{"duplicate", body(content, content), true},
		{"missing part", body(meta, strings.Replace(content, "\"Content\"", "\"Other\"", 1)), true},
		{"no last boundary", strings.TrimSuffix(usual, "--"+b+"--\r\n"), false},
		{"garbage after the last boundary's dashes", strings.TrimSuffix(usual, "\r\n") + "x", false},
		{"garbage after a boundary", strings.Replace(usual, "\r\n--"+b+"\r\nContent-Disposition: form-data; name=\"Content\"", "\r\n--"+b+"--x\r\nContent-Disposition: form-data; name=\"Content\"", 1), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := splitParts([]byte(tt.body), b); ok != tt.split {
				t.Errorf("splitParts took it: %v, want %v", ok, tt.split)
			}
			read := func(length int64) (map[string]*part, []byte, error) {
				r := httptest.NewRequest(http.MethodPut, "/", strings.NewReader(tt.body))
				r.Header.Set("Content-Type", "multipart/form-data; boundary="+b)
				r.ContentLength = length
				var given []byte
				parts, err := readPartsInto(r, func(n int) []byte { given = make([]byte, 0, n); return given }, "meta-data", "Content")
				return parts, given, err
			}
			want, _, werr := read(-1) // length unknown: mime/multipart reads it
			got, given, gerr := read(int64(len(tt.body)))
			if (werr == nil) != (gerr == nil) || werr != nil && statusOf(werr) != statusOf(gerr) {
				t.Fatalf("error %v (status %d), mime/multipart's %v (status %d)", gerr, statusOf(gerr), werr, statusOf(werr))
			}
			if len(got) != len(want) {
				t.Fatalf("%d parts, mime/multipart %d", len(got), len(want))
			}
			for name, w := range want {
				g := got[name]
				if g == nil || g.name != w.name || g.filename != w.filename || g.contentType != w.contentType || !bytes.Equal(g.data, w.data) {
					t.Errorf("part %q: %+.80v, mime/multipart %+.80v", name, g, w)
				}
			}
			if tt.name == "usual" {
				off := len(tt.body) - len("\r\n--"+b+"--\r\n") - len(big) // where the content was read
				if c := got["Content"]; c == nil || cap(given) < off || &c.data[0] != &given[:off+1][off] {
					t.Error("the content is not where it was read")
				}
			}
		})
	}
}

func statusOf(err error) int {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}
