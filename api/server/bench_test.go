package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/store"
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
	// A 20 000-triple publication: the query answers from the cached index; the reference only reads and parses
	// the stored content, which is what building the index per request would cost at least.
	var nt strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&nt, "<http://example.org/s%d> <http://example.org/p%d> \"v%d\" .\n", i, i%10, i)
	}
	big, err := f.st.CreatePublication(ctx, model.SystemActor, f.ids["vis"], model.PublicationMeta{Name: "big"},
		store.Content{Ext: ".nt", Data: []byte(nt.String())})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("reference/read+parse 20k triples", func(b *testing.B) {
		for b.Loop() {
			_, data, err := f.st.PublicationContent(ctx, actor, big.ID, "")
			if err != nil {
				b.Fatal(err)
			}
			dec := ntriples.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{})
			for {
				if _, err := dec.Next(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("GET sparql COUNT 20k triples (cached index)", func(b *testing.B) {
		serve(b, "/api/v3/publications/"+big.ID+"/sparql?query=SELECT%20(COUNT(*)%20AS%20%3Fn)%20%7B%3Fs%20%3Chttp%3A%2F%2Fexample.org%2Fp3%3E%20%3Fo%7D", "")
	})
	b.Run("GET publications/{id}/sparql", func(b *testing.B) {
		serve(b, f.path("/api/v3/publications/{vis.pub}/sparql?query=SELECT%20*%20%7B%3Fs%20%3Fp%20%3Fo%7D"), "")
	})
}
