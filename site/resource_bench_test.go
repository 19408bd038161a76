package site

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
)

// benchResources are eight resources of typical size (a type, 20 labelled properties, a blank node with 5
// statements, 50 references), so that a burst of first views has eight different pages to render.
const benchResources = 8

func benchTree(b *testing.B) string {
	var ttl strings.Builder
	ttl.WriteString("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")
	for i := range 20 {
		fmt.Fprintf(&ttl, "<p%d> rdfs:label \"property %d\" .\n", i, i)
	}
	for r := range benchResources {
		fmt.Fprintf(&ttl, "<Thing%d> a <Class> ; rdfs:label \"Thing %d\"@en ; <part> [ <q0> 1 ; <q1> 2 ; <q2> 3 ; <q3> 4 ; <q4> 5 ]", r, r)
		for i := range 20 {
			fmt.Fprintf(&ttl, " ; <p%d> \"value %d of thing %d\"@en", i, i, r)
		}
		ttl.WriteString(" .\n")
		for i := range 50 {
			fmt.Fprintf(&ttl, "<s%d> <knows> <Thing%d> .\n", i, r)
		}
	}
	hub := pipelinetest.New(b)
	hub.Publish(b, hub.Open.ID, "bench", ".ttl", ttl.String())
	out := b.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.BuildAll(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return out
}

// oldResource is the data the html/template resource page (theme/default, removed) was given.
type oldResource struct {
	IRI, Label  string
	Publication *tree.Page
	Statements  []oldStatement
	Incoming    []oldStatement
	Next        string
}

type oldStatement struct{ S, P, O rdf.Term }

// BenchmarkResourcePage measures the CPU of one resource page through the handler: the first view (rendered by a
// Hugo rebuild; the cache is too small to keep it), eight first views at once (rendered together), the cached view,
// and, in the same run, the page as html/template rendered it before (its templates are in
// testdata/htmltemplate-resource) and the same resource as Turtle through the handler.
func BenchmarkResourcePage(b *testing.B) {
	out := benchTree(b)
	get := func(h http.Handler, path string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != 200 {
			b.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
	}
	handler := func(o html.ResourceOptions) *Handler {
		h, err := NewHandler(Options{Dir: out, Theme: html.NewResources(o)})
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	perPage := func(b *testing.B, cpu0 time.Duration, pages int) {
		b.ReportMetric(float64((conformance.CPUTime()-cpu0).Microseconds())/1000/float64(b.N*pages), "cpu-ms/page")
	}

	b.Run("html-template-reference", func(b *testing.B) {
		tmpl := template.Must(template.ParseFiles(filepath.Join("testdata", "htmltemplate-resource", "base.html"),
			filepath.Join("testdata", "htmltemplate-resource", "resource.html")))
		h := handler(html.ResourceOptions{})
		t, ok := h.locate(httptest.NewRequest("GET", "/org/open/bench/Thing0", nil))
		if !ok {
			b.Fatal("Thing0 not located")
		}
		cpu0 := conformance.CPUTime()
		for b.Loop() {
			ds, release, err := h.acquireIndex(t)
			if err != nil {
				b.Fatal(err)
			}
			d := describe.Describe(ds, "http://hub.example/org/open/bench/Thing0", 0, h.o.PageSize)
			res := &oldResource{IRI: d.IRI, Publication: t.page}
			for _, q := range d.Out {
				res.Statements = append(res.Statements, oldStatement{S: q.S, P: q.P, O: q.O})
			}
			for _, q := range d.In {
				res.Incoming = append(res.Incoming, oldStatement{S: q.S, P: q.P, O: q.O})
			}
			if err := tmpl.ExecuteTemplate(io.Discard, "base", res); err != nil {
				b.Fatal(err)
			}
			release()
		}
		perPage(b, cpu0, 1)
	})
	b.Run("turtle-reference", func(b *testing.B) {
		h := handler(html.ResourceOptions{})
		cpu0 := conformance.CPUTime()
		for b.Loop() {
			get(h, "/org/open/bench/Thing0.ttl")
		}
		perPage(b, cpu0, 1)
	})
	b.Run("hugo-first-view", func(b *testing.B) {
		h := handler(html.ResourceOptions{CacheBytes: 1})
		get(h, "/org/open/bench/Thing0.html") // loads the Hugo site
		cpu0 := conformance.CPUTime()
		for b.Loop() {
			get(h, "/org/open/bench/Thing0.html")
		}
		perPage(b, cpu0, 1)
	})
	b.Run(fmt.Sprintf("hugo-first-view-burst=%d", benchResources), func(b *testing.B) {
		h := handler(html.ResourceOptions{CacheBytes: 1})
		get(h, "/org/open/bench/Thing0.html")
		cpu0 := conformance.CPUTime()
		for b.Loop() {
			var wg sync.WaitGroup
			for r := range benchResources {
				wg.Go(func() { get(h, fmt.Sprintf("/org/open/bench/Thing%d.html", r)) })
			}
			wg.Wait()
		}
		perPage(b, cpu0, benchResources)
	})
	b.Run("hugo-cached-view", func(b *testing.B) {
		h := handler(html.ResourceOptions{})
		get(h, "/org/open/bench/Thing0.html")
		cpu0 := conformance.CPUTime()
		for b.Loop() {
			get(h, "/org/open/bench/Thing0.html")
		}
		perPage(b, cpu0, 1)
	})
}
