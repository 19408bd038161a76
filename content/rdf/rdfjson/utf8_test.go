package rdfjson_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/rdfjson"
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

// TestInvalidUTF8: encoding/json turns bytes that are not UTF-8 into U+FFFD silently, which changed the data. Each
// bad sequence (at X) in a key, a value, between tokens or at the very end must now be a syntax error naming UTF-8
// at its first byte, also when the input arrives a byte at a time; the triple before it still comes out.
func TestInvalidUTF8(t *testing.T) {
	const first = "{\"http://a/s\": {\"http://a/p\": [{\"type\": \"literal\", \"value\": \"Übersicht ✓\"}]},\n"
	places := []struct{ name, doc string }{
		{"subject key", first + "\"http://a/sX\": {\"http://a/p\": [{\"type\": \"uri\", \"value\": \"http://a/o\"}]}}"},
		{"predicate key", first + "\"http://a/s2\": {\"http://a/pX\": [{\"type\": \"uri\", \"value\": \"http://a/o\"}]}}"},
		{"IRI value", first + "\"http://a/s2\": {\"http://a/p\": [{\"type\": \"uri\", \"value\": \"http://a/oX\"}]}}"},
		{"literal value", first + "\"http://a/s2\": {\"http://a/p\": [{\"type\": \"literal\", \"value\": \"é X\"}]}}"},
		{"literal after escape", first + "\"http://a/s2\": {\"http://a/p\": [{\"type\": \"literal\", \"value\": \"\\u00e9\\nX\"}]}}"},
		{"language", first + "\"http://a/s2\": {\"http://a/p\": [{\"type\": \"literal\", \"value\": \"a\", \"lang\": \"enX\"}]}}"},
		{"datatype", first + "\"http://a/s2\": {\"http://a/p\": [{\"type\": \"literal\", \"value\": \"a\", \"datatype\": \"http://a/dX\"}]}}"},
		{"type", first + "\"http://a/s2\": {\"http://a/p\": [{\"type\": \"uriX\", \"value\": \"http://a/o\"}]}}"},
		{"between tokens", first + "\"http://a/s2\": X{}}"},
		{"after the document", first + "\"http://a/s2\": {}}\nX"},
	}
	for _, pl := range places {
		for _, bad := range badUTF8 {
			at := strings.Index(pl.doc, "X")
			wantLine := 1 + strings.Count(pl.doc[:at], "\n")
			wantCol := 1 + utf8.RuneCountInString(pl.doc[strings.LastIndex(pl.doc[:at], "\n")+1:at])
			in := strings.Replace(pl.doc, "X", bad.b, 1)
			for _, oneByte := range []bool{false, true} {
				var r io.Reader = strings.NewReader(in)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				d := rdfjson.NewDecoder(r, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")})
				var got []rdf.Quad
				var err error
				for err == nil {
					var q rdf.Quad
					if q, err = d.Next(); err == nil {
						got = append(got, q)
					}
				}
				var se *rdf.SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("%s, %s: got %v after %v, want a syntax error", pl.name, bad.name, err, got)
				}
				if se.Syntax != "rdf-json" || se.Line != wantLine || se.Column != wantCol || !strings.Contains(se.Msg, "UTF-8") {
					t.Errorf("%s, %s (one byte reads: %v): got %v, want rdf-json at line %d, column %d naming UTF-8",
						pl.name, bad.name, oneByte, err, wantLine, wantCol)
				}
				if oneByte && (len(got) != 1 || got[0].O.Value != "Übersicht ✓") {
					t.Errorf("%s, %s: triples before the error: %v, want the first one", pl.name, bad.name, got)
				}
			}
		}
	}
}
