package canon_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/canon"
)

// bsbmLike returns n quads shaped like the benchmark data: subjects with a few literal properties, and every
// tenth subject pointing at a blank node (an address) with three properties of its own.
func bsbmLike(n int) []rdf.Quad {
	var qs []rdf.Quad
	for i := 0; len(qs) < n; i++ {
		s := rdf.IRI(fmt.Sprint("http://example.org/bsbm/instances/Offer", i))
		qs = append(qs,
			rdf.Triple(s, iri("label"), rdf.LangString(fmt.Sprint("offer ", i), "en")),
			rdf.Triple(s, iri("price"), rdf.Literal(fmt.Sprint(i%997, ".50"), rdf.XSDDecimal)))
		if i%10 == 0 {
			a := rdf.Blank(fmt.Sprint("addr", i))
			qs = append(qs, rdf.Triple(s, iri("address"), a),
				rdf.Triple(a, iri("street"), rdf.String(fmt.Sprint(i, " Main Street"))),
				rdf.Triple(a, iri("city"), rdf.String("Springfield")),
				rdf.Triple(a, iri("zip"), rdf.String(fmt.Sprint(10000+i%5000))))
		}
	}
	return qs[:n]
}

func BenchmarkCanonicalize(b *testing.B) {
	for _, tc := range []struct {
		name  string
		quads []rdf.Quad
	}{
		{"bsbm-like-100k", bsbmLike(100_000)},
		{"cycles-1k-of-5", func() []rdf.Quad {
			var qs []rdf.Quad
			for c := range 1000 {
				for _, q := range cycle(5) {
					q.S.Value += fmt.Sprint("c", c)
					q.O.Value += fmt.Sprint("c", c)
					qs = append(qs, q)
				}
			}
			return qs
		}()},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canon.Canonicalize(context.Background(), tc.quads, canon.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tc.quads))*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
		})
	}
}
