// Package githttp serves ldhub repositories over git's smart HTTP protocol (version 0/1, stateless RPC): clone and
// fetch through upload-pack, push through receive-pack. Reads of visible repositories need no credentials, other
// reads need VIEWER and pushes PUBLISHER; a push is validated like an upload, and a refused push moves no ref and
// tells `git push` why.
package githttp

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/revlist"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// Authorizer tells who makes a request. The API layer shares one implementation with this handler.
type Authorizer interface {
	// Actor returns the credential of the request's HTTP Basic header, or the anonymous zero Actor when it has
	// none. Wrong credentials are an error wrapping model.ErrUnauthorized.
	Actor(r *http.Request) (model.Actor, error)
}

// Handler serves `<Prefix><group path>/<repository>.git/...`.
type Handler struct {
	store  *store.Store
	auth   Authorizer
	prefix string
	// MaxPush bounds a push's request body in bytes.
	MaxPush int64
	// Limits bound what a push's pack may inflate to (zero fields: gitrepo's defaults, 256 MiB per file).
	Limits gitrepo.PackLimits
	// BaseURL is the site's public base URL, which the lines an accepted push prints start with; empty takes the
	// request's host.
	BaseURL string
	// Logger receives the errors that clients only see as "internal error"; nil logs to slog.Default().
	Logger *slog.Logger
	// Rendered, when set, reports whether a repository's latest versions are live at their URLs and, once those
	// that are not live have failed to render, why (the pipeline's RepositoryOutcome). An accepted push that
	// changed publications or files waits for it, at most Settle, before it prints their URLs: the pipeline
	// renders after the commit, and a pusher who opened the URL the push printed when git returned got 404 (or the
	// old version) for a second or more. A failure ends the wait at once and is printed with the URLs.
	Rendered func(ctx context.Context, repoID string) (bool, error)
	// Unrendered, when set, lists the older versions of a repository's publications that the pipeline left out
	// because their content could not be rendered (the pipeline's Unrendered); every push to the repository that
	// published something prints them, so the broken version stays in view until it is retracted.
	Unrendered func(ctx context.Context, repoID string) []string
	// Settle bounds that wait (0: 30 s); past it the push says the URLs answer once rendering is done.
	Settle time.Duration
}

// New returns a handler for requests whose path starts with prefix (e.g. "/git/"; the API engineer mounts it
// there without stripping it).
func New(s *store.Store, auth Authorizer, prefix string) *Handler {
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return &Handler{store: s, auth: auth, prefix: prefix, MaxPush: 1 << 30}
}

const (
	uploadPack  = "git-upload-pack"
	receivePack = "git-receive-pack"
)

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, h.prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	var repoPath, op string
	for _, suffix := range []string{"/info/refs", "/" + uploadPack, "/" + receivePack} {
		if p, found := strings.CutSuffix(rest, suffix); found {
			repoPath, op = p, suffix[1:]
			break
		}
	}
	if op == "" {
		http.Error(w, "not a git smart HTTP endpoint (the dumb protocol is not served)", http.StatusNotFound)
		return
	}
	repoPath = "/" + strings.TrimSuffix(repoPath, ".git")
	service := op
	if op == "info/refs" {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			methodNotAllowed(w, "GET, HEAD")
			return
		}
		service = r.URL.Query().Get("service")
		if service != uploadPack && service != receivePack {
			http.Error(w, "only smart HTTP is served: ask with ?service=git-upload-pack or git-receive-pack", http.StatusForbidden)
			return
		}
	} else if r.Method != http.MethodPost {
		methodNotAllowed(w, "POST")
		return
	}
	actor, err := h.auth.Actor(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	role := model.Viewer
	if service == receivePack {
		role = model.Publisher
	}
	repoID, repo, err := h.store.GitAccess(r.Context(), actor, repoPath, role)
	if err != nil {
		if actor.CredentialID == "" && errors.Is(err, model.ErrForbidden) {
			err = model.Unauthorizedf("%s needs credentials", service)
		}
		h.fail(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	switch {
	case op == "info/refs":
		h.advertise(w, repo, service)
	case op == uploadPack:
		h.uploadPack(w, r, repo)
	default:
		h.receivePack(w, r, actor, repoID, repo)
	}
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
}

func (h *Handler) fail(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, model.ErrUnauthorized):
		w.Header().Set("WWW-Authenticate", `Basic realm="ldhub"`)
		http.Error(w, err.Error(), http.StatusUnauthorized)
	case errors.Is(err, model.ErrForbidden):
		http.Error(w, err.Error(), http.StatusForbidden)
	case errors.Is(err, model.ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
	case errors.Is(err, model.ErrInvalid):
		http.Error(w, err.Error(), http.StatusBadRequest)
	default:
		h.logger().Error("git smart HTTP", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

func (h *Handler) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

func capabilities(service string) (*capability.List, error) {
	c := capability.NewList()
	caps := []capability.Capability{capability.OFSDelta}
	if service == uploadPack {
		caps = append(caps, capability.MultiACKDetailed)
	} else {
		// no-thin: the pack must carry every object it needs, so it can be stored and checked on its own.
		caps = append(caps, capability.ReportStatus, capability.DeleteRefs, capability.Sideband64k, "no-thin")
	}
	for _, cp := range caps {
		if err := c.Set(cp); err != nil {
			return nil, err
		}
	}
	return c, c.Set(capability.Agent, "ldhub")
}

// advertise answers GET info/refs: the service announcement, then the refs and capabilities.
func (h *Handler) advertise(w http.ResponseWriter, repo *gitrepo.Repo, service string) {
	ar := packp.NewAdvRefs()
	caps, err := capabilities(service)
	if err != nil {
		h.fail(w, err)
		return
	}
	ar.Capabilities = caps
	refs, err := repo.StoredRefs()
	if err != nil {
		h.fail(w, err)
		return
	}
	// The stored value of each ref is advertised (an annotated tag's own id), as git does.
	for name, hash := range refs {
		ar.References[name.String()] = hash
	}
	// HEAD names the published branch, so a clone checks it out.
	if head, ok := ar.References[string(repo.Published())]; ok {
		ar.Head = &head
		if err := ar.AddReference(plumbing.NewSymbolicReference(plumbing.HEAD, repo.Published())); err != nil {
			h.fail(w, err)
			return
		}
	}
	var body bytes.Buffer
	enc := pktline.NewEncoder(&body)
	if err := enc.EncodeString("# service=" + service + "\n"); err != nil {
		h.fail(w, err)
		return
	}
	if err := enc.Flush(); err != nil {
		h.fail(w, err)
		return
	}
	if err := ar.Encode(&body); err != nil {
		h.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-"+service+"-advertisement")
	_, _ = w.Write(body.Bytes())
}

func requestBody(r *http.Request, limit int64) (io.Reader, error) {
	var body io.Reader = overLimit{http.MaxBytesReader(nil, r.Body, limit), limit}
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, model.Invalidf("bad gzip body: %v", err)
		}
		body = overLimit{io.LimitReader(zr, limit), limit}
	}
	return body, nil
}

// overLimit turns a body's size limit into an error that says so, for the push's refusal.
type overLimit struct {
	r     io.Reader
	limit int64
}

func (o overLimit) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = &gitrepo.LimitError{Msg: fmt.Sprintf("the push is larger than the limit of %d bytes", o.limit)}
	}
	return n, err
}

// uploadRequest is what a fetch asks for.
type uploadRequest struct {
	wants, haves []plumbing.Hash
	done         bool
	multiAck     bool // the client asked for multi_ack_detailed
}

func parseUpload(r io.Reader) (*uploadRequest, error) {
	req := &uploadRequest{}
	sc := pktline.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSuffix(string(sc.Bytes()), "\n")
		if line == "" {
			continue // flush between the wants and the haves
		}
		word, arg, _ := strings.Cut(line, " ")
		switch word {
		case "want":
			id, caps, _ := strings.Cut(arg, " ") // the first want carries the client's capabilities
			req.wants = append(req.wants, plumbing.NewHash(id))
			for _, c := range strings.Fields(caps) {
				req.multiAck = req.multiAck || c == string(capability.MultiACKDetailed)
			}
		case "have":
			req.haves = append(req.haves, plumbing.NewHash(arg))
		case "done":
			req.done = true
		case "shallow", "deepen", "deepen-since", "deepen-not", "filter":
			return nil, model.Invalidf("%s is not supported by this server; clone without --depth/--filter", word)
		default:
			return nil, model.Invalidf("unexpected %q in upload-pack request", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, model.Invalidf("bad upload-pack request: %v", err)
	}
	if len(req.wants) == 0 {
		return nil, model.Invalidf("upload-pack request without wants")
	}
	return req, nil
}

// uploadPack answers a fetch. Stateless RPC repeats the state in every request (the wants, and the haves already
// found common). Before the client says "done", each common have is acknowledged (multi_ack_detailed) and, once
// there is one, negotiation is declared ready; after "done" the answer is the pack of what the wants reach minus
// what the common haves reach.
func (h *Handler) uploadPack(w http.ResponseWriter, r *http.Request, repo *gitrepo.Repo) {
	body, err := requestBody(r, 64<<20)
	if err != nil {
		h.fail(w, err)
		return
	}
	req, err := parseUpload(body)
	if err != nil {
		h.fail(w, err)
		return
	}
	st := repo.Objects()
	for _, want := range req.wants {
		if _, err := st.EncodedObject(plumbing.AnyObject, want); err != nil {
			h.fail(w, model.Invalidf("want %s: no such object", want))
			return
		}
	}
	var common []plumbing.Hash
	for _, have := range req.haves {
		if _, err := st.EncodedObject(plumbing.CommitObject, have); err == nil {
			common = append(common, have)
		}
	}
	w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
	enc := pktline.NewEncoder(w)
	multiAck := req.multiAck
	if !req.done {
		for _, c := range common {
			if multiAck {
				_ = enc.Encodef("ACK %s common\n", c)
			}
		}
		if len(common) > 0 {
			if multiAck {
				_ = enc.Encodef("ACK %s ready\n", common[len(common)-1])
			} else {
				_ = enc.Encodef("ACK %s\n", common[0])
				return
			}
		}
		_ = enc.EncodeString("NAK\n")
		return
	}
	switch {
	case len(common) == 0:
		_ = enc.EncodeString("NAK\n")
	case multiAck:
		_ = enc.Encodef("ACK %s\n", common[len(common)-1])
	default:
		_ = enc.Encodef("ACK %s\n", common[0])
	}
	// Past the status line an error can only cut the stream short; the client reports it, the log keeps why.
	haveObjs, err := revlist.Objects(st, common, nil)
	if err == nil {
		var objs []plumbing.Hash
		if objs, err = revlist.Objects(st, req.wants, haveObjs); err == nil {
			_, err = packfile.NewEncoder(w, st, false).Encode(objs, 10)
		}
	}
	if err != nil && r.Context().Err() == nil {
		h.logger().Error("git upload-pack", "repository", repo.Dir(), "err", err)
	}
}

// receivePack answers a push: commands, then the pack. The store validates and moves refs; the report tells git
// per ref what happened, and with side-band the reason also reaches the pusher's terminal as "remote:" lines.
func (h *Handler) receivePack(w http.ResponseWriter, r *http.Request, actor model.Actor, repoID string, repo *gitrepo.Repo) {
	body, err := requestBody(r, h.MaxPush)
	if err != nil {
		h.fail(w, err)
		return
	}
	br := bufio.NewReader(body)
	// A push larger than http.postBuffer (1 MiB by default) is preceded by a probe: one flush packet, to which
	// git expects a plain 200 before it streams the real request in chunks.
	if head, _ := br.Peek(5); string(head) == "0000" {
		w.Header().Set("Content-Type", "application/x-git-receive-pack-result")
		return
	}
	req := packp.NewReferenceUpdateRequest()
	if err := req.Decode(br); err != nil {
		h.fail(w, model.Invalidf("bad receive-pack request: %v", err))
		return
	}
	updates := make([]store.RefUpdate, len(req.Commands))
	hasPack := false
	for i, c := range req.Commands {
		updates[i] = store.RefUpdate{Name: c.Name, Old: c.Old, New: c.New}
		hasPack = hasPack || !c.New.IsZero()
	}
	var pack io.Reader
	if hasPack && req.Packfile != nil {
		pack = req.Packfile
	}
	report, pushErr := h.store.Push(r.Context(), actor, repoID, pack, updates, h.Limits)
	// A refused pack is left unread from the point of refusal. git streams a pack over http.postBuffer (1 MiB) in
	// chunks and reads the answer only once it has sent them all: answering early cuts the connection under it,
	// and git then prints "RPC failed; HTTP 400" and "Everything up-to-date" instead of the refusal. Reading the
	// rest into nothing lets the report reach the pusher as a [remote rejected] line.
	if _, err := io.Copy(io.Discard, br); err != nil && errors.As(err, new(*gitrepo.LimitError)) {
		// Over MaxPush the limited reader stops, but git still has the rest to send, and an answer before the
		// end makes curl stop sending: remote-curl then posts what was left as a new request, which we refuse
		// as malformed, so git printed "RPC failed; HTTP 400" and "Everything up-to-date" after the reason.
		// The raw body is read on into nothing, up to drainMore further bytes (network time, no memory),
		// which is enough for git to finish its request and show only the refusal.
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, h.drainMore()))
	}
	live := true
	var renderErr error
	var unrendered []string
	if pushErr == nil && len(report.Changes) > 0 {
		live, renderErr = h.waitRendered(r.Context(), repoID)
		if h.Unrendered != nil {
			unrendered = h.Unrendered(r.Context(), repoID)
		}
	}
	rs := packp.NewReportStatus()
	rs.UnpackStatus = "ok"
	reason := ""
	if pushErr != nil {
		reason = oneLine(pushErr)
		if reason == "internal error" {
			h.logger().Error("git push", "repository", repoID, "err", pushErr)
		}
		if strings.HasPrefix(reason, "unpack failed") {
			rs.UnpackStatus = reason
		}
	}
	for _, u := range updates {
		st := "ok"
		if pushErr != nil {
			st = reason
		}
		rs.CommandStatuses = append(rs.CommandStatuses, &packp.CommandStatus{ReferenceName: u.Name, Status: st})
	}
	w.Header().Set("Content-Type", "application/x-git-receive-pack-result")
	if !req.Capabilities.Supports(capability.ReportStatus) {
		return
	}
	if !req.Capabilities.Supports(capability.Sideband64k) && !req.Capabilities.Supports(capability.Sideband) {
		_ = rs.Encode(w)
		return
	}
	typ := sideband.Sideband64k
	if !req.Capabilities.Supports(capability.Sideband64k) {
		typ = sideband.Sideband
	}
	mux := sideband.NewMuxer(typ, w)
	var msg bytes.Buffer
	if pushErr != nil {
		msg.WriteString("ldhub refused the push; nothing changed:\n")
		for _, line := range errorLines(pushErr) {
			msg.WriteString("  " + line + "\n")
		}
	} else {
		h.describe(&msg, r, report, live, renderErr, unrendered)
	}
	_, _ = mux.WriteChannel(sideband.ProgressMessage, msg.Bytes())
	var rep bytes.Buffer
	_ = rs.Encode(&rep)
	_, _ = mux.Write(rep.Bytes())
	_ = pktline.NewEncoder(w).Flush()
}

// drainMore is how much of a body over MaxPush is read into nothing so that git ends its request and reads the
// refusal: as much again as MaxPush, at least 256 MiB. A push larger still is cut, and git adds its transport error
// to the reason.
func (h *Handler) drainMore() int64 {
	return max(h.MaxPush, 256<<20)
}

// waitRendered waits until the repository's latest versions are live, or failed to render, at most Settle, and
// reports whether they are live and why not when a render failed.
func (h *Handler) waitRendered(ctx context.Context, repoID string) (bool, error) {
	if h.Rendered == nil {
		return true, nil
	}
	return WaitLive(ctx, h.Settle, func(ctx context.Context) (bool, error) { return h.Rendered(ctx, repoID) })
}

// DefaultSettle bounds how long a write that published waits for it to go live before it answers anyway.
const DefaultSettle = 30 * time.Second

// WaitLive asks live every 10 ms until it says yes or gives an error, at most settle (0: DefaultSettle) or until
// ctx ends, and reports whether it said yes, and its error. A write that published (a push here, an upload in
// the API, a write a replica forwarded) answers after it, so that the URLs its answer names already serve what it
// wrote; the bound keeps a stuck render from holding the writer, and the error (the pipeline's render failed)
// ends the wait at once, as nothing will go live before another write.
func WaitLive(ctx context.Context, settle time.Duration, live func(context.Context) (bool, error)) (bool, error) {
	if settle <= 0 {
		settle = DefaultSettle
	}
	ctx, cancel := context.WithTimeout(ctx, settle)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := live(ctx)
		if ok || err != nil {
			return ok, err
		}
		select {
		case <-ctx.Done():
			return false, nil
		case <-tick.C:
		}
	}
}

// describe writes what an accepted push published, one line per publication or file, for git to show as
// "remote:" lines; live says whether their URLs already answer with the new versions, failed why some do not,
// unrendered which older versions are left out.
func (h *Handler) describe(w *bytes.Buffer, r *http.Request, rep *store.PushReport, live bool, failed error, unrendered []string) {
	base := strings.TrimSuffix(h.BaseURL, "/")
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	if len(rep.Changes) == 0 {
		w.WriteString("ldhub: no publication or file changed\n")
	}
	for _, c := range rep.Changes {
		if c.Removed {
			fmt.Fprintf(w, "ldhub: removed %s %s (its file is gone from the branch; its URLs answer 404)\n", c.Kind, base+c.Path)
			continue
		}
		verb := "new version"
		if c.New {
			verb = "new " + c.Kind
		}
		fmt.Fprintf(w, "ldhub: %s %s version %s\n", verb, base+c.Path, c.Label)
	}
	switch {
	case failed != nil:
		// The push is stored; what failed stays at its last live version until a later push fixes it.
		w.WriteString("ldhub: stored, but not everything went live:\n")
		for _, line := range strings.Split(failed.Error(), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				w.WriteString("ldhub:   " + line + "\n")
			}
		}
	case !live:
		w.WriteString("ldhub: still rendering: these URLs answer with the new versions in a moment\n")
	}
	if len(unrendered) > 0 {
		// Live all the same: an older version's content does not hold the newer ones back.
		w.WriteString("ldhub: live, but these older versions are left out (their URLs answer 404):\n")
		for _, u := range unrendered {
			w.WriteString("ldhub:   " + u + "\n")
		}
	}
	for _, n := range rep.Notes {
		w.WriteString("ldhub: " + n + "\n")
	}
}

// errorLines renders a refusal for the pusher, one line per refused file.
func errorLines(err error) []string {
	s := err.Error()
	if !errors.Is(err, model.ErrInvalid) && !errors.Is(err, model.ErrConflict) && !errors.Is(err, model.ErrForbidden) {
		return []string{"internal error"}
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// oneLine renders an error for a report-status line, which may not contain newlines.
func oneLine(err error) string {
	s := err.Error()
	if !errors.Is(err, model.ErrInvalid) && !errors.Is(err, model.ErrConflict) && !errors.Is(err, model.ErrForbidden) {
		s = "internal error"
	}
	return strings.Join(strings.Fields(s), " ")
}
