package turtle_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

type newDecoder func(io.Reader, rdf.DecodeOptions) rdf.Decoder

// runSuite runs one W3C syntax suite: positive syntax tests must parse, negative ones must fail with a
// *rdf.SyntaxError, and eval tests must give a graph isomorphic to the expected N-Triples/N-Quads.
func runSuite(t *testing.T, suite, manifest, prefix string, dec newDecoder, expect newDecoder, known map[string]string) {
	dir := conformance.SuitesDir(t)
	m, err := conformance.LoadManifest(filepath.Join(dir, manifest))
	if err != nil {
		t.Fatal(err)
	}
	res := conformance.Result{Suite: suite, Known: known}
	for _, tc := range m.Tests {
		var why string
		switch {
		case tc.HasType(conformance.RDFT + prefix + "PositiveSyntax"):
			_, err := parseFile(conformance.LocalPath(tc.Action), dec)
			if err != nil {
				why = fmt.Sprintf("should parse: %v", err)
			}
		case tc.HasType(conformance.RDFT + prefix + "NegativeSyntax"), tc.HasType(conformance.RDFT + prefix + "NegativeEval"):
			_, err := parseFile(conformance.LocalPath(tc.Action), dec)
			var se *rdf.SyntaxError
			switch {
			case err == nil:
				why = "parsed, but should be rejected"
			case !errors.As(err, &se):
				why = fmt.Sprintf("rejected without a *rdf.SyntaxError: %v", err)
			case se.Line == 0 || se.Column == 0:
				why = fmt.Sprintf("syntax error without a position: %v", err)
			}
		case tc.HasType(conformance.RDFT + prefix + "Eval"):
			got, err := parseFile(conformance.LocalPath(tc.Action), dec)
			if err != nil {
				why = fmt.Sprintf("should parse: %v", err)
				break
			}
			want, err := parseFile(conformance.LocalPath(tc.Result), expect)
			if err != nil {
				why = fmt.Sprintf("expected result unreadable: %v", err)
				break
			}
			if !iso.Isomorphic(got, want) {
				why = "not isomorphic to the expected result:\n" + iso.Diff(got, want)
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
	conformance.Report(t, res)
}

// parseFile decodes a suite file with its published IRI as base (mf:assumedTestBase plus the file name).
func parseFile(path string, dec newDecoder) ([]rdf.Quad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := dec(f, rdf.DecodeOptions{Base: conformance.W3CBase(path), Blanks: rdf.NewBlankNodes("")})
	var out []rdf.Quad
	for {
		q, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q)
	}
}

func TestW3CTurtle(t *testing.T) {
	runSuite(t, "rdf-turtle", "rdf/rdf11/rdf-turtle/manifest.ttl", "TestTurtle",
		func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewDecoder(r, o) },
		func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewDecoder(r, o) },
		nil)
}

func TestW3CTriG(t *testing.T) {
	runSuite(t, "rdf-trig", "rdf/rdf11/rdf-trig/manifest.ttl", "TestTrig",
		func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewTriGDecoder(r, o) },
		func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewQuadDecoder(r, o) },
		nil)
}
