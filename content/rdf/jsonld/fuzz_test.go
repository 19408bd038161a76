package jsonld_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
)

// FuzzDecode checks that no input makes the processor panic (the decoder recovers, so a panic shows as a
// "processor failed" error, which is a bug) or hang. Seeds are the W3C toRdf inputs when the suites are present.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"@context": {"a": {"@id": "http://x/", "@context": {"b": null}}}, "a": {"b": 1}}`,
		`{"@id": "_:x", "http://x/p": {"@list": [{"@list": []}]}}`, `{"@graph": [{"@id": "x", "@reverse": {"p": "y"}}]}`} {
		f.Add([]byte(s))
	}
	if files, _ := filepath.Glob(filepath.Join(conformance.SuitesDir(f), "json-ld", "toRdf", "*-in.jsonld")); len(files) > 0 {
		for _, p := range files[:min(len(files), 200)] {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	loader := jsonld.LoaderFunc(func(_ context.Context, url string) ([]byte, error) {
		return []byte(`{"@context": {"t": {"@id": "http://x/t", "@context": "` + url + `"}}}`), nil
	})
	f.Fuzz(func(t *testing.T, doc []byte) {
		d := jsonld.NewDecoderWith(bytes.NewReader(doc), rdf.DecodeOptions{Base: "http://example.org/doc", Limits: rdf.Limits{MaxDepth: 64}},
			jsonld.Config{Loader: loader})
		_, err := readAll(d)
		if err != nil && strings.Contains(err.Error(), "processor failed") {
			t.Fatal(err)
		}
		if err == nil && !utf8.Valid(doc) {
			t.Fatalf("accepted a document that is not UTF-8: %q", doc)
		}
		var se *rdf.SyntaxError
		if errors.As(err, &se) && jsonld.ErrorCode(err) != "" && se.Line == 0 {
			t.Fatalf("processing error without a position: %v", err)
		}
	})
}

// FuzzRoundTrip builds a dataset from the fuzz input out of a pool of awkward terms and checks that
// RDF → JSON-LD → RDF gives an isomorphic dataset, compacted and expanded.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 3, 4, 5, 1, 6, 7, 8, 2})
	f.Add([]byte{9, 0, 10, 3, 10, 11, 12, 0, 12, 11, 13, 0})
	resources := []rdf.Term{
		rdf.IRI("http://ex/s"), rdf.IRI("ex:s"), rdf.IRI("http://ex/"), rdf.IRI("urn:x"), rdf.IRI("http://ex/doc/a#b"),
		rdf.Blank("a"), rdf.Blank("b"), rdf.IRI(rdf.RDFNil), rdf.IRI("http://ex/doc/"),
	}
	predicates := []rdf.Term{
		rdf.IRI("http://ex/p"), rdf.IRI(rdf.RDFType), rdf.IRI(rdf.RDFFirst), rdf.IRI(rdf.RDFRest), rdf.IRI("ex:p"),
		rdf.IRI("http://schema.org/name"),
	}
	objects := append(append([]rdf.Term{}, resources...),
		rdf.String(""), rdf.String("@id"), rdf.LangString("x", "en-GB"), rdf.Literal("1", rdf.XSDInteger),
		rdf.Literal("1.0", rdf.XSDDouble), rdf.Literal("true", rdf.XSDBoolean), rdf.Literal("0", rdf.XSDBoolean),
		rdf.Literal("x", "http://ex/dt"), rdf.Literal(`{"a":1}`, rdf.RDFJSON), rdf.String("a\"b\\\n"))
	graphs := []rdf.Term{{}, {}, rdf.IRI("http://ex/g"), rdf.Blank("g"), rdf.IRI("http://ex/s")}
	f.Fuzz(func(t *testing.T, b []byte) {
		var quads []rdf.Quad
		for i := 0; i+3 < len(b) && len(quads) < 40; i += 4 {
			quads = append(quads, rdf.Quad{
				S: resources[int(b[i])%len(resources)],
				P: predicates[int(b[i+1])%len(predicates)],
				O: objects[int(b[i+2])%len(objects)],
				G: graphs[int(b[i+3])%len(graphs)],
			})
		}
		for _, cfg := range []jsonld.EncodeConfig{{}, {Expanded: true}} {
			out := encode(t, quads, rdf.EncodeOptions{Base: "http://ex/doc/", Prefixes: []rdf.Prefix{
				{Name: "ex", IRI: "http://ex/"}, {Name: "schema", IRI: "http://schema.org/"}}}, cfg)
			got, _, err := decode(t, out, rdf.DecodeOptions{Base: "http://ex/doc/"}, jsonld.Config{})
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !iso.Isomorphic(got, quads) {
				t.Fatalf("expanded=%v:\n%s\n%s", cfg.Expanded, iso.Diff(got, quads), out)
			}
		}
	})
}
