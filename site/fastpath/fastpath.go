// Package fastpath answers the common direct-URL request without net/http, and hands every other connection to an
// ordinary http.Server listening on the same port.
//
// Why: a direct URL of a publication is answered from a response the site handler prepared once (site.Prepared),
// so what is left of its cost is net/http's own: the request parsed into maps, the header map copied at
// WriteHeader, a background-read goroutine and two read-deadline changes per request. That alone kept the handler
// under bare nginx (docs/performance.md, "Direct URLs"). Here each accepted connection is read by a small HTTP/1.1
// loop that writes the prepared bytes with one write per batch of pipelined requests.
//
// What the fast path answers: GET or HEAD, HTTP/1.1, an origin-form path of unreserved characters and sub-delims
// (no query, no percent-escapes), exactly one Host, no body (Content-Length absent or 0, no Transfer-Encoding), no
// Authorization, Expect, Upgrade, Range or If-Match/If-Unmodified-Since/If-Range, every line ending in CRLF and
// made of printable ASCII, the header block within maxHeaderBytes (8 KiB), and a path the Lookup has a prepared
// response for (site.Handler.Prepared: a public publication, version or VoID file, never a private one). If-None-Match
// and If-Modified-Since are answered when they make a 304; Connection: close is honoured.
//
// Everything else goes to net/http: the connection, with the bytes already read, is handed to the http.Server
// through the net.Listener it serves (the request that did not qualify and every later one on that connection).
// The fast path never answers a request it is unsure of, and never answers with an error: a malformed request is
// net/http's to reject. Its answers are byte for byte net/http's (minus Date), which the tests check against the
// handler behind net/http, table and fuzz driven.
package fastpath

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ldhub/ldhub/site"
)

// Lookup returns the prepared answer to a GET or HEAD of path with these Accept, Accept-Language and
// Accept-Encoding values, as the http.Server's handler would give it; false hands the request to net/http.
type Lookup func(path, accept, acceptLanguage, acceptEncoding string) (site.Prepared, bool)

// LogFunc records one request answered by the fast path: bytes is the body length sent.
type LogFunc func(method, path string, status int, bytes int64, elapsed time.Duration)

// Options configure a Server.
type Options struct {
	// HTTP answers everything the fast path does not. Its ReadHeaderTimeout (else ReadTimeout), IdleTimeout (else
	// ReadTimeout) and WriteTimeout apply to fast-path connections as they would to its own.
	HTTP *http.Server
	// Lookup finds prepared answers; it must agree with HTTP.Handler for the paths it accepts.
	Lookup Lookup
	// Log, when set, is called for every request the fast path answers.
	Log LogFunc
}

// maxHeaderBytes bounds the header block the fast path waits for; a longer one goes to net/http, whose own limit
// (http.Server.MaxHeaderBytes) decides.
const maxHeaderBytes = 8 << 10

// Server runs the fast path in front of an http.Server.
type Server struct {
	o                         Options
	headerTimeout, idle, wrTO time.Duration

	shutting atomic.Bool
	mu       sync.Mutex
	conns    map[*conn]struct{}
	lns      map[*listener]struct{}
}

// New returns a fast-path server in front of o.HTTP.
func New(o Options) (*Server, error) {
	if o.HTTP == nil || o.Lookup == nil {
		return nil, errors.New("fastpath: HTTP and Lookup are required")
	}
	s := &Server{o: o, conns: map[*conn]struct{}{}, lns: map[*listener]struct{}{}}
	hs := o.HTTP
	s.headerTimeout, s.idle, s.wrTO = hs.ReadHeaderTimeout, hs.IdleTimeout, hs.WriteTimeout
	if s.headerTimeout <= 0 {
		s.headerTimeout = hs.ReadTimeout
	}
	if s.idle <= 0 {
		s.idle = hs.ReadTimeout
	}
	return s, nil
}

// Serve accepts connections on l, answers what it can and lets o.HTTP serve the rest; it returns what
// http.Server.Serve returns (http.ErrServerClosed after Shutdown).
func (s *Server) Serve(l net.Listener) error {
	return s.o.HTTP.Serve(s.wrap(l))
}

// wrap wraps l: connections accepted on it are read by the fast path, and the returned listener yields the
// connections handed to net/http, for o.HTTP.Serve.
func (s *Server) wrap(l net.Listener) net.Listener {
	fl := &listener{Listener: l, s: s, conns: make(chan net.Conn), done: make(chan struct{}), errc: make(chan error, 1)}
	s.mu.Lock()
	s.lns[fl] = struct{}{}
	s.mu.Unlock()
	go fl.acceptLoop()
	return fl
}

// Shutdown stops both servers gracefully: o.HTTP.Shutdown (which closes the listeners), and on the fast path's
// side idle connections closed now, busy ones after the response they are writing. When ctx ends first the
// remaining fast-path connections are closed and ctx's error returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutting.Store(true)
	httpErr := make(chan error, 1)
	go func() { httpErr <- s.o.HTTP.Shutdown(ctx) }()
	err := s.drain(ctx)
	return errors.Join(err, <-httpErr)
}

// Close closes the listeners and every connection at once, on both sides.
func (s *Server) Close() error {
	s.shutting.Store(true)
	err := s.o.HTTP.Close()
	s.closeListeners()
	s.mu.Lock()
	for c := range s.conns {
		c.close()
	}
	s.mu.Unlock()
	return err
}

func (s *Server) closeListeners() {
	s.mu.Lock()
	lns := make([]*listener, 0, len(s.lns))
	for fl := range s.lns {
		lns = append(lns, fl)
	}
	s.mu.Unlock()
	for _, fl := range lns {
		_ = fl.Close() // takes s.mu
	}
}

// drain closes the idle fast-path connections until none is left, as http.Server.Shutdown does with its own. The
// listeners are closed by http.Server.Shutdown: closed before it has begun, Serve would return their error
// instead of http.ErrServerClosed.
func (s *Server) drain(ctx context.Context) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		s.mu.Lock()
		n := len(s.conns)
		for c := range s.conns {
			if c.state.CompareAndSwap(stateIdle, stateClosed) {
				_ = c.nc.Close()
			}
		}
		s.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			s.mu.Lock()
			for c := range s.conns {
				c.close()
			}
			s.mu.Unlock()
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func (s *Server) track(c *conn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// listener accepts on the real listener for the fast path and yields handed-over connections to http.Server.
type listener struct {
	net.Listener
	s     *Server
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	errc  chan error
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errc:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *listener) Close() error {
	var err error // a second Close (Shutdown closes the listeners, and so does http.Server.Shutdown) is not an error
	l.once.Do(func() {
		close(l.done)
		err = l.Listener.Close()
		l.s.mu.Lock()
		delete(l.s.lns, l)
		l.s.mu.Unlock()
	})
	return err
}

// acceptLoop accepts until the listener is closed; transient errors (out of file descriptors) are retried after
// a growing pause, as http.Server does.
func (l *listener) acceptLoop() {
	var pause time.Duration
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			var te interface{ Temporary() bool }
			if errors.As(err, &te) && te.Temporary() {
				pause = min(max(2*pause, 5*time.Millisecond), time.Second)
				time.Sleep(pause)
				continue
			}
			l.errc <- err
			return
		}
		pause = 0
		c := &conn{s: l.s, ln: l, nc: nc, accepted: time.Now()}
		l.s.track(c)
		if l.s.shutting.Load() {
			l.s.untrack(c)
			_ = nc.Close()
			continue
		}
		go c.serve()
	}
}

// handOver gives nc to http.Server, pre being the bytes the fast path read and did not answer.
func (l *listener) handOver(nc net.Conn, pre []byte) {
	hc := &handedConn{Conn: nc, pre: pre}
	select {
	case l.conns <- hc:
	case <-l.done:
		_ = nc.Close()
	}
}

// handedConn returns the bytes read by the fast path before reading the connection again.
type handedConn struct {
	net.Conn
	pre []byte
}

func (c *handedConn) Read(p []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(p, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// ReadFrom keeps net/http's sendfile path for large files (it looks for io.ReaderFrom on the connection).
func (c *handedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite lets net/http half-close after an error response, as it does on a *net.TCPConn.
func (c *handedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
