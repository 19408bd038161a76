package rdfjson_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/rdfjson"
)

// FuzzDecode checks that no input panics, that every error is positioned, that what decodes re-encodes, and that
// nothing that is not UTF-8 decodes.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"http://x/s": {"http://x/p": [{"type": "literal", "value": "v", "lang": "en"}]}}`,
		`{"_:a": {"http://x/p": [{"type": "bnode", "value": "_:a"}, {"type": "uri", "value": "x"}]}}`, "{\n\"a\": 1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		d := rdfjson.NewDecoder(bytes.NewReader(doc), rdf.DecodeOptions{Base: "http://example.org/"})
		enc := rdfjson.NewEncoder(io.Discard, rdf.EncodeOptions{})
		for {
			q, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				var se *rdf.SyntaxError
				if errors.As(err, &se) && (se.Line < 1 || se.Column < 1) {
					t.Fatalf("unpositioned error %v", err)
				}
				return
			}
			if err := enc.Encode(q); err != nil {
				t.Fatalf("decoded %v cannot be encoded: %v", q, err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(doc) {
			t.Fatalf("accepted a document that is not UTF-8: %q", doc)
		}
	})
}
