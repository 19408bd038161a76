package server_test

import (
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/ldhub/ldhub/api/server"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
)

// TestConcurrentRequests runs reads, searches, SPARQL and writes at once (meaningful under -race).
func TestConcurrentRequests(t *testing.T) {
	f := newFixture(t)
	// Six callers from one test address: the SPARQL gate's per-address limit (503 by design, see
	// TestConcurrencyGate) is not what this test is about.
	cfg := f.cfg
	cfg.SPARQLGate = protocol.NewGate(64, 64, nil)
	f.srv = server.New(cfg)
	paths := []string{
		f.path("/api/v3/repositories/{vis}/publications"),
		"/api/v3/groups?searchText=or",
		f.path("/api/v3/publications/{vis.pub}/statements"),
		f.path("/api/v3/publications/{vis.pub}/sparql?query=ASK%7B%7D"),
		"/api/v4/repositories",
	}
	pub := f.callers["publisher"]
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				var r *httptest.ResponseRecorder
				if i%5 == 4 {
					body, ct := multipartBody(mpart{name: "fileInfo", data: fmt.Sprintf(`{"name":"c%d-%d.txt"}`, g, i)}, mpart{name: "content", data: "x"})
					req := httptest.NewRequest("POST", f.path("/api/v3/repositories/{vis}/files"), body)
					req.Header.Set("Content-Type", ct)
					req.SetBasicAuth(pub.id, pub.secret)
					r = httptest.NewRecorder()
					f.srv.ServeHTTP(r, req)
				} else {
					req := httptest.NewRequest("GET", paths[(g+i)%len(paths)], nil)
					req.SetBasicAuth(pub.id, pub.secret)
					r = httptest.NewRecorder()
					f.srv.ServeHTTP(r, req)
				}
				if r.Code != 200 {
					errs <- fmt.Sprintf("%d %s", r.Code, r.Body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
