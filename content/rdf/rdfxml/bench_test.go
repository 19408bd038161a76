package rdfxml_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

// benchDoc generates an RDF/XML document in the shape typical of published vocabularies and catalogues: typed
// nodes with language-tagged labels, typed literals, links, a nested parseType="Resource" node and a container.
func benchDoc(subjects int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/vocab#"
    xmlns:dct="http://purl.org/dc/terms/" xml:base="http://example.org/data/">
`)
	for i := range subjects {
		fmt.Fprintf(&b, `  <ex:Item rdf:about="item/%d">
    <dct:title xml:lang="en">Item number %d &amp; friends</dct:title>
    <dct:issued rdf:datatype="http://www.w3.org/2001/XMLSchema#date">2024-01-%02d</dct:issued>
    <ex:related rdf:resource="item/%d"/>
    <ex:size rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">%d</ex:size>
    <ex:maker rdf:parseType="Resource"><ex:name>Maker %d</ex:name><ex:homepage rdf:resource="http://maker.example/%d"/></ex:maker>
    <ex:tags><rdf:Bag><rdf:li>alpha</rdf:li><rdf:li>beta</rdf:li></rdf:Bag></ex:tags>
  </ex:Item>
`, i, i, i%28+1, (i+1)%subjects, i*7, i%100, i%100)
	}
	b.WriteString("</rdf:RDF>\n")
	return []byte(b.String())
}

const benchSubjects = 5000

func BenchmarkDecode(b *testing.B) {
	doc := benchDoc(benchSubjects)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		var err error
		if n, err = conformance.Drain(rdfxml.NewDecoder(bytes.NewReader(doc), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("b")})); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
}

// BenchmarkReferenceXMLTokens is the floor for this design: encoding/xml's raw tokenizer alone over the same bytes.
func BenchmarkReferenceXMLTokens(b *testing.B) {
	doc := benchDoc(benchSubjects)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		x := xml.NewDecoder(bytes.NewReader(doc))
		for {
			if _, err := x.RawToken(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReferenceNTriples decodes the same graph written as N-Triples, the simplest syntax in the hub.
func BenchmarkReferenceNTriples(b *testing.B) {
	qs, err := readAll(rdfxml.NewDecoder(bytes.NewReader(benchDoc(benchSubjects)), rdf.DecodeOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	var nt bytes.Buffer
	for _, q := range qs {
		nt.WriteString(q.String())
		nt.WriteByte('\n')
	}
	doc := nt.Bytes()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		n, err := conformance.Drain(ntriples.NewDecoder(bytes.NewReader(doc), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("b")}))
		if err != nil || n != len(qs) {
			b.Fatal(err, n)
		}
	}
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
}

// drain reads a decoder to the end and counts the triples, so benchmarks measure decoding, not slice growth.
func BenchmarkEncode(b *testing.B) {
	qs, err := readAll(rdfxml.NewDecoder(bytes.NewReader(benchDoc(benchSubjects)), rdf.DecodeOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e := rdfxml.NewEncoder(io.Discard, rdf.EncodeOptions{})
		for _, q := range qs {
			if err := e.Encode(q); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
}

// BenchmarkEntityBomb measures how long refusing hostile entity use takes: the exponential "billion laughs"
// definition (3 GB if expanded) and a linear bomb (1000 references to a 100 kB entity, 100 MB expanded).
func BenchmarkEntityBomb(b *testing.B) {
	linear := `<!DOCTYPE rdf:RDF [<!ENTITY big "` + strings.Repeat("x", 100000) + `">]>` + header +
		"<rdf:Description><ex:p>" + strings.Repeat("&big;", 1000) + "</ex:p></rdf:Description></rdf:RDF>"
	for _, bc := range []struct{ name, doc string }{{"billion-laughs", billionLaughs()}, {"linear", linear}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := conformance.Drain(rdfxml.NewDecoder(strings.NewReader(bc.doc), rdf.DecodeOptions{})); err == nil {
					b.Fatal("bomb accepted")
				}
			}
		})
	}
}
