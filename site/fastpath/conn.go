package fastpath

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ldhub/ldhub/site"
)

const (
	stateActive int32 = iota
	stateIdle         // waiting for the first byte of a request: Shutdown may close it
	stateClosed
)

// deadlineSlack is how early an idle deadline may fall (at most an eighth of the idle timeout): it is moved only
// when it would move by more, so that a busy connection changes its deadline about once a second instead of once a
// request.
const deadlineSlack = time.Second

// peekLen is what net/http reads of a request on a kept-alive connection before it starts reading the request
// (bufio.Reader.Peek(4)): the connection ends silently when the stream ends before, with no 400 for the bytes.
const peekLen = 4

// flushAt bounds the responses kept for one write when many requests arrive pipelined.
const flushAt = 64 << 10

// copyBody is the largest body copied behind its header for one write; larger ones go out with writev.
const copyBody = 16 << 10

type conn struct {
	s        *Server
	ln       *listener
	nc       net.Conn
	accepted time.Time
	state    atomic.Int32

	buf      []byte // read, not yet answered: the pending requests from buf[0]; maxHeaderBytes long
	deadline time.Time

	out  []byte      // responses not yet written
	mark int         // out[mark:] is not yet in iov
	iov  net.Buffers // when a large body is sent without copying it
	werr error       // a write of an answer failed: the connection ends

	// The values the last request sent, kept as strings so that a client repeating them (most do) costs no
	// conversion.
	accept, language, encoding string
}

func (c *conn) close() {
	c.state.Store(stateClosed)
	_ = c.nc.Close()
}

// serve answers requests until the connection ends or is handed to net/http.
func (c *conn) serve() {
	defer c.s.untrack(c)
	c.buf = make([]byte, 0, maxHeaderBytes)
	c.out = make([]byte, 0, 4<<10)
	reqStart := c.accepted // net/http's header timeout runs from the connection's start for its first request
	first := true
	scanned := 0 // c.buf[:scanned] is known to be plausible and to hold no complete header block
	for {
		now := time.Now()
		for len(c.buf) > 0 {
			end, ok := scan(c.buf, scanned)
			if !ok {
				if !first && len(c.buf) < peekLen {
					break // net/http waits for peekLen bytes on a kept-alive connection: so does the hand-over
				}
				c.handOver()
				return
			}
			if end == 0 {
				scanned = len(c.buf)
				break
			}
			req, ok := parse(c.buf[:end])
			if !ok || !c.answer(&req, now) {
				c.handOver()
				return
			}
			if c.werr != nil {
				c.close()
				return
			}
			first = false
			c.buf = c.buf[:copy(c.buf, c.buf[end:])]
			scanned, reqStart = 0, now
			if req.close {
				_ = c.flush()
				c.close()
				return
			}
			if len(c.out) >= flushAt {
				if c.flush() != nil {
					c.close()
					return
				}
			}
		}
		if len(c.out) > 0 && c.flush() != nil {
			c.close()
			return
		}
		if c.s.shutting.Load() {
			c.close()
			return
		}
		if len(c.buf) >= maxHeaderBytes {
			c.handOver() // too long for the fast path: net/http's MaxHeaderBytes decides
			return
		}
		// Waiting: no byte of a request read yet, so Shutdown may close the connection (net/http closes its new and
		// idle ones too). Idle: waiting after a request, under the idle timeout rather than the header timeout.
		waiting := len(c.buf) == 0
		idle := waiting && !first
		switch {
		case idle && c.s.idle > 0:
			c.setDeadline(now.Add(c.s.idle), min(deadlineSlack, c.s.idle/8))
		case idle:
			c.setDeadline(time.Time{}, 0)
		case c.s.headerTimeout > 0:
			c.setDeadline(reqStart.Add(c.s.headerTimeout), 0)
		default:
			c.setDeadline(time.Time{}, 0)
		}
		if waiting {
			c.state.Store(stateIdle)
			// Shutdown sets shutting before it closes idle connections: one of the two sees the other.
			if c.s.shutting.Load() {
				if c.state.CompareAndSwap(stateIdle, stateClosed) {
					_ = c.nc.Close()
				}
				return
			}
		}
		n, err := c.nc.Read(c.buf[len(c.buf):cap(c.buf)])
		if waiting {
			if !c.state.CompareAndSwap(stateIdle, stateActive) {
				return // closed by Shutdown
			}
			if !first {
				reqStart = time.Now()
			}
		}
		c.buf = c.buf[:len(c.buf)+n]
		if err != nil {
			if n == 0 && !isTimeout(err) && (len(c.buf) >= peekLen || first && len(c.buf) > 0) {
				// The client ended its side with a partial request: what net/http answers to that is its own.
				c.handOver()
				return
			}
			if n == 0 {
				c.close() // end of stream, timeout or error between requests: net/http closes silently too
				return
			}
		}
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// setDeadline sets the read deadline to t, or leaves the current one when it is at most slack earlier.
func (c *conn) setDeadline(t time.Time, slack time.Duration) {
	if t.Equal(c.deadline) {
		return
	}
	if slack > 0 && !c.deadline.IsZero() && !c.deadline.After(t) && t.Sub(c.deadline) < slack {
		return
	}
	c.deadline = t
	_ = c.nc.SetReadDeadline(t)
}

// handOver writes what was answered so far and gives the connection, with the pending bytes, to net/http.
func (c *conn) handOver() {
	if len(c.out) > 0 && c.flush() != nil {
		c.close()
		return
	}
	c.s.untrack(c)
	if c.state.Swap(stateClosed) == stateClosed {
		return
	}
	// net/http sets its own read deadline per request; a write deadline is only ever set with WriteTimeout, which
	// it sets again too.
	pre := bytes.Clone(c.buf)
	c.ln.handOver(c.nc, pre)
}

// flush writes the responses answered so far: one write, or one writev when a large body was left uncopied.
func (c *conn) flush() error {
	if c.s.wrTO > 0 {
		_ = c.nc.SetWriteDeadline(time.Now().Add(c.s.wrTO))
	}
	var err error
	if len(c.iov) == 0 {
		_, err = c.nc.Write(c.out)
	} else {
		if c.mark < len(c.out) {
			c.iov = append(c.iov, c.out[c.mark:])
		}
		iov := c.iov
		_, err = iov.WriteTo(c.nc)
		clear(c.iov)
		c.iov = c.iov[:0]
	}
	c.out, c.mark = c.out[:0], 0
	return err
}

// answer appends the response to req, false when the fast path has none.
func (c *conn) answer(req *request, now time.Time) bool {
	path := string(req.path)
	if string(req.accept) != c.accept {
		c.accept = string(req.accept)
	}
	if string(req.language) != c.language {
		c.language = string(req.language)
	}
	if string(req.encoding) != c.encoding {
		c.encoding = string(req.encoding)
	}
	p, ok := c.s.o.Lookup(path, c.accept, c.language, c.encoding)
	if !ok {
		return false
	}
	w := p.Memo(prepare).(*wire)
	status := http.StatusOK
	head := w.head200
	if req.hasINM || req.hasIMS {
		if !w.notModified(req) {
			return false // a 200 through http.ServeContent: its header differs (gzip: no Content-Length)
		}
		status, head = http.StatusNotModified, w.head304
	}
	start := len(c.out)
	c.out = append(c.out, head...)
	c.out = append(c.out, "Date: "...)
	c.out = appendDate(c.out, now)
	c.out = append(c.out, "\r\n"...)
	if req.close {
		c.out = append(c.out, "Connection: close\r\n"...)
	}
	c.out = append(c.out, "\r\n"...)
	var n int64
	if status == http.StatusOK && !req.head && w.body == nil {
		// The file is opened before anything of this answer is written, so that a file the pipeline removed or
		// replaced since the answer was prepared still goes to net/http whole.
		f, ok := w.open()
		if !ok {
			c.out = c.out[:start]
			return false
		}
		defer f.Close()
		// io.Copy to a TCP connection from a limited *os.File is sendfile(2). (Corking the header into the file's
		// first segments, as nginx's tcp_nopush does, measured no different: 0.93 against 0.91 of plain nginx.)
		if c.werr = c.flush(); c.werr == nil {
			_, c.werr = io.Copy(c.nc, io.LimitReader(f, w.size))
		}
		n = w.size
	} else if status == http.StatusOK && !req.head {
		n = int64(len(w.body))
		if len(w.body) <= copyBody {
			c.out = append(c.out, w.body...)
		} else {
			c.iov = append(c.iov, c.out[c.mark:], w.body)
			c.mark = len(c.out)
		}
	}
	if lg := c.s.o.Log; lg != nil {
		method := http.MethodGet
		if req.head {
			method = http.MethodHead
		}
		lg(method, path, status, n, time.Since(now))
	}
	return true
}

// wire is a prepared response as bytes: the status line and header fields up to Date, which net/http writes
// after the handler's fields (sorted, by http.Header.WriteSubset as here).
type wire struct {
	head200, head304 []byte
	body             []byte
	etag             string
	mod              time.Time

	// A body too large to keep in memory: the file, sent by sendfile, and the size the header announces.
	file string
	size int64
}

func prepare(p site.Prepared) any {
	hd := p.Header()
	w := &wire{body: p.Body(), etag: hd.Get("Etag"), mod: p.ModTime()}
	if w.body == nil {
		w.file = p.File()
		w.size, _ = strconv.ParseInt(hd.Get("Content-Length"), 10, 64)
	}
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\n")
	_ = hd.Write(&b)
	w.head200 = bytes.Clone(b.Bytes())
	// What http.ServeContent leaves for a 304 (writeNotModified).
	for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding"} {
		delete(hd, k)
	}
	if w.etag != "" {
		delete(hd, "Last-Modified")
	}
	b.Reset()
	b.WriteString("HTTP/1.1 304 Not Modified\r\n")
	_ = hd.Write(&b)
	w.head304 = bytes.Clone(b.Bytes())
	return w
}

// open opens the file of a large body when it is still the one the header describes.
func (w *wire) open() (*os.File, bool) {
	f, err := os.Open(w.file)
	if err != nil {
		return nil, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != w.size || !fi.ModTime().Equal(w.mod) {
		_ = f.Close()
		return nil, false
	}
	return f, true
}

// notModified reports whether http.ServeContent would answer req with 304: If-None-Match matching the ETag
// (weakly), or, without If-None-Match, If-Modified-Since not before the modification time.
func (w *wire) notModified(req *request) bool {
	if req.hasINM {
		return noneMatch(string(req.inm), w.etag)
	}
	if isZeroTime(w.mod) {
		return false
	}
	t, err := http.ParseTime(string(req.ims))
	return err == nil && w.mod.Truncate(time.Second).Compare(t) <= 0
}

func isZeroTime(t time.Time) bool { return t.IsZero() || t.Equal(time.Unix(0, 0)) }

// noneMatch is http.ServeContent's If-None-Match test: true when some listed tag matches etag weakly (or is *).
func noneMatch(inm, etag string) bool {
	buf := inm
	for {
		buf = textproto.TrimString(buf)
		if buf == "" {
			return false
		}
		if buf[0] == ',' {
			buf = buf[1:]
			continue
		}
		if buf[0] == '*' {
			return true
		}
		tag, rest := scanETag(buf)
		if tag == "" {
			return false
		}
		if trimWeak(tag) == trimWeak(etag) {
			return true
		}
		buf = rest
	}
}

func trimWeak(s string) string {
	if len(s) >= 2 && s[:2] == "W/" {
		return s[2:]
	}
	return s
}

// scanETag reads one entity tag (W/"..." or "...") from the start of s.
func scanETag(s string) (tag, rest string) {
	start := 0
	if len(s) >= 2 && s[:2] == "W/" {
		start = 2
	}
	if len(s[start:]) < 2 || s[start] != '"' {
		return "", ""
	}
	for i := start + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0x21 || c >= 0x23 && c <= 0x7E || c >= 0x80:
		case c == '"':
			return s[:i+1], s[i+1:]
		default:
			return "", ""
		}
	}
	return "", ""
}

// The Date field changes once a second; every connection shares its formatting.
type dateLine struct {
	sec int64
	b   []byte
}

var curDate atomic.Pointer[dateLine]

func appendDate(dst []byte, now time.Time) []byte {
	sec := now.Unix()
	d := curDate.Load()
	if d == nil || d.sec != sec {
		d = &dateLine{sec: sec, b: now.UTC().AppendFormat(nil, http.TimeFormat)}
		curDate.Store(d)
	}
	return append(dst, d.b...)
}
