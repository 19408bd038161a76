package objstore_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/objstore"
	"github.com/ldhub/ldhub/site/objstore/s3test"
)

// BenchmarkPublish publishes a hub of 100 publications (two versions each, pages included) to the S3 server on this
// machine: full is a first publish into an empty prefix, one-change a publish after one publication got a new
// version, none a publish with nothing changed. objects/op is what each sends.
//
//	go test -run '^$' -bench Publish -benchtime 3x ./site/objstore/
func BenchmarkPublish(b *testing.B) {
	const bucket, pubs = "bench", 100
	s3 := s3test.Start(b, bucket, false)
	ctx := context.Background()
	h := newHub(b)
	var ids []string
	for i := range pubs {
		p := h.Publish(b, h.Open.ID, "p"+strconv.Itoa(i), ".ttl", pipelinetest.Vocab+fmt.Sprintf("<N%d> a <Thing> .\n", i))
		h.Update(b, p.ID, ".ttl", pipelinetest.Vocab+fmt.Sprintf("<N%d> a <Other> .\n", i))
		ids = append(ids, p.ID)
	}
	h.build(b)
	newPub := func(prefix string) *objstore.Publisher {
		p, err := objstore.New(objstore.Options{Target: objstore.Target{Endpoint: s3.Endpoint, Bucket: bucket, Prefix: prefix},
			AccessKey: s3.AdminKey, SecretKey: s3.AdminSecret})
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	sync := func(b *testing.B, p *objstore.Publisher) objstore.Report {
		rep, err := p.Sync(ctx, h.out)
		if err != nil {
			b.Fatal(err)
		}
		return rep
	}
	b.Run("full", func(b *testing.B) {
		var n, bytes int
		for i := range b.N {
			rep := sync(b, newPub("full"+strconv.Itoa(i)+"/"))
			n, bytes = len(rep.Uploaded), int(rep.Bytes)
		}
		b.ReportMetric(float64(n), "objects/op")
		b.ReportMetric(float64(bytes)/1e6, "MB/op")
	})
	p := newPub("inc/")
	sync(b, p)
	changes := 0 // across runs: the same content again would be no new version
	b.Run("one-change", func(b *testing.B) {
		var n int
		for range b.N {
			b.StopTimer()
			changes++
			h.Update(b, ids[changes%len(ids)], ".ttl", pipelinetest.Vocab+fmt.Sprintf("<Change%d> a <Thing> .\n", changes))
			h.build(b)
			b.StartTimer()
			n += len(sync(b, p).Uploaded)
		}
		b.ReportMetric(float64(n)/float64(b.N), "objects/op")
	})
	b.Run("none", func(b *testing.B) {
		var n int
		for range b.N {
			n += len(sync(b, p).Uploaded)
		}
		b.ReportMetric(float64(n)/float64(b.N), "objects/op")
	})
}
