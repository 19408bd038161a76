package validator_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store/validator"
)

// TestNTriplesVerdictsAreTheDecoders checks that N-Triples and N-Quads, which the validator reads through the
// decoder's zero-copy reader, get exactly the verdict and the error that the decoder's Next gives.
func TestNTriplesVerdictsAreTheDecoders(t *testing.T) {
	limits := rdf.Limits{MaxLiteralSize: 64}
	v := validator.Codec(codec.Default(), limits)
	good := "<http://example.org/a> <http://example.org/b> \"x\"@en .\n_:b1 <http://example.org/b> _:b1 .\n# comment\n"
	docs := []string{
		"",
		good,
		good + "<http://example.org/a> <http://example.org/b> .\n",
		good + "<rel> <http://example.org/b> \"x\" .\n",
		good + "<http://example.org/a> <http://example.org/b> \"\xff\" .\n",
		good + "<http://example.org/a> <http://example.org/b> \"" + strings.Repeat("x", 65) + "\" .\n",
		good + "<http://example.org/" + strings.Repeat("x", 65) + "> <http://example.org/b> \"x\" .\n",
		good + "<http://example.org/a> <http://example.org/b> \"x\" <http://example.org/g> .\n",
		good + "<http://example.org/a> <http://example.org/b> \"x\"^^<http://example.org/dt> . # end\n",
	}
	for _, ext := range []string{".nt", ".nq"} {
		syn, _ := codec.Default().ByPath("x" + ext)
		for _, doc := range docs {
			var want error
			dec := syn.NewDecoder(bytes.NewReader([]byte(doc)), rdf.DecodeOptions{Base: "https://ldhub.invalid/validate/x" + ext, Blanks: rdf.NewBlankNodes("v"), Limits: limits})
			for {
				if _, err := dec.Next(); err != nil {
					if !errors.Is(err, io.EOF) {
						want = err
					}
					break
				}
			}
			got := v(context.Background(), "x"+ext, []byte(doc))
			if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
				t.Errorf("%s %q: validator says %v, the decoder %v", ext, doc, got, want)
			}
		}
	}
}
