package rdfxml_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

// badUTF8 are byte sequences that are not UTF-8: stray and truncated bytes, overlong forms, UTF-16 surrogates
// encoded as if they were characters, and code points beyond U+10FFFF.
var badUTF8 = []struct{ name, b string }{
	{"byte ff", "\xff"},
	{"lone continuation", "\x80"},
	{"truncated 2-byte", "\xc3"},
	{"truncated 3-byte", "\xe2\x82"},
	{"overlong slash", "\xc0\xaf"},
	{"overlong 3-byte", "\xe0\x80\xaf"},
	{"overlong 4-byte", "\xf0\x80\x80\xaf"},
	{"high surrogate", "\xed\xa0\x80"},
	{"low surrogate", "\xed\xbf\xbf"},
	{"above U+10FFFF", "\xf4\x90\x80\x80"},
}

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
		for _, bad := range badUTF8 {
			doc := head + pl.doc
			at := strings.Index(doc, "X")
			wantLine := 1 + strings.Count(doc[:at], "\n")
			wantCol := 1 + utf8.RuneCountInString(doc[strings.LastIndex(doc[:at], "\n")+1:at])
			in := strings.Replace(doc, "X", bad.b, 1)
			for _, oneByte := range []bool{false, true} {
				var r io.Reader = strings.NewReader(in)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				got, err := readAll(rdfxml.NewDecoder(r, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")}))
				var se *rdf.SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("%s, %s: got %v after %v, want a syntax error", pl.name, bad.name, err, got)
				}
				if se.Syntax != "rdf-xml" || se.Line != wantLine || se.Column != wantCol || !strings.Contains(se.Msg, "UTF-8") {
					t.Errorf("%s, %s (one byte reads: %v): got %v, want rdf-xml at line %d, column %d naming UTF-8",
						pl.name, bad.name, oneByte, err, wantLine, wantCol)
				}
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
