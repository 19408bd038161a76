package jsonld_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
)

// FuzzDecode checks that no input makes the decoder panic or hang, and that errors are SyntaxErrors or carry
// context. Seeds are the W3C toRdf inputs when the suites are present.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"@context": {"a": {"@id": "http://x/", "@context": {"b": null}}}, "a": {"b": 1}}`,
		`{"@id": "_:x", "http://x/p": {"@list": [{"@list": []}]}}`, `{"@graph": [{"@id": "x", "@reverse": {"p": "y"}}]}`} {
		f.Add([]byte(s))
	}
	if files, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "testsuites", "json-ld", "toRdf", "*-in.jsonld")); len(files) > 0 {
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
		if _, err := readAll(d); err == nil {
			_ = d.Prefixes()
		}
	})
}
