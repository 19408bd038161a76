package turtle

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// decodeAll returns the quads of src as N-Quads lines.
func decodeAll(t *testing.T, dec *Decoder) ([]string, error) {
	t.Helper()
	var out []string
	for {
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q.String())
	}
}

func opts() rdf.DecodeOptions {
	return rdf.DecodeOptions{Base: "http://ex/base/doc", Blanks: rdf.NewBlankNodes("")}
}

func TestDecodeTurtle(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"simple", `<a> <b> <c> .`, []string{`<http://ex/base/a> <http://ex/base/b> <http://ex/base/c> .`}},
		{"prefix and a", "@prefix p: <http://p/> .\np:s a p:C ; p:q 1, 2.5, -3e2, true .", []string{
			`<http://p/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://p/C> .`,
			`<http://p/s> <http://p/q> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
			`<http://p/s> <http://p/q> "2.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .`,
			`<http://p/s> <http://p/q> "-3e2"^^<http://www.w3.org/2001/XMLSchema#double> .`,
			`<http://p/s> <http://p/q> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .`,
		}},
		{"sparql prefix, escapes", "PREFIX p: <http://p/>\np:a\\~b p:q 'x\\n\\u00e9'@en-GB .", []string{
			`<http://p/a~b> <http://p/q> "x\né"@en-GB .`,
		}},
		{"long string", "<s> <p> \"\"\"a\n\"b\"\"\" .", []string{
			`<http://ex/base/s> <http://ex/base/p> "a\n\"b" .`,
		}},
		{"bnodes and list", "_:x <p> [ <q> ( 1 [] ) ] .", []string{
			`_:b1 <http://ex/base/p> _:b2 .`,
			`_:b2 <http://ex/base/q> _:b3 .`,
			`_:b3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
			`_:b3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:b4 .`,
			`_:b4 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> _:b5 .`,
			`_:b4 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
		}},
		{"bnode subject list", "[ <p> <o> ] . [ <p> () ] <q> 1.", []string{
			`_:b1 <http://ex/base/p> <http://ex/base/o> .`,
			`_:b2 <http://ex/base/p> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
			`_:b2 <http://ex/base/q> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
		}},
		{"spaced tag and datatype", "<s> <p> \"x\" @en, \"y\" ^^ <d> .", []string{
			`<http://ex/base/s> <http://ex/base/p> "x"@en .`,
			`<http://ex/base/s> <http://ex/base/p> "y"^^<http://ex/base/d> .`,
		}},
		{"absolute IRIs kept as written", "<http://a/./b/../c> <http://a/p> <x:./y> .", []string{
			`<http://a/./b/../c> <http://a/p> <x:./y> .`,
		}},
		{"language tag runs", "<s> <p> 'a'@en, 'b'@de, 'c'@de, 'd'@en .", []string{
			`<http://ex/base/s> <http://ex/base/p> "a"@en .`,
			`<http://ex/base/s> <http://ex/base/p> "b"@de .`,
			`<http://ex/base/s> <http://ex/base/p> "c"@de .`,
			`<http://ex/base/s> <http://ex/base/p> "d"@en .`,
		}},
		{"prefix redeclared", "@prefix p: <http://a/> . p:x p:x p:x . @prefix p: <http://b/> . p:x p:x p:x .", []string{
			`<http://a/x> <http://a/x> <http://a/x> .`,
			`<http://b/x> <http://b/x> <http://b/x> .`,
		}},
		{"byte order mark", "\xEF\xBB\xBF<a> <b> <c> .", []string{`<http://ex/base/a> <http://ex/base/b> <http://ex/base/c> .`}},
		{"base", "@base <http://o/x/> . <a> <b> <../c> . BASE <y/> <a> <b> <#c> .", []string{
			`<http://o/x/a> <http://o/x/b> <http://o/c> .`,
			`<http://o/x/y/a> <http://o/x/y/b> <http://o/x/y/#c> .`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAll(t, NewDecoder(strings.NewReader(tc.in), opts()))
			if err != nil {
				t.Fatalf("error: %v (got %q)", err, got)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestDecodeTriG(t *testing.T) {
	in := `@prefix p: <http://p/> .
p:g { p:s p:p p:o } 
GRAPH _:b { p:s p:p 1 . p:s p:p 2 . }
{ p:s p:p p:d }
[] { p:s p:p p:o . }
p:s p:p p:top .`
	want := []string{
		`<http://p/s> <http://p/p> <http://p/o> <http://p/g> .`,
		`<http://p/s> <http://p/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> _:b1 .`,
		`<http://p/s> <http://p/p> "2"^^<http://www.w3.org/2001/XMLSchema#integer> _:b1 .`,
		`<http://p/s> <http://p/p> <http://p/d> .`,
		`<http://p/s> <http://p/p> <http://p/o> _:b2 .`,
		`<http://p/s> <http://p/p> <http://p/top> .`,
	}
	got, err := decodeAll(t, NewTriGDecoder(strings.NewReader(in), opts()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDecodeN3(t *testing.T) {
	in := "@prefix : <http://p/> .\n:a = :b ; => :c ; <= :d ; has :p :e ; is :p of :f .\n"
	want := []string{
		`<http://p/a> <http://www.w3.org/2002/07/owl#sameAs> <http://p/b> .`,
		`<http://p/a> <http://www.w3.org/2000/10/swap/log#implies> <http://p/c> .`,
		`<http://p/d> <http://www.w3.org/2000/10/swap/log#implies> <http://p/a> .`,
		`<http://p/a> <http://p/p> <http://p/e> .`,
		`<http://p/f> <http://p/p> <http://p/a> .`,
	}
	got, err := decodeAll(t, NewN3Decoder(strings.NewReader(in), opts()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestErrors checks that bad input gives a *rdf.SyntaxError at the offending token, never a panic.
func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		newDec  func(io.Reader, rdf.DecodeOptions) *Decoder
		in      string
		line    int
		col     int
		msgPart string
	}{
		{"missing dot", NewDecoder, "<a> <b> <c>", 1, 12, "end of input"},
		{"undefined prefix", NewDecoder, "<a> <b> x:c .", 1, 9, "undefined prefix"},
		{"literal subject", NewDecoder, "\n  \"x\" <b> <c> .", 2, 3, "cannot be a subject"},
		{"bad escape", NewDecoder, `<a> <b> "x\qy" .`, 1, 11, "invalid escape"},
		{"column counts runes", NewDecoder, "<a> <b> \"éé\" ; ?", 1, 16, "predicate"},
		{"long string lines", NewDecoder, "<a> <b> \"\"\"x\ny\"\"\" <c> .", 2, 6, "after an object"},
		{"escape error inside a long string", NewDecoder, "<a> <b> '''x\nyé\\q''' .", 2, 3, "invalid escape"},
		{"bad IRI char", NewDecoder, "<a b> <b> <c> .", 1, 3, "invalid character"},
		{"graph in turtle", NewDecoder, "<g> { <a> <b> <c> }", 1, 5, "TriG"},
		{"nested graph", NewTriGDecoder, "<g> { <h> { } }", 1, 11, "nested"},
		{"unterminated graph", NewTriGDecoder, "<g> { <a> <b> <c> .", 1, 20, "expected '}'"},
		{"directive in graph", NewTriGDecoder, "{ @prefix p: <p:> . }", 1, 3, "not allowed inside a graph"},
		{"literal predicate", NewDecoder, "<a> \"p\" <c> .", 1, 5, "predicate must be an IRI"},
		{"relative without base", nil, "<a> <b> <c> .", 1, 1, "no base IRI"},
		{"n3 formula", NewN3Decoder, "<a> <b> { <c> <d> <e> } .", 1, 9, "formulae"},
		{"n3 variable", NewN3Decoder, "?x <b> <c> .", 1, 1, "quick variables"},
		{"n3 forAll", NewN3Decoder, "@forAll <x> .", 1, 1, "quantifiers"},
		{"n3 path", NewN3Decoder, "<http://a/x>!<http://a/p> <http://a/b> <http://a/c> .", 1, 13, "paths"},
		{"n3 path after space", NewN3Decoder, "<http://a/s> <http://a/p> <http://a/o> ^ <http://a/q> .", 1, 40, "paths"},
		{"n3 is without of", NewN3Decoder, "<http://a/s> is <http://a/p> <http://a/o> .", 1, 30, "expected 'of'"},
		{"invalid UTF-8 in a name", NewDecoder, "@prefix p: <http://p/> . p:a\xff <b> <c> .", 1, 29, "byte 0xff"},
		{"invalid UTF-8", NewDecoder, "<a> <b> \"\xff\xfe\" .", 1, 10, "UTF-8"},
		{"n3 literal subject via <=", NewN3Decoder, "<http://a/s> <= 1 .", 1, 17, "cannot be a subject"},
		{"n3 rule", NewN3Decoder, "{ <a> <b> <c> } => { <a> <b> <d> } .", 1, 1, "rules"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := opts()
			newDec := tc.newDec
			if newDec == nil {
				newDec, o.Base = NewDecoder, ""
			}
			_, err := decodeAll(t, newDec(strings.NewReader(tc.in), o))
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *rdf.SyntaxError", err)
			}
			if se.Line != tc.line || se.Column != tc.col || !strings.Contains(se.Msg, tc.msgPart) {
				t.Errorf("got %v, want line %d column %d containing %q", err, tc.line, tc.col, tc.msgPart)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("[ <p> ", 50) + "<o> " + strings.Repeat("]", 50)
	tests := []struct {
		name, in string
		limits   rdf.Limits
		msgPart  string
	}{
		{"depth brackets", "<s> <p> " + deep + " .", rdf.Limits{MaxDepth: 10}, "nesting"},
		{"depth lists", "<s> <p> " + strings.Repeat("(", 50) + strings.Repeat(")", 50) + " .", rdf.Limits{MaxDepth: 10}, "nesting"},
		{"literal size", "<s> <p> \"" + strings.Repeat("x", 100) + "\" .", rdf.Limits{MaxLiteralSize: 50}, "limit"},
		{"IRI size", "<s> <p> <" + strings.Repeat("x", 100) + "> .", rdf.Limits{MaxLiteralSize: 50}, "limit"},
		{"unterminated long string", "<s> <p> \"\"\"" + strings.Repeat("x\n", 100), rdf.Limits{MaxLiteralSize: 50}, "limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := opts()
			o.Limits = tc.limits
			_, err := decodeAll(t, NewDecoder(strings.NewReader(tc.in), o))
			var se *rdf.SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, tc.msgPart) {
				t.Fatalf("got %v, want a syntax error about %q", err, tc.msgPart)
			}
		})
	}
	// The same documents within the default limits parse.
	if _, err := decodeAll(t, NewDecoder(strings.NewReader("<s> <p> "+deep+" ."), opts())); err != nil {
		t.Errorf("default limits: %v", err)
	}
}

func TestPrefixesAndBase(t *testing.T) {
	in := "@prefix b: <http://b/> .\nPREFIX a: <http://a/>\n@prefix b: <http://b2/> .\nBASE <http://base/>\n"
	d := NewDecoder(strings.NewReader(in), opts())
	if _, err := decodeAll(t, d); err != nil {
		t.Fatal(err)
	}
	want := []rdf.Prefix{{Name: "b", IRI: "http://b2/"}, {Name: "a", IRI: "http://a/"}}
	if got := d.Prefixes(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Prefixes() = %v, want %v", got, want)
	}
	if d.Base() != "http://base/" {
		t.Errorf("Base() = %q", d.Base())
	}
	var _ rdf.PrefixSource = d
	var _ rdf.Decoder = d
}

// FuzzDecode requires that no input makes any dialect panic, and that failures are syntax errors.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"<a> <b> <c> .", "@prefix p: <http://p/> . p:a p:b ( 1 [ p:c 'x'@en ] ) .", "{ <a> <b> <c> }",
		"<g> { [] <b> \"\"\"x\"\"\"^^<d> }", "_:a <b> -1.5e3, .5, true .", "p:a\\~b <c> <d> .", "<a> = <b> .",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, nd := range []func(io.Reader, rdf.DecodeOptions) *Decoder{NewDecoder, NewTriGDecoder, NewN3Decoder} {
			o := opts()
			o.Limits = rdf.Limits{MaxDepth: 20, MaxLiteralSize: 1 << 10}
			got, err := decodeAll(t, nd(strings.NewReader(in), o))
			var se *rdf.SyntaxError
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("%q: non-syntax error %v", in, err)
			}
			if err == nil && !utf8.ValidString(in) {
				t.Fatalf("%q: accepted input that is not UTF-8", in)
			}
			for _, q := range got {
				if !utf8.ValidString(q) {
					t.Fatalf("%q: decoded a quad that is not UTF-8: %q", in, q)
				}
			}
			// Reading a byte at a time moves every window boundary; nothing may change.
			o.Blanks = rdf.NewBlankNodes("")
			got1, err1 := decodeAll(t, nd(iotest.OneByteReader(strings.NewReader(in)), o))
			if strings.Join(got, "\n") != strings.Join(got1, "\n") || fmt.Sprint(err) != fmt.Sprint(err1) {
				t.Fatalf("%q: byte-wise decoding differs:\n%q %v\n%q %v", in, got, err, got1, err1)
			}
		}
	})
}

// endless repeats its pattern forever after a prefix, like a hostile upload that never ends.
type endless struct {
	prefix  string
	pattern string
	n       int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		if e.n < len(e.prefix) {
			p[i] = e.prefix[e.n]
		} else {
			p[i] = e.pattern[(e.n-len(e.prefix))%len(e.pattern)]
		}
		e.n++
	}
	return len(p), nil
}

// TestEndlessTokens feeds tokens that never end; each must be cut off by a limit with a syntax error instead of
// buffering without bound.
func TestEndlessTokens(t *testing.T) {
	tests := []struct{ name, prefix, pattern string }{
		{"digits", "<s> <p> ", "1"},
		{"decimal", "<s> <p> 1.", "1"},
		{"exponent", "<s> <p> 1e", "1"},
		{"word", "", "a"},
		{"prefixed name", "@prefix a: <http://a/> . a:", "b"},
		{"language tag", "<s> <p> \"x\"@", "a"},
		{"string", "<s> <p> \"", "x"},
		{"long string", "<s> <p> '''", "x\n"},
		{"IRI", "<s> <p> <", "x"},
		{"blank label", "_:", "b"},
		{"directive", "@", "p"},
		{"nesting", "<s> <p> ", "[ <p> "},
		{"lists", "<s> <p> ", "("},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := opts()
			o.Limits = rdf.Limits{MaxLiteralSize: 1 << 16, MaxDepth: 100}
			d := NewDecoder(&endless{prefix: tc.prefix, pattern: tc.pattern}, o)
			var err error
			for i := 0; i < 1e6 && err == nil; i++ {
				_, err = d.Next()
			}
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a syntax error", err)
			}
			if cap(d.buf) > 4<<20 {
				t.Errorf("buffer grew to %d bytes", cap(d.buf))
			}
		})
	}
}

// TestEndlessStatement streams one statement that never ends: quads must keep coming in constant memory, because
// nothing waits for the statement's '.'.
func TestEndlessStatement(t *testing.T) {
	for _, pattern := range []string{"1, ", "[ <q> ( 1 2 ) ], ", "<o> ; <p> "} {
		d := NewDecoder(&endless{prefix: "<s> <p> ", pattern: pattern}, opts())
		for i := 0; i < 200000; i++ {
			if _, err := d.Next(); err != nil {
				t.Fatalf("%q: %v", pattern, err)
			}
		}
		if cap(d.buf) > 2*chunkSize || len(d.stack) > 3 || cap(d.out) > 16 {
			t.Errorf("%q: memory grows: buffer %d, stack %d, pending %d", pattern, cap(d.buf), len(d.stack), cap(d.out))
		}
	}
}
