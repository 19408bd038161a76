package parser

import (
	"testing"
)

// TestLexer checks token boundaries where the SPARQL terminals are easy to get wrong.
func TestLexer(t *testing.T) {
	tests := []struct {
		src  string
		want []string // kind:text, kinds abbreviated
	}{
		{`?x<?y`, []string{"var:x", "punct:<", "var:y"}},
		{`<http://ex/a>`, []string{"iri:http://ex/a"}},
		{`?a<?b&&?c>?d`, []string{"var:a", "iri:?b&&?c", "var:d"}},
		{`ex:a.b.`, []string{"pname:ex|a.b", "punct:."}},
		{`ex:a\.b ex:c%41`, []string{"pname:ex|a.b", "pname:ex|c%41"}},
		{`:é.x :`, []string{"pname:|é.x", "pname:|"}},
		{`ex:-a`, []string{"pname:ex|", "punct:-", "keyword:A"}},
		{`1. 1.5 .5 1e3 1.e3 -2 +3.0`, []string{"int:1", "punct:.", "dec:1.5", "dec:.5", "dbl:1e3", "dbl:1.e3", "int:-2", "dec:+3.0"}},
		{`?x-1`, []string{"var:x", "int:-1"}},
		{`( ) [ ] ( 1 )`, []string{"nil:", "anon:", "punct:(", "int:1", "punct:)"}},
		{`"a\"b" 'c' """d""e""" '''f'''`, []string{`string:a"b`, "string:c", `string:d""e`, "string:f"}},
		{`"x"@en-GB ^^`, []string{"string:x", "lang:en-GB", "punct:^^"}},
		{`_:b1.x _:b. # comment`, []string{"blank:b1.x", "blank:b", "punct:."}},
		{`select Distinct a`, []string{"keyword:SELECT", "keyword:DISTINCT", "keyword:A"}},
		{`$v ?`, []string{"var:v", "punct:?"}},
	}
	abbrev := map[kind]string{tIRI: "iri", tPName: "pname", tBlank: "blank", tVar: "var", tLang: "lang", tInteger: "int",
		tDecimal: "dec", tDouble: "dbl", tString: "string", tNil: "nil", tAnon: "anon", tKeyword: "keyword", tPunct: "punct"}
	for _, tc := range tests {
		l := lexer{src: tc.src, line: 1, col: 1}
		var got []string
		for {
			tok, err := l.next()
			if err != nil {
				t.Fatalf("%q: %v", tc.src, err)
			}
			if tok.kind == tEOF {
				break
			}
			s := abbrev[tok.kind] + ":" + tok.text
			if tok.kind == tPName {
				s += "|" + tok.local
			}
			got = append(got, s)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.src, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: token %d is %q, want %q", tc.src, i, got[i], tc.want[i])
			}
		}
	}
}

// TestScanLocalFastPath checks that the fast path for plain local names agrees with the general scanner.
func TestScanLocalFastPath(t *testing.T) {
	for _, s := range []string{"abc", "a.b", "a.", "a..b c", ".a", "-a", "a-b_c:d", "1a", "a:b.:", "ab)", "a\\.b", "a%20", "é", ""} {
		fast, fn, ferr := scanLocal(s)
		slow, sn, serr := scanLocalSlow(s)
		if fast != slow || fn != sn || (ferr == nil) != (serr == nil) {
			t.Errorf("%q: fast (%q, %d, %v) != slow (%q, %d, %v)", s, fast, fn, ferr, slow, sn, serr)
		}
	}
}
