package objstore_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/objstore"
	"github.com/ldhub/ldhub/site/objstore/s3test"
)

// hub is a rendered hub: the fixture's store with pages, rendered into out.
type hub struct {
	*pipelinetest.Hub
	out  string
	pipe *pipeline.Pipeline
}

func newHub(t testing.TB) *hub {
	h := &hub{Hub: pipelinetest.New(t), out: t.TempDir()}
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: h.out, BaseURL: "https://data.example.org", HTML: &pipeline.HTML{TermPages: true}})
	if err != nil {
		t.Fatal(err)
	}
	h.pipe = p
	return h
}

func (h *hub) build(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.pipe.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.pipe.RenderHub(ctx); err != nil {
		t.Fatal(err)
	}
	// The term pages are written after their folders went live; the tests publish the tree once they are.
	if _, err := h.pipe.WaitTermPages(ctx); err != nil {
		t.Fatal(err)
	}
}

// localState is what the plan says the bucket should hold: key -> MD5 of the bytes and the headers.
func localState(t *testing.T, out string, script []byte) map[string]string {
	t.Helper()
	plan, err := objstore.Plan(out, script)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, o := range plan {
		b := o.Body
		if o.File != "" {
			if b, err = os.ReadFile(o.File); err != nil {
				t.Fatal(err)
			}
		}
		sum := md5.Sum(b)
		m[o.Key] = hex.EncodeToString(sum[:]) + " " + o.ContentType + "|" + o.ContentEncoding + "|" + o.CacheControl
	}
	return m
}

// changed lists the keys whose bytes or headers differ between two local states, or that are new.
func changed(before, after map[string]string) []string {
	var out []string
	for k, v := range after {
		if before[k] != v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

func bucketKeys(t *testing.T, c *minio.Client, bucket, prefix string) map[string]minio.ObjectInfo {
	t.Helper()
	m := map[string]minio.ObjectInfo{}
	for o := range c.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		m[strings.TrimPrefix(o.Key, prefix)] = o
	}
	return m
}

// TestPublishRoundTrip publishes a rendered hub to a real S3 server (s3test: versitygw or SeaweedFS), reads every
// object back by plain HTTP and through signed requests, then changes, removes and hides publications and checks
// that each publish sends exactly what changed and deletes exactly what went.
func TestPublishRoundTrip(t *testing.T) {
	const bucket, prefix = "site", "hub/"
	s3 := s3test.Start(t, bucket, false)
	ctx := context.Background()

	h := newHub(t)
	core := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.Update(t, core.ID, ".ttl", pipelinetest.Vocab+"<Extra> a <Other> .\n")
	extra := h.Publish(t, h.Open.ID, "extra", ".ttl", pipelinetest.Vocab)
	h.Publish(t, h.Closed.ID, "secret", ".ttl", "<s> <p> \"hidden repository\" .\n")
	h.build(t)

	script, err := html.Script()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := objstore.New(objstore.Options{Target: objstore.Target{Endpoint: s3.Endpoint, Bucket: bucket, Prefix: prefix},
		AccessKey: s3.AdminKey, SecretKey: s3.AdminSecret, Script: script})
	if err != nil {
		t.Fatal(err)
	}
	// An object someone else keeps in the bucket: ldhub never deletes what it did not write.
	if _, err := s3.Admin.PutObject(ctx, bucket, prefix+"robots.txt", strings.NewReader("User-agent: *\n"), 14, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}

	state1 := localState(t, h.out, script)
	rep, err := pub.Sync(ctx, h.out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Uploaded) != len(state1) || rep.Unchanged != 0 || len(rep.Deleted) != 0 {
		t.Fatalf("first publish: uploaded %d, unchanged %d, deleted %d; want %d, 0, 0", len(rep.Uploaded), rep.Unchanged, len(rep.Deleted), len(state1))
	}
	keys := bucketKeys(t, s3.Admin, bucket, prefix)
	for k := range state1 {
		if _, ok := keys[k]; !ok {
			t.Errorf("%s is not in the bucket", k)
		}
	}
	for k := range keys {
		if strings.Contains(k, "closed") || strings.Contains(k, "secret") || strings.HasSuffix(k, ".sparql") || strings.HasSuffix(k, "page.json") {
			t.Errorf("%s is in the bucket: only the public tree's representations may be", k)
		}
	}

	// Plain HTTP, anonymous: what a CDN pulling from the bucket gets.
	latest := "org/open/core"
	var version string
	for k := range state1 {
		// <pub>/versions/<label>.ttl, not <pub>/versions/<label>/void.ttl
		if rest, ok := strings.CutPrefix(k, latest+"/versions/"); ok && strings.HasSuffix(rest, ".ttl") && !strings.Contains(rest, "/") {
			version = strings.TrimSuffix(k, ".ttl")
		}
	}
	if version == "" {
		t.Fatal("no version object of org/open/core")
	}
	for _, c := range []struct {
		key, ctype, enc, cache string
	}{
		{latest + ".ttl", "text/turtle", "", objstore.CacheLatest},
		{latest + ".nt", "application/n-triples", "", objstore.CacheLatest},
		{latest + ".rdf", "application/rdf+xml", "", objstore.CacheLatest},
		{latest + ".jsonld", "application/ld+json", "", objstore.CacheLatest},
		{latest + ".ttl.gz", "text/turtle", "gzip", objstore.CacheLatest},
		{latest + ".jsonld.gz", "application/ld+json", "gzip", objstore.CacheLatest},
		{latest + ".html", "text/html; charset=utf-8", "", objstore.CacheLatest},
		{latest + "/void.ttl", "text/turtle", "", objstore.CacheLatest},
		{latest + "/" + objstore.OffersFile, "application/json", "", objstore.CacheLatest},
		{latest + "/Thing.ttl", "text/turtle", "", objstore.CacheLatest},
		{latest + "/Thing.jsonld", "application/ld+json", "", objstore.CacheLatest},
		{latest + "/Thing.html", "text/html; charset=utf-8", "", objstore.CacheLatest},
		{latest + "/Thing/" + objstore.OffersFile, "application/json", "", objstore.CacheLatest},
		{version + ".ttl", "text/turtle", "", objstore.CacheImmutable},
		{version + ".nt.gz", "application/n-triples", "gzip", objstore.CacheImmutable},
		{version + ".html", "text/html; charset=utf-8", "", objstore.CacheImmutable},
		{"index.html", "text/html; charset=utf-8", "", objstore.CacheLatest},
		{"org/open/index.html", "text/html; charset=utf-8", "", objstore.CacheLatest},
		{strings.TrimPrefix(html.ScriptPath, "/"), "text/javascript; charset=utf-8", "", objstore.CacheScript},
	} {
		res, body := s3.Get(t, bucket, prefix+c.key)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", c.key, res.StatusCode)
			continue
		}
		if got := res.Header.Get("Content-Type"); got != c.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", c.key, got, c.ctype)
		}
		if got := res.Header.Get("Content-Encoding"); got != c.enc {
			t.Errorf("GET %s: Content-Encoding %q, want %q", c.key, got, c.enc)
		}
		if got := res.Header.Get("Cache-Control"); got != c.cache {
			t.Errorf("GET %s: Cache-Control %q, want %q", c.key, got, c.cache)
		}
		if c.enc == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("GET %s: not gzip: %v", c.key, err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
			_, plain := s3.Get(t, bucket, prefix+strings.TrimSuffix(c.key, ".gz"))
			if !bytes.Equal(body, plain) {
				t.Errorf("GET %s: decompressed body differs from %s", c.key, strings.TrimSuffix(c.key, ".gz"))
			}
		}
		sum := md5.Sum(body)
		if c.enc == "" && !strings.HasPrefix(state1[c.key], hex.EncodeToString(sum[:])) {
			t.Errorf("GET %s: body differs from the rendered file", c.key)
		}
	}
	if res, _ := s3.Get(t, bucket, prefix+"org/closed/secret.ttl"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a hidden repository's publication: %d, want 404", res.StatusCode)
	}

	// Signed requests through the library: every object's stored headers are the plan's.
	for k, want := range state1 {
		info, err := s3.Admin.StatObject(ctx, bucket, prefix+k, minio.StatObjectOptions{})
		if err != nil {
			t.Errorf("stat %s: %v", k, err)
			continue
		}
		got := info.ContentType + "|" + info.Metadata.Get("Content-Encoding") + "|" + info.Metadata.Get("Cache-Control")
		if _, wantH, _ := strings.Cut(want, " "); got != wantH {
			t.Errorf("stat %s: headers %q, want %q", k, got, wantH)
		}
	}

	// Nothing changed: nothing is sent.
	if rep, err = pub.Sync(ctx, h.out); err != nil {
		t.Fatal(err)
	}
	if len(rep.Uploaded) != 0 || len(rep.Deleted) != 0 || rep.Unchanged != len(state1) {
		t.Fatalf("publish without changes: uploaded %v, deleted %v, unchanged %d", rep.Uploaded, rep.Deleted, rep.Unchanged)
	}

	if res, body := s3.Get(t, bucket, prefix+latest+"/Thing.ttl"); res.StatusCode != 200 || !strings.Contains(string(body), "Ding") {
		t.Errorf("GET of a term's description: %d %q", res.StatusCode, body)
	}

	// A new version of one publication: exactly the objects whose bytes changed are sent (its latest, its new
	// version, the pages that list it, its new term and the term pages that show it), and none of the other
	// publication's; the objects of the term it no longer has are deleted.
	other := "<Other> a owl:Class ; rdfs:label \"Other\"@en ; rdfs:subClassOf <Thing> .\n"
	if !strings.Contains(pipelinetest.Vocab, other) {
		t.Fatal("the fixture changed: no Other to remove")
	}
	h.Update(t, extra.ID, ".ttl", strings.Replace(pipelinetest.Vocab, other, "", 1)+"<New> a <Thing> .\n")
	h.build(t)
	state2 := localState(t, h.out, script)
	if rep, err = pub.Sync(ctx, h.out); err != nil {
		t.Fatal(err)
	}
	want := changed(state1, state2)
	if got := sorted(rep.Uploaded); !slices.Equal(got, want) {
		t.Fatalf("after a new version uploaded\n %v\nwant\n %v", got, want)
	}
	for _, k := range rep.Uploaded {
		if strings.HasPrefix(k, latest+".") || strings.HasPrefix(k, latest+"/") {
			t.Errorf("uploaded %s of the unchanged publication", k)
		}
	}
	for _, k := range []string{"org/open/extra/New.ttl", "org/open/extra/New.html", "org/open/extra/Thing.html"} {
		if !slices.Contains(rep.Uploaded, k) {
			t.Errorf("after a new version %s was not uploaded", k)
		}
	}
	var dropped []string
	for k := range state1 {
		if _, ok := state2[k]; !ok {
			dropped = append(dropped, k)
		}
	}
	sort.Strings(dropped)
	if got := sorted(rep.Deleted); !slices.Equal(got, dropped) || !slices.Contains(got, "org/open/extra/Other.ttl") {
		t.Errorf("after a new version deleted\n %v\nwant\n %v (the pages of the removed term Other)", got, dropped)
	}
	t.Logf("new version: %d of %d objects uploaded", len(rep.Uploaded), len(state2))
	if res, body := s3.Get(t, bucket, prefix+"org/open/extra.ttl"); res.StatusCode != 200 || !strings.Contains(string(body), "New") {
		t.Errorf("GET extra.ttl after the update: %d %q", res.StatusCode, body)
	}
	if res, _ := s3.Get(t, bucket, prefix+"org/open/extra/Other.html"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a removed term's page: %d, want 404", res.StatusCode)
	}

	// A publication deleted: its objects go, and only those that no longer exist locally.
	if _, err := h.Store.DeletePublication(ctx, h.Admin, extra.ID); err != nil {
		t.Fatal(err)
	}
	h.build(t)
	state3 := localState(t, h.out, script)
	if rep, err = pub.Sync(ctx, h.out); err != nil {
		t.Fatal(err)
	}
	var gone []string
	for k := range state2 {
		if _, ok := state3[k]; !ok {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	if got := sorted(rep.Deleted); len(gone) == 0 || !slices.Equal(got, gone) {
		t.Fatalf("after deleting a publication deleted\n %v\nwant\n %v", got, gone)
	}
	if got, want := sorted(rep.Uploaded), changed(state2, state3); !slices.Equal(got, want) {
		t.Errorf("after deleting a publication uploaded %v, want %v", got, want)
	}
	keys = bucketKeys(t, s3.Admin, bucket, prefix)
	for k := range keys {
		if strings.HasPrefix(k, "org/open/extra") {
			t.Errorf("%s is still in the bucket after its publication was deleted", k)
		}
	}
	if _, ok := keys["robots.txt"]; !ok {
		t.Error("the bucket's own robots.txt was deleted")
	}
	if res, _ := s3.Get(t, bucket, prefix+"org/open/extra.ttl"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a deleted publication: %d, want 404", res.StatusCode)
	}

	// A repository hidden: its publications leave the bucket, as they leave nginx's public tree.
	hidden := false
	if _, err := h.Store.UpdateRepository(ctx, h.Admin, h.Open.ID, catalog.RepositoryPatch{Visible: &hidden}); err != nil {
		t.Fatal(err)
	}
	h.build(t)
	if rep, err = pub.Sync(ctx, h.out); err != nil {
		t.Fatal(err)
	}
	for k := range bucketKeys(t, s3.Admin, bucket, prefix) {
		if strings.HasPrefix(k, "org/open/core") {
			t.Errorf("%s is still in the bucket after its repository was hidden", k)
		}
	}
	if res, _ := s3.Get(t, bucket, prefix+latest+".ttl"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a hidden publication: %d, want 404", res.StatusCode)
	}
}

// TestPublishRefusedChangesNothing: a credential that may only read the bucket cannot publish; the sync reports
// the refusal and the bucket is as it was.
func TestPublishRefusedChangesNothing(t *testing.T) {
	const bucket = "site"
	s3 := s3test.Start(t, bucket, true)
	ctx := context.Background()
	h := newHub(t)
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.build(t)
	if _, err := s3.Admin.PutObject(ctx, bucket, "keep.txt", strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	// The read-only identity is refused for writing, not for everything: it lists and reads the bucket.
	reader, err := minio.New(s3.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(s3test.ReaderKey, s3test.ReaderSecret, "")})
	if err != nil {
		t.Fatal(err)
	}
	if keys := bucketKeys(t, reader, bucket, ""); len(keys) != 1 {
		t.Fatalf("the read-only identity lists %d objects, want keep.txt", len(keys))
	}
	if obj, err := reader.GetObject(ctx, bucket, "keep.txt", minio.GetObjectOptions{}); err != nil {
		t.Fatal(err)
	} else if b, err := io.ReadAll(obj); err != nil || string(b) != "x" {
		t.Fatalf("the read-only identity reads keep.txt: %q %v", b, err)
	}
	for _, c := range []struct{ name, key, secret string }{{"read-only", s3test.ReaderKey, s3test.ReaderSecret}, {"wrong secret", s3.AdminKey, "not-the-secret"}, {"anonymous", "", ""}} {
		pub, err := objstore.New(objstore.Options{Target: objstore.Target{Endpoint: s3.Endpoint, Bucket: bucket}, AccessKey: c.key, SecretKey: c.secret})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pub.Sync(ctx, h.out); err == nil {
			t.Errorf("%s credential: publish succeeded", c.name)
		}
		keys := bucketKeys(t, s3.Admin, bucket, "")
		if len(keys) != 1 {
			t.Errorf("%s credential: the bucket holds %d objects after a refused publish, want only keep.txt", c.name, len(keys))
		}
	}
}

func TestParseTarget(t *testing.T) {
	for _, c := range []struct {
		in   string
		want objstore.Target
		err  string
	}{
		{"http://127.0.0.1:8333/site", objstore.Target{Endpoint: "127.0.0.1:8333", Bucket: "site"}, ""},
		{"https://s3.eu-west-1.amazonaws.com/b/a/b/?region=eu-west-1", objstore.Target{Endpoint: "s3.eu-west-1.amazonaws.com", Secure: true, Bucket: "b", Prefix: "a/b/", Region: "eu-west-1"}, ""},
		{"s3://bucket", objstore.Target{}, "want http(s)"},
		{"http://host:1/", objstore.Target{}, "names no bucket"},
		{"http://key:secret@host/b", objstore.Target{}, "AWS_ACCESS_KEY_ID"},
	} {
		got, err := objstore.ParseTarget(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one with %q", c.in, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: the error shows the secret: %v", c.in, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.in, got, err, c.want)
		}
	}
}
