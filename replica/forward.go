package replica

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/store/githttp"
	"github.com/ldhub/ldhub/httpx/apierr"
)

// HandlerOptions configure the replica's front handler.
type HandlerOptions struct {
	// Local serves what the replica answers itself: the hub's handler over the copy.
	Local    http.Handler
	Follower *Follower
	// Rendered reports whether the pipeline has made a repository's latest versions live and, once those not
	// live have failed to render, why (the pipeline's RepositoryOutcome; nil: live at once).
	Rendered func(ctx context.Context, repoID string) (bool, error)
	// CatchUp bounds how long a forwarded write's answer is held while the replica catches up with it
	// (default 10 s); the answer then goes out anyway, marked Ldhub-Replica-Synced: false.
	CatchUp time.Duration
	// Public reports whether the answer to a GET of path depends on the caller only through what the caller may
	// see, never through who the caller is (the direct URLs: server.SitePath). A credentialed read of such a path
	// is answered from the copy when the copy has it for anyone, and forwarded only when it does not. nil: none.
	Public func(path string) bool
}

// Handler answers reads from the copy and forwards everything else to the primary.
//
// Forwarded, not redirected: a 307/308 is followed by git only on its first request of a push (http.followRedirects
// defaults to "initial"), by curl only with -L (and then without the credentials for another host), and by Python
// requests/urllib with the Authorization header dropped when the port or host changes, so a redirected write
// would reach the primary without its credentials. Forwarding works with every client unchanged; the cost is that
// writes pass through the replica (docs/scaling.md).
//
// Forwarded are: every method other than GET, HEAD and OPTIONS except SPARQL queries by POST and git fetches, git
// pushes (git-receive-pack), and requests carrying credentials, which the replica cannot check: it keeps no secrets
// and no grants. The primary can, and answers hidden repositories exactly as it would. Credentialed GETs and HEADs
// of public paths (HandlerOptions.Public: the direct URLs, whose answer for a visible repository is the same for
// everyone, credentials right, wrong or absent) are answered from the copy first, as if anonymous; only a 404 there,
// which is all a hidden repository or a version the copy lacks looks like, goes on to the primary. So credentialed
// reads of public data scale out with the replicas, and the API's answers, which depend on the caller (listings,
// 401 for a wrong secret), stay the primary's. A forwarded write that succeeded is held until the replica has
// fetched it and rendered it, so that its writer reads its own write here next; the answer says so in
// Ldhub-Replica-Synced.
type Handler struct {
	o     HandlerOptions
	proxy *httputil.ReverseProxy
}

// SyncedHeader says on the answer of a forwarded write whether the replica already serves it.
const SyncedHeader = "Ldhub-Replica-Synced"

// NewHandler returns the replica's front handler.
func NewHandler(o HandlerOptions) *Handler {
	if o.CatchUp <= 0 {
		o.CatchUp = 10 * time.Second
	}
	h := &Handler{o: o}
	primary := o.Follower.Primary()
	h.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(primary)
			// Keep the chain (nginx's address and the client's before it): the primary decides, by its own
			// --trusted-proxies, which of them names the client.
			pr.Out.Header["X-Forwarded-For"] = pr.In.Header["X-Forwarded-For"]
			pr.SetXForwarded()
		},
		ModifyResponse: h.catchUp,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			o.Follower.o.Log.Warn("replica: forwarding to the primary", "method", r.Method, "path", r.URL.Path, "err", err)
			w.Header().Set("Retry-After", "5")
			apierr.Write(w, r, apierr.New(http.StatusServiceUnavailable, "this is a read replica and its primary is unreachable: writes and requests with credentials need the primary"))
		},
	}
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !Forwarded(r) {
		h.o.Local.ServeHTTP(w, r)
		return
	}
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && h.o.Public != nil && h.o.Public(r.URL.Path) &&
		!strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
		// Without the credentials: the copy knows none, and its guard would count each as a failed attempt.
		anon := r.Clone(r.Context())
		anon.Header.Del("Authorization")
		mw := &missWriter{w: w, h: http.Header{}}
		h.o.Local.ServeHTTP(mw, anon)
		if !mw.missed {
			return
		}
	}
	h.proxy.ServeHTTP(w, r)
}

// missWriter passes an answer through unless it is a 404, which it swallows (headers and body) so that the
// request can be asked of the primary instead.
type missWriter struct {
	w      http.ResponseWriter
	h      http.Header
	wrote  bool
	missed bool
}

func (m *missWriter) Header() http.Header { return m.h }

func (m *missWriter) WriteHeader(code int) {
	if m.wrote || m.missed {
		return
	}
	if code == http.StatusNotFound {
		m.missed = true
		return
	}
	if code >= 200 {
		m.wrote = true
	}
	dst := m.w.Header()
	for k, v := range m.h {
		dst[k] = v
	}
	m.w.WriteHeader(code)
}

func (m *missWriter) Write(b []byte) (int, error) {
	if !m.wrote && !m.missed {
		m.WriteHeader(http.StatusOK)
	}
	if m.missed {
		return len(b), nil
	}
	return m.w.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (deadlines, flushes).
func (m *missWriter) Unwrap() http.ResponseWriter { return m.w }

// Forwarded reports whether a replica sends r to the primary.
func Forwarded(r *http.Request) bool {
	if r.Header.Get("Authorization") != "" || strings.HasSuffix(r.URL.Path, "/git-receive-pack") ||
		r.URL.Query().Get("service") == "git-receive-pack" {
		return true
	}
	return write(r)
}

// write reports whether r may change something on the primary.
func write(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	case http.MethodPost:
		return !strings.HasSuffix(r.URL.Path, "/sparql") && !strings.HasSuffix(r.URL.Path, "/git-upload-pack")
	}
	return true
}

// catchUp holds a successful write's answer until the replica serves what it wrote (at most CatchUp).
func (h *Handler) catchUp(res *http.Response) error {
	req := res.Request
	if !write(req) && !strings.HasSuffix(req.URL.Path, "/git-receive-pack") || res.StatusCode < 200 || res.StatusCode > 299 {
		return nil
	}
	ctx, cancel := context.WithTimeout(req.Context(), h.o.CatchUp)
	defer cancel()
	synced := false
	repos, err := h.o.Follower.Sync(ctx)
	if err == nil {
		synced = h.rendered(ctx, repos)
	}
	// A render that failed here failed on the primary too (the same commits, the same pipeline), whose answer
	// already says so (a push's "remote:" lines): it goes out at once, and the replica serves what the primary
	// serves, the last version that went live.
	res.Header.Set(SyncedHeader, strconv.FormatBool(synced))
	return nil
}

// rendered waits until the pipeline has made every moved repository live or failed to render what is not, or
// ctx ends (catchUp's CatchUp), as a push waits on the primary (githttp.WaitLive), and reports whether the
// replica then serves what the primary does. Before, a failed render held the answer for the whole CatchUp.
func (h *Handler) rendered(ctx context.Context, repos []string) bool {
	if h.o.Rendered == nil {
		return true
	}
	live, failed := githttp.WaitLive(ctx, h.o.CatchUp, func(ctx context.Context) (bool, error) {
		var errs []error
		for _, id := range repos {
			live, err := h.o.Rendered(ctx, id)
			if err != nil {
				errs = append(errs, err)
			} else if !live {
				return false, nil
			}
		}
		return len(errs) == 0, errors.Join(errs...)
	})
	return live || failed != nil
}
