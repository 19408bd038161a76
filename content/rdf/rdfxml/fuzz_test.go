package rdfxml_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

// FuzzDecode checks that any input either decodes or fails with a *rdf.SyntaxError (never a panic or another
// error), and that whatever decodes survives a round trip through both encoders.
func FuzzDecode(f *testing.F) {
	f.Add(header + `<rdf:Description rdf:about="http://example.org/s"><ex:p>x</ex:p></rdf:Description></rdf:RDF>`)
	f.Add(billionLaughs())
	{
		files, _ := filepath.Glob(filepath.Join(conformance.SuitesDir(f), "rdf/rdf11/rdf-xml/*/*.rdf"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		o := rdf.DecodeOptions{Base: "http://example.org/base/doc", Limits: rdf.Limits{MaxDepth: 64, MaxLiteralSize: 1 << 16}}
		got, err := decodeString(src, o)
		if err != nil {
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a *rdf.SyntaxError: %v", err)
			}
			if se.Line <= 0 || se.Column <= 0 {
				t.Fatalf("syntax error without a position: %v", se)
			}
			return
		}
		if !utf8.ValidString(src) && !strings.Contains(src, "encoding") {
			t.Fatalf("accepted input that is not UTF-8 and declares no other encoding")
		}
		var buf bytes.Buffer
		e := rdfxml.NewEncoder(&buf, rdf.EncodeOptions{Base: o.Base})
		for _, q := range got {
			if err := e.Encode(q); err != nil {
				t.Fatalf("Encode(%v): %v", q, err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		back, err := decodeString(buf.String(), rdf.DecodeOptions{})
		if err != nil {
			t.Fatalf("re-reading the encoder's output: %v\n%s", err, buf.String())
		}
		if !iso.Isomorphic(got, back) {
			t.Fatalf("round trip differs:\n%s\n%s", iso.Diff(back, got), buf.String())
		}
		// The stream encoder (the pipeline's, for large dumps) must round-trip the same statements.
		buf.Reset()
		se := rdfxml.NewStreamEncoder(&buf, rdf.EncodeOptions{Base: o.Base})
		for _, q := range got {
			if err := se.Encode(q); err != nil {
				t.Fatalf("stream Encode(%v): %v", q, err)
			}
		}
		if err := se.Close(); err != nil {
			t.Fatal(err)
		}
		if back, err = decodeString(buf.String(), rdf.DecodeOptions{}); err != nil {
			t.Fatalf("re-reading the stream encoder's output: %v\n%s", err, buf.String())
		}
		if !iso.Isomorphic(got, back) {
			t.Fatalf("stream round trip differs:\n%s\n%s", iso.Diff(back, got), buf.String())
		}
	})
}
