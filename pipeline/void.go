package pipeline

import (
	"fmt"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/tree"
)

// voidDescription is the VoID description a publication's page links: size, classes, properties, the dumps and the
// SPARQL endpoint (the direct URL itself answers SPARQL).
func voidDescription(p *tree.Page) []byte {
	var b strings.Builder
	self := rdf.IRI(p.URI + strings.TrimPrefix(p.Self, p.Path))
	ds := self.String()
	b.WriteString("@prefix void: <http://rdfs.org/ns/void#> .\n@prefix dcterms: <http://purl.org/dc/terms/> .\n\n")
	fmt.Fprintf(&b, "%s a void:Dataset ;\n", ds)
	fmt.Fprintf(&b, "  dcterms:title %s ;\n", rdf.String(p.Name).String())
	if p.Description != "" {
		fmt.Fprintf(&b, "  dcterms:description %s ;\n", rdf.String(p.Description).String())
	}
	fmt.Fprintf(&b, "  dcterms:modified %s ;\n", rdf.Literal(p.Modified.UTC().Format("2006-01-02T15:04:05Z"), rdf.XSDNS+"dateTime").String())
	fmt.Fprintf(&b, "  void:triples %d ;\n  void:distinctSubjects %d ;\n", p.Stats.Triples, p.Stats.Subjects)
	fmt.Fprintf(&b, "  void:classes %d ;\n  void:properties %d ;\n", len(p.Stats.Classes), len(p.Stats.Properties))
	fmt.Fprintf(&b, "  void:sparqlEndpoint %s", ds)
	for _, f := range p.Formats {
		fmt.Fprintf(&b, " ;\n  void:dataDump %s", rdf.IRI(p.URI+strings.TrimPrefix(p.Self, p.Path)+f.Ext).String())
	}
	for _, c := range p.Stats.Classes {
		fmt.Fprintf(&b, " ;\n  void:classPartition [ void:class %s ; void:entities %d ]", rdf.IRI(c.Value).String(), c.N)
	}
	for _, c := range p.Stats.Properties {
		fmt.Fprintf(&b, " ;\n  void:propertyPartition [ void:property %s ; void:triples %d ]", rdf.IRI(c.Value).String(), c.N)
	}
	b.WriteString(" .\n")
	return []byte(b.String())
}
