package html

import (
	"context"
	"fmt"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
)

// benchResource is a resource page of typical size: 20 properties, a blank node with 5, 50 references.
func benchResource(n int) *ResourcePage {
	p := testResource(n)
	for i := range 20 {
		p.Statements = append(p.Statements, rdf.Triple(rdf.IRI(p.IRI), rdf.IRI(fmt.Sprintf("http://example.org/p%d", i)),
			rdf.LangString(fmt.Sprintf("value %d of %d", i, n), "en")))
	}
	for i := range 5 {
		p.Statements = append(p.Statements, rdf.Triple(rdf.Blank("b1"), rdf.IRI(fmt.Sprintf("http://example.org/q%d", i)), rdf.IRI("http://example.org/x")))
	}
	for i := range 50 {
		p.Incoming = append(p.Incoming, rdf.Triple(rdf.IRI(fmt.Sprintf("http://example.org/s%d", i)), rdf.IRI("http://example.org/knows"), rdf.IRI(p.IRI)))
	}
	return p
}

// BenchmarkResourceRender measures what one resource page costs Hugo: a rebuild of the long-lived in-memory site
// with one page or with a batch of 8 (requests that queued during a build), against a full build of a fresh site
// per page (what site/html does for the pipeline's batches) in the same run. CPU is the process's user + system
// time per page: Hugo renders on several goroutines.
func BenchmarkResourceRender(b *testing.B) {
	for _, batch := range []int{1, 8} {
		b.Run(fmt.Sprintf("rebuild/batch=%d", batch), func(b *testing.B) {
			l, err := newLiveSite(settings{inline: true}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer l.close()
			n := 0
			cpu0 := conformance.CPUTime()
			for b.Loop() {
				pages := make([]page, batch)
				for i := range pages {
					pages[i] = resourcePage(benchResource(n))
					n++
				}
				if _, err := l.render(pages); err != nil {
					b.Fatal(err)
				}
			}
			reportPerPage(b, conformance.CPUTime()-cpu0, batch)
		})
	}
	b.Run("full-build/batch=1", func(b *testing.B) {
		n := 0
		cpu0 := conformance.CPUTime()
		for b.Loop() {
			p := resourcePage(benchResource(n))
			p.URL = "/r/"
			n++
			if err := renderPages(context.Background(), []page{p}, settings{inline: true}, b.TempDir(), nil); err != nil {
				b.Fatal(err)
			}
		}
		reportPerPage(b, conformance.CPUTime()-cpu0, 1)
	})
}

func reportPerPage(b *testing.B, cpu interface{ Microseconds() int64 }, batch int) {
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N*batch), "cpu-ms/page")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*batch), "ms/page")
}
