package turtleenc_test

import (
	"fmt"
	"os"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/turtleenc"
)

func ExampleNewEncoder() {
	ex := func(s string) rdf.Term { return rdf.IRI("http://example.org/" + s) }
	e := turtleenc.NewEncoder(os.Stdout, rdf.EncodeOptions{
		Base:     "http://example.org/books/",
		Prefixes: []rdf.Prefix{{Name: "dc", IRI: "http://purl.org/dc/terms/"}, {Name: "ex", IRI: "http://example.org/"}},
	})
	for _, q := range []rdf.Quad{
		rdf.Triple(ex("books/moby"), rdf.IRI("http://purl.org/dc/terms/title"), rdf.LangString("Moby-Dick", "en")),
		rdf.Triple(ex("books/moby"), rdf.IRI(rdf.RDFType), ex("Book")),
		rdf.Triple(ex("books/moby"), ex("pages"), rdf.Literal("635", rdf.XSDInteger)),
		rdf.Triple(ex("books/moby"), rdf.IRI("http://purl.org/dc/terms/creator"), rdf.Blank("author")),
		rdf.Triple(rdf.Blank("author"), ex("name"), rdf.String("Herman Melville")),
		rdf.Triple(rdf.Blank("author"), ex("born"), rdf.Literal("1819", rdf.XSDInteger)),
		rdf.Triple(ex("books/moby"), ex("opening"), rdf.String("Call me Ishmael.\nSome years ago…")),
	} {
		if err := e.Encode(q); err != nil {
			fmt.Println(err)
		}
	}
	if err := e.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// @base <http://example.org/books/> .
	// @prefix dc: <http://purl.org/dc/terms/> .
	// @prefix ex: <http://example.org/> .
	//
	// <moby> a ex:Book ;
	//     dc:title "Moby-Dick"@en ;
	//     ex:pages 635 ;
	//     dc:creator [
	//         ex:name "Herman Melville" ;
	//         ex:born 1819
	//     ] ;
	//     ex:opening """Call me Ishmael.
	// Some years ago…""" .
}
