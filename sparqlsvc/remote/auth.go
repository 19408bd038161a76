package remote

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strings"
	"sync"
)

// digest answers the store's HTTP authentication challenge: Digest (RFC 7616, qop=auth, MD5 or SHA-256) or Basic.
// The last challenge is kept, so later requests authenticate at once instead of being sent twice.
type digest struct {
	user, password string

	mu        sync.Mutex
	challenge map[string]string // the last Digest challenge; nil before the first
	basic     bool
	nc        int
}

// send makes a request with a body that open returns (called again when the request must be repeated),
// authenticating when the store asks for it.
// The body's size is sent as Content-Length: Virtuoso takes a chunked body for an empty one.
func (s *Store) send(ctx context.Context, method, u, contentType string, open func() (io.ReadCloser, error), size int64) (*http.Response, error) {
	do := func() (*http.Response, error) {
		body, err := open()
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, method, u, body)
		if err != nil {
			body.Close()
			return nil, err
		}
		req.ContentLength = size
		if body == http.NoBody {
			req.ContentLength = 0
		}
		req.Header.Set("Content-Type", contentType)
		// Virtuoso's authenticated endpoints may follow an answer with a second, unasked-for 501 on the same
		// connection, which would answer the next request sent on it: every write has a connection of its own.
		req.Close = true
		s.auth.authorize(req)
		resp, err := s.client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &StoreError{Msg: "the SPARQL store cannot be reached: " + err.Error()}
		}
		return resp, nil
	}
	if s.auth.user != "" && !s.auth.known() {
		// Learn the challenge with an empty request first: Virtuoso answers 401 before reading a body, and then
		// reads the unread body as a request of its own on the same connection.
		body := open
		open = func() (io.ReadCloser, error) { return http.NoBody, nil }
		resp, err := do()
		open = body
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized && !s.auth.learn(resp.Header.Values("WWW-Authenticate")) {
			return nil, &StoreError{Status: http.StatusUnauthorized, Msg: "the SPARQL store asks for an authentication ldhub does not speak"}
		}
	}
	resp, err := do()
	if err != nil || resp.StatusCode != http.StatusUnauthorized || s.auth.user == "" {
		return resp, err
	}
	ok := s.auth.learn(resp.Header.Values("WWW-Authenticate"))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if !ok {
		return nil, &StoreError{Status: http.StatusUnauthorized, Msg: "the SPARQL store asks for an authentication ldhub does not speak"}
	}
	resp, err = do()
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		resp.Body.Close()
		return nil, &StoreError{Status: http.StatusUnauthorized, Msg: "the SPARQL store refused the update credentials"}
	}
	return resp, err
}

func (d *digest) known() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.basic || d.challenge != nil
}

// learn reads a 401's challenges; it reports whether one can be answered.
func (d *digest) learn(headers []string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range headers {
		scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
		switch strings.ToLower(scheme) {
		case "digest":
			d.challenge, d.nc, d.basic = parseChallenge(rest), 0, false
			return true
		case "basic":
			d.basic = true
		}
	}
	return d.basic
}

func parseChallenge(s string) map[string]string {
	m := map[string]string{}
	for s != "" {
		s = strings.TrimLeft(s, " ,")
		k, rest, ok := strings.Cut(s, "=")
		if !ok {
			break
		}
		k = strings.ToLower(strings.TrimSpace(k))
		var v string
		if strings.HasPrefix(rest, `"`) {
			end := strings.Index(rest[1:], `"`)
			if end < 0 {
				break
			}
			v, s = rest[1:1+end], rest[2+end:]
		} else {
			v, s, _ = strings.Cut(rest, ",")
		}
		m[k] = strings.TrimSpace(v)
	}
	return m
}

// authorize adds the credentials when the challenge is known; it reports whether it did.
func (d *digest) authorize(req *http.Request) bool {
	if d.user == "" {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.basic {
		req.SetBasicAuth(d.user, d.password)
		return true
	}
	c := d.challenge
	if c == nil {
		return false
	}
	var h func() hash.Hash = md5.New
	algo := c["algorithm"]
	if strings.EqualFold(algo, "SHA-256") {
		h = sha256.New
	}
	sum := func(s string) string {
		x := h()
		x.Write([]byte(s))
		return hex.EncodeToString(x.Sum(nil))
	}
	d.nc++
	nc := fmt.Sprintf("%08x", d.nc)
	cb := make([]byte, 8)
	_, _ = rand.Read(cb)
	cnonce := hex.EncodeToString(cb)
	uri := req.URL.RequestURI()
	ha1 := sum(d.user + ":" + c["realm"] + ":" + d.password)
	ha2 := sum(req.Method + ":" + uri)
	var resp, qop string
	if strings.Contains(c["qop"], "auth") {
		qop = "auth"
		resp = sum(strings.Join([]string{ha1, c["nonce"], nc, cnonce, qop, ha2}, ":"))
	} else {
		resp = sum(ha1 + ":" + c["nonce"] + ":" + ha2)
	}
	v := fmt.Sprintf(`Digest username="%s", realm="%s", nonce="%s", uri="%s", response="%s"`, d.user, c["realm"], c["nonce"], uri, resp)
	if algo != "" {
		v += ", algorithm=" + algo
	}
	if c["opaque"] != "" {
		v += fmt.Sprintf(`, opaque="%s"`, c["opaque"])
	}
	if qop != "" {
		v += fmt.Sprintf(`, qop=%s, nc=%s, cnonce="%s"`, qop, nc, cnonce)
	}
	req.Header.Set("Authorization", v)
	return true
}
