package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/api/auth"
	"github.com/ldhub/ldhub/content/model"
)

type fakeStore map[string]string

func (f fakeStore) Authenticate(_ context.Context, id, secret string) (model.Credential, error) {
	if s, ok := f[id]; ok && s == secret {
		return model.Credential{ID: id, Name: id}, nil
	}
	return model.Credential{}, model.Unauthorizedf("invalid credentials")
}

type clock struct {
	now   time.Time
	slept []time.Duration
}

func (c *clock) Now() time.Time { return c.now }
func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return nil
}

func newGuard(c *clock, o auth.Options) *auth.Guard {
	o.Now, o.Sleep = c.Now, c.Sleep
	return auth.New(fakeStore{"app": "secret-of-app"}, o)
}

func TestActor(t *testing.T) {
	c := &clock{now: time.Unix(1e9, 0)}
	g := newGuard(c, auth.Options{})
	for _, tc := range []struct {
		name, header string
		basic        [2]string
		wantID       string
		wantErr      bool
	}{
		{name: "anonymous"},
		{name: "good", basic: [2]string{"app", "secret-of-app"}, wantID: "app"},
		{name: "wrong secret", basic: [2]string{"app", "nope"}, wantErr: true},
		{name: "unknown id", basic: [2]string{"ghost", "secret-of-app"}, wantErr: true},
		{name: "bearer", header: "Bearer abc", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v3/groups", nil)
			if tc.basic[0] != "" {
				r.SetBasicAuth(tc.basic[0], tc.basic[1])
			}
			if tc.header != "" {
				r.Header.Set("Authorization", tc.header)
			}
			a, err := g.Actor(r)
			if tc.wantErr {
				if !errors.Is(err, model.ErrUnauthorized) {
					t.Fatalf("err %v, want unauthorized", err)
				}
				return
			}
			if err != nil || a.CredentialID != tc.wantID {
				t.Fatalf("actor %+v err %v, want %q", a, err, tc.wantID)
			}
		})
	}
}

// TestSlowDown: after the free failures, each further attempt from the same address or for the same id waits
// twice as long, up to the cap; a success clears the id's count, not the address's.
func TestSlowDown(t *testing.T) {
	c := &clock{now: time.Unix(1e9, 0)}
	g := newGuard(c, auth.Options{FreeFailures: 2, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second})
	attempt := func(addr, id, secret string) error {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = addr + ":1234"
		r.SetBasicAuth(id, secret)
		_, err := g.Actor(r)
		return err
	}
	for i := 0; i < 7; i++ {
		if attempt("10.0.0.1", "app", "guess") == nil {
			t.Fatal("a wrong secret passed")
		}
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second}
	if fmt.Sprint(c.slept) != fmt.Sprint(want) {
		t.Fatalf("delays %v, want %v", c.slept, want)
	}
	// Another address guessing the same id is slowed down too (per id).
	c.slept = nil
	_ = attempt("10.0.0.2", "app", "guess")
	if len(c.slept) != 1 || c.slept[0] != time.Second {
		t.Errorf("other address: %v", c.slept)
	}
	// The right secret works without any wait (issue 15: failures are slowed down, never successes), and clears
	// the id's count.
	c.slept = nil
	if err := attempt("10.0.0.3", "app", "secret-of-app"); err != nil {
		t.Fatal(err)
	}
	if len(c.slept) != 0 {
		t.Errorf("the right secret waited %v", c.slept)
	}
	c.slept = nil
	_ = attempt("10.0.0.4", "app", "guess")
	if len(c.slept) != 0 {
		t.Errorf("after a success the id still waits %v", c.slept)
	}
	// The first address is still slowed down, for any id.
	c.slept = nil
	_ = attempt("10.0.0.1", "other", "x")
	if len(c.slept) != 1 {
		t.Errorf("address count was cleared: %v", c.slept)
	}
	// Failures are forgotten after a quiet period.
	c.now = c.now.Add(time.Hour)
	c.slept = nil
	_ = attempt("10.0.0.1", "app", "guess")
	if len(c.slept) != 0 {
		t.Errorf("old failures still count: %v", c.slept)
	}
}

// TestKnownIDCannotBeHeldBack is issue 15's probe: anyone may learn a credential's id, and six wrong secrets
// for it (from many addresses) must not make its owner's correct requests wait, then or later.
func TestKnownIDCannotBeHeldBack(t *testing.T) {
	c := &clock{now: time.Unix(1e9, 0)}
	g := newGuard(c, auth.Options{})
	for i := range 6 {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = fmt.Sprintf("192.0.2.%d:1", i+1)
		r.SetBasicAuth("app", "wrong")
		_, _ = g.Actor(r)
	}
	if g.Delay(httptest.NewRequest("GET", "/", nil), "app") == 0 {
		t.Fatal("six failures did not slow the id down at all")
	}
	c.slept = nil
	for range 3 {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "198.51.100.7:1"
		r.SetBasicAuth("app", "secret-of-app")
		if a, err := g.Actor(r); err != nil || a.CredentialID != "app" {
			t.Fatalf("owner: %v %v", a, err)
		}
	}
	if len(c.slept) != 0 {
		t.Errorf("the owner's correct requests waited %v", c.slept)
	}
}

// TestBoundedMemory: a flood of distinct ids and addresses never grows the table past MaxKeys.
func TestBoundedMemory(t *testing.T) {
	c := &clock{now: time.Unix(1e9, 0)}
	g := newGuard(c, auth.Options{MaxKeys: 100})
	for i := 0; i < 5000; i++ {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255)
		r.SetBasicAuth(fmt.Sprintf("id%d", i), "x")
		_, _ = g.Actor(r)
		c.now = c.now.Add(time.Millisecond)
		if n := g.Keys(); n > 100 {
			t.Fatalf("after %d attempts %d keys are kept", i+1, n)
		}
	}
}

func TestCancelledWait(t *testing.T) {
	g := auth.New(fakeStore{}, auth.Options{FreeFailures: 1, BaseDelay: time.Hour})
	r := httptest.NewRequest("GET", "/", nil)
	r.SetBasicAuth("x", "y")
	_, _ = g.Actor(r) // one failure: the next attempt waits an hour
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := g.Actor(r.WithContext(ctx)); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	if time.Since(start) > time.Second {
		t.Error("a cancelled request kept waiting")
	}
}

// TestProxy: behind the local proxy the X-Forwarded-For client is slowed down, not every client of the proxy;
// a remote peer cannot choose its address with the header.
func TestProxy(t *testing.T) {
	c := &clock{now: time.Unix(1e9, 0)}
	g := newGuard(c, auth.Options{FreeFailures: 1})
	try := func(remote, xff, id string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		r.SetBasicAuth(id, "wrong")
		_, _ = g.Actor(r)
	}
	try("127.0.0.1:5000", "1.1.1.1", "a")
	try("127.0.0.1:5000", "1.1.1.1", "b")
	delay := func(remote, xff, id string) time.Duration {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		return g.Delay(r, id)
	}
	for _, tc := range []struct {
		remote, xff string
		slowed      bool
	}{
		{"127.0.0.1:5000", "1.1.1.1", true},
		{"127.0.0.1:5000", "9.9.9.9, 1.1.1.1", true}, // the client's own claim comes first and is ignored
		{"127.0.0.1:5000", "2.2.2.2", false},
		{"[::1]:5000", "1.1.1.1", true},
		{"1.1.1.1:5000", "", true},
		{"3.3.3.3:5000", "1.1.1.1", false}, // not a trusted proxy: its header is ignored
	} {
		if got := delay(tc.remote, tc.xff, "c") > 0; got != tc.slowed {
			t.Errorf("%s with X-Forwarded-For %q: slowed %v, want %v", tc.remote, tc.xff, got, tc.slowed)
		}
	}
}

func TestParseTrustedProxies(t *testing.T) {
	got, err := auth.ParseTrustedProxies(" 10.0.0.0/8, ,::1/128,")
	if err != nil || fmt.Sprint(got) != "[10.0.0.0/8 ::1/128]" {
		t.Errorf("got %v, %v", got, err)
	}
	// An empty list trusts nobody, which is not the nil that Options reads as loopback.
	if got, err := auth.ParseTrustedProxies(""); err != nil || got == nil || len(got) != 0 {
		t.Errorf("empty list: %#v, %v", got, err)
	}
	if _, err := auth.ParseTrustedProxies("10.0.0.0/8,10.0.0.1"); err == nil || !strings.Contains(err.Error(), "10.0.0.1") {
		t.Errorf("bare address: %v, want an error naming it", err)
	}
}
