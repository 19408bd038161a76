package turtle_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

// collect decodes everything and returns the quads and the final error (nil at a clean end).
func collect(d rdf.Decoder) ([]rdf.Quad, error) {
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

// TestChunkBoundaries decodes every suite file twice, once whole and once a byte per read, and requires the same
// quads and the same error (with its position): the window must never cut a token wrongly.
func TestChunkBoundaries(t *testing.T) {
	dir := conformance.SuitesDir(t)
	for _, sub := range []string{"rdf/rdf11/rdf-turtle", "rdf/rdf11/rdf-trig"} {
		files, err := filepath.Glob(filepath.Join(dir, sub, "*.t*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no files in %s: %v", sub, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			newDec := turtle.NewDecoder
			if filepath.Ext(f) == ".trig" {
				newDec = turtle.NewTriGDecoder
			}
			o := func() rdf.DecodeOptions {
				return rdf.DecodeOptions{Base: "http://example.org/" + filepath.Base(f), Blanks: rdf.NewBlankNodes("")}
			}
			whole, werr := collect(newDec(bytes.NewReader(data), o()))
			bytewise, berr := collect(newDec(iotest.OneByteReader(bytes.NewReader(data)), o()))
			if !reflect.DeepEqual(whole, bytewise) || !reflect.DeepEqual(werr, berr) {
				t.Errorf("%s: whole and byte-wise decoding differ:\n%v %v\n%v %v", f, whole, werr, bytewise, berr)
			}
		}
	}
}

// TestReadError checks that a failing reader surfaces as that error, not as a syntax error.
func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := io.MultiReader(bytes.NewReader([]byte("<a> <b> <c> .\n<a> <b> ")), iotest.ErrReader(boom))
	_, err := collect(turtle.NewDecoder(r, rdf.DecodeOptions{Base: "http://x/"}))
	var se *rdf.SyntaxError
	if !errors.Is(err, boom) || errors.As(err, &se) {
		t.Fatalf("got %v, want the read error", err)
	}
}
