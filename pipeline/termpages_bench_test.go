package pipeline_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/tree"
)

// thesaurusNT is a synthetic SKOS thesaurus of n concepts under the publication's own URI (so every concept is a
// term with a page): one scheme, ten top concepts, each concept with ten narrower ones, an English and a German
// label, a definition and its scheme. label changes concept 5's English label, for a new version.
func thesaurusNT(uri string, n int, label string) string {
	const skos = "http://www.w3.org/2004/02/skos/core#"
	var b strings.Builder
	fmt.Fprintf(&b, "<%s/scheme> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <%sConceptScheme> .\n", uri, skos)
	fmt.Fprintf(&b, "<%s/scheme> <%sprefLabel> \"Synthetic thesaurus\"@en .\n", uri, skos)
	for i := range n {
		c := fmt.Sprintf("<%s/c%d>", uri, i)
		en := "concept " + strconv.Itoa(i)
		if i == 5 {
			en = label
		}
		fmt.Fprintf(&b, "%s <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <%sConcept> .\n", c, skos)
		fmt.Fprintf(&b, "%s <%sprefLabel> %q@en .\n%s <%sprefLabel> \"Begriff %d\"@de .\n", c, skos, en, c, skos, i)
		fmt.Fprintf(&b, "%s <%sdefinition> \"The %dth concept of the synthetic thesaurus.\"@en .\n", c, skos, i)
		fmt.Fprintf(&b, "%s <%sinScheme> <%s/scheme> .\n", c, skos, uri)
		if i < 10 {
			fmt.Fprintf(&b, "%s <%stopConceptOf> <%s/scheme> .\n", c, skos, uri)
		} else {
			fmt.Fprintf(&b, "%s <%sbroader> <%s/c%d> .\n", c, skos, uri, i/10-1)
		}
	}
	return b.String()
}

// BenchmarkTermPages is what pre-rendering the term pages (HTML.TermPages) of a SKOS thesaurus costs
// (LDHUB_BENCH_TERMS concepts, 100 000 by default): the first version, where every page is rendered, and a new
// version that changes one concept's label, where only the pages showing it are rendered again (the concept,
// its broader concept and its ten narrower ones) and the others are hard links. It reports when the version was
// live (the sync returned; the pages are written after it), the wall and CPU time until the pages were all
// written, against the same sync without them, the time per 1 000 pages, and the files and disk blocks of the
// term pages folder.
func BenchmarkTermPages(b *testing.B) {
	n := 100_000
	if v := os.Getenv("LDHUB_BENCH_TERMS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, pages := range []bool{false, true} {
		b.Run(fmt.Sprintf("pages=%v", pages), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				h := pipelinetest.New(b)
				out := b.TempDir()
				p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base,
					HTML: &pipeline.HTML{TermPages: pages}})
				if err != nil {
					b.Fatal(err)
				}
				uri := base + "/org/open/thes"
				pub, err := h.Store.CreatePublication(ctx, h.Admin, h.Open.ID, model.PublicationMeta{Name: "thes"},
					store.Content{Ext: ".nt", Data: []byte(thesaurusNT(uri, n, "concept 5"))})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				cpu0, t0 := conformance.CPUTime(), time.Now()
				if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
					b.Fatal(err)
				}
				live := time.Since(t0)
				res, err := p.WaitTermPages(ctx)
				if err != nil {
					b.Fatal(err)
				}
				wall, cpu := time.Since(t0), conformance.CPUTime()-cpu0
				b.ReportMetric(float64(live.Milliseconds()), "first-live-ms")
				b.ReportMetric(float64(wall.Milliseconds()), "first-wall-ms")
				b.ReportMetric(float64(cpu)/1e6, "first-cpu-ms")
				if pages {
					// The concepts and the scheme, unless the scheme (n inScheme and 10 topConceptOf references) has
					// more references than a page holds: then the handler answers it.
					want := n + 1
					if n+10 > describe.PageSize {
						want = n
					}
					if res.Rendered != want {
						b.Errorf("%d term pages rendered, want %d", res.Rendered, want)
					}
					b.ReportMetric(float64(cpu)/1e6/float64(want)*1000, "first-cpu-ms/1000-pages")
					files, blocks := diskUse(b, filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/thes"), tree.Current, tree.TermPages))
					b.ReportMetric(float64(files), "files")
					b.ReportMetric(float64(blocks)/(1<<20), "disk-MiB")
				}
				b.StopTimer()
				if _, err := h.Store.UpdatePublication(ctx, h.Admin, pub.ID, store.PublicationPatch{},
					&store.Content{Ext: ".nt", Data: []byte(thesaurusNT(uri, n, "the fifth concept"))}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				cpu0, t0 = conformance.CPUTime(), time.Now()
				if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
					b.Fatal(err)
				}
				live = time.Since(t0)
				if res, err = p.WaitTermPages(ctx); err != nil {
					b.Fatal(err)
				}
				wall, cpu = time.Since(t0), conformance.CPUTime()-cpu0
				b.ReportMetric(float64(live.Milliseconds()), "next-live-ms")
				b.ReportMetric(float64(wall.Milliseconds()), "next-wall-ms")
				b.ReportMetric(float64(cpu)/1e6, "next-cpu-ms")
				if pages {
					b.ReportMetric(float64(res.Rendered), "next-rendered")
					b.ReportMetric(float64(res.Kept), "next-kept")
				}
			}
		})
	}
}

// diskUse counts the files below dir and the bytes of the disk blocks they take.
func diskUse(b *testing.B, dir string) (files int, bytes int64) {
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			bytes += st.Blocks * 512
		}
		if !e.IsDir() {
			files++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files, bytes
}
