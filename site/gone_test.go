package site_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
)

// TestRetractedVersionIsGone: after a version delete, every URL of that version (label, extension, id, commit
// prefix, SPARQL) answers 410 Gone on the next request, the other versions stay, unknown labels stay 404, and a
// private repository's retracted version is 410 only for its viewers (404, as if it never existed, for others).
func TestRetractedVersionIsGone(t *testing.T) {
	ctx := context.Background()
	hub := pipelinetest.New(t)
	open := hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	open = hub.Update(t, open.ID, ".ttl", pipelinetest.Vocab+"<Second> a <Thing> .\n")
	open = hub.Update(t, open.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Thing> .\n")
	closed := hub.Publish(t, hub.Closed.ID, "secret", ".ttl", pipelinetest.Vocab)
	closed = hub.Update(t, closed.ID, ".ttl", pipelinetest.Vocab+"<Second> a <Thing> .\n")
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	const viewer = "Basic dmlld2VyOnNlY3JldA=="
	h, err := site.NewHandler(site.Options{Dir: out, Auth: site.AuthorizerFunc(func(r *http.Request, repo string) bool {
		return repo == hub.Closed.ID && r.Header.Get("Authorization") == viewer
	})})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	get := func(path, auth string) int {
		r := httptest.NewRequest("GET", path, nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	mid, last := open.Versions[1], open.Versions[2]
	midURL := "/org/open/core/versions/" + mid.Label
	// Served before the retraction, so that a cached route would show if it survived it.
	if c := get(midURL+".nt", ""); c != 200 {
		t.Fatalf("GET %s.nt before the retraction: %d", midURL, c)
	}
	if _, err := hub.Store.RetractVersion(ctx, hub.Admin, open.ID, mid.ID); err != nil {
		t.Fatal(err)
	}
	secret := closed.Versions[0]
	if _, err := hub.Store.RetractVersion(ctx, hub.Admin, closed.ID, secret.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{hub.Open.ID, hub.Closed.ID} {
		if _, err := p.SyncRepository(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	secretURL := "/org/closed/secret/versions/" + secret.Label
	cases := []struct {
		path, auth string
		want       int
	}{
		{midURL, "", http.StatusGone},
		{midURL + ".nt", "", http.StatusGone},
		{midURL + ".html", "", http.StatusGone},
		{"/org/open/core/versions/" + mid.ID, "", http.StatusGone},
		{"/org/open/core/versions/" + mid.Commit[:10], "", http.StatusGone},
		{midURL + "?query=ASK%7B%7D", "", http.StatusGone},
		{"/org/open/core/versions/" + last.Label + ".nt", "", http.StatusOK},
		{"/org/open/core/versions/" + open.Versions[0].Label, "", http.StatusOK},
		{"/org/open/core/versions/no-such-label", "", http.StatusNotFound},
		{"/org/open/core", "", http.StatusOK},
		{secretURL, "", http.StatusNotFound},
		{secretURL, viewer, http.StatusGone},
		{"/org/closed/secret/versions/" + closed.Versions[1].Label, viewer, http.StatusOK},
	}
	for _, tc := range cases {
		if got := get(tc.path, tc.auth); got != tc.want {
			t.Errorf("GET %s (auth %v): %d, want %d", tc.path, tc.auth != "", got, tc.want)
		}
	}
	r := httptest.NewRequest("GET", midURL, nil)
	r.Header.Set("Accept", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if !strings.Contains(w.Body.String(), "deleted") {
		t.Errorf("410 body does not say why: %s", w.Body.String())
	}
}
