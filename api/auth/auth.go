// Package auth authenticates API requests with HTTP Basic credentials (application id or token id and secret)
// and slows down guessing: after a few failures from one source address or for one id, each further failed
// attempt from there waits longer before it is answered. A correct secret is answered at once, however many
// failures its id has. The memory it keeps is bounded.
package auth

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/ldhub/ldhub/content/model"
)

// Authenticator checks an id and secret; *store.Store is one.
type Authenticator interface {
	Authenticate(ctx context.Context, id, secret string) (model.Credential, error)
}

// Options tune the slow-down. Zero values take the defaults.
type Options struct {
	// FreeFailures is how many failures a key may have before attempts are delayed (default 5).
	FreeFailures int
	// BaseDelay is the delay after the first failure beyond the free ones; it doubles with each further failure
	// (default 250ms) up to MaxDelay (default 5s).
	BaseDelay, MaxDelay time.Duration
	// Forget is how long a key's failures are remembered after its last one (default 15 minutes).
	Forget time.Duration
	// MaxKeys bounds the number of addresses and ids remembered (default 10000).
	MaxKeys int
	// TrustedProxies are the peers whose X-Forwarded-For is believed (the generated nginx configuration sets
	// it); nil trusts loopback only. Behind a proxy every request comes from the proxy, so without this one
	// guesser would slow everyone down.
	TrustedProxies []netip.Prefix
	// Now and Sleep are the clock and the wait; tests replace them.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// ParseTrustedProxies reads a comma-separated list of CIDRs (`ldhub serve --trusted-proxies`) for
// Options.TrustedProxies. Blank entries are skipped; an empty list trusts no proxy (a non-nil empty slice, unlike
// the nil that means loopback). A malformed entry is an error naming it (netip's).
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	trusted := []netip.Prefix{}
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, err
		}
		trusted = append(trusted, p)
	}
	return trusted, nil
}

// Guard authenticates requests. It is safe for concurrent use.
type Guard struct {
	a Authenticator
	o Options

	mu    sync.Mutex
	fails map[string]*record
}

type record struct {
	n    int
	last time.Time
}

// New returns a Guard checking credentials with a.
func New(a Authenticator, o Options) *Guard {
	if o.FreeFailures <= 0 {
		o.FreeFailures = 5
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = 250 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 5 * time.Second
	}
	if o.Forget <= 0 {
		o.Forget = 15 * time.Minute
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = 10000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TrustedProxies == nil {
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	return &Guard{a: a, o: o, fails: map[string]*record{}}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Actor returns the credential of the request's HTTP Basic header, or the anonymous zero Actor when the request
// has no Authorization header. Wrong credentials, and any other kind of Authorization, give an error wrapping
// model.ErrUnauthorized that never says which part was wrong.
func (g *Guard) Actor(r *http.Request) (model.Actor, error) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		if r.Header.Get("Authorization") != "" {
			return model.Actor{}, model.Unauthorizedf("only HTTP Basic credentials are accepted")
		}
		return model.Actor{}, nil
	}
	ipKey, idKey := "ip "+g.source(r), "id "+id
	c, err := g.a.Authenticate(r.Context(), id, secret)
	if err == nil {
		// A correct secret is never slowed down: credential ids are public (git author lines, createdBy), so a
		// wait on successes would let anyone hold a known credential's owner back with a few wrong guesses.
		g.forget(idKey)
		return model.ActorOf(c), nil
	}
	// Only the failure waits, before it is answered: a guesser learns nothing sooner, and a sequential guesser
	// makes one attempt per delay. The wait grows with the failures before this one.
	d := max(g.delay(ipKey), g.delay(idKey))
	g.fail(ipKey)
	g.fail(idKey)
	if d > 0 {
		if serr := g.o.Sleep(r.Context(), d); serr != nil {
			return model.Actor{}, serr
		}
	}
	return model.Actor{}, err
}

// Delay is the wait the next attempt from r's address for id would get (for tests and diagnostics).
func (g *Guard) Delay(r *http.Request, id string) time.Duration {
	return max(g.delay("ip "+g.source(r)), g.delay("id "+id))
}

// ClientAddr is the address r counts against in per-client limits: see source.
func (g *Guard) ClientAddr(r *http.Request) string { return g.source(r) }

// source is the client address: the peer, or, when the peer is a trusted proxy, the last X-Forwarded-For hop
// that is not one (earlier hops are whatever the client chose to send).
func (g *Guard) source(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !g.trusted(addr) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !g.trusted(hop) {
			return hop.String()
		}
	}
	return host
}

func (g *Guard) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range g.o.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func (g *Guard) delay(key string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	rec, ok := g.fails[key]
	if !ok || g.o.Now().Sub(rec.last) > g.o.Forget {
		return 0
	}
	over := rec.n - g.o.FreeFailures
	if over < 0 {
		return 0
	}
	d := g.o.BaseDelay
	for i := 0; i < over && d < g.o.MaxDelay; i++ {
		d *= 2
	}
	return min(d, g.o.MaxDelay)
}

func (g *Guard) fail(key string) {
	now := g.o.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	rec, ok := g.fails[key]
	if !ok {
		if len(g.fails) >= g.o.MaxKeys {
			g.evict(now)
		}
		rec = &record{}
		g.fails[key] = rec
	} else if now.Sub(rec.last) > g.o.Forget {
		rec.n = 0
	}
	rec.n++
	rec.last = now
}

// evict makes room: first every forgotten key, then, if the table is still full, the oldest tenth. A flood of
// fresh keys therefore cannot grow memory, only shorten how long old failures are remembered.
func (g *Guard) evict(now time.Time) {
	for k, rec := range g.fails {
		if now.Sub(rec.last) > g.o.Forget {
			delete(g.fails, k)
		}
	}
	if len(g.fails) < g.o.MaxKeys {
		return
	}
	cut := now
	for _, rec := range g.fails {
		if rec.last.Before(cut) {
			cut = rec.last
		}
	}
	// Drop keys from the oldest upwards until a tenth of the table is free.
	target := g.o.MaxKeys - max(1, g.o.MaxKeys/10)
	for step := time.Second; len(g.fails) > target; step *= 2 {
		cut = cut.Add(step)
		for k, rec := range g.fails {
			if !rec.last.After(cut) {
				delete(g.fails, k)
			}
		}
	}
}

// Keys is the number of addresses and ids remembered.
func (g *Guard) Keys() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.fails)
}

func (g *Guard) forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.fails, key)
}
