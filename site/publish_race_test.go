package site_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/tree"
)

// largeVersion is N-Triples above codec.StreamAbove (so its .gz siblings are written after it goes live) with one
// marker literal naming the version.
func largeVersion(marker string) string {
	var b strings.Builder
	for i := 0; b.Len() <= codec.StreamAbove+(32<<10); i++ {
		fmt.Fprintf(&b, "<http://example.org/item/%d> <http://www.w3.org/2000/01/rdf-schema#label> \"item %d\"@en .\n", i/3, i)
	}
	fmt.Fprintf(&b, "<http://example.org/m> <http://example.org/version> %q .\n", marker)
	return b.String()
}

// TestReadersDuringAPublish: while a large version is published over another (the pipeline's Run, with the .gz
// siblings written after the switch), readers of every dump, compressed or not, get either the old version or the
// new one, each answer whole, and one ETag always names the same bytes.
func TestReadersDuringAPublish(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hub := pipelinetest.New(t)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitLive := func(id string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for p.Pending(id) {
			if time.Now().After(deadline) {
				t.Fatal("not live within 60 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	pub := hub.Publish(t, hub.Open.ID, "large", ".nt", largeVersion("version-1"))
	waitLive(pub.ID)
	if err := p.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	type seen struct {
		sum     [32]byte
		version string
	}
	var (
		mu      sync.Mutex
		byETag  = map[string]seen{}              // path, encoding and ETag -> what was answered
		answers = map[string]map[[32]byte]bool{} // path -> digests of the (uncompressed) bodies answered
		gzSeen  = map[string]bool{}              // version seen compressed
		fail    = make(chan string, 1)
	)
	report := func(format string, args ...any) {
		select {
		case fail <- fmt.Sprintf(format, args...):
		default:
		}
	}
	exts := []string{".ttl", ".nt", ".rdf", ".jsonld"}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				path := "/org/open/large" + exts[(i+r)%len(exts)]
				enc := ""
				if (i+r)%2 == 0 {
					enc = "gzip"
				}
				req := httptest.NewRequest("GET", path, nil)
				if enc != "" {
					req.Header.Set("Accept-Encoding", enc)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					report("GET %s (%s): %d", path, enc, w.Code)
					return
				}
				body := w.Body.Bytes()
				got := w.Header().Get("Content-Encoding")
				if got == "gzip" {
					z, err := gzip.NewReader(bytes.NewReader(body))
					if err == nil {
						body, err = io.ReadAll(z)
					}
					if err != nil {
						report("GET %s: a broken gzip answer: %v", path, err)
						return
					}
				}
				var version string
				for _, v := range []string{"version-1", "version-2, a longer marker"} {
					if bytes.Contains(body, []byte(v)) {
						if version != "" {
							report("GET %s (%s): both versions in one answer", path, got)
						}
						version = v
					}
				}
				if version == "" {
					report("GET %s (%s): no version's marker in %d bytes", path, got, len(body))
					return
				}
				s := seen{sha256.Sum256(body), version}
				key := path + " " + got + " " + w.Header().Get("ETag")
				mu.Lock()
				if old, ok := byETag[key]; ok && old != s {
					report("%s: one ETag, two answers (%s, %s)", key, old.version, version)
				}
				byETag[key] = s
				if answers[path] == nil {
					answers[path] = map[[32]byte]bool{}
				}
				answers[path][s.sum] = true
				if got == "gzip" {
					gzSeen[version] = true
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	// The second marker is longer: ETags are nginx's (modification time, which is the version's commit time in
	// seconds, and size), so two versions committed within one second with dumps of equal size would share them.
	hub.Update(t, pub.ID, ".nt", largeVersion("version-2, a longer marker"))
	waitLive(pub.ID)
	if err := p.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	// Long enough for the readers to see the new version compressed too.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		ok := gzSeen["version-2, a longer marker"]
		mu.Unlock()
		if ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	select {
	case msg := <-fail:
		t.Fatal(msg)
	default:
	}
	if !gzSeen["version-1"] || !gzSeen["version-2, a longer marker"] {
		t.Errorf("compressed answers seen of %v; want both versions", gzSeen)
	}
	// Every answer was one version's whole dump: the bytes of a file of one of the two version folders.
	whole := map[[32]byte]bool{}
	meta := tree.PubDir(tree.Root(out, false), "/org/open/large")
	dirs, err := filepath.Glob(filepath.Join(meta, tree.Versions, "*"))
	if err != nil || len(dirs) != 2 {
		t.Fatalf("version folders %v (%v)", dirs, err)
	}
	for _, d := range dirs {
		for _, ext := range exts {
			b, err := os.ReadFile(filepath.Join(d, tree.DataBase+ext))
			if err != nil {
				t.Fatal(err)
			}
			whole[sha256.Sum256(b)] = true
		}
	}
	for path, sums := range answers {
		for s := range sums {
			if !whole[s] {
				t.Errorf("GET %s answered bytes that are no version's whole dump", path)
			}
		}
	}
}
