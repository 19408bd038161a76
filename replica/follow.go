// Package replica makes `ldhub serve --follow <primary>` a read replica: it follows the primary's change feed
// (GET /api/v4/changes), copies the catalogue records and every repository the replication credential may see by
// git fetch over the primary's smart HTTP into its own store, and lets the store's events drive the same pipeline
// as on the primary, so the rendered tree is the primary's bytes. Writes are forwarded to the primary
// (forward.go). Nothing here is a cluster protocol of its own: git carries the data, the feed only says when.
package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/ldhub/ldhub/atomicfile"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// Options configure a follower.
type Options struct {
	// Primary is the primary's URL (scheme, host and any path prefix it is served under).
	Primary string
	// ID and Secret are the replication credential (LDHUB_FOLLOW_CREDENTIAL=id:secret). The replica copies what
	// this credential may see, nothing more.
	ID, Secret string
	Store      *store.Store
	// StateFile keeps the last applied feed token and the primary's base URL across restarts.
	StateFile string
	// Client makes the requests to the primary; nil is a client without a timeout (the feed long-polls).
	Client *http.Client
	Log    *slog.Logger
	// Wait is how long one feed request waits for a change (default 30 s, at most 60).
	Wait time.Duration
	// Pack bounds one fetched pack (zero: gitrepo's defaults for pushes).
	Pack gitrepo.PackLimits
}

// Follower keeps a store a copy of the primary's.
type Follower struct {
	o       Options
	primary *url.URL

	apply sync.Mutex // one apply at a time (the follow loop, a forwarded write catching up)
	mu    sync.Mutex
	state followState
}

// followState is what the follower remembers across restarts.
type followState struct {
	Primary string `json:"primary"`
	Token   string `json:"token"`
	BaseURL string `json:"baseUrl"`
}

// feed is the primary's change-feed answer (api/server.Changes).
type feed struct {
	Token   string `json:"token"`
	BaseURL string `json:"baseUrl"`
	store.Followed
}

// New checks the options and reads the state left by an earlier run.
func New(o Options) (*Follower, error) {
	u, err := url.Parse(strings.TrimRight(o.Primary, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("replica: --follow %q: give the primary's http(s) URL", o.Primary)
	}
	if o.ID == "" || o.Secret == "" {
		return nil, errors.New("replica: a replication credential is required (LDHUB_FOLLOW_CREDENTIAL=id:secret)")
	}
	if o.Store == nil || o.StateFile == "" {
		return nil, errors.New("replica: a store and a state file are required")
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Wait <= 0 || o.Wait > time.Minute {
		o.Wait = 30 * time.Second
	}
	f := &Follower{o: o, primary: u}
	if b, err := os.ReadFile(o.StateFile); err == nil {
		var st followState
		// A state of another primary is not a place to resume from: start over.
		if json.Unmarshal(b, &st) == nil && st.Primary == u.String() {
			f.state = st
		}
	}
	return f, nil
}

// Primary is the primary's URL.
func (f *Follower) Primary() *url.URL { return f.primary }

// BaseURL is the primary's public base URL, which the replica must render with to produce the primary's bytes:
// the one remembered from the last run, else asked of the primary now.
func (f *Follower) BaseURL(ctx context.Context) (string, error) {
	f.mu.Lock()
	b := f.state.BaseURL
	f.mu.Unlock()
	if b != "" {
		return b, nil
	}
	fd, err := f.poll(ctx, "", 0)
	if err != nil {
		return "", err
	}
	return fd.BaseURL, nil
}

// Token is the feed token of the last state applied ("" before the first).
func (f *Follower) Token() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state.Token
}

// Run follows the primary until ctx ends: it asks the feed with the token of the last state applied, so after a
// restart (or the primary's) it catches up at once with whatever moved meanwhile, then waits for the next change.
// Errors (the primary down, a fetch cut off) are logged and retried with a growing pause; the copy keeps serving.
func (f *Follower) Run(ctx context.Context) error {
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		fd, err := f.poll(ctx, f.Token(), f.o.Wait)
		if err == nil && fd.Token != f.Token() {
			_, err = f.applyFeed(ctx, fd)
		}
		if err == nil {
			pause = 100 * time.Millisecond
			continue
		}
		if ctx.Err() != nil {
			break
		}
		f.o.Log.Warn("replica: following the primary", "primary", f.primary.String(), "err", err, "retry_in", pause)
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		pause = min(2*pause, 5*time.Second)
	}
	return ctx.Err()
}

// Sync brings the copy to the primary's state as of now, without waiting for the feed to announce it: a write
// forwarded to the primary calls it so that its writer reads its own write here. It returns every repository of
// that state (the follow loop may have fetched the write a moment before, so "moved by this call" would miss it).
func (f *Follower) Sync(ctx context.Context) ([]string, error) {
	fd, err := f.poll(ctx, "", 0)
	if err != nil {
		return nil, err
	}
	if _, err := f.applyFeed(ctx, fd); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(fd.Heads))
	for _, h := range fd.Heads {
		ids = append(ids, h.ID)
	}
	return ids, nil
}

// poll asks the change feed once.
func (f *Follower) poll(ctx context.Context, since string, wait time.Duration) (*feed, error) {
	q := url.Values{}
	if since != "" && wait > 0 {
		q.Set("since", since)
		q.Set("wait", strconv.Itoa(int(wait/time.Second)))
	}
	u := f.primary.JoinPath("/api/v4/changes")
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(f.o.ID, f.o.Secret)
	res, err := f.o.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("replica: change feed: %w", err)
	}
	defer res.Body.Close()
	// The feed answer grows with the catalogue; 256 MiB is far beyond any hub this serves and still bounded.
	body, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("replica: change feed: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("replica: change feed: %s: %.300s", res.Status, body)
	}
	var fd feed
	if err := json.Unmarshal(body, &fd); err != nil {
		return nil, fmt.Errorf("replica: change feed: %w", err)
	}
	if fd.Token == "" {
		return nil, errors.New("replica: change feed: answer without a token")
	}
	return &fd, nil
}

// applyFeed copies one feed state: catalogue first (so every repository has its folder and record), then each
// repository whose refs differ, by git fetch. The token is remembered only when all of it applied, so a failure
// half-way is retried from the same place.
func (f *Follower) applyFeed(ctx context.Context, fd *feed) ([]string, error) {
	f.apply.Lock()
	defer f.apply.Unlock()
	if err := f.o.Store.MirrorCatalog(ctx, fd.Groups, fd.Repositories); err != nil {
		return nil, fmt.Errorf("replica: catalogue: %w", err)
	}
	var moved []string
	var errs []error
	for _, h := range fd.Heads {
		ok, err := f.fetch(ctx, h)
		if err != nil {
			errs = append(errs, fmt.Errorf("replica: %s: %w", h.Path, err))
			continue
		}
		if ok {
			moved = append(moved, h.ID)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return moved, err
	}
	f.mu.Lock()
	f.state = followState{Primary: f.primary.String(), Token: fd.Token, BaseURL: fd.BaseURL}
	st := f.state
	f.mu.Unlock()
	b, err := json.Marshal(st)
	if err != nil {
		return moved, err
	}
	if err := atomicfile.WriteFile(f.o.StateFile, b, 0o644); err != nil {
		return moved, fmt.Errorf("replica: %w", err)
	}
	if len(moved) > 0 {
		f.o.Log.Info("replica: caught up", "token", fd.Token, "repositories", len(moved))
	}
	return moved, nil
}

// fetch copies one repository when its refs differ from the feed's: one upload-pack exchange with the primary
// (wants: the primary's refs; haves: ours), the pack stored and the refs moved by the store. The refs applied are
// those the primary advertises now, which are at least as new as the feed's.
func (f *Follower) fetch(ctx context.Context, h store.RepoHeads) (bool, error) {
	local, err := f.o.Store.MirroredRefs(ctx, h.ID)
	if err != nil {
		return false, err
	}
	same := len(local) == len(h.Refs)
	for name, hash := range h.Refs {
		same = same && local[name] == hash
	}
	if same {
		return false, nil
	}
	ep, err := transport.NewEndpoint(f.primary.JoinPath("/git", h.Path+".git").String())
	if err != nil {
		return false, err
	}
	sess, err := githttp.NewClient(f.o.Client).NewUploadPackSession(ep, &githttp.BasicAuth{Username: f.o.ID, Password: f.o.Secret})
	if err != nil {
		return false, err
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return false, f.o.Store.Mirror(ctx, h.ID, h.Published, nil, nil, f.o.Pack)
	}
	if err != nil {
		return false, err
	}
	refs := map[plumbing.ReferenceName]plumbing.Hash{}
	for name, hash := range ar.References {
		n := plumbing.ReferenceName(name)
		if n == h.Published || n.IsTag() {
			refs[n] = hash
		}
	}
	haveSet := map[plumbing.Hash]bool{}
	for _, hash := range local {
		haveSet[hash] = true
	}
	req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
	wanted := map[plumbing.Hash]bool{}
	for _, hash := range refs {
		if !haveSet[hash] && !wanted[hash] {
			wanted[hash] = true
			req.Wants = append(req.Wants, hash)
		}
	}
	var pack io.Reader
	if len(req.Wants) > 0 {
		for hash := range haveSet {
			req.Haves = append(req.Haves, hash)
		}
		res, err := sess.UploadPack(ctx, req)
		if err != nil {
			return false, err
		}
		defer res.Close()
		pack = res
	}
	if err := f.o.Store.Mirror(ctx, h.ID, h.Published, refs, pack, f.o.Pack); err != nil {
		return false, err
	}
	return true, nil
}

// StateFile is where ldhub serve keeps a follower's state in its data folder.
func StateFile(dataDir string) string { return filepath.Join(dataDir, "follow.json") }
