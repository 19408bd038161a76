package turtleenc_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/turtle"
	"github.com/ldhub/ldhub/content/rdf/turtleenc"
)

// unrelatedBase is what output written without a base is read back against: an IRI that occurs in no test data,
// so an IRI we wrote relative by mistake shows up as a difference.
const unrelatedBase = "http://unrelated.invalid/dir/doc"

func decodeFile(path string, newDec func(io.Reader, rdf.DecodeOptions) rdf.Decoder) ([]rdf.Quad, rdf.Decoder, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	d := newDec(f, rdf.DecodeOptions{Base: conformance.W3CBase(path), Blanks: rdf.NewBlankNodes("")})
	qs, err := conformance.ReadAll(d)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, d, nil
}

// roundTrip encodes qs, decodes the output with our Turtle/TriG decoder and reports why it is not the same
// dataset, or "". It returns the output too, for the checks that look at the text.
func roundTrip(qs []rdf.Quad, trig bool, o rdf.EncodeOptions) (string, string) {
	var buf bytes.Buffer
	if why := encodeTo(&buf, qs, trig, o); why != "" {
		return "", why
	}
	out := buf.String()
	base := o.Base
	if base == "" {
		base = unrelatedBase
	}
	do := rdf.DecodeOptions{Base: base, Blanks: rdf.NewBlankNodes("")}
	var d rdf.Decoder
	if trig {
		d = turtle.NewTriGDecoder(strings.NewReader(out), do)
	} else {
		d = turtle.NewDecoder(strings.NewReader(out), do)
	}
	got, err := conformance.ReadAll(d)
	if err != nil {
		return out, fmt.Sprintf("output does not parse: %v\n%s", err, excerpt(out, err))
	}
	if !iso.Isomorphic(got, qs) {
		return out, "read back differently:\n" + iso.Diff(got, qs) + "\noutput:\n" + out
	}
	return out, ""
}

// encodeTo writes qs to w and reports why it could not, or "".
func encodeTo(w io.Writer, qs []rdf.Quad, trig bool, o rdf.EncodeOptions) string {
	var e rdf.Encoder
	if trig {
		e = turtleenc.NewTriGEncoder(w, o)
	} else {
		e = turtleenc.NewEncoder(w, o)
	}
	for _, q := range qs {
		if err := e.Encode(q); err != nil {
			return fmt.Sprintf("Encode(%s): %v", q, err)
		}
	}
	if err := e.Close(); err != nil {
		return fmt.Sprintf("Close: %v", err)
	}
	return ""
}

// excerpt shows the lines around the position of a syntax error.
func excerpt(out string, err error) string {
	var se *rdf.SyntaxError
	if !errors.As(err, &se) || se.Line == 0 {
		if len(out) > 2000 {
			return out[:2000] + "…"
		}
		return out
	}
	lines := strings.Split(out, "\n")
	from, to := max(se.Line-4, 0), min(se.Line+2, len(lines))
	return strings.Join(lines[from:to], "\n")
}

// TestW3CTurtleRoundTrip writes the expected graph of every Turtle evaluation test, reads the output back and
// requires the same graph: once bare, once with the prefixes and base of the test's own input, which exercises
// prefixed names and relative IRIs on the names the suite authors chose to stress.
func TestW3CTurtleRoundTrip(t *testing.T) {
	runRoundTrip(t, "turtleenc round-trip (rdf-turtle eval)", "rdf/rdf11/rdf-turtle/manifest.ttl", "TestTurtleEval", false)
}

// TestW3CTriGRoundTrip does the same for TriG over the TriG evaluation tests' expected datasets.
func TestW3CTriGRoundTrip(t *testing.T) {
	runRoundTrip(t, "turtleenc round-trip (rdf-trig eval)", "rdf/rdf11/rdf-trig/manifest.ttl", "TestTrigEval", true)
}

func runRoundTrip(t *testing.T, suite, manifest, evalType string, trig bool) {
	dir := conformance.SuitesDir(t)
	m, err := conformance.LoadManifest(filepath.Join(dir, manifest))
	if err != nil {
		t.Fatal(err)
	}
	src := func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewDecoder(r, o) }
	expect := func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewDecoder(r, o) }
	if trig {
		src = func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return turtle.NewTriGDecoder(r, o) }
		expect = func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder { return ntriples.NewQuadDecoder(r, o) }
	}
	res := conformance.Result{Suite: suite}
	for _, tc := range m.Tests {
		if !tc.HasType(conformance.RDFT + evalType) {
			continue
		}
		want, _, err := decodeFile(conformance.LocalPath(tc.Result), expect)
		if err != nil {
			res.Fail(tc.Name, "expected result unreadable: "+err.Error())
			continue
		}
		_, d, err := decodeFile(conformance.LocalPath(tc.Action), src)
		if err != nil {
			res.Fail(tc.Name, "test input unreadable: "+err.Error())
			continue
		}
		withNames := rdf.EncodeOptions{Prefixes: d.(rdf.PrefixSource).Prefixes(), Base: d.(*turtle.Decoder).Base()}
		var why string
		for _, o := range []rdf.EncodeOptions{{}, withNames} {
			out, w := roundTrip(want, trig, o)
			if w != "" {
				why = fmt.Sprintf("with %d prefixes and base %q: %s", len(o.Prefixes), o.Base, w)
				break
			}
			if again, _ := roundTrip(want, trig, o); again != out {
				why = "two encodings of the same input differ"
				break
			}
		}
		if why != "" {
			res.Fail(tc.Name, why)
		} else {
			res.Passed++
		}
	}
	if res.Passed == 0 && len(res.Failed) == 0 {
		t.Fatalf("no %s tests found in %s", evalType, manifest)
	}
	conformance.Report(t, res)
}
