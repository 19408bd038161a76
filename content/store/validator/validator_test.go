package validator_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store/validator"
)

func TestCodec(t *testing.T) {
	v := validator.Codec(codec.Default(), rdf.Limits{})
	ctx := context.Background()
	for _, tc := range []struct {
		path, content string
		line, column  int // 0 0: valid
		other         bool
	}{
		{"core.ttl", "@prefix ex: <http://example.org/> .\nex:a ex:b <rel> .\n", 0, 0, false},
		{"core.nt", "<http://example.org/a> <http://example.org/b> \"x\" .\n", 0, 0, false},
		{"core.ttl", "@prefix ex: <http://example.org/> .\nex:a ex:b ex:c ;\n  ex:d \"unterminated .\n", 3, 0, false},
		{"core.nt", "<http://example.org/a> <http://example.org/b> .\n", 1, 0, false},
		{"core.rdf", "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description></rdf:RDF>", 1, 0, false},
		{"core.docx", "whatever", 0, 0, true},
	} {
		err := v(ctx, tc.path, []byte(tc.content))
		var se *rdf.SyntaxError
		switch {
		case tc.other:
			if err == nil || errors.As(err, &se) {
				t.Errorf("%s: %v, want a plain error", tc.path, err)
			}
		case tc.line == 0:
			if err != nil {
				t.Errorf("%s: %v", tc.path, err)
			}
		default:
			if !errors.As(err, &se) || se.Line != tc.line || se.Column == 0 {
				t.Errorf("%s %q: %v, want a syntax error on line %d", tc.path, tc.content, err, tc.line)
			}
		}
	}
}
