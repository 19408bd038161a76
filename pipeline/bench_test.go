package pipeline_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/vocab"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/pipeline/stream"
)

// benchData is the publication of the upload benchmark (LDHUB_BENCH_NT overrides; 1 M BSBM triples by default).
func benchData(b *testing.B) []byte {
	path := os.Getenv("LDHUB_BENCH_NT")
	if path == "" {
		path = "/tmp/bsbm-1m.nt"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("benchmark data: %v", err)
	}
	return data
}

// BenchmarkUploadUntilLive is an upload through the store (validation, commit) followed by the pipeline until every
// artefact of the new version is live: four dumps with .gz siblings, SPARQL index, statistics, pages.
func BenchmarkUploadUntilLive(b *testing.B) {
	data := benchData(b)
	h := pipelinetest.New(b)
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: b.TempDir(), BaseURL: "http://hub.example", HTML: &pipeline.HTML{}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	i := 0
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		i++
		pub, err := h.Store.CreatePublication(ctx, h.Admin, h.Open.ID, model.PublicationMeta{Name: fmt.Sprintf("bsbm%d", i)}, store.Content{Ext: ".nt", Data: data})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(t0).Milliseconds()), "render-ms")
		if p.Pending(pub.ID) {
			b.Fatal("still pending after the sync")
		}
	}
	b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkReferenceParse is the floor of the one above: parsing the same N-Triples once, doing nothing else.
func BenchmarkReferenceParse(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		dec := ntriples.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{})
		for {
			if _, err := dec.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkReferenceGzip is the other part of the floor: one pass of the dumps' compression (gzip level 1,
// klauspost/compress) over the uploaded bytes. The pipeline makes four such passes (one per dump; the dumps of
// the 1 M-triple publication are 0.75 to 1 times the upload's size each) and the store one zlib pass of the blob.
func BenchmarkReferenceGzip(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		zw, err := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := zw.Write(data); err != nil {
			b.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkCollectTerms is the render's vocabulary reader alone (content/vocab's Collector and Doc) over the
// statements as the fan-out hands them (stream.RawQuads, parsed once before the timing).
func BenchmarkCollectTerms(b *testing.B) {
	data := benchData(b)
	raw := stream.NewRawQuads(ntriples.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{}))
	var qs []rdf.Quad
	for {
		var q rdf.Quad
		if err := raw.Read(&q); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		qs = append(qs, q)
	}
	b.ResetTimer()
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		c := vocab.NewCollector()
		for _, q := range qs {
			c.Add(q)
		}
		if d := c.Doc(nil); len(d.Terms) == 0 {
			b.Fatal("no terms")
		}
	}
	b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}
