package replica

import (
	"context"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/httpx/apierr"
)

// HandlerOptions configure the replica's front handler.
type HandlerOptions struct {
	// Local serves what the replica answers itself: the hub's handler over the copy.
	Local    http.Handler
	Follower *Follower
	// Rendered reports whether the pipeline has made a repository's latest versions live (nil: at once).
	Rendered func(ctx context.Context, repoID string) bool
	// CatchUp bounds how long a forwarded write's answer is held while the replica catches up with it
	// (default 10 s); the answer then goes out anyway, marked Ldhub-Replica-Synced: false.
	CatchUp time.Duration
}

// Handler answers reads from the copy and forwards everything else to the primary.
//
// Forwarded, not redirected: a 307/308 is followed by git only on its first request of a push (http.followRedirects
// defaults to "initial"), by curl only with -L (and then without the credentials for another host), and by Python
// requests/urllib with the Authorization header dropped when the port or host changes, so a redirected write
// would reach the primary without its credentials. Forwarding works with every client unchanged; the cost is that
// writes pass through the replica (docs/scaling.md).
//
// Forwarded are: every request carrying credentials (the replica keeps no secrets, so it cannot check them; the
// primary can, and answers hidden repositories exactly as it would), every method other than GET, HEAD and
// OPTIONS except SPARQL queries by POST and git fetches, and git pushes (git-receive-pack). A forwarded write that
// succeeded is held until the replica has fetched it and rendered it, so that its writer reads its own write here
// next; the answer says so in Ldhub-Replica-Synced.
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
	if Forwarded(r) {
		h.proxy.ServeHTTP(w, r)
		return
	}
	h.o.Local.ServeHTTP(w, r)
}

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
	res.Header.Set(SyncedHeader, strconv.FormatBool(synced))
	return nil
}

// rendered waits until the pipeline has made every moved repository live, or ctx ends.
func (h *Handler) rendered(ctx context.Context, repos []string) bool {
	if h.o.Rendered == nil {
		return true
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		done := true
		for _, id := range repos {
			done = done && h.o.Rendered(ctx, id)
		}
		if done {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}
