package rdfjson_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/rdfjson"
	"github.com/ldhub/ldhub/content/rdf/rdftest"
)

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
		for _, c := range rdftest.Cases(pl.doc) {
			for _, oneByte := range []bool{false, true} {
				var r io.Reader = strings.NewReader(c.In)
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
				rdftest.CheckError(t, fmt.Sprintf("%s (one byte reads: %v)", pl.name, oneByte), "rdf-json", c, got, err)
				if oneByte && (len(got) != 1 || got[0].O.Value != "Übersicht ✓") {
					t.Errorf("%s, %s: triples before the error: %v, want the first one", pl.name, c.Bad.Name, got)
				}
			}
		}
	}
}
