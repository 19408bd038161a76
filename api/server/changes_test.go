package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldhub/ldhub/api/server"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

func feedRepos(c server.Changes) []string {
	var ids []string
	for _, h := range c.Heads {
		ids = append(ids, h.ID)
	}
	return ids
}

// TestChangeFeedPermissions: the feed lists what the caller may see and nothing else — a credential without
// grants gets the visible repository and the group above it, never the hidden ones or a group with nothing it may
// see; anonymous callers get 401; the token names the state and moves only when something listed moves.
func TestChangeFeedPermissions(t *testing.T) {
	f := newFixtureWatching(t, true)
	get := func(as, query string) response {
		t.Helper()
		return f.do(request{method: "GET", path: "/api/v4/changes" + query, as: as})
	}
	if res := get("anonymous", ""); res.code != http.StatusUnauthorized {
		t.Fatalf("anonymous: %d %s, want 401", res.code, res.body)
	}
	for _, q := range []string{"?wait=61", "?wait=-1", "?wait=x"} {
		if res := get("viewer", q); res.code != http.StatusBadRequest || !strings.Contains(string(res.body), "wait") {
			t.Errorf("%s: %d %s, want 400 naming wait", q, res.code, res.body)
		}
	}
	stranger := decodeJSON[server.Changes](t, get("stranger", ""))
	if got, want := feedRepos(stranger), []string{f.ids["vis"]}; !slices.Equal(got, want) {
		t.Errorf("stranger sees repositories %v, want only the visible one %v", got, want)
	}
	for _, g := range stranger.Groups {
		if g.ID == f.ids["closed"] || g.ID == f.ids["empty"] {
			t.Errorf("stranger sees group %s (%s), which holds nothing it may see", g.PathSegment, g.ID)
		}
	}
	if len(stranger.Repositories) != 1 || stranger.Repositories[0].Visible != true {
		t.Errorf("stranger's repository records: %+v", stranger.Repositories)
	}
	viewer := decodeJSON[server.Changes](t, get("viewer", ""))
	want := []string{f.ids["vis"], f.ids["hid"], f.ids["inner"]}
	slices.Sort(want)
	if got := feedRepos(viewer); !slices.Equal(got, want) {
		t.Errorf("viewer sees %v, want %v", got, want)
	}
	for _, h := range viewer.Heads {
		if h.Published == "" || len(h.Refs) == 0 && h.ID != f.ids["inner"] {
			t.Errorf("heads of %s: %+v", h.Path, h)
		}
	}
	if viewer.Token == stranger.Token || viewer.BaseURL != base {
		t.Errorf("tokens %s %s, base %q", viewer.Token, stranger.Token, viewer.BaseURL)
	}
	if again := decodeJSON[server.Changes](t, get("stranger", "")); again.Token != stranger.Token {
		t.Errorf("token moved without a change: %s, then %s", stranger.Token, again.Token)
	}

	// A change the stranger may not see wakes its wait but does not end it: the answer after the wait is the
	// same state.
	done := make(chan server.Changes, 1)
	go func() { done <- decodeJSON[server.Changes](t, get("stranger", "?since="+stranger.Token+"&wait=2")) }()
	time.Sleep(200 * time.Millisecond)
	ctx := context.Background()
	if _, err := f.st.CreatePublication(ctx, model.SystemActor, f.ids["hid"], model.PublicationMeta{Name: "secret"},
		store.Content{Ext: ".ttl", Data: []byte(turtleB)}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if got.Token != stranger.Token || slices.Contains(feedRepos(got), f.ids["hid"]) {
			t.Errorf("a hidden change reached the stranger: %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wait=2 did not end")
	}

	// A visible change ends the wait at once with a new token and the new head.
	go func() { done <- decodeJSON[server.Changes](t, get("stranger", "?since="+stranger.Token+"&wait=30")) }()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if _, err := f.st.CreatePublication(ctx, model.SystemActor, f.ids["vis"], model.PublicationMeta{Name: "more"},
		store.Content{Ext: ".ttl", Data: []byte(turtleB)}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if got.Token == stranger.Token || time.Since(start) > 5*time.Second {
			t.Errorf("after a visible change: token %s (was %s) after %s", got.Token, stranger.Token, time.Since(start))
		}
		if got.Heads[0].Refs[got.Heads[0].Published] == stranger.Heads[0].Refs[stranger.Heads[0].Published] {
			t.Errorf("the published branch did not move: %+v", got.Heads[0])
		}
		// Resuming from the old token answers at once.
		if res := get("stranger", "?since="+stranger.Token+"&wait=30"); decodeJSON[server.Changes](t, res).Token != got.Token {
			t.Errorf("resume from the old token: %s", res.body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a visible change did not end the wait")
	}
}

// TestChangeFeedWaitsAreBounded: a credential cannot hold more waits open than the hub allows (256 by default,
// 8 here); the next is 503 with Retry-After, and the slots are freed when the waiting clients leave.
func TestChangeFeedWaitsAreBounded(t *testing.T) {
	f := newFixture(t)
	token := decodeJSON[server.Changes](t, f.do(request{method: "GET", path: "/api/v4/changes", as: "stranger"})).Token
	cfg := f.cfg
	cfg.ChangeWaits = 8
	hs := httptest.NewServer(server.New(cfg))
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	c := f.callers["stranger"]
	// Each holder records when its current attempt started; a refused attempt answers at once, so an attempt
	// still open after half a second holds a slot.
	var inFlight [8]atomic.Int64
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				inFlight[i].Store(time.Now().UnixNano())
				req, _ := http.NewRequestWithContext(ctx, "GET", hs.URL+"/api/v4/changes?wait=60&since="+token, nil)
				req.SetBasicAuth(c.id, c.secret)
				res, err := http.DefaultClient.Do(req)
				inFlight[i].Store(0)
				if err != nil {
					return
				}
				res.Body.Close()
				if res.StatusCode != http.StatusServiceUnavailable {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		held := 0
		for i := range inFlight {
			if t0 := inFlight[i].Load(); t0 != 0 && time.Since(time.Unix(0, t0)) > 500*time.Millisecond {
				held++
			}
		}
		if held == len(inFlight) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of 8 waits were admitted within 60 s", held)
		}
		time.Sleep(50 * time.Millisecond)
	}
	req, _ := http.NewRequest("GET", hs.URL+"/api/v4/changes?wait=60&since="+token, nil)
	req.SetBasicAuth(c.id, c.secret)
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("the 9th wait was not refused at once: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("the 9th wait: %d (Retry-After %q), want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
	}
	cancel()
	wg.Wait()
	// The slots are free again: a wait with a short timeout is served.
	deadline = time.Now().Add(10 * time.Second)
	for {
		req, _ := http.NewRequest("GET", hs.URL+"/api/v4/changes?wait=1&since="+token, nil)
		req.SetBasicAuth(c.id, c.secret)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the waits' slots were not freed")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestChangeFeedCompresses: a caller that accepts gzip (a replica's Go client, by default) gets the same answer
// compressed; one that does not gets it plain. Both say the answer varies on Accept-Encoding.
func TestChangeFeedCompresses(t *testing.T) {
	f := newFixtureWatching(t, true)
	get := func(encoding string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest("GET", "/api/v4/changes", nil)
		r.SetBasicAuth(f.callers["viewer"].id, f.callers["viewer"].secret)
		if encoding != "" {
			r.Header.Set("Accept-Encoding", encoding)
		}
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Header().Get("Vary"), "Accept-Encoding") {
			t.Fatalf("Accept-Encoding %q: %d, Vary %q", encoding, w.Code, w.Header().Get("Vary"))
		}
		return w
	}
	plain := get("")
	if plain.Header().Get("Content-Encoding") != "" {
		t.Fatalf("compressed without Accept-Encoding: %q", plain.Header().Get("Content-Encoding"))
	}
	if w := get("gzip;q=0, identity"); w.Header().Get("Content-Encoding") != "" {
		t.Errorf("compressed although gzip;q=0: %q", w.Header().Get("Content-Encoding"))
	}
	gz := get("gzip")
	if gz.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Accept-Encoding gzip: Content-Encoding %q", gz.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, plain.Body.Bytes()) {
		t.Errorf("the compressed answer is not the plain one:\n%s\n%s", b, plain.Body.Bytes())
	}
	if gz.Body.Len() >= plain.Body.Len() {
		t.Errorf("compressed %d bytes, plain %d", gz.Body.Len(), plain.Body.Len())
	}
}
