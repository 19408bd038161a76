package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/objstore/s3test"
)

// TestServePublishesToS3 runs `ldhub serve --publish-s3` (the built binary) against a real S3 server: an upload
// through the API reaches the bucket without any other command, and its deletion leaves it.
func TestServePublishesToS3(t *testing.T) {
	const id, secret, bucket = "root", "publish-s3-secret-1", "hub"
	s3 := s3test.Start(t, bucket, false)
	data, addr := t.TempDir(), freeAddr(t)
	p := startHub(t, ldhubBinary(t), data, addr, "LDHUB_ADMIN_ID="+id, "LDHUB_ADMIN_SECRET="+secret,
		"LDHUB_PUBLISH_S3=http://"+s3.Endpoint+"/"+bucket+"/live",
		"AWS_ACCESS_KEY_ID="+s3.AdminKey, "AWS_SECRET_ACCESS_KEY="+s3.AdminSecret)
	defer p.stop(t)
	c := newClient(addr, id, secret)
	defer c.close()
	repo := vocabRepository(t, c)
	body, ctype := multipartBody("metadata", "meta.json", `{"name":"core"}`, "content", "core.ttl", "<Thing> <p> \"published to the bucket\" .\n")
	var pub pubListItem
	c.must(t, "POST", "/api/v3/repositories/"+repo+"/publications", ctype, body, &pub)

	waitObject := func(key string, want int) []byte {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			res, b := s3.Get(t, bucket, key)
			if res.StatusCode == want {
				return b
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: %d after 60 s, want %d\n%s", key, res.StatusCode, want, p.logs.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if b := waitObject("live/org/vocab/core.ttl", http.StatusOK); !bytes.Contains(b, []byte("published to the bucket")) {
		t.Errorf("core.ttl in the bucket: %q", b)
	}
	waitObject("live/org/vocab/core/versions/"+pub.Versions[0].Version+".nt", http.StatusOK)
	// The term's page is written after the version went live; the bucket gets it when it is.
	if b := waitObject("live/org/vocab/core/Thing.ttl", http.StatusOK); !bytes.Contains(b, []byte("published to the bucket")) {
		t.Errorf("the term's description in the bucket: %q", b)
	}
	if s3.Identities && strings.Contains(p.logs.String(), s3.AdminSecret) {
		t.Error("the S3 secret shows in the hub's log")
	}
	if res, err := c.do("DELETE", "/api/v3/publications/"+pub.ID, "", nil); err != nil || !res.ok() {
		t.Fatalf("delete: %v %v", res, err)
	}
	waitObject("live/org/vocab/core.ttl", http.StatusNotFound)
	waitObject("live/org/vocab/core/Thing.html", http.StatusNotFound)
}

// TestBuildPublishesToS3: `ldhub build --publish-s3` publishes after rendering and says what it sent; a second
// build sends nothing. It also leaves the Cloudflare Worker beside the web-server configurations.
func TestBuildPublishesToS3(t *testing.T) {
	const bucket = "built"
	s3 := s3test.Start(t, bucket, false)
	hub := pipelinetest.New(t)
	hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	env := map[string]string{"AWS_ACCESS_KEY_ID": s3.AdminKey, "AWS_SECRET_ACCESS_KEY": s3.AdminSecret}
	for i, want := range []string{" 0 deleted, 0 unchanged", "published to http://" + s3.Endpoint + "/" + bucket + ": 0 objects uploaded (0 bytes), 0 deleted"} {
		var stdout, stderr bytes.Buffer
		e := &environment{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return env[k] }}
		code := run(context.Background(), e, []string{"build", "--data", hub.Dir, "--out", out, "--base-url", "http://hub.example",
			"--publish-s3", "http://" + s3.Endpoint + "/" + bucket})
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("run %d: stdout %q, want %q", i, stdout.String(), want)
		}
	}
	if res, b := s3.Get(t, bucket, "org/open/core.ttl"); res.StatusCode != 200 || !bytes.Contains(b, []byte("http://hub.example/org/open/core/Thing")) {
		t.Errorf("core.ttl: %d %.200s", res.StatusCode, b)
	}
	if res, b := s3.Get(t, bucket, "org/open/core/Thing.html"); res.StatusCode != 200 || !bytes.Contains(b, []byte(">Thing</h1>")) {
		t.Errorf("the term page Thing.html: %d %.200s", res.StatusCode, b)
	}
	if b, err := os.ReadFile(filepath.Join(out, "cloudflare-worker.js")); err != nil || !bytes.Contains(b, []byte("export default")) {
		t.Errorf("cloudflare-worker.js: %v %.100s", err, b)
	}
}

// TestPublishS3CredentialsNotInFlags: a secret in the target URL is refused (it would show in the process list),
// and so is a target that is not an http(s) bucket URL; nothing is rendered then.
func TestPublishS3CredentialsNotInFlags(t *testing.T) {
	for _, target := range []string{"http://key:secret@127.0.0.1:1/b", "s3://bucket"} {
		var stdout, stderr bytes.Buffer
		e := &environment{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		out := t.TempDir()
		if code := run(context.Background(), e, []string{"build", "--data", t.TempDir(), "--out", out, "--publish-s3", target}); code == 0 {
			t.Errorf("%s: exit 0", target)
		}
		if strings.Contains(stderr.String(), "secret") {
			t.Errorf("%s: the error shows the secret: %s", target, stderr.String())
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("%s: rendered %d entries before refusing the target", target, len(ents))
		}
	}
}
