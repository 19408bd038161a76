package ntriples_test

import (
	"testing"

	"github.com/ldhub/ldhub/content/rdf/rdftest"
)

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
		syntax := "n-triples"
		if pl.quads {
			syntax = "n-quads"
		}
		for _, c := range rdftest.Cases(head + pl.doc) {
			got, err := decodeAll(t, pl.quads, c.In)
			rdftest.CheckError(t, pl.name, syntax, c, got, err)
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
