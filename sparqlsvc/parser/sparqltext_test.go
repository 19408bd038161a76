package parser_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestSPARQLTextRoundTrip writes every query of the W3C syntax and evaluation suites back as text
// (algebra.QuerySyntax.SPARQL) and parses that text again: both must give the same algebra. This is what lets a
// rewritten query be handed to another SPARQL service with the meaning ldhub gave it.
func TestSPARQLTextRoundTrip(t *testing.T) {
	dir := conformance.SuitesDir(t)
	var n int
	for _, manifest := range []string{sparql10Root, sparql11Query, sparql11Fed} {
		m, err := conformance.LoadManifest(filepath.Join(dir, manifest))
		if err != nil {
			t.Fatal(err)
		}
		for _, test := range m.Tests {
			var path string
			switch {
			case test.HasType(mfPositive10), test.HasType(mfPositive11):
				path = conformance.LocalPath(test.Action)
			case test.HasType(mfQueryEval):
				path = conformance.LocalPath(m.Object(test.Action, qtQuery))
			}
			if path == "" {
				continue
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			base := conformance.W3CBase(path)
			syn, err := parser.ParseSyntax(string(text), parser.Options{Base: base})
			if err != nil {
				continue // the syntax runners report these
			}
			want, err := algebra.Translate(syn)
			if err != nil {
				continue
			}
			out := syn.SPARQL()
			again, err := parser.Parse(out, parser.Options{})
			if err != nil {
				t.Errorf("%s: the written query does not parse: %v\n%s", test.IRI, err, out)
				continue
			}
			if a, b := canonBlanks(algebra.FormatQuery(want)), canonBlanks(algebra.FormatQuery(again)); a != b {
				t.Errorf("%s: the algebra changed through the text\nwant %s\ngot  %s\ntext %s", test.IRI, a, b, out)
			}
			n++
		}
	}
	if n < 400 {
		t.Fatalf("only %d queries round-tripped; the suites were not found whole", n)
	}
	t.Logf("%d queries round-tripped", n)
}

var blankName = regexp.MustCompile(`_:[^\s()]+`)

// canonBlanks renames blank nodes (and the variables standing for them) in order of first appearance: the writer
// renames them, which changes nothing else.
func canonBlanks(s string) string {
	names := map[string]string{}
	return blankName.ReplaceAllStringFunc(s, func(m string) string {
		if c, ok := names[m]; ok {
			return c
		}
		c := "_:c" + strconv.Itoa(len(names))
		names[m] = c
		return c
	})
}
