package ntriples_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// badUTF8 are byte sequences that are not UTF-8: stray and truncated bytes, overlong forms, UTF-16 surrogates
// encoded as if they were characters, and code points beyond U+10FFFF.
var badUTF8 = []struct{ name, b string }{
	{"byte ff", "\xff"},
	{"lone continuation", "\x80"},
	{"truncated 2-byte", "\xc3"},
	{"truncated 3-byte", "\xe2\x82"},
	{"overlong slash", "\xc0\xaf"},
	{"overlong 3-byte", "\xe0\x80\xaf"},
	{"overlong 4-byte", "\xf0\x80\x80\xaf"},
	{"high surrogate", "\xed\xa0\x80"},
	{"low surrogate", "\xed\xbf\xbf"},
	{"above U+10FFFF", "\xf4\x90\x80\x80"},
}

// TestInvalidUTF8 puts each bad sequence (at X) in every kind of token, in comments and between tokens: each must
// be a syntax error naming UTF-8 at the first bad byte. The first line, a comment with valid non-ASCII characters,
// checks that lines and characters are counted, not bytes.
func TestInvalidUTF8(t *testing.T) {
	places := []struct {
		name  string
		quads bool
		doc   string
	}{
		{"subject IRI", false, "<http://a/X> <http://a/p> <http://a/o> ."},
		{"predicate IRI", false, "<http://a/s> <http://a/pX> <http://a/o> ."},
		{"IRI after escape", false, "<http://a/s> <http://a/p> <http://a/\\u00e9X> ."},
		{"blank node label", false, "_:bX <http://a/p> <http://a/o> ."},
		{"blank node label start", false, "_:X <http://a/p> <http://a/o> ."},
		{"object blank node label", false, "<http://a/s> <http://a/p> _:oéX ."},
		{"string", false, "<http://a/s> <http://a/p> \"aX\" ."},
		{"string after escape", false, "<http://a/s> <http://a/p> \"a\\nX\" ."},
		{"language tag", false, "<http://a/s> <http://a/p> \"a\"@enX ."},
		{"datatype IRI", false, "<http://a/s> <http://a/p> \"a\"^^<http://a/dX> ."},
		{"graph IRI", true, "<http://a/s> <http://a/p> <http://a/o> <http://a/gX> ."},
		{"comment line", false, "# cX\n<http://a/s> <http://a/p> <http://a/o> ."},
		{"indented comment line", false, "<http://a/s> <http://a/p> <http://a/o> .\n\t# X"},
		{"comment after statement", false, "<http://a/s> <http://a/p> <http://a/o> . # cX"},
		{"comment after quad", true, "<http://a/s> <http://a/p> <http://a/o> <http://a/g> .#X"},
		{"between tokens", false, "<http://a/s> <http://a/p> <http://a/o> X."},
		{"line start", false, "X<http://a/s> <http://a/p> <http://a/o> ."},
	}
	const head = "# Übersicht ✓\n"
	for _, pl := range places {
		for _, bad := range badUTF8 {
			doc := head + pl.doc
			at := strings.Index(doc, "X")
			wantLine := 1 + strings.Count(doc[:at], "\n")
			wantCol := 1 + utf8.RuneCountInString(doc[strings.LastIndex(doc[:at], "\n")+1:at])
			got, err := decodeAll(t, pl.quads, strings.Replace(doc, "X", bad.b, 1))
			syntax := "n-triples"
			if pl.quads {
				syntax = "n-quads"
			}
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%s, %s: got %v after %v, want a syntax error", pl.name, bad.name, err, got)
			}
			if se.Syntax != syntax || se.Line != wantLine || se.Column != wantCol || !strings.Contains(se.Msg, "UTF-8") {
				t.Errorf("%s, %s: got %v, want %s at line %d, column %d naming UTF-8", pl.name, bad.name, err, syntax, wantLine, wantCol)
			}
		}
	}
}

// TestCommentsWithValidNonASCII keeps the comment check from refusing real text.
func TestCommentsWithValidNonASCII(t *testing.T) {
	in := "# Übersicht ✓ \uFFFD \U0001F600\n<http://a/s> <http://a/p> <http://a/o> . # ∀x \U000EFFFF\n"
	got, err := decodeAll(t, false, in)
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v; want one triple", got, err)
	}
}
