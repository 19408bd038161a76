package server_test

import (
	"context"
	"net/http/httptest"
	"testing"
)

// BenchmarkAPI measures whole requests through the handler (routing, Basic auth on its fast path, store read,
// JSON) against the store call each one wraps, run in the same process: the ratio is the HTTP layer's cost.
func BenchmarkAPI(b *testing.B) {
	t := &testing.T{}
	f := newFixture(t)
	f.t = t
	viewer := f.callers["viewer"]
	ctx := context.Background()
	actor := actorOf(f, "viewer")
	serve := func(b *testing.B, path, accept string) {
		b.ReportAllocs()
		for b.Loop() {
			r := httptest.NewRequest("GET", path, nil)
			r.SetBasicAuth(viewer.id, viewer.secret)
			if accept != "" {
				r.Header.Set("Accept", accept)
			}
			w := httptest.NewRecorder()
			f.srv.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Fatalf("%s: %d %s", path, w.Code, w.Body)
			}
		}
	}
	b.Run("reference/store.Publications", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.st.Publications(ctx, actor, f.ids["vis"]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GET repositories/{id}/publications", func(b *testing.B) { serve(b, f.path("/api/v3/repositories/{vis}/publications"), "") })
	b.Run("GET groups", func(b *testing.B) { serve(b, "/api/v3/groups", "") })
	b.Run("GET groups?searchText", func(b *testing.B) { serve(b, "/api/v3/groups?searchText=or", "") })
	b.Run("GET publications/{id}/statements turtle", func(b *testing.B) {
		serve(b, f.path("/api/v3/publications/{vis.pub}/statements"), "text/turtle")
	})
	b.Run("GET publications/{id}/sparql", func(b *testing.B) {
		serve(b, f.path("/api/v3/publications/{vis.pub}/sparql?query=SELECT%20*%20%7B%3Fs%20%3Fp%20%3Fo%7D"), "")
	})
}
