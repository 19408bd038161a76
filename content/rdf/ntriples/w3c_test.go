package ntriples_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// knownFailures lists W3C tests expected to fail, with the reason (docs/conformance.md). None today.
var knownFailures = map[string]string{}

// TestW3CNTriples runs the RDF 1.1 N-Triples suite: positive syntax tests must parse, negative ones must fail with
// a *rdf.SyntaxError.
func TestW3CNTriples(t *testing.T) {
	runSyntaxSuite(t, "n-triples", "rdf/rdf11/rdf-n-triples/manifest.ttl", "NTriples", 70, false)
}

// TestW3CNQuads runs the RDF 1.1 N-Quads suite.
func TestW3CNQuads(t *testing.T) {
	runSyntaxSuite(t, "n-quads", "rdf/rdf11/rdf-n-quads/manifest.ttl", "NQuads", 87, true)
}

func runSyntaxSuite(t *testing.T, suite, manifest, kind string, total int, quads bool) {
	m, err := conformance.LoadManifest(filepath.Join(conformance.SuitesDir(t), manifest))
	if err != nil {
		t.Fatal(err)
	}
	res := conformance.Result{Suite: suite, Known: knownFailures}
	for _, tc := range m.Tests {
		path := conformance.LocalPath(tc.Action)
		n, err := parseFile(path, quads)
		var why string
		switch {
		case tc.HasType(conformance.RDFT + "Test" + kind + "PositiveSyntax"):
			if err != nil {
				why = fmt.Sprintf("should parse: %v", err)
			}
		case tc.HasType(conformance.RDFT + "Test" + kind + "NegativeSyntax"):
			var se *rdf.SyntaxError
			switch {
			case err == nil:
				why = fmt.Sprintf("parsed %d statements, but should be rejected", n)
			case !errors.As(err, &se):
				why = fmt.Sprintf("rejected without a *rdf.SyntaxError: %v", err)
			}
		default:
			why = fmt.Sprintf("unknown test type %v", tc.Types)
		}
		if why != "" {
			res.Fail(tc.Name, why)
		} else {
			res.Passed++
		}
	}
	if got := res.Passed + len(res.Failed); got != total {
		t.Errorf("ran %d tests, the manifest has %d", got, total)
	}
	conformance.Report(t, res)
}

func parseFile(path string, quads bool) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	o := rdf.DecodeOptions{Base: conformance.W3CBase(path)}
	var d rdf.Decoder
	if quads {
		d = ntriples.NewQuadDecoder(f, o)
	} else {
		d = ntriples.NewDecoder(f, o)
	}
	n := 0
	for {
		if _, err := d.Next(); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n++
	}
}
