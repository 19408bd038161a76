package jsonld_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
	"github.com/ldhub/ldhub/content/rdf/rdftest"
)

// TestProcessorErrorPositions: a JSON-LD processing error names the JSON value that caused it by line, column and
// path. want is where that value starts: the first occurrence of mark after the first occurrence of after.
func TestProcessorErrorPositions(t *testing.T) {
	graph := "{\"@context\": {\"ex\": \"http://ex/\"},\n \"@graph\": [\n" +
		"  {\"@id\": \"ex:a\", \"ex:p\": \"Übersicht ✓\"},\n  {\"@id\": \"ex:b\", \"ex:p\": 2},\n  {\"@id\": \"ex:c\", \"ex:p\": 3},\n" +
		"  {\"ex:p\": \"€\", \"@id\": true}\n ]}"
	tests := []struct {
		name, doc   string
		loader      jsonld.Loader
		after, mark string
		code, path  string
		mode        string
	}{
		{"@id in the fourth node of @graph", graph, nil, "", "true", "invalid @id value", "@graph[3].@id", ""},
		{"top-level array", `[{"@id": "http://ex/a"}, {"@id": 5}]`, nil, "", "5}", "invalid @id value", "[1].@id", ""},
		{"nested node", `{"@id": "http://ex/s", "http://ex/p": {"http://ex/q": [{"@id": "http://ex/x"}, {"@id": {}}]}}`, nil,
			"", "{}}", "invalid @id value", `["http://ex/p"]["http://ex/q"][1].@id`, ""},
		{"escaped key", `{"http:\/\/ex\/p": {"@id": 5}}`, nil, "", "5}", "invalid @id value", `["http://ex/p"].@id`, ""},
		{"duplicate key: the last one counts", `{"@id": "http://ex/a", "@id": 5, "http://ex/p": 1}`, nil, "", "5,", "invalid @id value", "@id", ""},
		{"@type", `{"@id": "http://ex/s", "@type": 5}`, nil, "", "5}", "invalid type value", "@type", ""},
		{"@type in an array", `{"@id": "http://ex/s", "@type": ["http://ex/T", 5]}`, nil, "", "[\"http", "invalid type value", "@type", ""},
		{"value object on its own line", "{\"@id\": \"http://ex/s\",\n  \"http://ex/p\": [\"ok\",\n    {\"@value\": \"äöü €\", \"@type\": 5}]}", nil,
			"ok", "5}", "invalid type value", `["http://ex/p"][1].@type`, ""},
		{"language tag", `{"http://ex/p": {"@value": "x", "@language": 5}}`, nil, "", "5}", "invalid language-tagged string", `["http://ex/p"].@language`, ""},
		{"@reverse", `{"@id": "http://ex/a", "@reverse": 5}`, nil, "", "5}", "invalid @reverse value", "@reverse", ""},
		{"unknown key in a value object", `{"http://ex/p": [{"@value": "x", "http://ex/q": 1}]}`, nil, "", `{"@value`,
			"invalid value object", `["http://ex/p"][0]`, ""},
		{"top level", `{"@value": "x", "http://ex/q": 1}`, nil, "", `{`, "invalid value object", "the top level", ""},
		{"@vocab in the second context", `{"@context": [{"ex": "http://ex/"}, {"@vocab": 5}], "ex:p": 1}`, nil, "", "5}",
			"invalid vocab mapping", "@context[1].@vocab", ""},
		{"term definition", `{"@context": {"ok": "http://ex/ok", "p": {"@id": 5}}, "p": 1}`, nil, "\"p\"", "{", "invalid IRI mapping", "@context.p", ""},
		{"@version", `{"@context": {"@version": 1.0}, "http://ex/p": 1}`, nil, "", "1.0", "invalid @version value", "@context.@version", ""},
		{"context of a nested node", `{"http://ex/p": {"@context": {"@language": 5}, "http://ex/q": "x"}}`, nil, "", "5}",
			"invalid default language", `["http://ex/p"].@context.@language`, ""},
		{"error inside a remote context: at the reference", `{"@context": ["http://ex/ok", "http://ex/bad"], "p": 1}`,
			contexts(map[string]string{"http://ex/ok": `{"@context": {}}`, "http://ex/bad": `{"@context": {"@vocab": 5}}`}),
			"", "\"http://ex/bad", "invalid vocab mapping", "@context[1]", ""},
		{"@nest", `{"@context": {"@vocab": "http://ex/", "n": "@nest"}, "n": {"p": {"@id": 7}}}`, nil, "", "7}", "invalid @id value", "n.p.@id", ""},
		{"index map with a lone value", `{"@context": {"@vocab": "http://ex/", "m": {"@container": "@index"}}, "m": {"k1": {"@id": "http://ex/a"}, "k2": {"@id": 9}}}`,
			nil, "", "9}", "invalid @id value", "m.k2.@id", ""},
		{"language map", `{"@context": {"@vocab": "http://ex/", "l": {"@container": "@language"}}, "l": {"en": 5}}`, nil, `}}, "l":`, "{\"en",
			"invalid language map value", "l", ""},
		{"1.1 keyword in 1.0 mode", `{"@context": {"@version": 1.1}, "http://ex/p": 1}`, nil, "", "1.1", "processing mode conflict", "@context.@version", jsonld.JSONLD10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := strings.Index(tt.doc, tt.after)
			at := start + strings.Index(tt.doc[start:], tt.mark)
			if start < 0 || at < start {
				t.Fatalf("bad test: %q not in the document", tt.mark)
			}
			wantLine := 1 + strings.Count(tt.doc[:at], "\n")
			wantCol := 1 + utf8.RuneCountInString(tt.doc[strings.LastIndex(tt.doc[:at], "\n")+1:at])
			_, _, err := decode(t, tt.doc, rdf.DecodeOptions{}, jsonld.Config{Loader: tt.loader, ProcessingMode: tt.mode})
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a SyntaxError", err)
			}
			if se.Syntax != "json-ld" || se.Line != wantLine || se.Column != wantCol {
				t.Errorf("got %q at line %d, column %d; want line %d, column %d", se.Msg, se.Line, se.Column, wantLine, wantCol)
			}
			if code := jsonld.ErrorCode(err); code != tt.code {
				t.Errorf("error code %q, want %q", code, tt.code)
			}
			if !strings.HasPrefix(se.Msg, tt.code+" at "+tt.path+":") && se.Msg != tt.code+" at "+tt.path {
				t.Errorf("message %q does not name the path %s", se.Msg, tt.path)
			}
		})
	}
}

// contexts serves remote documents from memory.
func contexts(docs map[string]string) jsonld.Loader {
	return jsonld.LoaderFunc(func(_ context.Context, url string) ([]byte, error) {
		if d, ok := docs[url]; ok {
			return []byte(d), nil
		}
		return nil, jsonld.ErrRemoteRefused
	})
}

// TestInvalidUTF8: encoding/json would turn bytes that are not UTF-8 into U+FFFD silently; each must be a syntax
// error at the first bad byte.
func TestInvalidUTF8(t *testing.T) {
	for _, doc := range []string{
		"{\"@id\": \"http://ex/s\",\n \"http://ex/p\": \"é X\"}",
		"{\"@id\": \"http://ex/s\",\n \"http://ex/pX\": \"é\"}",
		"{\"@context\": {\"é\": \"http://ex/X\"},\n \"@id\": \"http://ex/s\"}",
		"{\"@id\": \"http://ex/s\"}\nX",
	} {
		for _, c := range rdftest.Cases(doc) {
			_, _, err := decode(t, c.In, rdf.DecodeOptions{}, jsonld.Config{})
			var se *rdf.SyntaxError
			if !errors.As(err, &se) || se.Line != c.Line || se.Column != c.Column || !strings.Contains(se.Msg, "UTF-8") {
				t.Errorf("%q in %q: got %v, want a UTF-8 error at line %d, column %d", c.Bad.Bytes, doc, err, c.Line, c.Column)
			}
		}
	}
}
