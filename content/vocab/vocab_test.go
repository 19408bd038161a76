package vocab

import (
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

func readNQ(t *testing.T, name string) ([]rdf.Quad, *Doc) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := ntriples.NewQuadDecoder(f, rdf.DecodeOptions{})
	var qs []rdf.Quad
	c := NewCollector()
	for {
		q, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
		c.Add(q)
	}
	return qs, c.Doc(nil)
}

func term(d *Doc, iri string) *Term {
	i, ok := slices.BinarySearchFunc(d.Terms, iri, func(t Term, s string) int {
		switch {
		case t.IRI < s:
			return -1
		case t.IRI > s:
			return 1
		}
		return 0
	})
	if !ok {
		return nil
	}
	return &d.Terms[i]
}

// Every subject the data types as a class, property, concept or shape is a term with that kind, and its
// rdfs:subClassOf, rdfs:subPropertyOf and skos:broader links (to IRIs) are its hierarchy, each mirrored on the
// other side when that side is a term too.
func TestRealVocabularies(t *testing.T) {
	want := map[string]Kind{
		"http://www.w3.org/2002/07/owl#Class": Class, "http://www.w3.org/2000/01/rdf-schema#Class": Class,
		"http://www.w3.org/2002/07/owl#ObjectProperty": ObjectProperty, "http://www.w3.org/2002/07/owl#DatatypeProperty": DatatypeProperty,
		"http://www.w3.org/2002/07/owl#AnnotationProperty": AnnotationProperty, "http://www.w3.org/2004/02/skos/core#Concept": Concept,
		"http://www.w3.org/ns/shacl#NodeShape": Shape,
	}
	hier := map[string][2]string{
		"http://www.w3.org/2000/01/rdf-schema#subClassOf":    {SubClassOf, SubClasses},
		"http://www.w3.org/2000/01/rdf-schema#subPropertyOf": {SubPropertyOf, SubProperties},
		"http://www.w3.org/2004/02/skos/core#broader":        {Broader, Narrower},
	}
	for _, name := range []string{"foaf.nq", "org.nq", "prov.nq", "sh.nq", "skos.nq", "dcat.nq"} {
		t.Run(name, func(t *testing.T) {
			qs, d := readNQ(t, name)
			checked := 0
			for _, q := range qs {
				if !q.S.IsIRI() {
					continue
				}
				if k, ok := want[q.O.Value]; ok && q.P.Value == rdf.RDFType {
					tm := term(d, q.S.Value)
					if tm == nil || !slices.Contains(tm.Kinds, k) && !(k == Property && len(tm.Kinds) > 0) {
						t.Errorf("%s typed %s: term %+v", q.S.Value, q.O.Value, tm)
					}
					checked++
				}
				if h, ok := hier[q.P.Value]; ok && q.O.IsIRI() {
					tm := term(d, q.S.Value)
					if tm == nil || !slices.Contains(tm.Links[h[0]], q.O.Value) {
						t.Errorf("%s %s %s missing", q.S.Value, h[0], q.O.Value)
						continue
					}
					if up := term(d, q.O.Value); up != nil && up.IRI != tm.IRI && !slices.Contains(up.Links[h[1]], tm.IRI) {
						t.Errorf("%s has no %s %s", q.O.Value, h[1], tm.IRI)
					}
				}
			}
			if checked == 0 {
				t.Fatal("no typed terms in the test data")
			}
		})
	}
}

func TestFOAF(t *testing.T) {
	_, d := readNQ(t, "foaf.nq")
	p := term(d, "http://xmlns.com/foaf/0.1/Person")
	if p == nil || !slices.Contains(p.Kinds, Class) {
		t.Fatalf("foaf:Person: %+v", p)
	}
	if l := p.Text[Label]; len(l) == 0 || l[0].Value != "Person" {
		t.Errorf("label %+v", l)
	}
	if c := p.Text[Comment]; len(c) == 0 || c[0].Value != "A person." {
		t.Errorf("comment %+v", c)
	}
	if !slices.Contains(p.Links[SubClassOf], "http://xmlns.com/foaf/0.1/Agent") {
		t.Errorf("superclasses %v", p.Links[SubClassOf])
	}
	if !slices.Contains(p.Links[DomainOf], "http://xmlns.com/foaf/0.1/familyName") {
		t.Errorf("domain of %v", p.Links[DomainOf])
	}
	if a := term(d, "http://xmlns.com/foaf/0.1/Agent"); a == nil || !slices.Contains(a.Links[SubClasses], p.IRI) {
		t.Errorf("foaf:Agent subclasses: %+v", a)
	}
	if s := p.Status; s != "stable" {
		t.Errorf("status %q", s)
	}
	if d.Ontology == nil || d.Ontology.IRI != "http://xmlns.com/foaf/0.1/" {
		t.Fatalf("ontology %+v", d.Ontology)
	}
	if tl := d.Ontology.Text[Title]; len(tl) == 0 || tl[0].Value != "Friend of a Friend (FOAF) vocabulary" {
		t.Errorf("title %+v", d.Ontology.Text)
	}
}

func TestSHACLShapes(t *testing.T) {
	_, d := readNQ(t, "sh.nq")
	n := 0
	for _, tm := range d.Terms {
		if slices.Contains(tm.Kinds, Shape) {
			n++
			if len(tm.Props) > 0 && tm.Props[0].Path == "" {
				t.Errorf("%s: property without a path %+v", tm.IRI, tm.Props[0])
			}
		}
	}
	if n == 0 {
		t.Fatal("no shapes")
	}
}

func TestLimits(t *testing.T) {
	c := NewCollector()
	long := make([]byte, MaxText*2)
	for i := range long {
		long[i] = 'a'
	}
	c.Add(rdf.Triple(rdf.IRI("http://x/C"), rdf.IRI(rdf.RDFType), rdf.IRI("http://www.w3.org/2002/07/owl#Class")))
	c.Add(rdf.Triple(rdf.IRI("http://x/C"), rdf.IRI("http://www.w3.org/2000/01/rdf-schema#label"), rdf.String(string(long))))
	d := c.Doc(nil)
	if got := len(d.Terms[0].Text[Label][0].Value); got > MaxText+4 {
		t.Errorf("label kept %d bytes", got)
	}
}

// TestCollectorCachesRoles: the collector remembers the last subject and the recent predicates' roles. Every text
// and link predicate, in turn on one class and in both orders (more predicates than the cache has slots, so some
// share one), puts its value in its own field; and a blank node with the same label as the last IRI subject is
// another subject.
func TestCollectorCachesRoles(t *testing.T) {
	const s = "http://example.org/C"
	iri := func(v string) rdf.Term { return rdf.Term{Kind: rdf.KindIRI, Value: v} }
	var preds []string
	for p := range textOf {
		preds = append(preds, p)
	}
	for p := range linkOf {
		preds = append(preds, p)
	}
	slices.Sort(preds)
	c := NewCollector()
	c.Add(rdf.Quad{S: iri(s), P: iri(rdf.RDFType), O: iri(owlNS + "Class")})
	for round := range 4 {
		for i := range preds {
			p := preds[i]
			if round%2 == 1 {
				p = preds[len(preds)-1-i]
			}
			if textOf[p] != "" {
				c.Add(rdf.Quad{S: iri(s), P: iri(p), O: rdf.Term{Kind: rdf.KindLiteral, Value: fmt.Sprintf("%s %d", p, round)}})
			} else {
				c.Add(rdf.Quad{S: iri(s), P: iri(p), O: iri(fmt.Sprintf("%s/o%d", p, round))})
			}
			// A blank node of the subject's label, between two statements of the subject.
			c.Add(rdf.Quad{S: rdf.Term{Kind: rdf.KindBlank, Value: s}, P: iri(rdf.RDFType), O: iri(owlNS + "ObjectProperty")})
		}
	}
	d := c.Doc(nil)
	if len(d.Terms) != 1 {
		t.Fatalf("terms %+v, want the class alone", d.Terms)
	}
	tm := d.Terms[0]
	if !slices.Contains(tm.Kinds, Class) || slices.Contains(tm.Kinds, ObjectProperty) {
		t.Errorf("kinds %v: the blank node's type went to the IRI", tm.Kinds)
	}
	for _, p := range preds {
		for round := range 4 {
			if k := textOf[p]; k != "" {
				if !slices.ContainsFunc(tm.Text[k], func(x Text) bool { return x.Value == fmt.Sprintf("%s %d", p, round) }) {
					t.Errorf("%s: value of round %d not in %s", p, round, k)
				}
			} else if k := linkOf[p]; !slices.Contains(tm.Links[k], fmt.Sprintf("%s/o%d", p, round)) {
				t.Errorf("%s: link of round %d not in %s", p, round, k)
			}
		}
	}
}
