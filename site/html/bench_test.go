package html

import (
	"context"
	"fmt"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// bigSite is a hub of groups×repos×pubs publications with three versions and ten resource pages each.
func bigSite(groups, repos, pubs int) (Site, int) {
	base := fixture().Hub.Groups[0].Repositories[0].Publications[0]
	var s Site
	s.Title = "Bench Hub"
	n := 1
	for g := range groups {
		grp := Group{Slug: fmt.Sprintf("g%d", g), Name: fmt.Sprintf("Group %d", g)}
		n++
		for r := range repos {
			rep := Repository{Slug: fmt.Sprintf("r%d", r), Name: fmt.Sprintf("Repository %d", r)}
			n++
			for p := range pubs {
				pub := base
				pub.Slug, pub.Name = fmt.Sprintf("p%d", p), fmt.Sprintf("Publication %d.%d.%d", g, r, p)
				pub.Versions = []Version{base.Versions[0], base.Versions[1], base.Versions[0]}
				pub.Versions[2].Label = "v0"
				pub.Resources = nil
				for i := range 10 {
					iri := fmt.Sprintf("http://example.org/%d/%d/%d/r%d", g, r, p, i)
					pub.Resources = append(pub.Resources, Resource{Path: fmt.Sprintf("id/r%d", i), IRI: iri, Label: "R",
						Triples: []rdf.Quad{rdf.Triple(rdf.IRI(iri), rdf.IRI(rdf.RDFNS+"type"), rdf.IRI("http://example.org/C"))}})
				}
				rep.Publications = append(rep.Publications, pub)
				n += 1 + len(pub.Versions) + len(pub.Resources)
			}
			grp.Repositories = append(grp.Repositories, rep)
		}
		s.Hub.Groups = append(s.Hub.Groups, grp)
	}
	return s, n
}

// BenchmarkRender reports pages per second for a 2×5×10 hub (100 publications, 1,400 pages); pages() alone is the
// reference within the same run, so the ratio shows what Hugo's build costs over laying the site out.
func BenchmarkRender(b *testing.B) {
	s, n := bigSite(2, 5, 10)
	b.Run("layout", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.pages(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "pages/s")
	})
	b.Run("hugo", func(b *testing.B) {
		for b.Loop() {
			if err := Render(context.Background(), s, b.TempDir()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "pages/s")
	})
}
