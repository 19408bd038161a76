package html

import (
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/vocab"
)

// schemaOrg is schema.org as @vocabulary/schema 1.1.0 ships it (17 823 statements, about 3 000 terms).
func schemaOrg(b *testing.B) *vocab.Doc {
	f, err := os.Open(filepath.Join("..", "..", "content", "vocab", "testdata", "schema.nq.gz"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	d, err := vocab.Read(ntriples.NewQuadDecoder(z, rdf.DecodeOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	d.Prefixes = []rdf.Prefix{{Name: "schema", IRI: "http://schema.org/"}}
	return d
}

// thesaurus is a synthetic SKOS thesaurus of n concepts: one scheme, ten top concepts, each concept with ten
// narrower ones, an English and a German label, a definition and its scheme.
func thesaurus(n int) []rdf.Quad {
	const ns = "http://example.org/thesaurus/"
	skos := "http://www.w3.org/2004/02/skos/core#"
	scheme := rdf.IRI(ns)
	qs := []rdf.Quad{rdf.Triple(scheme, rdf.IRI(rdf.RDFType), rdf.IRI(skos+"ConceptScheme")),
		rdf.Triple(scheme, rdf.IRI(skos+"prefLabel"), rdf.LangString("Synthetic thesaurus", "en"))}
	for i := 0; i < n; i++ {
		c := rdf.IRI(fmt.Sprintf("%sc%d", ns, i))
		qs = append(qs, rdf.Triple(c, rdf.IRI(rdf.RDFType), rdf.IRI(skos+"Concept")),
			rdf.Triple(c, rdf.IRI(skos+"prefLabel"), rdf.LangString(fmt.Sprintf("concept %d", i), "en")),
			rdf.Triple(c, rdf.IRI(skos+"prefLabel"), rdf.LangString(fmt.Sprintf("Begriff %d", i), "de")),
			rdf.Triple(c, rdf.IRI(skos+"definition"), rdf.LangString(fmt.Sprintf("The %dth concept of the synthetic thesaurus.", i), "en")),
			rdf.Triple(c, rdf.IRI(skos+"inScheme"), scheme))
		if i < 10 {
			qs = append(qs, rdf.Triple(c, rdf.IRI(skos+"topConceptOf"), scheme))
		} else {
			qs = append(qs, rdf.Triple(c, rdf.IRI(skos+"broader"), rdf.IRI(fmt.Sprintf("%sc%d", ns, i/10-1))))
		}
	}
	return qs
}

func collect(qs []rdf.Quad) *vocab.Doc {
	c := vocab.NewCollector()
	for _, q := range qs {
		c.Add(q)
	}
	return c.Doc(nil)
}

// BenchmarkDocPage renders one publication page documenting a vocabulary with one Hugo build, as the pipeline
// does for a new version: lay-out (docPage) and Hugo together.
func BenchmarkDocPage(b *testing.B) {
	for _, c := range []struct {
		name  string
		doc   func() *vocab.Doc
		terms TermsPage // one page of a section's full listing instead of the publication page
	}{
		{"schema.org", func() *vocab.Doc { return schemaOrg(b) }, TermsPage{}},
		{"thesaurus-100k", func() *vocab.Doc { return collect(thesaurus(100_000)) }, TermsPage{}},
		// One of the 100 pages of 1 000 concepts that list the thesaurus in full.
		{"thesaurus-100k-section-page", func() *vocab.Doc { return collect(thesaurus(100_000)) }, TermsPage{Section: "concept", N: 50}},
	} {
		b.Run(c.name, func(b *testing.B) {
			d := c.doc()
			b.ReportMetric(float64(len(d.Terms)), "terms")
			out := b.TempDir()
			var size int64
			cpu0 := conformance.CPUTime()
			for b.Loop() {
				bt := &Batch{Title: "Hub", Language: "en"}
				v := Version{Label: "1", Href: "/g/r/p/versions/1", Time: time.Unix(0, 0)}
				if err := bt.Publication("p", PublicationPage{Href: "/g/r/p", Latest: true, Vocab: d, Terms: c.terms,
					Publication: Publication{Name: "p", URI: "http://example.org/g/r/p", Versions: []Version{v}}}); err != nil {
					b.Fatal(err)
				}
				if err := RenderBatch(context.Background(), bt, out); err != nil {
					b.Fatal(err)
				}
				fi, err := os.Stat(filepath.Join(out, "p", "index.html"))
				if err != nil {
					b.Fatal(err)
				}
				size = fi.Size()
			}
			b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(size), "page-bytes")
		})
	}
}

// BenchmarkCollect is the pipeline's extra reader: the statements of a 100 k-concept thesaurus into its
// documentation, and the documentation written as terms.json.
func BenchmarkCollect(b *testing.B) {
	qs := thesaurus(100_000)
	b.ReportMetric(float64(len(qs)), "statements")
	var w counter
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		c := vocab.NewCollector()
		for _, q := range qs {
			c.Add(q)
		}
		w = 0
		if err := c.Doc(nil).Encode(&w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(w), "json-bytes")
}

type counter int

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// BenchmarkListingLayouts lays out the 100 listing pages of the 100 k-concept thesaurus (1 000 concepts each)
// without Hugo: "per-page" as each page did before, labelling and sorting the whole vocabulary again (docPage);
// "per-batch" as a Batch does now, over one layout.
func BenchmarkListingLayouts(b *testing.B) {
	d := collect(thesaurus(100_000))
	pages := SectionPages(d, 0)
	b.ReportMetric(float64(len(pages)), "pages")
	ls := fallback([]string{"en"})
	for _, c := range []struct {
		name   string
		shared bool
	}{{"per-page", false}, {"per-batch", true}} {
		b.Run(c.name, func(b *testing.B) {
			cpu0 := conformance.CPUTime()
			for b.Loop() {
				var lay *layout
				for _, tp := range pages {
					if !c.shared {
						docPage(d, "http://example.org/g/r/p", "/g/r/p", []string{"en"}, tp, 0)
						continue
					}
					if lay == nil {
						lay = newLayout(d, newDocNamer(d, ls, "", ""))
					}
					docPageIn(d, lay, "http://example.org/g/r/p", "/g/r/p", "", ls, tp, 0)
				}
			}
			b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkLabelsIndex makes the labels index of the 100 k-concept thesaurus (the filter's JSON, and its .gz).
func BenchmarkLabelsIndex(b *testing.B) {
	d := collect(thesaurus(100_000))
	v := Version{Label: "1", Href: "/g/r/p/versions/1", Time: time.Unix(0, 0)}
	pp := PublicationPage{Href: "/g/r/p", Latest: true, Vocab: d,
		Publication: Publication{Name: "p", URI: "http://example.org/g/r/p", Versions: []Version{v}}}
	var plain, gz int
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		bt := &Batch{Title: "Hub", Language: "en"}
		if err := bt.LabelsIndex("x", pp); err != nil {
			b.Fatal(err)
		}
		plain, gz = len(bt.files[0].data), len(bt.files[1].data)
	}
	b.ReportMetric(float64(conformance.CPUTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(plain), "json-bytes")
	b.ReportMetric(float64(gz), "gzip-bytes")
}
