package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// TestConcurrentUploadsAllSucceed: 32 REST uploads to one repository at once, while another writer commits
// straight into the bare repository (as the git CLI or a second process would), all answer 2xx and make one
// commit each. A write that finds the branch moved by someone else must run again on the new head, not answer 409.
func TestConcurrentUploadsAllSucceed(t *testing.T) {
	for _, watch := range []bool{false, true} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			f := newFixtureWatching(t, watch)
			ctx := context.Background()
			repoDir := f.st.RepoDir(f.ids["vis"])
			before := firstParentCount(t, repoDir)

			// The other writer opens its own handle, so only git's ref lock orders it with the store.
			other, err := gitrepo.Open(repoDir)
			if err != nil {
				t.Fatal(err)
			}
			other.NoSync = true
			stop := make(chan struct{})
			var external atomic.Int64
			var otherErr error
			var bg sync.WaitGroup
			bg.Add(1)
			go func() {
				defer bg.Done()
				// One file rewritten (not a file per commit), so that the tree, which every index update walks, stays small.
				for i := 0; i < 150; i++ {
					select {
					case <-stop:
						return
					default:
					}
					_, err := other.Transact(ctx, func(tx *gitrepo.Tx) error {
						tx.Put("notes.txt", []byte(fmt.Sprintf("note %d\n", i)))
						tx.Author = gitrepo.Signature{Name: "cli", Email: "cli@example.org", When: time.Now()}
						tx.Message = "note\n"
						return nil
					})
					if err != nil {
						otherErr = err
						return
					}
					external.Add(1)
					time.Sleep(time.Millisecond)
				}
			}()

			const writers = 32
			pub := f.callers["publisher"]
			codes := make([]int, writers)
			bodies := make([]string, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var method, path string
					var body io.Reader
					var ct string
					switch i % 3 {
					case 0: // a new publication
						b, c := multipartBody(mpart{name: "metadata", data: fmt.Sprintf(`{"name":"race%02d"}`, i)},
							mpart{name: "content", filename: "c.ttl", data: turtleA})
						method, path, ct = "POST", f.path("/api/v3/repositories/{vis}/publications"), c
						body = b
					case 1: // a new version of the same publication
						b, c := multipartBody(mpart{name: "meta-data", data: `{"name":"core"}`},
							mpart{name: "Content", filename: "c.ttl", data: fmt.Sprintf("%s<x:a> <x:b> %d .\n", turtleA, i)})
						method, path, ct = "PUT", f.path("/api/v3/repositories/{vis}/publications"), c
						body = b
					default: // a file
						b, c := multipartBody(mpart{name: "fileInfo", data: fmt.Sprintf(`{"name":"race%02d.txt"}`, i)},
							mpart{name: "content", data: "x"})
						method, path, ct = "POST", f.path("/api/v3/repositories/{vis}/files"), c
						body = b
					}
					req, err := http.NewRequest(method, path, body)
					if err != nil {
						t.Error(err)
						return
					}
					req.Header.Set("Content-Type", ct)
					req.SetBasicAuth(pub.id, pub.secret)
					w := httptest.NewRecorder()
					f.srv.ServeHTTP(w, req)
					codes[i], bodies[i] = w.Code, w.Body.String()
				}()
			}
			wg.Wait()
			close(stop)
			bg.Wait()
			if otherErr != nil {
				t.Fatalf("the other writer: %v", otherErr)
			}
			for i, c := range codes {
				if c < 200 || c > 299 {
					t.Errorf("upload %d: %d %s", i, c, bodies[i])
				}
			}
			if got, want := firstParentCount(t, repoDir)-before, writers+int(external.Load()); got != want {
				t.Errorf("%d new commits, want %d (%d uploads + %d by the other writer)", got, want, writers, external.Load())
			}
			if external.Load() == 0 {
				t.Error("the other writer made no commit while the uploads ran: the test raced nothing")
			}
		})
	}
}

// firstParentCount counts the commits on main's first-parent chain.
func firstParentCount(t *testing.T, dir string) int {
	t.Helper()
	r, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for h != plumbing.ZeroHash {
		c, err := r.Commit(h)
		if err != nil {
			t.Fatal(err)
		}
		n++
		h = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	return n
}
