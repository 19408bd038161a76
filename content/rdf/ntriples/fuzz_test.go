package ntriples_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// FuzzDecode: any input either fails with a *rdf.SyntaxError (always so when it is not UTF-8) or decodes to statements that the encoder writes and
// the decoder reads back unchanged. It never panics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"<http://ex/s> <http://ex/p> <http://ex/o> .\n",
		"_:a <http://ex/p> \"x\\u00e9\\n\"@en-GB <http://ex/g> .\r\n",
		"<http://ex/s> <http://ex/p> \"1\"^^<http://ex/int> . # c\r",
		"_:a.b <http://ex/p> _:c.. \n",
		"<http://ex/\\U0001F600> <http://ex/p> \"\\\"\" .",
		"# only a comment",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := decodeQuads(in, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("f"), Limits: rdf.Limits{MaxLiteralSize: 1 << 16}})
		if err != nil {
			var se *rdf.SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("error %v is not a positioned *rdf.SyntaxError", err)
			}
			return
		}
		if !utf8.ValidString(in) {
			t.Fatalf("accepted input that is not UTF-8: %q", in)
		}
		var out strings.Builder
		enc := ntriples.NewQuadEncoder(&out, rdf.EncodeOptions{})
		for _, q := range qs {
			if err := enc.Encode(q); err != nil {
				t.Fatalf("decoded statement %v cannot be encoded: %v", q, err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		back, err := decodeQuads(out.String(), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("f")})
		if err != nil {
			t.Fatalf("re-reading %q: %v", out.String(), err)
		}
		if len(back) != len(qs) {
			t.Fatalf("%d statements became %d", len(qs), len(back))
		}
		// Labels are allocated in order of first use, so the second pass gives the very same ones.
		for i := range qs {
			if back[i] != qs[i] {
				t.Fatalf("statement %d: %v read back as %v", i, qs[i], back[i])
			}
		}
	})
}

func decodeQuads(in string, o rdf.DecodeOptions) ([]rdf.Quad, error) {
	d := ntriples.NewQuadDecoder(strings.NewReader(in), o)
	var out []rdf.Quad
	for {
		q, err := d.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
}
