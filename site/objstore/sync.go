package objstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Target is where the tree goes: an S3 endpoint, a bucket and a key prefix.
type Target struct {
	Endpoint string // host[:port]
	Secure   bool   // https
	Bucket   string
	Prefix   string // "" or ending in "/"
	Region   string // "" lets the library ask the server
}

// ParseTarget reads http(s)://host[:port]/bucket[/prefix] (path style, which every S3-compatible server answers;
// the library switches to virtual-host style where the endpoint needs it).
func ParseTarget(raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("objstore: target %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return Target{}, fmt.Errorf("objstore: target %q: want http(s)://host[:port]/bucket[/prefix]", raw)
	}
	if u.User != nil {
		return Target{}, fmt.Errorf("objstore: target %q: credentials go in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, not in the URL", u.Redacted())
	}
	bucket, prefix, _ := strings.Cut(strings.Trim(u.Path, "/"), "/")
	if bucket == "" {
		return Target{}, fmt.Errorf("objstore: target %q names no bucket", raw)
	}
	if prefix != "" {
		prefix += "/"
	}
	return Target{Endpoint: u.Host, Secure: u.Scheme == "https", Bucket: bucket, Prefix: prefix, Region: u.Query().Get("region")}, nil
}

// Options configure a Publisher.
type Options struct {
	Target Target
	// AccessKey, SecretKey and SessionToken sign the requests (AWS signature v4); the command reads them from
	// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN. Empty keys send anonymous requests.
	AccessKey, SecretKey, SessionToken string
	// Script is the theme's script the pages link (html.Script); nil publishes none.
	Script []byte
	// Parallel uploads at once; 4 when zero.
	Parallel int
	// Transport for the S3 requests; nil is the library's default.
	Transport http.RoundTripper
	// MaxRetries bounds the attempts of one request (the library's own retries of network errors, 5xx, 408 and 429,
	// with jittered backoff up to 1 s between attempts); 0 is the library's 10.
	MaxRetries int
	// Retry is the first pause before Follow publishes again after a failed publish, doubling up to RetryMax;
	// defaults 2 s and 5 min.
	Retry, RetryMax time.Duration
	Log             *slog.Logger
}

// Publisher keeps a bucket equal to the public part of a rendered tree.
type Publisher struct {
	o  Options
	c  *minio.Client
	mu sync.Mutex // one sync at a time
	// sums caches the MD5 of local files by name, size and modification time: version folders never change, so a
	// running hub hashes each file once instead of on every publish.
	sums map[string]fileSum
}

type fileSum struct {
	size int64
	mod  time.Time
	md5  string
}

// New returns a publisher for o.Target. It does not contact the server.
func New(o Options) (*Publisher, error) {
	if o.Target.Bucket == "" || o.Target.Endpoint == "" {
		return nil, errors.New("objstore: a target endpoint and bucket are required")
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.Retry <= 0 {
		o.Retry = 2 * time.Second
	}
	if o.RetryMax < o.Retry {
		o.RetryMax = max(o.Retry, 5*time.Minute)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var creds *credentials.Credentials
	if o.AccessKey != "" {
		creds = credentials.NewStaticV4(o.AccessKey, o.SecretKey, o.SessionToken)
	} else {
		creds = credentials.New(&credentials.Static{Value: credentials.Value{SignerType: credentials.SignatureAnonymous}})
	}
	c, err := minio.New(o.Target.Endpoint, &minio.Options{Creds: creds, Secure: o.Target.Secure, Region: o.Target.Region,
		Transport: o.Transport, MaxRetries: o.MaxRetries})
	if err != nil {
		return nil, fmt.Errorf("objstore: %w", err)
	}
	return &Publisher{o: o, c: c, sums: map[string]fileSum{}}, nil
}

// ManifestKey (below the prefix) records, for every object the publisher wrote, the MD5 of its bytes, the ETag
// the server gave it and its headers. An object is up to date when the listing shows the recorded ETag and the
// plan wants the recorded bytes and headers; the listing alone cannot tell headers, and a multipart ETag is no MD5.
const ManifestKey = ".ldhub/manifest.json"

type manifestEntry struct {
	MD5     string `json:"md5"`
	ETag    string `json:"etag"`
	Headers string `json:"headers"`
}

// Report says what one sync did.
type Report struct {
	Uploaded  []string // keys written (below the prefix)
	Deleted   []string
	Unchanged int
	Bytes     int64 // bytes uploaded
}

// Sync makes the bucket hold exactly the public tree under out: it uploads what is new or changed, and deletes
// what the tree no longer has (removed or hidden publications, versions no longer offered) once every upload
// succeeded. Only keys under the target's prefix are touched, and only those this publisher wrote are deleted.
func (p *Publisher) Sync(ctx context.Context, out string) (Report, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var rep Report
	var err error
	// The pipeline may replace a latest folder while it is read; planning again finds the new one.
	for range 5 {
		if rep, err = p.sync(ctx, out); !errors.Is(err, errVanished) {
			return rep, err
		}
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return rep, err
}

func (p *Publisher) sync(ctx context.Context, out string) (Report, error) {
	var rep Report
	plan, err := Plan(out, p.o.Script)
	if err != nil {
		return rep, err
	}
	t := p.o.Target
	listed := map[string]string{}
	for o := range p.c.ListObjects(ctx, t.Bucket, minio.ListObjectsOptions{Prefix: t.Prefix, Recursive: true}) {
		if o.Err != nil {
			return rep, fmt.Errorf("objstore: listing %s/%s: %w", t.Bucket, t.Prefix, o.Err)
		}
		listed[strings.TrimPrefix(o.Key, t.Prefix)] = strings.Trim(o.ETag, `"`)
	}
	manifest := p.readManifest(ctx)
	next := make(map[string]manifestEntry, len(plan))
	var todo []Object
	var sums []string
	for _, o := range plan {
		sum, err := p.sum(o)
		if err != nil {
			return rep, err
		}
		m, ok := manifest[o.Key]
		etag, present := listed[o.Key]
		if ok && present && m.ETag == etag && m.MD5 == sum && m.Headers == o.headers() {
			next[o.Key] = m
			rep.Unchanged++
			continue
		}
		todo = append(todo, o)
		sums = append(sums, sum)
	}
	// Uploads first, deletions last: a reader of the bucket never finds a page linking a removed object of a
	// publication that is still there, and a failed upload leaves everything old in place.
	var mu sync.Mutex
	var errs []error
	sem := make(chan struct{}, p.o.Parallel)
	var wg sync.WaitGroup
	for i, o := range todo {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			etag, err := p.put(ctx, o, sums[i])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			next[o.Key] = manifestEntry{MD5: sums[i], ETag: etag, Headers: o.headers()}
			rep.Uploaded = append(rep.Uploaded, o.Key)
			rep.Bytes += o.Size
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// What did upload is recorded, so the next sync does not send it again.
		return rep, errors.Join(err, p.writeManifest(ctx, mergeManifest(manifest, next)))
	}
	// Only what this publisher wrote (the manifest's keys) is deleted: a bucket shared with other files keeps them.
	var gone []string
	for k := range listed {
		if _, mine := manifest[k]; mine && k != ManifestKey {
			if _, keep := next[k]; !keep {
				gone = append(gone, k)
			}
		}
	}
	sort.Strings(gone)
	if err := p.remove(ctx, gone); err != nil {
		return rep, errors.Join(err, p.writeManifest(ctx, mergeManifest(manifest, next)))
	}
	rep.Deleted = gone
	if len(rep.Uploaded) > 0 || len(rep.Deleted) > 0 || len(manifest) != len(next) {
		if err := p.writeManifest(ctx, next); err != nil {
			return rep, err
		}
	}
	p.o.Log.Info("objstore: published", "bucket", t.Bucket, "prefix", t.Prefix, "uploaded", len(rep.Uploaded),
		"deleted", len(rep.Deleted), "unchanged", rep.Unchanged, "bytes", rep.Bytes)
	return rep, nil
}

// mergeManifest keeps the old entries a failed sync did not replace, so that they are compared again next time.
func mergeManifest(old, next map[string]manifestEntry) map[string]manifestEntry {
	m := make(map[string]manifestEntry, len(old)+len(next))
	for k, v := range old {
		m[k] = v
	}
	for k, v := range next {
		m[k] = v
	}
	return m
}

// sum is the MD5 of an object's bytes, cached for files by size and modification time.
func (p *Publisher) sum(o Object) (string, error) {
	if o.File == "" {
		return md5Of(o)
	}
	fi, err := os.Stat(o.File)
	if err != nil {
		return "", errVanished
	}
	if s, ok := p.sums[o.File]; ok && s.size == fi.Size() && s.mod.Equal(fi.ModTime()) {
		return s.md5, nil
	}
	sum, err := md5Of(o)
	if err != nil {
		return "", err
	}
	p.sums[o.File] = fileSum{size: fi.Size(), mod: fi.ModTime(), md5: sum}
	return sum, nil
}

// put uploads one object and returns its ETag. The body's MD5 goes along (Content-MD5, a signed header), so the
// server refuses bytes damaged or changed on the way; the payload itself is sent unsigned (one plain body instead
// of the aws-chunked streaming signature the library uses over http), which every S3-compatible server reads.
func (p *Publisher) put(ctx context.Context, o Object, sum string) (string, error) {
	r, err := o.open()
	if err != nil {
		return "", errVanished
	}
	defer r.Close()
	t := p.o.Target
	info, err := p.c.PutObject(ctx, t.Bucket, t.Prefix+o.Key, r, o.Size, minio.PutObjectOptions{
		ContentType: o.ContentType, ContentEncoding: o.ContentEncoding, CacheControl: o.CacheControl,
		SendContentMd5: true, DisableContentSha256: true,
	})
	if err != nil {
		return "", fmt.Errorf("objstore: uploading %s: %w", o.Key, err)
	}
	return strings.Trim(info.ETag, `"`), nil
}

// remove deletes keys (below the prefix) with multi-object deletes.
func (p *Publisher) remove(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	t := p.o.Target
	ch := make(chan minio.ObjectInfo)
	go func() {
		defer close(ch)
		for _, k := range keys {
			select {
			case ch <- minio.ObjectInfo{Key: t.Prefix + k}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var errs []error
	for e := range p.c.RemoveObjects(ctx, t.Bucket, ch, minio.RemoveObjectsOptions{}) {
		errs = append(errs, fmt.Errorf("objstore: deleting %s: %w", e.ObjectName, e.Err))
	}
	return errors.Join(errs...)
}

// readManifest returns the recorded manifest; a missing or unreadable one is empty, which uploads everything once.
func (p *Publisher) readManifest(ctx context.Context) map[string]manifestEntry {
	t := p.o.Target
	obj, err := p.c.GetObject(ctx, t.Bucket, t.Prefix+ManifestKey, minio.GetObjectOptions{})
	if err != nil {
		return map[string]manifestEntry{}
	}
	defer obj.Close()
	m := map[string]manifestEntry{}
	if err := json.NewDecoder(io.LimitReader(obj, 256<<20)).Decode(&m); err != nil {
		var er minio.ErrorResponse
		if !errors.As(err, &er) || er.Code != "NoSuchKey" {
			p.o.Log.Warn("objstore: manifest unreadable, uploading everything", "err", err)
		}
		return map[string]manifestEntry{}
	}
	return m
}

func (p *Publisher) writeManifest(ctx context.Context, m map[string]manifestEntry) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	t := p.o.Target
	_, err = p.c.PutObject(ctx, t.Bucket, t.Prefix+ManifestKey, bytes.NewReader(b), int64(len(b)),
		minio.PutObjectOptions{ContentType: "application/json", CacheControl: "no-store", SendContentMd5: true, DisableContentSha256: true})
	if err != nil {
		return fmt.Errorf("objstore: writing the manifest: %w", err)
	}
	return nil
}

// Follow publishes once now and again after every kick (kicks that come while a sync runs make one more sync),
// until ctx ends. Each request is already retried by the client on transient errors; a publish that still fails
// (the server down or refusing for longer than those retries) is tried again after a pause that doubles from
// Options.Retry to RetryMax, so that the bucket catches up when the server is back without waiting for the hub's
// next change. A kick meanwhile publishes at once.
func (p *Publisher) Follow(ctx context.Context, out string, kick <-chan struct{}) {
	pause := p.o.Retry
	for {
		var retry *time.Timer
		var again <-chan time.Time
		if _, err := p.Sync(ctx, out); errors.Is(err, errGzipPending) {
			p.o.Log.Info("objstore: waiting for the pipeline's late dumps or .gz siblings before publishing")
		} else if err != nil && ctx.Err() == nil {
			p.o.Log.Error("objstore: publish failed; trying again", "err", err, "retry_in", pause)
			retry = time.NewTimer(pause)
			again = retry.C
			pause = min(2*pause, p.o.RetryMax)
		} else {
			pause = p.o.Retry
		}
		select {
		case <-ctx.Done():
		case <-kick:
		case <-again:
		}
		if retry != nil {
			retry.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}
