package server

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/httpx/apierr"
)

// Changes is the change feed's answer (GET /api/v4/changes): everything the caller may copy, and a token that
// names exactly this state.
type Changes struct {
	// Token names this answer's state; pass it back as since= to wait for the next change.
	Token string `json:"token"`
	// BaseURL is the hub's public address: a replica renders with it, so its pages are the primary's bytes.
	BaseURL string `json:"baseUrl"`
	store.Followed
}

// maxChangeWait bounds one long-poll; a follower asks again with the same token.
const maxChangeWait = 60 * time.Second

// maxChangeWaiters bounds the long-polls held open at once: each holds a goroutine and a subscription.
const maxChangeWaiters = 256

// changes is the change feed a read replica follows. The answer is the state itself (catalogue records and the
// refs of every repository the caller may see), not a list of events, so its token survives restarts of either
// side: a follower that was down sends the token of the last state it applied and gets the current state at once
// if anything moved, or waits (wait=seconds, at most 60) until something does. Hidden repositories are left out
// exactly as in every listing.
func (s *Server) changes(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	since := q.Get("since")
	var wait time.Duration
	if v := q.Get("wait"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || time.Duration(n)*time.Second > maxChangeWait {
			return badRequest("wait must be a number of seconds from 0 to 60")
		}
		wait = time.Duration(n) * time.Second
	}
	ctx := r.Context()
	if wait > 0 && since != "" {
		select {
		case s.waiters <- struct{}{}:
			defer func() { <-s.waiters }()
		default:
			w.Header().Set("Retry-After", "1")
			return apierr.New(http.StatusServiceUnavailable, "too many change-feed waits are open; ask again")
		}
	}
	// Subscribed before the first read, so that a change between the read and the wait is not missed.
	events := s.cfg.Store.Subscribe(ctx)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		f, err := s.cfg.Store.Follow(ctx, c.actor)
		if err != nil {
			return err
		}
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(append([]byte(s.cfg.BaseURL+"\n"), b...))
		out := Changes{Token: hex.EncodeToString(sum[:16]), BaseURL: s.cfg.BaseURL, Followed: *f}
		if out.Token != since || wait == 0 {
			return writeFeed(w, r, out)
		}
		select {
		case _, ok := <-events:
			if !ok {
				return writeFeed(w, r, out)
			}
		case <-timer.C:
			return writeFeed(w, r, out)
		case <-ctx.Done():
			return nil
		}
	}
}

// writeFeed writes the feed's answer, gzip-compressed when the caller accepts it (a replica's Go client asks so by
// default and decompresses by itself): the answer grows with the catalogue, about 440 bytes a repository, and
// compresses some 4–5×, which is what every change costs each replica in bytes.
func writeFeed(w http.ResponseWriter, r *http.Request, out Changes) error {
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if !codec.AcceptsEncoding(r.Header.Get("Accept-Encoding"), "gzip") {
		return writeJSON(w, out)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Content-Encoding", "gzip")
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if _, err := zw.Write(append(b, '\n')); err != nil {
		return err
	}
	return zw.Close()
}
