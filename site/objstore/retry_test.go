package objstore_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/objstore"
	"github.com/ldhub/ldhub/site/objstore/s3test"
)

// failingProxy stands between the publisher and the real S3 server. While down it answers every request 503 with
// S3's SlowDown error, as an overloaded or restarting server does; with failEvery n it answers every n-th request
// so and passes the others through unchanged (the Host header too, which the signature covers).
type failingProxy struct {
	srv       *httptest.Server
	down      atomic.Bool
	failEvery atomic.Int64
	seen      atomic.Int64
	failed    atomic.Int64
}

func newFailingProxy(t *testing.T, endpoint string) *failingProxy {
	t.Helper()
	u, err := url.Parse("http://" + endpoint)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	f := &failingProxy{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.seen.Add(1)
		if every := f.failEvery.Load(); f.down.Load() || every > 0 && n%every == 0 {
			f.failed.Add(1)
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *failingProxy) endpoint() string { return strings.TrimPrefix(f.srv.URL, "http://") }

// bucketMatchesPlan reports what differs between the bucket (read directly, not through the proxy) and the plan:
// every planned key present with the plan's bytes (a single-part upload's ETag is its MD5).
func bucketMatchesPlan(t *testing.T, s3 *s3test.Server, bucket, prefix string, want map[string]string) []string {
	t.Helper()
	have := bucketKeys(t, s3.Admin, bucket, prefix)
	var diff []string
	for k, v := range want {
		md5, _, _ := strings.Cut(v, " ")
		if o, ok := have[k]; !ok || strings.Trim(o.ETag, `"`) != md5 {
			diff = append(diff, k)
		}
	}
	return diff
}

// TestPublishRetriesTransientErrors: a server that answers every third request 503 still gets the whole tree in
// one Sync (each request is retried with backoff, bodies included), and a second Sync through an even worse
// server sends nothing: the manifest read is retried too instead of being taken for missing.
func TestPublishRetriesTransientErrors(t *testing.T) {
	const bucket, prefix = "flaky", "hub/"
	s3 := s3test.Start(t, bucket, false)
	proxy := newFailingProxy(t, s3.Endpoint)
	proxy.failEvery.Store(3)
	h := newHub(t)
	core := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.Update(t, core.ID, ".ttl", pipelinetest.Vocab+"<Extra> a <Other> .\n")
	h.Publish(t, h.Open.ID, "extra", ".ttl", pipelinetest.Vocab)
	h.build(t)
	pub, err := objstore.New(objstore.Options{Target: objstore.Target{Endpoint: proxy.endpoint(), Bucket: bucket, Prefix: prefix},
		AccessKey: s3.AdminKey, SecretKey: s3.AdminSecret})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := localState(t, h.out, nil)
	rep, err := pub.Sync(ctx, h.out)
	if err != nil {
		t.Fatalf("Sync through a server failing every third request: %v", err)
	}
	if proxy.failed.Load() == 0 {
		t.Fatal("the proxy failed no request: the test proves nothing")
	}
	if len(rep.Uploaded) != len(want) {
		t.Errorf("uploaded %d objects, the plan has %d", len(rep.Uploaded), len(want))
	}
	if diff := bucketMatchesPlan(t, s3, bucket, prefix, want); len(diff) > 0 {
		t.Errorf("after the retried uploads the bucket differs from the tree at %v", diff)
	}
	proxy.failEvery.Store(2)
	failedBefore := proxy.failed.Load()
	rep, err = pub.Sync(ctx, h.out)
	if err != nil {
		t.Fatalf("second Sync: %v", err)
	}
	if proxy.failed.Load() == failedBefore {
		t.Error("the proxy failed no request of the second Sync")
	}
	if len(rep.Uploaded) != 0 || len(rep.Deleted) != 0 {
		t.Errorf("nothing changed, yet the second Sync uploaded %d and deleted %d", len(rep.Uploaded), len(rep.Deleted))
	}
}

// TestFollowRetriesAfterOutage: the server is down for longer than the client's retries of one request, so the
// publish fails; when it comes back, Follow publishes again by itself, with no new change in the hub to kick it.
func TestFollowRetriesAfterOutage(t *testing.T) {
	const bucket, prefix = "outage", ""
	s3 := s3test.Start(t, bucket, false)
	proxy := newFailingProxy(t, s3.Endpoint)
	proxy.down.Store(true)
	h := newHub(t)
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.build(t)
	pub, err := objstore.New(objstore.Options{Target: objstore.Target{Endpoint: proxy.endpoint(), Bucket: bucket, Prefix: prefix},
		AccessKey: s3.AdminKey, SecretKey: s3.AdminSecret, MaxRetries: 2, Retry: 100 * time.Millisecond, RetryMax: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); pub.Follow(ctx, h.out, make(chan struct{})) }()
	defer func() { cancel(); <-done }()

	// Down through several publish attempts (each gives up after two tries of its first request).
	deadline := time.Now().Add(30 * time.Second)
	for proxy.failed.Load() < 6 {
		if time.Now().After(deadline) {
			t.Fatalf("Follow made %d requests in 30 s against a down server: it does not try again", proxy.failed.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(bucketKeys(t, s3.Admin, bucket, prefix)); n != 0 {
		t.Fatalf("%d objects reached the bucket through a server that refused everything", n)
	}
	proxy.down.Store(false)
	want := localState(t, h.out, nil)
	deadline = time.Now().Add(30 * time.Second)
	for {
		diff := bucketMatchesPlan(t, s3, bucket, prefix, want)
		if len(diff) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the server came back, without a kick, the bucket still lacks %d of %d objects", len(diff), len(want))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
