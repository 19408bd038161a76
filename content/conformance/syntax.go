package conformance

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
)

// NewDecoder opens a decoder of one syntax.
type NewDecoder func(io.Reader, rdf.DecodeOptions) rdf.Decoder

// SyntaxSuite describes one W3C RDF syntax suite (Turtle, TriG, N-Triples, N-Quads, RDF/XML). Test types are
// rdft:<TypePrefix>PositiveSyntax, …NegativeSyntax, …NegativeEval and …Eval.
type SyntaxSuite struct {
	Suite      string // name in the score line
	Manifest   string // path below SuitesDir
	TypePrefix string // e.g. "TestTurtle", "TestXML"
	Decode     NewDecoder
	Expect     NewDecoder // reads the expected N-Triples/N-Quads of eval tests
	Known      map[string]string
	Total      int // when set, the number of tests the manifest must hold
}

// RunSyntaxSuite runs s: positive syntax tests must parse; negative ones must fail with a *rdf.SyntaxError that
// carries a line and column; eval tests must give a dataset isomorphic to the expected one.
func RunSyntaxSuite(t *testing.T, s SyntaxSuite) {
	t.Helper()
	m, err := LoadManifest(filepath.Join(SuitesDir(t), s.Manifest))
	if err != nil {
		t.Fatal(err)
	}
	res := Result{Suite: s.Suite, Known: s.Known}
	for _, tc := range m.Tests {
		var why string
		switch p := RDFT + s.TypePrefix; {
		case tc.HasType(p + "PositiveSyntax"):
			if _, err := ParseFile(LocalPath(tc.Action), s.Decode); err != nil {
				why = fmt.Sprintf("should parse: %v", err)
			}
		case tc.HasType(p + "NegativeSyntax"), tc.HasType(p + "NegativeEval"):
			got, err := ParseFile(LocalPath(tc.Action), s.Decode)
			var se *rdf.SyntaxError
			switch {
			case err == nil:
				why = fmt.Sprintf("parsed %d statements, but should be rejected", len(got))
			case !errors.As(err, &se):
				why = fmt.Sprintf("rejected without a *rdf.SyntaxError: %v", err)
			case se.Line == 0 || se.Column == 0:
				why = fmt.Sprintf("syntax error without a position: %v", err)
			}
		case tc.HasType(p + "Eval"):
			got, err := ParseFile(LocalPath(tc.Action), s.Decode)
			if err != nil {
				why = fmt.Sprintf("should parse: %v", err)
				break
			}
			want, err := ParseFile(LocalPath(tc.Result), s.Expect)
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
	if got := res.Passed + len(res.Failed); s.Total > 0 && got != s.Total {
		t.Errorf("%s: ran %d tests, the manifest has %d", s.Suite, got, s.Total)
	}
	Report(t, res)
}

// ParseFile decodes a suite file with its published IRI as base (W3CBase), reading every statement.
func ParseFile(path string, dec NewDecoder) ([]rdf.Quad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(dec(f, rdf.DecodeOptions{Base: W3CBase(path), Blanks: rdf.NewBlankNodes("")}))
}

// Drain reads d to its end without keeping the statements (a benchmark's reader), and counts them; on an error
// it returns the count before it.
func Drain(d rdf.Decoder) (int, error) {
	n := 0
	for {
		_, err := d.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// ReadAll collects every statement of d; on an error it returns what came before it.
func ReadAll(d rdf.Decoder) ([]rdf.Quad, error) {
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
