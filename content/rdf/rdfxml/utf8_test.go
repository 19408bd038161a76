package rdfxml_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/rdftest"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

// TestInvalidUTF8 puts each bad sequence (at X) in markup, text and the parts encoding/xml does not check itself
// (comments, processing instructions, the DOCTYPE): each must be a syntax error naming UTF-8 at the sequence's
// first byte, also when the input arrives a byte at a time.
func TestInvalidUTF8(t *testing.T) {
	const desc = "<rdf:Description rdf:about=\"http://example.org/s\"><ex:p>a</ex:p></rdf:Description>"
	places := []struct{ name, doc string }{
		{"comment before the root", "<!-- cX -->\n" + header + desc + "</rdf:RDF>"},
		{"comment in the root", header + "\n<!-- X -->" + desc + "</rdf:RDF>"},
		{"comment after the root", header + desc + "</rdf:RDF>\n<!--X-->"},
		{"comment in an XML literal", header + "<rdf:Description rdf:about=\"http://example.org/s\"><ex:p rdf:parseType=\"Literal\"><b>x<!-- X --></b></ex:p></rdf:Description></rdf:RDF>"},
		{"processing instruction", "<?keep cX?>" + header + desc + "</rdf:RDF>"},
		{"DOCTYPE comment", "<!DOCTYPE rdf:RDF [ <!-- X --> ]>\n" + header + desc + "</rdf:RDF>"},
		{"entity value", "<!DOCTYPE rdf:RDF [ <!ENTITY e \"http://example.org/X\"> ]>\n" + header + desc + "</rdf:RDF>"},
		{"text", header + "<rdf:Description rdf:about=\"http://example.org/s\"><ex:p>aX</ex:p></rdf:Description></rdf:RDF>"},
		{"CDATA", header + "<rdf:Description rdf:about=\"http://example.org/s\"><ex:p><![CDATA[X]]></ex:p></rdf:Description></rdf:RDF>"},
		{"attribute value", header + "<rdf:Description rdf:about=\"http://example.org/sX\"/></rdf:RDF>"},
		{"property attribute", header + "<rdf:Description rdf:about=\"http://example.org/s\" ex:p=\"X\"/></rdf:RDF>"},
		{"element name", header + "<rdf:Description rdf:about=\"http://example.org/s\"><ex:pX>a</ex:pX></rdf:Description></rdf:RDF>"},
		{"whitespace between elements", header + "\n  X" + desc + "</rdf:RDF>"},
		{"end of input", header + desc + "</rdf:RDF>\nX"},
	}
	const head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- Übersicht ✓ -->\n"
	for _, pl := range places {
		for _, c := range rdftest.Cases(head + pl.doc) {
			for _, oneByte := range []bool{false, true} {
				var r io.Reader = strings.NewReader(c.In)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				got, err := readAll(rdfxml.NewDecoder(r, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")}))
				rdftest.CheckError(t, fmt.Sprintf("%s (one byte reads: %v)", pl.name, oneByte), "rdf-xml", c, got, err)
			}
		}
	}
}

// TestLatin1NotCheckedAsUTF8: a document that declares ISO-8859-1 has bytes above 0x7F that are characters, not
// broken UTF-8, and must still decode, comments included.
func TestLatin1NotCheckedAsUTF8(t *testing.T) {
	in := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<!-- \xe9t\xe9 \xff -->" + header +
		"<rdf:Description rdf:about=\"http://example.org/s\"><ex:p>caf\xe9</ex:p></rdf:Description></rdf:RDF>"
	got, err := readAll(rdfxml.NewDecoder(iotest.OneByteReader(strings.NewReader(in)), rdf.DecodeOptions{}))
	if err != nil || len(got) != 1 || got[0].O.Value != "café" {
		t.Fatalf("got %v, %v; want one triple with \"café\"", got, err)
	}
}
