package html

import (
	"context"
	"fmt"
	"github.com/ldhub/ldhub/content/conformance"
	"strconv"
	"testing"
	"time"
)

// largestPage is the biggest publication page the pipeline writes, whatever the data's size: statistics come
// precomputed and cut to the top 200 classes and properties, and the latest page lists 100 versions.
func largestPage(i int) PublicationPage {
	counts := func(what string) []Count {
		cs := make([]Count, 200)
		for j := range cs {
			cs[j] = Count{Value: fmt.Sprintf("http://example.org/%s/%d", what, j), Label: fmt.Sprintf("%s %d", what, j), N: 1_000_000 - j}
		}
		return cs
	}
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	href := fmt.Sprintf("/g/r/p%d", i)
	pub := Publication{Name: fmt.Sprintf("Publication %d", i), Description: "A large publication.", URI: "http://hub.example" + href}
	for v := range 100 {
		label := strconv.Itoa(100 - v)
		pub.Versions = append(pub.Versions, Version{Label: label, Commit: "0123456789abcdef", Time: t.Add(-time.Duration(v) * time.Hour),
			Href: href + "/versions/" + label, Stats: Stats{Triples: 1_000_000}})
	}
	pub.Versions[0].Dumps = []Dump{{Format: "Turtle", Ext: ".ttl", MediaType: "text/turtle", URL: href + ".ttl", Size: 80 << 20},
		{Format: "N-Triples", Ext: ".nt", MediaType: "application/n-triples", URL: href + ".nt", Size: 120 << 20}}
	pub.Versions[0].Stats = Stats{Triples: 1_000_000, Subjects: 100_000, Classes: counts("Class"), Properties: counts("property"),
		Languages: []Count{{Value: "en", N: 500_000}, {Value: "nl", N: 400_000}}}
	pub.Versions[0].SPARQL, pub.Versions[0].VoID = href, href+"/void.ttl"
	return PublicationPage{Crumbs: []Crumb{{Name: "Hub", Href: "/"}, {Name: "g", Href: "/g/"}}, Repository: Crumb{Name: "r", Href: "/g/r/"},
		Href: href, Publication: pub, Latest: true}
}

// BenchmarkRenderBatch renders batches of the largest publication page: the cost of one Hugo build is its fixed
// part (pages=1) plus a part per page, which is why the pipeline renders one batch per sync.
func BenchmarkRenderBatch(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			batch := &Batch{Title: "Bench"}
			for i := range n {
				if err := batch.Publication(fmt.Sprintf("p/%d", i), largestPage(i)); err != nil {
					b.Fatal(err)
				}
			}
			cpu0 := conformance.CPUTime()
			for b.Loop() {
				if err := RenderBatch(context.Background(), batch, b.TempDir()); err != nil {
					b.Fatal(err)
				}
			}
			cpu := conformance.CPUTime() - cpu0
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/build")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*n), "ms/page")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/build")
		})
	}
}
