// Package rdftest holds what the tests of several RDF syntaxes share. Only tests import it.
package rdftest

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// Bad is a byte sequence that is not UTF-8.
type Bad struct{ Name, Bytes string }

// BadUTF8 are byte sequences that are not UTF-8: stray and truncated bytes, overlong forms, UTF-16 surrogates
// encoded as if they were characters, and code points beyond U+10FFFF. Every decoder must refuse each of them
// wherever it stands, so the list lives here once rather than drift apart in each syntax's tests.
var BadUTF8 = []Bad{
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

// Case is a document with one bad sequence and where the error about it must point.
type Case struct {
	Bad          Bad
	In           string
	Line, Column int // of the sequence's first byte, in lines and characters (not bytes), from 1
}

// Cases puts each of BadUTF8 at the first "X" of doc, which must have one.
func Cases(doc string) []Case {
	at := strings.Index(doc, "X")
	if at < 0 {
		panic("rdftest.Cases: no X in " + doc)
	}
	line := 1 + strings.Count(doc[:at], "\n")
	col := 1 + utf8.RuneCountInString(doc[strings.LastIndex(doc[:at], "\n")+1:at])
	cases := make([]Case, len(BadUTF8))
	for i, bad := range BadUTF8 {
		cases[i] = Case{Bad: bad, In: strings.Replace(doc, "X", bad.Bytes, 1), Line: line, Column: col}
	}
	return cases
}

// CheckError fails t unless err is a *rdf.SyntaxError of syntax at c's position whose message names UTF-8. An
// error that is not a syntax error at all stops the test; got (what was decoded before the error) and what (which
// case this is) only describe the failure.
func CheckError(t testing.TB, what, syntax string, c Case, got any, err error) {
	t.Helper()
	var se *rdf.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("%s, %s: got %v after %v, want a syntax error", what, c.Bad.Name, err, got)
	}
	if se.Syntax != syntax || se.Line != c.Line || se.Column != c.Column || !strings.Contains(se.Msg, "UTF-8") {
		t.Errorf("%s, %s: got %v, want %s at line %d, column %d naming UTF-8", what, c.Bad.Name, err, syntax, c.Line, c.Column)
	}
}
