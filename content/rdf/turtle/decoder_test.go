package turtle

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// decodeAll returns the quads of src as N-Quads lines.
func decodeAll(t *testing.T, dec *Decoder) ([]string, error) {
	t.Helper()
	var out []string
	for {
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q.String())
	}
}

func opts() rdf.DecodeOptions {
	return rdf.DecodeOptions{Base: "http://ex/base/doc", Blanks: rdf.NewBlankNodes("")}
}

func TestDecodeTurtle(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"simple", `<a> <b> <c> .`, []string{`<http://ex/base/a> <http://ex/base/b> <http://ex/base/c> .`}},
		{"prefix and a", "@prefix p: <http://p/> .\np:s a p:C ; p:q 1, 2.5, -3e2, true .", []string{
			`<http://p/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://p/C> .`,
			`<http://p/s> <http://p/q> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
			`<http://p/s> <http://p/q> "2.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .`,
			`<http://p/s> <http://p/q> "-3e2"^^<http://www.w3.org/2001/XMLSchema#double> .`,
			`<http://p/s> <http://p/q> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .`,
		}},
		{"sparql prefix, escapes", "PREFIX p: <http://p/>\np:a\\~b p:q 'x\\n\\u00e9'@en-GB .", []string{
			`<http://p/a~b> <http://p/q> "x\né"@en-GB .`,
		}},
		{"long string", "<s> <p> \"\"\"a\n\"b\"\"\" .", []string{
			`<http://ex/base/s> <http://ex/base/p> "a\n\"b" .`,
		}},
		{"bnodes and list", "_:x <p> [ <q> ( 1 [] ) ] .", []string{
			`_:b1 <http://ex/base/p> _:b2 .`,
			`_:b2 <http://ex/base/q> _:b3 .`,
			`_:b3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
			`_:b3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:b4 .`,
			`_:b4 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> _:b5 .`,
			`_:b4 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
		}},
		{"bnode subject list", "[ <p> <o> ] . [ <p> () ] <q> 1.", []string{
			`_:b1 <http://ex/base/p> <http://ex/base/o> .`,
			`_:b2 <http://ex/base/p> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
			`_:b2 <http://ex/base/q> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
		}},
		{"base", "@base <http://o/x/> . <a> <b> <../c> . BASE <y/> <a> <b> <#c> .", []string{
			`<http://o/x/a> <http://o/x/b> <http://o/c> .`,
			`<http://o/x/y/a> <http://o/x/y/b> <http://o/x/y/#c> .`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAll(t, NewDecoder(strings.NewReader(tc.in), opts()))
			if err != nil {
				t.Fatalf("error: %v (got %q)", err, got)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
