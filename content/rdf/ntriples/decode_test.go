package ntriples_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// decodeAll reads every statement with deterministic blank-node labels (prefix "x").
func decodeAll(t *testing.T, quads bool, in string) ([]rdf.Quad, error) {
	t.Helper()
	o := rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("x")}
	var d rdf.Decoder
	if quads {
		d = ntriples.NewQuadDecoder(strings.NewReader(in), o)
	} else {
		d = ntriples.NewDecoder(strings.NewReader(in), o)
	}
	return conformance.ReadAll(d)
}

var (
	s  = rdf.IRI("http://ex/s")
	p  = rdf.IRI("http://ex/p")
	o  = rdf.IRI("http://ex/o")
	g  = rdf.IRI("http://ex/g")
	b1 = rdf.Blank("xb1")
	b2 = rdf.Blank("xb2")
)

func TestDecodeValid(t *testing.T) {
	tests := []struct {
		name  string
		quads bool
		in    string
		want  []rdf.Quad
	}{
		{"iri triple", false, "<http://ex/s> <http://ex/p> <http://ex/o> .\n", []rdf.Quad{rdf.Triple(s, p, o)}},
		{"no final newline", false, "<http://ex/s> <http://ex/p> <http://ex/o> .", []rdf.Quad{rdf.Triple(s, p, o)}},
		{"minimal whitespace", false, "<http://ex/s><http://ex/p>_:o.", []rdf.Quad{rdf.Triple(s, p, b1)}},
		{"tabs and trailing comment", false, "\t<http://ex/s>\t<http://ex/p> \"a\" . # c\n", []rdf.Quad{rdf.Triple(s, p, rdf.String("a"))}},
		{"blank lines and comments", false, "# c\n\n   \n<http://ex/s> <http://ex/p> <http://ex/o> .\n#end", []rdf.Quad{rdf.Triple(s, p, o)}},
		{"CR line ends", false, "<http://ex/s> <http://ex/p> \"1\" .\r<http://ex/s> <http://ex/p> \"2\" .\r\n\r\n",
			[]rdf.Quad{rdf.Triple(s, p, rdf.String("1")), rdf.Triple(s, p, rdf.String("2"))}},
		{"blank nodes share labels", false, "_:a <http://ex/p> _:b .\n_:b <http://ex/p> _:a .\n",
			[]rdf.Quad{rdf.Triple(b1, p, b2), rdf.Triple(b2, p, b1)}},
		{"blank label with dots and dashes", false, "_:a.b-c_d <http://ex/p> _:0x .\n",
			[]rdf.Quad{rdf.Triple(b1, p, b2)}},
		{"blank label ends before dot", false, "_:a <http://ex/p> _:a.\n", []rdf.Quad{rdf.Triple(b1, p, b1)}},
		{"unicode blank label", false, "_:é·̀ <http://ex/p> <http://ex/o> .", []rdf.Quad{rdf.Triple(b1, p, o)}},
		{"lang tag", false, `<http://ex/s> <http://ex/p> "chat"@fr-BE-1996 .`, []rdf.Quad{rdf.Triple(s, p, rdf.LangString("chat", "fr-BE-1996"))}},
		{"datatype", false, `<http://ex/s> <http://ex/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
			[]rdf.Quad{rdf.Triple(s, p, rdf.Literal("1", rdf.XSDInteger))}},
		{"explicit xsd:string", false, `<http://ex/s> <http://ex/p> "a"^^<http://www.w3.org/2001/XMLSchema#string> .`,
			[]rdf.Quad{rdf.Triple(s, p, rdf.String("a"))}},
		{"string escapes", false, `<http://ex/s> <http://ex/p> "\t\b\n\r\f\"\'\\\u00e9\U0001F600" .`,
			[]rdf.Quad{rdf.Triple(s, p, rdf.String("\t\b\n\r\f\"'\\é😀"))}},
		{"raw controls and UTF-8", false, "<http://ex/s> <http://ex/p> \"\x00\x01\t\x7fé\" .",
			[]rdf.Quad{rdf.Triple(s, p, rdf.String("\x00\x01\t\x7fé"))}},
		{"IRI escapes", false, `<http://ex/\u00E9\U0001F600> <http://ex/p> <http://ex/o> .`,
			[]rdf.Quad{rdf.Triple(rdf.IRI("http://ex/é😀"), p, o)}},
		{"non-ASCII IRI", false, "<http://ex/é> <http://ex/p> <urn:x> .", []rdf.Quad{rdf.Triple(rdf.IRI("http://ex/é"), p, rdf.IRI("urn:x"))}},
		{"repeated subject", false, "<http://ex/s> <http://ex/p> \"1\" .\n<http://ex/s> <http://ex/p> \"2\" .\n<http://ex/o> <http://ex/p> \"3\" .",
			[]rdf.Quad{rdf.Triple(s, p, rdf.String("1")), rdf.Triple(s, p, rdf.String("2")), rdf.Triple(o, p, rdf.String("3"))}},
		{"quad with IRI graph", true, "<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> .", []rdf.Quad{{S: s, P: p, O: o, G: g}}},
		{"quad with blank graph", true, "<http://ex/s> <http://ex/p> \"x\"@en _:g .", []rdf.Quad{{S: s, P: p, O: rdf.LangString("x", "en"), G: b1}}},
		{"quad in default graph", true, "<http://ex/s> <http://ex/p> <http://ex/o> .", []rdf.Quad{rdf.Triple(s, p, o)}},
		{"empty document", false, "", nil},
		{"byte order mark", false, "\xEF\xBB\xBF<http://ex/s> <http://ex/p> <http://ex/o> .", []rdf.Quad{rdf.Triple(s, p, o)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeAll(t, tt.quads, tt.in)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d statements %v, want %d %v", len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("statement %d = %#v, want %#v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name       string
		quads      bool
		in         string
		line, col  int
		msgContain string
	}{
		{"relative subject", false, "<s> <http://ex/p> <http://ex/o> .", 1, 2, "relative IRI"},
		{"relative datatype", false, `<http://ex/s> <http://ex/p> "a"^^<dt> .`, 1, 35, "relative IRI"},
		{"space in IRI", false, "<http://ex/ s> <http://ex/p> <http://ex/o> .", 1, 12, "not allowed in an IRI"},
		{"ECHAR in IRI", false, `<http://ex/\n> <http://ex/p> <http://ex/o> .`, 1, 12, "invalid escape"},
		{"bad hex", false, `<http://ex/\u00ZZ> <http://ex/p> <http://ex/o> .`, 1, 12, "hex digit"},
		{"surrogate escape", false, `<http://ex/s> <http://ex/p> "\uD800" .`, 1, 30, "scalar value"},
		{"bad string escape", false, `<http://ex/s> <http://ex/p> "a\zb" .`, 1, 31, "invalid escape"},
		{"unterminated string", false, `<http://ex/s> <http://ex/p> "abc .`, 1, 29, "not closed"},
		{"long string", false, `<http://ex/s> <http://ex/p> """abc""" .`, 1, 31, "expected '.'"},
		{"single quotes", false, `<http://ex/s> <http://ex/p> 'abc' .`, 1, 29, "as object"},
		{"number", false, "<http://ex/s> <http://ex/p> 1 .", 1, 29, "as object"},
		{"bad lang", false, `<http://ex/s> <http://ex/p> "a"@1 .`, 1, 33, "language tag"},
		{"empty subtag", false, `<http://ex/s> <http://ex/p> "a"@en- .`, 1, 36, "subtag"},
		{"colon in blank label", false, "_:a:b <http://ex/p> <http://ex/o> .", 1, 4, "predicate"},
		{"blank label starting with colon", false, "_::a <http://ex/p> <http://ex/o> .", 1, 3, "cannot start"},
		{"literal subject", false, `"a" <http://ex/p> <http://ex/o> .`, 1, 1, "subject"},
		{"blank predicate", false, "<http://ex/s> _:p <http://ex/o> .", 1, 15, "predicate"},
		{"object list", false, "<http://ex/s> <http://ex/p> <http://ex/o>, <http://ex/o2> .", 1, 42, "expected '.'"},
		{"missing dot", false, "<http://ex/s> <http://ex/p> <http://ex/o>", 1, 42, "expected '.'"},
		{"two statements on a line", false, "<http://ex/s> <http://ex/p> <http://ex/o> . <http://ex/s> <http://ex/p> <http://ex/o> .", 1, 45, "one statement per line"},
		{"statement split over lines", false, "<http://ex/s> <http://ex/p>\n<http://ex/o> .", 1, 28, "as object"},
		{"graph in N-Triples", false, "<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> .", 1, 43, "N-Quads"},
		{"@prefix", false, "@prefix : <http://ex/> .", 1, 1, "subject"},
		{"error on line 3 after CRLF", false, "# a\r\n\r\n<http://ex/s> <http://ex/p> x .", 3, 29, "as object"},
		{"column counts runes", false, "<http://ex/é> <http://ex/p> \"é\" x", 1, 33, "expected '.'"},
		{"invalid UTF-8", false, "<http://ex/s> <http://ex/p> \"a\xffb\" .", 1, 31, "UTF-8"},
		{"literal graph", true, `<http://ex/s> <http://ex/p> <http://ex/o> "g" .`, 1, 43, "expected '.'"},
		{"quint", true, "<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> <http://ex/n> .", 1, 57, "expected '.'"},
		{"relative graph", true, "<http://ex/s> <http://ex/p> <http://ex/o> <g> .", 1, 44, "relative IRI"},
		{"extra dot after blank label", false, "_:a <http://ex/p> _:a..", 1, 23, "after '.'"},
		{"byte order mark after the start", false, "# c\n\xEF\xBB\xBF<http://ex/s> <http://ex/p> <http://ex/o> .", 2, 1, "subject"},
		{"unclosed IRI", false, "<http://ex/s <http://ex/p> <http://ex/o> .", 1, 13, "not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeAll(t, tt.quads, tt.in)
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got error %v, want a *rdf.SyntaxError", err)
			}
			wantSyntax := "n-triples"
			if tt.quads {
				wantSyntax = "n-quads"
			}
			if se.Syntax != wantSyntax || se.Line != tt.line || se.Column != tt.col || !strings.Contains(se.Msg, tt.msgContain) {
				t.Errorf("got %q (syntax %s, line %d, column %d), want %s line %d column %d containing %q",
					se.Error(), se.Syntax, se.Line, se.Column, wantSyntax, tt.line, tt.col, tt.msgContain)
			}
		})
	}
}

func TestDecodeErrorIsSticky(t *testing.T) {
	d := ntriples.NewDecoder(strings.NewReader("bad\n<http://ex/s> <http://ex/p> <http://ex/o> .\n"), rdf.DecodeOptions{})
	_, err1 := d.Next()
	_, err2 := d.Next()
	if err1 == nil || err1 != err2 {
		t.Fatalf("errors %v then %v, want the same syntax error twice", err1, err2)
	}
}

func TestDecodeLimits(t *testing.T) {
	lim := rdf.DecodeOptions{Limits: rdf.Limits{MaxLiteralSize: 12}}
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"literal at limit", `<http://ex/s> <http://ex/p> "123456789012" .`, true},
		{"literal over limit", `<http://ex/s> <http://ex/p> "1234567890123" .`, false},
		{"IRI over limit", `<http://ex/s> <http://ex/p> <http://ex/long1> .`, false},
		{"escaped literal over limit", `<http://ex/s> <http://ex/p> "\u0041\u0041\u0041\u0041\u0041\u0041\u0041\u0041\u0041\u0041\u0041\u0041\u0041" .`, false},
		{"line over the line limit", "<http://ex/s> <http://ex/p> \"" + strings.Repeat("a", 300<<10) + "\" .", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ntriples.NewDecoder(strings.NewReader(tt.in), lim)
			_, err := d.Next()
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// A line far longer than the read buffer still parses (the buffer grows for it alone).
func TestDecodeLongLine(t *testing.T) {
	long := strings.Repeat("é", 400<<10)
	in := "<http://ex/s> <http://ex/p> \"" + long + "\" .\n<http://ex/s> <http://ex/p> \"short\" .\n"
	got, err := decodeAll(t, false, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].O.Value != long || got[1].O.Value != "short" {
		t.Fatalf("long line misread: %d statements", len(got))
	}
}

func TestDecodePrefixedBlankLabels(t *testing.T) {
	// Without fixed blank nodes every decoder mints its own prefix, so two documents never share a node.
	in := "_:a <http://ex/p> _:a ."
	q1, _ := ntriples.NewDecoder(strings.NewReader(in), rdf.DecodeOptions{}).Next()
	q2, _ := ntriples.NewDecoder(strings.NewReader(in), rdf.DecodeOptions{}).Next()
	if q1.S != q1.O || q1.S == q2.S {
		t.Errorf("labels %s %s / %s: want equal within a document and distinct across documents", q1.S, q1.O, q2.S)
	}
}
